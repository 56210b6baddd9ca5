"""OpenTelemetry traces of LLM calls: OTLP JSON files (``{"resourceSpans": [{"resource",
"scopeSpans": [{"scope", "spans": [...]}]}]}``, the OTLP/HTTP JSON encoding), the collector's
file exporter (one such document a line, JSONL), and spans as the SDK prints them
(``span.to_json()``: ``{"name", "context": {"trace_id"…}, "attributes": {…}}``, one after the
other as the console exporter writes them, or one a line).

Each span is read by the first semantic convention that recognises its attributes:
OpenInference (``openinference``: ``input.value`` holds the call's arguments as JSON: wire
level), OpenLLMetry (``openllmetry``: flattened ``gen_ai.prompt.N.*``) or the OpenTelemetry GenAI
conventions (``otel-genai``: ``gen_ai.input.messages`` …); those two re-encode the prompt
(content level). Other spans (HTTP, database, agent steps) are not LLM calls. Spans are grouped
by their conversation or session id, else by their trace id. An exporter writes a span when it
ends, so spans are put back in start-time order within a window of ``REORDER`` spans.
Sources: https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding,
https://opentelemetry.io/docs/collector/configuration/ (file exporter)
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


def matches(value: Any) -> bool:
    return isinstance(value.get("resourceSpans"), list) or (
        is_span(value) and isinstance(value.get("attributes"), (dict, list))
    )


def conventions() -> tuple[Any, ...]:
    from cachelint.payloads.formats import openinference, openllmetry, otel_genai

    return (openinference, openllmetry, otel_genai)


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
        item = make_record(where, None, ctx.redactor, fmt=ctx.state["format"])  # not an LLM call
    yield from _reorder(ctx, item, span_time(span))


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
        document_paths={"resourceSpans": OTLP_PATH},
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
