"""CL103 tools-changed-in-loop: the tools are mutated or rebound inside the loop that repeats the
call (the loop analysis of ``cachelint.code.flow.loops``), so the next request sends other tools:
the whole prefix is written again."""

from __future__ import annotations

from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.diagnostics import Diagnostic
from cachelint.rules.declarations import CodeRule

CODE = "CL103"


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for c in facts.first_change_per_place("tools"):
        yield facts.diagnostic(
            CODE,
            facts.loop_change_message(c, "so each change rewrites the cached prefix from the tools (position 0) on"),
            c.site,
            related=[c.sink.line],
        )
    # no loop in view: a request carries a conversation on, and its tools argument is built from it
    # (or lists only what a test on state changed between its requests lets through)
    for r in facts.rebuilt_per_request("tools"):
        msg = facts.per_request_message(r, "the whole cached prefix, from the tools (position 0) on")
        yield facts.diagnostic(CODE, msg, r.origin.site, related=facts.reach_lines(r))


RULE = CodeRule(CODE, check, requires=("sink-call",))
