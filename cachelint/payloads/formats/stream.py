"""Values out of one large JSON document without holding the document: the records of an export
(a top-level array, ``{"data": [...]}``, ``{"requests": [...]}``, OTLP's
``resourceSpans[].scopeSpans[].spans[]``) one at a time, read from a sliding window of the file.

The skeleton on the way to the records (object members, array brackets) is walked here; each
record, and each member met on the way, is parsed by orjson from the window: orjson parses the
value and reports where the content after it starts (``unexpected content after document`` at a
character position), which gives the value's end, and the exact slice is then parsed. A window
too short for the value (``unexpected end of data``) is doubled, up to the record size limit.
Memory holds the window and one record, whatever the document's length.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import IO, Any, Iterator

try:
    import orjson
except ImportError:  # orjson is a dependency, but the audit must run without it (stdlib json)
    orjson = None  # type: ignore[assignment]

_WS = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_SCALAR = re.compile(rb"-?[0-9][0-9eE.+-]*|true|false|null")
_TRAILING = "unexpected content after document"
_TRUNCATED = "unexpected end of data"
CHUNK = 1 << 20
MIN_WINDOW = 1 << 16

Context = tuple[dict, ...]


class StreamError(ValueError):
    """The document is not the JSON the walk expected (or not JSON): where, and why."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class JsonStream:
    """A forward-only reader of JSON values over a binary stream."""

    def __init__(self, handle: IO[bytes], max_value: int, chunk: int = CHUNK) -> None:
        self.handle = handle
        self.max_value = max_value
        self.chunk = chunk
        self.buf = b""
        self.pos = 0
        self.line = 1
        self.eof = False
        self.hint = MIN_WINDOW  # the window for the next value: twice the last record, at least 64 KiB
        self.values = 0  # records read (for the caller's record index)

    # -- the window -----------------------------------------------------------------------------

    def _fill(self, need: int) -> None:
        """At least ``need`` bytes after ``pos`` in the buffer, unless the stream ends first."""
        if len(self.buf) - self.pos >= need or self.eof:
            return
        if self.pos:
            self.buf = self.buf[self.pos :]
            self.pos = 0
        parts = [self.buf]
        have = len(self.buf)
        while have < need:
            data = self.handle.read(max(self.chunk, need - have))
            if not data:
                self.eof = True
                break
            parts.append(data)
            have += len(data)
        self.buf = b"".join(parts)

    def _advance(self, to: int) -> None:
        self.line += self.buf.count(b"\n", self.pos, to)
        self.pos = to

    def skip_ws(self) -> None:
        while True:
            self._fill(1)
            end = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            self._advance(end)
            if end < len(self.buf) or self.eof:
                return

    def peek(self) -> bytes:
        self.skip_ws()
        return self.buf[self.pos : self.pos + 1]

    def at_end(self) -> bool:
        return self.peek() == b""

    def expect(self, char: bytes) -> None:
        found = self.peek()
        if found != char:
            shown = found.decode("utf-8", "replace") if found else "the end of the file"
            raise StreamError(f"expected {char.decode()!r}, found {shown!r}", self.line)
        self._advance(self.pos + 1)

    # -- values ---------------------------------------------------------------------------------

    def string(self) -> str:
        self.skip_ws()
        size = 256
        while True:
            match = _STRING.match(self.buf, self.pos)
            if match is not None:
                token = match.group()
                self._advance(match.end())
                if b"\\" not in token and token.isascii() and not _CONTROL.search(token):
                    return token[1:-1].decode("ascii")
                return _decoded_string(token, self.line)
            if self.eof or size > self.max_value:
                raise StreamError("expected a member name (a JSON string)", self.line)
            size *= 4
            self._fill(size)

    def value(self) -> Any:
        """The next JSON value, parsed; the position moves past it."""
        first = self.peek()
        if first in (b"{", b"["):
            return self._container()
        if first == b'"':
            return _decoded_string(self._string_token(), self.line)
        self._fill(64)
        match = _SCALAR.match(self.buf, self.pos)
        if match is None or (match.end() == len(self.buf) and not self.eof):
            self._fill(4096)
            match = _SCALAR.match(self.buf, self.pos)
        if match is None:
            shown = self.buf[self.pos : self.pos + 20].decode("utf-8", "replace")
            raise StreamError(f"not a JSON value: {shown!r}", self.line)
        self._advance(match.end())
        try:
            return _loads(match.group())
        except ValueError as exc:
            raise StreamError(f"not a JSON value: {exc}", self.line) from None

    def _string_token(self) -> bytes:
        size = 4096
        while True:
            self._fill(size)
            match = _STRING.match(self.buf, self.pos)
            if match is not None:
                self._advance(match.end())
                return match.group()
            if self.eof or size > self.max_value:
                raise StreamError("unterminated string", self.line)
            size *= 4

    def _container(self) -> Any:
        window = self.hint
        self._fill(window)
        line_end = self.buf.find(b"\n", self.pos, self.pos + window)
        if line_end > 0:
            # exports that write a record a line inside the array (``[\n{…},\n{…}\n]``): when the
            # line, less a trailing comma, is one whole value, that value is the record (a value
            # that parses whole cannot go on past its end), parsed once instead of twice
            candidate = self.buf[self.pos : line_end].rstrip(b" \t\r")
            if candidate in (b"{", b"["):
                candidate = self._indented(candidate, window)
            elif candidate.endswith(b","):
                candidate = candidate[:-1]
            try:
                value = _loads(candidate) if candidate else None
            except (ValueError, RecursionError):
                candidate = b""
            if candidate:
                if len(candidate) > self.max_value:
                    raise StreamError(f"a record is over {self.max_value} bytes (max-record-size)", self.line)
                self.hint = max(MIN_WINDOW, min(2 * len(candidate) + 1024, self.max_value + 1))
                self._advance(self.pos + len(candidate))
                return value
        while True:
            self._fill(window)
            chunk = self.buf[self.pos : self.pos + window]
            whole = self.eof and len(chunk) == len(self.buf) - self.pos
            try:
                value, end = _first_value(chunk, whole, self.line)
            except _Truncated:
                if window >= self.max_value:
                    raise StreamError(f"a record is over {self.max_value} bytes (max-record-size)", self.line) from None
                window = min(window * 2, self.max_value + 1)
                continue
            if end > self.max_value:
                raise StreamError(f"a record is over {self.max_value} bytes (max-record-size)", self.line)
            self.hint = max(MIN_WINDOW, min(2 * end + 1024, self.max_value + 1))
            self._advance(self.pos + end)
            return value

    def _indented(self, opening: bytes, window: int) -> bytes:
        """The value at ``pos`` of an indented document (``json.dumps(indent=…)``, as mitmproxy
        and most exporters write it): its bracket alone on its line, its closing bracket at the
        start of a later line at the same column; those bytes, parsed once, or empty when the
        window shows no such close (a candidate that parses whole is the value: a JSON value
        cannot go on past its end)."""
        line_start = self.buf.rfind(b"\n", 0, self.pos) + 1
        if not line_start and self.pos:
            return b""  # the window starts inside a line: the column is not known
        indent = self.buf[line_start : self.pos]
        if indent.strip(b" \t"):
            return b""
        close = b"\n" + indent + (b"}" if opening == b"{" else b"]")
        end = self.buf.find(close, self.pos, self.pos + window)
        return self.buf[self.pos : end + len(close)] if end > 0 else b""

    # -- walking to the records -----------------------------------------------------------------

    def items(self, path: tuple[str, ...], sequence: bool = False) -> Iterator[tuple[Any, int, Context]]:
        """(record, its 1-based line, the members met on the way) for every record at ``path``:
        member names and ``*`` (every element of an array), e.g. ``("data", "*")``. The context
        holds, for every object on the way, its members read before the path went on (OTLP's
        ``resource`` before ``scopeSpans``). ``sequence``: the file may hold several documents one
        after the other (a console exporter's output)."""
        while True:
            yield from self._walk(path, 0, ())
            if not sequence or self.at_end():
                break
        if not self.at_end():
            raise StreamError("content after the end of the document", self.line)

    def _walk(self, path: tuple[str, ...], depth: int, ctx: Context) -> Iterator[tuple[Any, int, Context]]:
        if depth == len(path):
            self.skip_ws()
            line = self.line
            value = self.value()
            self.values += 1
            yield value, line, ctx
            return
        step = path[depth]
        if step == "*":
            self.expect(b"[")
            if self.peek() == b"]":
                self._advance(self.pos + 1)
                return
            while True:
                yield from self._walk(path, depth + 1, ctx)
                sep = self.peek()
                if sep == b"]":
                    self._advance(self.pos + 1)
                    return
                self.expect(b",")
        self.expect(b"{")
        members: dict[str, Any] = {}
        if self.peek() == b"}":
            self._advance(self.pos + 1)
            return
        while True:
            name = self.string()
            self.expect(b":")
            if name == step:
                yield from self._walk(path, depth + 1, ctx + (dict(members),))
            else:
                members[name] = self.value()
            sep = self.peek()
            if sep == b"}":
                self._advance(self.pos + 1)
                return
            self.expect(b",")


_CONTROL = re.compile(rb"[\x00-\x1f]")


class _Truncated(Exception):
    """The window ends inside the value: read more."""


def _loads(data: bytes) -> Any:
    if orjson is not None:
        return orjson.loads(data)
    return json.loads(data.decode("utf-8"))


def _first_value(chunk: bytes, whole: bool, line: int) -> tuple[Any, int]:
    """The JSON value at the start of ``chunk`` and its length in bytes; ``_Truncated`` when the
    chunk ends inside it (and more of the file follows: ``whole`` false)."""
    if orjson is not None:
        try:
            return orjson.loads(chunk), len(chunk)
        except orjson.JSONDecodeError as exc:
            message = str(exc)
            if message.startswith(_TRAILING):
                end = exc.pos if chunk.isascii() else len(chunk.decode("utf-8", "ignore")[: exc.pos].encode("utf-8"))
                return orjson.loads(chunk[:end]), end
            if message.startswith(_TRUNCATED) and not whole:
                raise _Truncated() from None
            raise StreamError(
                f"not valid JSON: {message.split(':')[0]}", line + chunk.count(b"\n", 0, _byte_pos(chunk, exc.pos))
            ) from None
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(chunk, final=whole)
    except UnicodeDecodeError as exc:
        raise StreamError(f"not valid UTF-8: {exc.reason}", line) from None
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as exc:
        if not whole:
            raise _Truncated() from None  # the stdlib cannot tell a cut value from a bad one: more bytes tell
        raise StreamError(f"not valid JSON: {exc.msg}", line + text.count("\n", 0, exc.pos)) from None
    return value, len(text[:end].encode("utf-8"))


def _decoded_string(token: bytes, line: int) -> str:
    try:
        return _loads(token)
    except ValueError as exc:
        raise StreamError(f"not a valid JSON string: {str(exc).split(':')[0]}", line) from None


def _byte_pos(chunk: bytes, chars: int) -> int:
    return chars if chunk.isascii() else len(chunk.decode("utf-8", "ignore")[:chars].encode("utf-8"))


def first_key(head: bytes) -> str | None:
    """The first member name of the document's top-level object (from its first bytes), or None."""
    match = re.match(rb'\s*\{\s*"((?:[^"\\]|\\.){1,64})"\s*:', head.lstrip(b"\xef\xbb\xbf"))
    return match.group(1).decode("utf-8", "replace") if match else None
