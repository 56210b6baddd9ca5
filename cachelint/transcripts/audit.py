"""The audit of coding-agent session files: files -> readers -> Turns and Events -> RebuildFinder
-> findings (CL313, from the rule modules' ``check_rebuild``) and the summary (per session and per
thread: tokens, hit rate, money, cold starts, rebuilds by cause, advice).

``TranscriptRun`` is fed whole files (``read_files``: parsed file by file, then judged in time
order) or lines as they are appended (``feed``, what ``--follow`` uses): the same judgement either
way. ``summary()`` is plain JSON-light data; the
reporters render it (``cachelint.report.coding_agents``).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.hooks import RuleCheck, rebuild_checks, run_checks
from cachelint.payloads.limits import Limits
from cachelint.payloads.pricing import PriceTable
from cachelint.payloads.spend import tokens_and_money
from cachelint.transcripts import claude_code, codex, gemini_cli, opencode
from cachelint.transcripts.advice import Pause, keepalive_advice, ttl_advice
from cachelint.transcripts.lines import MAX_LINE, LineDecoder, decode_value, open_session_file
from cachelint.transcripts.model import CAUSES, COLD_STARTS, ColdStart, Event, Rebuild, Turn
from cachelint.transcripts.rebuilds import RebuildFinder


# Each coding agent's session-file format -> (whether a parsed line is one of its, its reader for
# a file: display, the API calls already read), in detection order: the narrower line shapes first.
READERS: dict[str, tuple[Callable[[Any], bool], Callable[[str, set[str]], Any]]] = {
    "codex": (codex.matches, lambda display, seen: codex.CodexReader(display)),
    "claude-code": (claude_code.matches, claude_code.ClaudeCodeReader),
    "gemini-cli": (gemini_cli.matches, lambda display, seen: gemini_cli.GeminiCliReader(display)),
    "opencode": (opencode.matches, lambda display, seen: opencode.OpenCodeReader(display)),
}


# A format whose files may also be one JSON document -> its records, in file order.
DOCUMENTS: dict[str, Callable[[Any], list[Any]]] = {"gemini-cli": gemini_cli.document_records}

# An agent that keeps its sessions in a store (a database, a tree of JSON files) rather than in one
# file a session -> the reader of one of its files (path, display, whether the format was forced):
# its records, or None when the file is none of the agent's. Asked before a file is read as lines.
STORES: dict[str, Callable[[Path, str, bool], Any]] = {"opencode": opencode.read_store}


def agent_of(value: Any) -> str | None:
    """The coding agent whose session file a parsed line belongs to, or None."""
    return next((agent for agent, (matches, _reader) in READERS.items() if matches(value)), None)


@dataclass
class _Tally:
    """What the summary keeps of one thread."""

    turn: Turn  # its first call
    turns: int = 0
    read: int = 0
    written: int = 0
    written_5m: int = 0
    written_1h: int = 0
    uncached: int = 0
    money: float = 0.0
    money_without_cache: float = 0.0
    unpriced: int = 0
    models: set[str] = field(default_factory=set)
    cold_start: ColdStart | None = None
    rebuilds: list[Rebuild] = field(default_factory=list)
    minor: list[Rebuild] = field(default_factory=list)
    pauses: list[Pause] = field(default_factory=list)
    last: Turn | None = None
    last_ttl: str | None = None
    timeline: list[dict[str, Any]] = field(default_factory=list)
    hours: dict[int, list[int]] = field(default_factory=dict)  # hours since the epoch (UTC) -> [read, prompt]


@dataclass
class TranscriptRun:
    """One audit of session files. ``checks``: the ``check_rebuild`` hooks of the payload rules
    the run enables (``cachelint.payloads.hooks.rebuild_checks``)."""

    limits: Limits
    prices: PriceTable
    checks: tuple[RuleCheck, ...]
    timeline: bool = False
    finder: RebuildFinder = field(init=False)
    seen_calls: set[str] = field(default_factory=set)
    readers: dict[str, Any] = field(default_factory=dict)  # display -> reader (and its LineDecoder)
    tallies: dict[str, _Tally] = field(default_factory=dict)  # thread -> tally
    diagnostics: list[Diagnostic] = field(default_factory=list)
    file_agents: dict[str, str] = field(default_factory=dict)  # display -> the agent whose session file it is
    lines_read: int = 0  # lines of the files read whole (those followed count in their decoders)
    turns: int = 0

    def __post_init__(self) -> None:
        self.finder = RebuildFinder(self.limits, self.prices)

    @property
    def records(self) -> int:
        """Lines read (the lines no question needs are counted too, not decoded)."""
        return self.lines_read + sum(entry[0].record for entry in self.readers.values())

    @property
    def files(self) -> dict[str, int]:
        """Files read per agent."""
        out: dict[str, int] = {}
        for agent in self.file_agents.values():
            out[agent] = out.get(agent, 0) + 1
        return out

    # --- reading ------------------------------------------------------------------------------

    def read_files(
        self, files: Iterable[tuple[Path, str, str | None]], jobs: int | None = 1, threshold: int | None = None
    ) -> list[Rebuild | ColdStart]:
        """Read whole session files (path, display, forced format or None): parsed file by file
        (in ``jobs`` worker processes when there is enough to read), then judged. A session's
        threads may sit in several files (Claude Code writes each sub-agent in its own): every
        thread's calls and events are judged in the order of their times, each thread in its file
        order, so that a pause of the main thread knows which sub-agents ran meanwhile. A call
        found in two files (a resumed session starts with its parent's lines) is judged once, in
        the first."""
        threads: dict[str, list[tuple[float, int, Turn | Event]]] = {}
        seq = 0
        for parsed in parse_files(list(files), jobs, PARALLEL_BYTES if threshold is None else threshold):
            self.diagnostics.extend(parsed.diagnostics)
            self.lines_read += parsed.records
            if parsed.agent is not None:
                self.file_agents[parsed.display] = parsed.agent
            last_time = 0.0
            for item in parsed.items:
                if isinstance(item, Turn) and item.call is not None:
                    if item.call in self.seen_calls:
                        continue
                    self.seen_calls.add(item.call)
                if item.time is not None:
                    last_time = item.time.timestamp()
                threads.setdefault(item.thread, []).append((last_time, seq, item))
                seq += 1
        found: list[Rebuild | ColdStart] = []
        # heapq.merge keeps each thread's own order whatever its times (a clock that steps back)
        for _time, _seq, item in heapq.merge(*(threads[t] for t in sorted(threads)), key=lambda e: (e[0], e[1])):
            judged = self.judge(item)
            if judged is not None:
                found.append(judged)
        return found

    def feed(self, display: str, raw: bytes, agent: str | None = None) -> list[Rebuild | ColdStart]:
        """One line of a session file, judged at once (what ``--follow`` does as lines come)."""
        found = []
        for item in self.parse(display, raw, agent):
            judged = self.judge(item)
            if judged is not None:
                found.append(judged)
        return found

    def judge(self, item: Turn | Event) -> Rebuild | ColdStart | None:
        if isinstance(item, Event):
            self.finder.event(item)
            return None
        return self._turn(item)

    def parse(self, display: str, raw: bytes, agent: str | None = None) -> list[Turn | Event]:
        """The Turns and Events of one line of a session file (files are parsed line by line, in order)."""
        entry = self._entry(display)
        decoded = entry[0].decode(raw, entry[1].wanted if entry[1] is not None else None)
        return [] if decoded is None else self._items(entry, decoded, agent)

    def _entry(self, display: str) -> list[Any]:
        """[the file's LineDecoder, its reader (None until its first line says which agent)]."""
        entry = self.readers.get(display)
        if entry is None:
            entry = self.readers[display] = [LineDecoder(display), None]
        return entry

    def _items(
        self, entry: list[Any], decoded: tuple[int, int, Any] | Diagnostic, agent: str | None
    ) -> list[Turn | Event]:
        reader = entry[1]
        display = entry[0].display
        if isinstance(decoded, Diagnostic):
            self.diagnostics.append(decoded)
            return []
        line, record, value = decoded
        if reader is None:
            kind = agent or agent_of(value)
            if kind is None:
                return []  # a line before the first one an agent wrote (another tool's line)
            reader = entry[1] = new_reader(kind, display, self.seen_calls)
            self.file_agents[display] = kind
        return reader.feed(value, line, record)

    def _turn(self, turn: Turn) -> Rebuild | ColdStart | None:
        self.turns += 1
        state = self.finder.threads.get(turn.thread)
        ttl_before = state.ttl if state is not None else None
        found = self.finder.turn(turn)
        tally = self.tallies.get(turn.thread)
        if tally is None:
            tally = self.tallies[turn.thread] = _Tally(turn)
        self._count(tally, turn, found, ttl_before)
        if isinstance(found, Rebuild):
            run_checks(self.diagnostics, self.checks, turn, (found,))
        return found

    def _count(self, tally: _Tally, turn: Turn, found: Rebuild | ColdStart | None, ttl_before: str | None) -> None:
        usage = turn.usage
        tally.turns += 1
        tally.read += usage.read
        tally.written += usage.written
        tally.written_5m += usage.written_5m
        tally.written_1h += usage.written_1h
        tally.uncached += usage.uncached
        if turn.model:
            tally.models.add(turn.model)
        price = self.prices.lookup(turn.model)
        if price is None:
            tally.unpriced += 1
        else:
            tally.money += price.prompt_cost(usage)
            tally.money_without_cache += price.uncached_cost(usage)
        if isinstance(found, ColdStart):
            tally.cold_start = found
        elif isinstance(found, Rebuild):
            (tally.minor if found.minor else tally.rebuilds).append(found)
        prev = tally.last
        if prev is not None and prev.time is not None and turn.time is not None:
            limits = self.limits.provider(turn.family)
            seconds = limits.ttl_seconds(ttl_before) if limits is not None and ttl_before else None
            try:
                gap = (turn.time - prev.time).total_seconds()
            except TypeError:
                gap = None
            if gap is not None and gap >= 0 and seconds:
                rebuilt = found.rewritten if isinstance(found, Rebuild) and found.cause == "idle-gap" else 0
                tally.pauses.append(Pause(gap, _cached(prev), rebuilt, ttl_before or "", seconds))
        if turn.time is not None:
            slot = tally.hours.setdefault(int(turn.time.timestamp() // 3600), [0, 0])
            slot[0] += usage.read
            slot[1] += usage.prompt
        tally.last = turn
        tally.last_ttl = self.finder.threads[turn.thread].ttl
        if self.timeline:
            tally.timeline.append(
                {
                    "line": turn.line,
                    "time": turn.time.isoformat() if turn.time else None,
                    "model": turn.model,
                    "read": usage.read,
                    "written": usage.written,
                    "uncached": usage.uncached,
                    "rebuild": found.cause if isinstance(found, Rebuild) else None,
                    "cold_start": found.kind if isinstance(found, ColdStart) else None,
                }
            )

    # --- the summary --------------------------------------------------------------------------

    def summary(self, kept: Iterable[Diagnostic] | None = None) -> dict[str, Any]:
        """Per session (its threads), the causes, the cold starts, the hit rate by hour, the
        advice and the totals. ``kept``: the findings reported (selection, baseline): a rebuild
        whose finding was left out is left out of the money by cause too."""
        reported = None if kept is None else {(d.path, d.line) for d in kept if d.code == "CL313"}
        sessions: dict[tuple[str, str], list[_Tally]] = {}
        for thread in sorted(self.tallies):
            tally = self.tallies[thread]
            sessions.setdefault((tally.turn.agent, tally.turn.session), []).append(tally)
        out_sessions = []
        causes: dict[str, dict[str, Any]] = {}
        colds: dict[str, dict[str, Any]] = {}
        hours: dict[int, list[int]] = {}
        for (agent, session), tallies in sorted(sessions.items()):
            tallies.sort(key=_thread_order)
            out_sessions.append(self._session(agent, session, tallies, reported))
            for t in tallies:
                for r in t.rebuilds + t.minor:
                    if reported is not None and not r.minor and (r.turn.path, r.turn.line) not in reported:
                        continue
                    entry = causes.setdefault(r.cause, {"rebuilds": 0, "minor": 0, "tokens": 0, "money": 0.0})
                    entry["minor" if r.minor else "rebuilds"] += 1
                    entry["tokens"] += r.rewritten
                    entry["money"] += r.money or 0.0
                if t.cold_start is not None:
                    c = colds.setdefault(t.cold_start.kind, {"count": 0, "tokens": 0, "money": 0.0})
                    c["count"] += 1
                    c["tokens"] += t.cold_start.written
                    c["money"] += t.cold_start.money or 0.0
        for tally in self.tallies.values():
            for hour, (read, prompt) in tally.hours.items():
                slot = hours.setdefault(hour, [0, 0])
                slot[0] += read
                slot[1] += prompt
        totals = _totals(out_sessions)
        return {
            "agents": dict(sorted(self.files.items())),
            "prices_as_of": self.prices.as_of,
            "currency": self.prices.currency,
            "sessions": out_sessions,
            "causes": {
                c: {**v, "money": round(v["money"], 6)}
                for c, v in sorted(causes.items(), key=lambda kv: CAUSES.index(kv[0]))
            },
            "cold_starts": {
                k: {**v, "money": round(v["money"], 6)}
                for k, v in sorted(colds.items(), key=lambda kv: COLD_STARTS.index(kv[0]))
            },
            "hit_rate_by_hour": [
                {
                    "hour": datetime.fromtimestamp(hour * 3600, tz=timezone.utc).strftime("%Y-%m-%dT%H"),
                    "read": read,
                    "prompt": prompt,
                    "hit_rate": round(read / prompt, 4) if prompt else None,
                }
                for hour, (read, prompt) in sorted(hours.items())
            ],
            "total": totals,
        }

    def _session(
        self, agent: str, session: str, tallies: list[_Tally], reported: set[tuple[str, int]] | None
    ) -> dict[str, Any]:
        threads = [self._thread(t, reported) for t in tallies]
        main = tallies[0]
        advice: dict[str, Any] = {}
        for name in ("ttl_1h", "keepalive"):
            found = [t["advice"][name] for t in threads if name in t.get("advice", {})]
            if found:
                net = round(sum(a["net"] for a in found), 6)
                advice[name] = {"threads": len(found), "net": net, "pays": net > 0}
        return {
            "id": session,
            "agent": agent,
            "path": main.turn.path,
            "first": f"{main.turn.path}:{main.turn.line}",
            "turns": sum(t["turns"] for t in threads),
            "threads": threads,
            **tokens_and_money(threads),
            "rebuilds": sum(t["rebuilds"]["count"] for t in threads),
            "rebuild_tokens": sum(t["rebuilds"]["tokens"] for t in threads),
            "rebuild_money": round(sum(t["rebuilds"]["money"] for t in threads), 6),
            "minor_rebuilds": sum(t["minor_rebuilds"]["count"] for t in threads),
            "advice": advice,
        }

    def _thread(self, tally: _Tally, reported: set[tuple[str, int]] | None) -> dict[str, Any]:
        turn = tally.turn
        prompt = tally.read + tally.written + tally.uncached
        rebuilds = [r for r in tally.rebuilds if reported is None or (r.turn.path, r.turn.line) in reported]
        by_cause: dict[str, int] = {}
        for r in rebuilds:
            by_cause[r.cause] = by_cause.get(r.cause, 0) + 1
        cold = tally.cold_start
        out: dict[str, Any] = {
            "id": turn.thread,
            "subagent": turn.subagent,
            "kind": turn.subagent_kind or "main",
            "path": turn.path,
            "first_line": turn.line,
            "models": sorted(tally.models),
            "turns": tally.turns,
            "tokens": {"read": tally.read, "written": tally.written, "uncached": tally.uncached, "prompt": prompt},
            "hit_rate": round(tally.read / prompt, 4) if prompt else None,
            "money": round(tally.money, 6) if tally.turns > tally.unpriced else None,
            "money_without_cache": round(tally.money_without_cache, 6) if tally.turns > tally.unpriced else None,
            "turns_unpriced": tally.unpriced,
            "cold_start": None
            if cold is None
            else {
                "kind": cold.kind,
                "line": cold.turn.line,
                "tokens": cold.written,
                "read": cold.turn.usage.read,
                "money": None if cold.money is None else round(cold.money, 6),
            },
            # each rebuild is a CL313 finding (its session is this thread's id): counted here
            "rebuilds": {
                "count": len(rebuilds),
                "tokens": sum(r.rewritten for r in rebuilds),
                "money": round(sum(r.money or 0.0 for r in rebuilds), 6),
                "by_cause": dict(sorted(by_cause.items(), key=lambda kv: CAUSES.index(kv[0]))),
            },
            "minor_rebuilds": {
                "count": len(tally.minor),
                "tokens": sum(r.rewritten for r in tally.minor),
                "money": round(sum(r.money or 0.0 for r in tally.minor), 6),
            },
        }
        advice = self._advice(tally)
        if advice:
            out["advice"] = advice
        if self.timeline:
            out["timeline"] = list(tally.timeline)
        return out

    def _advice(self, tally: _Tally) -> dict[str, Any]:
        """The 1-hour TTL and keep-alive verdicts of one thread, from its own pauses."""
        price = self.prices.lookup(tally.last.model if tally.last is not None else tally.turn.model)
        out: dict[str, Any] = {}
        if price is None:
            return out
        if tally.turn.family == "anthropic":
            found = ttl_advice(tally.pauses, tally.written_5m, tally.written_1h, price)
            if found is not None:
                out["ttl_1h"] = found
        writes = price.cache_write_5m if tally.turn.family == "anthropic" else price.input
        if tally.written_1h and not tally.written_5m:
            writes = price.cache_write_1h
        end = [(_cached(tally.last), tally.last_ttl or "", 0)] if tally.last is not None else []
        found = keepalive_advice(tally.pauses, end, price, writes)
        if found is not None:
            out["keepalive"] = found
        return out


def new_reader(agent: str, display: str, seen_calls: set[str]) -> Any:
    return READERS[agent][1](display, seen_calls)


@dataclass
class ParsedFile:
    """One session file's Turns and Events, in file order, as ``parse_file`` read them."""

    display: str
    agent: str | None
    records: int
    items: list[Turn | Event]
    diagnostics: list[Diagnostic]


def parse_file(path: Path, display: str, agent: str | None = None) -> ParsedFile:
    """Read one session file into its Turns and Events (what a worker process runs). The loop
    every line of every file goes through: most lines are only told from their first bytes
    (``reader.wanted``) and counted. A store's file (``STORES``) is read by its agent's reader."""
    for store_agent, read_store in STORES.items():
        if agent in (None, store_agent):
            store = read_store(path, display, agent == store_agent)
            if store is not None:
                return _parse_store(store_agent, display, store.records, store.diagnostics)
    reader: Any = None
    wanted: Callable[[bytes], bool] | None = None
    items: list[Turn | Event] = []
    diagnostics: list[Diagnostic] = []
    line = record = 0
    try:
        with open_session_file(path) as handle:
            for raw in handle:
                line += 1
                if wanted is not None and raw[:1] == b"{":
                    record += 1
                    if not wanted(raw):
                        continue  # a line the reader has no use for (most): counted only
                elif not raw or raw.isspace():
                    continue
                else:
                    record += 1
                    if wanted is not None and not wanted(raw.lstrip()):
                        continue
                decoded = decode_value(raw, display, line, record - 1)
                if isinstance(decoded, Diagnostic) and reader is None and record == 1:
                    # not JSON lines from the start: a whole JSON document (an older Gemini CLI
                    # session file) or no session file at all, said once
                    return _parse_document(path, display, agent)
                if isinstance(decoded, Diagnostic):
                    diagnostics.append(decoded)
                    continue
                value = decoded[2]
                if reader is None:
                    kind = agent or agent_of(value)
                    if kind is None:
                        continue  # a line before the first one an agent wrote (another tool's line)
                    agent, reader = kind, new_reader(kind, display, set())
                    wanted = reader.wanted
                items.extend(reader.feed(value, line, record - 1))
    except (OSError, EOFError) as exc:
        diagnostics.append(unreadable(display, f"cannot read session file: {exc}"))
    return ParsedFile(display, agent if reader is not None else None, record, items, diagnostics)


def _parse_document(path: Path, display: str, agent: str | None) -> ParsedFile:
    """A session file written as one JSON document, read with its agent's ``document_records``."""
    try:
        with open_session_file(path) as handle:
            raw = handle.read(MAX_LINE + 1)
    except (OSError, EOFError) as exc:
        return ParsedFile(display, None, 0, [], [unreadable(display, f"cannot read session file: {exc}")])
    value: Any = None
    if len(raw) <= MAX_LINE:
        decoded = decode_value(raw, display, 1, 0)
        value = None if isinstance(decoded, Diagnostic) else decoded[2]
    kind = agent_of(value) if value is not None else None
    expand = DOCUMENTS.get(kind) if kind is not None else None
    if value is None or kind is None or expand is None or (agent is not None and agent != kind):
        why = (
            f"larger than {MAX_LINE:,} bytes"
            if len(raw) > MAX_LINE
            else "not JSON lines, nor a session document cachelint reads"
        )
        return ParsedFile(
            display, None, 1, [], [unreadable(display, f"session file {why}: not read", line=1, record=0)]
        )
    reader = new_reader(kind, display, set())
    items: list[Turn | Event] = []
    records = expand(value)
    for index, record in enumerate(records):
        items.extend(reader.feed(record, 1, index))
    return ParsedFile(display, kind, len(records), items, [])


def _parse_store(agent: str, display: str, records: list[Any] | None, diagnostics: list[Diagnostic]) -> ParsedFile:
    """A store's records through its agent's reader; a record's line is its 1-based place. No
    records (None): the file is read through another one (an OpenCode message file, through its
    session's)."""
    if records is None:
        return ParsedFile(display, None, 0, [], diagnostics)
    reader = new_reader(agent, display, set())
    items: list[Turn | Event] = []
    for index, record in enumerate(records):
        items.extend(reader.feed(record, index + 1, index))
    return ParsedFile(display, agent, len(records), items, diagnostics)


def _parse_file_task(task: tuple[Path, str, str | None]) -> ParsedFile:
    return parse_file(*task)


# Below this many bytes of session files a run parses them in one process: starting workers costs
# more than it saves (the same threshold as the JSONL audit's chunk size, docs/scale.md).
PARALLEL_BYTES = 32 << 20


def parse_files(files: list[tuple[Path, str, str | None]], jobs: int | None, threshold: int) -> Iterator[ParsedFile]:
    """Every file parsed, in the order given: in ``jobs`` worker processes (None: the CPUs) when
    there are more than ``threshold`` bytes to read, else here. The same result either way."""
    total = 0
    for path, _display, _agent in files:
        try:
            total += path.stat().st_size
        except OSError:
            pass  # parse_file says why it cannot be read
    if jobs is None and total >= threshold:
        from cachelint.payloads.parallel import default_jobs  # not imported by a small run

        jobs = default_jobs()
    if jobs is None or jobs <= 1 or len(files) < 2 or total < threshold:
        for task in files:
            yield parse_file(*task)
        return
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor

    # fork on Linux: workers start at once with the modules already imported
    context = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
    with ProcessPoolExecutor(min(jobs, len(files)), mp_context=context) as pool:
        yield from pool.map(_parse_file_task, files, chunksize=max(1, len(files) // (jobs * 8)))


def _thread_order(tally: _Tally) -> tuple[bool, float, str]:
    """The main thread first, then the sub-agents by their first call's time."""
    time = tally.turn.time.timestamp() if tally.turn.time is not None else 0.0
    return (tally.turn.subagent is not None, time, tally.turn.thread)


def _cached(turn: Turn | None) -> int:
    """What a call left in the cache: exact on Anthropic, the prompt on OpenAI."""
    if turn is None:
        return 0
    usage = turn.usage
    return usage.read + usage.written if turn.family == "anthropic" else usage.prompt


def _totals(sessions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "sessions": len(sessions),
        "threads": sum(len(s["threads"]) for s in sessions),
        "turns": sum(s["turns"] for s in sessions),
        **tokens_and_money(sessions),
        "rebuilds": sum(s["rebuilds"] for s in sessions),
        "rebuild_money": round(sum(s["rebuild_money"] for s in sessions), 6),
        "minor_rebuilds": sum(s["minor_rebuilds"] for s in sessions),
    }


def new_run(settings: Any, timeline: bool = False, enabled: frozenset[str] | None = None) -> TranscriptRun:
    """A run with the packs of ``settings`` (built-in and the user's). ``enabled``: the codes of
    the rules to run (None: all)."""
    from cachelint.catalog import load_packs

    extra = settings.pack_paths() if settings is not None else ()
    return TranscriptRun(
        limits=Limits.from_packs(load_packs("payloads-limits", extra)),
        prices=PriceTable.from_packs(load_packs("payloads-prices", extra)),
        checks=rebuild_checks(enabled),
        timeline=timeline,
    )
