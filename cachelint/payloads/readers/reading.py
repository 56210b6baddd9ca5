"""Reading one log: the format it is read as (forced, a log format of cachelint.payloads.formats,
or one of the generic readers) and the reader that reads it, from a file or from bytes."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads import jsonio
from cachelint.payloads.reuse import LineReuse
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.shapes import not_a_log
from cachelint.payloads.readers.bodies import BodyTexts
from cachelint.payloads.readers.documents import _read_document
from cachelint.payloads.readers.envelopes import Item
from cachelint.payloads.readers.files import (
    FORMATS,
    GZIP_MAGIC,
    ReadLimits,
    _ChunkedReads,
    _glance,
    _open,
    _peek,
    detect_format,
    format_from_name,
)
from cachelint.payloads.readers.jsonl import _compressed_bytes, _read_jsonl


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
                yield from _read_jsonl(
                    handle,
                    display,
                    redactor,
                    limits,
                    LineReuse() if reuse and jsonio.FAST else None,
                    _compressed_bytes(handle),
                )
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
    return chosen, by_name if by_name in ("jsonl", "json") else detect_format(
        display, _peek(handle, limits.max_record_size)
    )


def _read_log_format(
    handle: IO[bytes],
    display: str,
    log_format: tuple[Any, str],
    redactor: Redactor,
    limits: ReadLimits,
    reuse: bool,
    joins: Any,
) -> Iterator[Item]:
    from cachelint.payloads import formats

    fmt, container = log_format
    ctx = formats.ReadContext(display, redactor, limits, joins if joins is not None else formats.Joins())
    # the history of content-level requests built once (needs the same consumer as reuse)
    ctx.state["replay"] = (
        bool(reuse and jsonio.FAST) and fmt.fidelity != "wire" or bool(reuse and fmt.name == "langsmith")
    )
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


def read_bytes_as_log(
    data: bytes, display: str, fmt: str, redactor: Redactor, limits: ReadLimits = ReadLimits()
) -> list[Item]:
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
