"""CL106 setting-changed-in-loop: a cache-key setting (tool_choice, thinking, model...) changed
inside the loop that repeats the call: every change loses cached tiers without a byte of them
changing."""

from __future__ import annotations

from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.code.knowledge import setting_cache_keeping_changes, setting_losses
from cachelint.diagnostics import Diagnostic
from cachelint.rules.declarations import CodeRule

CODE = "CL106"


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for c in facts.first_change_per_place("setting"):
        setting = c.sink.label.split("=", 1)[0]
        # what a change loses, and the provider's way to change it that keeps the cache, in the
        # words of the audit's table (rules/packs/payloads-invalidation.yaml)
        effect = f"and each change of {setting} loses {setting_losses().get(setting, 'cached tiers')}"
        instead = setting_cache_keeping_changes().get(setting)
        if instead is not None:
            effect += f"; to change it mid-conversation, {instead}"
        yield facts.diagnostic(CODE, facts.loop_change_message(c, effect), c.site, related=[c.sink.line])


RULE = CodeRule(CODE, check, requires=("sink-call",))
