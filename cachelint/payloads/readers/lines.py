"""The JSONL reader: streamed line by line, with the limits on lines, records and gzip expansion,
and the reuse of the bytes a line repeats from a recent one (``cachelint.payloads.reuse``)."""

from __future__ import annotations

import functools
import gzip
import zlib
from typing import IO, Callable, Iterator

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.trace import BuildTrace
from cachelint.payloads.reuse import LineIndex, LineReuse, follow_path
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.readers.envelopes import Item, bad_record, parse_json, records_from_value
from cachelint.payloads.readers.files import GZIP_RATIO_AFTER, ReadLimits, ChunkedReads


# --- JSONL ------------------------------------------------------------------------------------


def compressed_bytes(handle: IO[bytes]) -> Callable[[], int] | None:
    """How many bytes of the file a gzip stream has consumed so far; None for a plain file."""
    source = getattr(handle, "fileobj", None)
    if isinstance(source, ChunkedReads):
        return lambda: source.consumed
    return None


# Lines the reuse tries before it gives up on a file where it fails on four lines of five: a log
# format whose body it can seldom locate (a Bedrock log's ``input`` is also a tool call's key, so
# only the lines before the first tool call are taken) would pay scans of every line for nothing;
# its bodies may still be reused (``BodyTexts``). Reuse never changes what is read, only how fast.
_INDEX_TRIES = 64


def read_lines(
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
    records = records or records_from_value
    line_no = 0
    record = 0
    expanded = 0  # decompressed bytes read
    indexed, unindexed = 0, 0  # lines decoded with reuse or indexed for it; lines that were not
    while True:
        try:
            raw = handle.readline(limits.max_record_size + 1)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            yield unreadable(
                display, f"truncated or corrupt gzip data after line {line_no}: {exc}", line=line_no + 1, record=record
            )
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
        value = parse_json(text, origin, "line")
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
    text: bytes,
    origin: Origin,
    redactor: Redactor,
    reuse: LineReuse,
    records: Callable[..., Iterator[Item]] | None = None,
) -> Record | None:
    """The record of a line decoded with reuse, or None (then it is decoded in full)."""
    records = records or records_from_value
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
    text: bytes,
    origin: Origin,
    redactor: Redactor,
    index: LineIndex,
    records: Callable[..., Iterator[Item]] | None = None,
) -> Record | Diagnostic:
    """A record decoded with reuse, decoded in full (when a reused part did not fit)."""
    records = records or records_from_value
    index.trace = BuildTrace()
    value = parse_json(text, origin, "line")
    if isinstance(value, Diagnostic):
        return value
    items = list(records(value, origin, redactor, "jsonl"))
    item = items[0] if items else bad_record(origin, "record vanished when decoded in full")
    if isinstance(item, Record):
        item.trace = index.trace
    return item


def _skip_rest_of_line(handle: IO[bytes]) -> None:
    while True:
        chunk = handle.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return
