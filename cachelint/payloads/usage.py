"""Cache usage read from captured responses, normalised across providers: ``read_usage`` reads a
usage object through the fields its provider declares (``cachelint.payloads.providers``: each
provider's ``UsageFields``, which say how it counts the prompt, with sources), into the three
disjoint parts of a ``CacheUsage`` (``cachelint.payloads.cache_usage``); ``usage_of`` reads a
request's once; ``reads_reported`` says whether a read of 0 was observed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cachelint.payloads.cache_usage import MAPPING, CacheUsage
from cachelint.payloads.jsonio import loads
from cachelint.payloads.providers.registry import family_of, usage_fields

# Anthropic's cache diagnostics, the provider's own verdict on a miss, as the usage checks read it
# (declared with the rest of what cachelint knows of Anthropic's API)
from cachelint.payloads.providers.anthropic import MISS_REASON_TIERS, miss_reason, reason_agrees

__all__ = [
    "MISS_REASON_TIERS",
    "CacheUsage",
    "miss_reason",
    "provider_family",
    "read_usage",
    "reads_reported",
    "reason_agrees",
    "usage_from_response",
    "usage_of",
]


def provider_family(provider: str | None) -> str:
    """``anthropic`` | ``openai`` | ``bedrock`` | ``gemini`` (or the name itself when unknown)."""
    return family_of(provider)


def read_usage(usage: Any, provider: str | None = None) -> CacheUsage | None:
    """Normalise one usage object (``Request.usage``: the response's ``usage``, Gemini's
    ``usageMetadata``, Bedrock's ``usage``). ``provider`` (``anthropic``, ``openai-chat``…) decides
    when the shape alone does not; None when there is no usable usage."""
    if not isinstance(usage, MAPPING) or not usage:
        return None
    fields = usage_fields(usage, provider)
    return fields.read(usage) if fields is not None else None


def usage_of(req: Any) -> CacheUsage | None:
    """``read_usage(req.usage, req.provider)`` for a Request, read once: most CL3xx checks and the
    money summary ask for it, and a request's usage never changes once built."""
    memo = getattr(req, "memo", None)
    cached = memo.get("usage_of", _UNREAD) if isinstance(memo, dict) else _UNREAD
    if cached is not _UNREAD:
        return cached  # type: ignore[return-value]  # what this function stored (no cast(): asked ~8 times a request)
    found = read_usage(getattr(req, "usage", None), getattr(req, "provider", None))
    steps = getattr(req, "server_steps", 0)
    if found is not None and steps > found.server_steps:
        found = replace(found, server_steps=steps)  # told by the response's output items
    if isinstance(memo, dict):
        memo["usage_of"] = found
    return found


_UNREAD = object()


def reads_reported(req: Any) -> bool:
    """Whether the request's usage says how many tokens were read from the cache, so that a read
    of 0 is observed rather than unknown (each provider's ``UsageFields.reports_reads``; a usage
    of no known provider is taken to)."""
    usage = getattr(req, "usage", None)
    if not isinstance(usage, MAPPING):
        return False
    fields = usage_fields(usage, getattr(req, "provider", None))
    return fields.reports_reads(usage) if fields is not None else True


def usage_from_response(response: Any, provider: str | None = None) -> CacheUsage | None:
    """Usage from a whole response: a parsed body, its JSON text, or a server-sent event stream
    (Anthropic ``message_start``/``message_delta``, OpenAI Chat's last chunk, Responses
    ``response.completed``, Gemini chunks)."""
    if isinstance(response, (bytes, bytearray)):
        response = bytes(response).decode("utf-8", "replace")
    if isinstance(response, str):
        from cachelint.payloads.sse import assemble_sse, looks_like_sse

        if looks_like_sse(response):
            response = assemble_sse(response)
        else:
            try:
                response = loads(response)
            except (ValueError, RecursionError):
                return None
    if not isinstance(response, MAPPING):
        return None
    for key in ("usage", "usageMetadata", "usage_metadata"):
        found = read_usage(response.get(key), provider)
        if found is not None:
            return found
    metadata = response.get("metadata")  # Bedrock ConverseStream metadata event
    if isinstance(metadata, MAPPING):
        return read_usage(metadata.get("usage"), provider)
    return None
