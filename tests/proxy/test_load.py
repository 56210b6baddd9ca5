"""Fifty agents streaming at once through one proxy: every exchange is captured, whole, and each
agent's lines come in the order it sent them."""

from __future__ import annotations

import asyncio
import json

import httpx

from cachelint.api import audit_logs
from cachelint.config import load_settings

from .helpers import SSE_CHUNKS, capture_lines

SESSIONS = 50
TURNS = 4
SYSTEM = "You are one of many identical workers. Answer in one word. " * 20


def _body(session: int, turn: int) -> bytes:
    messages = [{"role": "user", "content": f"task {session}: step 0"}]
    for step in range(1, turn + 1):
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Hello"}]})
        messages.append({"role": "user", "content": f"task {session}: step {step}"})
    return json.dumps(
        {"model": "claude-sonnet-4-5", "max_tokens": 16, "stream": True, "system": SYSTEM, "messages": messages}
    ).encode()


async def _agent(client: httpx.AsyncClient, url: str, session: int) -> list[bytes]:
    streams = []
    for turn in range(TURNS):
        async with client.stream("POST", url, content=_body(session, turn), headers={"x-test-mode": "sse"}) as response:
            streams.append(b"".join([chunk async for chunk in response.aiter_raw()]))
    return streams


async def _all(url: str) -> list[list[bytes]]:
    limits = httpx.Limits(max_connections=SESSIONS * 2, max_keepalive_connections=SESSIONS * 2)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        return await asyncio.gather(*(_agent(client, url, s) for s in range(SESSIONS)))


def test_fifty_concurrent_streaming_sessions_lose_and_reorder_nothing(proxy):
    streams = asyncio.run(_all(f"{proxy.base_url}/anthropic/v1/messages"))
    assert all(stream == b"".join(SSE_CHUNKS) for agent in streams for stream in agent)
    proxy.stop()
    lines = capture_lines(proxy.recorder.path)
    assert len(lines) == SESSIONS * TURNS
    order: dict[int, list[int]] = {}
    for record in lines:
        assert record["response"] == b"".join(SSE_CHUNKS).decode() and record["status"] == 200
        last = record["request"]["messages"][-1]["content"]
        session, step = (int(x) for x in last.removeprefix("task ").split(": step "))
        order.setdefault(session, []).append(step)
    assert order == {s: list(range(TURNS)) for s in range(SESSIONS)}
    assert not [r for r in proxy.reports if "cache break" in r]  # no agent broke its prefix
    result = audit_logs([str(proxy.recorder.path)], load_settings(proxy.recorder.path.parent, isolated=True))
    assert len(result.summary.sessions) == SESSIONS
    assert all(s.requests == TURNS and s.breaks == 0 for s in result.summary.sessions)
