"""CL311 write-never-read: a session that keeps writing the cache and never reads what it wrote.

A cache write costs 1.25x input (2x for 1h), a read 0.1x (docs/background/usage-and-pricing.md#prices): a write that is never read is
pure loss. The common cause is Anthropic's documented "common mistake": the breakpoint sits on a block that changes
every request (a timestamp, the latest user message) or after per-request content, so each write
is the hash of a prefix no later request repeats; the other signature is reads pinned at the
tools+system floor while every turn writes the whole conversation again (Anthropic's claude-api skill; claude-code
#91514). Judged from usage across the session (``write-never-read-min-requests`` requests with
usage, default 3): too few requests say nothing about "never".
"""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.cache_state import never_read
from cachelint.payloads.model import Request, Session
from cachelint.rules.declarations import PayloadRule

CODE = "CL311"


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    found = never_read(session, ctx)
    if found is None:
        return []
    first: Request = found["first"]
    if found["kind"] == "never-read":
        message = (
            f"{found['requests']} requests wrote {found['written']} tokens to the cache and none was ever read:"
            " the breakpoint sits on content that changes every request; move it to the last stable block"
        )
    else:
        message = (
            f"{found['requests']} requests wrote {found['written']} tokens to the cache while reads stayed pinned at"
            f" {found['floor']} tokens: the later breakpoint is never read; move it to the last stable block"
        )
    details = {k: v for k, v in found.items() if k != "first"}
    details["records"] = [r.origin.record for r in session.requests]
    return [at_request(CODE, message, first, kind=found["kind"], details=details)]


RULE = PayloadRule(
    CODE,
    fidelity="usage",  # judges the usage of each call: runs on every log that keeps it, transcripts too
    reports_lost_cache=True,
    check_session=check_session,
)
