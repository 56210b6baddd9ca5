"""Cache usage read from captured responses, normalised across providers.

Every provider counts the prompt differently (docs/background/usage-and-pricing.md#anthropic-usage, #openai-usage, #gemini-usage):

- Anthropic ``usage``: ``input_tokens`` counts ONLY the tokens after the last breakpoint; the
  prompt is ``cache_read_input_tokens + cache_creation_input_tokens + input_tokens``. The write is
  split by TTL in ``cache_creation.ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``
  (Anthropic's prompt caching docs "1-hour cache duration"). Streams carry it in ``message_start`` (and ``message_delta``).
- OpenAI Chat ``usage``: ``prompt_tokens`` INCLUDES ``prompt_tokens_details.cached_tokens``;
  Responses ``usage``: ``input_tokens`` INCLUDES ``input_tokens_details.cached_tokens``. GPT-5.6+
  adds ``cache_write_tokens`` beside ``cached_tokens`` (OpenAI's prompt caching docs; Azure InputTokensDetails), counted
  inside the prompt too. Streams: the last Chat chunk (``include_usage``), Responses
  ``response.completed``.
- Bedrock Converse ``usage`` / ``metadata.usage``: ``inputTokens`` excludes
  ``cacheReadInputTokens`` and ``cacheWriteInputTokens`` (AWS TokenUsage; opencode PR #38427
  corrected the opposite reading); ``cacheDetails[] {ttl, inputTokens}`` splits the write by TTL.
- Gemini ``usageMetadata``: ``promptTokenCount`` INCLUDES ``cachedContentTokenCount``; implicit
  caching bills no write.

Tracing tools got the include/exclude difference wrong more than once (traceloop/openllmetry#2175,
Arize-ai/openinference#1429): ``CacheUsage`` always stores the three disjoint parts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from cachelint.payloads.jsonio import loads


@dataclass(frozen=True, slots=True)  # one per request, kept for the summary
class CacheUsage:
    """The prompt of one request, in three disjoint parts plus the write's TTL split.

    ``uncached``: prompt tokens neither read from nor written to the cache (billed as input).
    ``read``: tokens read from the cache. ``written``: tokens written to it
    (``written_5m + written_1h`` when the split is known; OpenAI's 30-minute writes count as 5m).
    ``output``: generated tokens (0 when unknown). ``provider``: the family that reported it.
    ``server_steps``: server-side tool calls (Anthropic's web search and web fetch,
    ``usage.server_tool_use``; OpenAI Responses ``tool_usage``, or the server-executed items of the
    response's output, ``Request.server_steps``) that ran inside the request: each re-sent the
    growing prompt, and the usage adds them all up — it is what the request was billed, not the size
    of the prompt sent (its cached part may even be read from its own earlier steps).
    """

    provider: str
    uncached: int = 0
    read: int = 0
    written: int = 0
    written_5m: int = 0
    written_1h: int = 0
    output: int = 0
    server_steps: int = 0

    @property
    def one_prompt(self) -> bool:
        """Whether the parts describe the single prompt that was sent (no server-side steps):
        only then do they measure the prefix (what a later request can read, how large it is)."""
        return not self.server_steps

    @property
    def prompt(self) -> int:
        return self.uncached + self.read + self.written

    @property
    def cached(self) -> int:
        """Tokens that ended in the cache: read or written."""
        return self.read + self.written

    def to_dict(self) -> dict[str, int]:
        return {
            "uncached": self.uncached,
            "read": self.read,
            "written": self.written,
            "written_5m": self.written_5m,
            "written_1h": self.written_1h,
            "output": self.output,
            "prompt": self.prompt,
        }


# JSON objects are dicts: checking dict first skips the slow ABC check of typing.Mapping (this
# runs for every request)
_MAPPING = (dict, Mapping)


def provider_family(provider: str | None) -> str:
    """``anthropic`` | ``openai`` | ``bedrock`` | ``gemini`` (or the name itself when unknown)."""
    if not provider:
        return "unknown"
    if provider.startswith("openai"):
        return "openai"
    if provider.startswith("bedrock"):
        return "bedrock"
    return provider


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value:  # not NaN
        return max(0, int(value))
    return 0


def _anthropic(usage: Mapping[str, Any]) -> CacheUsage:
    read = _int(usage.get("cache_read_input_tokens"))
    written = _int(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    w5 = w1 = 0
    if isinstance(split, _MAPPING):
        w5 = _int(split.get("ephemeral_5m_input_tokens"))
        w1 = _int(split.get("ephemeral_1h_input_tokens"))
    w5, w1 = _ttl_split(written, w5, w1)
    server = usage.get("server_tool_use")
    steps = sum(_int(v) for v in server.values()) if isinstance(server, _MAPPING) else 0
    return CacheUsage(
        provider="anthropic",
        uncached=_int(usage.get("input_tokens")),
        read=read,
        written=written,
        written_5m=w5,
        written_1h=w1,
        output=_int(usage.get("output_tokens")),
        server_steps=steps,
    )


def _ttl_split(written: int, w5: int, w1: int) -> tuple[int, int]:
    """The tokens written at 5 minutes and at 1 hour, summing to ``written``: with no split (older
    responses) or an inconsistent one, what is not known to be 1 h is 5 min, the default TTL (Anthropic's prompt caching docs)."""
    if w5 + w1 == written:
        return w5, w1
    w1 = min(w1, written)
    return written - w1, w1


def _openai(usage: Mapping[str, Any]) -> CacheUsage:
    if "prompt_tokens" in usage:  # Chat Completions
        prompt = _int(usage.get("prompt_tokens"))
        details = usage.get("prompt_tokens_details")
        output = _int(usage.get("completion_tokens"))
    else:  # Responses
        prompt = _int(usage.get("input_tokens"))
        details = usage.get("input_tokens_details")
        output = _int(usage.get("output_tokens"))
    details = details if isinstance(details, _MAPPING) else {}
    read = _int(details.get("cached_tokens"))
    written = _int(details.get("cache_write_tokens"))
    # Both are INCLUDED in prompt/input tokens (OpenAI's prompt caching docs); never let a malformed record go negative.
    read = min(read, prompt)
    written = min(written, prompt - read)
    tool_usage = usage.get("tool_usage")  # Responses: {"web_search": {"num_requests": 2}, …}
    steps = 0
    if isinstance(tool_usage, _MAPPING):
        steps = sum(_int(v.get("num_requests")) for v in tool_usage.values() if isinstance(v, _MAPPING))
    return CacheUsage(
        provider="openai",
        uncached=prompt - read - written,
        read=read,
        written=written,
        written_5m=written,
        output=output,
        server_steps=steps,
    )


def _bedrock(usage: Mapping[str, Any]) -> CacheUsage:
    written = _int(usage.get("cacheWriteInputTokens"))
    w5 = w1 = 0
    details = usage.get("cacheDetails")
    if isinstance(details, list):
        for item in details:
            if isinstance(item, _MAPPING):
                if item.get("ttl") == "1h":
                    w1 += _int(item.get("inputTokens"))
                else:
                    w5 += _int(item.get("inputTokens"))
    w5, w1 = _ttl_split(written, w5, w1)
    return CacheUsage(
        provider="bedrock",
        uncached=_int(usage.get("inputTokens")),
        read=_int(usage.get("cacheReadInputTokens")),
        written=written,
        written_5m=w5,
        written_1h=w1,
        output=_int(usage.get("outputTokens")),
    )


def _gemini(usage: Mapping[str, Any]) -> CacheUsage:
    prompt = _int(usage.get("promptTokenCount", usage.get("prompt_token_count")))
    read = min(prompt, _int(usage.get("cachedContentTokenCount", usage.get("cached_content_token_count"))))
    output = _int(usage.get("candidatesTokenCount", usage.get("candidates_token_count")))
    return CacheUsage(provider="gemini", uncached=prompt - read, read=read, output=output)


def _shape(usage: Mapping[str, Any]) -> str | None:
    if "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage:
        return "anthropic"
    if "prompt_tokens" in usage or "input_tokens_details" in usage:
        return "openai"
    if "inputTokens" in usage or "cacheReadInputTokens" in usage:
        return "bedrock"
    if "promptTokenCount" in usage or "prompt_token_count" in usage:
        return "gemini"
    if "input_tokens" in usage:
        return None  # Anthropic and OpenAI Responses share it: the provider decides
    return None


_READERS = {"anthropic": _anthropic, "openai": _openai, "bedrock": _bedrock, "gemini": _gemini}


def read_usage(usage: Any, provider: str | None = None) -> CacheUsage | None:
    """Normalise one usage object (``Request.usage``: the response's ``usage``, Gemini's
    ``usageMetadata``, Bedrock's ``usage``). ``provider`` (``anthropic``, ``openai-chat``…) decides
    when the shape alone does not; None when there is no usable usage."""
    if not isinstance(usage, _MAPPING) or not usage:
        return None
    family = _shape(usage) or provider_family(provider)
    reader = _READERS.get(family)
    if reader is None:
        return None
    return reader(usage)


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
    of 0 is observed rather than unknown. OpenAI's usage carries ``prompt_tokens_details.
    cached_tokens`` (Responses: ``input_tokens_details``) only since its prompt caching began
    (2024-10-01; usage recorded before has no such field); Anthropic's ``cache_read_input_tokens``,
    Bedrock's ``cacheReadInputTokens``. Gemini leaves ``cachedContentTokenCount`` out when nothing
    was read: its absence is a 0."""
    usage = getattr(req, "usage", None)
    if not isinstance(usage, _MAPPING):
        return False
    family = _shape(usage) or provider_family(getattr(req, "provider", None))
    if family == "openai":
        details = usage.get("prompt_tokens_details", usage.get("input_tokens_details"))
        return isinstance(details, _MAPPING) and "cached_tokens" in details
    if family == "anthropic":
        return "cache_read_input_tokens" in usage
    if family == "bedrock":
        return "cacheReadInputTokens" in usage or "cacheReadInputTokenCount" in usage
    return True


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
    if not isinstance(response, _MAPPING):
        return None
    for key in ("usage", "usageMetadata", "usage_metadata"):
        found = read_usage(response.get(key), provider)
        if found is not None:
            return found
    metadata = response.get("metadata")  # Bedrock ConverseStream metadata event
    if isinstance(metadata, _MAPPING):
        return read_usage(metadata.get("usage"), provider)
    return None


def miss_reason(diagnostics: Any) -> dict[str, Any] | None:
    """Anthropic's own verdict (cache diagnostics, docs/background/usage-and-pricing.md#cache-diagnostics) as ``{"type", "tokens"}``,
    ``{"type": None}`` while inconclusive, or None when absent or no divergence was found."""
    if not isinstance(diagnostics, _MAPPING) or "cache_miss_reason" not in diagnostics:
        return None
    reason = diagnostics.get("cache_miss_reason")
    if reason is None:
        return {"type": None, "tokens": None}
    if not isinstance(reason, _MAPPING):
        return None
    tokens = reason.get("cache_missed_input_tokens")
    return {"type": reason.get("type"), "tokens": _int(tokens) if tokens is not None else None}


# The tiers each Anthropic miss reason names (Anthropic's cache diagnostics). ``unavailable`` and
# ``previous_message_not_found`` name none: they never disagree with our diff.
MISS_REASON_TIERS: dict[str, tuple[str, ...]] = {
    "model_changed": ("tools", "system", "messages"),
    "tools_changed": ("tools", "system", "messages"),
    "system_changed": ("system", "messages"),
    "messages_changed": ("messages",),
}


def reason_agrees(
    reason_type: str | None, first_tier: str | None, changed_settings: tuple[str, ...] = ()
) -> bool | None:
    """Whether the provider's miss reason and our diff say the same thing: the first broken tier,
    or for ``model_changed`` a changed ``model`` setting. None when the reason names no tier
    (inconclusive, unavailable, previous message not found)."""
    if reason_type not in MISS_REASON_TIERS:
        return None
    if reason_type == "model_changed":
        return "model" in changed_settings
    return first_tier is not None and MISS_REASON_TIERS[reason_type][0] == first_tier
