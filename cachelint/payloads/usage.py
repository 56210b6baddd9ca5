"""Cache usage read from captured responses, normalised across providers: ``read_usage`` reads a
usage object through the fields its provider declares (``cachelint.payloads.providers``: each
provider's ``UsageFields``, which say how it counts the prompt, with sources), into the three
disjoint parts of a ``CacheUsage`` (``cachelint.payloads.cache_usage``); ``usage_of`` reads a
request's once; ``reads_reported`` says whether a read of 0 was observed, and
``sources_omitting_zero_reads`` which sources say it by leaving the field out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

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
    "reads_known",
    "reads_reported",
    "reason_agrees",
    "sources_omitting_zero_reads",
    "usage_from_response",
    "usage_of",
    "usage_source",
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


# Who wrote a usage object: the host (None for the provider's own API), the provider, the model.
UsageSource = tuple[str | None, str, str | None]


def usage_source(req: Any) -> UsageSource:
    """The source of a request's usage (``UsageSource``): one serializer writes the usage of one
    host, endpoint and model, so its requests share one way of reporting reads."""
    return (getattr(req, "host", None), getattr(req, "provider", ""), getattr(req, "model", None))


def sources_omitting_zero_reads(requests: Iterable[Any]) -> frozenset[UsageSource]:
    """The sources among ``requests`` whose usage carries the cache-read field only when something
    was read: some usage of theirs has the field with a count above 0, and none has it at 0. A
    usage of such a source that counts the prompt without the field reports a read of 0.

    Why it is learned per source rather than declared per provider: OpenAI's API writes
    ``cached_tokens`` on every response, 0 included (OpenAI's prompt caching guide), but its schema
    leaves ``prompt_tokens_details`` optional (OpenAI's API reference, the chat completion object),
    and gateways that write an OpenAI-compatible usage drop zero-valued fields (Go's ``omitempty``,
    serde's ``skip_serializing_if``): the same absence means 0 from one source and "not reported"
    from another, which only that source's other responses tell. A source that writes the field at 0
    somewhere does not drop zeros: its absence elsewhere is left unknown."""
    reporting: set[UsageSource] = set()
    zero: set[UsageSource] = set()
    for req in requests:
        if not reads_reported(req):
            continue
        usage = usage_of(req)
        if usage is not None:
            (reporting if usage.read > 0 else zero).add(usage_source(req))
    return frozenset(reporting - zero)


def reads_known(req: Any, omitting: frozenset[UsageSource]) -> bool:
    """Whether a request's read is known: reported (``reads_reported``), or left out by a source
    that leaves it out only when it is 0 (``sources_omitting_zero_reads``) from a usage that
    counts the prompt."""
    if reads_reported(req):
        return True
    if usage_source(req) not in omitting:
        return False
    usage = usage_of(req)
    return usage is not None and usage.prompt > 0


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
