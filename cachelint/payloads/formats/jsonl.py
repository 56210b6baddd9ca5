"""JSONL, the generic log: one record a line — a bare request body, an envelope ``{"request",
"response", "time", "session", "url", "headers"}`` (the request may also be ``{"url", "headers",
"body"}``), or an OpenAI Batch input line ``{"custom_id", "url", "body"}``
(``readers.envelopes``). Streamed line by line, so memory does not grow with the file; the bytes a
line repeats from a recent one are not decoded again (``cachelint.payloads.reuse``). Also the
container of the log formats whose records are JSONL lines: a file whose first record another
format claims is read by that format.
"""

from __future__ import annotations

from typing import IO, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.readers.envelopes import ENVELOPE_KEEPS
from cachelint.payloads.readers.lines import compressed_bytes, read_lines
from cachelint.payloads.reuse import BODY_PATHS

NAME = "jsonl"


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    unlike = registry.unlike_a_log(handle, ctx.display)
    if unlike is not None:
        return iter((unlike,))
    return read_lines(handle, ctx.display, ctx.redactor, ctx.limits, ctx.reuse, compressed_bytes(handle))


FORMAT = registry.LogFormat(
    name=NAME,
    title="JSONL log",
    fidelity="wire",
    keeps=ENVELOPE_KEEPS,
    read=read,
    body_paths=BODY_PATHS,
    suffixes=(".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz"),
    generic=True,
    source="https://jsonlines.org/",
)
