"""The audit pipeline: logs -> records -> requests -> sessions -> pair diffs -> checks -> usage and
money -> summary, in one object per run.

``AuditPipeline.run`` reads every log with its format (``cachelint.payloads.formats``), in file
order, and each record takes the same steps whoever read it: this process, or the worker processes
and Dask tasks of a parallel run (``cachelint.payloads.parallel``), which read JSONL ranges and
build the requests with the same ``RequestBuilder`` (``cachelint.payloads.records``), then hand
them back, renumbered, in file order (``take_request``, ``take_skipped``, ``take_diagnostic``,
``file_done``). So the findings and the summary are those of one process, byte for byte.

Streaming: records are read one at a time, each request is compared with the previous request of
its session as it arrives and then shares that request's unchanged blocks, and sessions idle for
``session-window`` records are closed (their session checks run, their requests are dropped), so
memory follows the open sessions, not the log. A closed session's report entry and usage entry
are made as it closes, masked, and handed to ``SessionReports`` (which keeps them in a temporary
file past a bound), unless a finding at one of its requests reports a break or a lost cache: the
selection at the run's end decides whether that finding counts, so those few sessions wait for it.
"""

from __future__ import annotations

import operator
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic
from cachelint.payloads import AuditOptions, AuditResult, AuditSummary, BreakDetail, SessionReport
from cachelint.payloads.causes import BreakCosts, add_break_costs, group_causes
from cachelint.payloads.context import CheckContext
from cachelint.payloads.diff import InvalidationTable, VolatilePatterns, prefix_diff
from cachelint.payloads.endpoints import EndpointRules
from cachelint.payloads.formats.registry import get as get_format
from cachelint.payloads.formats.registry import read_log
from cachelint.payloads.formats.run import FormatRun
from cachelint.payloads.hooks import (
    change_only_pair_checks,
    checks_for,
    first_only_request_checks,
    lost_cache_codes,
    pair_checks,
    prefix_break_codes,
    provider_miss_codes,
    rejected_request_checks,
    request_checks,
    run_checks,
    run_end_checks,
    session_checks,
)
from cachelint.payloads.limits import Limits, limits_for
from cachelint.payloads.model import TIERS, Origin, PrefixDiff, Record, Request, Session
from cachelint.payloads.providers import failure_of
from cachelint.payloads.readers import ReadLimits, iter_log_files
from cachelint.payloads.records import RequestBuilder, record_problem
from cachelint.payloads.secrets import Redactor
from cachelint.masking import masker
from cachelint.payloads.session_reports import SessionReports
from cachelint.payloads.sessions import GROUPING_TEXT, SessionGrouper, SessionKeys, longest_lifetime

DEFAULT_SESSION_WINDOW = 1000
MAX_BREAKS_SHOWN = 20


Selection = Callable[[Sequence[Diagnostic]], list[Diagnostic]]


class FileFeed(Protocol):
    """Logs read elsewhere (the worker processes or Dask tasks of ``cachelint.payloads.parallel``)
    whose records the feed hands to the pipeline, in file order, when the run comes to them."""

    def takes(self, display: str) -> bool: ...

    def audit_file(self, pipeline: "AuditPipeline", display: str) -> None: ...

    def close(self) -> None: ...


# Starts the feed of a run's logs once they are listed and their formats known; None: every log is
# read in this process.
FeedStarter = Callable[["AuditPipeline", Sequence[tuple[Path, str]]], "FileFeed | None"]


# Texts masked in a run, kept for the next entries (a path recurs in every session) up to this many.
_MASK_MEMO_SIZE = 10_000


@dataclass
class _SessionState:
    """What the summary keeps of a session until its entry is made: while it is open, and once
    closed while a finding at one of its requests waits for the run's selection."""

    session: Session
    breaks: list[BreakDetail] = field(default_factory=list)
    first: str = ""
    # (path, record) of every break, the first MAX_BREAKS_SHOWN of them detailed in ``breaks``
    break_records: list[tuple[str, int]] = field(default_factory=list)
    records: list[tuple[str, int]] = field(default_factory=list)  # (path, record) of each request
    ctx: CheckContext | None = None  # the checks' context for this session, made at its first request


@dataclass(frozen=True)
class _CheckSets:
    """The checks to call: every one (first request of a session, a pair that changed) or only
    those that can find something after the first request / on a quiet pair."""

    first_request: tuple[Any, ...]
    later_request: tuple[Any, ...]
    changed_pair: tuple[Any, ...]
    quiet_pair: tuple[Any, ...]

    @classmethod
    def of(cls, fast_paths: bool, enabled: frozenset[str] | None = None) -> "_CheckSets":
        """A rule declared ``request_first_only`` or ``pair_needs_change``
        (cachelint.rules.declarations) returns nothing on a later request or a quiet pair, so it
        is not called there; ``fast_paths=False`` calls every check everywhere (the equivalence
        tests compare both). ``enabled``: the codes of the rules to run (None: all)."""
        first = request_checks(enabled)
        changed = pair_checks(enabled)
        first_only = set(first_only_request_checks(enabled)) if fast_paths else set()
        change_only = set(change_only_pair_checks(enabled)) if fast_paths else set()
        return cls(
            first,
            tuple(c for c in first if c not in first_only),
            changed,
            tuple(c for c in changed if c not in change_only),
        )

    def at(self, fidelity: str) -> "_CheckSets":
        """The same four for requests read from logs that keep less than the wire request
        (content, usage): only the checks their fidelity supports (a rule's declared fidelity)."""
        return _CheckSets(
            *(
                checks_for(fidelity, c)
                for c in (self.first_request, self.later_request, self.changed_pair, self.quiet_pair)
            )
        )


class AuditPipeline:
    """One audit run, from the settings and options: its packs, the record-to-request step, the
    session grouper, the pair diff's tables, the checks and their context, the usage ledger, and
    what the summary counts."""

    def __init__(self, settings: Settings, options: AuditOptions, enabled: frozenset[str] | None = None) -> None:
        from cachelint.catalog import load_packs

        extra = settings.pack_paths()
        audit_options = dict(settings.section("audit"))
        self.settings = settings
        self.options = options
        self.enabled = enabled  # the codes of the rules to run (None: all)
        self.ctx = CheckContext(settings=settings, options=audit_options)
        self.redactor = Redactor.from_packs(load_packs("payloads-secrets", extra))
        self.rules = EndpointRules.from_packs(load_packs("payloads-providers", extra))
        self.table = InvalidationTable.from_packs(load_packs("payloads-invalidation", extra))
        self.volatile = VolatilePatterns.from_packs(load_packs("payloads-volatile", extra))
        self.grouper = SessionGrouper(
            SessionKeys.from_packs(load_packs("payloads-session-keys", extra)),
            window=int(audit_options.get("session-window", DEFAULT_SESSION_WINDOW)),
            lifetime=longest_lifetime(limits_for(self.ctx)),
            volatile=self.volatile,
        )
        self.time_field: str | None = options.time_field or audit_options.get("time-field") or None
        self.builder = RequestBuilder(self.rules, self.time_field)
        self.limits = ReadLimits.from_options(audit_options)
        self.formats = FormatRun(options.input_format, self.limits, _marker_caching(limits_for(self.ctx)))
        try:
            from cachelint.payloads.spend import UsageTotals, ledger_for

            self.ledger: Any = ledger_for(settings)
            self.usage_totals: Any = UsageTotals(provider_miss_codes())
        except ImportError:  # the usage & money part is optional for the byte audit
            self.ledger = self.usage_totals = None
        self.usage_error: Exception | None = None  # why the usage summary could not be made
        self.checks = _CheckSets.of(options.fast_paths, enabled)
        self.fidelity_checks = {fidelity: self.checks.at(fidelity) for fidelity in ("content", "usage")}
        self.progress: Any = None  # cachelint.progress.Progress, set by run
        self.diagnostics: list[Diagnostic] = []
        # the sessions whose entries are not made yet (open, or waiting for the selection)
        self.sessions: dict[str, _SessionState] = {}
        self.reports = SessionReports()  # the entries made, masked, in session order
        # (path, record) of the findings that report a break or a lost cache, read from
        # ``diagnostics`` up to ``_scanned``: a session with one waits for the selection
        self._selected_later: set[tuple[str, int]] = set()
        self._selection_codes = prefix_break_codes() | lost_cache_codes()
        self._scanned = 0
        self._masker = masker(settings.pack_paths())
        self._mask_memo: dict[str, str] = {}
        self.records = 0
        self.requests = 0
        self.skipped = 0
        self.failed = 0
        self.files = 0
        self.times: dict[str, list[int]] = {}  # file -> [requests without a time, with one]
        self.format_counts: dict[str, int] = {}  # files a record was read from, per format
        self.files_without_records = 0
        self.unread: dict[str, int] = {}  # records of LLM log shapes not read, per shape
        # the coding agents' session files (path -> display, format) and their audit
        # (cachelint.transcripts.audit.TranscriptRun), when the run has any
        self.agent_logs: dict[Path, tuple[str, str]] = {}
        self.agents: Any = None
        # --since / --until: the requests outside the window are left out (counted, and those
        # without a time kept and counted); None when neither is given
        self.window: Any = None
        if options.since or options.until:
            from cachelint.payloads.readers.storage import TimeWindow

            self.window = TimeWindow.parse(options.since, options.until)
        self.outside_window = 0
        self.untimed_in_window = 0

    # --- the run ---------------------------------------------------------------------------------

    def run(
        self, paths: Sequence[str], cwd: Path, select: Selection | None = None, feed: FeedStarter | None = None
    ) -> AuditResult:
        """Audit the logs under ``paths``. ``select``: the findings to report out of all the
        checks found (selection, baseline); it runs before the summary is made, so that a finding
        left out is left out of the session reports, the break counts and the money too.
        ``feed``: starts the reading of some logs elsewhere (``parallel.start_feed``)."""
        self.read_all(paths, cwd, feed)
        return self.finish(select)

    def read_all(self, paths: Sequence[str], cwd: Path, start_feed: FeedStarter | None = None) -> None:
        """Every log under ``paths`` through the pipeline, in file order: the logs the feed
        ``start_feed`` starts takes (JSONL logs read by worker processes) from it, the rest read
        here."""
        from cachelint.payloads.readers.storage import Staging, TimeWindow, is_remote, staging_root

        staging = Staging(staging_root()) if any(is_remote(p) for p in paths) else None
        try:
            window = self.window if self.window is not None else TimeWindow()
            # a listing only (the bar needs the total); objects in storage are copied here
            self._read_items(list(iter_log_files(list(paths), cwd, staging, window)), start_feed)
        finally:
            if staging is not None:
                staging.close()

    def _read_items(self, items: list[tuple[Path, str] | Diagnostic], start_feed: FeedStarter | None) -> None:
        from cachelint.progress import Progress, file_size

        logs = [item for item in items if not isinstance(item, Diagnostic)]
        self.progress = Progress(sum(file_size(p) for p, _ in logs), len(logs), enabled=self.options.progress)
        self.formats.plan(logs)
        items = self.formats.recorded_order(items, self.redactor)
        logs = [item for item in items if not isinstance(item, Diagnostic)]
        self.agent_logs = self._agent_sessions(logs)
        for path, display in logs:  # batch results first: their usage joins requests of other files
            if display in self.formats.side:
                self.diagnostics.extend(self.formats.read_side(path, display, self.redactor))
        requests = [log for log in logs if log[0] not in self.agent_logs]
        # None: all read here (one process asked for, or only session files)
        feed = start_feed(self, requests) if start_feed is not None and requests else None
        try:
            for item in items:
                if isinstance(item, Diagnostic):
                    self.diagnostics.append(item)
                    continue
                path, display = item
                self.files += 1
                if path in self.agent_logs:
                    pass  # read together at the end: a session's threads may sit in several files
                elif feed is not None and feed.takes(display):
                    feed.audit_file(self, display)
                elif display not in self.formats.side:
                    self.read_file(path, display)
                self.close_sessions(self.grouper.close_scope(display))
                self.progress.file_done(file_size(path))
        finally:
            if feed is not None:
                feed.close()
        self.progress.close()

    def finish(self, select: Selection | None = None) -> AuditResult:
        """Close every session, run the checks of the run's end, select, and summarise."""
        try:
            self.close_sessions(self.grouper.close_all())
            if self.agents is not None:
                self._audit_agent_sessions()
            self.diagnostics.extend(self.formats.unjoined())
            run_checks(self.diagnostics, run_end_checks(self.enabled), None, (self.ctx,))
            kept = select(self.diagnostics) if select is not None else list(self.diagnostics)
            # the summary repeats the excerpts of the breaks: masked like the findings
            # (engine.finalize); the sessions' entries were masked as they were made
            summary = self._masker.mask_value(self.summary(kept))
        except BaseException:
            self.reports.close()
            raise
        return AuditResult(diagnostics=kept, summary=summary)

    # --- a coding agent's session files -------------------------------------------------------

    def _agent_sessions(self, logs: Sequence[tuple[Path, str]]) -> dict[Path, tuple[str, str]]:
        """path -> (display, format name) of the files that are a coding agent's sessions (Claude
        Code, Codex CLI): they are audited whole by ``cachelint.transcripts``, not read as
        requests."""
        found = {}
        for path, display in logs:
            fmt = get_format(self.formats.format_of(display))
            if fmt is not None and fmt.agent_sessions:
                found[path] = (display, fmt.name)
        if found:
            from cachelint.transcripts.audit import new_run

            self.agents = new_run(self.settings, timeline=self.options.timeline, enabled=self.enabled)
        return found

    def _audit_agent_sessions(self) -> None:
        """The coding-agent session files, read and judged together (``cachelint.transcripts``)."""
        forced = self.options.input_format != "auto"
        # one process unless asked: on a shared 2-core machine worker processes cost more than they
        # saved (docs/coding-agents.md, "Compared with the transcript auditors on PyPI")
        jobs = self.options.jobs or int(self.settings.section("audit").get("jobs", 0)) or 1
        files = [(path, display, name if forced else None) for path, (display, name) in self.agent_logs.items()]
        self.agents.read_files(files, jobs if self.options.engine == "local" else 1)
        for _path, (display, name) in self.agent_logs.items():
            if display in self.agents.file_agents:
                self.format_counts[name] = self.format_counts.get(name, 0) + 1
            else:
                self.files_without_records += 1
        self.diagnostics.extend(self.agents.diagnostics)

    # --- reading ----------------------------------------------------------------------------------

    def read_file(self, path: Path, display: str) -> None:
        """One log, read here with its format, every record through the pipeline."""
        progress = self.progress if self.progress is not None and self.progress.enabled else None
        position: list[Any] | None = [] if progress is not None else None
        files_read: list[str] = []
        items = read_log(
            path,
            display,
            self.formats.format_of(display),
            self.redactor,
            self.limits,
            reuse=self.options.incremental,
            position=position,
            formats=files_read,
            joins=self.formats.joins,
        )
        before = self.records
        try:
            for item in items:
                if isinstance(item, Diagnostic):
                    self.take_diagnostic(item)
                    continue
                if progress is not None:
                    progress.records_seen(self.records + 1, _tell(position))
                item, req = self.builder.build(item)
                if isinstance(req, Diagnostic):
                    self.take_record_problem(req)
                elif req is None:
                    self.take_skipped(item.origin, *self.builder.unread(item))
                else:
                    self.take_request(req, item)
        finally:
            self.file_done(display, files_read[0] if files_read else None, self.records > before)

    def file_done(self, display: str, format_name: str | None, read_records: bool) -> None:
        """A file read to its end: counted under its format when a record was read from it."""
        if read_records and format_name is not None:
            self.format_counts[format_name] = self.format_counts.get(format_name, 0) + 1
        else:
            self.files_without_records += 1
        self.diagnostics.extend(self.formats.file_done(display))

    def take_diagnostic(self, diagnostic: Diagnostic) -> None:
        """A finding of a reader (a record it could not read, a file it could not open)."""
        self.diagnostics.append(diagnostic)

    def take_record_problem(self, diagnostic: Diagnostic) -> None:
        """A record that was read but could not be interpreted as a request."""
        self.records += 1
        self.diagnostics.append(diagnostic)

    def take_skipped(self, origin: Origin, shape: str | None, reason: str | None) -> None:
        """A record no provider adapter took: an unread shape of LLM log, or not an LLM call."""
        self.records += 1
        if shape is None:
            self.skipped += 1
        else:
            self.unread[shape] = self.unread.get(shape, 0) + 1
        self.formats.note_unread(origin, reason)

    # --- requests, sessions, pairs ---------------------------------------------------------------

    def take_request(self, req: Request, record: Record) -> None:
        """A request built from a record, through its session, the checks and the ledger."""
        self.records += 1
        self.formats.complete(req, record)
        if self.window is not None and not self._in_window(req):
            return
        if record.status is not None and record.status >= 400:
            # Answered with an error (a 400 for an unsupported block, a 429, an overload): the
            # provider neither read nor wrote the cache for it, so it takes no part in a session
            # (a retry is compared with the last request that was served) and costs nothing. Its
            # own markers are still checked: a 400 for five breakpoints is CL305's to explain.
            self.failed += 1
            self._take_failed(req, record.status, record.response)
            return
        self.requests += 1
        self._note_time(req.origin.path, req)
        try:
            self._take_served(req, record)
        except RecursionError:
            self.diagnostics.append(record_problem(record.origin, "request nested too deeply to compare"))
        expired = self.grouper.expired()
        if expired:
            self.close_sessions(expired)

    def _in_window(self, req: Request) -> bool:
        """Whether the request is inside --since / --until: a request outside is left out of
        everything (its session, the checks, the money) and counted; one without a time cannot
        be placed, so it is kept, and counted too."""
        if req.time is None:
            self.untimed_in_window += 1
            return True
        if self.window.holds(req.time):
            return True
        self.outside_window += 1
        return False

    def _take_failed(self, req: Request, status: int, response: Any) -> None:
        """The checks that say why the provider rejected a request (``rejected_requests``),
        outside any session: it is the first and only request of none, and a finding quotes the
        provider's error."""
        req.failed = failure_of(status, response)
        req.session = None
        req.index_in_session = 0
        run_checks(self.diagnostics, rejected_request_checks(self.enabled), req.origin, (req, self.ctx))

    def _note_time(self, display: str, req: Request) -> None:
        """Count the requests of each file with and without a time: a file whose requests carry
        none is named once in the summary (the TTL checks could not run on it)."""
        counts = self.times.get(display)
        if counts is None:
            counts = self.times[display] = [0, 0]
        counts[0 if req.time is None else 1] += 1

    def _take_served(self, req: Request, record: Record) -> None:
        session, prev = self.grouper.assign(req, record)
        state = self.sessions.get(session.id)
        if state is None:
            state = self.sessions[session.id] = _SessionState(session, first=req.origin.describe())
        state.records.append((req.origin.path, req.origin.record))
        ctx = state.ctx
        if ctx is None:  # the session's first request (a state is one session's)
            ctx = state.ctx = self.ctx.for_session(session)
        checks = self.fidelity_checks.get(req.fidelity, self.checks) if req.fidelity != "wire" else self.checks
        run_checks(
            self.diagnostics,
            checks.first_request if req.index_in_session == 0 else checks.later_request,
            req.origin,
            (req, ctx),
        )
        diff: PrefixDiff | None = None
        if prev is not None:
            diff = prefix_diff(prev, req, self.table, self.volatile)
            share_blocks(prev, req)
            pair = checks.quiet_pair if quiet_pair(prev, req, diff) else checks.changed_pair
            run_checks(self.diagnostics, pair, req.origin, (prev, req, ctx.with_diff(diff)))
            if diff.broken:
                session.breaks += 1
                state.break_records.append((req.origin.path, req.origin.record))
                if len(state.breaks) < MAX_BREAKS_SHOWN:
                    state.breaks.append(_break_entry(req, diff))
            # only the newest request of a session needs its blocks for the next diff; older ones
            # keep their (shared) tuples, which cost a pointer per block
        if self.ledger is not None:
            self.ledger.add(req, prev, diff)

    def close_sessions(self, sessions: Iterable[Session]) -> None:
        """Sessions done with: their checks run, their requests are dropped."""
        checks = session_checks(self.enabled)
        for session in sessions:
            ctx = self.ctx.for_session(session)
            origin = session.requests[-1].origin if session.requests else None
            fidelity = session.requests[-1].fidelity if session.requests else "wire"
            run_checks(
                self.diagnostics,
                checks if fidelity == "wire" else checks_for(fidelity, checks),
                origin,
                (session, ctx),
            )
            session.requests = []  # closed: the summary keeps counts and breaks only
            state = self.sessions.get(session.id)
            if state is not None:
                state.ctx = None  # the session's context is done with, like its requests
                if not self._waits_for_selection(state):
                    # no finding the selection could leave out: its entries are final now
                    del self.sessions[session.id]
                    self._make_entries(state, frozenset(), {})

    def _waits_for_selection(self, state: _SessionState) -> bool:
        """Whether a finding at one of the session's requests reports a break or a lost cache:
        whether it counts in the session's breaks and money is the selection's to say, at the
        run's end (every check of a request has run once its session is closed)."""
        found = self.diagnostics
        for d in found[self._scanned :]:
            if d.code in self._selection_codes and d.record is not None:
                self._selected_later.add((d.path, d.record))
        self._scanned = len(found)
        return bool(self._selected_later) and any(key in self._selected_later for key in state.records)

    def _make_entries(
        self, state: _SessionState, left_out: set[tuple[str, int]] | frozenset, breaks_at: Any
    ) -> dict[str, Any] | None:
        """The session's report entry and usage entry (returned, unmasked), masked into
        ``reports``. ``left_out``: the breaks whose findings the selection left out;
        ``breaks_at``: the codes of the findings that lost the cache, by request
        (``spend.lost_cache_at``)."""
        session = state.session
        report = _session_report(state, left_out)
        usage = None
        if self.ledger is not None and self.usage_error is None:
            try:
                usage = self.ledger.close_session(session.id, breaks_at, timeline=self.options.timeline)
            except Exception as exc:  # pragma: no cover - the money summary must not sink the audit
                self.usage_error = exc
            if usage is not None:
                self.usage_totals.add(_session_number(session.id) - 1, usage)
                report.usage = usage
        if len(self._mask_memo) > _MASK_MEMO_SIZE:
            self._mask_memo.clear()
        self.reports.put(_session_number(session.id) - 1, self._masker.mask_value(report, self._mask_memo))
        return usage

    # --- summary ----------------------------------------------------------------------------------

    def summary(self, kept: Sequence[Diagnostic]) -> AuditSummary:
        """The run's summary with the findings that are reported: a break whose findings were all
        left out (deselected, baselined) is no break of its session here, and costs nothing. The
        entries of the sessions that waited for the selection are made here."""
        from cachelint.payloads.spend import lost_cache_at

        removed: set[tuple[str, int]] = set()
        reported: set[tuple[str, int]] = set()
        kept_ids = {id(d) for d in kept}
        # a break whose findings are all deselected or baselined is left out of the session's breaks
        breaks = prefix_break_codes()
        for d in self.diagnostics:
            if d.code in breaks and d.record is not None:
                (reported if id(d) in kept_ids else removed).add((d.path, d.record))
        left_out = removed - reported
        breaks_at = lost_cache_at(kept)
        costs: BreakCosts = {}  # a session whose entry was made as it closed has no break a finding costs
        for sid in sorted(self.sessions, key=_session_number):
            usage = self._make_entries(self.sessions.pop(sid), left_out, breaks_at)
            if usage is not None:
                add_break_costs(costs, usage)
        sessions = self.reports
        summary = AuditSummary(
            files=self.files,
            records=self.records,
            requests=self.requests,
            skipped_non_llm=self.skipped,
            failed=self.failed,
            formats=dict(sorted(self.format_counts.items())),
            unread=dict(sorted(self.unread.items())),
            files_without_records=self.files_without_records,
            sessions=sessions,
            untimed_files=sorted(path for path, (untimed, timed) in self.times.items() if untimed >= 2 and not timed),
        )
        if self.usage_error is not None:  # pragma: no cover - the money summary must not sink the audit
            exc = self.usage_error
            print(f"cachelint: warning: usage summary failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        elif self.ledger is not None:
            summary.usage = {
                **self.ledger.header(),
                "sessions": sessions.usage_entries(),
                "total": self.usage_totals.result(),
            }
        if self.window is not None:
            summary.time_window = {
                "since": self.window.since.isoformat() if self.window.since is not None else None,
                "until": self.window.until.isoformat() if self.window.until is not None else None,
                "outside": self.outside_window,
                "untimed": self.untimed_in_window,
            }
        # the run's sessions that findings name, in order: a cause lists its sessions in that order
        named = {d.session for d in kept if d.session is not None and _is_session_of(d.session, len(sessions))}
        summary.causes = group_causes(kept, costs, sorted(named, key=_session_number))
        summary.fidelity = self.formats.summary()
        if self.agents is not None:
            summary.coding_agents = self.agents.summary(kept)
            summary.requests += self.agents.turns
            summary.records += self.agents.records
        return summary


def _session_report(state: _SessionState, left_out: set[tuple[str, int]] | frozenset) -> SessionReport:
    """A session's report entry, without the breaks whose findings were all ``left_out``."""
    s = state.session
    hidden = sum(1 for key in state.break_records if key in left_out)
    return SessionReport(
        id=s.id,
        grouping=s.grouping,
        grouping_text=GROUPING_TEXT.get(s.grouping, s.grouping) + (f" ({s.key_source})" if s.key_source else ""),
        path=s.path,
        first=state.first,
        provider=s.provider,
        model=s.model,
        host=s.host,
        started=s.started,
        started_after=s.started_after,
        # the log's own id, without the namespace the grouper keys it in ("envelope:")
        key=s.key.split(":", 1)[-1] if s.key else None,
        key_source=s.key_source,
        records=list(state.records),
        requests=s.count,
        breaks=s.breaks - hidden,
        break_details=[b for b in state.breaks if (b.path, b.record) not in left_out],
    )


def _session_number(sid: str) -> int:
    return int(sid[1:])  # "s12": the grouper numbers sessions in the order they start


def _is_session_of(sid: str, count: int) -> bool:
    """Whether ``sid`` is the id of one of the run's ``count`` sessions (``s1`` … ``s{count}``)."""
    return sid[:1] == "s" and sid[1:].isdigit() and sid[1:2] != "0" and int(sid[1:]) <= count


def _marker_caching(limits: Limits) -> Callable[[str | None], bool]:
    """Whether a provider caches a prefix only at its cache markers (the limits packs)."""

    def caches_at_markers(provider: str | None) -> bool:
        found = limits.provider(provider)
        return found is not None and found.caching == "explicit"

    return caches_at_markers


def _tell(position: list[Any] | None) -> int | None:
    """Bytes of the current file read so far, or None (a closed or unseekable stream)."""
    try:
        return position[0]() if position else None
    except (OSError, ValueError):
        return None


def quiet_pair(prev: Request, cur: Request, diff: PrefixDiff) -> bool:
    """The pair changed nothing but the tail: no tier differs except a history that only grew,
    no cache setting changed, and the settings are equal (one comparison of two small dicts)."""
    if diff.settings or diff.invalidated:
        return False
    for td in diff.tiers:
        if td.breaks:
            return False
    return prev.settings is cur.settings or prev.settings == cur.settings


def share_blocks(prev: Request, cur: Request) -> None:
    """Let ``cur`` reuse ``prev``'s Block objects where bytes and offsets are equal, so a session
    holds each distinct block once (memory follows unique content, not the log). The block cache
    already shares most of them: identical leading runs are skipped at C speed."""
    for tier in TIERS:
        a, b = prev.tier(tier), cur.tier(tier)
        if not a or not b:
            continue
        n = min(len(a), len(b))
        if all(map(operator.is_, a[:n], b[:n])):  # already shared (``==`` would compare the bytes of equal blocks)
            continue
        shared = list(b)
        changed = False
        for i in range(n):
            old, blk = a[i], b[i]
            if old is not blk and old.data == blk.data and old.offset == blk.offset and old.name == blk.name:
                shared[i] = old
                changed = True
        if changed:
            setattr(cur, tier, tuple(shared))


def _break_entry(req: Request, diff: PrefixDiff) -> BreakDetail:
    return BreakDetail(
        location=req.origin.describe(),
        path=req.origin.path,
        record=req.origin.record,
        first_tier=diff.first_tier,
        offset=diff.offset,
        invalidated=list(diff.invalidated),
        explanation=[line for t in diff.tiers if t.breaks for line in t.explanation],
        settings=[
            f"{s.name}: {_show(s.before)} -> {_show(s.after)}"
            + ("" if s.confirmed else " (effect on the cache undocumented)")
            for s in diff.settings
        ],
        before=diff.excerpt_before if diff.offset is not None else None,
        after=diff.excerpt_after if diff.offset is not None else None,
    )


def _show(value: Any) -> str:
    from cachelint.payloads.jsonio import dumps

    if value is None:
        return "(absent)"
    text = dumps(value).decode("utf-8", "replace")
    return text if len(text) <= 80 else text[:79] + "…"
