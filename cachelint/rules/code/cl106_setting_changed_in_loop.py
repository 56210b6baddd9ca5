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
    "thinking": "the cached messages",
    "model": "the whole cached prefix (caches are per model)",
    "response_format": "the cached system prompt and messages (the schema is a prefix to the system message)",
    "text": "the cached instructions and input (text.format's schema is a prefix to the instructions)",
    "prompt_cache_key": "the cache it was routed to (another key routes the request elsewhere)",
}


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for c in facts.first_change_per_place("setting"):
        setting = c.sink.label.split("=", 1)[0]
        effect = f"and each change of {setting} loses {_SETTING_LOSES.get(setting, 'cached tiers')}"
        yield facts.diagnostic(CODE, facts.loop_change_message(c, effect), c.site, related=[c.sink.line])
