"""CL305 breakpoint-misuse: cache markers the provider rejects or cannot use.

- a top-level automatic marker landing on a block explicitly marked with another TTL — a 400;
- more than the provider's breakpoint limit (4 on Anthropic; a top-level automatic
  ``cache_control`` takes one slot unless it coincides with an explicit marker of the same TTL;
  Anthropic's prompt caching docs "Automatic caching") — a 400;
- a longer-TTL marker after a shorter one (``1h`` after ``5m``; Anthropic's prompt caching docs "Mixing different TTLs") — a 400;
- a marker on an empty text block (Anthropic's prompt caching docs; the 400 ``cache_control cannot be set for empty text
  blocks``);
- a marker whose prefix is below the model's minimum cacheable length (docs/background/minimum-lengths.md: silently uncached);
- a marker more than ``lookback_blocks`` (20) blocks after the previous request's cache entries,
  with no marker in between: the lookback stops before it reaches them (docs/background/breakpoints-and-ttls.md#lookback-window);
- every marker before the previous request's deepest entry while the prefix is carried on (the
  marker at the end of the conversation dropped): the lookback walks back only, never forward;
- OpenAI (GPT-5.6+): ``prompt_cache_options.mode: "explicit"`` without a ``prompt_cache_breakpoint``
  (explicit mode turns the implicit breakpoint off: nothing is cached), and
  ``prompt_cache_options.ttl`` beside ``prompt_cache_retention`` (a request setting both is rejected),
  and a ``prompt_cache_breakpoint`` that no request of the session writes (a request writes only
  its latest few explicit breakpoints).

A request the provider rejected is checked alone, and its finding quotes the provider's error
(HTTP 400 "A maximum of 4 blocks with cache_control may be provided. Found 5."); a rejection whose
error names the cache markers for a reason none of the checks above knows is reported in the
provider's words (kind ``rejected``).

Limits are dated data (``rules/packs/payloads-limits.yaml``). A static problem is reported on the
first request of a session and again only when a later request introduces it, so that a session of
200 requests with one misplaced marker gives one finding, not 200.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.limits import Limits, limits_for, tokens_up_to
from cachelint.payloads.model import Breakpoint, Request, Session
from cachelint.payloads.usage import usage_of
from cachelint.rules.declarations import PayloadRule

CODE = "CL305"


def _where(bp: Breakpoint) -> str:
    where = f"{bp.tier}[{bp.block}]"
    if bp.part is not None:
        where += f".content[{bp.part}]"
    return where + (" (automatic)" if bp.automatic else "")


def _slots(req: Request) -> list[Breakpoint]:
    """The breakpoints that take a slot: an automatic marker that lands on an explicitly marked
    block with the same TTL does nothing (Anthropic's prompt caching docs), so it takes none."""
    explicit = {(bp.position, bp.ttl) for bp in req.breakpoints if not bp.automatic}
    return [bp for bp in req.breakpoints if not (bp.automatic and (bp.position, bp.ttl) in explicit)]


def static_issues(req: Request, limits: Limits) -> list[tuple[tuple[Any, ...], str, str, dict[str, Any]]]:
    """(signature, kind, message, details) of every problem visible in one request; computed once
    per request (each pair check compares the request with its predecessor's problems)."""
    cached = req.memo.get("static_issues")
    if cached is not None and cached[0] is limits:
        return cached[1]
    found = _static_issues(req, limits)
    req.memo["static_issues"] = (limits, found)
    return found


def _static_issues(req: Request, limits: Limits) -> list[tuple[tuple[Any, ...], str, str, dict[str, Any]]]:
    provider = limits.provider(req.provider)
    out = _cache_options_issues(req)
    if provider is None or not req.breakpoints:
        return out
    slots = _slots(req)
    if provider.max_breakpoints is not None and len(slots) > provider.max_breakpoints:
        automatic = any(bp.automatic for bp in slots)
        out.append(
            (
                ("slots",),
                "too-many",
                f"{len(slots)} cache breakpoints{' (counting the top-level automatic one)' if automatic else ''};"
                f" the limit is {provider.max_breakpoints}: the API rejects the request",
                {
                    "breakpoints": [_where(bp) for bp in slots],
                    "limit": provider.max_breakpoints,
                    "source": provider.source,
                },
            )
        )
    explicit_at = {bp.position: bp for bp in req.breakpoints if not bp.automatic}
    for bp in req.breakpoints if provider.automatic_breakpoint else ():
        # only a top-level automatic marker the request asked for can clash with an explicit one
        # (OpenAI's implicit breakpoint is the provider's own, with the request's one TTL)
        other = explicit_at.get(bp.position)
        if bp.automatic and other is not None and other.ttl != bp.ttl:
            # Anthropic's prompt caching docs "Automatic caching": an explicit marker on the last block with another TTL is a 400.
            out.append(
                (
                    ("automatic-conflict",),
                    "automatic-conflict",
                    f"the top-level cache_control (ttl={bp.ttl!r}) lands on {_where(other)}, which already carries"
                    f" ttl={other.ttl!r}: the API rejects the request",
                    {"automatic_ttl": bp.ttl, "explicit_ttl": other.ttl, "block": _where(other)},
                )
            )
    shortest: Breakpoint | None = None
    for bp in req.breakpoints:
        seconds = provider.ttl_seconds(bp.ttl)
        short_seconds = provider.ttl_seconds(shortest.ttl) if shortest is not None else None
        if shortest is not None and seconds is not None and short_seconds is not None and seconds > short_seconds:
            out.append(
                (
                    ("ttl-order",),
                    "ttl-order",
                    f"a ttl={bp.ttl!r} breakpoint at {_where(bp)} comes after a ttl={shortest.ttl!r} one at"
                    f" {_where(shortest)}: longer TTLs must come first (the API rejects the request)",
                    {"longer": _where(bp), "shorter": _where(shortest)},
                )
            )
            break
        if seconds is not None and (short_seconds is None or seconds < short_seconds):
            shortest = bp
    for bp in req.breakpoints:
        if bp.empty:
            out.append(
                (
                    ("empty", bp.tier, bp.block, bp.part),
                    "empty-block",
                    f"cache_control on an empty text block at {_where(bp)}: the API rejects it"
                    " (cache_control cannot be set for empty text blocks)",
                    {"block": _where(bp)},
                )
            )
    minimum = limits.min_cacheable_tokens(req.provider, req.model)
    usage = usage_of(req)
    if minimum is not None and not (usage is not None and usage.cached):
        # A response that read or wrote the cache proves the prefix was long enough.
        least, source = minimum
        for bp in req.breakpoints:
            blocks = req.tier(bp.tier)
            if not 0 <= bp.block < len(blocks) or bp.empty:
                continue
            tokens, exact = tokens_up_to(req, blocks[bp.block].end, limits)
            if tokens < least:
                short = (
                    provider.common_min_cacheable_tokens is not None and tokens < provider.common_min_cacheable_tokens
                )
                out.append(
                    (
                        # A marker that moves with the conversation (automatic, or on the latest
                        # message) is the same problem every turn: one signature for all of them.
                        ("minimum", bp.tier, None if bp.automatic or bp.tier == "messages" else bp.block),
                        "below-minimum",
                        f"the breakpoint at {_where(bp)} caches a prefix of {'' if exact else '~'}{tokens} tokens,"
                        f" below the {least}-token minimum of {req.model or 'this model'}: it is silently not cached"
                        + (f"; it would be once the prefix passes {least} tokens" if short else ""),
                        {
                            "block": _where(bp),
                            "tokens": tokens,
                            "tokens_basis": "usage (proportional)" if exact else "estimate (~4 chars/token)",
                            "minimum": least,
                            "source": source,
                            # shorter than most models' minimum: nothing that short is cached, so
                            # nothing is lost (information); longer, it would cache on most models
                            # and is lost on this one (a warning)
                            "severity": "info" if short else "warning",
                        },
                    )
                )
    return out


# OpenAI's prompt_cache_options (GPT-5.6 and later): docs/background/breakpoints-and-ttls.md#openai-retention-and-breakpoints
_OPENAI_OPTIONS_SOURCE = "docs/background/breakpoints-and-ttls.md#openai-retention-and-breakpoints"


def _cache_options_issues(req: Request) -> list[tuple[tuple[Any, ...], str, str, dict[str, Any]]]:
    """OpenAI's ``prompt_cache_options`` (GPT-5.6+): explicit mode turns the implicit breakpoint
    off, so a request without a ``prompt_cache_breakpoint`` caches nothing; its ``ttl`` supersedes
    ``prompt_cache_retention`` (earlier models), and a request setting both is rejected."""
    options = req.settings.get("prompt_cache_options")
    if not isinstance(options, dict):
        return []
    out: list[tuple[tuple[Any, ...], str, str, dict[str, Any]]] = []
    # only OpenAI's own marker counts: a ``cache_control`` a gateway passes on for Anthropic models
    # is no breakpoint to OpenAI
    explicit = [bp for bp in req.breakpoints if not bp.automatic and bp.key == "prompt_cache_breakpoint"]
    if options.get("mode") == "explicit" and not explicit:
        out.append(
            (
                ("explicit-without-breakpoints",),
                "explicit-without-breakpoints",
                'prompt_cache_options.mode is "explicit" and no content block carries a prompt_cache_breakpoint:'
                " explicit mode turns the implicit breakpoint off, so nothing of this prompt is cached",
                {"mode": "explicit", "source": _OPENAI_OPTIONS_SOURCE},
            )
        )
    retention = req.settings.get("prompt_cache_retention")
    if options.get("ttl") is not None and retention is not None:
        out.append(
            (
                ("ttl-and-retention",),
                "ttl-and-retention",
                f"prompt_cache_options.ttl ({options['ttl']!r}) and prompt_cache_retention ({retention!r}) are both"
                " set: the first supersedes the second (which applies to models before GPT-5.6), and a request"
                " setting both is rejected",
                {"ttl": options["ttl"], "prompt_cache_retention": retention, "source": _OPENAI_OPTIONS_SOURCE},
            )
        )
    return out


def _moving(sig: tuple[Any, ...]) -> bool:
    """A below-minimum problem of a marker that moves with the conversation: judged over the
    session (the conversation may grow past the minimum), not at its first request."""
    return sig[0] == "minimum" and sig[2] is None


def _diagnostic(req: Request, kind: str, msg: str, details: dict[str, Any]) -> Diagnostic:
    severity = Severity.INFO if details.get("severity") == "info" else None
    if req.failed is not None:
        msg, details = _with_failure(req, msg, details)
    return at_request(CODE, msg, req, kind=kind, details=details, severity=severity)


def _with_failure(req: Request, msg: str, details: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    failure = req.failed
    quoted = f": {failure.message!r}" if failure.message else ""
    return f"{msg}; the provider answered HTTP {failure.status}{quoted}", {
        **details,
        "status": failure.status,
        "provider_message": failure.message,
    }


# What a provider's error says when it rejected a request for its cache markers.
_MARKER_ERROR = re.compile(r"cache_control|cachePoint|cache point|breakpoint|\bttl\b", re.IGNORECASE)


def _rejected(req: Request) -> list[Diagnostic]:
    """A request the provider rejected for its cache markers, for a reason no check above names
    (a limit cachelint does not know): the provider's words."""
    failure = req.failed
    if failure is None or not failure.message or not _MARKER_ERROR.search(failure.message):
        return []
    return [
        at_request(
            CODE,
            f"the provider rejected the request's cache markers (HTTP {failure.status}): {failure.message!r}",
            req,
            kind="rejected",
            details={
                "status": failure.status,
                "provider_message": failure.message,
                "breakpoints": [_where(bp) for bp in req.breakpoints],
            },
        )
    ]


def check_request(req: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    if req.index_in_session != 0:
        return []
    alone = req.session is None  # a request the provider rejected: in no session, judged alone
    out = [
        _diagnostic(req, kind, msg, details)
        for sig, kind, msg, details in static_issues(req, limits_for(ctx))
        if alone or not _moving(sig)
    ]
    return out or (_rejected(req) if alone else [])


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    limits = limits_for(ctx)
    known = {sig for sig, *_ in static_issues(prev, limits)}
    out = [
        _diagnostic(cur, kind, msg, details)
        for sig, kind, msg, details in static_issues(cur, limits)
        if sig not in known and not _moving(sig)
    ]
    lookback = _beyond_lookback(prev, cur, ctx, limits)
    if lookback is not None:
        out.append(lookback)
    moved = _moved_back(prev, cur, ctx, limits)
    if moved is not None:
        out.append(moved)
    return out


def _blocks(first: int, last: int) -> str:
    return f"block {first}" if first == last else f"blocks {first}-{last}"


def _moved_back(prev: Request, cur: Request, ctx: CheckContext, limits: Limits) -> Diagnostic | None:
    """This request carries the previous one's prefix on, but every breakpoint of it sits before
    the deepest entry the previous request wrote (the marker at the end of the conversation was
    dropped): the lookback walks back from a breakpoint, never forward, so what was cached after
    this request's last breakpoint is sent again at the full input rate instead of read."""
    provider = limits.provider(cur.provider)
    if provider is None or provider.lookback_blocks is None or not prev.breakpoints or not cur.breakpoints:
        return None
    if ctx.diff is None or ctx.diff.broken:
        return None  # the prefix broke: the break is the finding
    last = max(bp.position for bp in prev.breakpoints)
    deepest = max(bp.position for bp in cur.breakpoints)
    blocks = len(cur.tools) + len(cur.system) + len(cur.messages)
    if deepest >= last or blocks <= last + 1:
        return None
    return at_request(
        CODE,
        f"the breakpoint moved back: the previous request cached its prefix up to block {last}, this one"
        f" carries that prefix on but its last breakpoint is at block {deepest}; the lookback goes back from"
        f" a breakpoint, never forward, so {_blocks(deepest + 1, last)} cached after it {'is' if deepest + 1 == last else 'are'}"
        " paid at the full input rate instead of read: keep a breakpoint on the latest message (or use automatic caching)",
        cur,
        kind="moved-back",
        details={
            "previous_entries": sorted({bp.position for bp in prev.breakpoints}),
            "breakpoints": sorted({bp.position for bp in cur.breakpoints}),
            "source": provider.source,
        },
    )


def _beyond_lookback(prev: Request, cur: Request, ctx: CheckContext, limits: Limits) -> Diagnostic | None:
    """The previous request wrote entries at its breakpoints; the lookback from each of this
    request's breakpoints walks back ``lookback_blocks`` positions (the breakpoint first) looking
    for them. When none is in reach, the intact prefix is written again instead of read."""
    provider = limits.provider(cur.provider)
    if provider is None or provider.lookback_blocks is None or not prev.breakpoints or not cur.breakpoints:
        return None
    if ctx.diff is not None and ctx.diff.broken:
        return None  # the prefix broke: the break is the finding, not the lookback
    usage = usage_of(cur)
    if usage is not None and usage.read > 0:
        return None  # the provider did find an entry (e.g. runs of tool blocks counted as one)
    window = provider.lookback_blocks
    written = sorted({bp.position for bp in prev.breakpoints})
    marks = sorted({bp.position for bp in cur.breakpoints})
    # The deepest entry the previous request left is the one worth reading; an earlier entry in
    # reach (the system prompt's) only limits the loss.
    last = written[-1]
    if any(0 <= b - last < window for b in marks):
        return None
    later = [b for b in marks if b - last >= window]
    if not later:
        return None  # every marker sits before the old entry: the prefix shrank, not our case
    nearest = later[0]
    return at_request(
        CODE,
        f"the nearest breakpoint (block {nearest}) is {nearest - last} blocks after the previous cache entry"
        f" (block {last}); the lookback checks only {window} blocks, so the cached prefix is written again"
        f" instead of read: add a breakpoint within {window} blocks of block {last}",
        cur,
        kind="lookback",
        details={
            "previous_entries": written,
            "breakpoints": marks,
            "lookback_blocks": window,
            "source": provider.source,
        },
    )


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    limits = limits_for(ctx)
    return [*_moving_below_minimum(session, limits), *_never_written(session, limits)]


def _never_written(session: Session, limits: Limits) -> list[Diagnostic]:
    """OpenAI (GPT-5.6+) writes at most the latest few of a request's explicit breakpoints (3
    beside the implicit one, 4 in explicit mode: the limits pack). A breakpoint that no request of
    the session writes caches nothing: the prefix up to it is never an entry a later conversation
    could read. Reported once, at the first request that carries it; a breakpoint that an earlier
    request with fewer markers wrote is fine."""
    first_at: dict[int, tuple[Request, int]] = {}  # position -> (first request carrying it, its quota)
    written: set[int] = set()
    for req in session.requests:
        explicit = sorted({bp.position for bp in req.breakpoints if bp.key == "prompt_cache_breakpoint"})
        quota = _explicit_writes(req, limits) if explicit else None
        if quota is None:
            continue
        written.update(explicit[-quota:] if quota else ())
        for position in explicit:
            first_at.setdefault(position, (req, quota))
    unwritten = sorted(p for p in first_at if p not in written)
    if not unwritten:
        return []
    by_request: dict[int, list[int]] = {}
    for position in unwritten:
        by_request.setdefault(id(first_at[position][0]), []).append(position)
    out = []
    for positions in by_request.values():
        req, quota = first_at[positions[0]]
        where = [
            _where(bp) for bp in req.breakpoints if bp.position in positions and bp.key == "prompt_cache_breakpoint"
        ]
        out.append(
            _diagnostic(
                req,
                "never-written",
                f"{len(where)} prompt_cache_breakpoint marker(s) ({', '.join(where)}) are written by no request of"
                f" the session: a request writes only its latest {quota} explicit breakpoints, and every request"
                " that carries these has more after them, so the prefix up to them is never cached",
                {"breakpoints": where, "writes_per_request": quota, "source": _OPENAI_OPTIONS_SOURCE},
            )
        )
    return out


def _explicit_writes(req: Request, limits: Limits) -> int | None:
    """How many of the request's explicit breakpoints it writes (the latest first), by its cache
    mode (``prompt_cache_options.mode``, implicit by default); None where no limit is known."""
    provider = limits.provider(req.provider)
    if provider is None or not provider.explicit_writes:
        return None
    options = req.settings.get("prompt_cache_options")
    mode = options.get("mode", "implicit") if isinstance(options, dict) else "implicit"
    return provider.explicit_writes.get(str(mode))


def _moving_below_minimum(session: Session, limits: Limits) -> list[Diagnostic]:
    """A marker that moves with the conversation (top-level automatic caching, or on the latest
    message) below the minimum: reported once, at the first request where it was, only when no
    request of the session got past the minimum (its usage read or wrote the cache, or its marked
    prefix reached the minimum): a conversation's first turns are short, and the same marker
    caches once it grows."""
    first: tuple[Request, list[tuple[str, str, dict[str, Any]]]] | None = None
    for req in session.requests:
        usage = usage_of(req)
        if usage is not None and usage.cached:
            return []
        moving = [(kind, msg, details) for sig, kind, msg, details in static_issues(req, limits) if _moving(sig)]
        if not moving and any(bp.automatic or bp.tier == "messages" for bp in req.breakpoints):
            return []  # a moving marker past the minimum: it caches
        if moving and first is None:
            first = (req, moving)
    if first is None:
        return []
    req, moving = first
    return [_diagnostic(req, kind, msg, details) for kind, msg, details in moving]


RULE = PayloadRule(
    CODE,
    request_first_only=True,  # check_request looks at the first request of a session only
    rejected_requests=True,  # and at a request the provider rejected: it says why
    check_request=check_request,
    check_pair=check_pair,
    check_session=check_session,
)
