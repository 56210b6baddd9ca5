"""Advice from the pauses a thread actually made: would the 1-hour TTL have paid, would keep-alive
pings have paid. Arithmetic on the price table's rates, shown with its numbers.

Anthropic's rates (its pricing page, "prompt caching" multipliers; rules/packs/payloads-prices.yaml):
a 5-minute write costs 1.25x base input, a 1-hour write 2x, a read 0.1x. A cache entry lives for its
TTL from the start of the request that wrote or last read it, and a read refreshes it for free
(Anthropic's prompt caching docs). So:

- **1-hour TTL.** A pause of 5-60 minutes that rebuilt the prefix P (written again at 1.25x) would
  have been a read (0.1x): it saves ``P x (w5 - r)``. Every write of the thread costs ``w1 - w5``
  more. It pays when the prefixes rebuilt after such pauses exceed ``(w1 - w5) / (w5 - r)`` of the
  thread's writes (0.75 / 1.15 = 65% at Anthropic's multipliers). On a thread already written at
  1 hour the same arithmetic says whether the hour paid for itself.
- **Keep-alive pings.** A ping before the entry expires (Anthropic documents a ``max_tokens: 0``
  pre-warm request) reads the prefix: ``P x r`` each. A pause ``g`` needs ``ceil(g / ttl) - 1``
  pings; they pay when fewer than ``(w - r) / r`` (11 at 1.25x and 0.1x) keep one rebuild away. A
  pinger does not know when the user comes back: the policy judged here pings at most that many
  times, so a longer pause, and every thread's end, cost the pings for nothing.

OpenAI (Codex) bills no write (``w`` is the input rate), reads at its cached-input rate, keeps
in-memory prefixes 5-10 minutes and has no 1-hour TTL: only the keep-alive question is asked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cachelint.payloads.pricing import Price


@dataclass(frozen=True, slots=True)
class Pause:
    """A pause between two calls of a thread: ``seconds``; ``cached``: the tokens the call before
    it had cached; ``rebuilt``: tokens the call after it paid again because of the pause (0 when
    the cache was read); ``ttl``: the TTL class in force; ``ttl_seconds`` its length."""

    seconds: float
    cached: int
    rebuilt: int
    ttl: str
    ttl_seconds: int


def ttl_advice(
    pauses: list[Pause], written_5m: int, written_1h: int, price: Price | None, short: int = 300, long: int = 3600
) -> dict[str, Any] | None:
    """Whether the 1-hour TTL pays for a thread (or would have), from its pauses and its writes."""
    if price is None:
        return None
    w5, w1, r = price.cache_write_5m, price.cache_write_1h, price.cache_read
    if w5 <= r or w1 <= w5:
        return None
    window = [p for p in pauses if short < p.seconds <= long]
    if written_1h and not written_5m:
        # Already on 1 hour: what the pauses of 5-60 minutes kept, against the premium paid.
        kept = sum(p.cached for p in window if not p.rebuilt)
        saved = price.money(kept, w5 - r)
        premium = price.money(written_1h, w1 - w5)
        basis = "on the 1-hour TTL"
        rebuilt = kept
        written = written_1h
    else:
        rebuilt = sum(p.rebuilt for p in window)
        saved = price.money(rebuilt, w5 - r)
        written = max(0, written_5m - rebuilt)
        premium = price.money(written, w1 - w5)
        basis = "on the 5-minute TTL"
    if not rebuilt:
        return None  # no pause of 5-60 minutes rebuilt (or, on 1 hour, kept) anything: nothing to weigh
    net = saved - premium
    ratio = (w1 - w5) / (w5 - r)
    return {
        "basis": basis,
        "pauses_5_to_60_min": len(window),
        "tokens_rebuilt_by_those_pauses": rebuilt,
        "tokens_written_at_1h": written,
        "saved": round(saved, 6),
        "premium": round(premium, 6),
        "net": round(net, 6),
        "pays": net > 0,
        "break_even_share": round(ratio, 4),
        "arithmetic": (
            f"{rebuilt:,} tokens read instead of written again x ({_rate(w5)} - {_rate(r)})/M = {_money(saved)}"
            f" against {written:,} tokens written at 1h x ({_rate(w1)} - {_rate(w5)})/M = {_money(premium)};"
            f" net {_money(net)} (the hour pays when the rebuilt tokens exceed {ratio:.0%} of the writes)"
        ),
    }


def keepalive_advice(
    pauses: list[Pause], ends: list[tuple[int, str, int]], price: Price | None, writes: float
) -> dict[str, Any] | None:
    """Whether keep-alive pings would have paid: ``pauses`` of the threads, ``ends`` (tokens
    cached at each thread's last call, its TTL class and seconds), ``writes`` the rate a rebuild
    pays per million tokens (a 5-minute write, or plain input where writes are free)."""
    if price is None or price.cache_read <= 0 or writes <= price.cache_read:
        return None
    r = price.cache_read
    cap = math.floor((writes - r) / r)  # pings that one avoided rebuild pays for
    saved = wasted = 0.0
    kept = longer = 0
    pings_bought = 0
    for p in pauses:
        if p.seconds <= p.ttl_seconds or not p.rebuilt or p.ttl_seconds <= 0:
            continue
        needed = math.ceil(p.seconds / p.ttl_seconds) - 1
        if needed <= cap:
            kept += 1
            pings_bought += needed
            saved += price.money(p.rebuilt, writes - r) - needed * price.money(p.cached, r)
        else:
            longer += 1
            pings_bought += cap
            wasted += cap * price.money(p.cached, r)
    for cached, _ttl, _seconds in ends:
        pings_bought += cap
        wasted += cap * price.money(cached, r)
    if not kept and not longer:
        return None
    net = saved - wasted
    return {
        "pings_per_rebuild_avoided": cap,
        "pauses_bridged": kept,
        "pauses_too_long": longer,
        "thread_ends": len(ends),
        "pings": pings_bought,
        "saved": round(saved, 6),
        "wasted": round(wasted, 6),
        "net": round(net, 6),
        "pays": net > 0,
        "arithmetic": (
            f"a ping reads the prefix at {_rate(r)}/M, a rebuild writes it at {_rate(writes)}/M: one avoided rebuild pays"
            f" for {cap} pings; {kept} pause(s) bridged save {_money(saved)} net of their pings; {longer} longer pause(s)"
            f" and {len(ends)} thread end(s) waste {_money(wasted)} of pings; net {_money(net)}"
        ),
    }


def _rate(value: float) -> str:
    return f"${value:g}"


def _money(value: float) -> str:
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(value):,.4f}"
