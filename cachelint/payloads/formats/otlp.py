"""OpenTelemetry traces of LLM calls: OTLP JSON files (``{"resourceSpans": [{"resource",
"scopeSpans": [{"scope", "spans": [...]}]}]}``, the OTLP/HTTP JSON encoding), the collector's
file exporter (one such document a line, JSONL), and spans as the SDK prints them
(``span.to_json()``: ``{"name", "context": {"trace_id"…}, "attributes": {…}}``, one after the
other as the console exporter writes them, or one a line); and the same spans as tracing back ends
export them: Zipkin's JSON v2 (a list of ``{"traceId", "id", "name", "timestamp", "tags"}``, the
tags being the span's attributes as strings) and Jaeger's JSON (``{"data": [{"traceID", "spans":
[{"spanID", "operationName", "startTime", "tags": [{"key", "type", "value"}]}]}]}``), each span
read as the OTLP span it was.

Each span is read by the first semantic convention that recognises its attributes:
OpenInference (``openinference``: ``input.value`` holds the call's arguments as JSON: wire
level), the Vercel AI SDK (``vercel-ai``: ``ai.prompt.messages``), OpenLLMetry (``openllmetry``: flattened ``gen_ai.prompt.N.*``) or the OpenTelemetry GenAI
conventions (``otel-genai``: ``gen_ai.input.messages`` …); those two re-encode the prompt
(content level). Other spans (HTTP, database, agent steps) are not LLM calls. Spans are grouped
by their conversation or session id, else by their trace id. An exporter writes a span when it
ends, so spans are put back in start-time order within a window of ``REORDER`` spans.
Sources: https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding,
https://opentelemetry.io/docs/collector/configuration/ (file exporter),
https://zipkin.io/zipkin-api/ (the v2 span model), https://www.jaegertracing.io/docs/latest/apis/
(the query service's JSON).
"""

from __future__ import annotations

import heapq
import importlib
from typing import Any, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import attributes, make_record, number, span_time, trace_id
from cachelint.payloads.model import Origin, Record

NAME = "otlp"
REORDER = 64  # spans held to put them back in start-time order (memory stays bounded)
OTLP_PATH = ("resourceSpans", "*", "scopeSpans", "*", "spans", "*")


def is_span(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "attributes" in value
        and ("traceId" in value or "spanId" in value or isinstance(value.get("context"), dict))
    )


def is_zipkin_span(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("traceId"), str)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("tags"), dict)
    )


def is_jaeger_trace(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("traceID"), str) and isinstance(value.get("spans"), list)


def matches(value: Any) -> bool:
    return (
        isinstance(value.get("resourceSpans"), list)
        or (is_span(value) and isinstance(value.get("attributes"), (dict, list)))
        or is_zipkin_span(value)
        or is_jaeger_trace(value)
    )


def from_zipkin(span: dict) -> dict:
    """A Zipkin v2 span as the OTLP span it was: its tags are the attributes (as strings), its
    ``timestamp`` microseconds since the epoch."""
    start = number(span.get("timestamp"))
    return {
        "traceId": span.get("traceId"),
        "spanId": span.get("id"),
        "name": span.get("name"),
        "startTimeUnixNano": None if start is None else str(start * 1000),
        "attributes": {k: _tag_value(v) for k, v in span["tags"].items()},
    }


def from_jaeger(span: Any, trace: str) -> dict | None:
    """A span of a Jaeger trace as the OTLP span it was (``startTime`` in microseconds)."""
    if not isinstance(span, dict):
        return None
    start = number(span.get("startTime"))
    tags = {
        t["key"]: t.get("value")
        for t in span.get("tags") or []
        if isinstance(t, dict) and isinstance(t.get("key"), str)
    }
    return {
        "traceId": span.get("traceID") or trace,
        "spanId": span.get("spanID"),
        "name": span.get("operationName"),
        "startTimeUnixNano": None if start is None else str(start * 1000),
        "attributes": tags,
    }


def _tag_value(value: Any) -> Any:
    """Zipkin keeps every tag as a string: a count written as digits is read as the number."""
    if isinstance(value, str) and value.isdigit() and len(value) < 19:
        return int(value)
    return value


def conventions() -> tuple[Any, ...]:
    from cachelint.payloads.formats import openinference, openllmetry, otel_genai, vercel_ai

    return (openinference, vercel_ai, openllmetry, otel_genai)


def span_reader(only: str | None = None, fmt_name: str = NAME) -> registry.Records:
    """The records of spans read with the convention module named ``only`` of this package (every
    convention when None)."""

    def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
        ctx.state.setdefault("format", fmt_name)
        allowed = conventions() if only is None else (importlib.import_module(f"cachelint.payloads.formats.{only}"),)
        if isinstance(value.get("resourceSpans"), list):
            # a whole export request (a line of the collector's file exporter)
            for resource_spans in value["resourceSpans"]:
                if not isinstance(resource_spans, dict):
                    continue
                for scope_spans in resource_spans.get("scopeSpans") or []:
                    if isinstance(scope_spans, dict):
                        for span in scope_spans.get("spans") or []:
                            yield from _span(span, origin, ctx, allowed)
            return
        if is_jaeger_trace(value):
            for span in value["spans"]:
                converted = from_jaeger(span, value["traceID"])
                if converted is not None:
                    yield from _span(converted, origin, ctx, allowed)
            return
        if is_zipkin_span(value) and not is_span(value):
            value = from_zipkin(value)
        yield from _span(value, origin, ctx, allowed)

    return records


def _span(span: Any, origin: Origin, ctx: registry.ReadContext, allowed: tuple[Any, ...]) -> Iterator[registry.Item]:
    count = ctx.state.get("spans", 0)
    ctx.state["spans"] = count + 1
    where = Origin(origin.path, origin.line, count, origin.entry if origin.entry is None else count)
    if not isinstance(span, dict):
        return
    attrs = attributes(span.get("attributes"))
    item: registry.Item | None = None
    for convention in allowed:
        if convention.claims(attrs):
            item = convention.record(span, attrs, where, ctx)
            break
    if item is None:
        reason = unread_span(attrs)
        if reason is not None:
            ctx.unread.add(reason, where)
        item = make_record(where, None, ctx.redactor, fmt=ctx.state["format"])  # not read as an LLM call
    yield from _reorder(ctx, item, span_time(span))


# Operations of the GenAI conventions that are no model call: an agent's or a tool's step, an
# embedding (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/).
_NOT_MODEL_CALLS = ("execute_tool", "invoke_agent", "create_agent", "embeddings", "invoke_workflow")


def unread_span(attrs: dict) -> str | None:
    """Why a span no convention read looks like an LLM call all the same, or None (an HTTP, a
    database, a tool or an agent span): said once per file with the count, never counted silently
    as no LLM call."""
    operation = attrs.get("gen_ai.operation.name")
    if operation in _NOT_MODEL_CALLS:
        return None
    ai_operation = attrs.get("ai.operationId")
    if isinstance(ai_operation, str) and ai_operation.startswith("ai."):
        if not ai_operation.endswith((".doGenerate", ".doStream")):
            return None  # the SDK function's outer span (the user's call), not a provider call
        return (
            "are provider calls of the Vercel AI SDK recorded without their prompt (ai.prompt.messages):"
            " turn recordInputs on in experimental_telemetry"
        )
    if (
        any(k.startswith(("gen_ai.usage.", "gen_ai.request.", "gen_ai.response.")) for k in attrs)
        or operation
        or "gen_ai.system" in attrs
        or "gen_ai.provider.name" in attrs
    ):
        return (
            "are LLM call spans (gen_ai.* attributes) without the prompt or the provider a convention cachelint"
            " reads needs (gen_ai.input.messages, gen_ai.prompt.N.*, gen_ai.provider.name): not audited"
        )
    if "llm.input_messages.0.message.role" in attrs or "input.value" in attrs and "llm.model_name" in attrs:
        return "are LLM call spans (llm.* attributes) whose openinference.span.kind is not LLM: not audited"
    return None


def _reorder(ctx: registry.ReadContext, item: registry.Item, when: Any) -> Iterator[registry.Item]:
    if not isinstance(item, Record) or item.request is None:
        yield item
        return
    heap = ctx.state.setdefault("heap", [])
    key = item.time.timestamp() if item.time is not None else ctx.state.get("last", 0.0)
    heapq.heappush(heap, (key, item.origin.record, item))
    if len(heap) > REORDER:
        key, _, out = heapq.heappop(heap)
        ctx.state["last"] = key
        yield out


def finish(ctx: registry.ReadContext) -> Iterator[registry.Item]:
    heap = ctx.state.get("heap") or []
    while heap:
        yield heapq.heappop(heap)[2]


def span_record(origin: Origin, body: Any, ctx: registry.ReadContext, fmt: str, span: dict, **fields: Any) -> Record:
    """The record of an LLM call's span: its start as the time, an error status as a failed
    call; ``fields``: the rest ``make_record`` takes (fidelity, response, session, url)."""
    return make_record(origin, body, ctx.redactor, fmt=fmt, time=span_time(span), status=span_status(span), **fields)


def span_status(span: dict) -> int | None:
    status = span.get("status")
    code = status.get("code", status.get("status_code")) if isinstance(status, dict) else None
    return 500 if code in (2, "STATUS_CODE_ERROR", "ERROR") else None


def session_of(attrs: dict, span: dict, *keys: str) -> str | None:
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return trace_id(span)


def counts(attrs: dict, *keys: str) -> int | None:
    for key in keys:
        value = number(attrs.get(key))
        if value is not None:
            return value
    return None


def make_format(name: str, title: str, fidelity: str, keeps: dict, source: str, only: str | None) -> registry.LogFormat:
    return registry.LogFormat(
        name=name,
        title=title,
        fidelity=fidelity,
        keeps=keeps,
        matches=matches,
        records=span_reader(only, name),
        # a Jaeger export's traces are its "data"
        document_paths={"resourceSpans": OTLP_PATH, "data": ("data", "*")},
        finish=finish,
        sequence=True,
        source=source,
    )


FORMAT = make_format(
    NAME,
    "OpenTelemetry trace (OTLP JSON, collector file exporter, SDK span JSON)",
    "content",
    {
        "wire bytes": "per span convention (OpenInference: the call's arguments; GenAI, OpenLLMetry: no)",
        "key order": "OpenInference: yes; others: no",
        "cache markers": "OpenInference: yes; others: no",
        "usage": "span attributes (cache reads and writes where the instrumentation records them)",
        "time": "span start",
        "session key": "conversation / session id, else the trace id",
    },
    "https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding",
    None,
)
