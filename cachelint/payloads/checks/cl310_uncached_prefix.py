"""CL310 uncached-prefix: a prompt long enough to cache, sent with no breakpoint where caching is
explicit (Anthropic, Bedrock).

On Anthropic and Bedrock nothing is cached without a ``cache_control`` marker (or a top-level
automatic one; Bedrock has no automatic mode), so every request pays the whole prefix at the full
input rate — ten times a cache read (P1 §1.2, §1.6; Bedrock §3.2). The minimum cacheable length
per model is dated data (``rules/packs/payloads-limits.yaml``). Reported on the first request of a
session that qualifies, and again only when a later request drops the markers it had.
"""
from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.checks import CheckContext, at_request
from cachelint.payloads.limits import Limits, limits_for, tokens_up_to
from cachelint.payloads.model import Request
from cachelint.payloads.usage import usage_of

REQUEST_FIRST_ONLY = True  # check_request looks at the first request of a session only

CODE = "CL310"


def _uncached(req: Request, limits: Limits) -> tuple[int, bool, int, str] | None:
    """(prompt tokens, from usage, minimum, source) when the request should carry a marker."""
    provider = limits.provider(req.provider)
    if provider is None or provider.caching != "explicit" or req.breakpoints:
        return None
    usage = usage_of(req)
    if usage is not None and usage.cached:
        return None  # something (a proxy, a default) did cache it
    minimum = limits.min_cacheable_tokens(req.provider, req.model)
    if minimum is None:
        return None
    tokens, exact = tokens_up_to(req, req.prefix_length, limits)
    if tokens < minimum[0]:
        return None
    return tokens, exact, minimum[0], minimum[1]


def _diagnostic(req: Request, found: tuple[int, bool, int, str], limits: Limits) -> Diagnostic:
    tokens, exact, minimum, source = found
    automatic = limits.provider(req.provider)
    hint = (
        ' or a top-level "cache_control": {"type": "ephemeral"}'
        if automatic is not None and automatic.automatic_breakpoint
        else ""
    )
    return at_request(
        CODE,
        f"a {'' if exact else '~'}{tokens}-token prompt (minimum cacheable {minimum}) carries no cache breakpoint:"
        f" every request pays the whole prefix at the full input rate; mark the last stable block{hint}",
        req,
        details={
            "tokens": tokens,
            "tokens_basis": "usage" if exact else "estimate (~4 chars/token)",
            "minimum": minimum,
            "source": source,
        },
    )


def check_request(req: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    if req.index_in_session != 0:
        return []
    limits = limits_for(ctx)
    found = _uncached(req, limits)
    return [_diagnostic(req, found, limits)] if found else []


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    """Report a request that qualifies when the previous one did not: it dropped its markers, or
    the conversation has just grown past the minimum."""
    limits = limits_for(ctx)
    found = _uncached(cur, limits)
    if found is None or _uncached(prev, limits) is not None:
        return []
    return [_diagnostic(cur, found, limits)]
