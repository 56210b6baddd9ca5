"""Shared wording and details of the prefix-break findings (CL301–CL304, CL309)."""

from __future__ import annotations

from typing import Any

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.payloads.context import at_request
from cachelint.payloads.jsonio import dumps
from cachelint.payloads.limits import limits_for, tokens_up_to
from cachelint.payloads.model import PrefixDiff, Request, TierDiff, duration_text, seconds_between
from cachelint.payloads.usage import usage_of


def tier_details(diff: PrefixDiff, td: TierDiff) -> dict[str, Any]:
    """The details of a finding about one tier: where the bytes part, both excerpts (when this is
    the first broken tier), the structural explanation, and every tier the pair loses."""
    details: dict[str, Any] = {"tier": td.tier, "byte_offset": td.offset, "first_tier": diff.first_tier}
    if diff.first_tier == td.tier and diff.offset is not None:
        details["before"] = diff.excerpt_before
        details["after"] = diff.excerpt_after
    details["explanation"] = list(td.explanation)
    if td.changes:
        details["changes"] = [dict(c) for c in td.changes]
    details["invalidated"] = list(diff.invalidated)
    return details


def lost_text(tiers: tuple[str, ...] | list[str]) -> str:
    return ", ".join(tiers) if tiers else "nothing"


def show(value: Any, limit: int = 80) -> str:
    if value is None:
        return "(absent)"
    text = dumps(value).decode("utf-8", "replace")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def expired_between(prev: Request, cur: Request, ctx: Any) -> tuple[int, int] | None:
    """(seconds between the two requests, the provider's longest cache lifetime) when the first is
    longer: whatever the previous request cached had expired before this one was sent."""
    gap = seconds_between(prev, cur)
    if gap is None:
        return None
    provider = limits_for(ctx).provider(prev.provider)
    if provider is None or not provider.ttls:
        return None
    longest = max(int(v) for v in provider.ttls.values())
    return (int(gap), longest) if gap > longest else None


def cached_end_before(prev: Request, first_lost: int | None, ctx: Any) -> int | None:
    """Where the previous request's cache ends, when that is at or before the first byte the pair
    loses — nothing cached was lost then — else None. For providers that cache at markers
    (Anthropic, Bedrock) the cache ends with the last marked block (an automatic top-level marker
    marks the last block); providers that cache by themselves lose what changed, unless they cache
    nothing for the model (0)."""
    if first_lost is None:
        return None
    if prev.fidelity != "wire" and not prev.breakpoints:
        return None  # the log dropped the markers and its usage shows none: what was cached is not known
    limits = limits_for(ctx)
    provider = limits.provider(prev.provider)
    if provider is None:
        return None
    if provider.caching != "explicit":
        return None if limits.caches(prev.provider, prev.model) else 0
    from cachelint.payloads.spend import marked_end

    end = marked_end(prev)
    return end if end <= first_lost else None


def break_finding(
    code: str,
    message: str,
    prev: Request,
    cur: Request,
    ctx: Any,
    first_lost: int | None,
    *,
    kind: str | None = None,
    details: dict[str, Any],
) -> Diagnostic:
    """A prefix-break finding at ``cur``. When nothing the previous request cached lay at or after
    ``first_lost`` (its last breakpoint ends before the change), the change cost nothing this time:
    the finding says so and is information, not a warning (a breakpoint placed later would make it
    one). When more time passed between the two requests than the longest cache lifetime the
    provider offers, the previous request's cache had expired anyway (re-recordings appended to one
    VCR cassette, days apart): information too. A request read from a log that re-encodes the
    prompt (content level) says so: its offsets are those of the re-encoding."""
    if cur.fidelity == "content":
        message += (
            f"; judged from content ({cur.source_format} re-encodes the prompt: the byte offset is in that"
            " re-encoding, key order and cache markers are not known)"
        )
        details["fidelity"] = "content"
    expired = expired_between(prev, cur, ctx)
    if expired is not None:
        gap, longest = expired
        details["gap_seconds"] = gap
        details["cached_lost"] = False
        return at_request(
            code,
            f"{message}; nothing cached was lost: {duration_text(gap)} passed since the previous request, more than"
            f" the longest cache lifetime of {prev.provider} ({duration_text(longest)})",
            cur,
            kind=kind,
            details=details,
            severity=Severity.INFO,
        )
    limits = limits_for(ctx)
    end = cached_end_before(prev, first_lost, ctx)
    if end is None:
        short = None if not limits.caches(prev.provider, prev.model) else below_minimum(prev, limits)
        if short is not None:
            tokens, exact, minimum = short
            details.update(
                tokens=tokens,
                tokens_basis="usage" if exact else "estimate (~4 chars/token)",
                minimum=minimum,
                cached_lost=False,
            )
            return at_request(
                code,
                f"{message}; nothing cached was lost: the previous prompt is {'' if exact else '~'}{tokens} tokens"
                f"{'' if exact else ' (estimated)'}, below the {minimum}-token minimum of {prev.model or prev.provider},"
                f" so nothing was cached; this change would break the cache once the prefix passes {minimum} tokens",
                cur,
                kind=kind,
                details=details,
                severity=Severity.INFO,
            )
        return at_request(code, message, cur, kind=kind, details=details)
    shortfall = read_shortfall(prev, cur)
    if shortfall is not None:
        # the documented effect says the cached part was kept, the usage says it was not
        read, expected = shortfall
        details["cached_lost"] = True
        details.update(expected_read=expected, read=read)
        return at_request(
            code,
            f"{message}; by the provider's documentation the cached prefix (bytes 0-{end}) survives it, yet this"
            f" response read {read} of the {expected} tokens the previous request left in the cache: it did not",
            cur,
            kind=kind,
            details=details,
        )
    if not limits.caches(prev.provider, prev.model):
        where = f"its provider caches nothing for {prev.model}"
    elif end:
        where = f"it cached bytes 0-{end} only (up to its last breakpoint)"
    else:
        where = "it had no breakpoint"
    details["cached_end"] = end
    details["cached_lost"] = False
    return at_request(
        code,
        f"{message}; nothing cached was lost this time: {where}",
        cur,
        kind=kind,
        details=details,
        severity=Severity.INFO,
    )


def below_minimum(prev: Request, limits: Any) -> tuple[int, bool, int] | None:
    """(prompt tokens, counted from usage, the model's minimum) when the previous request's whole
    prompt is below the model's minimum cacheable length (nothing of it was cached: a change after
    it loses nothing); None when it is long enough, its usage shows a cache read or write, or no
    minimum is known. Tokens come from the usage when there is one, else estimated."""
    minimum = limits.min_cacheable_tokens(prev.provider, prev.model)
    if minimum is None:
        return None
    usage = usage_of(prev)
    if usage is not None and usage.cached:
        return None
    tokens, exact = tokens_up_to(prev, prev.prefix_length, limits)
    return (tokens, exact, minimum[0]) if tokens < minimum[0] else None


# A shortfall below both of these is rounding (CL308's tolerance), not a lost cache.
_SHORTFALL_TOKENS = 128
_SHORTFALL_RATIO = 0.05


def read_shortfall(prev: Request, cur: Request) -> tuple[int, int] | None:
    """(tokens read, tokens expected) when both responses carry usage and this one read clearly
    less than the previous request left in the cache (read plus written), else None."""
    pu, cu = usage_of(prev), usage_of(cur)
    if pu is None or cu is None or not pu.one_prompt:
        return None
    expected = pu.read + pu.written
    if not expected or expected - cu.read <= max(_SHORTFALL_TOKENS, _SHORTFALL_RATIO * expected):
        return None
    return cu.read, expected


def first_lost_byte(prev: Request, diff: PrefixDiff, tiers: tuple[str, ...] | list[str] | None = None) -> int | None:
    """The first byte of the previous request's rendering that the pair loses: the first differing
    byte, or the start of a tier a setting change invalidates, whichever comes first. ``tiers``:
    the tiers of one setting change only (CL304 judges each change on its own); by default those
    of every setting change of the pair whose effect is confirmed."""
    if tiers is None:
        tiers = [t for change in diff.settings if change.confirmed for t in change.invalidates]
    starts = [prev.tier_span(t)[0] for t in tiers]
    if diff.offset is not None:
        starts.append(diff.offset)
    return min(starts) if starts else None
