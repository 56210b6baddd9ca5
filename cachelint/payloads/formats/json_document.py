"""JSON, the generic document: one request body or envelope (as a JSONL line holds), or a list of
them; parsed once, up to ``max-document-size``. A HAR log or a cassette written as JSON is read as
such. Also the container of the log formats whose records sit in a JSON document: a file whose
first record another format claims is read by that format, streamed.
"""

from __future__ import annotations

from typing import IO, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.readers.documents import read_document_file
from cachelint.payloads.readers.files import glance
from cachelint.payloads.shapes import not_a_log

NAME = "json"


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    unlike = not_a_log(ctx.display, glance(handle))
    if unlike is not None:
        yield unreadable(ctx.display, unlike)
        return
    yield from read_document_file(handle, ctx.display, ctx.name or NAME, ctx.redactor, ctx.limits)


FORMAT = registry.LogFormat(
    name=NAME,
    title="JSON document",
    fidelity="wire",
    keeps={
        "wire bytes": "yes (the body, or the envelope's request)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (the envelope's response)",
        "time": "the envelope's time fields (--time-field)",
        "session key": "the envelope's session fields, headers",
    },
    read=read,
    generic=True,
    source="https://www.rfc-editor.org/rfc/rfc8259",
)
