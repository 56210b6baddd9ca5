"""Money: what a request's prompt cost at the dated price table, and what a cache break cost.

Prices are data (``rules/packs/payloads-prices.yaml``, USD per million tokens, with an ``as_of``
date). A break's cost is the difference between what the lost prefix was billed at (a cache write,
or plain input when nothing was written) and what reading it from the cache would have cost:
exact when the response carries usage, an estimate (about ``chars_per_token`` characters a
token, docs/background/usage-and-pricing.md#token-estimates) labelled as such when it does not.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from cachelint.payloads.cache_usage import CacheUsage


@dataclass(frozen=True)
class Price:
    """Rates per ``per_tokens`` tokens, in ``currency``."""

    pattern: str
    input: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float
    output: float = 0.0
    currency: str = "USD"
    per_tokens: int = 1_000_000
    as_of: str = ""

    def money(self, tokens: float, rate: float) -> float:
        return tokens * rate / self.per_tokens

    def prompt_cost(self, usage: CacheUsage) -> float:
        """The prompt as billed: uncached at input, reads at the read rate, writes by TTL."""
        return (
            usage.uncached * self.input
            + usage.read * self.cache_read
            + usage.written_5m * self.cache_write_5m
            + usage.written_1h * self.cache_write_1h
        ) / self.per_tokens

    def uncached_cost(self, usage: CacheUsage) -> float:
        """The same prompt with no cache at all (every token at the input rate)."""
        return usage.prompt * self.input / self.per_tokens


@dataclass(frozen=True)
class PriceTable:
    prices: tuple[tuple[tuple[str, ...], Price], ...]
    as_of: str = ""
    currency: str = "USD"
    _found: dict[str | None, Price | None] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "PriceTable":
        entries: list[tuple[tuple[str, ...], Price]] = []
        as_of, currency = "", "USD"
        for pack in packs:  # built-in first, then the user's: a user's pack is searched first
            as_of = str(pack.get("as_of", as_of))
            currency = str(pack.get("currency", currency))
            per = int(pack.get("per_tokens", 1_000_000))
            found = []
            for item in pack.get("models") or ():
                patterns = tuple(p.lower() for p in item["match"])
                found.append(
                    (
                        patterns,
                        Price(
                            pattern=patterns[0],
                            input=float(item["input"]),
                            cache_write_5m=float(item["cache_write_5m"]),
                            cache_write_1h=float(item["cache_write_1h"]),
                            cache_read=float(item["cache_read"]),
                            output=float(item.get("output", 0.0)),
                            currency=currency,
                            per_tokens=per,
                            as_of=as_of,
                        ),
                    )
                )
            entries[:0] = found
        return cls(prices=tuple(entries), as_of=as_of, currency=currency)

    def lookup(self, model: str | None) -> Price | None:
        """The price of a model (the first matching entry), looked up once per model and run."""
        if model not in self._found:
            self._found[model] = self._lookup(model)
        return self._found[model]

    def _lookup(self, model: str | None) -> Price | None:
        if not model:
            return None
        name = model.lower()
        for patterns, price in self.prices:
            if any(fnmatch.fnmatchcase(name, p) for p in patterns):
                return price
        return None


@dataclass(frozen=True)
class BreakCost:
    """What one break cost. ``tokens``: prompt tokens that had to be paid again instead of read;
    ``money``: their extra cost (None when the model has no price); ``exact``: from usage (True) or
    estimated from the bytes (False)."""

    tokens: int
    money: float | None
    exact: bool
    currency: str = "USD"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "money": None if self.money is None else round(self.money, 6),
            "currency": self.currency,
            "basis": "usage" if self.exact else "estimate (~4 chars/token)",
        }


def break_cost_from_usage(lost_tokens: int, usage: CacheUsage, price: Price | None) -> BreakCost:
    """Exact cost of ``lost_tokens`` that the request paid instead of reading: the part it wrote is
    billed at its write rates (5m / 1h in the proportion the response reports), the rest at input."""
    lost = max(0, lost_tokens)
    if price is None:
        return BreakCost(lost, None, True)
    from_write = min(lost, usage.written)
    from_input = lost - from_write
    if usage.written:
        write_rate = (usage.written_5m * price.cache_write_5m + usage.written_1h * price.cache_write_1h) / usage.written
    else:
        write_rate = price.cache_write_5m
    paid = price.money(from_write, write_rate) + price.money(from_input, price.input)
    would_have = price.money(lost, price.cache_read)
    return BreakCost(lost, paid - would_have, True, price.currency)


def break_cost_estimate(lost_tokens: int, writes: bool, ttl: str | None, price: Price | None) -> BreakCost:
    """Estimated cost of ``lost_tokens`` (from the bytes): written again at the marker's TTL rate
    when the request carries breakpoints, else billed as plain input."""
    lost = max(0, lost_tokens)
    if price is None:
        return BreakCost(lost, None, False)
    rate = (price.cache_write_1h if ttl == "1h" else price.cache_write_5m) if writes else price.input
    return BreakCost(lost, price.money(lost, rate) - price.money(lost, price.cache_read), False, price.currency)


def prices_for(ctx: Any) -> PriceTable:
    """The run's PriceTable from a CheckContext (or anything with ``packs(kind)``)."""
    return PriceTable.from_packs(ctx.packs("payloads-prices"))
