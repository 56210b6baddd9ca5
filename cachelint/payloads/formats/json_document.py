"""JSON, the generic document: one request body or envelope (as a JSONL line holds), or a list of
them; parsed once, up to ``max-document-size``. A HAR log or a cassette written as JSON is read as
such. Also the container of the log formats whose records sit in a JSON document: a file whose
first record another format claims is read by that format, streamed.
"""

from __future__ import annotations

from typing import IO, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.readers.envelopes import ENVELOPE_KEEPS
from cachelint.payloads.readers.documents import read_document_file

NAME = "json"


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    unlike = registry.unlike_a_log(handle, ctx.display)
    if unlike is not None:
        return iter((unlike,))
    return read_document_file(handle, ctx.display, ctx.name or NAME, ctx.redactor, ctx.limits)


FORMAT = registry.LogFormat(
    name=NAME,
    title="JSON document",
    fidelity="wire",
    keeps=ENVELOPE_KEEPS,
    read=read,
    generic=True,
    source="https://www.rfc-editor.org/rfc/rfc8259",
)
