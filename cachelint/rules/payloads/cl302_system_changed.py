"""CL302 system-changed: the system tier differs from the previous request of the session.

System renders after tools (docs/background/prefix-and-invalidation.md#render-order, docs/background/prefix-and-invalidation.md#anthropic): a change loses the cached system
and every message. A change that is only a volatile value (a date, a uuid) is CL309's."""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext
from cachelint.payloads.breaks import break_finding, first_lost_byte, lost_text, tier_details
from cachelint.payloads.model import Request
from cachelint.rules.declarations import PayloadRule

CODE = "CL302"


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    td = diff.tier_diff("system") if diff else None
    if diff is None or td is None or not td.breaks or td.volatile:
        return ()
    first = td.explanation[0] if td.explanation else "system differs"
    label = "key order only" if td.kind == "key-order" else td.kind
    message = f"system prompt changed ({label}) at byte {td.offset}: {first}; invalidates {lost_text(diff.invalidated)}"
    return (break_finding(CODE, message, prev, cur, ctx, first_lost_byte(prev, diff), details=tier_details(diff, td)),)


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads a system tier diff only: skipped on quiet pairs
    reports_prefix_break=True,
    reports_lost_cache=True,
    check_pair=check_pair,
)
