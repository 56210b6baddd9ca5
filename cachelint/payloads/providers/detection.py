"""Which provider a record calls: the URL's endpoint first (``cachelint.payloads.endpoints``), the
body's shape for what it leaves open; None when the record is no LLM call."""

from __future__ import annotations

from typing import Any, Mapping

from cachelint.payloads.endpoints import Endpoint, EndpointRules
from cachelint.payloads.model import Record
from cachelint.payloads.trace import (
    has_anthropic_content,
    has_anthropic_tools,
    has_converse_content,
    has_openai_tools,
    role_of,
)


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
        provider = _provider_from_body(body)
        if provider is None or provider in endpoint.excluded:
            return None
        if endpoint.known and endpoint.model and provider == "anthropic" and "anthropic_version" not in body:
            return None  # an InvokeModel model no family names, whose body is not Anthropic's
    return provider, endpoint


def _provider_from_body(body: Mapping[str, Any]) -> str | None:
    """The provider from the body's shape alone (a bare-body JSONL log has no URL)."""
    if isinstance(body.get("contents"), list):
        return "gemini"
    messages = body.get("messages")
    if isinstance(messages, list):
        if "toolConfig" in body or "inferenceConfig" in body or has_converse_content(messages):
            return "bedrock-converse"
        if "anthropic_version" in body or "system" in body or has_anthropic_tools(body.get("tools")):
            return "anthropic"
        if any(role_of(m) in ("system", "developer", "tool") for m in messages):
            return "openai-chat"
        if has_openai_tools(body.get("tools")) or "response_format" in body or "prompt_cache_key" in body:
            return "openai-chat"
        if has_anthropic_content(messages) or str(body.get("model", "")).startswith("claude"):
            return "anthropic"
        if "model" in body:
            return "openai-chat"
        return None
    inp = body.get("input")
    if (
        "instructions" in body
        or "previous_response_id" in body
        or (isinstance(inp, list) and any(isinstance(i, dict) and ("type" in i or "role" in i) for i in inp))
    ):
        return "openai-responses"
    if isinstance(inp, str) and "model" in body and "encoding_format" not in body and "dimensions" not in body:
        return "openai-responses"
    return None
