"""The Vercel AI SDK's OpenTelemetry spans (TypeScript agents: ``generateText``, ``streamText``,
``generateObject``…): each provider call is a span of its own (``ai.generateText.doGenerate``,
``ai.streamText.doStream``…, its ``ai.operationId``) whose attributes carry what the SDK passed to
the provider: ``ai.prompt.messages`` (the messages as JSON: ``system`` with a string, ``user``,
``assistant`` and ``tool`` with typed parts: ``text``, ``tool-call``, ``tool-result``),
``ai.prompt.tools`` (each tool definition as JSON: ``name``, ``description``, ``parameters`` or
``inputSchema``), ``ai.model.id`` and ``ai.model.provider`` (``anthropic.messages``,
``openai.responses``…). The prompt is the SDK's, re-encoded by each provider package: audited at
content level (no key order, no cache markers).

Token counts are not read: what ``ai.usage.*`` counts (cached tokens included or not) has changed
between SDK versions and differs by provider package, and cachelint does not guess (hit rate and
money are "n/a" for these spans; the breaks are found from the prompts). The outer span of a call
(``ai.generateText``: the user's prompt, not a request) is not an LLM request.
Source: https://ai-sdk.dev/docs/ai-sdk-core/telemetry (Collected data: the call LLM span information).
"""

from __future__ import annotations

from typing import Any

from cachelint.payloads.content import Part, json_value
from cachelint.payloads.formats import otlp, registry
from cachelint.payloads.formats.common import content_body, memo_of
from cachelint.payloads.model import Origin
from cachelint.payloads.providers.registry import content_provider

NAME = "vercel-ai"


def claims(attrs: dict) -> bool:
    # only a provider call's span carries the messages (the outer span has ``ai.prompt``)
    return "ai.prompt.messages" in attrs


def _parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", content)]
    out: list[Part] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            out.append(Part("text", str(part.get("text", ""))))
        elif kind == "tool-call":
            # ``args`` before SDK 5, ``input`` since
            arguments = part.get("input", part.get("args"))
            out.append(Part("tool_call", id=part.get("toolCallId"), name=part.get("toolName"), arguments=arguments))
        elif kind == "tool-result":
            value = part.get("output", part.get("result"))
            out.append(Part("tool_result", id=part.get("toolCallId"), value=value))
        else:
            out.append(Part("other", value={k: v for k, v in sorted(part.items())}))
    return out


def _message(message: Any) -> tuple[str, list[Part]] | None:
    if not isinstance(message, dict):
        return None
    return str(message.get("role") or "user"), _parts(message.get("content"))


def _tool(value: Any) -> dict[str, Any] | None:
    tool = json_value(value)
    if not isinstance(tool, dict) or not tool.get("name"):
        return None
    schema = tool.get("inputSchema", tool.get("parameters"))
    return {"name": tool["name"], "description": tool.get("description") or "", "parameters": schema or {}}


def record(span: dict, attrs: dict, origin: Origin, ctx: registry.ReadContext) -> registry.Item:
    model = attrs.get("ai.model.id") or attrs.get("gen_ai.request.model")
    provider = content_provider(attrs.get("ai.model.provider") or attrs.get("gen_ai.system"), model)
    system: list[str] = []
    messages: list[Any] = []
    memo = memo_of(ctx.state)
    for message in json_value(attrs.get("ai.prompt.messages")) or []:
        kind, converted = memo.get(provider, message, _message)
        if kind == "system":
            system.extend(converted)
        elif kind == "message":
            messages.append(converted)
    # a list of JSON strings in OTLP; one JSON string of that list where a back end keeps every
    # attribute as a string (Zipkin, Jaeger)
    listed = json_value(attrs.get("ai.prompt.tools"))
    tools = [t for t in (_tool(v) for v in (listed if isinstance(listed, list) else [])) if t is not None]
    body = content_body(provider, model, system, messages, tools)
    session = otlp.session_of(attrs, span, "ai.telemetry.metadata.sessionId", "session.id")
    return otlp.span_record(origin, body, ctx, NAME, span, fidelity="content", session=session)


FORMAT = otlp.make_format(
    NAME,
    "Vercel AI SDK spans",
    "content",
    {
        "wire bytes": "no (the prompt as the SDK passed it to the provider package, as JSON)",
        "key order": "no",
        "cache markers": "no",
        "usage": "no (ai.usage.* counts differ between SDK versions: not read)",
        "time": "span start",
        "session key": "ai.telemetry.metadata.sessionId, else the trace id",
    },
    "https://ai-sdk.dev/docs/ai-sdk-core/telemetry",
    "vercel_ai",
)
