"""LangSmith runs (``Client().list_runs(...)`` written one ``run.dict()`` / ``run.json()`` a line,
or the JSON of a runs export), LLM runs only (``run_type: "llm"``; chains and tools are not LLM
calls).

Two kinds of LLM run. From ``wrap_openai`` / ``wrap_anthropic`` (and ``@traceable`` wrappers of an
SDK call), ``inputs`` are the SDK call's arguments — the request body, key order and cache
markers kept — and ``outputs`` the SDK's response (its usage): read at wire level. From LangChain
chat models, ``inputs.messages`` are LangChain messages (serialised ``SystemMessage``,
``HumanMessage``…) and the tools sit in ``extra.invocation_params``: the prompt is rebuilt from
that content (content level), usage from ``usage_metadata``. ``start_time`` is the time; runs
group by ``extra.metadata`` ``session_id`` / ``thread_id`` / ``conversation_id`` (LangSmith
threads), else by ``trace_id``. Sources: https://docs.smith.langchain.com/reference/data_formats/run_data_format,
https://docs.smith.langchain.com/observability/how_to_guides/threads
"""

from __future__ import annotations

from typing import Any, Iterator, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.jsonio import dumps
from cachelint.payloads.content import Part, text_parts
from cachelint.payloads.formats.common import content_body, dig, make_record, memo_of, usage_response
from cachelint.payloads.providers.registry import content_provider, endpoint
from cachelint.payloads.model import Origin

NAME = "langsmith"
_THREAD_KEYS = ("session_id", "thread_id", "conversation_id")
# LangChain message classes and ``type`` values -> roles
_ROLES = {
    "system": "system",
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "tool": "tool",
    "SystemMessage": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "ToolMessage": "tool",
    "AIMessageChunk": "assistant",
    "ChatMessage": "user",
    "FunctionMessage": "tool",
}


def matches(value: Any) -> bool:
    return "run_type" in value and "inputs" in value


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    if value.get("run_type") != "llm":
        yield make_record(origin, None, ctx.redactor, fmt=NAME)  # a chain, tool or retriever run
        return
    extra = cast(dict, value.get("extra")) if isinstance(value.get("extra"), dict) else {}
    metadata = cast(dict, extra.get("metadata")) if isinstance(extra.get("metadata"), dict) else {}
    session = next((metadata[k] for k in _THREAD_KEYS if metadata.get(k)), None) or value.get("trace_id")
    inputs = cast(dict, value.get("inputs")) if isinstance(value.get("inputs"), dict) else {}
    outputs = cast(dict, value.get("outputs")) if isinstance(value.get("outputs"), dict) else {}
    status = 500 if value.get("error") else None
    invocation = cast(dict, extra.get("invocation_params")) if isinstance(extra.get("invocation_params"), dict) else {}
    model = (
        inputs.get("model") or metadata.get("ls_model_name") or invocation.get("model") or invocation.get("model_name")
    )
    provider = content_provider(metadata.get("ls_provider"), model)
    messages = inputs.get("messages")
    if _sdk_messages(messages) or (isinstance(inputs.get("input"), (list, str)) and "model" in inputs):
        # wrap_openai / wrap_anthropic: the SDK call's arguments are the body
        dropped = ("stream", "extra_headers", "extra_query", "extra_body", "timeout")
        # the inputs object itself when it holds nothing but the body (the reader then reuses the
        # bytes a run repeats from the previous one)
        body = (
            inputs if not any(k in inputs for k in dropped) else {k: v for k, v in inputs.items() if k not in dropped}
        )
        if "input" in body and "messages" not in body:
            provider = "openai-responses"
        response = outputs if isinstance(outputs.get("usage"), dict) else _usage(provider, outputs, value)
        yield make_record(
            origin,
            body,
            ctx.redactor,
            fmt=NAME,
            response=response,
            time=value.get("start_time"),
            session=session,
            url=endpoint(provider),
            status=status,
        )
        return
    raw = _langchain_list(messages)
    if raw is None:
        ctx.unread.add(
            "are LangSmith LLM runs whose inputs hold no chat messages (a completion prompt or a custom input)", origin
        )
        yield make_record(origin, None, ctx.redactor, fmt=NAME)
        return
    memo = memo_of(ctx.state)
    system: list[str] = []
    rest: list[Any] = []
    for message in raw:
        kind, converted = memo.get(provider, message, _langchain_message)
        if kind == "system":
            system.extend(converted)
        elif kind == "message":
            rest.append(converted)
    tools = _tools(invocation.get("tools"), ctx.state)
    body = content_body(provider, model, system, rest, tools)
    yield make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        fidelity="content",
        response=_usage(provider, outputs, value),
        time=value.get("start_time"),
        session=session,
        url=endpoint(provider),
        status=status,
    )


def _sdk_messages(messages: Any) -> bool:
    """Messages of an SDK call (``{"role", "content"}``); a message whose bytes the reader reused
    from the previous run comes as the KnownBlock built from it then (cachelint.payloads.reuse)."""
    from cachelint.payloads.trace import KnownBlock

    return (
        isinstance(messages, list)
        and bool(messages)
        and all(type(m) is KnownBlock or (isinstance(m, dict) and "role" in m and "lc" not in m) for m in messages)
    )


def _langchain_list(messages: Any) -> list | None:
    if isinstance(messages, list) and messages and isinstance(messages[0], list):
        messages = messages[0]  # a batch of prompts: the run's own is the first
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        return None
    return messages


def _langchain_message(message: dict) -> tuple[str, list[Part]]:
    """A LangChain message (serialised ``{"lc", "id", "kwargs"}`` or plain ``{"type", "content"}``)."""
    if "lc" in message and isinstance(message.get("kwargs"), dict):
        kind = cast(list, message.get("id"))[-1] if isinstance(message.get("id"), list) and message.get("id") else ""
        fields = message["kwargs"]
    else:
        kind, fields = "", message
    role = _ROLES.get(str(fields.get("type") or kind or fields.get("role") or ""), "user")
    parts = text_parts(fields.get("content"))
    for call in fields.get("tool_calls") or []:
        if isinstance(call, dict):
            parts.append(Part("tool_call", id=call.get("id"), name=call.get("name"), arguments=call.get("args")))
    if role == "tool":
        parts = [Part("tool_result", id=fields.get("tool_call_id"), value=fields.get("content"))]
    return role, parts


def _texts(parts: list[Part]) -> list[str]:
    return [p.text for p in parts if p.kind == "text"]


def _tools(raw: Any, state: dict) -> list[dict]:
    """The run's tool definitions (``invocation_params.tools``: OpenAI's or Anthropic's shape),
    the last list converted once (runs of one agent send the same tools)."""
    if not isinstance(raw, list):
        return []
    try:
        key = dumps(raw)
    except (TypeError, ValueError):
        key = b""
    last = state.get("tools")
    if key and last is not None and last[0] == key:
        return last[1]
    tools = [_tool(t) for t in raw if isinstance(t, dict)]
    state["tools"] = (key, tools)
    return tools


def _tool(tool: dict) -> dict:
    fn = cast(dict, tool.get("function")) if isinstance(tool.get("function"), dict) else tool
    return {
        "name": fn.get("name"),
        "description": fn.get("description"),
        "parameters": fn.get("parameters", fn.get("input_schema")),
    }


def _usage(provider: str, outputs: dict, run: dict) -> dict | None:
    """LangChain's ``usage_metadata`` (``input_tokens`` counts the cache reads and writes,
    ``input_token_details`` splits them) from the run's output message, else the run's totals."""
    usage = None
    generations = outputs.get("generations")
    if isinstance(generations, list):
        first = generations[0] if generations else None
        first = first[0] if isinstance(first, list) and first else first
        message = dig(first, "message")
        usage = dig(message, "kwargs", "usage_metadata") or dig(message, "usage_metadata")
    usage = usage or outputs.get("usage_metadata")
    if isinstance(usage, dict):
        details = (
            cast(dict, usage.get("input_token_details")) if isinstance(usage.get("input_token_details"), dict) else {}
        )
        return usage_response(
            provider,
            total_input=usage.get("input_tokens"),
            read=details.get("cache_read"),
            written=details.get("cache_creation"),
            output=usage.get("output_tokens"),
        )
    if run.get("prompt_tokens") is not None:
        return usage_response(provider, total_input=run.get("prompt_tokens"), output=run.get("completion_tokens"))
    return None


FORMAT = registry.LogFormat(
    name=NAME,
    title="LangSmith run",
    fidelity="wire",
    keeps={
        "wire bytes": "wrap_openai / wrap_anthropic: the SDK call's arguments; LangChain runs: no (content level)",
        "key order": "wrapped SDK calls: yes; LangChain: no",
        "cache markers": "wrapped SDK calls: yes; LangChain: no",
        "usage": "yes (outputs.usage, usage_metadata)",
        "time": "start_time",
        "session key": "thread metadata (session_id, thread_id, conversation_id), else trace_id",
    },
    matches=matches,
    records=records,
    body_paths=(("inputs",),),
    source="https://docs.smith.langchain.com/reference/data_formats/run_data_format",
)
