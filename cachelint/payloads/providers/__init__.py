"""The providers: one module each (``anthropic``, ``openai_chat``, ``openai_responses``,
``bedrock_converse``, ``gemini``) declaring, at its end, ``PROVIDER``: a ``Provider`` (``provider``)
that says everything cachelint knows about that API — how its request body renders the cached
prefix (``adapt``: tiers of canonical blocks, cache-affecting settings, breakpoints), how a body
without a URL is told to be its, where its response holds the usage and what that usage counts,
the steps the server ran inside a response, what the next request repeats of a response, and the
shape a content-level prompt is rebuilt in. The dated facts about it (URL patterns and own hosts,
what invalidates which tier, limits, prices) are in the packs, keyed by its name and family.
``registry`` holds them all, and the questions asked of every provider at once.

Request shapes: docs/background/request-shapes.md (Anthropic Messages incl. Bedrock InvokeModel
and Vertex bodies, OpenAI Chat Completions and Responses, Bedrock Converse, Gemini
generateContent). Endpoint patterns are data (rules/packs/payloads-providers.yaml).

Canonical bytes (``Block.data``): compact JSON with key order as sent — wire bytes are the truth —
with only the cache markers removed (``cache_control``, ``prompt_cache_breakpoint``, Bedrock
``cachePoint`` blocks), whose moving is not a break (Anthropic's claude-api skill: "diff adjacent payloads with the
cache_control markers stripped"). One normalisation and no other: a string ``system`` or message
``content`` becomes the single text block the provider renders it as, so ``"abc"`` and
``[{"type": "text", "text": "abc"}]`` compare equal.

The modules, from the bottom up: ``canonical`` (canonical bytes, marker TTLs), ``builder`` (the
blocks, offsets and breakpoints an adapter accumulates; the cache of blocks already built),
``messages`` (a history's messages as blocks, shared by the adapters), ``response`` (what every
response shares: server steps counted, marks, failures), ``provider`` (the ``Provider`` type), one
module per provider (and ``openai_usage``, the usage both OpenAI APIs count alike), ``registry``,
``detection`` (which provider a record calls) and ``request`` (``to_request``: detection, the
provider's adapter, the response's facts). The trace a later record replays (``BuildTrace``,
``KnownBlock``, ``KnownRun``, ``ReuseMismatch``) is below them all, in ``cachelint.payloads.trace``,
so that the readers import it without importing a provider.
"""

from __future__ import annotations

from cachelint.payloads.providers.builder import BlockCache
from cachelint.payloads.providers.canonical import canonical_bytes, strip_markers
from cachelint.payloads.providers.detection import ProviderRules, detect, detect_endpoint
from cachelint.payloads.providers.provider import ContentShape, Provider
from cachelint.payloads.providers.registry import PROVIDERS, family_of, provider
from cachelint.payloads.providers.request import to_request
from cachelint.payloads.providers.response import TEXT_MARK, Failure, failure_of, marks_of
from cachelint.payloads.trace import BuildTrace, KnownBlock, KnownRun, ReuseMismatch

__all__ = [
    "PROVIDERS",
    "TEXT_MARK",
    "BlockCache",
    "BuildTrace",
    "ContentShape",
    "Failure",
    "KnownBlock",
    "KnownRun",
    "Provider",
    "ProviderRules",
    "ReuseMismatch",
    "canonical_bytes",
    "detect",
    "detect_endpoint",
    "failure_of",
    "family_of",
    "marks_of",
    "provider",
    "strip_markers",
    "to_request",
]
