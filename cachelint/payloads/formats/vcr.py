"""VCR cassettes: vcrpy's YAML (or JSON) with ``interactions[]``, go-vcr's, pydantic-ai's; request
and response bodies as JSON strings, as ``{"string": ...}`` (gzip-encoded bytes inflated) or
already parsed (``body``, or pydantic-ai's ``parsed_body``); also vcrpy's parallel ``requests:`` /
``responses:`` lists. The response's ``Date`` header is the time. Parsed once, up to
``max-document-size``; YAML aliases are refused (``readers.documents``). A YAML file that is not a
cassette is said to be one thing or another by its keys, not by its first bytes.
"""

from __future__ import annotations

from typing import IO, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.readers.documents import read_document_file

NAME = "vcr"


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    return read_document_file(handle, ctx.display, NAME, ctx.redactor, ctx.limits)


FORMAT = registry.LogFormat(
    name=NAME,
    title="VCR cassette",
    fidelity="wire",
    recording=True,
    keeps={
        "wire bytes": "yes (interactions[].request.body)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (the recorded responses)",
        "time": "the response's Date header",
        "session key": "headers; one recording a file",
    },
    read=read,
    suffixes=(".yaml", ".yml", ".yaml.gz", ".yml.gz"),
    generic=True,
    source="https://vcrpy.readthedocs.io/",
)
