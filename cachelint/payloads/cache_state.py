"""What a session's cache holds, as the rules read it: the TTL of the entry a request left, and
whether a session's writes were ever read (CL306, CL308 and CL311 share these judgements; a rule
never imports another rule)."""

from __future__ import annotations

from typing import Any

from cachelint.payloads.context import CheckContext
from cachelint.payloads.limits import ProviderLimits, limits_for
from cachelint.payloads.model import Request, Session
from cachelint.payloads.cache_usage import CacheUsage
from cachelint.payloads.usage import usage_of

# ``write-never-read-min-requests``: requests with usage a session needs before "never" means anything
DEFAULT_MIN_REQUESTS = 3


def ttl_in_force(prev: Request, provider: ProviderLimits) -> tuple[str, int] | None:
    """(TTL name, seconds) of the deepest entry the previous request left: the TTL of its last
    breakpoint (explicit caching), or of its retention setting (automatic caching)."""
    if provider.caching == "explicit":
        if not prev.breakpoints:
            return None  # nothing was cached
        name = prev.breakpoints[-1].ttl
    else:
        retention = prev.settings.get("prompt_cache_retention")
        auto = [bp.ttl for bp in prev.breakpoints if bp.automatic]
        name = retention if isinstance(retention, str) else (auto[-1] if auto else provider.default_ttl)
        if name == "in-memory":
            name = "in_memory"
    seconds = provider.ttl_seconds(name)
    return (name, seconds) if seconds is not None else None


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
