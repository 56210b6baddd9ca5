"""A value stands for a request only where something may send it: a system prompt's name bound
again before anything reads it (a later notebook cell redefining the prompt), a local nothing
reads, one only printed or logged, a message list only given to a local model's chat template.
Their look-alikes (the final binding, one returned, one sent) are still reported."""

from __future__ import annotations

from codecheck_helpers import run


def _cl105_lines(source: str) -> list[int]:
    return sorted(d.line for d in run(source, header=False) if d.code == "CL105")


HEAD = "from datetime import date, datetime\nimport anthropic\nclient = anthropic.Anthropic()\n"


def test_a_prompt_name_bound_again_before_any_read_is_not_sent() -> None:
    source = HEAD + (
        'system_prompt = f"Today is {date.today()}"\n'
        "def chat(q):\n"
        '    return client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": q}])\n'
        'system_prompt = "You are a support bot."\n'
        "def sms(q):\n"
        '    return client.messages.create(model="m", max_tokens=10, system=system_prompt, messages=[])\n'
    )
    assert _cl105_lines(source) == []


def test_a_prompt_name_read_before_it_is_bound_again_is_still_reported() -> None:
    source = HEAD + (
        'system_prompt = f"Today is {date.today()}"\n'
        'reply = client.messages.create(model="m", max_tokens=10, system=system_prompt, messages=[])\n'
        'system_prompt = "You are a support bot."\n'
    )
    assert _cl105_lines(source) == [4]


def test_the_last_binding_of_a_module_prompt_is_still_reported() -> None:
    source = HEAD + 'SYSTEM_PROMPT = "draft"\nSYSTEM_PROMPT = f"Today {date.today()}"\n'
    assert _cl105_lines(source) == [5]


def test_a_local_prompt_only_printed_or_never_read_is_not_sent() -> None:
    source = HEAD + (
        "def show():\n"
        '    system_prompt = f"It is {datetime.now()}"\n'
        "    print(system_prompt)\n"
        "def unused():\n"
        '    system_prompt = f"It is {datetime.now()}"\n'
        "    return 1\n"
    )
    assert _cl105_lines(source) == []


def test_a_local_prompt_returned_is_still_reported() -> None:
    source = HEAD + ('def kept():\n    system_prompt = f"It is {datetime.now()}"\n    return system_prompt\n')
    assert _cl105_lines(source) == [5]


def test_a_message_list_only_given_to_a_chat_template_is_not_sent() -> None:
    source = HEAD + (
        "def local(tokenizer, q):\n"
        '    messages = [{"role": "system", "content": f"It is {datetime.now()}"}, {"role": "user", "content": q}]\n'
        "    return tokenizer.apply_chat_template(messages, tokenize=False)\n"
    )
    assert _cl105_lines(source) == []


def test_a_user_message_clock_is_never_the_system_prompt() -> None:
    source = HEAD + (
        "def ask(history, q):\n"
        '    messages = [{"role": "system", "content": "You help."}, {"role": "user", "content": f"{q} at {datetime.now()}"}]\n'
        '    client.messages.create(model="m", max_tokens=10, system="You help.", messages=[{"role": "user", "content": f"{datetime.now()}"}, *history])\n'
        "    system_prompt, user_prompt = make_prompts(q)\n"
        '    return client.messages.create(model="m", max_tokens=10, system=system_prompt, messages=messages + [{"role": "user", "content": user_prompt}])\n'
        "def make_prompts(q):\n"
        '    return "You help.", f"{q} sent at {datetime.now()}"\n'
    )
    assert _cl105_lines(source) == []
