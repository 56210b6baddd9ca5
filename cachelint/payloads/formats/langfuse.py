"""Langfuse observations (``GET /api/public/observations`` pages ``{"data": [...]}``, the
observations export of the UI as JSON or JSONL): ``GENERATION`` observations are the LLM calls;
spans and events are not.

A generation keeps the prompt as the integration logged it (``input``: a list of chat messages,
or ``{"messages", "tools", "system"}``), re-encoded by Langfuse: audited at content level (no key
order, no cache markers). ``usageDetails`` holds the counts (``input`` without the cached tokens,
``cache_read_input_tokens`` / ``input_cached_tokens``, ``cache_creation_input_tokens``,
``output``), ``startTime`` the time; observations group by ``sessionId`` where the export has it,
else by ``traceId``. Sources: https://api.reference.langfuse.com/#tag/observations,
https://langfuse.com/docs/model-usage-and-cost
"""

from __future__ import annotations

from typing import Any, Iterator, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.content import Part, json_value, text_parts
from cachelint.payloads.formats.common import content_body, make_record, memo_of, usage_response
from cachelint.payloads.providers.registry import content_provider
from cachelint.payloads.model import Origin

NAME = "langfuse"
_TYPES = ("GENERATION", "SPAN", "EVENT", "AGENT", "TOOL", "CHAIN", "RETRIEVER", "EMBEDDING", "EVALUATOR", "GUARDRAIL")


def matches(value: Any) -> bool:
    return value.get("type") in _TYPES and "traceId" in value and ("startTime" in value or "input" in value)


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    if value.get("type") != "GENERATION":
        yield make_record(origin, None, ctx.redactor, fmt=NAME)  # a span, event, tool… not an LLM call
        return
    model = value.get("model") or value.get("providedModelName")
    metadata = cast(dict, value.get("metadata")) if isinstance(value.get("metadata"), dict) else {}
    provider = content_provider(metadata.get("ls_provider") or metadata.get("provider") or value.get("provider"), model)
    prompt = json_value(value.get("input")) if isinstance(value.get("input"), str) else value.get("input")
    tools: list[Any] = []
    system: list[str] = []
    if isinstance(prompt, dict):
        tools = [t for t in prompt.get("tools") or [] if isinstance(t, dict)]
        if isinstance(prompt.get("system"), str):
            system.append(prompt["system"])
        elif isinstance(prompt.get("system"), list):
            system.extend(p.text for p in text_parts(prompt["system"]) if p.kind == "text")
        prompt = prompt.get("messages")
    if not isinstance(prompt, list):
        ctx.unread.add(
            "are Langfuse generations whose input is not a list of chat messages (a completion prompt, or input"
            " masked): nothing to audit",
            origin,
        )
        yield make_record(origin, None, ctx.redactor, fmt=NAME)
        return
    messages: list[Any] = []
    memo = memo_of(ctx.state)
    for message in prompt:
        kind, converted = memo.get(provider, message, _message)
        if kind == "system":
            system.extend(converted)
        elif kind == "message":
            messages.append(converted)
    definitions = []
    for tool in tools:
        fn = cast(dict, tool.get("function")) if isinstance(tool.get("function"), dict) else tool
        definitions.append(
            {
                "name": fn.get("name"),
                "description": fn.get("description"),
                "parameters": fn.get("parameters", fn.get("input_schema")),
            }
        )
    body = content_body(provider, model, system, messages, definitions)
    details = cast(dict, value.get("usageDetails")) if isinstance(value.get("usageDetails"), dict) else {}
    usage = cast(dict, value.get("usage")) if isinstance(value.get("usage"), dict) else {}
    read = details.get("cache_read_input_tokens", details.get("input_cached_tokens", details.get("input_cache_read")))
    written = details.get("cache_creation_input_tokens", details.get("input_cache_creation"))
    fresh = details.get("input", usage.get("input", value.get("promptTokens")))
    response = usage_response(
        provider,
        uncached=fresh,
        read=read,
        written=written,
        output=details.get("output", usage.get("output", value.get("completionTokens"))),
    )
    session = value.get("sessionId") or metadata.get("session_id") or value.get("traceId")
    level = value.get("level")
    yield make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        fidelity="content",
        response=response,
        time=value.get("startTime"),
        session=session,
        status=500 if level == "ERROR" else None,
    )


def _message(message: Any) -> tuple[str, list[Part]] | None:
    if not isinstance(message, dict):
        return None
    role = str(message.get("role") or "user")
    parts = text_parts(message.get("content"))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            parts.append(Part("tool_call", id=call.get("id"), name=fn.get("name"), arguments=fn.get("arguments")))
    if role == "tool":
        parts = [Part("tool_result", id=message.get("tool_call_id"), value=message.get("content"))]
    return role, parts


FORMAT = registry.LogFormat(
    name=NAME,
    title="Langfuse observation",
    fidelity="content",
    keeps={
        "wire bytes": "no (the prompt as the integration logged it)",
        "key order": "no",
        "cache markers": "no",
        "usage": "usageDetails incl. cache reads and writes",
        "time": "startTime",
        "session key": "sessionId, else traceId",
    },
    matches=matches,
    records=records,
    document_paths={"data": ("data", "*")},
    source="https://api.reference.langfuse.com/#tag/observations",
)
