"""A ``Record`` -> its ``Request``: detection, the provider's adapter, the response's facts."""

from __future__ import annotations

from cachelint.payloads.model import Record, Request
from cachelint.payloads.providers import anthropic, bedrock_converse, gemini, openai_chat, openai_responses
from cachelint.payloads.providers.builder import BlockCache, Builder
from cachelint.payloads.providers.detection import ProviderRules, detect_endpoint
from cachelint.payloads.providers.response import count_server_steps, response_marks, response_usage
from cachelint.payloads.trace import BuildTrace, ReuseMismatch

PROVIDERS = ("anthropic", "openai-chat", "openai-responses", "bedrock-converse", "gemini")


def to_request(record: Record, rules: ProviderRules, cache: BlockCache | None = None) -> Request | None:
    """The normalised request of a record, or None when it is not an LLM call. When the reader
    keeps the record's bytes for reuse (``record.trace``), the adapter fills that trace; when the
    body holds parts the reader did not decode (KnownRun / KnownBlock), they are replayed, and a
    part that does not fit raises ReuseMismatch (the caller then decodes the record in full)."""
    found = detect_endpoint(record, rules)
    if found is None:
        return None
    provider, endpoint = found
    url_model = endpoint.model
    body = record.request
    adapter = _ADAPTERS[provider]
    trace = record.trace if isinstance(record.trace, BuildTrace) else None
    if trace is not None:
        if trace.provider is not None and trace.provider != provider:
            raise ReuseMismatch(f"bytes reused from a {trace.provider} request in a {provider} request")
        trace.provider = provider
    builder = Builder(cache=cache, trace=trace)
    try:
        settings = adapter(body, builder)
    finally:
        if trace is not None:
            trace.reuse_from = None  # never keep a chain of earlier traces alive
    model = body.get("model") if isinstance(body.get("model"), str) else url_model
    settings = {"model": model, **settings}
    if provider == "anthropic":
        betas = anthropic.betas(record.headers, body)
        if betas is not None:
            settings["betas"] = betas
    response = record.response if isinstance(record.response, dict) else {}
    usage = response_usage(provider, response)
    server_steps = count_server_steps(provider, response) if usage is not None else 0
    diagnostics_present = "diagnostics" in response
    return Request(
        provider=provider,
        model=model,
        tools=tuple(builder.tools),
        system=tuple(builder.system),
        messages=tuple(builder.messages),
        origin=record.origin,
        settings=settings,
        breakpoints=tuple(builder.breakpoints),
        usage=usage,
        server_steps=server_steps,
        cache_diagnostics=response.get("diagnostics") if diagnostics_present else None,
        has_cache_diagnostics=diagnostics_present,
        time=record.time,
        response_id=response.get("id") if isinstance(response.get("id"), str) else None,
        previous_response_id=body.get("previous_response_id")
        if isinstance(body.get("previous_response_id"), str)
        else None,
        side_call=endpoint.side_call,
        host=endpoint.host,
        response_marks=response_marks(provider, response),
    )


_ADAPTERS = {
    "anthropic": anthropic.adapt,
    "openai-chat": openai_chat.adapt,
    "openai-responses": openai_responses.adapt,
    "bedrock-converse": bedrock_converse.adapt,
    "gemini": gemini.adapt,
}
