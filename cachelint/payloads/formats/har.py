"""HAR 1.2 (docs/background/request-shapes.md#har-12): the request body from ``postData.text``,
the response from ``content.text`` (JSON or server-sent events, base64 allowed); entries sorted by
``startedDateTime``, because the specification does not promise the order. Parsed once, up to
``max-document-size`` (``readers.documents``).
"""

from __future__ import annotations

from typing import IO, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.readers.documents import read_document_file

NAME = "har"


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    unlike = registry.unlike_a_log(handle, ctx.display)
    if unlike is not None:
        return iter((unlike,))
    return read_document_file(handle, ctx.display, NAME, ctx.redactor, ctx.limits)


FORMAT = registry.LogFormat(
    name=NAME,
    title="HAR 1.2",
    fidelity="wire",
    recording=True,
    keeps={
        "wire bytes": "yes (postData.text)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (content.text)",
        "time": "startedDateTime",
        "session key": "headers; one recording a file",
    },
    read=read,
    suffixes=(".har", ".har.gz"),
    generic=True,
    source="http://www.softwareishard.com/blog/har-12-spec/",
)
