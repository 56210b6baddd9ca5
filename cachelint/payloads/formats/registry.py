"""The one registry of log formats, and the reading of a log through it.

Every module of this package that defines ``FORMAT``, a ``LogFormat``, is one format: the generic
ones (``jsonl``, ``json``, ``har``, ``vcr``: a request body or an envelope in each record, HAR 1.2,
cassettes) and those of the tools teams already run (observability exports, gateway logs, batch
files, provider logs, agent transcripts). A format says how to recognise a record of it and how
to turn a record into the ``Record`` (request body, response, time, session key) the audit reads.

``read_log`` reads a file with the format ``--input-format`` names, else the one its name says
(``.har``, ``.zhar``…), else the format that claims the first record of a JSONL or JSON file,
else the generic reader of that container (``resolve``). A format's records come in one of three
containers: JSONL lines (streamed, with the reuse of repeated bytes where the body sits at a fixed
place), a JSON document whose records sit at a path (streamed with ``stream.JsonStream``), or the
format's own reader (``read``: the generic formats and ``.zhar``).

``fidelity`` says how much of the wire request a format keeps (``wire``, ``content``, ``usage``;
``cachelint.payloads.model.FIDELITIES``): the audit runs on each request only the checks its
fidelity can support. ``keeps`` is the row of the table in docs/audit.md.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import importlib
import io
import pkgutil
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Mapping

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads import jsonio
from cachelint.payloads.formats import NAMES
from cachelint.payloads.formats.common import HistoryReplay
from cachelint.payloads.formats.stream import JsonStream, StreamError, first_key
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.readers.bodies import BodyTexts
from cachelint.payloads.readers.envelopes import records_from_value
from cachelint.payloads.readers.files import GZIP_MAGIC, ChunkedReads, ReadLimits, glance, open_log, peek
from cachelint.payloads.readers.files import compressed_bytes
from cachelint.payloads.readers.lines import read_lines
from cachelint.payloads.reuse import LineReuse
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.shapes import not_a_log

Item = Record | Diagnostic

# The columns of the docs table, in order.
KEEPS = ("wire bytes", "key order", "cache markers", "usage", "time", "session key")


@dataclass
class Joins:
    """What side files (batch results) say about requests of other files, by ``custom_id``:
    ``(response body, HTTP status)``. Filled before the request files are read."""

    by_id: dict[str, tuple[Any, int | None]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    files: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # side file -> (format title, its ids)
    repeated: set[str] = field(default_factory=set)  # ids found in two side files: not joined

    def put(self, display: str, title: str, custom_id: Any, response: Any, status: int | None) -> None:
        if not isinstance(custom_id, str):
            return
        self.files.setdefault(display, (title, []))[1].append(custom_id)
        if custom_id in self.by_id:
            self.repeated.add(custom_id)
        self.by_id[custom_id] = (response, status)

    def take(self, custom_id: Any) -> tuple[Any, int | None] | None:
        if not isinstance(custom_id, str):
            return None
        found = self.by_id.get(custom_id) if custom_id not in self.repeated else None
        if found is not None:
            self.used.add(custom_id)
        return found


@dataclass
class Unread:
    """Records of a file that look like LLM calls but cannot be read as requests, counted by the
    reason: reported once per file and reason, with the count, not once per line."""

    counts: dict[str, list[Any]] = field(default_factory=dict)  # reason -> [count, first origin]

    def add(self, reason: str, origin: Origin) -> None:
        entry = self.counts.get(reason)
        if entry is None:
            self.counts[reason] = [1, origin]
        else:
            entry[0] += 1

    def diagnostics(self) -> list[Diagnostic]:
        out = []
        for reason, (count, origin) in sorted(self.counts.items(), key=lambda kv: (kv[1][1].record, kv[0])):
            out.append(
                unreadable(
                    origin.path,
                    f"{count} record(s) {reason}" + (f" (the first at record {origin.record})" if count > 1 else ""),
                    line=origin.line,
                    record=origin.record,
                )
            )
        return out


@dataclass
class ReadContext:
    """What a format's reader needs for one file: where it reads, the redactor, the limits, the
    joins of the run, a counter of unread records and a place for per-file state. ``name``: the
    format the file is read as (the name given to ``--input-format``, or the format's);
    ``reuse``: the reuse of the bytes a JSONL line repeats from a recent one, when it is on."""

    display: str
    redactor: Any
    limits: Any
    joins: Joins
    unread: Unread = field(default_factory=Unread)
    state: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    reuse: LineReuse | None = None


Records = Callable[[Any, Origin, ReadContext, tuple], Iterator[Item]]


@dataclass(frozen=True)
class LogFormat:
    """One log format.

    ``matches(record)``: whether a parsed record (a JSONL line, an element of the document's
    records) is one of this format's. ``records(record, origin, ctx, context)``: its Records and
    CL001s (``context``: the members of the objects on the way to it in a JSON document).
    ``read(handle, ctx)``: a reader of the whole file, for formats that are not records of JSON
    (``records`` is then unused). ``document_paths``: first member name of a JSON document ->
    the path of the records in it (``stream.JsonStream.items``); a top-level array is always
    read as records. ``body_paths``: where the request body sits in a record when it is the
    record's own object (the JSONL reader then reuses bytes repeated from recent lines).
    ``side``: the file holds results of requests that sit in other files (batch results), read
    into ``Joins`` first. ``suffixes``: file names that say the format (``.zhar``; a generic
    format's names compressed too: ``.jsonl.gz``). ``finish``: called at the end of each file
    (records held back, e.g. to merge lines of one API call). ``generic``: the reader of a
    container as such (a request body or an envelope in each record, HAR, cassettes): never
    claims a record, reads what no other format claims. ``agent_sessions``: the files are a coding
    agent's sessions, audited whole by ``cachelint.transcripts`` (threads, rebuilds and their
    causes), not read as requests (``records`` and ``read`` are then unused).
    """

    name: str
    title: str
    fidelity: str
    keeps: Mapping[str, str]
    matches: Callable[[Any], bool] | None = None
    records: Records | None = None
    read: Callable[[IO[bytes], ReadContext], Iterator[Item]] | None = None
    document_paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    body_paths: tuple[tuple[str, ...], ...] = ()
    side: bool = False
    suffixes: tuple[str, ...] = ()
    finish: Callable[[ReadContext], Iterator[Item]] | None = None
    sequence: bool = False  # a JSON file may hold several documents one after the other
    source: str = ""  # the public specification the reader follows (docs table)
    generic: bool = False
    agent_sessions: bool = False
    # a Parquet export's column -> the field of this format's record it holds (a dotted path),
    # where the table renames them; other columns keep their names (``formats.parquet``)
    columns: Mapping[str, str] = field(default_factory=dict)
    # the first bytes that say the format whatever the file is named (a format with its own reader)
    magic: bytes = b""
    # each file is one recording (a test's cassette): its requests never continue a session of
    # another file (``cachelint.payloads.sessions``)
    recording: bool = False


@functools.lru_cache(maxsize=1)
def all_formats() -> tuple[LogFormat, ...]:
    """Every format in ``NAMES`` order: the generic ones, then the others most specific first
    (detection takes the first whose ``matches`` is true)."""
    package = importlib.import_module("cachelint.payloads.formats")
    found = []
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")):
        fmt = getattr(importlib.import_module(f"{package.__name__}.{module}"), "FORMAT", None)
        if isinstance(fmt, LogFormat):
            found.append(fmt)
    return tuple(sorted(found, key=lambda f: (NAMES.index(f.name) if f.name in NAMES else len(NAMES), f.name)))


def names() -> tuple[str, ...]:
    """Every value of ``--input-format`` but ``auto``."""
    return tuple(f.name for f in all_formats())


def get(name: str) -> LogFormat | None:
    return _by_name().get(name)


@functools.lru_cache(maxsize=1)
def _by_name() -> dict[str, LogFormat]:
    return {fmt.name: fmt for fmt in all_formats()}


def by_name(name: str) -> LogFormat | None:
    """The format a file name says (``.har``, ``.jsonl.gz``, ``.zhar``), or None."""
    lower = name.lower()
    for fmt in all_formats():
        if fmt.suffixes and lower.endswith(fmt.suffixes):
            return fmt
    return None


def suffixes() -> tuple[str, ...]:
    return tuple(s for f in all_formats() for s in f.suffixes)


@functools.lru_cache(maxsize=1)
def recording_formats() -> frozenset[str]:
    """The formats whose files are each one recording (``LogFormat.recording``)."""
    return frozenset(f.name for f in all_formats() if f.recording)


def match(record: Any) -> LogFormat | None:
    """The format a parsed record belongs to, or None (the generic formats then read it). A
    record without members belongs to none: every format is told by its members (a flood of
    ``{}`` lines asked each format's test of each line)."""
    if not isinstance(record, dict) or not record:
        return None
    for fmt in all_formats():
        if fmt.matches is None:
            continue
        try:
            if fmt.matches(record):
                return fmt
        except (TypeError, AttributeError, KeyError, ValueError):
            continue
    return None


def document_keys() -> dict[str, tuple[str, ...]]:
    """Every container member name of a JSON document any format declares -> its path."""
    keys: dict[str, tuple[str, ...]] = {}
    for fmt in all_formats():
        for key, path in fmt.document_paths.items():
            keys.setdefault(key, path)
    return keys


# --- which format reads a file -------------------------------------------------------------


def detect_format(name: str, head: bytes) -> str:
    """The generic format of a log from its name and first bytes: ``jsonl``, ``json``, ``har``
    or ``vcr`` (the container a format's records come in)."""
    named = by_name(name)
    if named is not None and named.generic:
        return named.name
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    text = text[3:] if text.startswith(b"\xef\xbb\xbf") else text
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        first, sep, rest = text.partition(b"\n")
        if sep and rest.strip():
            try:
                jsonio.loads(first)
                return "jsonl"  # a complete document on the first line and more after it
            except (ValueError, RecursionError):
                pass
        return "json"
    if text.startswith((b"interactions:", b"http_interactions:", b"---", b"version:", b"requests:")):
        return "vcr"
    return "jsonl"


def resolve(handle: IO[bytes], display: str, fmt: str, limits: ReadLimits) -> tuple[LogFormat, str]:
    """(the format to read a file with, the container its records come in: ``jsonl``, ``json``,
    or, for a generic format or one with its own reader, the format's name). ``fmt``: the name
    given to ``--input-format``, or ``auto``: the file's name, then its first record. A name no
    format has is read as a JSON document (the API may pass one)."""
    named = by_name(display)
    if fmt != "auto":
        chosen = get(fmt) or _generic("json")
        if chosen.generic or chosen.read is not None:
            return chosen, chosen.name
        if named is not None and named.name == "jsonl":
            return chosen, "jsonl"
        return chosen, detect_format(display, peek(handle, limits.max_record_size))
    if named is not None and not named.generic:
        return resolve(handle, display, named.name, limits)
    if named is not None and named.name != "jsonl":
        return named, named.name  # HAR and cassettes are known by their names
    if named is None:
        head = peek(handle, limits.max_record_size)
        for candidate in all_formats():
            if candidate.magic and candidate.read is not None and head.startswith(candidate.magic):
                return candidate, candidate.name
        container = detect_format(display, head)
    else:
        container = named.name
    if container in ("jsonl", "json"):
        found = first_record_format(handle, container, limits)
        if found is not None:
            return found, container
    return _generic(container), container


def _generic(name: str) -> LogFormat:
    found = get(name)
    assert found is not None and found.generic, name
    return found


def first_record_format(handle: IO[bytes], container: str, limits: Any) -> LogFormat | None:
    """The format that claims the first record of a JSONL or JSON file (the stream is rewound)."""
    start = handle.tell()
    try:
        try:
            head = peek(handle, limits.max_record_size)
        except (EOFError, OSError, zlib.error):
            return None  # a truncated or corrupt stream: the generic reader reports it where it breaks
        if container == "jsonl":
            for line in head.split(b"\n"):
                line = line.strip().lstrip(b"\xef\xbb\xbf")
                if line:
                    try:
                        return match(jsonio.loads(line))
                    except (ValueError, RecursionError):
                        return None
            return None
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        key = first_key(head)
        if text.startswith(b"["):
            path: tuple[str, ...] = ("*",)
        elif key is not None and key in document_keys():
            path = document_keys()[key]
        else:
            path = ()
        stream = JsonStream(handle, limits.max_record_size)
        if head.startswith(b"\xef\xbb\xbf"):
            handle.read(3)
        try:
            for value, _line, _ctx in stream.items(path, sequence=True):
                return match(value)
        except (StreamError, RecursionError, EOFError, OSError, zlib.error):
            return None
        return None
    finally:
        handle.seek(start)


# --- reading a log ---------------------------------------------------------------------------


def unlike_a_log(handle: IO[bytes], display: str) -> Diagnostic | None:
    """One CL001 saying what a file whose first bytes are not JSON looks like (Python,
    Markdown…), instead of one "not valid JSON" per line; None for a file that starts like JSON
    (the generic JSON formats ask it first)."""
    unlike = not_a_log(display, glance(handle))
    return unreadable(display, unlike) if unlike is not None else None


def read_log(
    path: Path,
    display: str,
    fmt: str,
    redactor: Redactor,
    limits: ReadLimits = ReadLimits(),
    reuse: bool = False,
    position: list[Callable[[], int]] | None = None,
    formats: list[str] | None = None,
    joins: Joins | None = None,
) -> Iterator[Item]:
    """Every record of one log file, in file order (HAR: in ``startedDateTime`` order); problems
    become CL001 diagnostics and reading goes on where it can. ``fmt``: the name given to
    ``--input-format``, or ``auto``. ``reuse``: records repeating bytes of a recent record are
    decoded only where they differ (``cachelint.payloads.reuse``); for a consumer that turns each
    record into a request before asking for the next one. ``position``: a list that receives a
    function giving how many bytes of the file (as stored: compressed for .gz) have been read so
    far (the progress bar within a long file). ``formats``: a list that receives the format the
    file was read as. A file of a JSON format whose first bytes are not JSON (Python,
    Markdown…) is one CL001 saying what it looks like. ``joins``: what the run's side files
    (batch results) say about requests by ``custom_id``."""
    try:
        handle, raw = open_log(path)
    except PermissionError:
        yield unreadable(display, "cannot read file: permission denied")
        return
    except OSError as exc:
        yield unreadable(display, f"cannot read file: {exc.strerror or exc}")
        return
    if position is not None:
        position[:] = [raw.tell]  # bytes of the file as stored (compressed for .gz)
    with raw, handle:
        try:
            log_format, container = resolve(handle, display, fmt, limits)
            name = fmt if fmt != "auto" else log_format.name
            if formats is not None:
                formats.append(name)
            yield from read_as(log_format, container, handle, display, name, redactor, limits, reuse, joins)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            yield unreadable(display, f"truncated or corrupt gzip data: {exc}")
        except OSError as exc:
            yield unreadable(display, f"cannot read file: {exc.strerror or exc}")


def read_as(
    fmt: LogFormat,
    container: str,
    handle: IO[bytes],
    display: str,
    name: str,
    redactor: Redactor,
    limits: ReadLimits,
    reuse: bool,
    joins: Joins | None,
) -> Iterator[Item]:
    """The items of one opened file read with ``fmt`` (``resolve``)."""
    ctx = ReadContext(display, redactor, limits, joins if joins is not None else Joins(), name=name)
    fast = bool(reuse and jsonio.FAST)  # reuse needs orjson: without it every line is decoded in full
    if not fmt.generic:
        # the history of content-level requests built once (needs the same consumer as reuse)
        ctx.state["replay"] = fast and fmt.fidelity != "wire" or bool(reuse and fmt.name == "langsmith")
        if fast:  # bodies held as text or among other fields (a generic record's body is its own object)
            ctx.state["bodies"] = BodyTexts(redactor)
    line_reuse = None
    if fast and container == "jsonl" and fmt.body_paths:
        line_reuse = LineReuse(body_paths=fmt.body_paths)
    return read_records(fmt, handle, container, ctx, line_reuse)


def sniff_format(path: Path, display: str, fmt: str, limits: ReadLimits = ReadLimits()) -> str:
    """The name of the format ``read_log`` will read a file with (``fmt`` when forced); ``jsonl``
    when the file cannot be opened (``read_log`` then reports why)."""
    if fmt != "auto":
        return fmt
    try:
        handle, raw = open_log(path)
    except OSError:
        return "jsonl"
    with raw, handle:
        try:
            return resolve(handle, display, fmt, limits)[0].name
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
            return "jsonl"


def read_bytes_as_log(
    data: bytes, display: str, fmt: str, redactor: Redactor, limits: ReadLimits = ReadLimits()
) -> list[Item]:
    """Read an in-memory log (fuzzing, tests): the same code path as files."""
    handle: IO[bytes] = io.BufferedReader(io.BytesIO(data))
    if data[:2] == GZIP_MAGIC:
        handle = gzip.GzipFile(fileobj=ChunkedReads(io.BytesIO(data)), mode="rb")  # type: ignore[assignment]
    out: list[Item] = []
    try:
        log_format, container = resolve(handle, display, fmt, limits)
        name = fmt if fmt != "auto" else log_format.name
        out.extend(read_as(log_format, container, handle, display, name, redactor, limits, False, None))
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        out.append(unreadable(display, f"truncated or corrupt gzip data: {exc}"))
    return out


# --- the records of a format -----------------------------------------------------------------


def read_records(
    fmt: LogFormat, handle: IO[bytes], container: str, ctx: ReadContext, reuse: LineReuse | None = None
) -> Iterator[Item]:
    """Every item of one file of format ``fmt`` held in ``container`` (``jsonl``, ``json``, or
    the format's own reader). ``reuse``: of the bytes a JSONL line repeats (``ctx.reuse``). The
    items pass through no more Python frames than the reading needs: a line of a large log is
    read in a few microseconds."""
    if reuse is not None:
        ctx.reuse = reuse
    if fmt.read is not None:
        items = fmt.read(handle, ctx)
    elif fmt.records is None:  # a coding agent's session files: audited whole by cachelint.transcripts
        return iter(
            (unreadable(ctx.display, f"a {fmt.title}: `cachelint audit` reads it as a coding agent's sessions"),)
        )
    elif container == "jsonl":
        items = _jsonl_records(fmt, handle, ctx)
    else:
        items = _document_records(fmt, handle, ctx)
    items = itertools.chain(items, _end_of_file(fmt, ctx))
    bodies = ctx.state.get("bodies")
    if bodies is not None:
        items = _bound(items, bodies)
    if ctx.state.get("replay"):
        items = _replayed(items, ctx)
    return items


def _end_of_file(fmt: LogFormat, ctx: ReadContext) -> Iterator[Item]:
    """What a format says once the file is read: the records it held back, the unread ones."""
    if fmt.finish is not None:
        yield from fmt.finish(ctx)
    yield from ctx.unread.diagnostics()


def _bound(items: Iterator[Item], bodies: Any) -> Iterator[Item]:
    """Records whose body a format noted as JSON text, given the reuse of its repeated bytes as
    they go to the consumer (``readers.BodyTexts``)."""
    for item in items:
        bodies.bind(item)
        yield item


def _replayed(items: Iterator[Item], ctx: ReadContext) -> Iterator[Item]:
    """Content-level records with their history prefix replayed (``common.HistoryReplay``)."""
    replay = HistoryReplay()
    for item in items:
        if isinstance(item, Record) and item.fidelity == "content":
            replay.prepare(item)
        yield item


def _jsonl_records(fmt: LogFormat, handle: IO[bytes], ctx: ReadContext) -> Iterator[Item]:
    """The records of a format whose records are JSONL lines."""
    jsonl_records = fmt.records
    assert jsonl_records is not None

    def adapt(value: Any, origin: Origin, redactor: Any, _fmt: str) -> Iterator[Item]:
        if not isinstance(value, dict):
            yield unreadable(
                origin.path,
                f"record is a JSON {type(value).__name__}, expected a {fmt.title} record (an object)",
                line=origin.line,
                record=origin.record,
            )
        elif _claims(fmt, value):
            yield from guarded(fmt, jsonl_records, value, origin, ctx, ())
        else:  # a record of another shape in the file: read as the generic reader would
            yield from records_from_value(value, origin, redactor, "jsonl")

    return read_lines(handle, ctx.display, ctx.redactor, ctx.limits, ctx.reuse, compressed_bytes(handle), records=adapt)


def _document_records(fmt: LogFormat, handle: IO[bytes], ctx: ReadContext) -> Iterator[Item]:
    """The records of a format whose records sit in a JSON document, streamed."""
    records = fmt.records
    assert records is not None
    head = peek(handle, ctx.limits.max_record_size)
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        path: tuple[str, ...] = ("*",)
    else:
        path = fmt.document_paths.get(first_key(head) or "", ())
    stream = JsonStream(handle, ctx.limits.max_record_size)
    if head.startswith(b"\xef\xbb\xbf"):
        handle.read(3)
    index = 0
    try:
        for value, line, context in stream.items(path, sequence=fmt.sequence):
            origin = Origin(ctx.display, line, index, index)
            index += 1
            if not isinstance(value, dict):
                yield unreadable(
                    ctx.display,
                    f"record is a JSON {type(value).__name__}, expected a {fmt.title} record (an object)",
                    line=line,
                    record=origin.record,
                )
            elif _claims(fmt, value):
                yield from guarded(fmt, records, value, origin, ctx, context)
            else:
                yield from records_from_value(value, origin, ctx.redactor, "json")
    except StreamError as exc:
        yield unreadable(ctx.display, f"{fmt.title}: {exc}; records after it not read", line=exc.line, record=index)
    except RecursionError:
        yield unreadable(
            ctx.display,
            f"{fmt.title}: JSON nested too deeply to read; records after it not read",
            line=stream.line,
            record=index,
        )


def guarded(
    fmt: LogFormat, records: Records, value: dict, origin: Origin, ctx: ReadContext, context: tuple
) -> Iterator[Item]:
    """A format's records, a record its reader fails on (a shape no specification foresaw) being
    a CL001 at that record instead of the end of the run."""
    try:
        yield from list(records(value, origin, ctx, context))
    except RecursionError:
        yield unreadable(
            origin.path, f"{fmt.title} record nested too deeply to read", line=origin.line, record=origin.record
        )
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        yield unreadable(
            origin.path,
            f"cannot read {fmt.title} record: {type(exc).__name__}: {exc}",
            line=origin.line,
            record=origin.record,
        )


def _claims(fmt: LogFormat, value: dict) -> bool:
    """Whether ``fmt`` reads this record (a file may hold records of another shape too: those
    are read by the generic reader)."""
    if fmt.matches is None:
        return False
    try:
        return bool(fmt.matches(value))
    except (TypeError, AttributeError, KeyError, ValueError):
        return False
