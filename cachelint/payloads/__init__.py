"""Payload audit (CL3xx): readers -> provider adapters -> sessions -> prefix diff -> checks.

The API calls ``cachelint.payloads.audit.run_audit(paths, settings, options, cwd)``, which returns
an ``AuditResult``. Both types are defined here so that the API, the CLI and the tests share them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from cachelint.diagnostics import Diagnostic

# Names of files the audit reads when it walks a folder. The first group names request logs only
# (``cachelint check`` points a user who gives it one to ``cachelint audit``); JSON and YAML files
# are logs or configuration, told apart by their content.
LOG_ONLY_SUFFIXES = (".jsonl", ".ndjson", ".har")
LOG_SUFFIXES = (*LOG_ONLY_SUFFIXES, ".json", ".yaml", ".yml")


def is_log_name(name: str) -> bool:
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    if lower.endswith(LOG_SUFFIXES):
        return True
    from cachelint.payloads import formats  # log formats known by their names (.zhar)

    return bool(formats.suffixes()) and lower.endswith(formats.suffixes())


def is_request_log_name(name: str) -> bool:
    """A name only request logs have (``.jsonl``, ``.ndjson``, ``.har``, or any log name gzipped)."""
    lower = name.lower()
    if lower.endswith(".gz"):
        return is_log_name(lower)
    return lower.endswith(LOG_ONLY_SUFFIXES)


class EngineError(Exception):
    """The engine asked for cannot run (its extra is not installed, its scheduler is unreachable):
    raised by ``cachelint.payloads.parallel``, defined here so that catching it imports nothing."""


@dataclass
class AuditOptions:
    input_format: str = "auto"  # auto | jsonl | json | har | vcr | a log format (cachelint.payloads.formats.NAMES)
    # the envelope field that holds each record's time (a dotted path into nested objects), when
    # it is none of the fields read by default (cachelint.payloads.readers.TIME_FIELDS)
    time_field: str | None = None
    baseline: str | None = None  # a JSON file of accepted findings (see docs/suppressions.md)
    progress: bool = False  # a progress bar on stderr (the CLI sets it only on a TTY)
    # JSONL records that repeat bytes of a recent record are decoded only where they differ
    # (cachelint.payloads.reuse). Same findings either way; off only to compare the two paths.
    incremental: bool = True
    # Checks that cannot find anything on a pair whose prefix held (or after the first request of
    # a session) are not called there (cachelint.payloads.hooks: PAIR_NEEDS_CHANGE,
    # REQUEST_FIRST_ONLY). Same findings either way; off only to compare the two paths.
    fast_paths: bool = True
    # The usage summary's per-request timeline (one entry per request: what the HTML report
    # draws). The CLI asks for it only for --output-format html: without it the memory of a run
    # does not grow with the number of requests beyond a few packed numbers each.
    timeline: bool = True
    # Worker processes that read and decode JSONL logs (cachelint.payloads.parallel; docs/scale.md):
    # None: [audit] jobs, else the CPUs; 1: one process. The findings are the same either way.
    jobs: int | None = None
    engine: str = "local"  # local | dask (a Dask cluster: the scheduler at ``scheduler``, or a LocalCluster)
    scheduler: str | None = None
    # bytes of a JSONL log per map task (None: [audit] chunk-size, else 32 MiB); a run with less
    # JSONL than this is audited in one process
    chunk_size: int | None = None
    # object storage paths (s3://, gs://, az://): the Hive-style time partitions kept, ISO dates or
    # times, both ends included (cachelint.payloads.readers.storage; docs/scale.md)
    since: str | None = None
    until: str | None = None


@dataclass
class BreakDetail:
    """A break of a session's prefix, as the pair diff found it (the first ``MAX_BREAKS_SHOWN`` of
    a session): where, from which tier and byte on, what it invalidated and why."""

    location: str  # path:line of the request
    path: str
    record: int
    first_tier: str | None
    offset: int | None  # first differing byte of the rendered prefix; None: a setting alone
    invalidated: list[str]
    explanation: list[str]
    settings: list[str]  # "name: before -> after" of each cache setting that changed
    before: str | None = None  # excerpts of both requests around the offset (⟨ marks it)
    after: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "location": self.location,
            "record": self.record,
            "first_tier": self.first_tier,
            "offset": self.offset,
            "invalidated": list(self.invalidated),
            "explanation": list(self.explanation),
            "settings": list(self.settings),
        }
        if self.offset is not None:
            data["before"] = self.before
            data["after"] = self.after
        return data


@dataclass
class Cause:
    """Findings that share a cause (``cachelint.payloads.causes``): one rule, one kind (the volatile
    pattern, the setting, the way the tools changed), one tier, across sessions. ``lost``: the
    findings of it that lost what the previous request had cached (the others say "nothing cached
    was lost"); ``money``: what its breaks cost (None: no price for the model of any of them;
    ``unpriced`` breaks had none); ``example``/``message``: its first finding."""

    code: str
    kind: str | None
    tier: str | None
    findings: int
    sessions: list[str]
    lost: int
    money: float | None
    tokens: int
    unpriced: int
    example: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "kind": self.kind,
            "tier": self.tier,
            "findings": self.findings,
            "sessions": list(self.sessions),
            "lost": self.lost,
            "money": self.money,
            "tokens": self.tokens,
            "unpriced": self.unpriced,
            "example": self.example,
            "message": self.message,
        }


@dataclass
class SessionReport:
    """One session: how it was grouped, its requests and the breaks of its prefix. ``usage``: its
    entry of the usage summary (tokens, hit rate, money, what its misses cost), when there is one."""

    id: str
    grouping: str
    grouping_text: str
    path: str | None  # None for a session of requests that came from no file
    first: str  # path:line of its first request
    provider: str | None
    model: str | None
    requests: int
    breaks: int
    break_details: list[BreakDetail] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    host: str | None = None  # the API's host when it is not the provider's own (a gateway, a compatible API)
    started: str | None = None  # why this session started rather than continuing another
    started_after: str | None = None  # the session it did not continue, when one was near
    # the id the log gave the session (a session field, a key, a trace id) and where it was read
    key: str | None = None
    key_source: str | None = None
    # (path, record) of each of its requests, in order
    records: list[tuple[str, int]] = field(default_factory=list)

    @property
    def label(self) -> str:
        """How reports name it: the log's own id when it gave one (the audit's id and where the
        log's was read beside it), else the audit's."""
        return f"{self.key} ({self.id}, {self.key_source or 'key'})" if self.key else self.id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "key_source": self.key_source,
            "grouping": self.grouping,
            "grouping_text": self.grouping_text,
            "path": self.path,
            "first": self.first,
            "provider": self.provider,
            "host": self.host,
            "model": self.model,
            "started": self.started,
            "started_after": self.started_after,
            "requests": self.requests,
            "breaks": self.breaks,
            "break_details": [b.to_dict() for b in self.break_details],
            "records": [{"path": path, "record": record} for path, record in self.records],
        }


@dataclass
class AuditSummary:
    """What an audit read and found beside its findings, as data (reporters render it; its JSON
    form, ``to_dict``, is documented by rules/schema/audit-output.schema.json).

    Counts: ``files`` read, ``records`` in them, LLM ``requests`` among those, records that are
    not LLM calls (``skipped_non_llm``), requests answered with an HTTP error (``failed``).
    ``formats``: files per format, of the files a record was read from; ``files_without_records``:
    the others (not a log, empty, unreadable: their findings say which). ``unread``: records that look like LLM calls in a shape the
    readers do not read, per shape. ``usage``: the usage and money summary
    (``cachelint.payloads.spend``), with ``sessions`` and ``total``. ``baselined``: findings hidden
    by the baseline. Findings left out by the selection or the baseline are left out of the
    breaks, the counts and the money here too."""

    files: int = 0
    records: int = 0
    requests: int = 0
    skipped_non_llm: int = 0
    failed: int = 0
    formats: dict[str, int] = field(default_factory=dict)
    unread: dict[str, int] = field(default_factory=dict)
    files_without_records: int = 0
    sessions: Sequence[SessionReport] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    baselined: int = 0
    # per fidelity below wire (content, usage): requests, formats, checks not run, what else could
    # not be judged (cachelint.payloads.formats)
    fidelity: dict[str, Any] = field(default_factory=dict)
    # files of two or more requests none of which carries a time: the TTL checks could not run there
    untimed_files: list[str] = field(default_factory=list)
    # coding-agent session files (Claude Code, Codex CLI): their sessions and sub-agents, rebuilds
    # by cause, cold starts, advice (cachelint.transcripts.audit.TranscriptRun.summary)
    coding_agents: dict[str, Any] | None = None
    # the findings grouped by cause, the costliest first (cachelint.payloads.causes)
    causes: list[Cause] = field(default_factory=list)
    # --since / --until (UTC): the window's ends, the requests left out as outside it, and the
    # requests kept because they carry no time; None when neither was given
    time_window: dict[str, Any] | None = None

    @property
    def breaks(self) -> int:
        from cachelint.payloads.session_reports import SessionReports

        if isinstance(self.sessions, SessionReports):
            return self.sessions.breaks  # added up as the run made them, not read back
        return sum(s.breaks for s in self.sessions)

    def to_dict(self, sessions: bool = True) -> dict[str, Any]:
        """``sessions=False``: the "sessions" entry is an empty list and the usage's sessions are
        left as the sequence they are (the JSON report writes the sessions one at a time in their
        place); otherwise every session is in the dictionary."""
        data: dict[str, Any] = {
            "files": self.files,
            "records": self.records,
            "requests": self.requests,
            "skipped_non_llm": self.skipped_non_llm,
            "failed": self.failed,
            "formats": dict(sorted(self.formats.items())),
            "unread": dict(sorted(self.unread.items())),
            "files_without_records": self.files_without_records,
            "baselined": self.baselined,
            "untimed_files": list(self.untimed_files),
            "causes": [c.to_dict() for c in self.causes],
            "sessions": [s.to_dict() for s in self.sessions] if sessions else [],
            "totals": {"sessions": len(self.sessions), "requests": self.requests, "breaks": self.breaks},
        }
        if self.fidelity:
            data["fidelity"] = self.fidelity
        if self.usage is not None:
            data["usage"] = self.usage
            if sessions and "sessions" in self.usage:
                data["usage"] = {**self.usage, "sessions": list(self.usage["sessions"])}
        if self.coding_agents is not None:
            data["coding_agents"] = self.coding_agents
        if self.time_window is not None:
            data["time_window"] = dict(self.time_window)
        return data


@dataclass
class AuditResult:
    diagnostics: list[Diagnostic]
    summary: AuditSummary = field(default_factory=AuditSummary)
    warnings: list[str] = field(default_factory=list)
