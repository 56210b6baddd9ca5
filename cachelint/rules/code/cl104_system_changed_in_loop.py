"""CL104 system-changed-in-loop: the system prompt or instructions are changed inside the loop
that repeats the call (the loop analysis of ``cachelint.code.flow.loops``), so the next request
rewrites the cached prefix from the system prompt on."""

from __future__ import annotations

from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.diagnostics import Diagnostic
from cachelint.rules.declarations import CodeRule

CODE = "CL104"


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for c in facts.first_change_per_place("system"):
        yield facts.diagnostic(
            CODE,
            facts.loop_change_message(
                c,
                "so each change rewrites the cached prefix from that message on"
                if c.sink.first_message
                else "so each change rewrites the cached prefix from the system prompt on",
            ),
            c.site,
            related=[c.sink.line],
        )
    # no loop in view: a request carries a conversation on, and its system argument is built from it
    # (or lists only what a test on state changed between its requests lets through)
    for r in facts.rebuilt_per_request("system"):
        msg = facts.per_request_message(r, "the cached prefix from the system prompt on")
        yield facts.diagnostic(CODE, msg, r.origin.site, related=facts.reach_lines(r))


RULE = CodeRule(CODE, check, requires=("sink-call",))
