"""The scripted model's wire formats: what each API's request offers (tools, the turns already
taken, streaming or not) and its answer in that API's bytes, whole or as server-sent events.

One class per API, each reading and writing only its own shapes:
- Anthropic Messages (https://docs.anthropic.com/en/api/messages, streaming:
  https://docs.anthropic.com/en/docs/build-with-claude/streaming): ``message_start``,
  ``content_block_start`` / ``_delta`` / ``_stop``, ``message_delta``, ``message_stop``;
- OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat): ``chat.completion``
  and ``chat.completion.chunk`` events ending with ``data: [DONE]``, the usage chunk when
  ``stream_options.include_usage`` asks for it;
- OpenAI Responses (https://platform.openai.com/docs/api-reference/responses-streaming):
  ``response.created`` … ``response.completed``, each event with its ``sequence_number``;
- Gemini generateContent (https://ai.google.dev/api/generate-content): ``candidates`` with
  ``functionCall`` / ``text`` parts; ``streamGenerateContent`` as events with ``alt=sse``, else as
  one JSON array sent in pieces.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Offered:
    """A tool the request offers: its name and the JSON Schema of its arguments."""

    name: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class Conversation:
    """What the scripted model reads of a request. ``turns``: the model's answers already in the
    history; ``called``: the tools those answers called, in order; ``forced``: the tool a
    ``tool_choice`` demands (``""``: any tool), None when free; ``tools_off``: ``tool_choice``
    none."""

    tools: tuple[Offered, ...] = ()
    turns: int = 0
    called: tuple[str, ...] = ()
    model: str = ""
    stream: bool = False
    forced: str | None = None
    tools_off: bool = False
    continues: str | None = None  # OpenAI Responses: previous_response_id


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Mapping[str, Any]
    id: str


@dataclass(frozen=True)
class Turn:
    """The model's answer: tool calls, or (when there are none) text that ends the conversation."""

    calls: tuple[ToolCall, ...] = ()
    text: str = ""


@dataclass
class Reply:
    """An HTTP answer: its status, headers and body in the pieces it is sent in."""

    status: int
    headers: dict[str, str]
    chunks: list[bytes] = field(default_factory=list)
    response_id: str | None = None  # OpenAI Responses: the id a later request chains on


class Ids:
    """Unique ids for messages, responses and tool calls (``msg_fake000001``)."""

    def __init__(self) -> None:
        self._next = itertools.count(1)

    def new(self, prefix: str) -> str:
        return f"{prefix}fake{next(self._next):06d}"


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _tokens(size: int) -> int:
    """A token count from a size in bytes (about four bytes a token): the scripted model has no
    tokenizer. Its usage never says what was read from or written to the cache (those fields are
    left out: unknown, not 0), since it keeps no cache; the audit then judges the bytes alone."""
    return max(1, size // 4)


def _sse(events: list[tuple[str | None, Any]]) -> list[bytes]:
    out = []
    for name, data in events:
        head = f"event: {name}\n".encode() if name else b""
        payload = data if isinstance(data, bytes) else _json(data)
        out.append(head + b"data: " + payload + b"\n\n")
    return out


def _json_reply(status: int, body: Any) -> Reply:
    return Reply(status, {"content-type": "application/json"}, [_json(body)])


def _stream_reply(chunks: list[bytes]) -> Reply:
    return Reply(200, {"content-type": "text/event-stream", "cache-control": "no-cache"}, chunks)


def _offered(tools: Any, schema_key: str, kind: str | None = None) -> tuple[Offered, ...]:
    """The tools a request offers that the agent runs: named, with ``schema_key`` (or of type
    ``kind``: the others are the provider's own tools)."""
    return tuple(
        Offered(t["name"], _schema(t.get(schema_key)))
        for t in (tools if isinstance(tools, list) else ())
        if isinstance(t, Mapping)
        and isinstance(t.get("name"), str)
        and (t.get("type") == kind if kind else schema_key in t)
    )


def _conversation(
    body: Mapping[str, Any], tools: tuple[Offered, ...], turns: int, called: list[str], **choice: Any
) -> Conversation:
    """A request's view where the body names the model and asks for a stream (all but Gemini,
    whose URL says both)."""
    model = str(body.get("model") or "")
    return Conversation(tools, turns, tuple(called), model, body.get("stream") is True, **choice)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _schema(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {"type": "object", "properties": {}}


def _text_pieces(text: str) -> list[str]:
    """The answer's text in two deltas, as a stream sends it in several."""
    middle = len(text) // 2
    return [p for p in (text[:middle], text[middle:]) if p]


class AnthropicMessages:
    name = "anthropic"

    def read(self, body: Mapping[str, Any]) -> Conversation:
        tools = _offered(body.get("tools"), "input_schema")  # a server tool (web search) has none
        turns, called = 0, []
        for message in body.get("messages") or ():
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                turns += 1
                content = message.get("content")
                for block in content if isinstance(content, list) else ():
                    if isinstance(block, Mapping) and block.get("type") == "tool_use":
                        called.append(str(block.get("name")))
        choice = _mapping(body.get("tool_choice"))
        kind = choice.get("type")
        forced = str(choice.get("name")) if kind == "tool" else "" if kind == "any" else None
        return _conversation(body, tools, turns, called, forced=forced, tools_off=kind == "none")

    def reply(self, turn: Turn, conv: Conversation, ids: Ids, prompt_bytes: int) -> Reply:
        content: list[dict[str, Any]] = [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)} for c in turn.calls
        ] or [{"type": "text", "text": turn.text}]
        stop = "tool_use" if turn.calls else "end_turn"
        usage = {"input_tokens": _tokens(prompt_bytes), "output_tokens": _tokens(len(_json(content)))}
        message = {
            "id": ids.new("msg_"),
            "type": "message",
            "role": "assistant",
            "model": conv.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        if not conv.stream:
            return _json_reply(200, message)
        events: list[tuple[str | None, Any]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}},
                },
            )
        ]
        for index, block in enumerate(content):
            if block["type"] == "tool_use":
                start = {**block, "input": {}}
                deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}]
            else:
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": piece} for piece in _text_pieces(block["text"])]
            events.append(
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
            )
            events.extend(
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas
            )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        return _stream_reply(_sse(events))

    def count_tokens(self, prompt_bytes: int) -> Reply:
        return _json_reply(200, {"input_tokens": _tokens(prompt_bytes)})

    def error(self, status: int, message: str) -> Reply:
        kind = "not_found_error" if status == 404 else "invalid_request_error"
        return _json_reply(status, {"type": "error", "error": {"type": kind, "message": message}})


class OpenAIChat:
    name = "openai-chat"

    def read(self, body: Mapping[str, Any]) -> Conversation:
        tools = []
        for t in body.get("tools") or ():
            function = t.get("function") if isinstance(t, Mapping) and t.get("type") == "function" else None
            if isinstance(function, Mapping) and isinstance(function.get("name"), str):
                tools.append(Offered(function["name"], _schema(function.get("parameters"))))
        for function in body.get("functions") or ():  # the legacy function-calling fields
            if isinstance(function, Mapping) and isinstance(function.get("name"), str):
                tools.append(Offered(function["name"], _schema(function.get("parameters"))))
        turns, called = 0, []
        for message in body.get("messages") or ():
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                turns += 1
                for call in message.get("tool_calls") or ():
                    if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
                        called.append(str(call["function"].get("name")))
                if isinstance(message.get("function_call"), Mapping):
                    called.append(str(message["function_call"].get("name")))
        choice = body.get("tool_choice", body.get("function_call"))
        forced: str | None = None
        if isinstance(choice, Mapping):
            named = _mapping(choice.get("function")) or choice
            forced = str(named.get("name")) if named.get("name") else None
        elif choice == "required":
            forced = ""
        return _conversation(body, tuple(tools), turns, called, forced=forced, tools_off=choice == "none")

    def reply(self, turn: Turn, conv: Conversation, ids: Ids, prompt_bytes: int, body: Mapping[str, Any]) -> Reply:
        legacy = bool(body.get("functions")) and not body.get("tools")
        calls: list[dict[str, Any]] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _arguments(c)}}
            for c in turn.calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": None if calls else turn.text, "refusal": None}
        if calls and legacy:
            message["function_call"] = calls[0]["function"]
        elif calls:
            message["tool_calls"] = calls
        finish = ("function_call" if legacy else "tool_calls") if calls else "stop"
        completion_tokens = _tokens(len(_json(message)))
        usage = {
            "prompt_tokens": _tokens(prompt_bytes),
            "completion_tokens": completion_tokens,
            "total_tokens": _tokens(prompt_bytes) + completion_tokens,
        }
        head = {"id": ids.new("chatcmpl-"), "created": int(time.time()), "model": conv.model}
        if not conv.stream:
            return _json_reply(
                200,
                {
                    **head,
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
                    "usage": usage,
                },
            )

        def chunk(delta: Mapping[str, Any], reason: str | None = None) -> dict[str, Any]:
            return {
                **head,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
            }

        events: list[Any] = [chunk({"role": "assistant", "content": "" if not calls else None})]
        if calls and legacy:
            function = calls[0]["function"]
            events.append(chunk({"function_call": {"name": function["name"], "arguments": ""}}))
            events.append(chunk({"function_call": {"arguments": function["arguments"]}}))
        for index, call in enumerate(calls if not legacy else ()):
            opening = {"index": index, "id": call["id"], "type": "function"}
            events.append(
                chunk({"tool_calls": [{**opening, "function": {"name": call["function"]["name"], "arguments": ""}}]})
            )
            events.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": call["function"]["arguments"]}}]})
            )
        events.extend(chunk({"content": piece}) for piece in (_text_pieces(turn.text) if not calls else ()))
        events.append(chunk({}, finish))
        if _mapping(body.get("stream_options")).get("include_usage"):
            events.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        return _stream_reply(_sse([(None, e) for e in events]) + [b"data: [DONE]\n\n"])

    def error(self, status: int, message: str) -> Reply:
        return _json_reply(
            status, {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
        )


class OpenAIResponses:
    name = "openai-responses"

    def read(self, body: Mapping[str, Any]) -> Conversation:
        tools = _offered(body.get("tools"), "parameters", kind="function")
        turns, called = 0, []
        items = body.get("input")
        previous = None
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, Mapping):
                continue
            kind = item.get("type", "message")
            if kind == "function_call":
                called.append(str(item.get("name")))
                if previous != "function_call":  # parallel calls of one answer are one turn
                    turns += 1
            elif kind == "message" and item.get("role") == "assistant":
                turns += 1
            previous = kind
        choice = body.get("tool_choice")
        forced: str | None = None
        if isinstance(choice, Mapping) and choice.get("type") == "function":
            forced = str(choice.get("name"))
        elif choice == "required":
            forced = ""
        continues = body.get("previous_response_id")
        chained = continues if isinstance(continues, str) else None
        return _conversation(body, tools, turns, called, forced=forced, tools_off=choice == "none", continues=chained)

    def reply(self, turn: Turn, conv: Conversation, ids: Ids, prompt_bytes: int, body: Mapping[str, Any]) -> Reply:
        output: list[dict[str, Any]] = []
        for call in turn.calls:
            output.append(
                {
                    "type": "function_call",
                    "id": ids.new("fc_"),
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": _arguments(call),
                    "status": "completed",
                }
            )
        if not turn.calls:
            output.append(
                {
                    "type": "message",
                    "id": ids.new("msg_"),
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
                }
            )
        output_tokens = _tokens(len(_json(output)))
        response = {
            "id": ids.new("resp_"),
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "model": conv.model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": conv.continues,
            "temperature": None,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": None,
            "text": {"format": {"type": "text"}},
            "metadata": {},
            "usage": {
                "input_tokens": _tokens(prompt_bytes),
                "output_tokens": output_tokens,
                "total_tokens": _tokens(prompt_bytes) + output_tokens,
            },
        }
        if not conv.stream:
            reply = _json_reply(200, response)
            reply.response_id = response["id"]
            return reply
        sequence = itertools.count()
        events: list[tuple[str | None, Any]] = []

        def emit(kind: str, **fields: Any) -> None:
            events.append((kind, {"type": kind, "sequence_number": next(sequence), **fields}))

        opening = {**response, "status": "in_progress", "output": [], "usage": None}
        emit("response.created", response=opening)
        emit("response.in_progress", response=opening)
        for index, item in enumerate(output):
            if item["type"] == "function_call":
                emit(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "arguments": "", "status": "in_progress"},
                )
                emit(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=index,
                    delta=item["arguments"],
                )
                emit(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=index,
                    arguments=item["arguments"],
                )
            else:
                part = item["content"][0]
                emit(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "content": [], "status": "in_progress"},
                )
                emit(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part={**part, "text": ""},
                )
                for piece in _text_pieces(part["text"]):
                    emit(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                emit(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    text=part["text"],
                    logprobs=[],
                )
                emit("response.content_part.done", item_id=item["id"], output_index=index, content_index=0, part=part)
            emit("response.output_item.done", output_index=index, item=item)
        emit("response.completed", response=response)
        reply = _stream_reply(_sse(events))
        reply.response_id = response["id"]
        return reply

    def error(self, status: int, message: str) -> Reply:
        return OpenAIChat().error(status, message)


class GeminiGenerateContent:
    name = "gemini"

    def read(self, body: Mapping[str, Any], model: str = "", stream: bool = False) -> Conversation:
        tools = []
        for tool in body.get("tools") or ():
            for declaration in (tool.get("functionDeclarations") or ()) if isinstance(tool, Mapping) else ():
                if isinstance(declaration, Mapping) and isinstance(declaration.get("name"), str):
                    schema = declaration.get("parametersJsonSchema", declaration.get("parameters"))
                    tools.append(Offered(declaration["name"], _schema(schema)))
        turns, called = 0, []
        for content in body.get("contents") or ():
            if isinstance(content, Mapping) and content.get("role") == "model":
                turns += 1
                for part in content.get("parts") or ():
                    if isinstance(part, Mapping) and isinstance(part.get("functionCall"), Mapping):
                        called.append(str(part["functionCall"].get("name")))
        config = _mapping(_mapping(body.get("toolConfig")).get("functionCallingConfig"))
        mode = str(config.get("mode", "")).upper()
        allowed = config.get("allowedFunctionNames")
        forced = None
        if mode == "ANY":
            forced = str(allowed[0]) if isinstance(allowed, list) and len(allowed) == 1 else ""
        return Conversation(
            tools=tuple(tools),
            turns=turns,
            called=tuple(called),
            model=model,
            stream=stream,
            forced=forced,
            tools_off=mode == "NONE",
        )

    def reply(self, turn: Turn, conv: Conversation, ids: Ids, sse: bool) -> Reply:
        parts: list[dict[str, Any]] = [
            {"functionCall": {"name": c.name, "args": dict(c.arguments)}} for c in turn.calls
        ] or [{"text": turn.text}]
        response_id = ids.new("")

        def answer(chunk_parts: list[Any], last: bool) -> dict[str, Any]:
            # No usageMetadata: Gemini leaves cachedContentTokenCount out when nothing was read, so
            # any usage would say "no cache read"; the scripted model does not know.
            candidate: dict[str, Any] = {"content": {"parts": chunk_parts, "role": "model"}, "index": 0}
            if last:
                candidate["finishReason"] = "STOP"
            return {"candidates": [candidate], "modelVersion": conv.model, "responseId": response_id}

        if not conv.stream:
            return _json_reply(200, answer(parts, True))
        if turn.calls:
            pieces = [answer(parts, True)]
        else:
            texts = _text_pieces(turn.text) or [""]
            pieces = [answer([{"text": t}], i == len(texts) - 1) for i, t in enumerate(texts)]
        if sse:
            return _stream_reply([b"data: " + _json(p) + b"\r\n\r\n" for p in pieces])
        # Without alt=sse the stream is one JSON array, sent as it is produced.
        chunks = [(b"[" if i == 0 else b",\r\n") + _json(p) for i, p in enumerate(pieces)] + [b"]"]
        return Reply(200, {"content-type": "application/json"}, chunks)

    def count_tokens(self, prompt_bytes: int) -> Reply:
        return _json_reply(200, {"totalTokens": _tokens(prompt_bytes)})

    def error(self, status: int, message: str) -> Reply:
        state = "NOT_FOUND" if status == 404 else "INVALID_ARGUMENT"
        return _json_reply(status, {"error": {"code": status, "message": message, "status": state}})


def _arguments(call: ToolCall) -> str:
    return json.dumps(dict(call.arguments), ensure_ascii=False, separators=(",", ":"))
