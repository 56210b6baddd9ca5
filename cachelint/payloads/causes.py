"""Findings grouped by cause: what a team fixes once. Findings of one rule with the same kind (the
volatile pattern, the setting that changed, the way the tools changed) at the same tier are one
cause, whichever session and request they are at: a system prompt that carries the time breaks
every request of every session the same way, and is one thing to fix.

Each cause counts its findings, the sessions they are in and what they cost (the money of the
breaks, from the usage summary). A break with findings of two causes (a tool reordered and a
timestamp, on one request) has its cost counted once, for the first of its findings in report
order, so that the causes' money adds up to what the misses cost in all.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.payloads import Cause


def cause_key(d: Diagnostic) -> tuple[str, str, str]:
    """What makes two findings one cause: the rule, its kind and the tier it is at ("" when unsaid)."""
    details = d.details or {}
    tier = details.get("tier") or details.get("first_tier") or ""
    return (d.code, d.kind or "", tier if isinstance(tier, str) else "")


BreakCosts = dict[tuple[str, int, int], Mapping[str, Any]]


def add_break_costs(costs: BreakCosts, session: Mapping[str, Any]) -> None:
    """The cost of each break a session's usage entry priced, into ``costs`` by (session, record,
    line)."""
    for entry in session.get("breaks") or []:
        cost = entry.get("cost")
        if cost is not None and entry.get("record") is not None:
            costs[(str(session.get("id")), int(entry["record"]), int(entry.get("line") or 0))] = cost


def group_causes(
    diagnostics: Sequence[Diagnostic],
    costs: Mapping[tuple[str, int, int], Mapping[str, Any]],
    session_order: Iterable[str] = (),
) -> list[Cause]:
    """The causes of ``diagnostics`` (in report order), the costliest first, then the most frequent.
    ``costs``: the cost of each priced break (``add_break_costs``). ``session_order``: the run's
    sessions in their order, at least those of ``diagnostics`` (a cause lists its sessions in it,
    any other after them)."""
    rank = {sid: i for i, sid in enumerate(session_order)}
    priced: set[tuple[str, int, int]] = set()
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for d in diagnostics:
        key = cause_key(d)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "first": d,
                "findings": 0,
                "sessions": set(),
                "lost": 0,
                "money": 0.0,
                "tokens": 0,
                "priced": 0,
                "unpriced": 0,
            }
        group["findings"] += 1
        if d.session is not None:
            group["sessions"].add(d.session)
        if (d.details or {}).get("cached_lost") is not False:
            group["lost"] += 1
        if d.session is None or d.record is None:
            continue
        where = (d.session, d.record, d.line)
        cost = costs.get(where)
        if cost is None or where in priced:
            continue
        priced.add(where)
        if cost.get("money") is None:
            group["unpriced"] += 1
        else:
            group["priced"] += 1
            group["money"] += float(cost["money"])
            group["tokens"] += int(cost.get("tokens") or 0)
    causes = []
    for (code, kind, tier), g in groups.items():
        first: Diagnostic = g["first"]
        sessions = sorted(g["sessions"], key=lambda s: (rank.get(s, len(rank)), s))
        causes.append(
            Cause(
                code=code,
                kind=kind or None,
                tier=tier or None,
                findings=g["findings"],
                sessions=sessions,
                lost=g["lost"],
                money=g["money"] if g["priced"] or not g["unpriced"] else None,
                tokens=g["tokens"],
                unpriced=g["unpriced"],
                example=f"{first.path}:{first.line}",
                message=first.message,
            )
        )
    causes.sort(key=lambda c: (-(c.money or 0.0), -c.findings, c.code, c.kind or "", c.tier or ""))
    return causes
