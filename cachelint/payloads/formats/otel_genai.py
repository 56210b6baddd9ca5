"""OpenTelemetry GenAI semantic conventions: chat spans whose attributes carry the prompt as
JSON (``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.tool.definitions``),
with ``gen_ai.usage.input_tokens`` (cached tokens included), ``gen_ai.usage.cache_read.input_tokens``
and ``gen_ai.usage.cache_creation.input_tokens``; ``gen_ai.conversation.id`` groups a
conversation. The prompt is re-encoded by the instrumentation: audited at content level (no key
order, no cache markers). A span without message content (content capture off) still gives its
usage. Read from any OTLP container (``otlp``). Sources:
https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/,
https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/
"""

from __future__ import annotations

from typing import Any

from cachelint.payloads.formats import registry
from cachelint.payloads.formats import otlp
from cachelint.payloads.content import Part, json_value
from cachelint.payloads.formats.common import (
    content_body,
    make_record,
    memo_of,
    otel_cache_tokens,
    usage_response,
)
from cachelint.payloads.providers.registry import content_provider
from cachelint.payloads.model import Origin

NAME = "otel-genai"
_CHAT = ("chat", "generate_content", "text_completion")


def claims(attrs: dict) -> bool:
    return (
        "gen_ai.input.messages" in attrs
        or "gen_ai.system_instructions" in attrs
        or (
            attrs.get("gen_ai.operation.name") in _CHAT
            and ("gen_ai.provider.name" in attrs or "gen_ai.system" in attrs)
        )
    )


def _parts(parts: Any) -> list[Part]:
    out: list[Part] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            out.append(Part("text", str(part.get("content", ""))))
        elif kind == "tool_call":
            out.append(Part("tool_call", id=part.get("id"), name=part.get("name"), arguments=part.get("arguments")))
        elif kind == "tool_call_response":
            out.append(Part("tool_result", id=part.get("id"), value=part.get("response")))
        else:
            out.append(Part("other", value={k: v for k, v in sorted(part.items())}))
    return out


def _message(message: Any) -> tuple[str, list[Part]] | None:
    if not isinstance(message, dict):
        return None
    return str(message.get("role") or "user"), _parts(message.get("parts"))


def record(span: dict, attrs: dict, origin: Origin, ctx: registry.ReadContext) -> registry.Item:
    model = attrs.get("gen_ai.request.model") or attrs.get("gen_ai.response.model")
    provider = content_provider(attrs.get("gen_ai.provider.name") or attrs.get("gen_ai.system"), model)
    system = [p.text for p in _parts(json_value(attrs.get("gen_ai.system_instructions"))) if p.kind == "text"]
    messages: list[Any] = []
    memo = memo_of(ctx.state)
    for message in json_value(attrs.get("gen_ai.input.messages")) or []:
        kind, converted = memo.get(provider, message, _message)
        if kind == "system":
            system.extend(converted)
        elif kind == "message":
            messages.append(converted)
    tools = [t for t in json_value(attrs.get("gen_ai.tool.definitions")) or [] if isinstance(t, dict)]
    cache_read, cache_written = otel_cache_tokens(attrs)
    response = usage_response(
        provider,
        total_input=attrs.get("gen_ai.usage.input_tokens"),
        read=cache_read,
        written=cache_written,
        output=attrs.get("gen_ai.usage.output_tokens"),
    )
    fidelity = "content"
    if not messages and not system:
        if response is None:
            ctx.unread.add(
                "are OpenTelemetry GenAI chat spans with neither message content nor usage: turn on content"
                " capture (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)",
                origin,
            )
            return make_record(origin, None, ctx.redactor, fmt=NAME)
        fidelity = "usage"  # content capture off: the usage is still read
    body = content_body(provider, model, system, messages, tools)
    session = otlp.session_of(attrs, span, "gen_ai.conversation.id", "session.id")
    return otlp.span_record(origin, body, ctx, NAME, span, fidelity=fidelity, response=response, session=session)


FORMAT = otlp.make_format(
    NAME,
    "OpenTelemetry GenAI spans",
    "content",
    {
        "wire bytes": "no (the prompt re-encoded as gen_ai.* JSON)",
        "key order": "no",
        "cache markers": "no",
        "usage": "gen_ai.usage.* incl. cache_read / cache_creation input tokens",
        "time": "span start",
        "session key": "gen_ai.conversation.id, else the trace id",
    },
    "https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/",
    "otel_genai",
)
