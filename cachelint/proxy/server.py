"""The recording reverse proxy: aiohttp's server and client on one event loop, in a thread of
its own so that the CLI (and the tests) start and stop it like an object.

Each request is forwarded unchanged (method, path, query, body bytes, headers less the hop-by-hop
ones: RFC 9110 section 7.6.1) to the upstream its route names; the response comes back unchanged,
chunk by chunk as it arrives: server-sent events are never buffered, bodies are never decoded on
the way (``auto_decompress`` off on both sides), so the client reads the bytes the provider sent.
Every exchange then goes to the ``CaptureRecorder``, queued before the client can see the end of
its response (so a session's lines stay in order), with whatever arrived when a side failed.

With a ``FakeModel`` the upstream is never called: the model's reply is sent the same way.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from cachelint.proxy.fake_model import FakeModel
from cachelint.proxy.recorder import CaptureRecorder, Exchange
from cachelint.proxy.routes import RouteTable, Target, base_url

# Connection-level headers a proxy must not forward (RFC 9110 section 7.6.1).
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# Set by the client library for the bytes it sends; and Expect: 100-continue, answered to the
# agent already (the proxy reads the whole body before it forwards it).
_SET_BY_CLIENT = frozenset({"host", "content-length", "expect"})
# Headers aiohttp's client adds when absent: left out unless the agent sent them, so the upstream
# sees the agent's headers and no others.
_CLIENT_DEFAULTS = ("User-Agent", "Accept", "Accept-Encoding", "Content-Type")

# How long an upstream may take to accept a connection. Reads have no limit: a model may think
# for minutes before its first byte, and the agent's own client decides when to give up.
CONNECT_TIMEOUT = 30.0
# In-flight exchanges are given this long to finish when the proxy stops.
SHUTDOWN_TIMEOUT = 5.0


def _quiet_logger() -> logging.Logger:
    """aiohttp's own error log, kept off the terminal: the proxy reports each failure itself in
    one line, and the tracebacks of a client that went away would only be noise."""
    logger = logging.getLogger("cachelint.proxy.aiohttp")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
    return logger


class ProxyServer:
    """``start()`` binds and serves from a thread; ``stop()`` finishes what is in flight, then the
    capture. ``report`` prints one line (live breaks, failures)."""

    def __init__(
        self,
        routes: RouteTable,
        recorder: CaptureRecorder,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        fake: FakeModel | None = None,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.routes = routes
        self.recorder = recorder
        self.host = host
        self.port = port
        self.fake = fake
        self.report = report or _stderr
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._runner: Any = None
        self._client: Any = None

    @property
    def base_url(self) -> str:
        return base_url(self.host, self.port)

    def start(self) -> "ProxyServer":
        self._thread = threading.Thread(target=self._serve, name="cachelint-proxy", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            self._thread.join()
            raise self._failure
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result()
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
        self.recorder.close()

    def __enter__(self) -> "ProxyServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- the event loop's thread -------------------------------------------------------------

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._startup())
        except BaseException as exc:  # noqa: BLE001 - a port in use is told to the caller of start()
            self._failure = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _startup(self) -> None:
        import aiohttp
        from aiohttp import web

        app = web.Application(client_max_size=0)  # no limit: a prompt is as large as the agent made it
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(
            app,
            access_log=None,
            auto_decompress=False,
            logger=_quiet_logger(),
            shutdown_timeout=SHUTDOWN_TIMEOUT,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        if self._runner.addresses:  # the port the system chose for port 0
            self.port = self._runner.addresses[0][1]
        self._client = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT),
            trust_env=True,  # an HTTPS_PROXY the agent itself would have used is used for it
        )

    async def _shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._client is not None:
            await self._client.close()

    async def _handle(self, request: Any) -> Any:
        from aiohttp import web

        started = datetime.now(timezone.utc)
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        path = request.rel_url.raw_path
        target = self.routes.target(path, headers)
        if target is None:
            routes = ", ".join(f"/{u.name}" for u in self.routes.upstreams)
            message = (
                f"no upstream for {request.method} {path}: start the path with a route ({routes}) or "
                f"use a base URL the proxy printed when it started"
            )
            self.report(message)
            return web.json_response(
                {"error": {"type": "cachelint_proxy_error", "message": message}}, status=404, reason="Not Found"
            )
        query = request.rel_url.raw_query_string
        url = target.url + (f"?{query}" if query else "")
        if self.fake is not None:
            return await self._answer_locally(request, target, url, started, headers, body)
        return await self._forward(request, url, started, headers, body)

    async def _forward(self, request: Any, url: str, started: datetime, headers: Mapping[str, str], body: bytes) -> Any:
        import aiohttp
        from aiohttp import web
        from yarl import URL

        sent = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP | _SET_BY_CLIENT]
        skip = {name for name in _CLIENT_DEFAULTS if name.lower() not in headers}
        exchange = _Exchange(started, request.method, url, headers, body)
        try:
            upstream = await self._client.request(
                request.method,
                URL(url, encoded=True),
                data=body if body else None,
                headers=sent,
                skip_auto_headers=skip,
                allow_redirects=False,
            )
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError) as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self.report(f"cannot reach {url} ({reason}); answered 502, recorded without a response")
            self.recorder.record(exchange.failed())
            return web.json_response(
                {
                    "error": {
                        "type": "cachelint_proxy_error",
                        "message": f"cachelint proxy: cannot reach {url}: {reason}",
                    }
                },
                status=502,
            )
        try:
            exchange.status = upstream.status
            exchange.response_headers = {k.lower(): v for k, v in upstream.headers.items()}
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in HOP_BY_HOP:
                    response.headers.add(name, value)
            await response.prepare(request)
            await self._relay(upstream.content.iter_any(), request, response, exchange, upstream.content_length)
            return response
        finally:
            upstream.release()  # back to the pool when read to the end, else its connection is closed

    async def _answer_locally(
        self, request: Any, target: Target, url: str, started: datetime, headers: Mapping[str, str], body: bytes
    ) -> Any:
        from aiohttp import web
        from yarl import URL

        assert self.fake is not None
        upstream_url = URL(url, encoded=True)
        reply = self.fake.respond(target.upstream.name, request.method, upstream_url.path, upstream_url.query, body)
        exchange = _Exchange(started, request.method, url, headers, body)
        exchange.status = reply.status
        exchange.response_headers = dict(reply.headers)
        response = web.StreamResponse(status=reply.status)
        for name, value in reply.headers.items():
            response.headers[name] = value
        size = sum(len(chunk) for chunk in reply.chunks)
        if "event-stream" not in reply.headers.get("content-type", "") and len(reply.chunks) == 1:
            response.content_length = size
        await response.prepare(request)

        async def pieces() -> Any:
            for chunk in reply.chunks:
                yield chunk
                await asyncio.sleep(0)  # one event at a time, as a provider streams them

        await self._relay(pieces(), request, response, exchange, size if response.content_length is not None else None)
        return response

    async def _relay(self, chunks: Any, request: Any, response: Any, exchange: "_Exchange", length: int | None) -> None:
        """Send each chunk on as it comes; record the exchange as soon as the body is complete
        (before the client sees its end), or with what arrived when either side gave up."""
        received = 0
        try:
            async for chunk in chunks:
                exchange.chunks.append(chunk)
                received += len(chunk)
                if length is not None and received >= length:
                    self._record(exchange)
                await response.write(chunk)
            self._record(exchange)
            await response.write_eof()
        except (ConnectionError, asyncio.CancelledError) as exc:
            # The client went away (or the server is stopping): what came so far is the record.
            self._record(exchange)
            if not isinstance(exc, asyncio.CancelledError):
                self.report(
                    f"{exchange.method} {exchange.url}: the client closed the connection after {received:,} bytes "
                    "of the response; recorded what had arrived"
                )
            else:
                raise
        except Exception as exc:  # noqa: BLE001 - an upstream that broke mid-stream
            self._record(exchange)
            self.report(
                f"{exchange.method} {exchange.url}: the upstream failed after {received:,} bytes "
                f"({type(exc).__name__}: {exc}); recorded what had arrived"
            )
            if request.transport is not None:
                request.transport.close()  # no clean end: the client must not take a cut stream as whole

    def _record(self, exchange: "_Exchange") -> None:
        if not exchange.recorded:
            exchange.recorded = True
            self.recorder.record(exchange.finished())


class _Exchange:
    """An exchange while it is relayed."""

    def __init__(self, started: datetime, method: str, url: str, headers: Mapping[str, str], body: bytes) -> None:
        self.started = started
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.status: int | None = None
        self.response_headers: Mapping[str, str] | None = None
        self.chunks: list[bytes] = []
        self.recorded = False

    def finished(self) -> Exchange:
        return Exchange(
            self.started,
            self.method,
            self.url,
            self.headers,
            self.body,
            self.status,
            self.response_headers,
            b"".join(self.chunks),
        )

    def failed(self) -> Exchange:
        return Exchange(self.started, self.method, self.url, self.headers, self.body, None, None, None)


def _stderr(message: str) -> None:
    print(f"cachelint: {message}", file=sys.stderr, flush=True)
