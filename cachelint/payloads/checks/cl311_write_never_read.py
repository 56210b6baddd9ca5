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

from typing import Any, Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.checks import CheckContext, at_request
from cachelint.payloads.limits import limits_for
from cachelint.payloads.model import Request, Session
from cachelint.payloads.usage import CacheUsage, usage_of

FIDELITY = "usage"  # judges the usage of each call: runs on every log that keeps it, transcripts too (checks/__init__.py)

CODE = "CL311"
DEFAULT_MIN_REQUESTS = 3


def never_read(session: Session, ctx: CheckContext) -> dict[str, Any] | None:
    """The pattern found in a session's usage, or None: ``{"kind": "never-read" | "pinned",
    "first": Request, "requests": n, "written": tokens, "read": tokens}``."""
    with_usage: list[tuple[Request, CacheUsage]] = []
    for req in session.requests:
        usage = usage_of(req)
        if usage is not None:
            with_usage.append((req, usage))
    least = int(ctx.option("write-never-read-min-requests", DEFAULT_MIN_REQUESTS))
    if len(with_usage) < max(2, least):
        return None
    if not all(u.written > 0 for _, u in with_usage):
        return None
    minimum = limits_for(ctx).min_cacheable_tokens(with_usage[0][0].provider, with_usage[0][0].model)
    if minimum is not None and all(u.prompt < minimum[0] for _, u in with_usage):
        # every prompt is below the minimum a read needs: the provider's own small writes
        # (GPT-5.6's implicit breakpoint) are never read by design, whatever a breakpoint does
        return None
    written = sum(u.written for _, u in with_usage)
    read = sum(u.read for _, u in with_usage)
    base = {"first": with_usage[0][0], "requests": len(with_usage), "written": written, "read": read}
    if read == 0:
        return {"kind": "never-read", **base}
    reads = {u.read for _, u in with_usage[1:]}
    prompts = [u.prompt for _, u in with_usage]
    if len(reads) == 1 and prompts == sorted(prompts) and prompts[-1] > prompts[0]:
        return {"kind": "pinned", "floor": reads.pop(), **base}
    return None


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
