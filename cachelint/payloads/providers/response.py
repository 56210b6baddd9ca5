"""What a request's response says beyond the prompt: the usage, the steps the provider executed
inside it, the marks the next request of the conversation repeats, and a rejection's failure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from cachelint.payloads.jsonio import dumps


# What the provider executed inside one response: each step fed its result back to the model in
# another internal call, and the usage adds those calls up. OpenAI Responses output items (recorded:
# a 40-token prompt with one web search reports 9,299 input and 8,448 cached tokens; a
# code_interpreter turn reports twice the input of the next, longer, single-call turn); Anthropic
# content blocks, whose ``usage.server_tool_use`` counts web searches and fetches but not code
# execution (recorded: two bash_code_execution steps, server_tool_use all 0, 20,443 tokens read by
# a request whose follow-up, a longer prompt, read 14,714). Client-executed items and tool_use
# blocks end the response instead.
_SERVER_ITEMS = frozenset(
    (
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    )
)
_SERVER_BLOCKS = frozenset(("server_tool_use", "mcp_tool_use"))


def count_server_steps(provider: str, response: Mapping[str, Any]) -> int:
    if provider == "openai-responses":
        items, kinds = response.get("output"), _SERVER_ITEMS
    elif provider == "anthropic":
        items, kinds = response.get("content"), _SERVER_BLOCKS
    else:
        return 0
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


def response_marks(provider: str, response: Mapping[str, Any]) -> tuple[bytes, ...]:
    """Byte strings the next request of the conversation repeats: ``"id"`` JSON strings of the
    response's tool calls and output items, then (last, and only when the response has text) the
    JSON-escaped start of its text, which counts only inside an assistant turn (a tool may return
    another call's text: ``sessions.replays_response``)."""
    ids: list[str] = []
    texts: list[str] = []
    if provider == "openai-chat":
        choices = response.get("choices")
        message = (
            choices[0].get("message")
            if isinstance(choices, list) and choices and isinstance(choices[0], dict)
            else None
        )
        if isinstance(message, dict):
            for call in message.get("tool_calls") or ():
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    ids.append(call["id"])
            if isinstance(message.get("content"), str):
                texts.append(message["content"])
    elif provider == "openai-responses":
        for item in response.get("output") or ():
            if not isinstance(item, dict):
                continue
            for key in ("call_id", "id"):
                if isinstance(item.get(key), str):
                    ids.append(item[key])
            for part in item.get("content") or ():
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
    elif provider == "anthropic":
        for part in response.get("content") or ():
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("id"), str):
                ids.append(part["id"])
            elif part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
    elif provider == "bedrock-converse":
        output = response.get("output")
        message = output.get("message") if isinstance(output, dict) else None
        for part in (message.get("content") if isinstance(message, dict) else None) or ():
            if (
                isinstance(part, dict)
                and isinstance(part.get("toolUse"), dict)
                and isinstance(part["toolUse"].get("toolUseId"), str)
            ):
                ids.append(part["toolUse"]["toolUseId"])
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
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


def response_usage(provider: str, response: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if provider == "gemini":
        usage = response.get("usageMetadata")
    elif provider == "bedrock-converse":
        usage = response.get("usage")
        if usage is None and isinstance(response.get("metadata"), dict):
            usage = response["metadata"].get("usage")
    else:
        usage = response.get("usage")
    return usage if isinstance(usage, dict) else None
