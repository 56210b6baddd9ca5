"""CL106 setting-changed-in-loop: a cache-key setting (tool_choice, thinking, model...) changed
inside the loop that repeats the call: every change loses cached tiers without a byte of them
changing."""

from __future__ import annotations

from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.diagnostics import Diagnostic

CODE = "CL106"

# What a change of each cache-key setting loses (docs/background/prefix-and-invalidation.md#anthropic, docs/background/prefix-and-invalidation.md#openai; the audit's
# dated table is rules/packs/payloads-invalidation.yaml).
_SETTING_LOSES = {
    "tool_choice": "the cached messages",
    "function_call": "the cached messages",
    "thinking": "the cached messages",
    "model": "the whole cached prefix (caches are per model)",
    "response_format": "the cached system prompt and messages (the schema is a prefix to the system message)",
    "text": "the cached instructions and input (text.format's schema is a prefix to the instructions)",
    "prompt_cache_key": "the cache it was routed to (another key routes the request elsewhere)",
    "output_config": "the cached messages (effort is a cache key as thinking is)",
    "speed": "the cached system prompt and messages",
    "reasoning": "the cached prefix of the conversation",
    "reasoning_effort": "the cached prefix of the conversation",
}

# Where the provider offers a way to make the change without losing the cache, the message names
# it (docs/background/prefix-and-invalidation.md#anthropic, #openai).
_SETTING_INSTEAD = {
    "output_config": (
        "keep the top-level output_config and append an effort-only system message"
        ' ({"role": "system", "content": [], "output_config": {"effort": ...}}, beta'
        " mid-conversation-output-config-2026-07-01)"
    ),
    "reasoning": (
        'keep reasoning.effort and append a configuration_update input item ({"type": "configuration_update",'
        ' "reasoning": {"effort": ...}})'
    ),
}


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for c in facts.first_change_per_place("setting"):
        setting = c.sink.label.split("=", 1)[0]
        effect = f"and each change of {setting} loses {_SETTING_LOSES.get(setting, 'cached tiers')}"
        instead = _SETTING_INSTEAD.get(setting)
        if instead is not None:
            effect += f"; to change it mid-conversation, {instead}"
        yield facts.diagnostic(CODE, facts.loop_change_message(c, effect), c.site)
