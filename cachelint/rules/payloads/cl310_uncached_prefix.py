"""CL310 uncached-prefix: a prompt long enough to cache, sent again with no breakpoint where
caching is explicit (Anthropic, Bedrock).

On Anthropic and Bedrock nothing is cached without a ``cache_control`` marker (or a top-level
automatic one; Bedrock has no automatic mode), so every request pays the whole prefix at the full
input rate — ten times a cache read (docs/background/breakpoints-and-ttls.md#anthropic-breakpoints,
docs/background/usage-and-pricing.md#prices; Bedrock: docs/background/breakpoints-and-ttls.md#bedrock-cache-points). The minimum cacheable length
per model is dated data (``rules/packs/payloads-limits.yaml``).

Caching pays only for a prefix that is sent again: a write costs 1.25x the input rate, a read
0.1x. So a qualifying request is reported when its prefix is reused — by the next request of its
session, which must repeat at least the model's minimum of it (what a breakpoint would have
cached and that request read), or, for one-shot requests (a classifier called once per document:
a session each), when other sessions of the run send the same tools and system, long enough to
cache by themselves; then once for all of them, with their count, at the end of the run. A unique
one-shot prompt, or a session's last request, is not reported: a breakpoint would only add the
write premium. Reported once per run of qualifying requests of a session (again after a request
that carried markers or was too short).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.limits import Limits, limits_for, tokens_up_to
from cachelint.payloads.model import Request, Session
from cachelint.payloads.spend import common_prefix_bytes
from cachelint.payloads.usage import usage_of
from cachelint.rules.declarations import PayloadRule

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


def _diagnostic(
    req: Request, found: tuple[int, bool, int, str], limits: Limits, reused: int | None = None
) -> Diagnostic:
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
            **({"reused_tokens": reused} if reused is not None else {}),
        },
    )


@dataclass
class _Pending:
    """A session's first request that qualified, waiting to see whether its prefix is reused."""

    diagnostic: Diagnostic
    shared_key: tuple[Any, ...] | None  # tools + system, when long enough to cache by themselves
    shared_tokens: int


@dataclass
class _Shared:
    """One-shot sessions that sent the same tools and system without a breakpoint."""

    first: _Pending
    requests: int = 0


@dataclass
class _State:
    pending: dict[str, _Pending] = field(default_factory=dict)  # session id -> its first request
    reported: dict[str, None] = field(
        default_factory=dict
    )  # sessions whose current run of qualifying requests was reported
    shared: dict[tuple[Any, ...], _Shared] = field(default_factory=dict)


def _state(ctx: CheckContext) -> _State:
    return ctx.state("CL310", _State)


def _shared_prefix(req: Request, limits: Limits, minimum: int) -> tuple[tuple[Any, ...] | None, int]:
    """The key of the request's tools and system, and their tokens, when those alone reach the
    minimum (one-shot requests share nothing else)."""
    end = req.tier_span("system")[1]
    tokens, _ = tokens_up_to(req, end, limits)
    if not end or tokens < minimum:
        return None, tokens
    return (req.provider, req.model, tuple(b.data for b in req.tools), tuple(b.data for b in req.system)), tokens


def check_request(req: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    if req.index_in_session != 0:
        return []
    limits = limits_for(ctx)
    found = _uncached(req, limits)
    if found is not None and req.session is not None:
        key, tokens = _shared_prefix(req, limits, found[2])
        _state(ctx).pending[req.session] = _Pending(_diagnostic(req, found, limits), key, tokens)
    return []


def _qualifies(req: Request, limits: Limits) -> tuple[int, bool, int, str] | None:
    """``_uncached`` once per request (each is the current, then the previous request of a pair)."""
    memo = req.memo.get("cl310")
    if memo is None or memo[0] is not limits:
        memo = req.memo["cl310"] = (limits, _uncached(req, limits))
    return memo[1]


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    """A request that qualifies is reported when the next request of its session sends its prefix
    again — at least the model's minimum of it, the part a breakpoint would have cached and this
    request read (a request whose successor shares less, or that has none, would only have paid
    the write premium). Once per run of qualifying requests: again only after a request that did
    not qualify (it carried markers, or was below the minimum)."""
    limits = limits_for(ctx)
    state = _state(ctx)
    key = cur.session or ""
    if cur.index_in_session == 1:
        state.pending.pop(key, None)  # a session of more than one request: judged pair by pair
    found = _qualifies(prev, limits)
    if found is None:
        state.reported.pop(key, None)
        return []
    if key in state.reported:
        return []
    shared, _ = tokens_up_to(prev, common_prefix_bytes(prev, cur), limits)
    if shared < found[2]:
        return []
    state.reported[key] = None
    return [_diagnostic(prev, found, limits, shared)]


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    """A one-shot session whose first request qualified: counted with the others that share its
    tools and system (reported at the end of the run when more than one does)."""
    state = _state(ctx)
    state.reported.pop(session.id, None)
    pending = state.pending.pop(session.id, None)
    if pending is not None and pending.shared_key is not None:
        shared = state.shared.get(pending.shared_key)
        if shared is None:
            shared = state.shared[pending.shared_key] = _Shared(pending)
        shared.requests += 1
    return []


def check_run_end(ctx: CheckContext) -> Iterable[Diagnostic]:
    state = _state(ctx)
    out = []
    for shared in state.shared.values():
        if shared.requests < 2:
            continue  # a unique one-shot prompt: a breakpoint would only add the write premium
        first = shared.first
        d = first.diagnostic
        message = (
            f"{shared.requests} one-shot requests send the same {first.shared_tokens}-token tools and system"
            f" (the first here) with no cache breakpoint: each pays them at the full input rate; mark the"
            f" last system block and they are read at a tenth of it"
        )
        out.append(
            replace(
                d,
                message=message,
                kind="shared",
                details={**d.details, "requests": shared.requests, "shared_tokens": first.shared_tokens},
            )
        )
    state.shared.clear()
    return out


RULE = PayloadRule(
    CODE,
    request_first_only=True,  # check_request looks at the first request of a session only
    check_request=check_request,
    check_pair=check_pair,
    check_session=check_session,
    check_run_end=check_run_end,
)
