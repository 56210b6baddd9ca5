"""CL306 cache-expired: the pause since the previous request of the session outlived the cache.

An entry lives for its TTL from the *start* of the request that wrote or last read it (Anthropic's claude-api skill
"Choosing the TTL"): 5 minutes by default on Anthropic and Bedrock, 1 hour with ``ttl: "1h"``
(docs/background/breakpoints-and-ttls.md#anthropic-ttls); OpenAI keeps in-memory prefixes for 5-10 minutes of inactivity, 24 hours with
``prompt_cache_retention: "24h"``, 30 minutes with GPT-5.6's ``prompt_cache_options`` (docs/background/breakpoints-and-ttls.md#openai-retention-and-breakpoints).
TTLs are dated data (``rules/packs/payloads-limits.yaml``).

The finding is made only where the prefix itself held (a break is its own finding) and the
response does not show a cache read (the provider kept the entry longer than documented).
"""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.cache_state import ttl_in_force
from cachelint.payloads.limits import Limits, ProviderLimits, limits_for, tokens_up_to
from cachelint.payloads.model import Request, duration_text, seconds_between
from cachelint.payloads.spend import marked_end
from cachelint.payloads.usage import usage_of
from cachelint.rules.declarations import PayloadRule

CODE = "CL306"


def _was_cacheable(prev: Request, provider: ProviderLimits, limits: Limits) -> bool:
    """Whether the previous request left anything to expire: its cached prefix reached the
    model's minimum (below it nothing is cached, docs/background/minimum-lengths.md, OpenAI's prompt caching docs)."""
    usage = usage_of(prev)
    if usage is not None and usage.cached:
        return True
    if not limits.caches(prev.provider, prev.model):
        return False  # its provider caches nothing for this model
    minimum = limits.min_cacheable_tokens(prev.provider, prev.model)
    if minimum is None:
        return True
    end = marked_end(prev) if provider.caching == "explicit" else prev.prefix_length
    tokens, _ = tokens_up_to(prev, end, limits)
    return tokens >= minimum[0]


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    if prev.time is None or cur.time is None:
        return []
    if ctx.diff is not None and ctx.diff.broken:
        return []
    limits = limits_for(ctx)
    provider = limits.provider(cur.provider)
    if provider is None:
        return []
    ttl = ttl_in_force(prev, provider)
    if ttl is None:
        return []
    name, seconds = ttl
    if not _was_cacheable(prev, provider, limits):
        return []
    gap = seconds_between(prev, cur)
    if gap is None:  # one time zone-aware, the other naive: no honest gap
        return []
    if gap <= seconds:
        return []
    usage = usage_of(cur)
    if usage is not None and usage.read > 0:
        return []
    survivors = [bp.ttl for bp in prev.breakpoints if (provider.ttl_seconds(bp.ttl) or 0) >= gap]
    message = (
        f"{duration_text(gap)} since the previous request of the session, longer than the {name} cache TTL:"
        f" the prefix expired and is written again"
    )
    if survivors:
        message += f" (only the part up to the earlier ttl={survivors[0]!r} breakpoint survives)"
    details = {
        "gap_seconds": int(gap),
        "ttl": name,
        "ttl_seconds": seconds,
        "previous_record": prev.origin.record,
        "source": provider.source,
    }
    if usage is not None:
        details["tokens_written"] = usage.written
        details["tokens_uncached"] = usage.uncached
    return [at_request(CODE, message, cur, details=details)]


RULE = PayloadRule(
    CODE,
    fidelity="usage",  # judges the usage of each call: runs on every log that keeps it, transcripts too
    reports_lost_cache=True,
    check_pair=check_pair,
)
