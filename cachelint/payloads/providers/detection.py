"""Which provider a record calls: the URL's endpoint first (``cachelint.payloads.endpoints``), the
body's shape for what it leaves open (each provider's ``claims_body`` / ``hints_body``, asked in
the registry's order); None when the record is no LLM call."""

from __future__ import annotations

from cachelint.payloads.endpoints import Endpoint, EndpointRules
from cachelint.payloads.model import Record
from cachelint.payloads.providers.registry import body_provider


# The endpoint rules the adapters consult first (cachelint.payloads.endpoints); the old name kept
# for callers of this module.
ProviderRules = EndpointRules


def detect(record: Record, rules: EndpointRules) -> tuple[str, str | None] | None:
    """(provider, model id from the URL or None), or None when the record is not an LLM call.
    The URL's endpoint first (cachelint.payloads.endpoints), the body's shape for what it leaves
    open."""
    found = detect_endpoint(record, rules)
    return None if found is None else (found[0], found[1].model)


def detect_endpoint(record: Record, rules: EndpointRules) -> tuple[str, Endpoint] | None:
    """(provider, the record's endpoint), or None when the record is not an LLM call."""
    body = record.request
    if not isinstance(body, dict):
        return None
    endpoint = rules.classify(record.url)
    if not endpoint.llm:
        return None
    provider = endpoint.provider
    if provider is None:
        provider = body_provider(body)
        if provider is None or provider in endpoint.excluded:
            return None
        if endpoint.known and endpoint.model and provider == "anthropic" and "anthropic_version" not in body:
            return None  # an InvokeModel model no family names, whose body is not Anthropic's
    return provider, endpoint
