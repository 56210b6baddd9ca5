"""CL106 on the cache-key settings of 2026: Anthropic's output_config (effort) and speed, OpenAI's
reasoning (effort) and reasoning_effort, litellm's response_format and thinking. Where the
provider offers a way to change the setting mid-conversation that keeps the cached prefix (an
effort-only system message; a configuration_update input item), the message names it. Settings
no provider documents as part of the cache key (service_tier, the cache TTL) are not reported."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from rule_cases import check_negative, check_positive, params

CHANGED = {
    "anthropic-effort": """
def run(messages):
    effort = "high"
    while True:
        reply = client.messages.create(model="m", max_tokens=10, output_config={"effort": effort}, messages=messages)
        if reply.stop_reason == "end_turn":
            effort = "low"  # here
        messages.append(reply)
""",
    "anthropic-speed": """
def run(messages, slow):
    speed = "fast"
    while True:
        reply = client.messages.create(model="m", max_tokens=10, speed=speed, messages=messages)
        if slow(reply):
            speed = "standard"  # here
        messages.append(reply)
""",
    "openai-reasoning": """
def run(items):
    reasoning = {"effort": "high"}
    while True:
        response = oai.responses.create(model="gpt-5", reasoning=reasoning, input=items)
        items += response.output
        reasoning = {"effort": "low"}  # here
""",
    "openai-chat-reasoning-effort": """
def run(messages):
    effort = "high"
    while True:
        reply = oai.chat.completions.create(model="gpt-5", reasoning_effort=effort, messages=messages)
        messages.append(reply.choices[0].message)
        effort = "minimal"  # here
""",
    "litellm-response-format": """
def run(messages, schema):
    response_format = {"type": "json_schema", "json_schema": schema}
    while True:
        reply = litellm.completion(model="m", response_format=response_format, messages=messages)
        if not reply.choices[0].message.content:
            response_format = None  # here
        messages.append(reply.choices[0].message)
""",
}

NOT_A_KEY = {
    "service-tier": """
def run(messages, busy):
    tier = "auto"
    while True:
        reply = client.messages.create(model="m", max_tokens=10, service_tier=tier, messages=messages)
        if busy():
            tier = "standard_only"
        messages.append(reply)
""",
    "effort-kept-for-the-loop": """
def run(messages, effort):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, output_config={"effort": effort}, messages=messages)
        messages.append(reply)
        messages.append({"role": "system", "content": [], "output_config": {"effort": "low"}})
""",
}


@pytest.mark.parametrize("source", params(CHANGED))
def test_a_2026_cache_key_setting_changed_in_the_loop_is_reported(source: str) -> None:
    check_positive("CL106", source)


@pytest.mark.parametrize("source", params(NOT_A_KEY))
def test_settings_outside_the_cache_key_and_kept_settings_are_quiet(source: str) -> None:
    check_negative("CL106", source, only_this_code=True)


def test_the_fix_names_the_cache_preserving_way() -> None:
    anthropic = next(d for d in run(CHANGED["anthropic-effort"]) if d.code == "CL106")
    assert "effort-only system message" in anthropic.message
    assert "mid-conversation-output-config-2026-07-01" in anthropic.message
    openai = next(d for d in run(CHANGED["openai-reasoning"]) if d.code == "CL106")
    assert "configuration_update" in openai.message
    speed = next(d for d in run(CHANGED["anthropic-speed"]) if d.code == "CL106")
    assert "system prompt and messages" in speed.message and "mid-conversation" not in speed.message
