"""Readers: captured logs -> a stream of ``Record`` (or CL001 diagnostics), each with its origin.

Formats (auto-detected, or forced with ``--input-format``):
- ``jsonl``: one record a line — a bare request body, an envelope ``{"request", "response", "time",
  "session", "url", "headers"}``, or an OpenAI batch-input line ``{"custom_id", "url", "body"}``.
  Streamed line by line: memory does not grow with the file.
- ``json``: one body, one envelope, or a list of them (one document, parsed once).
- ``har``: HAR 1.2 (docs/background/request-shapes.md#har-12): request body from ``postData.text``, response from
  ``content.text`` (JSON or server-sent events, base64 allowed); entries sorted by
  ``startedDateTime`` because the spec does not promise the order.
- ``vcr``: vcrpy cassettes, YAML (or JSON) with ``interactions[]``; bodies as JSON strings, as
  ``{"string": ...}`` or already parsed (``body``, or pydantic-ai's ``parsed_body``).
Any of these may be gzip-compressed (detected from the magic bytes). Directories are walked
recursively in sorted order. Secrets are dropped here, before anything else sees a record.
"""
from __future__ import annotations

import base64
import errno
import functools
import gzip
import io
import os
import re
import stat
import zlib
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Mapping, cast

from cachelint.diagnostics import Diagnostic, printable, unreadable
from cachelint.payloads import is_log_name, jsonio
from cachelint.payloads.endpoints import is_upload
from cachelint.payloads.jsonio import loads
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.trace import BuildTrace
from cachelint.payloads.reuse import LineIndex, LineReuse, follow_path
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.shapes import not_a_cassette, not_a_log
from cachelint.payloads.sse import assemble_sse, looks_like_sse

FORMATS = ("jsonl", "json", "har", "vcr")


def input_formats() -> tuple[str, ...]:
    """Every value of ``--input-format`` but ``auto``: the generic readers, then the log formats
    of cachelint.payloads.formats (observability exports, batch files, provider logs…)."""
    from cachelint.payloads import formats

    return FORMATS + formats.names()


# Anthropic rejects request bodies over 32 MB (its documented request size limit), so a longer
# line is not a request anyone sent: report it instead of holding it in memory.
DEFAULT_MAX_RECORD_SIZE = 32 * 1024 * 1024
DEFAULT_MAX_DOCUMENT_SIZE = 512 * 1024 * 1024
# Every record costs tens of microseconds however small it is: 100 KB of gzip holding 35 million
# "{}" lines ran for an hour. An agent's log holds thousands of records, a day of a gateway's
# traffic some hundreds of thousands; past this a file is cut (and said so).
DEFAULT_MAX_RECORDS = 1_000_000
# deflate expands at most ~1032 times; JSONL logs of agents compress 5-20 times (50 at most, for
# histories repeated within deflate's 32 KiB window). A stream that expands more than this, once
# past the first GZIP_RATIO_AFTER bytes (small files never trip it), is a bomb, not a log.
DEFAULT_MAX_GZIP_RATIO = 100
GZIP_RATIO_AFTER = 256 * 1024
# The gzip stream reads the file in chunks of this size, so that the bytes read so far (and the
# ratio) are known to within one chunk (GzipFile asks for 128 KiB at a time: the whole of a bomb).
_GZIP_CHUNK = 4096
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class ReadLimits:
    max_record_size: int = DEFAULT_MAX_RECORD_SIZE  # one JSONL line
    max_document_size: int = DEFAULT_MAX_DOCUMENT_SIZE  # one HAR / JSON / YAML document (decompressed)
    max_records: int = DEFAULT_MAX_RECORDS  # JSONL lines read from one file
    max_gzip_ratio: float = DEFAULT_MAX_GZIP_RATIO  # decompressed / compressed bytes of a .gz


class _ChunkedReads(io.RawIOBase):
    """A file read at most ``_GZIP_CHUNK`` bytes at a time, counting them (what a gzip stream
    has consumed of it)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(_GZIP_CHUNK if size is None or size < 0 else min(size, _GZIP_CHUNK))
        self.consumed += len(data)
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        self.consumed = self.raw.seek(offset, whence)  # read in order: the position is what was read
        return self.consumed

    def tell(self) -> int:
        return self.raw.tell()

    def seekable(self) -> bool:
        return self.raw.seekable()


Item = Record | Diagnostic


# --- finding the files ------------------------------------------------------------------------


def iter_log_files(paths: list[str], cwd: Path) -> Iterator[tuple[Path, str] | Diagnostic]:
    """(absolute path, display path) of every log under ``paths``: files as given, directories
    walked recursively in sorted order, symlinks not followed out of the tree."""
    for given in paths:
        path = Path(given)
        absolute = path if path.is_absolute() else cwd / path
        if absolute.is_file():
            yield absolute, printable(given)
        elif absolute.is_dir():
            yield from _walk(absolute, given)
        elif not absolute.exists():
            yield unreadable(given, "no such file or directory")
        else:
            yield unreadable(given, "not a regular file or directory")


def _walk(root: Path, display_root: str) -> Iterator[tuple[Path, str] | Diagnostic]:
    real_root = os.path.realpath(root)
    found: list[tuple[str, Path]] = []
    unlistable: list[Diagnostic] = []

    def cannot_list(exc: OSError) -> None:  # os.walk would skip the folder silently
        rel = Path(exc.filename).relative_to(root).as_posix() if exc.filename else "."
        shown = display_root if rel == "." else f"{display_root.rstrip('/')}/{rel}"
        unlistable.append(unreadable(printable(shown), f"cannot list directory: {exc.strerror or exc}"))

    for directory, _dirnames, filenames in os.walk(root, followlinks=False, onerror=cannot_list):
        for name in filenames:
            if not is_log_name(name):
                continue
            full = Path(directory) / name
            real = os.path.realpath(full)
            if os.path.commonpath([real_root, real]) != real_root:
                continue  # a symlink out of the tree: never read
            found.append((full.relative_to(root).as_posix(), full))
    for rel, full in sorted(found):  # one order whatever the file system's
        display = rel if display_root in ("", ".") else f"{display_root.rstrip('/')}/{rel}"
        yield full, printable(display)
    yield from sorted(unlistable, key=Diagnostic.sort_key)


# --- opening and detecting --------------------------------------------------------------------


def _open(path: Path) -> tuple[IO[bytes], IO[bytes]]:
    """(the stream to read, the file under it): the same object, or a gzip stream over the file
    (which a GzipFile given a file object does not close: the caller closes both)."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # opening a FIFO would wait forever for a writer
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device)")
    # 1 MiB buffer: JSONL records of agents are tens of KB; readline through the default 8 KiB
    # buffer took 3x longer on the issue-7 benchmark log
    raw = open(path, "rb", buffering=1 << 20)
    try:
        magic = raw.read(2)
        raw.seek(0)
    except BaseException:
        raw.close()
        raise
    if magic == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=_ChunkedReads(raw), mode="rb"), raw  # type: ignore[return-value]
    return raw, raw


def _peek(handle: IO[bytes], limit: int, size: int = 65536) -> bytes:
    """The first ``size`` bytes, extended to the end of the first line (up to ``limit``) so that
    a long first JSONL record can still be recognised; the stream is rewound."""
    pos = handle.tell()
    data = handle.read(size)
    if b"\n" not in data and len(data) == size:
        data += handle.readline(max(0, limit - size)) + handle.read(1024)
    handle.seek(pos)
    return data


def _glance(handle: IO[bytes]) -> bytes:
    """The first few KB (the stream is rewound), to tell a log from a file that is none; empty
    when they cannot be read (a truncated gzip stream: reading reports it, with its line)."""
    try:
        return _peek(handle, 8192, 8192)
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError):
        handle.seek(0)
        return b""


def format_from_name(name: str) -> str | None:
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    if lower.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if lower.endswith(".har"):
        return "har"
    if lower.endswith((".yaml", ".yml")):
        return "vcr"
    return None


def detect_format(name: str, head: bytes) -> str:
    """The format of a log from its name and first bytes."""
    by_name = format_from_name(name)
    if by_name is not None:
        return by_name
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    text = text[3:] if text.startswith(b"\xef\xbb\xbf") else text
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        first, sep, rest = text.partition(b"\n")
        if sep and rest.strip():
            try:
                loads(first)
                return "jsonl"  # a complete document on the first line and more after it
            except (ValueError, RecursionError):
                pass
        return "json"
    if text.startswith((b"interactions:", b"---", b"version:", b"requests:")):
        return "vcr"
    return "jsonl"


def read_log(
    path: Path,
    display: str,
    fmt: str,
    redactor: Redactor,
    limits: ReadLimits = ReadLimits(),
    reuse: bool = False,
    position: list[Callable[[], int]] | None = None,
    formats: list[str] | None = None,
    joins: Any = None,
) -> Iterator[Item]:
    """Every record of one log file, in file order (HAR: in ``startedDateTime`` order); problems
    become CL001 diagnostics and reading goes on where it can. ``reuse``: JSONL records repeating
    bytes of a recent record are decoded only where they differ (``cachelint.payloads.reuse``);
    for a consumer that turns each record into a request before asking for the next one.
    ``position``: a list that receives a function giving how many bytes of the file (as stored:
    compressed for .gz) have been read so far (the progress bar within a long file). ``formats``:
    a list that receives the format the file was read as. A file of a JSON format whose first
    bytes are not JSON (Python, Markdown…) is one CL001 saying what it looks like. ``joins``:
    what the run's side files (batch results) say about requests by ``custom_id``
    (``cachelint.payloads.formats.Joins``)."""
    try:
        handle, raw = _open(path)
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
            log_format = _log_format(handle, display, fmt, limits)
            if log_format is not None:
                if formats is not None:
                    formats.append(log_format[0].name)
                yield from _read_log_format(handle, display, log_format, redactor, limits, reuse, joins)
                return
            if fmt == "auto":
                fmt = format_from_name(display) or detect_format(display, _peek(handle, limits.max_record_size))
            if formats is not None:
                formats.append(fmt)
            unlike = not_a_log(display, _glance(handle)) if fmt != "vcr" else None
            if unlike is not None:
                yield unreadable(display, unlike)
                return
            if fmt == "jsonl":
                # reuse needs orjson (jsonio.FAST): without it every line is decoded in full
                yield from _read_jsonl(handle, display, redactor, limits, LineReuse() if reuse and jsonio.FAST else None, _compressed_bytes(handle))
            else:
                data = handle.read(limits.max_document_size + 1)
                if len(data) > limits.max_document_size:
                    yield unreadable(
                        display,
                        f"{fmt} document is over {limits.max_document_size} bytes (max-document-size); "
                        "convert it to JSONL to stream it",
                    )
                    return
                yield from _read_document(data, display, fmt, redactor)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            yield unreadable(display, f"truncated or corrupt gzip data: {exc}")
        except OSError as exc:
            yield unreadable(display, f"cannot read file: {exc.strerror or exc}")


def _log_format(handle: IO[bytes], display: str, fmt: str, limits: ReadLimits) -> tuple[Any, str] | None:
    """(the log format of cachelint.payloads.formats to read the file with, its container:
    ``jsonl`` or ``json``), or None for the generic readers. ``fmt``: the forced format or
    ``auto`` (then from the file name, then from the first record)."""
    from cachelint.payloads import formats

    if fmt in FORMATS:
        return None
    chosen = formats.get(fmt) if fmt != "auto" else formats.by_suffix(display)
    by_name = format_from_name(display)
    if chosen is None and fmt == "auto" and by_name in (None, "jsonl"):
        container = by_name or detect_format(display, _peek(handle, limits.max_record_size))
        if container in ("jsonl", "json"):
            found = formats.detect(handle, container, limits)
            return (found, container) if found is not None else None
        return None
    if chosen is None:
        return None
    if chosen.read is not None:
        return chosen, "own"
    return chosen, by_name if by_name in ("jsonl", "json") else detect_format(display, _peek(handle, limits.max_record_size))


def _read_log_format(
    handle: IO[bytes], display: str, log_format: tuple[Any, str], redactor: Redactor, limits: ReadLimits, reuse: bool, joins: Any
) -> Iterator[Item]:
    from cachelint.payloads import formats

    fmt, container = log_format
    ctx = formats.ReadContext(display, redactor, limits, joins if joins is not None else formats.Joins())
    # the history of content-level requests built once (needs the same consumer as reuse)
    ctx.state["replay"] = bool(reuse and jsonio.FAST) and fmt.fidelity != "wire" or bool(reuse and fmt.name == "langsmith")
    if reuse and jsonio.FAST:
        ctx.state["bodies"] = BodyTexts(redactor)  # bodies held as text or among other fields
    line_reuse = None
    if reuse and jsonio.FAST and container == "jsonl" and fmt.body_paths:
        line_reuse = LineReuse(body_paths=fmt.body_paths)
    yield from formats.read_records(fmt, handle, container, ctx, line_reuse)


def sniff_format(path: Path, display: str, fmt: str, limits: ReadLimits = ReadLimits()) -> str:
    """The name of the format ``read_log`` will read a file with (``fmt`` when forced): a log
    format of cachelint.payloads.formats or one of FORMATS; ``jsonl`` when the file cannot be
    opened (``read_log`` then reports why)."""
    try:
        handle, raw = _open(path)
    except OSError:
        return fmt if fmt != "auto" else "jsonl"
    with raw, handle:
        try:
            found = _log_format(handle, display, fmt, limits)
            if found is not None:
                return found[0].name
            if fmt != "auto":
                return fmt
            return format_from_name(display) or detect_format(display, _peek(handle, limits.max_record_size))
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
            return fmt if fmt != "auto" else "jsonl"


# --- JSONL ------------------------------------------------------------------------------------


def _compressed_bytes(handle: IO[bytes]) -> Callable[[], int] | None:
    """How many bytes of the file a gzip stream has consumed so far; None for a plain file."""
    source = getattr(handle, "fileobj", None)
    if isinstance(source, _ChunkedReads):
        return lambda: source.consumed
    return None


# Lines the reuse tries before it gives up on a file where it fails on four lines of five: a log
# format whose body it can seldom locate (a Bedrock log's ``input`` is also a tool call's key, so
# only the lines before the first tool call are taken) would pay scans of every line for nothing;
# its bodies may still be reused (``BodyTexts``). Reuse never changes what is read, only how fast.
_INDEX_TRIES = 64


def _read_jsonl(
    handle: IO[bytes],
    display: str,
    redactor: Redactor,
    limits: ReadLimits,
    reuse: LineReuse | None = None,
    compressed: Callable[[], int] | None = None,
    records: Callable[..., Iterator[Item]] | None = None,
) -> Iterator[Item]:
    """``records(value, origin, redactor, fmt)``: the items of one parsed line (by default the
    generic records: bodies, envelopes, batch input lines; a log format's otherwise)."""
    records = records or _records_from_value
    line_no = 0
    record = 0
    expanded = 0  # decompressed bytes read
    indexed, unindexed = 0, 0  # lines decoded with reuse or indexed for it; lines that were not
    while True:
        try:
            raw = handle.readline(limits.max_record_size + 1)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            yield unreadable(display, f"truncated or corrupt gzip data after line {line_no}: {exc}", line=line_no + 1, record=record)
            return
        if not raw:
            return
        line_no += 1
        if line_no > limits.max_records:
            yield unreadable(
                display,
                f"more than {limits.max_records} lines (max-records); the rest of the file is not audited",
                line=line_no,
                record=record,
            )
            return
        if compressed is not None:
            expanded += len(raw)
            if expanded > GZIP_RATIO_AFTER:
                consumed = max(1, compressed())
                if expanded > limits.max_gzip_ratio * consumed:
                    yield unreadable(
                        display,
                        f"gzip data expands more than {limits.max_gzip_ratio:g} times ({expanded} bytes from the first "
                        f"{consumed} of the file, max-gzip-ratio): a compression bomb, not a log; the rest is not audited",
                        line=line_no,
                        record=record,
                    )
                    return
        if len(raw) > limits.max_record_size and not raw.endswith(b"\n"):
            _skip_rest_of_line(handle)
            yield unreadable(
                display,
                f"line is over {limits.max_record_size} bytes (max-record-size); skipped",
                line=line_no,
                record=record,
            )
            record += 1
            continue
        if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        text = raw.strip()
        if not text:
            continue
        origin = Origin(display, line_no, record)
        record += 1
        if reuse is not None and unindexed >= _INDEX_TRIES and unindexed > 4 * indexed:
            reuse = None  # see _INDEX_TRIES
        if reuse is not None:
            reused = _reused_record(text, origin, redactor, reuse, records)
            if reused is not None:
                indexed += 1
                yield reused
                continue
        value = _parse_json(text, origin, "line")
        if isinstance(value, Diagnostic):
            yield value
            continue
        for item in records(value, origin, redactor, "jsonl"):
            if reuse is not None and isinstance(item, Record):
                index = reuse.index(text, value, item.request)
                if index is not None:
                    item.trace = index.trace
                    reuse.remember(index)
                    indexed += 1
                else:
                    unindexed += 1
            yield item


def _reused_record(
    text: bytes, origin: Origin, redactor: Redactor, reuse: LineReuse, records: Callable[..., Iterator[Item]] | None = None
) -> Record | None:
    """The record of a line decoded with reuse, or None (then it is decoded in full)."""
    records = records or _records_from_value
    decoded = reuse.decode(text)
    if decoded is None:
        return None
    items = list(records(decoded.value, origin, redactor, "jsonl"))
    if len(items) != 1 or not isinstance(items[0], Record):
        return None
    item = items[0]
    index = decoded.index
    if item.request is not follow_path(decoded.value, index.path):
        return None  # the record's body is not the object the bytes were cut from
    item.trace = index.trace
    item.reread = functools.partial(_reread, text, origin, redactor, index, records)
    reuse.remember(index)
    return item


def _reread(
    text: bytes, origin: Origin, redactor: Redactor, index: LineIndex, records: Callable[..., Iterator[Item]] | None = None
) -> Record | Diagnostic:
    """A record decoded with reuse, decoded in full (when a reused part did not fit)."""
    records = records or _records_from_value
    index.trace = BuildTrace()
    value = _parse_json(text, origin, "line")
    if isinstance(value, Diagnostic):
        return value
    items = list(records(value, origin, redactor, "jsonl"))
    item = items[0] if items else _bad(origin, "record vanished when decoded in full")
    if isinstance(item, Record):
        item.trace = index.trace
    return item


class BodyTexts:
    """Request bodies that a log format's records hold apart from the record's own bytes (JSON
    text inside a field: OpenInference's ``input.value``, HAR's ``postData.text``; an object
    among the record's other fields: Bedrock's ``input.inputBodyJson``), given the reuse of
    repeated bytes as the JSONL reader gives its lines (``cachelint.payloads.reuse``).

    A format's record is read and decoded in full, as without reuse, and its body's JSON text
    noted (``note``); when the record goes to the consumer (``bind``: every record before it has
    been turned into a request, so their traces are filled, whatever order a format puts its
    records back in), the text is decoded again with the bytes it repeats from a recent body cut
    out, and that body, which holds what the provider adapter built from those bytes, replaces the
    record's. The body decoded in full stays the fallback (``Record.reread``). Only for a
    consumer that turns each record into a request before asking for the next (the audit)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.reuse = LineReuse()
        self.pending: dict[int, bytes] = {}  # id of a record not yet bound -> its body's JSON text
        self.touches_reused: bool | None = None  # whether the redactor drops a field in a reusable part

    def note(self, record: Record, text: Any) -> None:
        """``text``: the JSON text the record's body was decoded from (str or bytes)."""
        if not isinstance(record.request, dict) or record.trace is not None:
            return
        if isinstance(text, str):
            try:
                text = text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (a JSON escape): no bytes to compare
                return
        if isinstance(text, bytes):
            self.pending[id(record)] = text

    def decoded(self, text: str) -> Any:
        """The body of ``text`` decoded with the bytes it repeats from a recent body cut out, now:
        for a reader that makes each record only once every record before it was built (its own
        reordering done first); a ``reuse.Decoded``, or None (then decode in full). Not where the
        redactor drops a field inside a reused part (the full body would differ there)."""
        if self.touches_reused is None:
            from cachelint.payloads.reuse import HISTORY_KEYS, RUN_KEYS

            fields = tuple(self.redactor.body_fields) + tuple(self.redactor.hashed_body_fields)
            self.touches_reused = any(f and f[0] in RUN_KEYS + HISTORY_KEYS for f in fields)
        if self.touches_reused:
            return None
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:
            return None
        decoded = self.reuse.decode(raw)
        return decoded if decoded is not None and isinstance(decoded.value, dict) else None

    def bind(self, item: Any) -> None:
        if not self.pending or not isinstance(item, Record):
            return
        text = self.pending.pop(id(item), None)
        full = item.request
        if text is None or item.trace is not None or not isinstance(full, dict):
            return
        decoded = self.reuse.decode(text)
        if decoded is not None and isinstance(decoded.value, dict):
            body, hashed = self.redactor.body(decoded.value)
            if hashed == item.hashed_ids:
                restored = replace(item, request=full)
                item.request = body
                item.trace = decoded.index.trace
                item.reread = functools.partial(_rebuilt, restored, decoded.index)
                self.reuse.remember(decoded.index)
                return
        index = self.reuse.index(text, full, full)
        if index is not None:
            item.trace = index.trace
            self.reuse.remember(index)


def _reparsed(record: Record, text: str, index: LineIndex, redactor: Redactor) -> Record | Diagnostic:
    """A record whose body was decoded with reuse as it was made, with its body decoded in full
    from its text (a reused part did not fit)."""
    index.trace = BuildTrace()
    body = _parse_json(text, record.origin, f"HAR entry {record.origin.entry} postData.text")
    if isinstance(body, Diagnostic):
        return body
    body, hashed = redactor.body(body)
    return replace(record, request=body, hashed_ids=hashed, trace=index.trace)


def _rebuilt(record: Record, index: LineIndex) -> Record:
    """A record whose body was decoded with reuse, with its body decoded in full (a reused part
    did not fit)."""
    index.trace = BuildTrace()
    return replace(record, trace=index.trace)


def _skip_rest_of_line(handle: IO[bytes]) -> None:
    while True:
        chunk = handle.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return


def _parse_json(data: bytes | str, origin: Origin, what: str) -> Any:
    try:
        return loads(data)
    except RecursionError:
        return _bad(origin, f"{what} is JSON nested too deeply to read")
    except ValueError as exc:
        reason = str(exc).split("\n")[0][:200]
        if isinstance(data, (bytes, bytearray)) and data.rstrip().endswith(b"}") is False and data.lstrip().startswith(b"{"):
            reason = f"truncated JSON ({reason})"
        return _bad(origin, f"{what} is not valid JSON: {reason}")


def _bad(origin: Origin, message: str) -> Diagnostic:
    return unreadable(origin.path, message, line=origin.line, record=origin.record)


# --- one value -> records ---------------------------------------------------------------------


def _records_from_value(value: Any, origin: Origin, redactor: Redactor, fmt: str) -> Iterator[Item]:
    if not isinstance(value, dict):
        yield _bad(origin, f"record is a JSON {type(value).__name__}, expected an object (a request body or an envelope)")
        return
    if "request" in value and isinstance(value["request"], (dict, str)) and "model" not in value:
        yield from _envelope(value, origin, redactor, fmt)
    elif "custom_id" in value and isinstance(value.get("body"), dict):
        # OpenAI Batch input line: {"custom_id", "method", "url": "/v1/chat/completions", "body"}
        body, hashed = redactor.body(value["body"])
        yield Record(
            origin=origin,
            request=body,
            url=redactor.url(value.get("url")),
            method=value.get("method") if isinstance(value.get("method"), str) else None,
            session=None,
            fmt=fmt,
            hashed_ids=hashed,
        )
    elif "custom_id" in value and "response" in value:
        # batch output: no request to audit (its response is kept to say what the record is)
        response = value["response"] if isinstance(value["response"], dict) else None
        yield Record(origin=origin, request=None, response=response, fmt=fmt)
    else:
        body, hashed = redactor.body(value)
        yield Record(origin=origin, request=body, fmt=fmt, hashed_ids=hashed)


def _envelope(value: dict, origin: Origin, redactor: Redactor, fmt: str) -> Iterator[Item]:
    request = value.get("request")
    url = value.get("url")
    headers: Any = value.get("headers")
    if isinstance(request, dict) and isinstance(request.get("body"), (dict, str)) and (
        "url" in request or "headers" in request or "method" in request
    ):
        # {"request": {"url", "headers", "body"}, "response": {...}}: an HTTP-shaped envelope
        url = url or request.get("url")
        headers = headers if headers is not None else request.get("headers")
        request = request.get("body")
    if isinstance(request, str):
        request = _parse_json(request, origin, "envelope request")
        if isinstance(request, Diagnostic):
            yield request
            return
    body, hashed = redactor.body(request)
    response = value.get("response")
    response_headers: Any = value.get("response_headers")
    status = value.get("status")
    if isinstance(response, dict) and isinstance(response.get("body"), (dict, str)) and (
        "status" in response or "headers" in response or "status_code" in response
    ):
        response_headers = response_headers if response_headers is not None else response.get("headers")
        status = status if status is not None else response.get("status", response.get("status_code"))
        response = response.get("body")
    session, session_field = envelope_session(value)
    yield Record(
        origin=origin,
        request=body,
        response=parse_response(response),
        time=envelope_time(value),
        url=redactor.url(url),
        method=value.get("method") if isinstance(value.get("method"), str) else None,
        headers=redactor.header_dict(headers),
        response_headers=redactor.header_dict(response_headers),
        session=session,
        session_field=session_field,
        status=status if isinstance(status, int) and not isinstance(status, bool) else None,
        fmt=fmt,
        hashed_ids=hashed,
        envelope=value,
    )


# The fields an envelope names its time in, in order: the names loggers and observability exports
# use (a Python logging or structlog line, OpenTelemetry exports, Elastic's @timestamp, a
# database row's created_at…). ``--time-field NAME`` (``time-field`` in [tool.cachelint.audit])
# names another one. Their values are read by ``parse_time``.
TIME_FIELDS = (
    "time", "timestamp", "started_at", "ts", "@timestamp", "created_at", "createdAt", "start_time",
    "startTime", "request_time", "datetime",
)
# The fields an envelope names its session in, in order: conversation ids first (a session of
# cachelint is one conversation), then run and trace ids, which may hold several conversations
# (a team of agents in one trace): ``TRACE_FIELDS``, which group weakly (cachelint.payloads.sessions).
SESSION_FIELDS = ("session", "session_id", "sessionId", "conversation_id", "conversationId", "thread_id", "threadId", "trace_id", "traceId")
TRACE_FIELDS = frozenset(("trace_id", "traceId"))
_SESSION_FIELD_SET = frozenset(SESSION_FIELDS)


def envelope_time(value: Mapping[str, Any], field: str | None = None) -> datetime | None:
    """The time of an envelope: the named field (a dotted path into nested objects) or the first
    of ``TIME_FIELDS`` that holds a time."""
    if field:
        return parse_time(_follow(value, field))
    for name in TIME_FIELDS:
        if name in value:
            found = parse_time(value[name])
            if found is not None:
                return found
    return None


def envelope_session(value: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(the envelope's session key, the field it came from), or (None, None)."""
    if value.keys().isdisjoint(_SESSION_FIELD_SET):
        return None, None  # most envelopes name none: one set operation rather than a look-up each
    for name in SESSION_FIELDS:
        found = value.get(name)
        if isinstance(found, (str, int)) and not isinstance(found, bool) and str(found):
            return str(found), name
    return None, None


def _follow(value: Any, path: str) -> Any:
    """``value`` at a field name, or at a dotted path when the name itself is absent."""
    if isinstance(value, Mapping) and path in value:
        return value[path]
    for step in path.split("."):
        if not isinstance(value, Mapping) or step not in value:
            return None
        value = value[step]
    return value


def parse_response(response: Any) -> Any:
    """A response body as JSON value: parsed JSON, or the assembly of a server-sent event stream."""
    if isinstance(response, (bytes, bytearray)):
        response = response.decode("utf-8", "replace")
    if isinstance(response, str):
        if looks_like_sse(response):
            return assemble_sse(response)
        try:
            return loads(response)
        except (ValueError, RecursionError):
            return None
    return response if isinstance(response, dict) else None


def _epoch_seconds(value: float) -> float:
    """Epoch seconds from a number in seconds, milliseconds, microseconds or nanoseconds, told
    apart by magnitude: a time after 1973 in seconds is below 1e11 until the year 5138, so each
    unit owns a range of its own (ms to 1e14, µs to 1e17, ns beyond)."""
    size = abs(value)
    if size >= 1e17:
        return value / 1e9
    if size >= 1e14:
        return value / 1e6
    if size >= 1e11:
        return value / 1e3
    return float(value)


_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?\Z")


def parse_time(value: Any) -> datetime | None:
    """ISO 8601 text (with or without a zone), an HTTP date, or an epoch number (seconds,
    milliseconds, microseconds or nanoseconds, as a number or a string of digits) -> aware
    datetime (UTC when the source gives no zone)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, str) and _NUMBER.match(value.strip()):
            value = float(value.strip())
        if isinstance(value, (int, float)):
            if value != value:  # NaN
                return None
            return datetime.fromtimestamp(_epoch_seconds(value), tz=timezone.utc)
        if isinstance(value, str):
            text = value.strip()
            try:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                from email.utils import parsedate_to_datetime  # HTTP dates only: not on every audit's start-up

                parsed = parsedate_to_datetime(text)
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    except (ValueError, TypeError, OverflowError, OSError, IndexError):
        return None
    return None


# --- documents: JSON, HAR, cassettes ----------------------------------------------------------


def _read_document(data: bytes, display: str, fmt: str, redactor: Redactor) -> Iterator[Item]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    origin = Origin(display, 1, 0)
    if fmt == "vcr" and not data.lstrip().startswith((b"{", b"[")):
        doc = _load_yaml(data, origin)
    else:
        doc = _parse_json(data, origin, "file")
    if isinstance(doc, Diagnostic):
        yield doc
        return
    if isinstance(doc, dict) and isinstance(doc.get("log"), dict) or fmt == "har":
        yield from _har(doc, data, display, redactor)
    elif isinstance(doc, dict) and "interactions" in doc or fmt == "vcr":
        yield from _cassette(doc, data, display, redactor)
    elif isinstance(doc, list):
        lines = _top_level_item_lines(data)
        for index, item in enumerate(doc):
            line = lines[index] if index < len(lines) else 1
            yield from _records_from_value(item, Origin(display, line, index, index), redactor, "json")
    else:
        yield from _records_from_value(doc, origin, redactor, "json")


def _top_level_item_lines(data: bytes) -> list[int]:
    """1-based line of every item of a top-level JSON array (a light scan: strings skipped)."""
    lines: list[int] = []
    depth = 0
    expecting = False
    line = 1
    for match in re.finditer(rb'"(?:[^"\\]|\\.)*"|[\[\]{},\n]|[^\s\[\]{},"]+', data):
        token = match.group()
        if token == b"\n":
            line += 1
            continue
        if depth == 1 and expecting and token not in (b"]", b","):
            lines.append(line)
            expecting = False
        if token in (b"[", b"{"):
            depth += 1
            if depth == 1:
                expecting = True
        elif token in (b"]", b"}"):
            depth -= 1
        elif token == b"," and depth == 1:
            expecting = True
        line += token.count(b"\n") if token.startswith(b'"') else 0
    return lines


def _load_yaml(data: bytes, origin: Origin) -> Any:
    """Parse a YAML cassette with the safe (libyaml when present) loader, refusing aliases:
    cassettes never use them, and an alias bomb (billion laughs) would expand into gigabytes once
    walked. Aliases come back as shared objects, so one pass over the distinct containers finds them."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(data, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        return unreadable(origin.path, f"not valid YAML: {exc.problem or exc}", line=line, record=origin.record)
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        return unreadable(origin.path, f"not valid YAML: {str(exc)[:200]}", line=1, record=origin.record)
    if _has_shared_containers(doc):
        match = re.search(rb"[\[\s,:]\*[A-Za-z0-9_-]+", data)
        line = data.count(b"\n", 0, match.start()) + 1 if match else 1
        return unreadable(origin.path, "YAML aliases are not accepted in cassettes", line=line, record=origin.record)
    return doc


def _has_shared_containers(doc: Any) -> bool:
    seen: set[int] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return False


def _lines_of(data: bytes, pattern: bytes) -> list[int]:
    """The 1-based line of every match: newlines counted from the previous match on, not from the
    start each time (a cassette of a few hundred interactions was quadratic)."""
    lines: list[int] = []
    line, at = 1, 0
    for m in re.finditer(pattern, data, re.MULTILINE):
        line += data.count(b"\n", at, m.start())
        at = m.start()
        lines.append(line)
    return lines


def _har(doc: Any, data: bytes, display: str, redactor: Redactor) -> Iterator[Item]:
    log = doc.get("log") if isinstance(doc, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        yield unreadable(display, "HAR file has no log.entries list")
        return
    lines = _lines_of(data, rb'"startedDateTime"\s*:')
    if len(lines) != len(entries):
        lines = []
    items: list[tuple[int, datetime | None, Item]] = []
    for index, entry in enumerate(entries):
        origin = Origin(display, lines[index] if lines else 1, index, index)
        item = _har_entry(entry, origin, redactor)
        items.append((index, item.time if isinstance(item, Record) else None, item))
    # HAR 1.2 prefers but does not promise time order: sort (stable; entries without a time keep
    # their place relative to each other, after the timed ones).
    timed = sorted(
        (x for x in items if x[1] is not None), key=lambda x: (x[1].timestamp(), x[0])  # type: ignore[union-attr]
    )
    untimed = [x for x in items if x[1] is None]
    for _, _, item in timed + untimed:
        yield item


def _har_entry(entry: Any, origin: Origin, redactor: Redactor, bodies: BodyTexts | None = None) -> Item:
    """One HAR entry's record. ``bodies``: where to note the request body's JSON text, for the
    reuse of its repeated bytes (a reader whose consumer builds each record in turn)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
        return _bad(origin, f"HAR entry {origin.entry} has no request object")
    request = entry["request"]
    post = request.get("postData")
    body: Any = None
    request_text: Any = None
    reused: Any = None
    if isinstance(post, dict) and isinstance(post.get("text"), str):
        text = post["text"]
        if post.get("encoding") == "base64":
            try:
                text = base64.b64decode(text, validate=False).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                return _bad(origin, f"HAR entry {origin.entry}: postData.text is not valid base64 UTF-8")
        reused = bodies.decoded(text) if bodies is not None else None
        if reused is not None:
            body = reused.value  # a JSON object: what the full parse would give, reused parts built
            request_text = text
        elif text.strip():
            parsed = _parse_json(text, origin, f"HAR entry {origin.entry} postData.text")
            body = _json_or_upload(parsed, text, str(post.get("mimeType", "")), _text_or_none(request.get("url")))
            if isinstance(body, Diagnostic):
                return body
            request_text = text
    body, hashed = redactor.body(body)
    response = entry.get("response")
    response_body: Any = None
    response_headers: Any = None
    status = None
    if isinstance(response, dict):
        response_headers = response.get("headers")
        status = response.get("status") if isinstance(response.get("status"), int) else None
        content = response.get("content")
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            text = content["text"]
            if content.get("encoding") == "base64":
                try:
                    text = base64.b64decode(text, validate=False).decode("utf-8", "replace")
                except ValueError:
                    text = ""
            response_body = parse_response(text)
    record = Record(
        origin=origin,
        request=body,
        response=response_body,
        time=parse_time(entry.get("startedDateTime")),
        url=redactor.url(request.get("url")),
        method=request.get("method") if isinstance(request.get("method"), str) else None,
        headers=redactor.header_dict(request.get("headers")),
        response_headers=redactor.header_dict(response_headers),
        status=status,
        fmt="har",
        hashed_ids=hashed,
    )
    if reused is not None:
        assert bodies is not None
        record.trace = reused.index.trace
        record.reread = functools.partial(_reparsed, replace(record), request_text, reused.index, redactor)
        bodies.reuse.remember(reused.index)
    elif bodies is not None:
        bodies.note(record, request_text)
    return record


def _cassette(doc: Any, data: bytes, display: str, redactor: Redactor) -> Iterator[Item]:
    interactions = doc.get("interactions") if isinstance(doc, dict) else None
    if interactions is None and isinstance(doc, dict) and _parallel_lists(doc):
        # vcrpy's in-memory shape, {requests: [...], responses: [...]}, which some persisters
        # write as it is (langchain-aws's gzipped cassettes): the n-th response answers the n-th
        # request; each located by its item in the requests list.
        interactions = [{"request": q, "response": r} for q, r in zip(doc["requests"], doc["responses"])]
        cut = re.search(rb"(?m)^responses:", data)
        lines = _lines_of(data[: cut.start()] if cut else data, rb"^-\s")
    elif isinstance(interactions, dict):
        # a mapping of recordings by key, not of HTTP exchanges: mlx_lm's token streams of a local
        # model (Mirascope's tests) — nothing sent to a provider, nothing cached: skipped, counted
        for index, _key in enumerate(interactions):
            yield Record(origin=Origin(display, 1, index, index), request=None, fmt="vcr")
        return
    elif not isinstance(interactions, list):
        yield unreadable(display, "cassette has no interactions list" if isinstance(doc, dict) and "interactions" in doc else not_a_cassette(doc))
        return
    else:
        lines = _lines_of(data, rb"^\s*-\s+request:") or _lines_of(data, rb'"request"\s*:')
        if len(lines) != len(interactions):
            # go-vcr cassettes: each interaction starts with its id ("- id: 0"), the request after it
            lines = _lines_of(data, rb"^\s*-\s+id:\s*[0-9]+\s*$")
    if len(lines) != len(interactions):
        lines = []
    for index, interaction in enumerate(interactions):
        origin = Origin(display, lines[index] if lines else 1, index, index)
        yield _cassette_interaction(interaction, origin, redactor)


def _parallel_lists(doc: Mapping[str, Any]) -> bool:
    requests, responses = doc.get("requests"), doc.get("responses")
    return isinstance(requests, list) and isinstance(responses, list) and len(requests) == len(responses)


# A decompressed body larger than this is not an LLM response worth reading (and may be a bomb).
_MAX_DECOMPRESSED = 64 * 1024 * 1024


def _cassette_body(body: Any) -> Any:
    if isinstance(body, dict) and set(body) <= {"string", "encoding"} and "string" in body:
        body = body["string"]
    if isinstance(body, (bytes, bytearray)) and bytes(body[:2]) == b"\x1f\x8b":
        # recorded as sent on the wire, gzip-encoded (Content-Encoding: gzip): the usage is inside
        try:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            body = inflater.decompress(bytes(body), _MAX_DECOMPRESSED)
            if inflater.unconsumed_tail:
                return None
        except zlib.error:
            return None
    if isinstance(body, (bytes, bytearray)):
        try:
            body = bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return None  # binary (e.g. protobuf telemetry): not an LLM request
    return body


# Content types of uploads (audio to transcribe, files, forms): their bodies are not JSON, and the
# requests are not LLM calls, whatever a recorder wrote in place of the bytes.
_UPLOAD_TYPES = ("multipart/", "application/x-www-form-urlencoded", "application/octet-stream", "audio/", "image/", "video/")


def _json_or_upload(parsed: Any, text: str, content_type: str, url: str | None = None) -> Any:
    """A recorded request body after trying JSON: the value; or, when it is not JSON, None (not an
    LLM request) for an upload (by its content type or its endpoint) or a text that does not even
    look like JSON, and the CL001 for a body declared JSON or shaped like it (a truncated request)."""
    if not isinstance(parsed, Diagnostic):
        return parsed
    kind = content_type.lower().lstrip()
    if kind.startswith(_UPLOAD_TYPES) or is_upload(url):
        return None  # e.g. go-vcr's "[multipart form data omitted]", a text file sent to /upload/
    if "json" in kind or text.lstrip().startswith(("{", "[")):
        return parsed
    return None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _body_or_parsed(message: Mapping[str, Any]) -> Any:
    """The body of a recorded request or response. pydantic-ai's cassette serializer stores a JSON
    body already decoded, as ``parsed_body`` in place of ``body`` (its tests/json_body_serializer.py)."""
    body = message.get("body")
    if body is None and message.get("parsed_body") is not None:
        return message["parsed_body"]
    return body


def _cassette_interaction(interaction: Any, origin: Origin, redactor: Redactor) -> Item:
    if isinstance(interaction, dict) and "request" not in interaction and interaction:
        # Not an HTTP exchange: recorders of WebSocket sessions ({kind: message, data}) and of gRPC
        # calls ({request_sample, response_sample}) write cassettes of the same outline. Skipped,
        # like any request that is not an LLM call, not reported one CL001 per message.
        return Record(origin=origin, request=None, fmt="vcr")
    if not isinstance(interaction, dict) or not isinstance(interaction.get("request"), dict):
        return _bad(origin, f"cassette interaction {origin.entry} has no request mapping")
    request = interaction["request"]
    headers = redactor.header_dict(request.get("headers"))
    body = _cassette_body(_body_or_parsed(request))
    if isinstance(body, str):
        if body.strip():
            parsed = _parse_json(body, origin, f"cassette interaction {origin.entry} request body")
            body = _json_or_upload(parsed, body, headers.get("content-type", ""), _text_or_none(request.get("uri", request.get("url"))))
            if isinstance(body, Diagnostic):
                return body
        else:
            body = None
    body, hashed = redactor.body(body)
    response = cast(dict, interaction.get("response")) if isinstance(interaction.get("response"), dict) else {}
    response_headers = redactor.header_dict(response.get("headers"))
    code = _status_code(response)
    return Record(
        origin=origin,
        request=body,
        response=parse_response(_cassette_body(_body_or_parsed(response))),
        time=parse_time(response_headers.get("date")),
        url=redactor.url(request.get("uri", request.get("url"))),
        method=request.get("method") if isinstance(request.get("method"), str) else None,
        headers=headers,
        response_headers=response_headers,
        status=code,
        fmt="vcr",
        hashed_ids=hashed,
    )


def _status_code(response: Mapping[str, Any]) -> int | None:
    """The HTTP status of a recorded response: vcrpy's ``status: {code, message}``, go-vcr's
    ``code: 400`` beside ``status: "400 Bad Request"``, or a bare number."""
    status = response.get("status")
    for value in (status.get("code") if isinstance(status, dict) else status, response.get("code")):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            head = value.strip().split(" ", 1)[0]
            if head.isdigit() and len(head) == 3:
                return int(head)
    return None


def read_bytes_as_log(data: bytes, display: str, fmt: str, redactor: Redactor, limits: ReadLimits = ReadLimits()) -> list[Item]:
    """Read an in-memory log (fuzzing, tests): the same code path as files."""
    handle: IO[bytes] = io.BufferedReader(io.BytesIO(data))
    if data[:2] == GZIP_MAGIC:
        handle = gzip.GzipFile(fileobj=_ChunkedReads(io.BytesIO(data)), mode="rb")  # type: ignore[assignment]
    out: list[Item] = []
    try:
        log_format = _log_format(handle, display, fmt, limits)
        if log_format is not None:
            out.extend(_read_log_format(handle, display, log_format, redactor, limits, False, None))
            return out
        if fmt == "auto":
            fmt = format_from_name(display) or detect_format(display, _peek(handle, limits.max_record_size))
        unlike = not_a_log(display, _glance(handle)) if fmt != "vcr" else None
        if unlike is not None:
            return [unreadable(display, unlike)]
        if fmt == "jsonl":
            out.extend(_read_jsonl(handle, display, redactor, limits, None, _compressed_bytes(handle)))
        else:
            out.extend(_read_document(handle.read(limits.max_document_size + 1), display, fmt, redactor))
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        out.append(unreadable(display, f"truncated or corrupt gzip data: {exc}"))
    return out


def header_lookup(headers: Mapping[str, str], name: str) -> str | None:
    return headers.get(name.lower())
