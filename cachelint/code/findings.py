"""From flow facts to diagnostics: the runner of the code rules.

The rules are the declarations of ``cachelint/rules/code/`` (``CodeRule``), each ``check(facts)``
with the ``CodeFacts`` of one module; a rule that raises is a CL003 naming it, and the others
still report. Every finding is reported at its construction site (where order or volatility
enters, or where the loop changes the prefix) and names the sink it reaches.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.code.flow.facts import LoopChange, Reach, UncachedPrefix
from cachelint.code.program import Program
from cachelint.code.values import Span
from cachelint.deadline import TimeLimitExceeded
from cachelint.diagnostics import Diagnostic
from cachelint.rules import rule_failed
from cachelint.rules.declarations import CodeRule

_TIER_RANK = {"tools": 0, "system": 1, "setting": 2}


def _one_tier_per_site(changes: list[LoopChange]) -> list[LoopChange]:
    """One finding per changed place: ``request.update(tools=..., tool_choice=...)`` changes the
    tools and a setting at one site; the tools, earliest in the prefix, are what it loses."""
    best: dict[Span, int] = {}
    for c in changes:
        rank = _TIER_RANK.get(c.tier, 3)
        if rank < best.get(c.site, 4):
            best[c.site] = rank
    return [c for c in changes if _TIER_RANK.get(c.tier, 3) == best[c.site]]


def _one_fix_per_place(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """A ``sorted(...)`` wrap of one expression is offered once, by the first finding (in code
    order) that proposes it: tools and system text built from one unordered value would
    otherwise wrap it twice."""
    out = []
    taken: set[tuple] = set()
    for d in diagnostics:
        if d.fix is not None:
            place = tuple((e.module, e.cell, e.line, e.column, e.end_line, e.end_column) for e in d.fix.edits)
            if place in taken:
                d = replace(d, fix=None)
            else:
                taken.add(place)
        out.append(d)
    return out


def diagnostics_for(
    program: Program,
    reaches: list[Reach],
    changes: list[LoopChange],
    rules: tuple[CodeRule, ...],
    uncached: Iterable[UncachedPrefix] = (),
) -> list[Diagnostic]:
    facts = CodeFacts(program, tuple(reaches), tuple(_one_tier_per_site(changes)), tuple(uncached))
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(run_rule(rule, facts))
    out = _one_fix_per_place(found)
    out.sort(key=Diagnostic.sort_key)
    return out


def run_rule(rule: CodeRule, facts: CodeFacts) -> list[Diagnostic]:
    """One rule on one module: its findings, or the CL003 of its exception (a file nested past
        the interpreter's limit stays the input's CL001, and a file past the analysis deadline its
    timeout: the caller reports both)."""
    try:
        return list(rule.check(facts))
    except (RecursionError, TimeLimitExceeded):
        raise
    except Exception as exc:  # noqa: BLE001 - any rule bug
        return [rule_failed(rule.code, facts.program.path, exc)]
