"""CL303 history-rewritten: an earlier message changed or disappeared.

The messages tier is cached as an append-only history (docs/background/prefix-and-invalidation.md#anthropic: "message
content edited/removed (not appended)" invalidates messages; Anthropic's cache diagnostics ``messages_changed``): everything
from the first rewritten message on is written again.

The API rewrites it too: with thinking on, the older Opus and Sonnet models and every Haiku strip
the earlier turns' thinking blocks when a user turn other than tool results arrives (docs/background/prefix-and-invalidation.md#anthropic). The
bytes sent only grow, so that is read from the pair's shape (``cachelint/payloads/thinking.py``) and
reported once per session, kind ``thinking-stripped``."""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext
from cachelint.payloads.breaks import break_finding, cached_end_before, first_lost_byte, tier_details
from cachelint.payloads.thinking import stripped_from, thinking_on
from cachelint.payloads.limits import limits_for
from cachelint.payloads.model import Request, Session
from cachelint.rules.declarations import PayloadRule

CODE = "CL303"

MAX_RECORDS_LISTED = 20


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
    return (
        break_finding(
            CODE, message, prev, cur, ctx, first_lost_byte(prev, diff), kind=td.kind, details=tier_details(diff, td)
        ),
    )


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    """The requests of the session at which the API stripped earlier thinking blocks: one finding
    at the first of them, counting them all."""
    requests = session.requests
    if len(requests) < 2 or not any(thinking_on(r) for r in requests):
        return ()
    limits = limits_for(ctx)
    hits: list[tuple[Request, Request, int]] = []
    for prev, cur in zip(requests, requests[1:]):
        first = stripped_from(prev, cur, limits)
        if first is not None:
            hits.append((prev, cur, first))
    if not hits:
        return ()
    # reported at the first request that lost cached messages (a breakpoint past the stripped
    # blocks); when none did, at the first one, as information (break_finding says why)
    lost = [h for h in hits if cached_end_before(h[0], h[0].messages[h[2]].offset, ctx) is None]
    prev, cur, first = (lost or hits)[0]
    verdict = limits.keeps_thinking(cur.provider, cur.model)
    message = (
        f"history rewritten by the API at message {first} (byte {cur.messages[first].offset}): thinking is on and "
        f"{cur.model} strips earlier turns' thinking blocks when a user turn other than tool results arrives, "
        f"so the messages from there on were written again instead of read at {len(hits)} request(s) of this session "
        f"(Opus 4.5+ and Sonnet 4.6+ keep them)"
    )
    details = {
        "tier": "messages",
        "first_message": first,
        "byte_offset": cur.messages[first].offset,
        "model": cur.model,
        "requests": len(hits),
        "records": [req.origin.record for _, req, _ in hits[:MAX_RECORDS_LISTED]],
        "source": verdict[1] if verdict else "",
        "invalidated": ["messages"],
    }
    return (
        break_finding(
            CODE, message, prev, cur, ctx, prev.messages[first].offset, kind="thinking-stripped", details=details
        ),
    )


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads a messages diff that breaks only: skipped on quiet pairs
    reports_prefix_break=True,
    reports_lost_cache=True,
    check_pair=check_pair,
    check_session=check_session,
)
