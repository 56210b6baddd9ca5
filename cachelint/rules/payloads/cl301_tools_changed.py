"""CL301 tools-changed: position 0 — the rendered tools — differs from the previous request.

Tools render first (docs/background/prefix-and-invalidation.md#render-order): any change there, a reorder included, rewrites
the whole prefix. A marker that moved is not a change (markers are stripped); a key order that
changed is (wire bytes are the truth). A change that is only a volatile value is CL309's."""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext
from cachelint.payloads.breaks import break_finding, first_lost_byte, lost_text, tier_details
from cachelint.payloads.model import Request
from cachelint.rules.declarations import PayloadRule

CODE = "CL301"

KIND_TEXT = {
    "reordered": "reordered",
    "added": "tool(s) added",
    "removed": "tool(s) removed",
    "changed": "definition(s) changed",
    "key-order": "key order only",
}


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    td = diff.tier_diff("tools") if diff else None
    if diff is None or td is None or not td.breaks or td.volatile:
        return ()
    first = td.explanation[0] if td.explanation else ""
    message = (
        f"tools changed ({KIND_TEXT.get(td.kind, td.kind)}) at byte {td.offset}: {first}; "
        f"everything after position 0 is rewritten (invalidates {lost_text(diff.invalidated)})"
    )
    return (
        break_finding(
            CODE, message, prev, cur, ctx, first_lost_byte(prev, diff), kind=td.kind, details=tier_details(diff, td)
        ),
    )


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads a tools tier diff only: skipped on quiet pairs
    reports_prefix_break=True,
    reports_lost_cache=True,
    check_pair=check_pair,
)
