"""What CL106 says a changed setting loses comes from the audit's invalidation table
(rules/packs/payloads-invalidation.yaml: ``loses``, looked up by the request parameter), so that
the code check and the audit word one table."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from cachelint.code.knowledge import setting_losses

LOOP = """
def run(messages, values):
    for turn in range(3):
        value = values[turn]  # here
        {call}
"""

CASES = {
    "tool_choice": (
        'client.messages.create(model="m", max_tokens=10, tool_choice=value, messages=messages)',
        "the cached messages",
    ),
    "thinking": (
        'client.messages.create(model="m", max_tokens=10, thinking=value, messages=messages)',
        "the cached messages",
    ),
    "model": (
        "client.messages.create(model=value, max_tokens=10, messages=messages)",
        "the whole cached prefix (caches are per model)",
    ),
    "response_format": (
        'oai.chat.completions.create(model="gpt-5", response_format=value, messages=messages)',
        "the cached system prompt and messages (the schema is a prefix to the system message)",
    ),
    "prompt_cache_key": (
        'oai.chat.completions.create(model="gpt-5", prompt_cache_key=value, messages=messages)',
        "the cache it was routed to (another key routes the request elsewhere)",
    ),
    "text": (
        'oai.responses.create(model="gpt-5", input=messages, text=value)',
        "the cached instructions and input (text.format's schema is a prefix to the instructions)",
    ),
}


@pytest.mark.parametrize("setting", sorted(CASES))
def test_the_message_says_what_the_table_says_a_change_loses(setting: str) -> None:
    call, loses = CASES[setting]
    assert setting_losses()[setting] == loses
    (found,) = [d for d in run(LOOP.format(call=call)) if d.code == "CL106"]
    assert found.message.endswith(f"each change of {setting} loses {loses}"), found.message


def test_a_setting_the_table_does_not_word_loses_cached_tiers() -> None:
    assert "function_call" not in setting_losses()
    source = LOOP.format(
        call='oai.chat.completions.create(model="gpt-4", functions=[], function_call=value, messages=messages)'
    )
    (found,) = [d for d in run(source) if d.code == "CL106"]
    assert found.message.endswith("each change of function_call loses cached tiers"), found.message
