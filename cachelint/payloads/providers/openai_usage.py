"""How OpenAI's usage counts the prompt, for both of its APIs (Chat Completions and Responses share
one cache and one way of counting: ``openai_chat`` and ``openai_responses`` declare these fields).

Chat ``usage``: ``prompt_tokens`` INCLUDES ``prompt_tokens_details.cached_tokens``; Responses
``usage``: ``input_tokens`` INCLUDES ``input_tokens_details.cached_tokens``. GPT-5.6+ adds
``cache_write_tokens`` beside ``cached_tokens`` (OpenAI's prompt caching docs; Azure
InputTokensDetails), counted inside the prompt too (docs/background/usage-and-pricing.md#openai-usage).
Streams: the last Chat chunk (``include_usage``), Responses ``response.completed``.
"""

from __future__ import annotations

from typing import Any, Mapping

from cachelint.payloads.cache_usage import MAPPING, CacheUsage, UsageFields, token_count


def read_usage(usage: Mapping[str, Any]) -> CacheUsage:
    if "prompt_tokens" in usage:  # Chat Completions
        prompt = token_count(usage.get("prompt_tokens"))
        details = usage.get("prompt_tokens_details")
        output = token_count(usage.get("completion_tokens"))
    else:  # Responses
        prompt = token_count(usage.get("input_tokens"))
        details = usage.get("input_tokens_details")
        output = token_count(usage.get("output_tokens"))
    details = details if isinstance(details, MAPPING) else {}
    read = token_count(details.get("cached_tokens"))
    written = token_count(details.get("cache_write_tokens"))
    # Both are INCLUDED in prompt/input tokens (OpenAI's prompt caching docs); never let a malformed record go negative.
    read = min(read, prompt)
    written = min(written, prompt - read)
    tool_usage = usage.get("tool_usage")  # Responses: {"web_search": {"num_requests": 2}, …}
    steps = 0
    if isinstance(tool_usage, MAPPING):
        steps = sum(token_count(v.get("num_requests")) for v in tool_usage.values() if isinstance(v, MAPPING))
    return CacheUsage(
        provider="openai",
        uncached=prompt - read - written,
        read=read,
        written=written,
        written_5m=written,
        output=output,
        server_steps=steps,
    )


def reports_reads(usage: Mapping[str, Any]) -> bool:
    """``cached_tokens`` is in the usage only since OpenAI's prompt caching began (2024-10-01;
    usage recorded before has no such field)."""
    details = usage.get("prompt_tokens_details", usage.get("input_tokens_details"))
    return isinstance(details, MAPPING) and "cached_tokens" in details


USAGE = UsageFields(
    family="openai",
    tells=("prompt_tokens", "input_tokens_details"),
    read=read_usage,
    reports_reads=reports_reads,
)
