"""Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``): one event a line
(``user``, ``assistant``, ``summary``, ``system``…) with the ``sessionId``, a ``timestamp`` and,
on assistant lines, the API response's ``message`` (``id``, ``model``, ``usage``) and its
``requestId``. One API call is written as one assistant line per content block, all with the
same usage: each call is read once.

A transcript does not hold the request: no system prompt, no tools, no cache markers, and its
messages are Claude Code's view of the conversation, not the bytes sent. It is read at usage
level: the usage of every call (hit rate, misses, TTL gaps from the ``timestamp``s, money; the
TTL of the writes from ``usage.cache_creation``), grouped by ``sessionId`` (a subagent's
sidechain apart). Checks of the prompt's bytes do not run. Source: the transcript files Claude Code
writes (https://docs.anthropic.com/en/docs/claude-code/settings: ``cleanupPeriodDays`` keeps them).
"""

from __future__ import annotations

from typing import Any, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import make_record
from cachelint.payloads.model import Origin
from cachelint.payloads.providers.registry import endpoint

NAME = "claude-code"
_TYPES = ("user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation")
_SEEN_LIMIT = 100_000  # request ids remembered to merge the lines of one call (memory stays bounded)


def matches(value: Any) -> bool:
    kind = value.get("type")
    if kind not in _TYPES:
        return False
    if kind == "summary":
        return "leafUuid" in value
    if kind == "file-history-snapshot":
        return "messageId" in value and "snapshot" in value
    return "sessionId" in value and ("uuid" in value or "message" in value)


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    message = value.get("message") if isinstance(value.get("message"), dict) else None
    if value.get("type") != "assistant" or message is None or not isinstance(message.get("usage"), dict):
        yield make_record(origin, None, ctx.redactor, fmt=NAME)  # a user turn, a summary, a tool result: no API call
        return
    model = message.get("model")
    if not isinstance(model, str) or model.startswith("<"):
        yield make_record(origin, None, ctx.redactor, fmt=NAME)  # "<synthetic>": an error Claude Code wrote itself
        return
    call = value.get("requestId") or message.get("id")
    seen: dict[str, None] = ctx.state.setdefault("calls", {})
    if isinstance(call, str):
        if call in seen:
            yield make_record(origin, None, ctx.redactor, fmt=NAME)  # another content block of a call already read
            return
        seen[call] = None
        if len(seen) > _SEEN_LIMIT:
            seen.pop(next(iter(seen)))
    session = value.get("sessionId")
    if value.get("isSidechain"):
        session = f"{session}/{value.get('agentId') or 'sidechain'}"
    body = {"model": model, "messages": []}
    response = {"id": message.get("id"), "usage": message["usage"]}
    yield make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        fidelity="usage",
        response=response,
        time=value.get("timestamp"),
        session=session,
        url=endpoint("anthropic"),
    )


FORMAT = registry.LogFormat(
    name=NAME,
    title="Claude Code transcript",
    fidelity="usage",
    keeps={
        "wire bytes": "no (no system prompt, no tools)",
        "key order": "no",
        "cache markers": "no (the write's TTL from usage.cache_creation)",
        "usage": "yes (every API call)",
        "time": "timestamp",
        "session key": "sessionId",
    },
    matches=matches,
    records=records,
    source="https://docs.anthropic.com/en/docs/claude-code/settings",
)
