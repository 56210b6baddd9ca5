"""What goes wrong around the proxy (an upstream that fails, a body that is not JSON, a path no
route takes, a client that leaves mid-stream) gets a clear message and a valid capture line, and
the proxy keeps serving."""

from __future__ import annotations

import socket
import time

import httpx

from cachelint.api import audit_logs
from cachelint.config import load_settings

from .helpers import JSON_REPLY, SSE_CHUNKS, capture_lines, routes_to, start_proxy

BODY = b'{"model":"claude-sonnet-4-5","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}'


def _post(url: str, body: bytes = BODY, mode: str = "json") -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        return client.post(url, content=body, headers={"content-type": "application/json", "x-test-mode": mode})


def _still_serves(proxy) -> None:
    response = _post(f"{proxy.base_url}/anthropic/v1/messages")
    assert response.status_code == 200 and response.content == JSON_REPLY


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_upstream_that_cannot_be_reached_is_a_502_with_the_reason(tmp_path, upstream):
    dead = f"http://127.0.0.1:{_closed_port()}"
    routes = routes_to(upstream.url).with_urls({"openai": dead + "/v1"})
    proxy, reports = start_proxy(tmp_path / "capture.jsonl", routes)
    try:
        response = _post(f"{proxy.base_url}/openai/v1/chat/completions", b'{"model":"gpt-4o","messages":[]}')
        assert response.status_code == 502
        message = response.json()["error"]["message"]
        assert message.startswith(f"cachelint proxy: cannot reach {dead}/v1/chat/completions")
        assert any("cannot reach" in r and "answered 502" in r for r in reports)
        _still_serves(proxy)
    finally:
        proxy.stop()
    failed, served = capture_lines(tmp_path / "capture.jsonl")
    assert failed["status"] is None and failed["response"] is None  # as capture.py records a transport failure
    assert failed["request"] == {"model": "gpt-4o", "messages": []}
    assert served["status"] == 200


def test_an_upstream_error_passes_through_and_is_captured(proxy, upstream):
    response = _post(f"{proxy.base_url}/anthropic/v1/messages", mode="error")
    assert response.status_code == 500 and response.json()["error"]["message"] == "boom"
    _still_serves(proxy)
    proxy.stop()
    error, served = capture_lines(proxy.recorder.path)
    assert error["status"] == 500 and error["response"]["error"]["type"] == "api_error"


def test_a_body_that_is_not_json_is_forwarded_as_is_and_said(proxy, upstream):
    response = _post(f"{proxy.base_url}/anthropic/v1/messages", b"model=claude&max_tokens=8\x00\xff")
    assert response.status_code == 200  # the upstream decides what a body is worth
    assert upstream.seen[0]["body"] == b"model=claude&max_tokens=8\x00\xff"
    _still_serves(proxy)
    proxy.stop()
    odd, served = capture_lines(proxy.recorder.path)
    assert odd["request"] is None and odd["status"] == 200
    assert any("the request body is not JSON; forwarded as is, recorded without a body" in r for r in proxy.reports)
    result = audit_logs([str(proxy.recorder.path)], load_settings(proxy.recorder.path.parent, isolated=True))
    assert result.summary.requests == 1  # the capture stays a valid log: the odd line is skipped


def test_a_path_no_route_takes_is_a_404_that_names_the_routes(proxy, upstream):
    response = _post(f"{proxy.base_url}/nowhere/v2/things")
    assert response.status_code == 404
    message = response.json()["error"]["message"]
    assert "no upstream for POST /nowhere/v2/things" in message and "/anthropic, /gemini, /openai" in message
    assert not upstream.seen  # nothing left the machine
    _still_serves(proxy)
    proxy.stop()
    assert [r["status"] for r in capture_lines(proxy.recorder.path)] == [200]  # nothing was sent: nothing recorded


def test_an_upstream_that_drops_the_stream_leaves_a_well_formed_line(proxy, upstream):
    received = b""
    try:
        with httpx.Client(timeout=10) as client:
            with client.stream(
                "POST", f"{proxy.base_url}/anthropic/v1/messages", content=BODY, headers={"x-test-mode": "cut"}
            ) as response:
                for chunk in response.iter_raw():
                    received += chunk
    except httpx.HTTPError:
        pass  # the cut reaches the client as a cut, not as a clean end
    assert received == b"".join(SSE_CHUNKS[:2])
    _still_serves(proxy)
    proxy.stop()
    cut, served = capture_lines(proxy.recorder.path)
    assert cut["response"] == b"".join(SSE_CHUNKS[:2]).decode() and cut["status"] == 200
    assert any("the upstream failed after" in r for r in proxy.reports)


def test_a_client_that_leaves_mid_stream_leaves_a_well_formed_line(proxy, upstream):
    """The client reads the first event and hangs up; the upstream holds its second event until
    then. The capture gets one whole line with what had arrived, and the proxy goes on."""
    with httpx.Client(timeout=10) as client:
        with client.stream(
            "POST", f"{proxy.base_url}/anthropic/v1/messages", content=BODY, headers={"x-test-mode": "gate"}
        ) as response:
            first = next(response.iter_raw())
        # leaving the block closes the connection mid-stream
    assert first == SSE_CHUNKS[0]
    upstream.release()
    deadline = time.monotonic() + 10
    while proxy.recorder.written < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    _still_serves(proxy)
    proxy.stop()
    left, served = capture_lines(proxy.recorder.path)
    assert left["response"].startswith(SSE_CHUNKS[0].decode()) and left["status"] == 200
    assert left["request"] == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "hi"}],
    }
    assert any("the client closed the connection after" in r for r in proxy.reports)
