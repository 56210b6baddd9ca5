"""A ``Record`` -> its ``Request``: detection, the provider's adapter, the response's facts."""

from __future__ import annotations

from cachelint.payloads.model import Record, Request
from cachelint.payloads.providers import anthropic, openai_responses
from cachelint.payloads.providers.builder import BlockCache, Builder
from cachelint.payloads.providers.detection import ProviderRules, detect_endpoint
from cachelint.payloads.providers.registry import provider
from cachelint.payloads.providers.response import marks_of
from cachelint.payloads.trace import BuildTrace, ReuseMismatch


def to_request(record: Record, rules: ProviderRules, cache: BlockCache | None = None) -> Request | None:
    """The normalised request of a record, or None when it is not an LLM call. When the reader
    keeps the record's bytes for reuse (``record.trace``), the adapter fills that trace; when the
    body holds parts the reader did not decode (KnownRun / KnownBlock), they are replayed, and a
    part that does not fit raises ReuseMismatch (the caller then decodes the record in full)."""
    found = detect_endpoint(record, rules)
    if found is None:
        return None
    name, endpoint = found
    declared = provider(name)
    assert declared is not None, name  # detection names only declared providers
    url_model = endpoint.model
    body = record.request
    trace = record.trace if isinstance(record.trace, BuildTrace) else None
    if trace is not None:
        if trace.provider is not None and trace.provider != name:
            raise ReuseMismatch(f"bytes reused from a {trace.provider} request in a {name} request")
        trace.provider = name
    builder = Builder(cache=cache, trace=trace)
    try:
        settings = declared.adapt(body, builder)
    finally:
        if trace is not None:
            trace.reuse_from = None  # never keep a chain of earlier traces alive
    model = body.get("model") if isinstance(body.get("model"), str) else url_model
    settings = {"model": model, **settings}
    if declared.header_settings is not None:
        extra = declared.header_settings(record.headers, body)
        if extra:
            settings.update(extra)
    response = record.response if isinstance(record.response, dict) else {}
    usage = declared.response_usage(response)
    usage = usage if isinstance(usage, dict) else None
    server_steps = declared.server_steps(response) if usage is not None and declared.server_steps is not None else 0
    # The providers' own cache verdicts (Anthropic's cache diagnostics, OpenAI's prompt cache
    # diagnostics) are read whatever provider the request was told to be: a gateway in front of
    # a provider's API may pass them on in a response of another shape
    diagnostics_present, verdict = provider_verdict(response)
    return Request(
        provider=name,
        model=model,
        tools=tuple(builder.tools),
        system=tuple(builder.system),
        messages=tuple(builder.messages),
        origin=record.origin,
        settings=settings,
        breakpoints=tuple(builder.breakpoints),
        usage=usage,
        server_steps=server_steps,
        cache_diagnostics=verdict,
        has_cache_diagnostics=diagnostics_present,
        time=record.time
        if record.time is not None or declared.response_time is None
        else declared.response_time(response),
        response_id=response.get("id") if isinstance(response.get("id"), str) else None,
        previous_response_id=body.get("previous_response_id")
        if isinstance(body.get("previous_response_id"), str)
        else None,
        side_call=endpoint.side_call,
        host=endpoint.host,
        response_marks=marks_of(*declared.response_marks(response)) if declared.response_marks is not None else (),
    )


def provider_verdict(response: dict) -> tuple[bool, dict | None]:
    """(whether the response carries the provider's own cache diagnostics, its verdict as
    ``{"type", "tokens"}``: None when it found no divergence or on a hit)."""
    if anthropic.CACHE_DIAGNOSTICS in response:
        return True, anthropic.miss_reason(response[anthropic.CACHE_DIAGNOSTICS])
    if openai_responses.PROMPT_CACHE_DIAGNOSTICS in response:
        return True, openai_responses.miss_reason(response[openai_responses.PROMPT_CACHE_DIAGNOSTICS])
    return False, None
