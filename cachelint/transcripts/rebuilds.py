"""Rebuilds and cold starts: each call of a thread judged against the previous call of the same
thread, from the usage both report.

A *rebuild* is a call that paid again for tokens the previous call of its thread had cached: on
Anthropic (explicit caching) the previous call cached ``cache_read + cache_creation`` tokens
exactly, so every token of it this call did not read (``cache_read_input_tokens``) and paid for
again (written or billed as input) is rebuilt. On OpenAI (automatic caching) the previous prompt,
once it reached the 1,024-token minimum, is what could have been cached; a read short of it by
less than the 128-token step of the older docs is not counted (``read_step_tokens`` in
rules/packs/payloads-limits.yaml). A rebuild of fewer tokens than the model's minimum cacheable
prompt is ``minor``: counted, not reported as a finding.

A *cold start* is a thread's first call (a session's first turn, a sub-agent's, a resumed
session's, the compaction agent's): nothing of its prefix had been cached by its thread, so
nothing was rebuilt; what it wrote is reported apart.

The cause of a rebuild is read from the transcript, never guessed: the first of ``model.CAUSES``
whose evidence is there (a compaction record, another model, a pause longer than the TTL of what
was cached, another agent version, a resume, changed instructions), else ``unknown`` with what
the transcript does show between the two calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cachelint.payloads.limits import Limits
from cachelint.payloads.model import duration_text, seconds_between
from cachelint.payloads.pricing import Price, PriceTable, break_cost_from_usage
from cachelint.transcripts.codex import INSTRUCTION_FIELDS
from cachelint.transcripts.locations import AGENT_TITLES
from cachelint.transcripts.model import ColdStart, Event, Rebuild, Turn

# How a TTL class reads in a finding. OpenAI documents in-memory retention as 5-10 minutes of
# inactivity (its prompt caching guide); the limits pack keeps the safe 5-minute bound.
TTL_WORDS = {
    "5m": "5-minute",
    "1h": "1-hour",
    "in_memory": "in-memory (5-10 minutes)",
    "24h": "24-hour",
    "implicit": "implicit cache's (undocumented; 5 minutes assumed)",
}


@dataclass
class _Thread:
    last: Turn | None = None
    ttl: str | None = None  # the TTL class of what the thread has cached
    events: list[Event] = field(default_factory=list)  # since its last call
    waited: set[str] = field(default_factory=set)  # sub-agents that made calls since its last call


@dataclass
class RebuildFinder:
    """Feeds calls and events in file order; returns, for each call, its ColdStart or Rebuild (or
    None: the call read what was cached). Per-thread state only: sessions are independent."""

    limits: Limits
    prices: PriceTable
    threads: dict[str, _Thread] = field(default_factory=dict)

    def event(self, event: Event) -> None:
        self.threads.setdefault(event.thread, _Thread()).events.append(event)

    def turn(self, turn: Turn) -> ColdStart | Rebuild | None:
        state = self.threads.setdefault(turn.thread, _Thread())
        if turn.subagent is not None:
            main = self.threads.get(turn.session)
            if main is not None and main.last is not None:
                main.waited.add(turn.subagent)
        prev, events, waited = state.last, state.events, state.waited
        ttl_before = state.ttl
        state.last, state.events, state.waited = turn, [], set()
        state.ttl = self._ttl_after(turn, state.ttl)
        price = self.prices.lookup(turn.model)
        if prev is None:
            return self._cold_start(turn, events, price)
        lost = self._shortfall(prev, turn)
        rewritten = min(lost, turn.usage.written + turn.usage.uncached)
        if rewritten <= 0:
            return None
        gap = seconds_between(prev, turn)
        limits = self.limits.provider(turn.family)
        best_effort = limits is not None and not limits.hits_guaranteed
        cause, because, evidence = cause_of(
            prev, turn, events, gap, ttl_before, self._ttl_seconds(turn, ttl_before), waited, not best_effort
        )
        cost = break_cost_from_usage(rewritten, turn.usage, price)
        minimum = self._minimum(turn)
        return Rebuild(
            turn=turn,
            previous=prev,
            lost=lost,
            rewritten=rewritten,
            kept=turn.usage.read,
            gap=gap,
            ttl=ttl_before,
            cause=cause,
            because=because,
            evidence=evidence,
            money=cost.money,
            currency=price.currency if price is not None else self.prices.currency,
            minor=minimum is not None and rewritten < minimum,
            provider_may_miss=best_effort,
        )

    # --- what was cached ---------------------------------------------------------------------

    def _shortfall(self, prev: Turn, cur: Turn) -> int:
        """Tokens of what the previous call cached that this call did not read."""
        if not prev.usage.one_prompt:
            return 0  # a usage that adds up server-side tool steps is not the prompt's size
        if prev.family == "anthropic":
            return max(0, prev.usage.read + prev.usage.written - cur.usage.read)
        limits = self.limits.provider(prev.family)
        minimum = self._minimum(prev)
        if minimum is not None and prev.usage.prompt < minimum and not prev.usage.read:
            return 0  # below the minimum nothing was cached
        short = prev.usage.prompt - cur.usage.read
        step = limits.read_step_tokens if limits is not None else None
        return short if short >= (step or 1) else 0

    def _minimum(self, turn: Turn) -> int | None:
        found = self.limits.min_cacheable_tokens(turn.family, turn.model)
        if found is not None:
            return found[0]
        limits = self.limits.provider(turn.family)
        return limits.common_min_cacheable_tokens if limits is not None else None

    def _ttl_after(self, turn: Turn, before: str | None) -> str | None:
        """The TTL class of what a thread has cached after this call: the class of its write (a
        write with a 5-minute part leaves a 5-minute tail, Anthropic orders 1h entries first);
        a pure read refreshes what was there at its own class."""
        usage = turn.usage
        if turn.family == "anthropic":
            if usage.written_5m:
                return "5m"
            if usage.written_1h:
                return "1h"
            return before or "5m"
        limits = self.limits.provider(turn.family)
        return before or (limits.default_ttl if limits is not None else None)

    def _ttl_seconds(self, turn: Turn, ttl: str | None) -> int | None:
        limits = self.limits.provider(turn.family)
        return limits.ttl_seconds(ttl) if limits is not None and ttl is not None else None

    def _cold_start(self, turn: Turn, events: list[Event], price: Price | None) -> ColdStart:
        kinds = {e.kind for e in events}
        if turn.subagent_kind == "compaction":
            kind = "compaction-agent-start"
        elif turn.subagent is not None:
            kind = "sub-agent-start"
        elif "resume" in kinds:
            kind = "resumed-session"
        elif "clear" in kinds:
            kind = "after-clear"
        else:
            kind = "session-start"
        usage = turn.usage
        written = usage.written if turn.family == "anthropic" else usage.uncached
        money = None
        if price is not None:
            if turn.family == "anthropic":
                money = price.money(usage.written_5m, price.cache_write_5m) + price.money(
                    usage.written_1h, price.cache_write_1h
                )
            else:
                money = price.money(written, price.input)
        return ColdStart(turn=turn, kind=kind, written=written, money=money)


def cause_of(
    prev: Turn,
    cur: Turn,
    events: list[Event],
    gap: float | None,
    ttl: str | None,
    ttl_seconds: int | None,
    waited: set[str],
    hits_guaranteed: bool = True,
) -> tuple[str, str, tuple[str, ...]]:
    """(cause, why in words, evidence) of a rebuild between two calls of a thread."""
    evidence = [f"{e.describe()} (line {e.line})" for e in events]
    if gap is not None and gap >= 0:
        evidence.append(f"{duration_text(gap)} since the previous call")
    if waited:
        evidence.append("sub-agents ran meanwhile: " + ", ".join(sorted(waited)))
    compactions = [e for e in events if e.kind == "compaction"]
    if compactions:
        return "compaction", f"{compactions[-1].describe()}: the history was replaced by a summary", tuple(evidence)
    rewinds = [e for e in events if e.kind == "rewind"]
    if rewinds:
        return "rewind", f"{rewinds[-1].describe()}: what followed it left the prompt", tuple(evidence)
    if prev.model != cur.model:
        return (
            "model-switch",
            f"model switched from {prev.model} to {cur.model}: the cache is per model",
            tuple(evidence),
        )
    if gap is not None and ttl_seconds is not None and gap > ttl_seconds:
        words = TTL_WORDS.get(ttl or "", ttl or "")
        why = f"{duration_text(gap)} since the previous call, longer than the {words} TTL of what it cached"
        if waited:
            why += f" (the thread waited on {', '.join(sorted(waited))})"
        return "idle-gap", why, tuple(evidence)
    if prev.version and cur.version and prev.version != cur.version:
        return (
            "agent-updated",
            f"{_agent_name(cur)} {prev.version} -> {cur.version}: restarted in another version, whose system prompt and tools differ",
            tuple(evidence),
        )
    resumes = [e for e in events if e.kind == "resume"]
    if resumes:
        return "resume", f"{resumes[-1].describe()}: the history was sent again by a new process", tuple(evidence)
    changed = sorted(
        {f for e in events if e.kind == "settings" for f in e.detail.get("changed", ()) if f in INSTRUCTION_FIELDS}
    )
    if changed:
        return "context-changed", f"the instructions in the prompt changed ({', '.join(changed)})", tuple(evidence)
    shown = "; ".join(e for e in evidence if not e.endswith("since the previous call"))
    why = "nothing in the session file explains it" + (f" (between the calls: {shown})" if shown else "")
    why += f"; the read stopped at {cur.usage.read:,} tokens"
    if cur.usage.one_prompt and prev.usage.one_prompt and cur.usage.prompt < prev.usage.prompt:
        # a conversation's prompt only grows: a shorter one lost part of its history
        why += (
            f"; the prompt shrank from {prev.usage.prompt:,} to {cur.usage.prompt:,} tokens (history cut or summarised)"
        )
    if not hits_guaranteed:
        why += "; this provider's automatic caching promises no hit: the miss may be the provider's"
    return "unknown", why, tuple(evidence)


def _agent_name(turn: Turn) -> str:
    return AGENT_TITLES.get(turn.agent, turn.agent)
