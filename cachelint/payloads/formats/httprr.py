"""Go ``httprr`` recordings (``golang.org/x/oscar/internal/httprr`` and the copies Go projects
vendor, langchaingo's ``internal/httprr`` among them): HTTP traffic recorded by a test's
``http.RoundTripper`` and replayed by it. The file starts with the line ``httprr trace v1``; each
record is a line ``N1 N2`` followed by N1 bytes of the request as Go's ``Request.WriteProxy``
writes it (request line with the absolute URL, headers, a blank line, the body; ``Request.Write``'s
origin form with a ``Host`` header is read too) and N2 bytes of the response as
``Response.Write`` writes it (status line, headers, blank line, the body: chunked when its length
was not known, content-encoded as the server sent it). The recording keeps no time of its own: the
response's ``Date`` header is the time. One file is one test's recording (``.httprr``, gzipped as
``.httprr.gz``). Source: httprr's ``open`` and ``writeLog``
(https://pkg.go.dev/golang.org/x/oscar/internal/httprr), Go's ``net/http`` wire forms (RFC 9112).
"""

from __future__ import annotations

from typing import IO, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import make_record
from cachelint.payloads.jsonio import loads
from cachelint.payloads.model import Origin
from cachelint.payloads.readers.files import inflated_body

NAME = "httprr"
MAGIC = b"httprr trace v1\n"
# The longest size line a record can have ("N1 N2\n" with two 20-digit numbers).
_SIZE_LINE = 64


class HttpMessage:
    """One HTTP/1.1 message as Go writes it: its start line, headers (names lower-cased, repeated
    ones joined with ``, ``) and body (chunked transfer coding removed)."""

    def __init__(self, start: str, headers: dict[str, str], body: bytes) -> None:
        self.start = start
        self.headers = headers
        self.body = body


def parse_message(data: bytes) -> HttpMessage | None:
    """The message in ``data``, or None when it has no start line. Lines end at LF, a CR before
    it dropped, and the header section at the first empty line, as Go's ``net/textproto``
    reader (which replays the recording) reads them: a scrubber that rewrites a header with a
    bare LF leaves a message Go still reads. A message without an empty line is all headers."""
    pos = 0
    lines: list[str] = []
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            lines.append(data[pos:].decode("latin-1"))
            pos = len(data)
            break
        raw = data[pos:end]
        pos = end + 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw:
            break
        lines.append(raw.decode("latin-1"))
    if not lines:
        return None
    body = data[pos:]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            continue
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunked(body)
    return HttpMessage(lines[0], headers, body)


def _dechunked(data: bytes) -> bytes:
    """The body of a chunked message (RFC 9112, "Chunked Transfer Coding"): chunk sizes in hex, extensions and trailers
    ignored; what a cut recording holds of it."""
    out = bytearray()
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n", pos)
        if end < 0:
            break
        size_text = data[pos:end].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            break
        if size == 0:
            break
        out += data[end + 2 : end + 2 + size]
        pos = end + 2 + size + 2
    return bytes(out)


def _inflated(body: bytes, encoding: str) -> bytes | None:
    """The body without its content coding (gzip, deflate); None for one this reader does not
    undo (br, zstd) or that is corrupt or too large."""
    encoding = encoding.lower().strip()
    if not encoding or encoding == "identity":
        return body
    if encoding not in ("gzip", "x-gzip", "deflate"):
        return None
    return inflated_body(body)


def _url_and_method(request: HttpMessage) -> tuple[str | None, str | None]:
    """The method and absolute URL of a request line (``POST https://host/path HTTP/1.1``, or the
    origin form ``POST /path HTTP/1.1`` with its ``Host`` header: https assumed)."""
    parts = request.start.split(" ")
    if len(parts) < 2:
        return None, None
    method, target = parts[0].upper(), parts[1]
    if target.startswith(("http://", "https://")):
        return target, method
    host = request.headers.get("host")
    if target.startswith("/") and host:
        return f"https://{host}{target}", method
    return None, method


def _status(response: HttpMessage | None) -> int | None:
    if response is None:
        return None
    parts = response.start.split(" ")
    if len(parts) >= 2 and parts[0].startswith("HTTP/") and parts[1].isdigit():
        return int(parts[1])
    return None


def _request_body(request: HttpMessage) -> object:
    body = _inflated(request.body, request.headers.get("content-encoding", ""))
    if not body or not body.lstrip().startswith(b"{"):
        return None  # a GET, a form, a file upload: no LLM request
    try:
        value = loads(body)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_exact(handle: IO[bytes], size: int) -> bytes:
    pieces = []
    while size > 0:
        piece = handle.read(min(size, 1 << 20))
        if not piece:
            break
        pieces.append(piece)
        size -= len(piece)
    return b"".join(pieces)


def _skip(handle: IO[bytes], size: int) -> int | None:
    """Read past ``size`` bytes without keeping them: the line breaks among them, or None when
    the file ends first."""
    breaks = 0
    while size > 0:
        piece = handle.read(min(size, 1 << 20))
        if not piece:
            return None
        breaks += piece.count(b"\n")
        size -= len(piece)
    return breaks


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    header = handle.read(len(MAGIC))
    if header != MAGIC:
        yield unreadable(ctx.display, "not an httprr recording: its first line is not `httprr trace v1`", line=1)
        return
    line = 2  # the line of the next record's size line
    index = 0
    limits = ctx.limits
    while True:
        sizes = handle.readline(_SIZE_LINE)
        if not sizes:
            return
        if index >= limits.max_records:
            yield unreadable(
                ctx.display,
                f"more than max-records ({limits.max_records}) records; the rest is not read",
                line=line,
                record=index,
            )
            return
        fields = sizes.split()
        if not sizes.endswith(b"\n") or len(fields) != 2 or not all(f.isdigit() for f in fields):
            yield unreadable(
                ctx.display,
                "corrupt httprr recording: a record must start with a line `N1 N2` (the request's and"
                " the response's sizes); the rest is not read",
                line=line,
                record=index,
            )
            return
        n1, n2 = int(fields[0]), int(fields[1])
        origin = Origin(ctx.display, line, index, index)
        if n1 + n2 > limits.max_record_size:
            breaks = _skip(handle, n1 + n2)
            if breaks is None:
                yield unreadable(ctx.display, "httprr recording cut short inside a record", line=line, record=index)
                return
            yield unreadable(
                ctx.display,
                f"record of {n1 + n2} bytes is over max-record-size ({limits.max_record_size}); not read",
                line=line,
                record=index,
            )
            line += breaks
        else:
            data = _read_exact(handle, n1 + n2)
            if len(data) < n1 + n2:
                yield unreadable(
                    ctx.display,
                    f"httprr recording cut short inside a record ({len(data)} of {n1 + n2} bytes)",
                    line=line,
                    record=index,
                )
                return
            item = _record(data[:n1], data[n1:], origin, ctx)
            if item is not None:
                yield item
            line += data.count(b"\n")
        index += 1
        line += 1


def _record(
    request_bytes: bytes, response_bytes: bytes, origin: Origin, ctx: registry.ReadContext
) -> registry.Item | None:
    request = parse_message(request_bytes)
    if request is None:
        return unreadable(ctx.display, "httprr record: the request is empty", line=origin.line, record=origin.record)
    url, method = _url_and_method(request)
    response = parse_message(response_bytes)
    response_text = None
    if response is not None:
        body = _inflated(response.body, response.headers.get("content-encoding", ""))
        response_text = body.decode("utf-8", "replace") if body is not None else None
    record = make_record(
        origin,
        _request_body(request),
        ctx.redactor,
        fmt=NAME,
        response=response_text,
        time=response.headers.get("date") if response is not None else None,
        url=url,
        method=method,
        headers=request.headers,
        status=_status(response),
    )
    if response is not None:
        record.response_headers = ctx.redactor.header_dict(response.headers)
    return record


FORMAT = registry.LogFormat(
    name=NAME,
    title="Go httprr recording",
    fidelity="wire",
    keeps={
        "wire bytes": "yes (the request as Go wrote it)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (responses; gzip and chunked bodies read)",
        "time": "the response's Date header",
        "session key": "request headers; one recording a file",
    },
    read=read,
    suffixes=(".httprr", ".httprr.gz"),
    magic=MAGIC,
    recording=True,
    source="https://pkg.go.dev/golang.org/x/oscar/internal/httprr",
)
