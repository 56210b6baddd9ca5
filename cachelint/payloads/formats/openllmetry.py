"""OpenLLMetry (Traceloop) spans: the prompt flattened into attributes — ``gen_ai.prompt.N.role``,
``gen_ai.prompt.N.content`` (a JSON list of content blocks where the call sent blocks),
``gen_ai.prompt.N.tool_calls.M.*``, tools in ``llm.request.functions.N.name`` / ``description`` /
``parameters`` — with ``gen_ai.usage.prompt_tokens`` (OpenLLMetry adds the cache reads and
writes in), ``gen_ai.usage.cache_read_input_tokens``, ``gen_ai.usage.cache_creation_input_tokens``;
``traceloop.association.properties.*`` (``session_id``…) group a session. The prompt is
re-encoded: audited at content level. Read from any OTLP container (``otlp``). Source:
https://github.com/traceloop/openllmetry (semconv_ai ``SpanAttributes``),
https://www.traceloop.com/docs/openllmetry/tracing/association
"""

from __future__ import annotations

from typing import Any

from cachelint.payloads.formats import registry
from cachelint.payloads.formats import otlp
from cachelint.payloads.content import Part, json_value, text_parts
from cachelint.payloads.formats.common import (
    content_body,
    make_record,
    memo_of,
    otel_cache_tokens,
    usage_response,
)
from cachelint.payloads.providers.registry import content_provider
from cachelint.payloads.model import Origin

NAME = "openllmetry"
_SESSION = tuple(
    f"traceloop.association.properties.{k}" for k in ("session_id", "conversation_id", "thread_id", "chat_id")
)


def claims(attrs: dict) -> bool:
    return any(k.startswith(("gen_ai.prompt.", "llm.request.functions.")) for k in attrs)


def _prompt(fields: dict) -> tuple[str, list[Part]]:
    """One ``gen_ai.prompt.N.*`` group (role, content, tool calls) as a message."""
    role = str(fields.get("role") or "user")
    content = fields.get("content")
    decoded = json_value(content) if isinstance(content, str) and content.startswith("[") else None
    parts = text_parts(decoded if isinstance(decoded, list) else content)
    calls = sorted({int(k.split(".")[1]) for k in fields if k.startswith("tool_calls.") and k.split(".")[1].isdigit()})
    for j in calls:
        parts.append(
            Part(
                "tool_call",
                id=fields.get(f"tool_calls.{j}.id"),
                name=fields.get(f"tool_calls.{j}.name"),
                arguments=fields.get(f"tool_calls.{j}.arguments"),
            )
        )
    if role == "tool":
        parts = [Part("tool_result", id=fields.get("tool_call_id"), value=content)]
    return role, parts


def _functions(raw: list[tuple[str, Any]], state: dict[str, Any]) -> list[dict[str, Any]]:
    """The tools of ``llm.request.functions.N.*`` (the attributes in span order). An agent sends
    the same tools with every call, so the lists of the last few spans are remembered by their
    attributes: the same list object again, with no schema decoded again (and the tools built
    once downstream: ``common.content_body``)."""
    memo: dict[tuple, list[dict[str, Any]]] = state.setdefault("functions", {})
    key: tuple | None = tuple(raw)
    try:
        found = memo.get(key)  # type: ignore[arg-type]
    except TypeError:  # an attribute holding a list or a map: nothing to remember it by
        found, key = None, None
    if found is not None:
        return found
    functions: dict[int, dict[str, Any]] = {}
    for name_key, value in raw:
        index, _, name = name_key[22:].partition(".")
        if index.isdigit() and name in ("name", "description", "parameters"):
            functions.setdefault(int(index), {})[name] = json_value(value) if name == "parameters" else value
    tools = [functions[i] for i in sorted(functions)]
    if key is not None:
        if len(memo) >= 8:
            memo.pop(next(iter(memo)))
        memo[key] = tools
    return tools


def record(span: dict, attrs: dict, origin: Origin, ctx: registry.ReadContext) -> registry.Item:
    model = attrs.get("gen_ai.request.model") or attrs.get("gen_ai.response.model")
    provider = content_provider(attrs.get("gen_ai.system") or attrs.get("gen_ai.provider.name"), model)
    prompts: dict[int, dict[str, Any]] = {}
    raw_functions: list[tuple[str, Any]] = []
    for key, value in attrs.items():
        # one pass over the span's attributes (hundreds: a field a message), prefixes first
        if key.startswith("gen_ai.prompt."):
            index, _, name = key[14:].partition(".")
            if index.isdigit() and name:
                prompts.setdefault(int(index), {})[name] = value
        elif key.startswith("llm.request.functions."):
            raw_functions.append((key, value))
    system: list[str] = []
    messages: list[Any] = []
    memo = memo_of(ctx.state)
    for index in sorted(prompts):
        kind, converted = memo.get(provider, prompts[index], _prompt)
        if kind == "system":
            system.extend(converted)
        elif kind == "message":
            messages.append(converted)
    tools = _functions(raw_functions, ctx.state)
    cache_read, cache_written = otel_cache_tokens(attrs)
    response = usage_response(
        provider,
        total_input=attrs.get("gen_ai.usage.prompt_tokens", attrs.get("gen_ai.usage.input_tokens")),
        read=cache_read,
        written=cache_written,
        output=attrs.get("gen_ai.usage.completion_tokens", attrs.get("gen_ai.usage.output_tokens")),
    )
    if not messages and not system:
        if response is None:
            ctx.unread.add(
                "are OpenLLMetry spans with neither prompts nor usage: keep content tracing on (TRACELOOP_TRACE_CONTENT=true)",
                origin,
            )
            return make_record(origin, None, ctx.redactor, fmt=NAME)
        body = content_body(provider, model, [], [], tools)
        return otlp.span_record(
            origin,
            body,
            ctx,
            NAME,
            span,
            fidelity="usage",
            response=response,
            session=otlp.session_of(attrs, span, *_SESSION),
        )
    body = content_body(provider, model, system, messages, tools)
    return otlp.span_record(
        origin,
        body,
        ctx,
        NAME,
        span,
        fidelity="content",
        response=response,
        session=otlp.session_of(attrs, span, *_SESSION),
    )


FORMAT = otlp.make_format(
    NAME,
    "OpenLLMetry spans",
    "content",
    {
        "wire bytes": "no (the prompt flattened into gen_ai.prompt.N.*)",
        "key order": "no",
        "cache markers": "no",
        "usage": "gen_ai.usage.* incl. cache read / creation input tokens",
        "time": "span start",
        "session key": "traceloop.association.properties.session_id, else the trace id",
    },
    "https://github.com/traceloop/openllmetry",
    "openllmetry",
)
