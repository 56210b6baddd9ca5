"""Server-sent event streams in captured responses, assembled into the one object the audit needs:
id, model, usage (cache fields), Anthropic cache diagnostics and the Responses output items.

Shapes (docs/background/request-shapes.md#streaming): Anthropic ``message_start`` carries ``message.usage``
and ``diagnostics``, ``message_delta`` the final ``usage``; OpenAI Chat sends ``usage`` in its last
chunk (``stream_options.include_usage``); Responses sends ``response.completed`` with the whole
response; Gemini sends ``usageMetadata`` in its chunks.
"""

from __future__ import annotations

from typing import Any

from cachelint.payloads.jsonio import loads


# The event types of the providers' streams (Anthropic Messages, OpenAI Responses: the
# ``response.*`` family), what one event of a stream recorded alone carries in ``type``.
_STREAM_EVENTS = frozenset(
    (
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    )
)


def is_stream_event(value: Any) -> bool:
    """Whether a JSON value is one event of a provider's response stream (a stream fixture
    records them one a line, without the request)."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    return isinstance(kind, str) and (
        kind in _STREAM_EVENTS
        or (kind.startswith("response.") and ("response" in value or "delta" in value or "item" in value))
    )


def looks_like_sse(text: str) -> bool:
    head = text.lstrip()[:16]
    return head.startswith("event:") or head.startswith("data:") or head.startswith(":")


def assemble_sse(text: str) -> dict[str, Any] | None:
    """The id / model / usage / diagnostics / output of a stream, or None when no event carried JSON."""
    out: dict[str, Any] = {}
    found = False
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if not payload or payload == "[DONE]":
            continue
        try:
            event = loads(payload)
        except (ValueError, RecursionError):
            continue
        if not isinstance(event, dict):
            continue
        found = True
        _merge_event(out, event)
    return out if found else None


def _merge_usage(out: dict[str, Any], usage: Any, key: str = "usage") -> None:
    if isinstance(usage, dict):
        merged = dict(out.get(key) or {})
        merged.update({k: v for k, v in usage.items() if v is not None})
        out[key] = merged


def _merge_event(out: dict[str, Any], event: dict[str, Any]) -> None:
    etype = event.get("type")
    if etype == "message_start" and isinstance(event.get("message"), dict):
        message = event["message"]
        for key in ("id", "model"):
            if key in message:
                out[key] = message[key]
        _merge_usage(out, message.get("usage"))
        for holder in (event, message):
            if "diagnostics" in holder:
                out["diagnostics"] = holder["diagnostics"]
        return
    if etype == "message_delta":
        _merge_usage(out, event.get("usage"))
        return
    if etype == "content_block_start" and isinstance(event.get("content_block"), dict):
        # Anthropic: which blocks the server executed tells whether the usage adds up steps
        out.setdefault("content", []).append(event["content_block"])
        return
    if isinstance(etype, str) and etype.startswith("response.") and isinstance(event.get("response"), dict):
        response = event["response"]
        for key in ("id", "model", "created_at"):
            if key in response:
                out[key] = response[key]
        _merge_usage(out, response.get("usage"))
        if isinstance(response.get("output"), list) and response["output"]:
            out["output"] = response["output"]  # the whole output (response.completed)
        return
    if etype == "response.output_item.done" and isinstance(event.get("item"), dict):
        # each finished item, in case the stream ends without a complete response: which items
        # the server executed tells whether the usage adds up internal calls (providers/response.py)
        out.setdefault("output", []).append(event["item"])
        return
    # OpenAI Chat chunks and Gemini chunks
    for key in ("id", "model", "created", "responseId", "modelVersion"):
        if key in event and key not in out:
            out[key] = event[key]
    _merge_usage(out, event.get("usage"))
    _merge_usage(out, event.get("usageMetadata"), "usageMetadata")
