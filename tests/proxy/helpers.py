"""What the proxy's tests share: a fake upstream and the proxy in front of it, both on loopback in
threads of the test process, so that a test compares what each side saw."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
from pathlib import Path
from typing import Any

from cachelint.catalog import load_packs
from cachelint.config import load_settings
from cachelint.proxy.fake_model import FakeModel
from cachelint.proxy.live import LiveBreaks
from cachelint.proxy.recorder import CaptureRecorder
from cachelint.proxy.routes import RouteTable
from cachelint.proxy.server import ProxyServer

# Odd spacing and key order on purpose: a proxy that parsed and re-serialised would change them.
JSON_REPLY = b'{"id":"msg_1",  "type":"message","content":[{"type":"text","text":"caf\\u00e9 \xe2\x9c\x93"}],\n "usage":{"input_tokens":12,"output_tokens":3}}'
SSE_CHUNKS = [
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":9,"output_tokens":1}}}\n\n',
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}\n\n',
    b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
]


class FakeUpstream:
    """An HTTP server that records every request as it arrived (method, path and query, headers,
    body bytes) and answers by the ``x-test-mode`` header: ``json``, ``sse`` (one chunk at a
    time; ``gate``: the second chunk waits for ``release()``), ``gzip``, ``error`` (500), ``cut``
    (the connection dropped mid-stream)."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.sent: list[bytes] = []
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gate: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def start(self) -> "FakeUpstream":
        self._thread.start()
        self._ready.wait()
        return self

    def release(self) -> None:
        assert self._loop is not None and self._gate is not None
        self._loop.call_soon_threadsafe(self._gate.set)

    def stop(self) -> None:
        if self._loop is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()

    def _serve(self) -> None:
        from aiohttp import web

        loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._gate = asyncio.Event()
        app = web.Application(client_max_size=0)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, auto_decompress=False)
        loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
        self._ready.set()
        loop.run_forever()
        loop.close()

    async def _handle(self, request: Any) -> Any:
        from aiohttp import web

        body = await request.read()
        self.seen.append(
            {
                "method": request.method,
                "path": request.rel_url.raw_path_qs,
                "headers": list(request.headers.items()),
                "body": body,
            }
        )
        mode = request.headers.get("x-test-mode", "json")
        if mode == "error":
            return web.Response(
                status=500,
                body=b'{"type":"error","error":{"type":"api_error","message":"boom"}}',
                content_type="application/json",
            )
        if mode == "gzip":
            self.sent.append(gzip.compress(JSON_REPLY))
            return web.Response(
                body=self.sent[-1], headers={"content-type": "application/json", "content-encoding": "gzip"}
            )
        if mode in ("sse", "gate", "cut"):
            response = web.StreamResponse(headers={"content-type": "text/event-stream"})
            await response.prepare(request)
            for i, chunk in enumerate(SSE_CHUNKS):
                if mode == "gate" and i == 1:
                    await self._gate.wait()
                if mode == "cut" and i == 2:
                    request.transport.close()
                    return response
                await response.write(chunk)
                await asyncio.sleep(0.002)
            await response.write_eof()
            return response
        return web.Response(body=JSON_REPLY, headers={"content-type": "application/json"})


def routes_to(url: str) -> RouteTable:
    """The built-in routes, each sent to ``url`` (OpenAI's with its version, as its base URL holds)."""
    table = RouteTable.from_packs(load_packs("proxy-upstreams"))
    return table.with_urls({"anthropic": url, "openai": url + "/v1", "gemini": url})


def start_proxy(capture: Path, routes: RouteTable, *, fake: FakeModel | None = None, live: bool = True):
    """The proxy on a free loopback port, and the lines it reported (live breaks, failures)."""
    reports: list[str] = []
    observe = LiveBreaks(str(capture), load_settings(capture.parent, isolated=True)).observe if live else None
    recorder = CaptureRecorder(capture, observe=observe, report=reports.append)
    server = ProxyServer(routes, recorder, fake=fake, report=reports.append).start()
    return server, reports


def capture_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a capture, each parsed (a line that is not JSON fails the test)."""
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), "the capture ends with a whole line"
    return [json.loads(line) for line in text.splitlines()]
