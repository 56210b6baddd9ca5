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
from typing import Any, Iterable, Iterator, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads import AuditOptions, AuditResult, sessions_to_show
from cachelint.payloads.checks import (
    CheckContext,
    checks_for,
    change_only_pair_checks,
    first_only_request_checks,
    pair_checks,
    request_checks,
    run_end_checks,
    session_checks,
)
from cachelint.payloads.diff import InvalidationTable, VolatilePatterns, prefix_diff
from cachelint.payloads.model import TIERS, PrefixDiff, Request, Session
from cachelint.payloads.providers import BlockCache, ProviderRules, ReuseMismatch, to_request
from cachelint.payloads.readers import ReadLimits, iter_log_files, read_log
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.sessions import GROUPING_TEXT, SessionGrouper, SessionKeys

DEFAULT_SESSION_WINDOW = 1000
MAX_BREAKS_SHOWN = 20


@dataclass
class _SessionReport:
    """What the summary keeps of a session once its requests are gone."""

    session: Session
    breaks: list[dict[str, Any]] = field(default_factory=list)
    first: str = ""


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
    # usage): only the checks their fidelity supports (cachelint.payloads.checks.FIDELITY)
    fidelity_checks: dict[str, tuple[tuple[Any, ...], ...]] = field(default_factory=dict)
    formats: Any = None  # cachelint.payloads.formats._run.FormatRun: joins, fidelity, unread records
    diagnostics: list[Diagnostic] = field(default_factory=list)
    reports: dict[str, _SessionReport] = field(default_factory=dict)
    records: int = 0
    requests: int = 0
    skipped: int = 0
    failed: int = 0
    files: int = 0


def run_audit(paths: Sequence[str], settings: Settings, options: AuditOptions, cwd: Path) -> AuditResult:
    with _fewer_collections():
        return _run_audit(paths, settings, options, cwd)


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


def _run_audit(paths: Sequence[str], settings: Settings, options: AuditOptions, cwd: Path) -> AuditResult:
    from cachelint.progress import Progress, file_size

    run = _start(settings, options)
    items = list(iter_log_files(list(paths), cwd))  # a listing only: the bar needs the total
    logs = [item for item in items if not isinstance(item, Diagnostic)]
    run.progress = Progress(sum(file_size(p) for p, _ in logs), len(logs), enabled=options.progress)
    run.formats.plan(logs)
    for path, display in logs:  # batch results first: their usage joins requests of other files
        if display in run.formats.side:
            run.diagnostics.extend(run.formats.read_side(path, display, run.redactor))
    for item in items:
        if isinstance(item, Diagnostic):
            run.diagnostics.append(item)
            continue
        path, display = item
        run.files += 1
        if display not in run.formats.side:
            _audit_file(run, path, display)
        _close(run, run.grouper.close_scope(display))
        run.progress.file_done(file_size(path))
    run.progress.close()
    _close(run, run.grouper.close_all())
    run.diagnostics.extend(run.formats.unjoined())
    run.ctx.session = None
    run.ctx.diff = None
    _run_checks(run.diagnostics, run_end_checks(), None, (run.ctx,))
    return AuditResult(diagnostics=run.diagnostics, summary=_summary(run))


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
        ),
        ctx=ctx,
        ledger=ledger,
    )
    _checks(run, options.fast_paths)
    from cachelint.payloads.formats._run import FormatRun

    run.formats = FormatRun(options.input_format, _limits(settings))
    return run


def _checks(run: _Run, fast_paths: bool) -> None:
    """Which checks each request and pair calls. A module flagged ``REQUEST_FIRST_ONLY`` or
    ``PAIR_NEEDS_CHANGE`` (cachelint.payloads.checks) returns nothing on a later request or a quiet
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
            for c in (run.first_request_checks, run.later_request_checks, run.changed_pair_checks, run.quiet_pair_checks)
        )


def _limits(settings: Settings) -> ReadLimits:
    section = settings.section("audit")
    defaults = ReadLimits()
    return ReadLimits(
        max_record_size=int(section.get("max-record-size", defaults.max_record_size)),
        max_document_size=int(section.get("max-document-size", defaults.max_document_size)),
    )


def _audit_file(run: _Run, path: Path, display: str) -> None:
    limits = _limits(run.settings)
    progress = run.progress if run.progress is not None and run.progress.enabled else None
    position: list[Any] | None = [] if progress is not None else None
    fmt = run.formats.format_of(display)
    for item in read_log(path, display, fmt, run.redactor, limits, reuse=run.options.incremental, position=position, joins=run.formats.joins):
        if isinstance(item, Diagnostic):
            run.diagnostics.append(item)
            continue
        run.records += 1
        if progress is not None:
            progress.records_seen(run.records, _tell(position))
        try:
            try:
                req = to_request(item, run.rules, run.block_cache)
            except ReuseMismatch:
                item = item.reread()  # a reused part did not fit: decode the record in full
                if isinstance(item, Diagnostic):
                    run.diagnostics.append(item)
                    continue
                req = to_request(item, run.rules, run.block_cache)
        except RecursionError:
            run.diagnostics.append(_record_problem(item, "request body nested too deeply to analyse"))
            continue
        except Exception as exc:  # a malformed body must not end the run
            run.diagnostics.append(_record_problem(item, f"cannot interpret request: {type(exc).__name__}: {exc}"))
            continue
        if req is None:
            run.skipped += 1
            run.formats.skipped(item)
            continue
        run.formats.complete(req, item)
        if item.status is not None and item.status >= 400:
            # Answered with an error (a 400 for an unsupported block, a 429, an overload): the
            # provider neither read nor wrote the cache for it, so it takes no part in a session
            # (a retry is compared with the last request that was served) and costs nothing.
            run.failed += 1
            continue
        run.requests += 1
        try:
            _audit_request(run, req, item)
        except RecursionError:
            run.diagnostics.append(_record_problem(item, "request nested too deeply to compare"))
        expired = run.grouper.expired()
        if expired:
            _close(run, expired)
    run.diagnostics.extend(run.formats.file_done(display))


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
    ctx = run.ctx
    ctx.session = session
    ctx.diff = None
    sets = run.fidelity_checks.get(req.fidelity) if req.fidelity != "wire" else None
    if sets is None:
        sets = (run.first_request_checks, run.later_request_checks, run.changed_pair_checks, run.quiet_pair_checks)
    checks = sets[0] if req.index_in_session == 0 else sets[1]
    _run_checks(run.diagnostics, checks, req.origin, (req, ctx))
    diff: PrefixDiff | None = None
    if prev is not None:
        diff = prefix_diff(prev, req, run.table, run.volatile)
        share_blocks(prev, req)
        ctx.diff = diff
        checks = sets[3] if _quiet(prev, req, diff) else sets[2]
        _run_checks(run.diagnostics, checks, req.origin, (prev, req, ctx))
        if diff.broken:
            session.breaks += 1
            if len(report.breaks) < MAX_BREAKS_SHOWN:
                report.breaks.append(_break_entry(req, diff))
        # only the newest request of a session needs its blocks for the next diff; older ones keep
        # their (shared) tuples, which cost a pointer per block
    if run.ledger is not None:
        run.ledger.add(req, prev, diff)
    ctx.diff = None


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
    """Run each check; a bug in one becomes a CL001 at the request instead of ending the audit.
    Most checks return an empty tuple or list: nothing is copied then."""
    for check in checks:
        try:
            found = check(*args)
            if found:
                out.extend(found if type(found) in (list, tuple) else list(found))
            continue
        except RecursionError:
            problem = "too deeply nested to check"
        except Exception as exc:  # noqa: BLE001 - any check bug
            problem = f"internal error in {check.__module__.rsplit('.', 1)[-1]}: {type(exc).__name__}: {exc}"
        if origin is not None:
            out.append(unreadable(origin.path, problem, line=origin.line, record=origin.record))


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


def _break_entry(req: Request, diff: PrefixDiff) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "location": req.origin.describe(),
        "record": req.origin.record,
        "first_tier": diff.first_tier,
        "offset": diff.offset,
        "invalidated": list(diff.invalidated),
        "explanation": [line for t in diff.tiers if t.breaks for line in t.explanation],
        "settings": [
            f"{s.name}: {_show(s.before)} -> {_show(s.after)}" + ("" if s.confirmed else " (effect on the cache undocumented)")
            for s in diff.settings
        ],
    }
    if diff.offset is not None:
        entry["before"] = diff.excerpt_before
        entry["after"] = diff.excerpt_after
    return entry


def _show(value: Any) -> str:
    from cachelint.payloads.jsonio import dumps

    if value is None:
        return "(absent)"
    text = dumps(value).decode("utf-8", "replace")
    return text if len(text) <= 80 else text[:79] + "…"


def _close(run: _Run, sessions: Iterable[Session]) -> None:
    checks = session_checks()
    for session in sessions:
        run.ctx.session = session
        run.ctx.diff = None
        origin = session.requests[-1].origin if session.requests else None
        fidelity = session.requests[-1].fidelity if session.requests else "wire"
        _run_checks(run.diagnostics, checks if fidelity == "wire" else checks_for(fidelity, checks), origin, (session, run.ctx))
        session.requests = []  # closed: the summary keeps counts and breaks only


# --- summary ------------------------------------------------------------------------------


def _summary(run: _Run) -> dict[str, Any]:
    sessions = []
    for sid in sorted(run.reports, key=lambda s: int(s[1:])):
        report = run.reports[sid]
        s = report.session
        sessions.append(
            {
                "id": s.id,
                "grouping": s.grouping,
                "grouping_text": GROUPING_TEXT.get(s.grouping, s.grouping) + (f" ({s.key_source})" if s.key_source else ""),
                "path": s.path,
                "first": report.first,
                "provider": s.provider,
                "model": s.model,
                "requests": s.count,
                "breaks": s.breaks,
                "break_details": report.breaks,
            }
        )
    summary: dict[str, Any] = {
        "files": run.files,
        "records": run.records,
        "requests": run.requests,
        "skipped_non_llm": run.skipped,
        "failed": run.failed,
        "sessions": sessions,
        "totals": {
            "sessions": len(sessions),
            "requests": run.requests,
            "breaks": sum(s["breaks"] for s in sessions),
        },
    }
    usage_text = ""
    if run.ledger is not None:
        try:
            from cachelint.payloads.spend import render_usage_text

            summary["usage"] = run.ledger.summary(run.diagnostics, timeline=run.options.timeline)
            usage_text = render_usage_text(summary["usage"])
        except Exception as exc:  # pragma: no cover - the money summary must not sink the audit
            print(f"cachelint: warning: usage summary failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    notes = run.formats.summary() if run.formats is not None else {}
    if notes:
        from cachelint.payloads.formats._run import render_notes

        summary["fidelity"] = notes
        usage_text = render_notes(notes) + "\n" + usage_text
    summary["text"] = render_text(summary) + (("\n" + usage_text) if usage_text else "")
    return summary


def render_text(summary: dict[str, Any]) -> str:
    """The human per-session report: requests, breaks and the byte diff at each break."""
    lines = [
        f"Audit: {summary['requests']} LLM request(s) in {summary['totals']['sessions']} session(s), "
        f"{summary['totals']['breaks']} break(s); {summary['skipped_non_llm']} non-LLM request(s) skipped"
        + (f"; {summary['failed']} failed request(s) (HTTP error) left out." if summary.get("failed") else ".")
    ]
    shown, hidden = sessions_to_show(summary["sessions"], lambda s: s["breaks"])
    for s in shown:
        model = f" {s['model']}" if s["model"] else ""
        lines.append(
            f"session {s['id']} — {s['provider']}{model}, {s['requests']} request(s), {s['breaks']} break(s); "
            f"from {s['first']}; grouped by {s['grouping_text']}"
        )
        for b in s["break_details"]:
            where = f"at byte {b['offset']} ({b['first_tier']})" if b["offset"] is not None else "settings only"
            lines.append(f"  break {b['location']} {where}; invalidates {', '.join(b['invalidated'])}")
            for text in b["explanation"][:6]:
                lines.append(f"    {text}")
            for text in b["settings"]:
                lines.append(f"    setting {text}")
            if "before" in b:
                lines.append(f"    before: {_one_line(b['before'])}")
                lines.append(f"    after:  {_one_line(b['after'])}")
        if s["breaks"] > len(s["break_details"]):
            lines.append(f"  … {s['breaks'] - len(s['break_details'])} more break(s)")
    if hidden:
        lines.append(f"… {hidden} more session(s) without a break (the HTML report lists every session)")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return text.replace("\n", "\\n").replace("\r", "\\r")
