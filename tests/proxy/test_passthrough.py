"""The proxy forwards bytes unchanged both ways, streams without buffering, and captures each
exchange in the format cachelint.capture writes."""

from __future__ import annotations

import gzip
import json
import threading

import httpx
import pytest

from .helpers import JSON_REPLY, SSE_CHUNKS, capture_lines

# Key order, spacing and a non-ASCII escape as an agent might send them: a proxy that parsed and
# re-serialised the body would change each of them.
REQUEST = (
    b'{"model":"claude-sonnet-4-5", "max_tokens":64,"system":"You are terse. caf\\u00e9",'
    b'"messages":[{"role":"user","content":"hi \xc3\xa9"}],"stream":false}'
)
HEADERS = {
    "content-type": "application/json",
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "prompt-caching-2024-07-31",
    "x-api-key": "sk-ant-api03-NOTAREALKEY0000000000000000000000",
    "x-custom-trace": "abc",
    "accept-encoding": "gzip",
}


def test_a_request_and_its_json_response_pass_unchanged(proxy, upstream):
    with httpx.Client() as client:
        response = client.post(
            f"{proxy.base_url}/anthropic/v1/messages?beta=true",
            content=REQUEST,
            headers={**HEADERS, "x-test-mode": "json"},
        )
    assert response.status_code == 200
    assert response.content == JSON_REPLY  # the bytes the upstream sent
    [seen] = upstream.seen
    assert seen["body"] == REQUEST  # the bytes the client sent
    assert seen["method"] == "POST" and seen["path"] == "/v1/messages?beta=true"
    sent = {k.lower(): v for k, v in seen["headers"]}
    for name, value in HEADERS.items():
        assert sent[name] == value  # credentials included: the upstream needs them
    proxy.stop()
    [record] = capture_lines(proxy.recorder.path)
    assert record["url"] == f"{upstream.url}/v1/messages?beta=true"
    assert record["request"] == json.loads(REQUEST) and record["response"] == json.loads(JSON_REPLY)
    assert record["status"] == 200 and record["method"] == "POST"
    assert record["headers"]["anthropic-beta"] == "prompt-caching-2024-07-31"
    assert "x-api-key" not in record["headers"]


def test_the_agents_own_headers_reach_the_upstream_and_no_others(proxy, upstream):
    raw = httpx.Request(
        "POST", f"{proxy.base_url}/anthropic/v1/messages", content=REQUEST, headers={"x-test-mode": "json"}
    )
    with httpx.Client() as client:
        client.send(raw)
    [seen] = upstream.seen
    names = sorted(k.lower() for k, _ in seen["headers"])
    expected = sorted({k.lower() for k in raw.headers} - {"connection"})
    assert names == expected  # host and content-length are rewritten, never added to


def test_a_large_body_sent_with_expect_continue_arrives_whole(proxy, upstream):
    """curl asks `Expect: 100-continue` before a large body; the proxy answers it itself."""
    body = (
        b'{"model":"claude-sonnet-4-5","max_tokens":8,"messages":[{"role":"user","content":"'
        + b"x" * 2_000_000
        + b'"}]}'
    )
    headers = {"content-type": "application/json", "expect": "100-continue", "x-test-mode": "json"}
    with httpx.Client(timeout=30) as client:
        response = client.post(f"{proxy.base_url}/anthropic/v1/messages", content=body, headers=headers)
    assert response.status_code == 200 and response.content == JSON_REPLY
    [seen] = upstream.seen
    assert seen["body"] == body and "expect" not in {k.lower() for k, _ in seen["headers"]}


def test_a_stream_passes_chunk_by_chunk_and_is_captured_whole(proxy, upstream):
    """The second event is held at the upstream until the client has read the first through the
    proxy: a proxy that buffered the stream would never deliver it, and the test would time out."""
    body = REQUEST.replace(b'"stream":false', b'"stream":true')
    received: list[bytes] = []
    with httpx.Client(timeout=10) as client:
        with client.stream(
            "POST", f"{proxy.base_url}/anthropic/v1/messages", content=body, headers={**HEADERS, "x-test-mode": "gate"}
        ) as response:
            assert response.headers["content-type"] == "text/event-stream"
            chunks = response.iter_raw()
            received.append(next(chunks))
            assert received[0] == SSE_CHUNKS[0]
            threading.Timer(0.05, upstream.release).start()
            received.extend(chunks)
    assert b"".join(received) == b"".join(SSE_CHUNKS)
    proxy.stop()
    [record] = capture_lines(proxy.recorder.path)
    assert record["response"] == b"".join(SSE_CHUNKS).decode()  # the event stream's text, as capture.py writes it
    assert record["request"]["stream"] is True


def test_a_compressed_response_reaches_the_client_compressed(proxy, upstream):
    with httpx.Client() as client:
        with client.stream(
            "POST",
            f"{proxy.base_url}/anthropic/v1/messages",
            content=REQUEST,
            headers={**HEADERS, "x-test-mode": "gzip"},
        ) as response:
            raw = b"".join(response.iter_raw())
    assert response.headers["content-encoding"] == "gzip"
    assert raw == upstream.sent[0]  # not inflated on the way
    assert gzip.decompress(raw) == JSON_REPLY
    proxy.stop()
    [record] = capture_lines(proxy.recorder.path)
    assert record["response"] == json.loads(JSON_REPLY)  # stored decoded, as capture.py does


@pytest.mark.parametrize(
    ("local", "forwarded"),
    [
        ("/openai/v1/chat/completions", "/v1/chat/completions"),  # OPENAI_BASE_URL form (…/openai/v1)
        ("/openai/chat/completions", "/v1/chat/completions"),  # a client that appends only the path
        ("/anthropic/v1/messages", "/v1/messages"),  # ANTHROPIC_BASE_URL form
        ("/anthropic/messages", "/v1/messages"),  # a base URL that ended in /v1 (older AI SDK)
        (
            "/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        ),
        ("/v1/messages", "/v1/messages"),  # no route: told by its path
        ("/v1/chat/completions", "/v1/chat/completions"),
        ("/v1beta/models/gemini-2.5-flash:generateContent", "/v1beta/models/gemini-2.5-flash:generateContent"),
    ],
)
def test_each_route_reaches_its_upstream_path(proxy, upstream, local, forwarded):
    with httpx.Client() as client:
        assert client.post(proxy.base_url + local, content=b"{}", headers={"x-test-mode": "json"}).status_code == 200
    assert upstream.seen[-1]["path"] == forwarded
