"""JSON, the generic document: one request body or envelope (as a JSONL line holds), or a list of
them. A list is streamed item by item (``stream.JsonStream``: memory holds a window of the file
and one item, each item bounded by ``max-record-size``, the items by ``max-records``, like JSONL
lines); any other document is parsed once, up to ``max-document-size``. A HAR log or a cassette
written as JSON is read as such. Also the container of the log formats whose records sit in a
JSON document: a file whose first record another format claims is read by that format, streamed.
"""

from __future__ import annotations

import re
from typing import IO, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.formats.stream import JsonStream, StreamError
from cachelint.payloads.model import Origin
from cachelint.payloads.readers.envelopes import ENVELOPE_KEEPS, records_from_value
from cachelint.payloads.readers.documents import read_document_file
from cachelint.payloads.readers.files import BoundedReads, ReadBoundExceeded, glance

NAME = "json"

_BOM = b"\xef\xbb\xbf"
_ARRAY_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*\[")


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    unlike = registry.unlike_a_log(handle, ctx.display)
    if unlike is not None:
        return iter((unlike,))
    head = glance(handle)
    if _ARRAY_START.match(head):
        if head.startswith(_BOM):
            handle.read(len(_BOM))
        return _streamed_list(handle, ctx)
    return read_document_file(handle, ctx.display, ctx.name or NAME, ctx.redactor, ctx.limits)


def _streamed_list(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    """The records of a top-level JSON array, one item at a time. Parsed whole, a document peaked
    at about 3.5 times its size (its bytes, the chunks they were read in, the parsed values, the
    records); streamed, at a window and one item, so ``max-document-size`` does not apply."""
    reads = BoundedReads(handle, ctx.limits, "JSON document", None)  # the gzip ratio, checked as it is read
    stream = JsonStream(reads, ctx.limits.max_record_size)  # type: ignore[arg-type]
    index = 0
    try:
        for value, line, _context in stream.items(("*",)):
            if index >= ctx.limits.max_records:
                yield unreadable(
                    ctx.display,
                    f"more than {ctx.limits.max_records} items (max-records); the rest of the file is not audited",
                    line=line,
                    record=index,
                )
                return
            yield from records_from_value(value, Origin(ctx.display, line, index, index), ctx.redactor, NAME)
            index += 1
    except ReadBoundExceeded as exc:
        yield unreadable(ctx.display, str(exc), line=stream.line, record=index)
    except StreamError as exc:
        yield unreadable(ctx.display, f"JSON document: {exc}; items after it not read", line=exc.line, record=index)
    except RecursionError:
        yield unreadable(
            ctx.display,
            "JSON document: nested too deeply to read; items after it not read",
            line=stream.line,
            record=index,
        )


FORMAT = registry.LogFormat(
    name=NAME,
    title="JSON document",
    fidelity="wire",
    keeps=ENVELOPE_KEEPS,
    read=read,
    generic=True,
    source="https://www.rfc-editor.org/rfc/rfc8259",
)
