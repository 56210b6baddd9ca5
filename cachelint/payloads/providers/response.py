"""What a request's response says beyond the prompt, in the terms every provider shares: the steps
the provider executed inside it, the marks the next request of the conversation repeats, and a
rejection's failure. Where each provider's response holds them is declared in its module
(``Provider.response_usage``, ``server_steps``, ``response_marks``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cachelint.payloads.jsonio import dumps


def count_server_items(items: Any, kinds: frozenset[str]) -> int:
    """How many of a response's output items or content blocks (``items``) are steps the server
    executed (``kinds``, declared by each provider; a ``tool_search_call`` the server ran too)."""
    if not isinstance(items, list):
        return 0
    steps = 0
    for item in items:
        if type(item) is dict:
            kind = item.get("type")
            if kind in kinds or (kind == "tool_search_call" and item.get("execution") == "server"):
                steps += 1
    return steps


# What a request that carries this response on sends again: the ids of the calls and items the
# response made (a tool call answered by the next request names its id), and the start of its
# text. A session's next request that holds one of them replays this response: it is the same
# conversation even when nothing else (tools, system) shows it.
_MARK_TEXT_CHARS = 120
_MAX_MARKS = 8


def marks_of(ids: list[str], texts: list[str]) -> tuple[bytes, ...]:
    """Byte strings the next request of the conversation repeats, from a response's ids (of its
    tool calls and output items: each provider's ``response_marks``) and texts: ``"id"`` JSON
    strings, then (last, and only when the response has text) the JSON-escaped start of its text,
    which counts only inside an assistant turn (a tool may return another call's text:
    ``sessions.replays_response``)."""
    marks = [dumps(i) for i in ids if len(i) >= 8][:_MAX_MARKS]
    for text in texts:
        start = text.strip()[:_MARK_TEXT_CHARS]
        if len(start) >= 16:  # a short answer ("OK", "4") is no evidence of anything
            marks.append(TEXT_MARK + dumps(start)[1:-1])
            break
    return tuple(marks)


TEXT_MARK = b"\x00text:"  # the prefix of a response mark that is text, not an id


@dataclass(frozen=True)
class Failure:
    """A request the provider rejected: the HTTP status and the error message it answered (the
    first 240 characters, anything shaped like a credential masked), or "" when it gave none."""

    status: int
    message: str = ""


_CREDENTIAL_LIKE = re.compile(r"\b(sk|pk|rk|ak)-[A-Za-z0-9_\-]{6,}|[A-Za-z0-9+/_\-]{32,}")
_MAX_ERROR_CHARS = 240


def failure_of(status: int, response: Any) -> Failure:
    """The Failure of a rejected request from its error body: Anthropic's and OpenAI's
    ``{"error": {"message"}}``, Bedrock's ``{"message"}``, Gemini's ``{"error": {"message"}}``."""
    message = ""
    if isinstance(response, dict):
        error = response.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
        elif isinstance(error, str):
            message = error
        elif isinstance(response.get("message"), str):
            message = response["message"]
    message = _CREDENTIAL_LIKE.sub("…", " ".join(message.split()))
    if len(message) > _MAX_ERROR_CHARS:
        message = message[: _MAX_ERROR_CHARS - 1] + "…"
    return Failure(status, message)
