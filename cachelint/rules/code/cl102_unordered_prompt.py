"""CL102 unordered-prompt: system or instructions text assembled in an unordered order (joined
from a set, formatted from a directory listing...).

Reported where the order enters (one finding per construction site, naming the first call it
reaches), with the ``sorted(...)`` fix of ``cachelint.code.fixes``."""

from __future__ import annotations

from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.code.fixes import sorted_fix
from cachelint.code.values import UNORDERED
from cachelint.diagnostics import Diagnostic
from cachelint.rules.declarations import CodeRule

CODE = "CL102"


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for r in facts.first_reach_per_origin(UNORDERED, ("system",)):
        msg = f"system text built from {r.origin.what} (unordered) reaches {facts.reached(r.sink)}"
        yield facts.diagnostic(CODE, msg, r.origin.site, sorted_fix(facts, r), related=facts.reach_lines(r))


RULE = CodeRule(CODE, check, requires=("sink-call",))
