"""Latency the recording proxy adds to a request, against a local upstream on loopback.

    python benchmarks/bench_proxy.py [--requests 200] [--json FILE]

A local upstream (aiohttp, in a process of its own) answers three kinds of request: a small
JSON body (a 1 KB prompt), a large one (a 200 KB prompt: a long agent history), and a stream of
20 server-sent events. Each request is sent alternately straight to the upstream and through the
proxy (``cachelint proxy`` in a process of its own, as users run it: forwarding, capture written,
live break report on or off), one at a time on a kept-alive connection, so that both paths see the same machine at the same moment.
Reported per case and path: the median and 95th percentile of the whole request (the last byte
read), the time to the first byte of a stream, and the added latency: the median of the paired
differences (proxy minus direct).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

EVENTS = [
    f'event: content_block_delta\ndata: {{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"word {i} "}}}}\n\n'.encode()
    for i in range(20)
]
REPLY = b'{"id":"msg_1","type":"message","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":1}}'


UPSTREAM = """
import asyncio, sys
from aiohttp import web
EVENTS = {events!r}
REPLY = {reply!r}

async def handle(request):
    await request.read()
    if request.headers.get("x-bench") == "stream":
        response = web.StreamResponse(headers={{"content-type": "text/event-stream"}})
        await response.prepare(request)
        for event in EVENTS:
            await response.write(event)
        await response.write_eof()
        return response
    return web.Response(body=REPLY, content_type="application/json")

async def main():
    app = web.Application(client_max_size=0)
    app.router.add_route("*", "/{{tail:.*}}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(site._server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def start_upstream() -> tuple[subprocess.Popen, str]:
    """The upstream in a process of its own, as a provider is."""
    code = UPSTREAM.format(events=EVENTS, reply=REPLY)
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, f"http://127.0.0.1:{process.stdout.readline().strip()}"


def start_proxy(upstream: str, capture: Path, live: bool) -> tuple[subprocess.Popen, str]:
    """``cachelint proxy`` in a process of its own, as a user runs it."""
    args = ["proxy", "--isolated", "--listen", "127.0.0.1:0", "-o", str(capture), "--upstream", f"anthropic={upstream}"]
    process = subprocess.Popen(
        [sys.executable, "-m", "cachelint", *args, *([] if live else ["--no-live"])], stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    first = process.stderr.readline()
    url = first.split("proxy on ", 1)[1].split(",", 1)[0]
    threading.Thread(target=process.stderr.read, daemon=True).start()  # drain what else it says
    return process, url


def _body(size: int, turn: int) -> bytes:
    history = [{"role": "user", "content": "x" * 200}, {"role": "assistant", "content": "ok"}] * max(1, size // 420)
    return json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "system": "You are terse.",
            "messages": [*history, {"role": "user", "content": f"turn {turn}"}],
        }
    ).encode()


def _timed(client: Any, url: str, body: bytes, mode: str) -> tuple[float, float]:
    """(seconds to the first byte of the body, seconds to the last)."""
    start = time.perf_counter()
    first = None
    with client.stream(
        "POST", url, content=body, headers={"content-type": "application/json", "x-bench": mode}
    ) as response:
        for _ in response.iter_raw():
            if first is None:
                first = time.perf_counter() - start
    return first or 0.0, time.perf_counter() - start


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(requests: int, live: bool) -> dict[str, Any]:
    import httpx

    folder = Path(tempfile.mkdtemp(prefix="cachelint-bench-proxy-"))
    capture = folder / "capture.jsonl"
    upstream, upstream_url = start_upstream()
    proxy, proxy_url = start_proxy(upstream_url, capture, live)
    cases = {"json 1 KB": (1_000, "json"), "json 200 KB": (200_000, "json"), "stream, 20 events": (1_000, "stream")}
    out: dict[str, Any] = {}
    try:
        with httpx.Client(timeout=30) as client:
            for name, (size, mode) in cases.items():
                direct, proxied, firsts = [], [], {"direct": [], "proxy": []}
                for turn in range(requests):
                    body = _body(size, turn)
                    for path, url, sink in (
                        ("direct", f"{upstream_url}/v1/messages", direct),
                        ("proxy", f"{proxy_url}/anthropic/v1/messages", proxied),
                    ):
                        first, total = _timed(client, url, body, mode)
                        sink.append(total)
                        firsts[path].append(first)
                added = [p - d for p, d in zip(proxied, direct)]
                out[name] = {
                    "direct_median_ms": statistics.median(direct) * 1e3,
                    "direct_p95_ms": _percentile(direct, 0.95) * 1e3,
                    "proxy_median_ms": statistics.median(proxied) * 1e3,
                    "proxy_p95_ms": _percentile(proxied, 0.95) * 1e3,
                    "added_median_ms": statistics.median(added) * 1e3,
                    "added_p95_ms": _percentile(added, 0.95) * 1e3,
                    "first_byte_added_median_ms": statistics.median(
                        [p - d for p, d in zip(firsts["proxy"], firsts["direct"])]
                    )
                    * 1e3,
                }
    finally:
        proxy.send_signal(signal.SIGTERM)
        proxy.wait(60)
        upstream.kill()
        upstream.wait()
    out["lines"] = len(capture.read_text(encoding="utf-8").splitlines())
    shutil.rmtree(folder, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per case and path")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args()
    results = {"live report on": measure(args.requests, True), "live report off": measure(args.requests, False)}
    print(
        "| live report | case | direct median / p95 | through the proxy median / p95 | added median / p95 | added to the first byte |"
    )
    print("|---|---|---|---|---|---|")
    for label, cases in results.items():
        for name, r in cases.items():
            if name == "lines":
                continue
            print(
                f"| {label.removeprefix('live report ')} | {name} | {r['direct_median_ms']:.2f} / {r['direct_p95_ms']:.2f} ms"
                f" | {r['proxy_median_ms']:.2f} / {r['proxy_p95_ms']:.2f} ms"
                f" | **{r['added_median_ms']:.2f}** / {r['added_p95_ms']:.2f} ms | {r['first_byte_added_median_ms']:.2f} ms |"
            )
    written = ", ".join(f"{label}: {cases['lines']}" for label, cases in results.items())
    print(f"\ncapture lines written: {written}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
