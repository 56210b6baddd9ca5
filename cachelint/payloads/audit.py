"""The audit pipeline: logs -> records -> requests -> sessions -> pair diffs -> checks -> summary.

Streaming: records are read one at a time, each request is compared with the previous request of
its session as it arrives and then shares that request's unchanged blocks, and sessions idle for
``session-window`` records are closed (their session checks run, their requests are dropped), so
memory follows the open sessions, not the log.
"""

from __future__ import annotations

import gc
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic, internal_error, unreadable
from cachelint.payloads import AuditOptions, AuditResult, AuditSummary, BreakDetail, SessionReport
from cachelint.payloads.context import CheckContext
from cachelint.payloads.hooks import (
    checks_for,
    change_only_pair_checks,
    first_only_request_checks,
    pair_checks,
    rejected_request_checks,
    request_checks,
    run_end_checks,
    session_checks,
)
from cachelint.payloads.diff import InvalidationTable, VolatilePatterns, prefix_diff
from cachelint.payloads.model import TIERS, PrefixDiff, Request, Session
from cachelint.payloads.providers import BlockCache, ProviderRules, ReuseMismatch, failure_of, to_request
from cachelint.payloads.readers import ReadLimits, envelope_time, iter_log_files, read_log
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.limits import limits_for
from cachelint.payloads.sessions import GROUPING_TEXT, SessionGrouper, SessionKeys, longest_lifetime
from cachelint.payloads.shapes import unread_shape
from cachelint.payloads.formats._run import unread_reason

DEFAULT_SESSION_WINDOW = 1000
MAX_BREAKS_SHOWN = 20


# Findings that report a break of the prefix the pair diff found (PrefixDiff.broken): a break
# whose findings are all deselected or baselined is left out of the session's breaks.
PREFIX_BREAK_CODES = frozenset({"CL301", "CL302", "CL303", "CL304", "CL309", "CL312"})


@dataclass
class _SessionReport:
    """What the summary keeps of a session once its requests are gone."""

    session: Session
    breaks: list[BreakDetail] = field(default_factory=list)
    first: str = ""
    # (path, record) of every break, the first MAX_BREAKS_SHOWN of them detailed in ``breaks``
    break_records: list[tuple[str, int]] = field(default_factory=list)
    ctx: CheckContext | None = None  # the checks' context for this session, made at its first request


@dataclass
class _Run:
    settings: Settings
    options: AuditOptions
    redactor: Redactor
    rules: ProviderRules
    table: InvalidationTable
    volatile: VolatilePatterns
    grouper: SessionGrouper
    ctx: CheckContext
    ledger: Any = None
    block_cache: BlockCache = field(default_factory=BlockCache)
    progress: Any = None  # cachelint.progress.Progress, set by run_audit
    # the checks to call: every one (first request of a session, a pair that changed) or only
    # those that can find something after the first request / on a quiet pair (see _checks)
    first_request_checks: tuple[Any, ...] = ()
    later_request_checks: tuple[Any, ...] = ()
    changed_pair_checks: tuple[Any, ...] = ()
    quiet_pair_checks: tuple[Any, ...] = ()
    # the same four for requests read from logs that keep less than the wire request (content,
    # usage): only the checks their fidelity supports (cachelint.payloads.hooks: FIDELITY)
    fidelity_checks: dict[str, tuple[tuple[Any, ...], ...]] = field(default_factory=dict)
    formats: Any = None  # cachelint.payloads.formats._run.FormatRun: joins, fidelity, unread records
    diagnostics: list[Diagnostic] = field(default_factory=list)
    reports: dict[str, _SessionReport] = field(default_factory=dict)
    records: int = 0
    requests: int = 0
    skipped: int = 0
    failed: int = 0
    files: int = 0
    time_field: str | None = None  # --time-field: the envelope field that holds each record's time
    times: dict[str, list[int]] = field(default_factory=dict)  # file -> [requests without a time, with one]
    format_counts: dict[str, int] = field(default_factory=dict)  # files a record was read from, per format
    files_without_records: int = 0
    unread: dict[str, int] = field(default_factory=dict)  # records of LLM log shapes not read, per shape
    agents: Any = None  # cachelint.transcripts.audit.TranscriptRun: the coding-agent session files


Selection = Callable[[Sequence[Diagnostic]], list[Diagnostic]]


def run_audit(
    paths: Sequence[str], settings: Settings, options: AuditOptions, cwd: Path, select: Selection | None = None
) -> AuditResult:
    """Audit the logs under ``paths``. ``select``: the findings to report out of all the checks
    found (selection, baseline); it runs before the summary is made, so that a finding left out is
    left out of the session reports, the break counts and the money too."""
    with _fewer_collections():
        return _run_audit(paths, settings, options, cwd, select)


# The audit allocates a few small containers per request and builds almost no reference cycles,
# yet with the default threshold (700) the cyclic collector runs every few requests and its older
# generations re-scan everything alive: ~5-8% of an audit's time (benchmarks/bench_audit.py). A
# higher first threshold for the duration of the audit, restored afterwards (a library call must
# not change its caller's settings).
_GC_THRESHOLD = 20_000


@contextmanager
def _fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], _GC_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _run_audit(
    paths: Sequence[str], settings: Settings, options: AuditOptions, cwd: Path, select: Selection | None
) -> AuditResult:
    from cachelint.progress import Progress, file_size

    run = _start(settings, options)
    items = list(iter_log_files(list(paths), cwd))  # a listing only: the bar needs the total
    logs = [item for item in items if not isinstance(item, Diagnostic)]
    run.progress = Progress(sum(file_size(p) for p, _ in logs), len(logs), enabled=options.progress)
    run.formats.plan(logs)
    agents = _agent_sessions(run, logs)
    for path, display in logs:  # batch results first: their usage joins requests of other files
        if display in run.formats.side:
            run.diagnostics.extend(run.formats.read_side(path, display, run.redactor))
    feed = None  # None: one process (one job, or a small log)
    requests = [log for log in logs if log[1] not in agents]
    if requests and (options.jobs != 1 or options.engine != "local"):
        # one process asked for, or only session files: the worker machinery is not even imported
        # (start-up counts)
        from cachelint.payloads.parallel import start_feed

        feed = start_feed(run, requests)
    try:
        for item in items:
            if isinstance(item, Diagnostic):
                run.diagnostics.append(item)
                continue
            path, display = item
            run.files += 1
            if display in agents:
                pass  # read together at the end: a session's threads may sit in several files
            elif feed is not None and feed.takes(display):
                feed.audit_file(run, display)
            elif display not in run.formats.side:
                _audit_file(run, path, display)
            _close(run, run.grouper.close_scope(display))
            run.progress.file_done(file_size(path))
    finally:
        if feed is not None:
            feed.close()
    run.progress.close()
    _close(run, run.grouper.close_all())
    if run.agents is not None:
        _audit_agent_sessions(run, [(p, d) for p, d in logs if d in agents], agents)
    run.diagnostics.extend(run.formats.unjoined())
    _run_checks(run.diagnostics, run_end_checks(), None, (run.ctx,))
    kept = select(run.diagnostics) if select is not None else list(run.diagnostics)
    from cachelint.masking import masker

    # the summary repeats the excerpts of the breaks: masked like the findings (engine.finalize)
    return AuditResult(diagnostics=kept, summary=masker(settings.pack_paths()).mask_value(_summary(run, kept)))


def _start(settings: Settings, options: AuditOptions) -> _Run:
    from cachelint.catalog import load_packs

    extra = settings.pack_paths()
    audit_options = dict(settings.section("audit"))
    ctx = CheckContext(settings=settings, options=audit_options)
    ledger = None
    try:
        from cachelint.payloads.spend import ledger_for

        ledger = ledger_for(settings)
    except ImportError:  # the usage & money part is optional for the byte audit
        ledger = None
    run = _Run(
        settings=settings,
        options=options,
        redactor=Redactor.from_packs(load_packs("payloads-secrets", extra)),
        rules=ProviderRules.from_packs(load_packs("payloads-providers", extra)),
        table=InvalidationTable.from_packs(load_packs("payloads-invalidation", extra)),
        volatile=VolatilePatterns.from_packs(load_packs("payloads-volatile", extra)),
        grouper=SessionGrouper(
            SessionKeys.from_packs(load_packs("payloads-session-keys", extra)),
            window=int(audit_options.get("session-window", DEFAULT_SESSION_WINDOW)),
            lifetime=longest_lifetime(limits_for(ctx)),
        ),
        ctx=ctx,
        ledger=ledger,
    )
    _checks(run, options.fast_paths)
    run.time_field = options.time_field or audit_options.get("time-field") or None
    from cachelint.payloads.formats._run import FormatRun

    run.formats = FormatRun(options.input_format, _limits(settings))
    return run


def _checks(run: _Run, fast_paths: bool) -> None:
    """Which checks each request and pair calls. A module flagged ``REQUEST_FIRST_ONLY`` or
    ``PAIR_NEEDS_CHANGE`` (cachelint.payloads.hooks) returns nothing on a later request or a quiet
    pair, so it is not called there; ``fast_paths=False`` calls every check everywhere (the
    equivalence tests compare both)."""
    run.first_request_checks = request_checks()
    run.changed_pair_checks = pair_checks()
    first_only = set(first_only_request_checks()) if fast_paths else set()
    change_only = set(change_only_pair_checks()) if fast_paths else set()
    run.later_request_checks = tuple(c for c in run.first_request_checks if c not in first_only)
    run.quiet_pair_checks = tuple(c for c in run.changed_pair_checks if c not in change_only)
    for fidelity in ("content", "usage"):
        run.fidelity_checks[fidelity] = tuple(
            checks_for(fidelity, c)
            for c in (
                run.first_request_checks,
                run.later_request_checks,
                run.changed_pair_checks,
                run.quiet_pair_checks,
            )
        )


def _limits(settings: Settings) -> ReadLimits:
    section = settings.section("audit")
    defaults = ReadLimits()
    return ReadLimits(
        max_record_size=int(section.get("max-record-size", defaults.max_record_size)),
        max_document_size=int(section.get("max-document-size", defaults.max_document_size)),
        max_records=int(section.get("max-records", defaults.max_records)),
        max_gzip_ratio=float(section.get("max-gzip-ratio", defaults.max_gzip_ratio)),
    )


def _agent_sessions(run: _Run, logs: Sequence[tuple[Path, str]]) -> dict[str, str]:
    """display -> format name of the files that are a coding agent's sessions (Claude Code,
    Codex CLI): they are audited whole by ``cachelint.transcripts``, not read as requests."""
    from cachelint.payloads import formats

    found = {}
    for _path, display in logs:
        fmt = formats.get(run.formats.format_of(display))
        if fmt is not None and fmt.agent_sessions:
            found[display] = fmt.name
    if found:
        from cachelint.transcripts.audit import new_run

        run.agents = new_run(run.settings, timeline=run.options.timeline)
    return found


def _audit_agent_sessions(run: _Run, logs: Sequence[tuple[Path, str]], agents: dict[str, str]) -> None:
    """The coding-agent session files, read and judged together (``cachelint.transcripts``)."""
    forced = run.options.input_format != "auto"
    # one process unless asked: on a shared 2-core machine worker processes cost more than they saved
    # (docs/coding-agents.md, "Compared with the transcript auditors on PyPI")
    jobs = run.options.jobs or int(run.settings.section("audit").get("jobs", 0)) or 1
    files = [(path, display, agents[display] if forced else None) for path, display in logs]
    run.agents.read_files(files, jobs if run.options.engine == "local" else 1)
    for _path, display in logs:
        if display in run.agents.file_agents:
            run.format_counts[agents[display]] = run.format_counts.get(agents[display], 0) + 1
        else:
            run.files_without_records += 1
    run.diagnostics.extend(run.agents.diagnostics)


def _audit_file(run: _Run, path: Path, display: str) -> None:
    limits = _limits(run.settings)
    progress = run.progress if run.progress is not None and run.progress.enabled else None
    position: list[Any] | None = [] if progress is not None else None
    files_read: list[str] = []
    items = read_log(
        path,
        display,
        run.formats.format_of(display),
        run.redactor,
        limits,
        reuse=run.options.incremental,
        position=position,
        formats=files_read,
        joins=run.formats.joins,
    )
    before = run.records
    try:
        _audit_records(run, items, position, progress)
    finally:
        if run.records > before and files_read:
            run.format_counts[files_read[0]] = run.format_counts.get(files_read[0], 0) + 1
        else:
            run.files_without_records += 1
    run.diagnostics.extend(run.formats.file_done(display))


def _audit_records(run: _Run, items: Iterable[Any], position: list[Any] | None, progress: Any) -> None:
    for item in items:
        if isinstance(item, Diagnostic):
            run.diagnostics.append(item)
            continue
        run.records += 1
        if progress is not None:
            progress.records_seen(run.records, _tell(position))
        item, req = build_request(item, run.rules, run.block_cache, run.time_field)
        if isinstance(req, Diagnostic):
            run.diagnostics.append(req)
        elif req is None:
            _note_skipped(run, item.origin, *unread_facts(item, run.rules))
        else:
            _audit_built(run, req, item)


def build_request(
    item: Any, rules: ProviderRules, cache: BlockCache, time_field: str | None
) -> tuple[Any, Request | Diagnostic | None]:
    """(the record, its Request): None when no provider adapter takes the record, a CL001 when
    it cannot be interpreted. The record returned is the one the request was built from (decoded
    in full when a reused part did not fit). What the map stage of a parallel audit runs too
    (``cachelint.payloads.parallel``)."""
    if time_field and item.envelope is not None:
        item.time = envelope_time(item.envelope, time_field)
    try:
        try:
            return item, to_request(item, rules, cache)
        except ReuseMismatch:
            item = item.reread()  # a reused part did not fit: decode the record in full
            if isinstance(item, Diagnostic):
                return item, item
            return item, to_request(item, rules, cache)
    except RecursionError:
        return item, _record_problem(item, "request body nested too deeply to analyse")
    except Exception as exc:  # a malformed body must not end the run
        return item, _record_problem(item, f"cannot interpret request: {type(exc).__name__}: {exc}")


def unread_facts(item: Any, rules: ProviderRules) -> tuple[str | None, str | None]:
    """(the unread log shape, the reason for a CL001) of a record no provider adapter took; both
    None for a record whose URL names an endpoint that is no LLM generation call (token counts,
    images, a tracing upload, a legacy completion API): whatever its body carries, it is no unread
    log shape. What the map stage of a parallel audit runs too."""
    if rules.classify(item.url).known_not_llm:
        return None, None
    return unread_shape(item.request, item.response), unread_reason(item)


def _note_skipped(run: _Run, origin: Any, shape: str | None, reason: str | None) -> None:
    """A record no provider adapter took: an unread shape of LLM log, or not an LLM call."""
    if shape is None:
        run.skipped += 1
    else:
        run.unread[shape] = run.unread.get(shape, 0) + 1
    run.formats.note_unread(origin, reason)


def _audit_built(run: _Run, req: Request, item: Any) -> None:
    """A request built from a record, through its session, the checks and the ledger."""
    run.formats.complete(req, item)
    if item.status is not None and item.status >= 400:
        # Answered with an error (a 400 for an unsupported block, a 429, an overload): the
        # provider neither read nor wrote the cache for it, so it takes no part in a session
        # (a retry is compared with the last request that was served) and costs nothing. Its
        # own markers are still checked: a 400 for five breakpoints is CL305's to explain.
        run.failed += 1
        _audit_failed(run, req, item)
        return
    run.requests += 1
    _note_time(run, req.origin.path, req)
    try:
        _audit_request(run, req, item)
    except RecursionError:
        run.diagnostics.append(_record_problem(item, "request nested too deeply to compare"))
    expired = run.grouper.expired()
    if expired:
        _close(run, expired)


def _audit_failed(run: _Run, req: Request, record: Any) -> None:
    """The checks that say why the provider rejected a request (``REJECTED_REQUESTS``), outside
    any session: it is the first and only request of none, and a finding quotes the provider's
    error."""
    req.failed = failure_of(record.status, record.response)
    req.session = None
    req.index_in_session = 0
    _run_checks(run.diagnostics, rejected_request_checks(), req.origin, (req, run.ctx))


def _note_time(run: _Run, display: str, req: Request) -> None:
    """Count the requests of each file with and without a time: a file whose requests carry none
    is named once in the summary (the TTL checks could not run on it)."""
    counts = run.times.get(display)
    if counts is None:
        counts = run.times[display] = [0, 0]
    counts[0 if req.time is None else 1] += 1


def _tell(position: list[Any] | None) -> int | None:
    """Bytes of the current file read so far, or None (a closed or unseekable stream)."""
    try:
        return position[0]() if position else None
    except (OSError, ValueError):
        return None


def _record_problem(record: Any, message: str) -> Diagnostic:
    origin = record.origin
    return unreadable(origin.path, message, line=origin.line, record=origin.record)


def _audit_request(run: _Run, req: Request, record: Any) -> None:
    session, prev = run.grouper.assign(req, record)
    report = run.reports.get(session.id)
    if report is None:
        report = run.reports[session.id] = _SessionReport(session, first=req.origin.describe())
    ctx = report.ctx
    if ctx is None:  # the session's first request (a report is one session's)
        ctx = report.ctx = run.ctx.for_session(session)
    sets = run.fidelity_checks.get(req.fidelity) if req.fidelity != "wire" else None
    if sets is None:
        sets = (run.first_request_checks, run.later_request_checks, run.changed_pair_checks, run.quiet_pair_checks)
    checks = sets[0] if req.index_in_session == 0 else sets[1]
    _run_checks(run.diagnostics, checks, req.origin, (req, ctx))
    diff: PrefixDiff | None = None
    if prev is not None:
        diff = prefix_diff(prev, req, run.table, run.volatile)
        share_blocks(prev, req)
        checks = sets[3] if _quiet(prev, req, diff) else sets[2]
        _run_checks(run.diagnostics, checks, req.origin, (prev, req, ctx.with_diff(diff)))
        if diff.broken:
            session.breaks += 1
            report.break_records.append((req.origin.path, req.origin.record))
            if len(report.breaks) < MAX_BREAKS_SHOWN:
                report.breaks.append(_break_entry(req, diff))
        # only the newest request of a session needs its blocks for the next diff; older ones keep
        # their (shared) tuples, which cost a pointer per block
    if run.ledger is not None:
        run.ledger.add(req, prev, diff)


def _quiet(prev: Request, cur: Request, diff: PrefixDiff) -> bool:
    """The pair changed nothing but the tail: no tier differs except a history that only grew,
    no cache setting changed, and the settings are equal (one comparison of two small dicts)."""
    if diff.settings or diff.invalidated:
        return False
    for td in diff.tiers:
        if td.breaks:
            return False
    return prev.settings is cur.settings or prev.settings == cur.settings


def _run_checks(out: list[Diagnostic], checks: tuple[Any, ...], origin: Any, args: tuple[Any, ...]) -> None:
    """Run each check; a bug in one becomes a CL003 at the request instead of ending the audit
    (a request nested past the interpreter's limit stays the input's CL001). Most checks return
    an empty tuple or list: nothing is copied then."""
    for check in checks:
        try:
            found = check(*args)
            if found:
                out.extend(found if type(found) in (list, tuple) else list(found))
        except RecursionError:
            if origin is not None:
                out.append(
                    unreadable(origin.path, "too deeply nested to check", line=origin.line, record=origin.record)
                )
        except Exception as exc:  # noqa: BLE001 - any check bug
            if origin is not None:
                what = f"in {check.__module__.rsplit('.', 1)[-1]}"
                out.append(internal_error(origin.path, what, exc, line=origin.line, record=origin.record))


def share_blocks(prev: Request, cur: Request) -> None:
    """Let ``cur`` reuse ``prev``'s Block objects where bytes and offsets are equal, so a session
    holds each distinct block once (memory follows unique content, not the log). The block cache
    already shares most of them: identical leading runs are skipped at C speed."""
    for tier in TIERS:
        a, b = prev.tier(tier), cur.tier(tier)
        if not a or not b:
            continue
        n = min(len(a), len(b))
        if a[:n] == b[:n]:  # identity first, element by element, in C
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


def _close(run: _Run, sessions: Iterable[Session]) -> None:
    checks = session_checks()
    for session in sessions:
        ctx = run.ctx.for_session(session)
        origin = session.requests[-1].origin if session.requests else None
        fidelity = session.requests[-1].fidelity if session.requests else "wire"
        _run_checks(
            run.diagnostics, checks if fidelity == "wire" else checks_for(fidelity, checks), origin, (session, ctx)
        )
        session.requests = []  # closed: the summary keeps counts and breaks only
        report = run.reports.get(session.id)
        if report is not None:
            report.ctx = None  # the session's context is done with, like its requests


# --- summary ------------------------------------------------------------------------------


def _summary(run: _Run, kept: Sequence[Diagnostic]) -> AuditSummary:
    """The run's summary with the findings that are reported: a break whose findings were all
    left out (deselected, baselined) is no break of its session here, and costs nothing."""
    removed: set[tuple[str, int]] = set()
    reported: set[tuple[str, int]] = set()
    kept_ids = {id(d) for d in kept}
    for d in run.diagnostics:
        if d.code in PREFIX_BREAK_CODES and d.record is not None:
            (reported if id(d) in kept_ids else removed).add((d.path, d.record))
    left_out = removed - reported
    sessions = []
    for sid in sorted(run.reports, key=lambda s: int(s[1:])):
        report = run.reports[sid]
        s = report.session
        hidden = sum(1 for key in report.break_records if key in left_out)
        sessions.append(
            SessionReport(
                id=s.id,
                grouping=s.grouping,
                grouping_text=GROUPING_TEXT.get(s.grouping, s.grouping)
                + (f" ({s.key_source})" if s.key_source else ""),
                path=s.path,
                first=report.first,
                provider=s.provider,
                model=s.model,
                host=s.host,
                started=s.started,
                started_after=s.started_after,
                requests=s.count,
                breaks=s.breaks - hidden,
                break_details=[b for b in report.breaks if (b.path, b.record) not in left_out],
            )
        )
    summary = AuditSummary(
        files=run.files,
        records=run.records,
        requests=run.requests,
        skipped_non_llm=run.skipped,
        failed=run.failed,
        formats=dict(sorted(run.format_counts.items())),
        unread=dict(sorted(run.unread.items())),
        files_without_records=run.files_without_records,
        sessions=sessions,
        untimed_files=sorted(path for path, (untimed, timed) in run.times.items() if untimed >= 2 and not timed),
    )
    if run.ledger is not None:
        try:
            summary.usage = run.ledger.summary(kept, timeline=run.options.timeline)
        except Exception as exc:  # pragma: no cover - the money summary must not sink the audit
            print(f"cachelint: warning: usage summary failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        else:
            by_id = {u.get("id"): u for u in summary.usage.get("sessions") or []}
            for session in sessions:
                session.usage = by_id.get(session.id)
    summary.fidelity = run.formats.summary() if run.formats is not None else {}
    if run.agents is not None:
        summary.coding_agents = run.agents.summary(kept)
        summary.requests += run.agents.turns
        summary.records += run.agents.records
    return summary
