"""Provider adapters: a ``Record`` -> a normalised ``Request`` (tiers of canonical blocks,
cache-affecting settings, breakpoints, usage), or None when the record is not an LLM call.

Request shapes: docs/background/request-shapes.md (Anthropic Messages incl. Bedrock InvokeModel and Vertex
bodies, OpenAI Chat Completions and Responses, Bedrock Converse, Gemini generateContent). Endpoint
patterns are data (rules/packs/payloads-providers.yaml).

Canonical bytes (``Block.data``): compact JSON with key order as sent — wire bytes are the truth —
with only the cache markers removed (``cache_control``, ``prompt_cache_breakpoint``, Bedrock
``cachePoint`` blocks), whose moving is not a break (Anthropic's claude-api skill: "diff adjacent payloads with the
cache_control markers stripped"). One normalisation and no other: a string ``system`` or message
``content`` becomes the single text block the provider renders it as, so ``"abc"`` and
``[{"type": "text", "text": "abc"}]`` compare equal.

The modules, from the bottom up: ``canonical`` (canonical bytes, marker TTLs), ``builder`` (the
blocks, offsets and breakpoints an adapter accumulates; the cache of blocks already built),
``messages`` (a history's messages as blocks, shared by the adapters), ``detection`` (which
provider a record calls), ``response`` (usage, server steps, response marks, failures), one
adapter per provider (``anthropic``, ``openai_chat``, ``openai_responses``, ``bedrock_converse``,
``gemini``: ``adapt(body, builder) -> settings``) and ``request`` (``to_request``: detection, the
adapter, the response's facts). The trace a later record replays (``BuildTrace``, ``KnownBlock``,
``KnownRun``, ``ReuseMismatch``) is below them all, in ``cachelint.payloads.trace``, so that the
readers import it without importing an adapter.
"""

from __future__ import annotations

from cachelint.payloads.providers.builder import BlockCache
from cachelint.payloads.providers.canonical import canonical_bytes, strip_markers
from cachelint.payloads.providers.detection import ProviderRules, detect, detect_endpoint
from cachelint.payloads.providers.request import PROVIDERS, to_request
from cachelint.payloads.providers.response import TEXT_MARK, Failure, failure_of, response_marks
from cachelint.payloads.trace import BuildTrace, KnownBlock, KnownRun, ReuseMismatch

__all__ = [
    "PROVIDERS",
    "TEXT_MARK",
    "BlockCache",
    "BuildTrace",
    "Failure",
    "KnownBlock",
    "KnownRun",
    "ProviderRules",
    "ReuseMismatch",
    "canonical_bytes",
    "detect",
    "detect_endpoint",
    "failure_of",
    "response_marks",
    "strip_markers",
    "to_request",
]
