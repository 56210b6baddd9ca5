"""How often a prefix value changes, and what CL105 says of it: a generator made with a seed is the
same in every process; a clock read once reaching a prompt both whole and reduced to its date is
reported as the clock."""

from __future__ import annotations

from codecheck_helpers import run
from cachelint.diagnostics import Severity


def _cl105(source: str) -> list:
    return [d for d in run(source) if d.code == "CL105"]


def test_a_seeded_generator_is_the_same_in_every_process() -> None:
    source = """
EXAMPLES = ["a", "b", "c"]

def ask(messages):
    shots = random.Random(42).sample(EXAMPLES, 2)
    rng = numpy.random.default_rng(seed=7)
    order = rng.permutation(3)
    return client.messages.create(model="m", max_tokens=10, system="Examples: " + "\\n".join(shots) + str(order), messages=messages)
"""
    assert _cl105("import numpy\n" + source) == []


def test_an_unseeded_generator_is_still_volatile() -> None:
    source = """
EXAMPLES = ["a", "b", "c"]

def ask(messages):
    rng = random.Random()
    shots = rng.sample(EXAMPLES, 2)
    return client.messages.create(model="m", max_tokens=10, system="Examples: " + "\\n".join(shots), messages=messages)
"""
    found = _cl105(source)
    assert len(found) == 1 and "random value" in found[0].message


def test_a_generator_seeded_by_the_clock_is_volatile() -> None:
    source = """
def ask(messages):
    rng = random.Random(time.time())
    return client.messages.create(model="m", max_tokens=10, system=f"Pick {rng.random()}", messages=messages)
"""
    assert len(_cl105(source)) == 1


def test_a_clock_reaching_whole_and_as_its_date_is_reported_as_the_clock() -> None:
    source = """
def render(template, context):
    now = datetime.now()
    context.update({"year": now.year, "now": f"{now}"})
    return template.format(**context)

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=render("{now}", {}), messages=messages)
"""
    found = _cl105(source)
    assert len(found) == 1
    assert "(the clock)" in found[0].message and found[0].severity in (None, Severity.ERROR), found[0].message


def test_a_message_list_only_counted_is_no_request() -> None:
    source = """
def calculate_size(llm, msgs, n):
    tokens = llm.count_tokens(msgs)
    return tokens.total // n

def sizes(llm, question):
    probe = [{"role": "system", "content": f"Now: {datetime.now()}"}, {"role": "user", "content": question}]
    direct = litellm.token_counter(model="m", messages=[{"role": "system", "content": f"{time.time()}"}])
    return calculate_size(llm, probe, 3) + direct
"""
    assert _cl105(source) == []


def test_a_message_list_counted_and_sent_is_a_request() -> None:
    source = """
def ask(question):
    messages = [{"role": "system", "content": f"Now: {datetime.now()}"}, {"role": "user", "content": question}]  # here
    if litellm.token_counter(model="m", messages=messages) > 1000:
        return None
    return litellm.completion(model="m", messages=messages)
"""
    found = _cl105(source)
    assert len(found) == 1 and found[0].severity is None, [d.message for d in found]


def test_the_first_messages_of_a_new_conversation_are_made_once_per_conversation() -> None:
    source = """
def build(request):
    history = request.conversation_history
    if not history or len(history) == 0:
        system = f"Now: {datetime.now()}"
        return [{"role": "system", "content": system}, {"role": "user", "content": request.ask}]
    history.append({"role": "user", "content": request.ask})
    return history
"""
    found = _cl105(source)
    assert len(found) == 1 and found[0].severity is Severity.INFO
    assert "once per conversation" in found[0].message


def test_a_list_given_to_a_loop_that_carries_the_conversation_on_is_made_once_per_conversation() -> None:
    source = """
class Runner:
    def call(self, messages):
        while True:
            reply = litellm.completion(model="m", messages=messages)
            if not reply.choices[0].message.tool_calls:
                return reply
            messages.append(reply.choices[0].message)

    def prompt_call(self, system_prompt, user):
        messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]
        return self.call(messages)

    def investigate(self, question):
        return self.prompt_call(f"Now: {datetime.now()}", question)
"""
    found = _cl105(source)
    assert len(found) == 1 and found[0].severity is Severity.INFO, [d.message for d in found]


def test_a_list_returned_without_a_test_for_a_new_conversation_is_still_per_request() -> None:
    source = """
def chunks():
    return [dict(role="system", content=f"Now: {datetime.now()}")]

def one_shot(question):
    return litellm.completion(model="m", messages=[{"role": "system", "content": f"Now {datetime.now()}"}, {"role": "user", "content": question}])
"""
    found = _cl105(source)
    assert len(found) == 2 and all(d.severity is None for d in found), [d.message for d in found]


def test_a_clock_the_caller_passes_to_a_conversation_builder_is_the_callers() -> None:
    source = """
def build(history, system):
    if not history:
        return [{"role": "system", "content": system}]
    return history

def ask(history, question):
    msgs = build(history, f"{BASE} {time.time()}")
    return oai.chat.completions.create(model="gpt-5", messages=msgs + [{"role": "user", "content": question}])
"""
    found = _cl105(source)
    assert len(found) == 1 and found[0].severity is None, [d.message for d in found]


def test_a_clock_read_before_the_loop_that_starts_a_conversation_is_per_conversation() -> None:
    source = """
def run(task):
    system = f"Now {datetime.now()}"
    messages = [{"role": "user", "content": task}]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        if reply.stop_reason != "tool_use":
            return reply
        messages.append({"role": "assistant", "content": reply.content})
"""
    found = _cl105(source)
    assert len(found) == 1 and found[0].severity is Severity.INFO, [d.message for d in found]


def test_a_clock_read_before_a_loop_over_a_carried_conversation_is_per_call() -> None:
    source = """
class Bot:
    def turn(self, text):
        system = f"Now {datetime.now()}"
        self.history.append({"role": "user", "content": text})
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=system, messages=self.history)
            if reply.stop_reason != "tool_use":
                return reply
            self.history.append({"role": "assistant", "content": reply.content})
"""
    found = _cl105(source)
    assert len(found) == 1 and found[0].severity is None
    assert "once per call of the function" in found[0].message and "every request" not in found[0].message


def test_a_clock_read_inside_the_loop_is_per_request() -> None:
    source = """
def run(messages):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=f"Now {datetime.now()}", messages=messages)
        messages.append(reply)
"""
    found = _cl105(source)
    assert len(found) == 1 and "every request" in found[0].message


def test_a_variable_named_like_a_module_is_not_the_module() -> None:
    source = """
def system(fmt):
    moment = datetime.now()  # here
    time = moment
    formatted = time.strftime(fmt)
    return f"Now {formatted}"

def ask(messages, fmt):
    return client.messages.create(model="m", max_tokens=10, system=system(fmt), messages=messages)
"""
    from rule_cases import check_positive

    check_positive("CL105", source)
