"""cachelint.capture with httpx's MockTransport: no network. Records land in the envelope format,
secrets never do, streams pass through untouched, and the audit reads the file back."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

httpx = pytest.importorskip("httpx")

from cachelint.capture import async_capture_transport, capture_client, capture_transport

URL = "https://api.anthropic.com/v1/messages?key=SECRET-QUERY&beta=true"
BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "metadata": {"user_id": "user_abc_account_42"},
    "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
    "messages": [{"role": "user", "content": "hi"}],
}
REPLY = {
    "id": "msg_1",
    "type": "message",
    "content": [],
    "usage": {"input_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 2},
}
HEADERS = {
    "x-api-key": "sk-ant-SECRET",
    "authorization": "Bearer sk-SECRET",
    "anthropic-version": "2023-06-01",
    "x-custom-api-key": "SECRET3",
}


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_sync_capture_records_envelope_without_secrets(tmp_path):
    seen = []

    def handler(request):
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=REPLY, headers={"set-cookie": "sid=SECRET4", "request-id": "req_1"})

    log = tmp_path / "run.jsonl"
    client = httpx.Client(transport=capture_transport(log, session="demo", transport=httpx.MockTransport(handler)))
    response = client.post(URL, json=BODY, headers=HEADERS)
    assert response.json() == REPLY  # the client sees the response unchanged
    assert seen[0]["metadata"]["user_id"] == "user_abc_account_42"  # the wire is untouched
    [record] = _read(log)
    assert record["response"] == REPLY and record["status"] == 200 and record["session"] == "demo"
    assert record["request"]["system"] == BODY["system"]
    assert record["request"]["metadata"]["user_id"].startswith("h:")
    assert record["headers"]["anthropic-version"] == "2023-06-01"
    assert not {"x-api-key", "authorization", "x-custom-api-key"} & set(record["headers"])
    assert "set-cookie" not in record["response_headers"] and record["response_headers"]["request-id"] == "req_1"
    text = log.read_text(encoding="utf-8")
    for secret in ("SECRET", "sk-ant", "user_abc_account_42"):
        assert secret not in text
    assert record["url"].startswith("https://api.anthropic.com/v1/messages") and "beta=true" in record["url"]
    assert record["time"].endswith("+00:00")


def test_streamed_response_is_passed_through_and_recorded(tmp_path):
    events = (
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":3,'
        '"cache_read_input_tokens":1200,"cache_creation_input_tokens":0,"output_tokens":1}}}\n\n'
        'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n'
    )

    def handler(request):
        return httpx.Response(
            200,
            content=gzip.compress(events.encode()),
            headers={"content-type": "text/event-stream", "content-encoding": "gzip"},
        )

    log = tmp_path / "stream.jsonl"
    client = httpx.Client(transport=capture_transport(log, transport=httpx.MockTransport(handler)))
    with client.stream("POST", URL, json=dict(BODY, stream=True)) as response:
        got = "".join(response.iter_text())
    assert got == events
    [record] = _read(log)
    assert record["response"] == events  # the raw stream: the audit assembles it
    from cachelint.payloads.usage import usage_from_response

    assert usage_from_response(record["response"], "anthropic").read == 1200


def test_async_capture(tmp_path):
    async def handler(request):
        return httpx.Response(200, json=REPLY)

    log = tmp_path / "async.jsonl"

    async def main():
        async with httpx.AsyncClient(
            transport=async_capture_transport(log, transport=httpx.MockTransport(handler))
        ) as client:
            for _ in range(2):
                r = await client.post(URL, json=BODY, headers=HEADERS)
                assert r.json() == REPLY

    asyncio.run(main())
    records = _read(log)
    assert len(records) == 2 and all(r["response"] == REPLY for r in records)
    assert "SECRET" not in log.read_text(encoding="utf-8")


def test_transport_error_is_recorded_and_raised(tmp_path):
    def handler(request):
        raise httpx.ConnectError("down", request=request)

    log = tmp_path / "err.jsonl"
    client = httpx.Client(transport=capture_transport(log, transport=httpx.MockTransport(handler)))
    with pytest.raises(httpx.ConnectError):
        client.post(URL, json=BODY)
    [record] = _read(log)
    assert record["response"] is None and record["status"] is None


def test_capture_client_helper_builds_a_client(tmp_path):
    client = capture_client(tmp_path / "x.jsonl", timeout=5)
    assert isinstance(client, httpx.Client)
    client.close()


def test_audit_reads_a_capture(tmp_path):
    from cachelint.api import audit_logs
    from cachelint.config import load_settings

    def handler(request):
        return httpx.Response(200, json=REPLY)

    log = tmp_path / "run.jsonl"
    client = httpx.Client(transport=capture_transport(log, transport=httpx.MockTransport(handler)))
    history = [{"role": "user", "content": "hi"}]
    for turn in range(2):
        client.post(URL, json=dict(BODY, messages=list(history)), headers=HEADERS)
        history += [{"role": "assistant", "content": f"answer {turn}"}, {"role": "user", "content": f"more {turn}"}]
    pytest.importorskip("cachelint.payloads.audit")
    result = audit_logs([str(log)], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    assert [d.code for d in result.diagnostics if d.code == "CL001"] == []
