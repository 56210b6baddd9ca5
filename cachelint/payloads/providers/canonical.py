"""Canonical bytes of a block: compact JSON with key order as sent, the cache markers removed
(``cache_control``, ``prompt_cache_breakpoint``, Bedrock ``cachePoint`` blocks), and the TTL a
marker asks for."""

from __future__ import annotations

from typing import Any

from cachelint.payloads.jsonio import dumps

MARKER_KEYS = ("cache_control", "prompt_cache_breakpoint")
# The TTL of a marker that names none: Anthropic's cache_control 5 minutes; OpenAI's
# prompt_cache_breakpoint takes prompt_cache_options.ttl, whose default (and only value) is 30m
# (docs/background/breakpoints-and-ttls.md#openai-retention-and-breakpoints)
MARKER_DEFAULT_TTL = {"cache_control": "5m", "prompt_cache_breakpoint": "30m"}
MARKER_BYTES = (b'"cache_control"', b'"prompt_cache_breakpoint"', b'"cachePoint"')


def strip_markers(value: Any) -> Any:
    """A copy of ``value`` without cache markers (key order kept)."""
    if isinstance(value, dict):
        return {k: strip_markers(v) for k, v in value.items() if k not in MARKER_KEYS}
    if isinstance(value, list):
        return [strip_markers(v) for v in value if not is_cache_point(v)]
    return value


def is_cache_point(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and "cachePoint" in value


def canonical_bytes(value: Any) -> bytes:
    data = dumps(value)
    # MARKER_BYTES spelled out: three C-level searches, no generator per block
    if b'"cache_control"' in data or b'"prompt_cache_breakpoint"' in data or b'"cachePoint"' in data:
        data = dumps(strip_markers(value))
    return data


def ttl_of(marker: Any, default: str = "5m") -> str:
    if isinstance(marker, dict) and isinstance(marker.get("ttl"), str):
        return marker["ttl"]
    return default
