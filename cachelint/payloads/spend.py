"""What a run spent on its prompts, per session and in total: hit rate, tokens read / written /
uncached, money at the dated price table, the money each cache break cost, the provider's own
miss reasons beside our diff, and whether a 1-hour TTL would have paid (docs/background/agent-patterns.md#choosing-the-ttl-by-evidence:
choose the TTL by evidence — a session that pauses past 5 minutes and then rewrites its prefix, more than once).

The pipeline feeds every request to a ``UsageLedger`` as it goes (``add``), and takes each
session's entry once no later finding can change it (``close_session``), the total added up as
the entries come (``UsageTotals``). ``summary`` makes the whole summary at once from what the
ledger holds; ``summarize_usage(sessions, diagnostics)`` does both for sessions that still hold
their requests. The summary is data; ``cachelint.report`` renders it.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.facts import FactTable, RequestFacts
from cachelint.payloads.limits import Limits
from cachelint.payloads.model import PrefixDiff, Request, Session, seconds_between
from cachelint.payloads.pricing import BreakCost, PriceTable, break_cost_estimate, break_cost_from_usage
from cachelint.payloads.usage import reason_agrees, usage_of


def marked_end(req: Request) -> int:
    """End byte of the last block carrying a breakpoint (a marker inside a message caches the
    prefix up to that content block; we count the whole message: block granularity)."""
    end = 0
    for bp in req.breakpoints:
        blocks = req.tier(bp.tier)
        if 0 <= bp.block < len(blocks):
            end = max(end, blocks[bp.block].end)
    return end


def common_prefix_bytes(prev: Request, cur: Request) -> int:
    """Bytes of the previous rendered prefix that the current one repeats, at block granularity:
    the offset of the first block that differs (the previous prefix length when none does)."""
    kept = len(prev.messages)
    if (
        prev.tools == cur.tools
        and prev.system == cur.system
        and kept <= len(cur.messages)
        and prev.messages == cur.messages[:kept]
    ):
        return prev.prefix_length  # the common case, tier by tier (identity first): no list built
    prev_blocks = [*prev.tools, *prev.system, *prev.messages]
    cur_blocks = [*cur.tools, *cur.system, *cur.messages]
    if len(prev_blocks) <= len(cur_blocks) and prev_blocks == cur_blocks[: len(prev_blocks)]:
        return prev.prefix_length  # consecutive requests share their Block objects: one C-level compare
    for a, b in zip(prev_blocks, cur_blocks):
        if a.tier != b.tier or a.data != b.data:
            return a.offset
    if len(prev_blocks) > len(cur_blocks):
        return prev_blocks[len(cur_blocks)].offset
    return prev.prefix_length


def _explicit(limits: Limits, provider: str) -> bool:
    found = limits.provider(provider)
    return found is not None and found.caching == "explicit"


@dataclass
class UsageLedger:
    limits: Limits
    prices: PriceTable
    facts: FactTable = field(default_factory=FactTable)  # compact: ~110 bytes a request

    def add(self, req: Request, prev: Request | None = None, diff: PrefixDiff | None = None) -> RequestFacts:
        """Record one request (in session order). ``prev``/``diff``: the previous request of its
        session and their PrefixDiff when the pipeline has them."""
        usage = usage_of(req)
        explicit = _explicit(self.limits, req.provider)
        cached_end = marked_end(req) if explicit else req.prefix_length
        common: int | None = None
        first_tier: str | None = None
        changed: tuple[str, ...] = ()
        if diff is not None:
            common = diff.common_bytes
            first_tier = diff.first_tier
            changed = tuple(s.name for s in diff.settings)
        elif prev is not None:
            common = common_prefix_bytes(prev, req)
        ttls = tuple(bp.ttl for bp in req.breakpoints)
        facts = RequestFacts(
            path=req.origin.path,
            record=req.origin.record,
            line=req.origin.line,
            session=req.session,
            index=req.index_in_session,
            time=req.time,
            provider=req.provider,
            model=req.model,
            usage=usage,
            prefix_bytes=req.prefix_length,
            cached_end_bytes=cached_end,
            markers=len(req.breakpoints),
            last_ttl=ttls[-1] if ttls else None,
            ttls=ttls,
            common_bytes=common,
            first_tier=first_tier,
            changed_settings=changed,
            miss_reason=req.cache_diagnostics if req.has_cache_diagnostics else None,
        )
        self.facts.append(facts)
        return facts

    # --- the summary -----------------------------------------------------------------------

    def summary(self, diagnostics: Sequence[Diagnostic] = (), timeline: bool = True) -> dict[str, Any]:
        """Per session and in total: tokens, hit rate, money, what the breaks cost, the provider's
        verdicts, the TTL advice; with ``timeline``, one entry per request as well."""
        from cachelint.payloads.hooks import provider_miss_codes

        breaks_at = lost_cache_at(diagnostics)
        totals = UsageTotals(provider_miss_codes())
        sessions: list[dict[str, Any]] = []
        for sid in sorted(self.facts.session_keys(), key=_session_order):
            # one session's facts as objects at a time: the table keeps the rest compact
            reqs = sorted(self.facts.session(sid), key=lambda f: f.index)
            entry = self._session_summary(sid, reqs, breaks_at, timeline)
            totals.add(len(sessions), entry)
            sessions.append(entry)
        return {**self.header(), "sessions": sessions, "total": totals.result()}

    def header(self) -> dict[str, Any]:
        """What a usage summary says before its sessions: the dates of its tables, the currency."""
        return {"prices_as_of": self.prices.as_of, "limits_as_of": self.limits.as_of, "currency": self.prices.currency}

    def close_session(
        self, sid: str, breaks_at: Mapping[tuple[str, int], list[str]], timeline: bool = True
    ) -> dict[str, Any] | None:
        """The summary entry of one session, as ``summary`` makes it (``breaks_at``: from
        ``lost_cache_at`` of the findings), its facts forgotten by the ledger; None when the
        ledger was given none of its requests."""
        reqs = sorted(self.facts.pop_session(sid), key=lambda f: f.index)
        return self._session_summary(sid, reqs, breaks_at, timeline) if reqs else None

    def _session_summary(
        self,
        sid: str,
        reqs: list[RequestFacts],
        breaks_at: Mapping[tuple[str, int], list[str]],
        with_timeline: bool = True,
    ) -> dict[str, Any]:
        read = written = uncached = with_usage = estimated_prompt = 0
        money = money_uncached = 0.0
        priced = unpriced = 0
        timeline = []
        breaks: list[dict[str, Any]] = []
        verdicts = []
        prev: RequestFacts | None = None
        for f in reqs:
            price = self.prices.lookup(f.model)
            if f.usage is not None:
                with_usage += 1
                read += f.usage.read
                written += f.usage.written
                uncached += f.usage.uncached
                if price is not None:
                    priced += 1
                    money += price.prompt_cost(f.usage)
                    money_uncached += price.uncached_cost(f.usage)
                else:
                    unpriced += 1
            else:
                estimated_prompt += self.limits.estimate_tokens(f.prefix_bytes)
            codes = sorted(set(breaks_at.get((f.path, f.record), ())))
            cost = self._break_cost(prev, f, codes) if codes and prev is not None else None
            if codes:
                breaks.append(
                    {
                        "record": f.record,
                        "line": f.line,
                        "codes": codes,
                        "cost": cost.to_dict() if cost else None,
                    }
                )
            if f.miss_reason is not None:
                agrees = reason_agrees(f.miss_reason.get("type"), f.first_tier, f.changed_settings)
                verdicts.append(
                    {
                        "record": f.record,
                        "provider_reason": f.miss_reason.get("type"),
                        "provider_missed_tokens": f.miss_reason.get("tokens"),
                        "our_first_tier": f.first_tier,
                        "our_settings": list(f.changed_settings),
                        "agrees": agrees,
                    }
                )
            if with_timeline:
                timeline.append(
                    {
                        "record": f.record,
                        "line": f.line,
                        "time": f.time.isoformat() if f.time else None,
                        "read": f.usage.read if f.usage else None,
                        "written": f.usage.written if f.usage else None,
                        "uncached": f.usage.uncached if f.usage else None,
                        "estimated_prompt": None if f.usage else self.limits.estimate_tokens(f.prefix_bytes),
                        "break": codes,
                    }
                )
            prev = f
        prompt = read + written + uncached
        first = reqs[0]
        out: dict[str, Any] = {
            "id": first.session or "",
            "path": first.path,
            "provider": first.provider,
            "model": first.model,
            "requests": len(reqs),
            "requests_with_usage": with_usage,
            "tokens": {"read": read, "written": written, "uncached": uncached, "prompt": prompt},
            "estimated_prompt_tokens_without_usage": estimated_prompt,
            "hit_rate": round(read / prompt, 4) if prompt else None,
            "money": round(money, 6) if priced else None,
            "money_without_cache": round(money_uncached, 6) if priced else None,
            "requests_unpriced": unpriced,
            "breaks": breaks,
            "break_money": _sum_money(b["cost"] for b in breaks),
            "break_tokens": sum(b["cost"]["tokens"] for b in breaks if b["cost"]),
            "break_money_estimated": any(b["cost"] and b["cost"]["basis"] != "usage" for b in breaks),
            "provider_verdicts": verdicts,
            "disagreements": sum(1 for v in verdicts if v["agrees"] is False),
        }
        if with_timeline:
            out["timeline"] = timeline
        advice = self._ttl_advice(reqs)
        if advice is not None:
            out["ttl_advice"] = advice
        return out

    def _expected_cached_tokens(self, prev: RequestFacts) -> tuple[int, bool]:
        """Tokens the previous request left in the cache (exact from its usage, else estimated)."""
        if not self.limits.caches(prev.provider, prev.model) and not (prev.usage is not None and prev.usage.cached):
            return 0, prev.usage is not None  # its provider caches nothing for this model
        if prev.usage is not None and prev.usage.one_prompt:
            if _explicit(self.limits, prev.provider):
                return prev.usage.read + prev.usage.written, True
            tokens, exact = prev.usage.prompt, True
        else:  # no usage, or one that adds server-side tool steps up: estimated from the bytes
            tokens, exact = self.limits.estimate_tokens(prev.cached_end_bytes), False
        if not _explicit(self.limits, prev.provider):
            # Automatic caching keeps nothing below the model's minimum (OpenAI's prompt caching docs: 1024 tokens).
            minimum = self.limits.min_cacheable_tokens(prev.provider, prev.model)
            if minimum is not None and tokens < minimum[0] and not (prev.usage is not None and prev.usage.read):
                return 0, exact
        return tokens, exact

    def _break_cost(self, prev: RequestFacts, cur: RequestFacts, codes: Sequence[str]) -> BreakCost:
        price = self.prices.lookup(cur.model)
        expected, exact = self._expected_cached_tokens(prev)
        if cur.usage is not None and exact:
            return break_cost_from_usage(expected - cur.usage.read, cur.usage, price)
        if cur.usage is not None:
            # The previous request has no usage: whatever this one did not read is the upper bound.
            return break_cost_from_usage(cur.usage.written + cur.usage.uncached, cur.usage, price)
        common = cur.common_bytes if cur.common_bytes is not None else 0
        kept = 0 if "CL306" in codes else min(expected, self.limits.estimate_tokens(common))
        writes = cur.markers > 0 or not _explicit(self.limits, cur.provider)
        return break_cost_estimate(expected - kept, writes, cur.last_ttl, price)

    def _ttl_advice(self, reqs: list[RequestFacts]) -> dict[str, Any] | None:
        """Choosing the TTL by evidence (docs/background/agent-patterns.md): a 5-minute entry that expires in a pause the hour would have covered, then is
        written again in full — twice or more — is the evidence that ``ttl: "1h"`` pays."""
        first = reqs[0]
        limits = self.limits.provider(first.provider)
        if limits is None or "1h" not in limits.ttls or not _explicit(self.limits, first.provider):
            return None
        short, long = limits.ttl_seconds(limits.default_ttl), limits.ttl_seconds("1h")
        if short is None or long is None:
            return None
        resumes = []
        for prev, cur in zip(reqs, reqs[1:]):
            if not prev.markers or "1h" in prev.ttls:
                continue
            gap = seconds_between(prev, cur)
            if gap is None or not short < gap <= long:
                continue
            expected, exact = self._expected_cached_tokens(prev)
            if cur.usage is not None and exact:
                rewritten = min(expected, cur.usage.written + cur.usage.uncached) if cur.usage.read < expected else 0
            elif cur.common_bytes is not None and cur.common_bytes >= prev.cached_end_bytes:
                rewritten, exact = expected, False  # the prefix held: the pause alone lost it
            else:
                rewritten = 0
            if rewritten > 0:
                resumes.append((cur, gap, rewritten, exact))
        if len(resumes) < 2:
            return None
        price = self.prices.lookup(first.model)
        rewritten_total = sum(r[2] for r in resumes)
        written_5m = sum(f.usage.written_5m for f in reqs if f.usage is not None)
        inferred = written_5m < rewritten_total  # no usage: the rewrites are the writes we know of
        written_5m = max(written_5m, rewritten_total)
        out: dict[str, Any] = {
            "pauses": [{"record": r[0].record, "gap_seconds": int(r[1]), "tokens_rewritten": r[2]} for r in resumes],
            "tokens_rewritten": rewritten_total,
            "basis": "usage" if all(r[3] for r in resumes) else "estimate (~4 chars/token)",
        }
        if price is None:
            out.update({"saving": None, "pays": None})
            return out
        # With 1h: the rewrites become reads, and every remaining write costs the 1h rate.
        now = price.money(rewritten_total, price.cache_write_5m)
        then = price.money(rewritten_total, price.cache_read) + price.money(
            written_5m - rewritten_total, price.cache_write_1h - price.cache_write_5m
        )
        if inferred:
            # Without usage the first write is unknown: count one more prefix at the 1h premium.
            then += price.money(rewritten_total / len(resumes), price.cache_write_1h - price.cache_write_5m)
        saving = now - then
        out.update({"saving": round(saving, 6), "pays": saving > 0, "currency": price.currency})
        return out


def lost_cache_at(diagnostics: Iterable[Diagnostic]) -> dict[tuple[str, int], list[str]]:
    """The codes of the findings that lost the cache, by (path, record): the breaks a usage
    summary costs."""
    from cachelint.payloads.hooks import lost_cache_codes

    breaks_at: dict[tuple[str, int], list[str]] = {}
    lost_cache = lost_cache_codes()  # findings that say the cache could not serve the previous prefix
    for d in diagnostics:
        if d.code in lost_cache and d.record is not None and (d.details or {}).get("cached_lost") is not False:
            # a change that lost nothing cached (past the last breakpoint, or after the cache
            # had expired anyway) costs nothing: what the request wrote is not its doing
            breaks_at.setdefault((d.path, d.record), []).append(d.code)
    return breaks_at


def _session_order(sid: str) -> tuple[int, str]:
    digits = "".join(ch for ch in sid if ch.isdigit())
    return (int(digits) if digits and sid.lstrip("s").isdigit() else 1 << 30, sid)


def _sum_money(costs: Iterable[Mapping[str, Any] | None]) -> float | None:
    values = [c["money"] for c in costs if c and c.get("money") is not None]
    return round(sum(values), 6) if values else None


def tokens_and_money(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The tokens, hit rate and money of several summaries added up (``tokens``, ``money``,
    ``money_without_cache`` each; money is None when none of them has a price)."""
    read = written = uncached = 0
    money: list[float] = []
    without: list[float] = []
    for p in parts:
        read += p["tokens"]["read"]
        written += p["tokens"]["written"]
        uncached += p["tokens"]["uncached"]
        if p["money"] is not None:
            money.append(p["money"])
        if p["money_without_cache"] is not None:
            without.append(p["money_without_cache"])
    prompt = read + written + uncached
    return {
        "tokens": {"read": read, "written": written, "uncached": uncached, "prompt": prompt},
        "hit_rate": round(read / prompt, 4) if prompt else None,
        "money": round(sum(money), 6) if money else None,
        "money_without_cache": round(sum(without), 6) if without else None,
    }


class UsageTotals:
    """The ``total`` of a usage summary, from its session entries given one at a time in any order,
    each with its place among the sessions. Counts are added as they come; money, whose float sums
    depend on their order, is kept per place (8 bytes a session, NaN for none) and added up in the
    sessions' order at the end, so the total is the same whichever order the entries came in."""

    def __init__(self, provider_codes: frozenset[str] = frozenset()) -> None:
        self.provider_codes = provider_codes  # misses with the prefix intact: the provider's side
        self.sessions = self.requests = self.with_usage = 0
        self.read = self.written = self.uncached = 0
        self.breaks = self.provider_misses = self.break_tokens = self.disagreements = 0
        self.break_money_estimated = False
        self._money = array("d")
        self._without_cache = array("d")
        self._break_money: dict[int, list[float]] = {}  # only the few sessions with a priced break
        self._ttl_saving: dict[int, float] = {}  # only the sessions whose advice pays

    def add(self, place: int, entry: Mapping[str, Any]) -> None:
        self.sessions += 1
        self.requests += entry["requests"]
        self.with_usage += entry["requests_with_usage"]
        tokens = entry["tokens"]
        self.read += tokens["read"]
        self.written += tokens["written"]
        self.uncached += tokens["uncached"]
        _put(self._money, place, entry["money"])
        _put(self._without_cache, place, entry["money_without_cache"])
        breaks = entry["breaks"]
        self.breaks += len(breaks)
        self.provider_misses += sum(1 for b in breaks if set(b["codes"]) <= self.provider_codes)
        priced = [b["cost"]["money"] for b in breaks if b["cost"] and b["cost"].get("money") is not None]
        if priced:
            self._break_money[place] = priced
        self.break_tokens += entry["break_tokens"]
        self.break_money_estimated = self.break_money_estimated or bool(entry["break_money_estimated"])
        self.disagreements += entry["disagreements"]
        advice = entry.get("ttl_advice", {})
        if advice.get("pays"):
            self._ttl_saving[place] = advice["saving"]

    def result(self) -> dict[str, Any]:
        money, without = _Given(self._money), _Given(self._without_cache)
        break_money = [m for place in sorted(self._break_money) for m in self._break_money[place]]
        ttl_saving = [self._ttl_saving[place] for place in sorted(self._ttl_saving)]
        prompt = self.read + self.written + self.uncached
        return {
            "sessions": self.sessions,
            "requests": self.requests,
            "requests_with_usage": self.with_usage,
            "tokens": {"read": self.read, "written": self.written, "uncached": self.uncached, "prompt": prompt},
            "hit_rate": round(self.read / prompt, 4) if prompt else None,
            "money": round(sum(money), 6) if money else None,
            "money_without_cache": round(sum(without), 6) if without else None,
            "breaks": self.breaks,
            "provider_misses": self.provider_misses,
            "break_money": round(sum(break_money), 6) if break_money else None,
            "break_tokens": self.break_tokens,
            "break_money_estimated": self.break_money_estimated,
            "disagreements": self.disagreements,
            "ttl_saving": round(sum(ttl_saving), 6) if ttl_saving else None,
        }


def _put(values: array, place: int, value: float | None) -> None:
    """``values[place] = value`` (NaN for None), the places before it that were not given yet NaN."""
    if place >= len(values):
        values.extend([_NONE] * (place + 1 - len(values)))
    values[place] = _NONE if value is None else value


_NONE = float("nan")


class _Given:
    """The values of an array of ``_put`` that were given (not NaN), in their order, read from the
    array each time rather than copied: a million sessions' money is 8 MB there and 32 MB as a list
    of floats. ``sum`` adds them in the same order as over a list, to the same float."""

    def __init__(self, values: array) -> None:
        self._values = values

    def __iter__(self) -> Iterator[float]:
        return (m for m in self._values if m == m)

    def __bool__(self) -> bool:
        return any(m == m for m in self._values)


def ledger_for(settings: Any) -> UsageLedger:
    """A ledger with the run's packs (built-in and the user's)."""
    from cachelint.catalog import load_packs

    extra = settings.pack_paths() if settings is not None else ()
    return UsageLedger(
        limits=Limits.from_packs(load_packs("payloads-limits", extra)),
        prices=PriceTable.from_packs(load_packs("payloads-prices", extra)),
    )


def summarize_usage(
    sessions: Iterable[Session], diagnostics: Sequence[Diagnostic] = (), settings: Any = None
) -> dict[str, Any]:
    """The usage and money summary of sessions that still hold their requests."""
    ledger = ledger_for(settings)
    for session in sessions:
        prev: Request | None = None
        for req in session.requests:
            ledger.add(req, prev)
            prev = req
    return ledger.summary(diagnostics)
