"""Records that look like logs of LLM calls in a shape no reader took, asked only of the records
the audit skipped (no provider told), so that an audit that read nothing says what it saw.

Most skipped records are traffic that is not an LLM call (telemetry, embeddings, uploads): counted
and nothing more. Some are LLM logs in a shape the readers do not read (an observability export,
an agent's transcript, responses without their requests, a request body nested under other keys):
``unread_shape`` names the shape for the summary, and ``unread_reason`` says, once per file, why
such a record was not read and which ``--input-format`` would read it (``resemblance``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from cachelint.payloads.formats.registry import get, match
from cachelint.payloads.model import Record
from cachelint.payloads.providers.registry import is_response
from cachelint.payloads.sse import is_stream_event


def unread_reason(record: Record) -> str | None:
    """Why a record the audit skipped (no provider told) looks like an LLM log in a shape no reader
    took (``resemblance``), or None."""
    fmt = get(record.fmt)
    if fmt is None or not fmt.generic or record.request is None:
        return None  # a log format's own records say why themselves; a record without body is not a call
    return resemblance(record)


# Member names that say "this is a log of an LLM call", and the format that reads it. A name is
# not enough alone where other protocols use it too: ``params`` is JSON-RPC's (MCP, agent-to-agent
# calls), so a batch request also has its ``custom_id``; ``inputs`` is a Hugging Face Inference
# body's, so a LangSmith run also says its ``run_type`` (or its inputs hold the call's messages).
_TELLS: tuple[tuple[str, str, str | None, Callable[[Mapping[str, Any]], bool] | None], ...] = (
    ("request_body", "a Helicone export record", "helicone", None),
    ("inputBodyJson", "a Bedrock model invocation log", "bedrock-invocation", None),
    ("params", "an Anthropic Message Batches request", "anthropic-batch", lambda v: "custom_id" in v),
    ("input.value", "an OpenInference span", "openinference", None),
    (
        "inputs",
        "a LangSmith run",
        "langsmith",
        lambda v: "run_type" in v or (isinstance(v.get("inputs"), dict) and "messages" in v["inputs"]),
    ),
    ("resourceSpans", "an OTLP trace export", "otlp", None),
    ("messages", "a chat request", None, None),
    ("prompt", "a completion request", None, None),
)


def resemblance(record: Any) -> str | None:
    """Why a record the audit skipped looks like a log of an LLM call in a shape it did not read,
    and what reads it; None when it does not look like one."""
    value = record.request if isinstance(record, Record) else record
    if not isinstance(value, dict) or not value or "jsonrpc" in value:
        return None  # empty, or a JSON-RPC call (MCP, agent-to-agent): no LLM log
    fmt = match(value)
    if fmt is not None:
        return f"are {fmt.title} records but were not read as such: audit them with --input-format {fmt.name} (or let the format be detected)"
    if is_response(value):
        return (
            "are responses of an LLM API without the requests that asked for them (a response object, a test"
            " fixture): nothing that was sent, so nothing to compare"
        )
    if is_stream_event(value):
        return "are events of a streamed LLM response without its request (a stream fixture): nothing that was sent, so nothing to compare"
    keys = set(value)
    for container in ("attributes", "tags"):  # a span's attributes (OTLP, SDK JSON), Zipkin's and Jaeger's tags
        keys |= set(_attribute_keys(value.get(container)))
    spans = value.get("spans")
    if isinstance(spans, list):  # a trace of a tracing backend's export (Jaeger: {traceID, spans})
        for span in spans[:50]:
            if isinstance(span, dict):
                for container in ("attributes", "tags"):
                    keys |= set(_attribute_keys(span.get(container)))
    nested = value.get("input")
    if isinstance(nested, dict):
        keys |= {f"input.{k}" if k == "value" else k for k in nested}
    if any(isinstance(k, str) and k.startswith("gen_ai.") for k in keys):
        return "carry gen_ai.* attributes (OpenTelemetry GenAI) outside a span cachelint reads: export them as OTLP JSON and audit with --input-format otlp"
    host = _host(record.url) if isinstance(record, Record) else None
    for key, shape, name, also in _TELLS:
        if key in keys and (also is None or also(value)):
            if name is None and host is not None:
                # the URL names where it went: a provider (or a route) no provider adapter reads
                return (
                    f"look like {shape} (they carry {key!r}) sent to {host}, a provider or endpoint cachelint"
                    " does not audit; see docs/audit.md, Providers"
                )
            if name is None:
                return (
                    f"look like {shape} (they carry {key!r}) in a shape no reader takes: no provider could be told"
                    " (no model, URL or provider-specific field); see docs/audit.md, Inputs"
                )
            return f"look like {shape} (they carry {key!r}) but were not read as one: audit them with --input-format {name}"
    return None


def _host(url: Any) -> str | None:
    if not isinstance(url, str) or "://" not in url:
        return None
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host or None


def unread_shape(request: Any, response: Any = None) -> str | None:
    """The name of the LLM log shape a record has when no provider adapter took it, or None for
    traffic that is not an LLM call. ``request``: the record's body; ``response``: its response."""
    if request is None:
        if isinstance(response, Mapping) and _is_response(response.get("body")):
            return "OpenAI Batch output (responses only, without their requests)"
        return None
    if not isinstance(request, Mapping) or not request:
        return None  # an empty body is no log of anything (a response alone is told above)
    fmt = match(dict(request))
    if fmt is not None:  # a log format cachelint reads, met inside a file read as another
        return f"{fmt.title} (audit it with --input-format {fmt.name})"
    kind = request.get("type")
    if (
        kind in ("user", "assistant", "summary", "system")
        and isinstance(request.get("message"), Mapping)
        and ("sessionId" in request or "uuid" in request or "parentUuid" in request)
    ):
        return "Claude Code transcript (the conversation, not the requests sent)"
    if kind in ("session_meta", "response_item", "event_msg", "turn_context", "compacted") and "payload" in request:
        return "Codex CLI rollout (the conversation, not the requests sent)"
    if "resourceSpans" in request or "scopeSpans" in request:
        return "OpenTelemetry traces (OTLP JSON)"
    attributes = _attribute_keys(request.get("attributes"))
    if any(k.startswith("gen_ai.") for k in attributes):
        return "OpenTelemetry GenAI span"
    if any(k.startswith(("llm.", "openinference.")) for k in attributes):
        return "OpenInference span"
    if "run_type" in request and ("inputs" in request or "outputs" in request):
        return "LangSmith run"
    if str(kind).upper() == "GENERATION" or (
        "observations" in request and isinstance(request.get("observations"), list)
    ):
        return "Langfuse export"
    if "op_name" in request and "inputs" in request:
        return "W&B Weave call"
    if "custom_id" in request and isinstance(request.get("result"), Mapping):
        return "Anthropic Message Batches result (responses only, without their requests)"
    if _is_response(request):
        return "a response body without its request"
    nested = _nested_request(request, 0, "")
    if nested:
        where, as_text = nested
        return f"a request body nested under '{where}'" + (" (as a JSON string)" if as_text else "")
    return None


def _attribute_keys(attributes: Any) -> list[str]:
    if isinstance(attributes, Mapping):
        return [str(k) for k in attributes]
    if isinstance(attributes, list):  # OTLP: [{"key": ..., "value": {...}}]
        return [str(a.get("key")) for a in attributes[:200] if isinstance(a, Mapping)]
    return []


def _is_response(value: Any) -> bool:
    """A provider's response body (each provider's ``is_response``)."""
    return isinstance(value, Mapping) and is_response(value)


def _looks_like_body(value: Mapping[str, Any]) -> bool:
    """A request body as the provider adapters read one: a model and messages, contents or input."""
    if isinstance(value.get("contents"), list):
        return True
    return "model" in value and (isinstance(value.get("messages"), list) or "input" in value)


def _nested_request(
    value: Mapping[str, Any], depth: int, path: str, budget: list[int] | None = None
) -> tuple[str, bool] | None:
    """(dotted path, held as a JSON string) of a request body inside ``value`` (at most three
    levels down, at most 500 values looked at: a skipped record costs little however wide it is),
    or None."""
    budget = budget if budget is not None else [500]
    if depth > 3:
        return None
    for key in list(value)[:50]:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        child = value[key]
        where = f"{path}.{key}" if path else str(key)
        if isinstance(child, Mapping):
            if _looks_like_body(child):
                return where, False
            found = _nested_request(child, depth + 1, where, budget)
            if found:
                return found
        elif isinstance(child, str) and depth < 2 and child[:1] == "{" and '"model"' in child[:4096]:
            return where, True
    return None
