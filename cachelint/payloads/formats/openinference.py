"""OpenInference spans (Arize Phoenix, the ``openinference-instrumentation-*`` packages): LLM
spans (``openinference.span.kind: "LLM"``) whose ``input.value`` holds the call's arguments as
JSON (``input.mime_type: application/json``) — the SDK request body, key order and cache markers
kept — and ``output.value`` the response; token counts in ``llm.token_count.prompt`` (cached
tokens included), ``llm.token_count.prompt_details.cache_read`` / ``cache_write``,
``llm.token_count.completion``; ``session.id`` groups a session. A span whose ``input.value`` is
not the call's arguments is rebuilt from ``llm.input_messages.N.*`` and ``llm.tools.N.*`` at
content level. Read from any OTLP container (``otlp``). Source:
https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md
"""

from __future__ import annotations

import re
from typing import Any, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.formats import otlp
from cachelint.payloads.content import Part, json_value
from cachelint.payloads.formats.common import content_body, make_record, note_body_text, usage_response
from cachelint.payloads.providers.registry import content_provider, endpoint
from cachelint.payloads.model import Origin

NAME = "openinference"
_INDEXED = re.compile(r"llm\.input_messages\.(\d+)\.message\.(.+)")
_TOOL = re.compile(r"llm\.tools\.(\d+)\.tool\.json_schema")


def claims(attrs: dict) -> bool:
    return attrs.get("openinference.span.kind") == "LLM"


def record(span: dict, attrs: dict, origin: Origin, ctx: registry.ReadContext) -> registry.Item:
    model = attrs.get("llm.model_name")
    provider = content_provider(attrs.get("llm.provider") or attrs.get("llm.system"), model)
    session = otlp.session_of(attrs, span, "session.id")
    text = attrs.get("input.value")
    body = json_value(text) if attrs.get("input.mime_type", "application/json") == "application/json" else None
    output = json_value(attrs.get("output.value"))
    counted = usage_response(
        provider,
        total_input=attrs.get("llm.token_count.prompt"),
        read=attrs.get("llm.token_count.prompt_details.cache_read"),
        written=attrs.get("llm.token_count.prompt_details.cache_write"),
        output=attrs.get("llm.token_count.completion"),
    )
    if isinstance(body, dict) and any(k in body for k in ("messages", "input", "contents")):
        if "input" in body and "messages" not in body:
            provider = "openai-responses"
        response = output if isinstance(output, dict) and isinstance(output.get("usage"), dict) else counted
        made = otlp.span_record(
            origin, body, ctx, NAME, span, response=response, session=session, url=endpoint(provider)
        )
        return note_body_text(ctx.state, made, text)
    messages = _indexed_messages(attrs)
    if not messages:
        ctx.unread.add(
            "are OpenInference LLM spans without the call's arguments (input.value) or input messages:"
            " keep inputs (OPENINFERENCE_HIDE_INPUTS unset)",
            origin,
        )
        return make_record(origin, None, ctx.redactor, fmt=NAME)
    system = [p.text for role, parts in messages if role == "system" for p in parts if p.kind == "text"]
    rest = [(role, parts) for role, parts in messages if role != "system"]
    tools = []
    for key in sorted((k for k in attrs if _TOOL.fullmatch(k)), key=lambda k: int(_TOOL.fullmatch(k).group(1))):  # type: ignore[union-attr]
        schema = json_value(attrs[key])
        if isinstance(schema, dict):
            fn = cast(dict, schema.get("function")) if isinstance(schema.get("function"), dict) else schema
            tools.append(
                {
                    "name": fn.get("name"),
                    "description": fn.get("description"),
                    "parameters": fn.get("parameters", fn.get("input_schema")),
                }
            )
    body = content_body(provider, model, system, rest, tools)
    return otlp.span_record(origin, body, ctx, NAME, span, fidelity="content", response=counted, session=session)


def _indexed_messages(attrs: dict) -> list[tuple[str, list[Part]]]:
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        match = _INDEXED.fullmatch(key)
        if match:
            found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    out = []
    for index in sorted(found):
        fields = found[index]
        parts: list[Part] = []
        if isinstance(fields.get("content"), str):
            parts.append(Part("text", fields["content"]))
        contents = sorted(
            (
                k
                for k in fields
                if k.startswith("contents.") and k.endswith(".message_content.text") and k.split(".")[1].isdigit()
            ),
            key=lambda k: int(k.split(".")[1]),
        )
        parts.extend(Part("text", str(fields[k])) for k in contents)
        calls = sorted(
            {int(k.split(".")[1]) for k in fields if k.startswith("tool_calls.") and k.split(".")[1].isdigit()}
        )
        for j in calls:
            prefix = f"tool_calls.{j}.tool_call."
            parts.append(
                Part(
                    "tool_call",
                    id=fields.get(prefix + "id"),
                    name=fields.get(prefix + "function.name"),
                    arguments=fields.get(prefix + "function.arguments"),
                )
            )
        role = str(fields.get("role") or "user")
        if role == "tool":
            parts = [Part("tool_result", id=fields.get("tool_call_id"), value=fields.get("content"))]
        out.append((role, parts))
    return out


FORMAT = otlp.make_format(
    NAME,
    "OpenInference spans",
    "wire",
    {
        "wire bytes": "the call's arguments (input.value), re-serialised by the instrumentation",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "llm.token_count.* incl. cache read / write",
        "time": "span start",
        "session key": "session.id, else the trace id",
    },
    "https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md",
    "openinference",
)
