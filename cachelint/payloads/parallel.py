"""The audit on several processes, or on a Dask cluster: map -> group -> reduce.

*map* (worker processes): a task reads the lines of a plain JSONL log that start in one byte
range (or the whole of a gzipped one: gzip has no random access; under Dask, an object in
storage is read from the storage by the worker, a plain one by ranged reads), and turns each record into a
Request with the serial code itself: the reader, the reuse decoder, the provider adapters
(``records.RequestBuilder``, as the pipeline's). It returns the requests, the reader's findings
and the records no adapter took, in file order, numbered from the start of the range, with the few
record fields the sessions read.

*group* and *reduce* (this process): the results are taken in file order; their line and record
numbers are moved by the counts of the ranges before them; every request then goes through the
run's ``AuditPipeline`` unchanged (``take_request``, ``take_skipped``…): grouping into sessions,
prefix diff, checks, ledger, summary. So the findings and the summary are those of one process,
byte for byte, whatever the number of workers and the size of the ranges
(tests/payloads/test_parallel.py).

Only plain JSONL logs read by the generic reader are mapped; HAR, JSON, cassettes, log formats
and side files are read in this process, in their turn. A run whose JSONL logs add up to less than
one range is audited in one process: a pool's start-up would cost more than it saves.
"""

from __future__ import annotations

import gzip
import os
import sys
import zlib
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence, cast

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads import EngineError
from cachelint.payloads.model import Origin, Record

if TYPE_CHECKING:
    from cachelint.payloads.pipeline import AuditPipeline

# Bytes of a JSONL log per map task. Large enough that a range's first lines, decoded without the
# reuse of the lines before them, cost well under 1% of its work; small enough that a 250 MB log
# keeps 2-8 workers busy. Also the least a run must read for a pool to be started.
DEFAULT_CHUNK_BYTES = 32 << 20

ENGINES = ("local", "dask")

_BOM = b"\xef\xbb\xbf"

# What a map task returns, one entry per reader item, in file order:
_DIAG = 0  # a finding of the reader (a bad line): (kind, Diagnostic)
_RECORD_DIAG = 1  # a record that could not be interpreted: (kind, Diagnostic)
_SKIPPED = 2  # a record no adapter took: (kind, Origin, unread shape, unread reason)
_REQUEST = 3  # (kind, Request, the Record cut down to what the driver reads)
_FILE_DIAG = 4  # a problem of the whole file (cannot read it): (kind, Diagnostic), not renumbered


@dataclass(frozen=True)
class MapTask:
    """One unit of the map: the lines of ``path`` starting in [start, end) (``end`` None: to the
    end of the file), or with ``whole`` the whole file (gzip)."""

    path: str
    display: str
    start: int = 0
    end: int | None = None
    whole: bool = False


@dataclass
class ChunkFacts:
    """What a map task returns. ``pad``: blank lines fed to the reader before the range's first
    line (so that a range starting mid-file never strips a BOM as the file's line 1); line numbers
    of the events count them. ``lines`` / ``records``: the range's own lines and the records the
    reader counted in them (the base of the next range)."""

    events: list[tuple[Any, ...]] = field(default_factory=list)
    pad: int = 0
    lines: int = 0
    records: int = 0


@dataclass(frozen=True)
class MapConfig:
    """Everything a worker needs to map (picklable: it travels to Dask workers): the packs the
    reader and the request builder are built from, the read limits and two options."""

    packs: tuple[tuple[str, tuple[Any, ...]], ...]
    limits: Any
    reuse: bool
    time_field: str | None
    token: str = ""

    @classmethod
    def of(cls, packs: dict[str, list[Any]], limits: Any, reuse: bool, time_field: str | None) -> "MapConfig":
        frozen = tuple((kind, tuple(packs[kind])) for kind in sorted(packs))
        import hashlib
        import pickle

        token = hashlib.sha256(pickle.dumps((frozen, limits, reuse, time_field), protocol=4)).hexdigest()
        return cls(frozen, limits, reuse, time_field, token)


@dataclass
class _MapState:
    redactor: Any
    rules: Any
    keys: Any
    limits: Any
    range_limits: Any  # for a range: no line limit (its numbers are local; the driver applies it)
    reuse: bool
    time_field: str | None


# Per process: the state built from a MapConfig, by token (a forked worker inherits the driver's).
_STATES: dict[str, _MapState] = {}


def _state(config: MapConfig) -> _MapState:
    found = _STATES.get(config.token)
    if found is None:
        from cachelint.payloads import jsonio
        from cachelint.payloads.endpoints import EndpointRules
        from cachelint.payloads.secrets import Redactor
        from cachelint.payloads.sessions import SessionKeys

        packs = dict(config.packs)
        found = _STATES[config.token] = _MapState(
            redactor=Redactor.from_packs(list(packs["payloads-secrets"])),
            rules=EndpointRules.from_packs(list(packs["payloads-providers"])),
            keys=SessionKeys.from_packs(list(packs["payloads-session-keys"])),
            limits=config.limits,
            range_limits=replace(config.limits, max_records=sys.maxsize),
            reuse=config.reuse and jsonio.FAST,
            time_field=config.time_field,
        )
    return found


# --- the map ------------------------------------------------------------------------------------


class _RangeReader:
    """``readline`` over the lines of a file that start in [start, end), for the JSONL reader.

    A range that does not start at 0 begins with the first line starting at or after ``start``;
    the line in progress at ``end`` is finished (it belongs to this range, however long). ``pad``
    blank lines come first. Counts the range's lines and the records the reader will count in
    them: every line that is not blank once a BOM is stripped from the file's line 1, and every
    line over the reader's size limit."""

    def __init__(self, path: str, start: int, end: int | None, pad: int) -> None:
        from cachelint.payloads.readers.storage import is_remote, open_object_range

        first = max(0, start - 1)
        if is_remote(path):  # a range of an object in storage, read from there by a Dask worker
            self._file = open_object_range(path, first)
        else:
            self._file = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - closed by close()
        try:
            if start > 0:
                self._file.seek(first)
                self._file.readline()  # the rest of the line in progress at start - 1 (maybe its "\n")
        except BaseException:
            self._file.close()
            raise
        self._end = end
        self._pos = self._file.tell()
        self._pad = pad
        self._file_start = start == 0
        self._in_line = False
        self.lines = 0
        self.records = 0

    def readline(self, limit: int = -1) -> bytes:
        if self._pad:
            self._pad -= 1
            return b"\n"
        if not self._in_line and self._end is not None and self._pos >= self._end:
            return b""
        piece = self._file.readline(limit)
        if not piece:
            return piece
        if not self._in_line:
            self.lines += 1
            self._count(piece, limit)
        self._pos += len(piece)
        self._in_line = not piece.endswith(b"\n")
        return piece

    def _count(self, piece: bytes, limit: int) -> None:
        # as readers.read_lines: it reads ``max-record-size + 1`` bytes of a line
        if 0 <= limit - 1 < len(piece) and not piece.endswith(b"\n"):
            self.records += 1  # over the limit: a CL001 with a record number of its own
            return
        if self._file_start and self.lines == 1 and piece.startswith(_BOM):
            piece = piece[3:]
        if piece.strip():
            self.records += 1

    def close(self) -> None:
        self._file.close()


def map_chunk(config: MapConfig, task: MapTask, line_base: int | None = None) -> ChunkFacts:
    """The map task: the requests and findings of one range (or whole file), in file order.

    ``line_base``: the lines of the file before the range, when they are known (the driver maps
    a range again itself when the file's line limit falls in it): the events are then numbered
    as in the file and the limit is applied."""
    from cachelint.payloads.readers import compressed_bytes, open_log, read_lines
    from cachelint.payloads.readers.storage import is_remote, open_object
    from cachelint.payloads.records import RequestBuilder
    from cachelint.payloads.reuse import LineReuse

    state = _state(config)
    out = ChunkFacts()
    display = task.display
    try:
        if task.whole:
            # an object in storage is read from there, by the worker (docs/scale.md)
            handle, raw = open_object(task.path) if is_remote(task.path) else open_log(Path(task.path))
            reader = None
        else:
            out.pad = line_base if line_base is not None else (1 if task.start > 0 else 0)
            reader = _RangeReader(task.path, task.start, task.end, out.pad)
            handle = raw = cast(IO[bytes], reader)  # reads like a binary file: read, readline, tell
    except PermissionError:
        out.events.append((_FILE_DIAG, unreadable(display, "cannot read file: permission denied")))
        return out
    except OSError as exc:
        out.events.append((_FILE_DIAG, unreadable(display, f"cannot read file: {exc.strerror or exc}")))
        return out
    limits = state.limits if task.whole or line_base is not None else state.range_limits
    # a cache of blocks of its own a task: the results do not depend on which worker ran what
    builder = RequestBuilder(state.rules, state.time_field)
    events = out.events
    keys = state.keys
    try:
        items = read_lines(
            handle, display, state.redactor, limits, LineReuse() if state.reuse else None, compressed_bytes(handle)
        )
        for item in items:
            if isinstance(item, Diagnostic):
                events.append((_DIAG, item))
                continue
            item, req = builder.build(item)
            if isinstance(req, Diagnostic):
                events.append((_RECORD_DIAG, req))
            elif req is None:
                events.append((_SKIPPED, item.origin, *builder.unread(item)))
            else:
                events.append((_REQUEST, req, _evidence(item, keys)))
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        events.append((_FILE_DIAG, unreadable(display, f"truncated or corrupt gzip data: {exc}")))
    except OSError as exc:
        events.append((_FILE_DIAG, unreadable(display, f"cannot read file: {exc.strerror or exc}")))
    finally:
        if handle is not raw:
            handle.close()
        raw.close()
    if reader is not None:
        out.lines = reader.lines
        out.records = reader.records
    return out


def _evidence(item: Record, keys: Any) -> Record:
    """The record as the driver reads it: the session evidence (headers, envelope session,
    hashed ids, the pack's weak body fields), status, format and fidelity; the response only of
    a rejected request (its error message). The body and the envelope stay in the worker."""
    body = item.request if isinstance(item.request, dict) else {}
    failed = item.status is not None and item.status >= 400
    return Record(
        origin=item.origin,
        request={name: body[name] for name in keys.weak_fields if name in body},
        response=item.response if failed else None,
        time=item.time,
        url=item.url,
        method=item.method,
        headers=item.headers,
        session=item.session,
        status=item.status,
        fmt=item.fmt,
        hashed_ids=item.hashed_ids,
        session_field=item.session_field,
        fidelity=item.fidelity,
    )


# --- planning -------------------------------------------------------------------------------------


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def plan_tasks(path: Path, display: str, chunk_bytes: int) -> list[MapTask] | None:
    """The map tasks of one log the generic JSONL reader reads, or None when the file is read in
    the driver (it cannot be opened, or does not look like a log: ``read_log`` says why)."""
    from cachelint.payloads.readers import glance, open_log
    from cachelint.payloads.shapes import not_a_log

    try:
        handle, raw = open_log(path)
    except OSError:
        return None
    with raw, handle:
        try:
            if not_a_log(display, glance(handle)) is not None:
                return None
            size = os.fstat(raw.fileno()).st_size
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
            return None
        if handle is not raw:
            return [MapTask(str(path), display, whole=True)]
    cuts = list(range(0, size, chunk_bytes)) or [0]
    return [
        MapTask(str(path), display, start, cuts[i + 1] if i + 1 < len(cuts) else None) for i, start in enumerate(cuts)
    ]


# --- engines ----------------------------------------------------------------------------------


def _ordered(
    submit: Callable[[MapTask], Any], wait: Callable[[Any], ChunkFacts], tasks: Iterable[MapTask], window: int
) -> Iterator[ChunkFacts]:
    """The results of ``tasks`` in their order, with at most ``window`` of them submitted and not
    yet consumed: the driver (group, reduce) is the slower side, and results waiting for it would
    otherwise pile up in memory."""
    pending: deque[Any] = deque()
    it = iter(tasks)
    for task in it:
        pending.append(submit(task))
        if len(pending) >= window:
            break
    while pending:
        future = pending.popleft()
        facts = wait(future)
        for task in it:
            pending.append(submit(task))
            break
        yield facts


class _LocalEngine:
    """Worker processes of this machine: forked on Linux after the packs are loaded (they inherit
    them), started afresh elsewhere."""

    def __init__(self, jobs: int, config: MapConfig) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
        self.jobs = jobs
        self.config = config
        self.pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_state, initargs=(config,))

    def results(self, tasks: Iterable[MapTask]) -> Iterator[ChunkFacts]:
        return _ordered(
            lambda t: self.pool.submit(map_chunk, self.config, t), lambda f: f.result(), tasks, 2 * self.jobs
        )

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _DaskEngine:
    """Dask distributed: the scheduler at ``address``, or a LocalCluster of ``jobs`` worker
    processes. The workers must read the logs at the paths the driver sees (a shared file system)."""

    def __init__(self, jobs: int, config: MapConfig, address: str | None) -> None:
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise EngineError("--engine dask needs Dask distributed: pip install 'prefix-cache-lint[dask]'") from exc
        self.cluster = None
        try:
            if address:
                self.client = Client(address, timeout=30)
            else:
                self.cluster = LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            if self.cluster is not None:
                self.cluster.close()
            raise EngineError(f"cannot reach the Dask scheduler {address}: {exc}") from exc
        self.jobs = max(1, len(self.client.scheduler_info().get("workers", {})) or jobs)
        self.config = self.client.scatter(config, broadcast=True)

    def results(self, tasks: Iterable[MapTask]) -> Iterator[ChunkFacts]:
        return _ordered(
            lambda t: self.client.submit(map_chunk, self.config, t, pure=False),
            lambda f: f.result(),
            tasks,
            2 * self.jobs,
        )

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


# --- the driver -------------------------------------------------------------------------------


class ParallelFeed:
    """The JSONL logs of a run mapped by an engine, consumed by the serial pipeline in file order."""

    def __init__(self, tasks: dict[str, list[MapTask]], engine: Any, config: MapConfig) -> None:
        self.tasks = tasks
        self.engine = engine
        self.config = config
        self._results = engine.results(t for display in tasks for t in tasks[display])
        self._done: set[str] = set()

    def takes(self, display: str) -> bool:
        """Whether the map read ``display`` (the first time a run names it)."""
        return display in self.tasks and display not in self._done

    def audit_file(self, pipeline: AuditPipeline, display: str) -> None:
        """As ``AuditPipeline.read_file``, from the map's results: every event renumbered, then
        through the pipeline."""
        self._done.add(display)
        limits = pipeline.limits
        before = pipeline.records
        line_base = record_base = 0
        stopped = False
        for task in self.tasks[display]:
            facts = next(self._results)
            if stopped:
                continue  # past the file's line limit: mapped, not audited (as the serial reader)
            if not task.whole and line_base + facts.lines > limits.max_records:
                facts = map_chunk(self.config, task, line_base=line_base)  # the limit falls here
                stopped = True
            _apply(pipeline, facts, line_base - facts.pad, record_base)
            line_base += facts.lines
            record_base += facts.records
            if pipeline.progress is not None:
                pipeline.progress.records_seen(pipeline.records, task.end)
        pipeline.file_done(display, "jsonl", pipeline.records > before)

    def close(self) -> None:
        self.engine.close()


def _apply(pipeline: AuditPipeline, facts: ChunkFacts, line_shift: int, record_base: int) -> None:
    def moved(origin: Origin) -> Origin:
        return Origin(origin.path, origin.line + line_shift, origin.record + record_base, origin.entry)

    for event in facts.events:
        kind = event[0]
        if kind == _FILE_DIAG:
            pipeline.take_diagnostic(event[1])
        elif kind == _DIAG:
            pipeline.take_diagnostic(_moved_diagnostic(event[1], line_shift, record_base))
        elif kind == _REQUEST:
            req, record = event[1], event[2]
            req.origin = record.origin = moved(record.origin)
            pipeline.take_request(req, record)
        elif kind == _SKIPPED:
            pipeline.take_skipped(moved(event[1]), event[2], event[3])
        else:
            pipeline.take_record_problem(_moved_diagnostic(event[1], line_shift, record_base))


def _moved_diagnostic(d: Diagnostic, line_shift: int, record_base: int) -> Diagnostic:
    return d.with_changes(
        line=d.line + line_shift,
        end_line=(d.end_line if d.end_line is not None else d.line) + line_shift,
        record=None if d.record is None else d.record + record_base,
    )


def start_feed(pipeline: AuditPipeline, logs: Sequence[tuple[Path, str]]) -> ParallelFeed | None:
    """The feed for the JSONL logs of a run, or None when the run is audited in one process:
    one job, or less than one range of JSONL in all."""
    from cachelint.catalog import load_packs
    from cachelint.payloads.readers.storage import is_remote

    options = pipeline.options
    section = pipeline.settings.section("audit")
    engine_name = options.engine or "local"
    jobs = options.jobs or int(section.get("jobs", 0)) or default_jobs()
    if engine_name == "local" and jobs <= 1:
        return None
    chunk_bytes = options.chunk_size or int(section.get("chunk-size", DEFAULT_CHUNK_BYTES))
    chosen: dict[str, Path] = {}
    total = 0
    for path, display in logs:
        if display in pipeline.formats.side or display in chosen or pipeline.formats.format_of(display) != "jsonl":
            continue
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # read in the driver, which says why
        chosen[display] = path
    if total < chunk_bytes:
        return None  # before any file is opened: a small audit starts as fast as in one process
    tasks: dict[str, list[MapTask]] = {}
    for display, path in chosen.items():
        planned = plan_tasks(path, display, chunk_bytes)
        if planned is not None and engine_name == "dask" and is_remote(display):
            # an object in storage is read by its workers from the storage, not from the
            # driver's copy (which only the driver can see): a plain one by byte ranges, as a
            # local file; a gzip one whole (gzip has no random access)
            planned = [replace(task, path=display) for task in planned]
        if planned is not None:
            tasks[display] = planned
    if not tasks:
        return None
    extra = pipeline.settings.pack_paths()
    packs = {
        kind: load_packs(kind, extra) for kind in ("payloads-secrets", "payloads-providers", "payloads-session-keys")
    }
    config = MapConfig.of(packs, pipeline.limits, bool(options.incremental), pipeline.time_field)
    # this process maps too (a range where a file's line limit falls): with the run's own objects,
    # which a forked worker inherits
    _STATES[config.token] = _MapState(
        redactor=pipeline.redactor,
        rules=pipeline.rules,
        keys=pipeline.grouper.keys,
        limits=config.limits,
        range_limits=replace(config.limits, max_records=sys.maxsize),
        reuse=_state_reuse(config),
        time_field=config.time_field,
    )
    if engine_name == "dask":
        engine: Any = _DaskEngine(jobs, config, options.scheduler)
    else:
        engine = _LocalEngine(min(jobs, sum(len(t) for t in tasks.values())), config)
    return ParallelFeed(tasks, engine, config)


def _state_reuse(config: MapConfig) -> bool:
    from cachelint.payloads import jsonio

    return config.reuse and jsonio.FAST
