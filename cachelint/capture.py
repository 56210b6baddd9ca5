"""Record what an httpx-based LLM client sends and receives, as input for ``cachelint audit``.

Two lines with the official SDKs (both accept an ``http_client``)::

    from cachelint.capture import capture_transport
    client = anthropic.Anthropic(http_client=httpx.Client(transport=capture_transport("run.jsonl")))

``async_capture_transport`` does the same for ``httpx.AsyncClient`` (``AsyncAnthropic``,
``AsyncOpenAI``). Every exchange becomes one JSONL line in the audit's envelope format::

    {"request": body, "response": body, "time": iso8601, "url": ..., "method": ..., "status": ...,
     "headers": {...}, "response_headers": {...}, "session": optional}

Secrets never reach the file: credential headers, secret query parameters and body fields are
dropped, and personal ids used as session keys (``metadata.user_id``) are replaced by a hash — the
same pack-driven ``Redactor`` (``rules/packs/payloads-secrets.yaml``) the audit applies when it
reads. Streamed responses (server-sent events) are passed through untouched and written once the
client has read them to the end (or closed them).

httpx is imported only when a transport is built: it is not a dependency of cachelint itself.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

# Header names that look like credentials: dropped even when the secrets pack does not list them
# (a proxy's custom "x-foo-api-key"), because a capture file is shared more widely than traffic.
_CREDENTIAL_HEADER = re.compile(r"(auth|key|token|secret|cookie|signature|credential|session-token)", re.I)

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    key = str(path.resolve())
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


@functools.lru_cache(maxsize=1)
def _redactor() -> Any:
    from cachelint.catalog import load_packs
    from cachelint.payloads.secrets import Redactor

    return Redactor.from_packs(load_packs("payloads-secrets"))


def _headers(raw: Any) -> dict[str, str]:
    kept = _redactor().header_dict(dict(raw.items()) if hasattr(raw, "items") else raw)
    return {k: v for k, v in kept.items() if not _CREDENTIAL_HEADER.search(k)}


def _decoded(raw: bytes, encoding: str | None) -> bytes | None:
    """The body as the client saw it: undo gzip/deflate (br and zstd need optional modules)."""
    enc = (encoding or "identity").lower().strip()
    try:
        if enc in ("", "identity"):
            return raw
        if enc in ("gzip", "x-gzip"):
            return zlib.decompress(raw, 16 + zlib.MAX_WBITS)
        if enc == "deflate":
            try:
                return zlib.decompress(raw)
            except zlib.error:
                return zlib.decompress(raw, -zlib.MAX_WBITS)
        if enc == "br":
            import brotli

            return brotli.decompress(raw)
    except Exception:  # noqa: BLE001 - an undecodable body is recorded as absent, never a crash
        return None
    return None


def _body(raw: bytes | None, content_type: str | None) -> Any:
    """Parsed JSON when it is JSON, the text of an event stream as is, else None."""
    if raw is None or not raw:
        return None
    text = raw.decode("utf-8", "replace")
    if content_type and "event-stream" in content_type.lower():
        return text
    try:
        return json.loads(text)
    except ValueError:
        stripped = text.lstrip()
        if stripped.startswith(("event:", "data:")):
            return text
        return None


def _request_body(raw: bytes) -> Any:
    body = _body(raw, "application/json")
    if isinstance(body, dict):
        body, hashed = _redactor().body(body)
        for dotted, digest in sorted(hashed.items()):
            # Keep a stand-in where the personal id was, so that sessions still group by it.
            node = body
            *parents, leaf = dotted.split(".")
            for key in parents:
                node = node.setdefault(key, {}) if isinstance(node, dict) else None
                if node is None:
                    break
            if isinstance(node, dict):
                node[leaf] = digest
    return body


def make_envelope(
    *,
    started: datetime,
    method: str,
    url: str,
    request_headers: Any,
    request_content: bytes,
    status: int | None,
    response_headers: Any,
    response_content: bytes | None,
    session: str | None = None,
) -> dict[str, Any]:
    """One exchange as a capture holds it: bodies decoded (gzip, deflate) and parsed, credentials
    dropped, personal ids hashed. ``envelope_line`` masks what is left of keys."""
    content_type = response_headers.get("content-type") if response_headers is not None else None
    encoding = response_headers.get("content-encoding") if response_headers is not None else None
    request_encoding = request_headers.get("content-encoding") if request_headers is not None else None
    envelope: dict[str, Any] = {
        "request": _request_body(_decoded(request_content, request_encoding) or b""),
        "response": _body(_decoded(response_content, encoding) if response_content is not None else None, content_type),
        "time": started.isoformat(),
        "url": _redactor().url(url),
        "method": method,
        "status": status,
        "headers": _headers(request_headers),
        "response_headers": _headers(response_headers) if response_headers is not None else {},
    }
    if session is not None:
        envelope["session"] = session
    return envelope


class CaptureWriter:
    """Appends one envelope a line; safe to share between threads and clients."""

    def __init__(self, path: str | Path, session: str | None = None) -> None:
        self.path = Path(path)
        self.session = session
        self._lock = _lock_for(self.path)

    def write(self, **exchange: Any) -> dict[str, Any]:
        """Append one exchange, given by the keywords of ``make_envelope`` (the writer's session
        added); returns its envelope."""
        envelope = make_envelope(**exchange, session=self.session)
        self.append(envelope_line(envelope))
        return envelope

    def append(self, line: str) -> None:
        """Append one line (``envelope_line``) to the file, whole: lines of several writers never mix."""
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line)


def envelope_line(envelope: dict[str, Any]) -> str:
    """The JSONL line of an envelope, newline included, with every key-shaped string pasted into
    the prompt masked (``cachelint.masking``: the same length, so offsets and diffs are unchanged).
    The line is masked as one text: a pass of each pattern over the line costs less than one per
    string of a long history (a 130 KB body: ~3 ms against ~60 ms), and a mask replaces only
    characters of the key itself, never a quote, so the line stays the same JSON."""
    from cachelint.masking import masker

    return masker().mask(json.dumps(envelope, ensure_ascii=False)) + "\n"


@functools.lru_cache(maxsize=1)
def _classes() -> tuple[type, type]:
    import httpx

    class _TeeStream(httpx.SyncByteStream):
        def __init__(self, inner: Any, done: Callable[[bytes], None]) -> None:
            self._inner = inner
            self._done = done
            self._chunks: list[bytes] = []
            self._closed = False

        def __iter__(self):
            for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk

        def close(self) -> None:
            if self._closed:
                return
            self._closed = True
            try:
                if hasattr(self._inner, "close"):
                    self._inner.close()
            finally:
                self._done(b"".join(self._chunks))

    class _AsyncTeeStream(httpx.AsyncByteStream):
        def __init__(self, inner: Any, done: Callable[[bytes], None]) -> None:
            self._inner = inner
            self._done = done
            self._chunks: list[bytes] = []
            self._closed = False

        async def __aiter__(self):
            async for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk

        async def aclose(self) -> None:
            if self._closed:
                return
            self._closed = True
            try:
                if hasattr(self._inner, "aclose"):
                    await self._inner.aclose()
            finally:
                self._done(b"".join(self._chunks))

    def _record_failure(writer: CaptureWriter, started: datetime, request: httpx.Request, content: bytes) -> None:
        """A request that got no response is recorded too (status None): the session shows the gap."""
        writer.write(
            started=started,
            method=request.method,
            url=str(request.url),
            request_headers=request.headers,
            request_content=content,
            status=None,
            response_headers=None,
            response_content=None,
        )

    def _teed_response(response: httpx.Response, request: httpx.Request, stream) -> httpx.Response:
        """The inner response, its body read through ``stream`` (which records it when done)."""
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
            request=request,
        )

    class CaptureTransport(httpx.BaseTransport):
        def __init__(self, writer: CaptureWriter, inner: httpx.BaseTransport | None = None) -> None:
            self.writer = writer
            self.inner = inner if inner is not None else httpx.HTTPTransport()

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            started = datetime.now(timezone.utc)
            content = request.read()
            try:
                response = self.inner.handle_request(request)
            except Exception:
                _record_failure(self.writer, started, request, content)
                raise
            done = functools.partial(_finish, self.writer, started, request, content, response)
            return _teed_response(response, request, _TeeStream(response.stream, done))

        def close(self) -> None:
            self.inner.close()

    class AsyncCaptureTransport(httpx.AsyncBaseTransport):
        def __init__(self, writer: CaptureWriter, inner: httpx.AsyncBaseTransport | None = None) -> None:
            self.writer = writer
            self.inner = inner if inner is not None else httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            started = datetime.now(timezone.utc)
            content = await request.aread()
            try:
                response = await self.inner.handle_async_request(request)
            except Exception:
                _record_failure(self.writer, started, request, content)
                raise
            done = functools.partial(_finish, self.writer, started, request, content, response)
            return _teed_response(response, request, _AsyncTeeStream(response.stream, done))

        async def aclose(self) -> None:
            await self.inner.aclose()

    return CaptureTransport, AsyncCaptureTransport


def _finish(writer: CaptureWriter, started: datetime, request: Any, content: bytes, response: Any, body: bytes) -> None:
    writer.write(
        started=started,
        method=request.method,
        url=str(request.url),
        request_headers=request.headers,
        request_content=content,
        status=response.status_code,
        response_headers=response.headers,
        response_content=body,
    )


def capture_transport(path: str | Path, *, session: str | None = None, transport: Any = None) -> Any:
    """An ``httpx.BaseTransport`` that forwards to ``transport`` (default ``httpx.HTTPTransport()``)
    and appends every exchange to the JSONL file ``path``. ``session`` tags every record with an
    explicit session id (the audit groups by it)."""
    cls, _ = _classes()
    return cls(CaptureWriter(path, session), transport)


def async_capture_transport(path: str | Path, *, session: str | None = None, transport: Any = None) -> Any:
    """The ``httpx.AsyncBaseTransport`` counterpart of ``capture_transport``."""
    _, cls = _classes()
    return cls(CaptureWriter(path, session), transport)


def capture_client(path: str | Path, *, session: str | None = None, **client_options: Any) -> Any:
    """An ``httpx.Client`` that captures into ``path``: ``anthropic.Anthropic(http_client=capture_client("run.jsonl"))``."""
    import httpx

    return httpx.Client(transport=capture_transport(path, session=session), **client_options)


def async_capture_client(path: str | Path, *, session: str | None = None, **client_options: Any) -> Any:
    """An ``httpx.AsyncClient`` that captures into ``path``."""
    import httpx

    return httpx.AsyncClient(transport=async_capture_transport(path, session=session), **client_options)


__all__ = [
    "CaptureWriter",
    "envelope_line",
    "make_envelope",
    "async_capture_client",
    "async_capture_transport",
    "capture_client",
    "capture_transport",
]
