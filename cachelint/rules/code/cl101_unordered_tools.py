"""CL101 unordered-tools: the order of the tools comes from an unordered source (a set, a dict
built from one, a directory listing, ``glob``...).

Tools render first: another order is another prefix from byte 0. Reported where the order enters
(one finding per construction site, naming the first call it reaches), with the ``sorted(...)``
fix of ``cachelint.code.fixes``."""

from __future__ import annotations

from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.code.fixes import sorted_fix
from cachelint.code.values import UNORDERED
from cachelint.diagnostics import Diagnostic
from cachelint.rules.declarations import CodeRule

CODE = "CL101"


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for r in facts.first_reach_per_origin(UNORDERED, ("tools",)):
        msg = f"tools built from {r.origin.what} (unordered) reach {facts.reached(r.sink)}"
        yield facts.diagnostic(CODE, msg, r.origin.site, sorted_fix(facts, r), related=facts.reach_lines(r))


RULE = CodeRule(CODE, check, requires=("sink-call",))
