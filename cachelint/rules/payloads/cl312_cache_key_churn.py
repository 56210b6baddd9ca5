"""CL312 cache-key-churn: OpenAI ``prompt_cache_key`` changing within a session, or one key
carrying more traffic than the provider spreads well.

OpenAI combines the key with the prefix hash to route a request to a cache (docs/background/prefix-and-invalidation.md#openai): a new key in
the middle of a conversation routes it to a machine that never saw its prefix, and a key that
carries more than about 15 requests a minute spills onto other machines, where the prefix is not
cached. GPT-5.6+ matches reliably only with a key. The rate is dated data
(``requests_per_minute_per_key`` in ``rules/packs/payloads-limits.yaml``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Iterable, cast

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.limits import limits_for
from cachelint.payloads.model import Request, Session
from cachelint.rules.declarations import PayloadRule

CODE = "CL312"
WINDOW = timedelta(minutes=1)  # the unit of OpenAI's "requests per minute"


def _key(req: Request) -> str | None:
    value = req.settings.get("prompt_cache_key")
    return value if isinstance(value, str) and value else None


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    """A key set, changed or dropped between consecutive requests of a session (CL304 leaves this
    setting to CL312: ``reported-by`` in rules/packs/payloads-invalidation.yaml)."""
    before, after = _key(prev), _key(cur)
    if before == after:
        return []
    if before is None:
        what = f"prompt_cache_key {after!r} set in the middle of the session"
    elif after is None:
        what = f"prompt_cache_key {before!r} dropped in the middle of the session"
    else:
        what = f"prompt_cache_key changed from {before!r} to {after!r} within the session"
    return [
        at_request(
            CODE,
            f"{what}: the request is routed away from the machines that hold its prefix; keep one key per conversation",
            cur,
            kind="changed",
            details={"before": before, "after": after, "previous_record": prev.origin.record},
        )
    ]


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    limits = limits_for(ctx)
    by_key: dict[str, list[Request]] = {}
    for req in session.requests:
        key = _key(req)
        provider = limits.provider(req.provider)
        if key is None or req.time is None or provider is None or provider.requests_per_minute_per_key is None:
            continue
        by_key.setdefault(key, []).append(req)
    out = []
    for key in sorted(by_key):
        reqs = sorted(by_key[key], key=lambda r: (r.time, r.origin.record))
        # grouped above only when the provider and its rate are known
        rate = cast(float, limits.provider(reqs[0].provider).requests_per_minute_per_key)  # type: ignore[union-attr]
        start = 0
        for end, req in enumerate(reqs):
            try:
                while req.time - reqs[start].time >= WINDOW:  # type: ignore[operator]
                    start += 1
            except TypeError:  # aware and naive times mixed: no honest rate
                break
            count = end - start + 1
            if count > rate:
                out.append(
                    at_request(
                        CODE,
                        f"prompt_cache_key {key!r} carried {count} requests within a minute; about {rate:g}/min per key"
                        " is what one cache machine serves, the rest spill and miss: spread the traffic over more keys",
                        req,
                        kind="rate",
                        details={"key": key, "requests_in_window": count, "limit_per_minute": rate},
                    )
                )
                break  # one finding per key and session
    return out


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads a prompt_cache_key that differs between the two settings only: skipped on quiet pairs
    reports_prefix_break=True,
    check_pair=check_pair,
    check_session=check_session,
)
