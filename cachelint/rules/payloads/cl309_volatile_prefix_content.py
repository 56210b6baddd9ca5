"""CL309 volatile-prefix-content: the only change in the tools or system tier is a value that
ticks — a timestamp, date, uuid, counter or id (patterns: rules/packs/payloads-volatile.yaml).

Anthropic's own list of silent invalidators starts with ``datetime.now()`` and ``uuid4()`` in the
system prompt (docs/background/prefix-and-invalidation.md#silent-invalidators); every request then rewrites the prefix from there."""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext
from cachelint.payloads.breaks import break_finding, first_lost_byte, lost_text, tier_details
from cachelint.payloads.model import Request
from cachelint.rules.declarations import PayloadRule

CODE = "CL309"


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    if diff is None:
        return ()
    out = []
    for tier in ("tools", "system"):
        td = diff.tier_diff(tier)
        if td is None or not td.volatile:
            continue
        span = td.volatile[0]
        what = {"iso-timestamp": "a timestamp"}.get(span["pattern"], f"a {span['pattern'].replace('-', ' ')}")
        message = (
            f"{tier} tier changes only by {what} ({span['before']!r} -> {span['after']!r}) at byte {td.offset}; "
            f"invalidates {lost_text(diff.invalidated)} on every request"
        )
        details = tier_details(diff, td)
        details["volatile"] = [dict(v) for v in td.volatile]
        out.append(
            break_finding(
                CODE, message, prev, cur, ctx, first_lost_byte(prev, diff), kind=span["pattern"], details=details
            )
        )
    return out


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads a tools or system tier diff only: skipped on quiet pairs
    reports_prefix_break=True,
    reports_lost_cache=True,
    check_pair=check_pair,
)
