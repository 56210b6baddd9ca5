"""CL301 tools-changed: position 0 — the rendered tools — differs from the previous request.

Tools render first (docs/background/prefix-and-invalidation.md#render-order): any change there, a reorder included, rewrites
the whole prefix. A marker that moved is not a change (markers are stripped); a key order that
changed is (wire bytes are the truth). A change that is only a volatile value is CL309's.

A reorder that puts back the order the session had before the previous reorder (A→B→A) is
flapping (kind ``flapping``): the same tools come in one of two orders from one request to the
next, as a listing does whose order is not fixed (an MCP server's ``tools/list`` answer, a set, a
dict filled by whichever server answered first), not as the agent's code changing its tools; each
flap rewrites the whole prefix again, and sorting the tools by name ends it."""

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
    "flapping": "reordered back: flapping",
}


def _order(req: Request) -> tuple[str, ...]:
    return tuple(block.name for block in req.tier("tools"))


def _flapping(prev: Request, cur: Request, ctx: CheckContext) -> str | None:
    """Where the session had this request's tool order before, when this reorder undoes the
    session's previous one (A→B→A), else None. Remembers each session's last reorder."""
    last_reorder: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = ctx.state(f"{CODE} last reorder", dict)
    before, after = _order(prev), _order(cur)
    session = cur.session or ""
    previous = last_reorder.get(session)
    last_reorder[session] = (before, after, prev.origin.describe())
    if previous is None or not before or (previous[0], previous[1]) != (after, before):
        return None
    return previous[2]


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    td = diff.tier_diff("tools") if diff else None
    if diff is None or td is None or not td.breaks or td.volatile:
        return ()
    first = td.explanation[0] if td.explanation else ""
    kind = td.kind
    details = tier_details(diff, td)
    flap = _flapping(prev, cur, ctx) if kind == "reordered" else None
    if flap is not None:
        kind = "flapping"
        details["order_seen_at"] = flap
    message = (
        f"tools changed ({KIND_TEXT.get(kind, kind)}) at byte {td.offset}: {first}; "
        f"everything after position 0 is rewritten (invalidates {lost_text(diff.invalidated)})"
    )
    if flap is not None:
        message += (
            f"; the tools went back to the order they had at {flap} (A→B→A): their order is not fixed where they"
            " are listed (an MCP server's tools/list, a set), so sort them by name before sending"
        )
    return (break_finding(CODE, message, prev, cur, ctx, first_lost_byte(prev, diff), kind=kind, details=details),)


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads a tools tier diff only: skipped on quiet pairs
    reports_prefix_break=True,
    reports_lost_cache=True,
    check_pair=check_pair,
)
