"""CL308 missed-cache-read: the prefix held, yet the response shows that the cache was not read.

The previous request left an entry (its usage shows the tokens read or written at its
breakpoints); this one repeats that prefix byte for byte, with the same model and settings,
within the TTL and the lookback, and still reads less than that. What is left is the provider's
side: concurrency (an entry is readable only once the first response has begun, Anthropic's prompt caching docs), routing
(OpenAI's ~15 requests/min per prefix and key, OpenAI's prompt caching docs), an eviction. Where the response carries
Anthropic's own cache diagnostics (``diagnostics.cache_miss_reason``), their verdict is shown
beside ours, and a reason that names a tier our byte diff found intact is flagged as a
disagreement.

A usage that counts the prompt but leaves out the cache-read field is a read of 0 when its source
(host, endpoint, model) writes that field on its other responses of the session only when they read
(``sources_omitting_zero_reads``): gateways drop zero-valued fields. The finding says that the read
was inferred. A source never seen writing the field stays unknown.

Judged over the whole session, so that a session that never reads at all is one CL311 finding
rather than a CL308 on every request.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.thinking import stripped_from, thinking_on
from cachelint.payloads.cache_state import never_read, ttl_in_force
from cachelint.payloads.limits import Limits, limits_for
from cachelint.payloads.model import Request, Session, seconds_between
from cachelint.payloads.spend import common_prefix_bytes, marked_end
from cachelint.payloads.usage import (
    MISS_REASON_TIERS,
    UsageSource,
    reads_known,
    reads_reported,
    sources_omitting_zero_reads,
    usage_of,
)
from cachelint.rules.declarations import PayloadRule

CODE = "CL308"
# OpenAI reports hits in 128-token steps (older copies of OpenAI's docs) and Anthropic counts are exact: a shortfall below
# both 128 tokens and 5% of the expected read is rounding, not a miss.
TOLERANCE_TOKENS = 128
TOLERANCE_RATIO = 0.05


def _prefix_held(
    prev: Request,
    cur: Request,
    explicit: bool,
    unconfirmed: frozenset[str] = frozenset(),
    rows: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[bool, list[str]]:
    """(whether the cached prefix held, the settings that changed without reaching it). A setting
    change that invalidates a tier the previous request's cache reaches is CL304's finding; one
    that by the provider's table invalidates only what lies past its last breakpoint (tool_choice,
    messages only, with the breakpoints on tools and system) leaves the cached prefix intact, and
    a miss after it is a miss (it names the change as the likely cause)."""
    if prev.model != cur.model:
        return False, []
    end = marked_end(prev) if explicit else prev.prefix_length
    passed: list[str] = []
    if _settings_differ(prev, cur, unconfirmed):
        if not explicit or rows is None:
            return False, []
        for name in sorted(set(prev.settings) | set(cur.settings)):
            if name in unconfirmed or (prev.settings.get(name) or None) == (cur.settings.get(name) or None):
                continue
            row = rows.get(name)
            if row is None:
                return False, []
            starts = [prev.tier_span(t)[0] for t in row.get("invalidates", ())]
            if any(start < end for start in starts):
                return False, []  # it reaches the cached prefix: CL304's finding
            passed.append(name)
    return common_prefix_bytes(prev, cur) >= end, passed


def _settings_differ(prev: Request, cur: Request, ignored: frozenset[str] = frozenset()) -> bool:
    if prev.settings is cur.settings or prev.settings == cur.settings:
        return False
    return {k: v for k, v in prev.settings.items() if k not in ignored} != {
        k: v for k, v in cur.settings.items() if k not in ignored
    }


def unconfirmed_changes(prev: Request, cur: Request, unconfirmed: frozenset[str]) -> list[str]:
    """The settings of undocumented cache effect (CL304 information) that differ between the two."""
    return sorted(n for n in unconfirmed if (prev.settings.get(n) or None) != (cur.settings.get(n) or None))


def _within_lookback(prev: Request, cur: Request, window: int | None) -> bool:
    if window is None:
        return True
    written = {bp.position for bp in prev.breakpoints}
    return any(0 <= b.position - w < window for b in cur.breakpoints for w in written)


def _within_ttl(prev: Request, cur: Request, limits: Limits) -> bool:
    provider = limits.provider(cur.provider)
    gap = seconds_between(prev, cur)
    if provider is None or gap is None:
        return True
    ttl = ttl_in_force(prev, provider)
    if gap <= 0:
        return False  # sent together: the entry cannot be read before the first response begins
    return ttl is None or gap <= ttl[1]


def missed_reads(
    prev: Request,
    cur: Request,
    limits: Limits,
    unconfirmed: frozenset[str] = frozenset(),
    rows: Mapping[str, Mapping[str, Any]] | None = None,
    omitting: frozenset[UsageSource] = frozenset(),
) -> dict[str, Any] | None:
    """The miss between two consecutive requests of a session, or None. ``unconfirmed``: settings
    whose change does not count as a break (their effect is undocumented): a miss after one of them
    is still a miss, and the finding names it as the likely cause. ``rows``: the invalidation
    table's rows of the provider (settings whose change stops short of the cached prefix).
    ``omitting``: the session's sources that leave the cache-read field out when they read nothing
    (``usage.sources_omitting_zero_reads``)."""
    provider = limits.provider(cur.provider)
    if provider is None:
        return None
    if not limits.caches(cur.provider, cur.model):
        return None  # a model its provider caches nothing for (OpenAI before gpt-4o, Gemini before 2.5)
    if not reads_known(cur, omitting):
        return None  # the usage does not say what was read (OpenAI's before its prompt caching)
    if thinking_on(cur) and stripped_from(prev, cur, limits) is not None:
        return None  # explained: the API stripped earlier thinking blocks (CL303 thinking-stripped)
    explicit = provider.caching == "explicit"
    if explicit and (not prev.breakpoints or not cur.breakpoints):
        return None  # nothing was written, or nothing asked to be read: CL310's finding
    held, passed = _prefix_held(prev, cur, explicit, unconfirmed, rows)
    if not held:
        return None
    if explicit and not _within_lookback(prev, cur, provider.lookback_blocks):
        return None  # CL305's finding
    if explicit and max(b.position for b in cur.breakpoints) < max(b.position for b in prev.breakpoints):
        return None  # the marker moved back: reading less than last time is what was asked for
    if not _within_ttl(prev, cur, limits):
        return None  # CL306's finding, or parallel requests
    reason = cur.cache_diagnostics if cur.has_cache_diagnostics else None
    named = reason is not None and reason.get("type") in MISS_REASON_TIERS
    pu, cu = usage_of(prev), usage_of(cur)
    found: dict[str, Any] = {}
    # the previous request's usage must describe its one prompt (no server-side tool steps added
    # in) to say what it left in the cache; this one's may add steps up: its read is then an upper
    # bound on what the first step read, so a shortfall is still a miss
    if pu is not None and cu is not None and pu.one_prompt:
        if explicit:
            expected = pu.read + pu.written
        else:
            minimum = limits.min_cacheable_tokens(prev.provider, prev.model)
            expected = pu.prompt if minimum is None or pu.prompt >= minimum[0] else 0
            step = provider.read_step_tokens
            if step and minimum is not None and expected >= minimum[0]:
                expected = minimum[0] + step * ((expected - minimum[0]) // step)  # reads come in steps
        missed = expected - cu.read
        if expected and missed > max(TOLERANCE_TOKENS, TOLERANCE_RATIO * expected):
            found = {"expected_read": expected, "read": cu.read, "missed": missed, "written": cu.written}
            if not reads_reported(cur):
                found["read_inferred"] = True  # from the field's absence: the source leaves it out at 0
            changed = unconfirmed_changes(prev, cur, unconfirmed) if unconfirmed else []
            if changed:
                found["unconfirmed_settings"] = changed
            if passed:
                found["changed_settings"] = passed
    if named:
        found["provider_reason"] = reason["type"] if reason else None
        found["provider_missed_tokens"] = reason.get("tokens") if reason else None
        found["disagrees_with_our_diff"] = True  # it names a tier; our bytes say the prefix held
    return found or None


def _message(found: dict[str, Any], provider: str) -> str:
    parts = []
    if "missed" in found:
        parts.append(
            f"the prefix held but the response read {found['read']} of the {found['expected_read']} cached tokens"
            f" ({found['missed']} missed)"
        )
    if found.get("read_inferred"):
        parts.append(
            "the read of 0 is inferred: the usage leaves out the cache-read field, which the same host and model"
            " write in this session only on the responses that read (a source that drops zero-valued fields)"
        )
    if found.get("unconfirmed_settings"):
        parts.append(
            f"{', '.join(found['unconfirmed_settings'])} changed between the two requests"
            + (", which Anthropic's cache diagnostics count as prompt-affecting" if provider == "anthropic" else "")
            + " (its effect on the cache is not documented): the likely cause"
        )
    if found.get("changed_settings"):
        parts.append(
            f"{', '.join(found['changed_settings'])} changed between the two requests: by the provider's table it"
            " invalidates only what follows the breakpoints, yet the cached prefix was not read: the likely cause"
        )
    if found.get("provider_reason"):
        parts.append(
            f"the provider reports {found['provider_reason']} while our byte diff finds the prefix intact (they disagree)"
        )
    return "; ".join(parts)


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    if never_read(session, ctx) is not None:
        return []  # CL311 reports the whole session once
    limits = limits_for(ctx)
    out = []
    unconfirmed = ctx.unconfirmed_settings(session.requests[0].provider) if session.requests else frozenset()
    rows = ctx.setting_rows(session.requests[0].provider) if session.requests else {}
    omitting = sources_omitting_zero_reads(session.requests)
    for prev, cur in zip(session.requests, session.requests[1:]):
        found = missed_reads(prev, cur, limits, unconfirmed, rows, omitting)
        if found:
            found["previous_record"] = prev.origin.record
            message = _message(found, cur.provider)
            if (
                "missed" in found
                and cur.provider.startswith("openai")
                and cur.host is None
                and not cur.settings.get("prompt_cache_key")
            ):
                # OpenAI's prompt caching docs: requests that share a prefix reach the same cache reliably only with a
                # key; a compatible API or gateway (a host of its own) routes by rules of its own, which no source gives
                found["hint"] = "prompt_cache_key"
                message += "; set prompt_cache_key (one value for the requests that share this prefix) so they are routed to the same cache"
            if cur.fidelity == "usage" and "missed" in found:
                # a transcript does not hold the prompt: "the prefix held" is not known
                message = message.replace("the prefix held but the response", "the response", 1) + (
                    f"; judged from usage only ({cur.source_format} keeps no request bytes): a prefix that changed"
                    " cannot be told apart from a miss on the provider's side"
                )
                found["fidelity"] = "usage"
            out.append(at_request(CODE, message, cur, details=found))
    return out


RULE = PayloadRule(
    CODE,
    fidelity="usage",  # judges the usage of each call: runs on every log that keeps it, transcripts too
    reports_lost_cache=True,
    reports_provider_miss=True,
    check_session=check_session,
)
