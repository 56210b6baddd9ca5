"""CL303 history-rewritten: an earlier message changed or disappeared.

The messages tier is cached as an append-only history (reference/cache_facts.md §1.8: "message
content edited/removed (not appended)" invalidates messages; P3 ``messages_changed``): everything
from the first rewritten message on is written again."""
from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.checks import CheckContext, at_request
from cachelint.payloads.checks._breaks import tier_details
from cachelint.payloads.model import Request

PAIR_NEEDS_CHANGE = True  # reads a messages diff that breaks only: skipped on quiet pairs (checks/__init__.py)


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    td = diff.tier_diff("messages") if diff else None
    if diff is None or td is None or not td.breaks:
        return ()
    first = td.explanation[0] if td.explanation else f"message {td.first_block} differs"
    message = (
        f"history rewritten at message {td.first_block} (byte {td.offset}): {first}; "
        f"the messages from there on are written again instead of read"
    )
    return (at_request("CL303", message, cur, kind=td.kind, details=tier_details(diff, td)),)
