"""The nouns of the payload audit: what readers produce, what provider adapters normalise requests
into, how sessions group them and what the prefix diff of a consecutive pair says.

Data flow::

    reader ─► Record(origin, raw bodies) ─► provider adapter ─► Request(tiers of Blocks, settings,
    breakpoints, usage) ─► Session ─► PrefixDiff per consecutive pair ─► checks (CL3xx)

Everything here is small, JSON-light and free of provider knowledge: provider facts live in the
adapters (``cachelint.payloads.providers``) and in dated packs (``rules/packs/payloads-*.yaml``).

The *rendered prefix* of a request is the concatenation, without separators, of the canonical bytes
of its blocks in render order: every tools block, then every system block, then every messages block
(Anthropic's render order, docs/background/prefix-and-invalidation.md#render-order). Byte offset 0 is the first byte of the first
tool. Offsets in diagnostics always refer to that rendering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

# How much of the wire request a record keeps, from most to least (Record.fidelity).
FIDELITIES: tuple[str, ...] = ("wire", "content", "usage")

# Render order of the prompt prefix: a change in one tier invalidates it and every later tier.
TIERS: tuple[str, ...] = ("tools", "system", "messages")
_TIER_NAMES = frozenset(TIERS)


@dataclass(frozen=True)
class Origin:
    """Where a record came from.

    ``path``: the display path of the log file (as given, relative to the working directory); for a
    member of a directory, the path of that member. ``line``: 1-based line of the record (JSONL line;
    for HAR, JSON and cassettes the line where the entry starts when it could be found, else 1).
    ``record``: 0-based index of the record in its file, in file order (before any sorting by time).
    ``entry``: index of the HAR entry / cassette interaction / JSON list item; None for JSONL.
    """

    path: str
    line: int = 1
    record: int = 0
    entry: int | None = None

    def describe(self) -> str:
        """Human location: ``log.jsonl:12``, ``session.har entry 3``, ``c.yaml interaction 2``."""
        if self.entry is None:
            return f"{self.path}:{self.line}"
        return f"{self.path} #{self.entry} (line {self.line})"


@dataclass
class Record:
    """One captured exchange as a reader found it, before any provider interpretation.

    ``request``: the parsed request body (normally a dict); None when the body was absent.
    ``response``: the parsed response body; for server-sent events, a dict assembled from the
    events (see ``cachelint.payloads.sse``); None when absent or unparseable.
    ``time``: when the request was sent (timezone-aware when the source says so), or None.
    ``url`` / ``method``: as captured (secret query parameters already removed), or None.
    ``headers`` / ``response_headers``: lower-cased names -> value, secrets already dropped.
    ``session``: an explicit session id given by the envelope (``{"session": ...}``, or another of
    ``readers.SESSION_FIELDS``), or None; ``session_field``: the envelope field it came from.
    ``envelope``: the envelope object the record came from (JSONL and JSON logs), else None: what
    ``--time-field`` reads.
    ``status``: HTTP status of the response, when known.
    ``fmt``: which reader produced it (``jsonl``, ``json``, ``har``, ``vcr``, or the name of a
    log format of ``cachelint.payloads.formats``: ``helicone``, ``otel-genai``…).
    ``fidelity``: how much of the wire request the record keeps (``FIDELITIES``): ``wire`` (the
    body as sent: bytes, key order, cache markers), ``content`` (the prompt re-encoded by an
    observability tool: markers and key order lost), ``usage`` (the usage of each call, not the
    prompt: Claude Code transcripts).
    ``hashed_ids``: personal ids removed from the body, kept only as hashes (dotted body path ->
    ``h:<12 hex>``), e.g. ``{"metadata.user_id": "h:…"}``: usable as session keys, nothing more.
    ``trace``: when the JSONL reader keeps this record's bytes so that a later record repeating
    them is not decoded again (``cachelint.payloads.reuse``), the ``BuildTrace`` the provider
    adapter fills; None otherwise. ``reread``: for a record whose body holds parts that were not
    decoded, a function giving the same record decoded in full (the fallback); None otherwise.
    """

    origin: Origin
    request: Any
    response: Any = None
    time: datetime | None = None
    url: str | None = None
    method: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    response_headers: Mapping[str, str] = field(default_factory=dict)
    session: str | None = None
    status: int | None = None
    fmt: str = "jsonl"
    hashed_ids: Mapping[str, str] = field(default_factory=dict)
    session_field: str | None = None
    envelope: Any = field(default=None, repr=False, compare=False)
    fidelity: str = "wire"
    trace: Any = field(default=None, repr=False, compare=False)
    reread: Any = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Block:
    """One unit of a tier: a tool definition, a system block, or a message.

    ``data``: canonical compact JSON bytes of the block as sent (key order kept), with the cache
    markers removed (``cache_control``, ``cachePoint`` blocks, ``prompt_cache_breakpoint``) and a
    string ``content``/``system`` rendered as the single text block the provider renders it as.
    Two blocks are the same on the wire iff their ``data`` are equal. Identical blocks of
    consecutive requests share one bytes object (interned), so memory follows unique content.
    ``tier``: ``tools`` | ``system`` | ``messages``; ``index``: 0-based position in its tier.
    ``name``: a short label (a tool's name, a message's role) for reports; may be empty.
    ``offset``: byte offset of the block's first byte in the rendered prefix.
    """

    tier: str
    index: int
    data: bytes
    name: str = ""
    offset: int = 0

    @property
    def raw(self) -> Any:
        """The decoded JSON value (markers stripped). Decoded on demand: keep only ``data``."""
        from cachelint.payloads.jsonio import loads

        return loads(self.data)

    @property
    def end(self) -> int:
        return self.offset + len(self.data)


@dataclass(frozen=True)
class Breakpoint:
    """A cache breakpoint found in the request.

    ``tier`` and ``block``: the Block carrying the marker (``block`` indexes that tier).
    ``part``: index of the content block inside a message (or inside a system list that the adapter
    turned into several blocks), None when the marker sits on the block itself.
    ``position``: 0-based index of the marked content block in render order counting every tool, every
    system block and every message content block (Bedrock ``cachePoint`` entries not counted) — the
    unit of Anthropic's 20-block lookback (docs/background/breakpoints-and-ttls.md#lookback-window).
    ``ttl``: ``"5m"`` or ``"1h"`` (or the provider's string, e.g. OpenAI ``"30m"``).
    ``automatic``: True for Anthropic's top-level ``cache_control`` (the API places it on the last
    cacheable block, docs/background/breakpoints-and-ttls.md#anthropic-breakpoints) and OpenAI implicit mode; the position is then the last block.
    ``empty``: the marked block is an empty text block (a 400 on Anthropic).
    ``marker``: the marker as sent, e.g. ``{"type": "ephemeral", "ttl": "1h"}``.
    ``key``: the member that carried it.
    """

    tier: str
    block: int
    part: int | None
    position: int
    ttl: str = "5m"
    automatic: bool = False
    empty: bool = False
    marker: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # the member that carried the marker: ``cache_control`` (Anthropic, and the gateways that pass
    # it on), ``prompt_cache_breakpoint`` (OpenAI GPT-5.6+), ``cachePoint`` (Bedrock)
    key: str = "cache_control"


def seconds_between(earlier: Any, later: Any) -> float | None:
    """Seconds from one request's ``time`` to another's, or None when either has no time or one is
    time zone-aware and the other naive (no honest gap between them)."""
    if earlier.time is None or later.time is None:
        return None
    try:
        return (later.time - earlier.time).total_seconds()
    except TypeError:
        return None


def duration_text(seconds: float) -> str:
    """A pause or a lifetime as findings write it: ``42s``, ``3m20s``, ``1h05m``, ``3 days``."""
    whole = int(seconds)
    if whole >= 2 * 86400:
        return f"{whole // 86400} days"
    if whole >= 3600:
        return f"{whole // 3600}h{(whole % 3600) // 60:02d}m"
    if whole >= 60:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole}s"


@dataclass
class Request:
    """One LLM request, normalised.

    ``provider``: ``anthropic`` (Messages API, also Bedrock InvokeModel and Vertex bodies),
    ``openai-chat``, ``openai-responses``, ``bedrock-converse``, ``gemini``.
    ``model``: model id (from the body, or the URL for Bedrock Converse, Gemini, Vertex), or None.
    ``tools`` / ``system`` / ``messages``: the tiers, in render order, as tuples of Blocks. For
    OpenAI Chat the leading system/developer messages form the ``system`` tier; for Responses,
    ``instructions``; for Gemini, ``systemInstruction``.
    ``settings``: cache-affecting settings, name -> JSON value or None when absent. Names are the
    keys of the invalidation pack (rules/packs/payloads-invalidation.yaml): ``model``,
    ``tool_choice``, ``disable_parallel_tool_use``, ``thinking``, ``effort``, ``web_search``,
    ``citations``, ``speed``, ``images`` (number of image blocks in the prompt), ``betas`` (the set of
    ``anthropic-beta`` headers), ``context_management``, ``output_format``, ``response_format``,
    ``prompt_cache_key``, ``prompt_cache_retention``, ``cached_content``...
    ``breakpoints``: the cache markers, in render order.
    ``usage``: the response's ``usage`` object as sent (``usageMetadata`` for Gemini,
    ``metadata.usage`` / ``usage`` for Bedrock), or None.
    ``server_steps``: tool calls the provider ran inside the response, told by its output (OpenAI
    Responses items ``web_search_call``, ``code_interpreter_call``…; Anthropic ``server_tool_use``
    blocks, code execution included): the usage then adds up the internal model calls
    (``usage.CacheUsage.server_steps``). 0 when none ran.
    ``cache_diagnostics``: the provider's own verdict on a miss, ``{"type", "tokens"}``, read from
    the response (Anthropic's ``diagnostics.cache_miss_reason``, OpenAI's
    ``prompt_cache_diagnostics``: docs/background/usage-and-pricing.md#cache-diagnostics), None
    when it found no divergence; ``has_cache_diagnostics``: the response carried them at all.
    ``time``: when it was sent, or None. ``origin``: where it came from.
    ``response_id``: the response's id (Anthropic ``msg_…``, OpenAI ``resp_…``), or None.
    ``previous_response_id``: OpenAI Responses chaining; the history is then server-side.
    ``session_key``: the explicit session key if one was found (hashed when it came from a
    personal field like ``metadata.user_id``), else None. ``session_key_source`` says where it came
    from (``header x-claude-code-session-id``, ``metadata.user_id (hashed)``, ``prompt_cache_key``,
    ``envelope session``, ``cassette``).
    ``session``: the session id assigned by grouping (set by ``cachelint.payloads.sessions``).
    ``index_in_session``: 0-based position in that session (set by grouping).
    ``side_call``: the kind of an LLM call made beside the conversation, from its endpoint
    (``compaction``: OpenAI's ``/v1/responses/compact``), or None; it is a session of its own.
    ``host``: the URL's host when it is not the provider's own API (a compatible API such as
    Groq or Ollama, a gateway), for reports; None otherwise.
    ``response_marks``: byte strings a request carrying this response on repeats (its tool call
    and item ids, the start of its text: its provider's ``response_marks``): evidence, for grouping,
    that a later request continues this one.
    ``failed``: for a request the provider rejected (HTTP 4xx/5xx), a ``Failure`` (status and the
    provider's error message); such a request takes part in request checks only.
    ``fidelity``: the record's (``wire``, ``content``, ``usage``: see ``Record``); checks that
    need more than a request keeps are not run on it. ``source_format``: the reader that read it.
    ``memo``: what checks derive from the request once and read many times (its normalised
    usage, its breakpoint problems), keyed by the deriving function's name.
    """

    provider: str
    model: str | None
    tools: tuple[Block, ...]
    system: tuple[Block, ...]
    messages: tuple[Block, ...]
    origin: Origin
    settings: Mapping[str, Any] = field(default_factory=dict)
    breakpoints: tuple[Breakpoint, ...] = ()
    usage: Mapping[str, Any] | None = None
    server_steps: int = 0
    cache_diagnostics: Any = None
    has_cache_diagnostics: bool = False
    time: datetime | None = None
    response_id: str | None = None
    previous_response_id: str | None = None
    session_key: str | None = None
    session_key_source: str | None = None
    session: str | None = None
    index_in_session: int = 0
    side_call: str | None = None
    host: str | None = None
    response_marks: tuple[bytes, ...] = ()
    failed: Any = None
    fidelity: str = "wire"
    source_format: str = "jsonl"
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def tier(self, name: str) -> tuple[Block, ...]:
        if name in _TIER_NAMES:  # called for every tier of every pair: an attribute, not a dict built
            return getattr(self, name)
        raise KeyError(name)

    @property
    def prefix_length(self) -> int:
        """Length in bytes of the rendered prefix."""
        last = self.messages or self.system or self.tools
        return last[-1].end if last else 0

    def tier_span(self, name: str) -> tuple[int, int]:
        """(start, end) byte offsets of a tier in the rendered prefix."""
        blocks = self.tier(name)
        if blocks:
            return blocks[0].offset, blocks[-1].end
        start = 0
        for t in TIERS:
            if t == name:
                return start, start
            tb = self.tier(t)
            if tb:
                start = tb[-1].end
        return start, start


@dataclass(frozen=True)
class SettingChange:
    """A cache-affecting setting that differs between two consecutive requests.
    ``invalidates``: the tiers it invalidates per the provider's table (dated pack data).
    ``confirmed``: False for a setting whose effect on the cache is undocumented: ``invalidates``
    are then the tiers it may lose, and the diff does not count them as lost."""

    name: str
    before: Any
    after: Any
    invalidates: tuple[str, ...]
    confirmed: bool = True


@dataclass(frozen=True)
class TierDiff:
    """How one tier differs between the previous and the current request.

    ``kind``: ``reordered`` (same blocks, other order), ``added``, ``removed``, ``changed`` (a block's
    bytes differ), ``key-order`` (blocks equal once keys are sorted), ``appended`` (messages only:
    the old tier is a prefix of the new one, which is not a break), ``truncated`` (messages only: blocks
    dropped at the end).
    ``first_block``: index (in both requests) of the first differing block.
    ``explanation``: human sentences from the structural diff (``tool 'fetch' moved from 3 to 0``).
    ``changes``: structured form of the same (JSON-able list of dicts).
    ``offset``: byte offset (in the current request's rendering) of this tier's first differing byte.
    ``volatile``: when every changed text span of the first changed block looks like a volatile value
    (a timestamp, date, uuid, counter or id; rules/packs/payloads-volatile.yaml), one entry per span
    ``{"pattern", "before", "after"}``; empty otherwise (CL309 reports these instead of CL301/CL302).
    """

    tier: str
    kind: str
    first_block: int
    explanation: tuple[str, ...] = ()
    changes: tuple[Mapping[str, Any], ...] = ()
    volatile: tuple[Mapping[str, Any], ...] = ()
    offset: int | None = None

    @property
    def breaks(self) -> bool:
        """False for a messages tier that only grew (append-only history)."""
        return self.kind != "appended"


@dataclass(frozen=True)
class PrefixDiff:
    """The comparison of a request with the previous request of its session.

    ``first_tier``: the first tier whose bytes differ in a way that breaks the prefix (a messages tier
    that only grew is not a break), or None when the previous rendered prefix is intact.
    ``offset``: byte offset of the first differing byte in the rendered prefix (None when intact).
    ``common_bytes``: length of the common rendered prefix (== ``offset`` when broken, else the
    previous request's whole prefix length).
    ``tiers``: a TierDiff for every tier that differs, in render order (``appended`` included).
    ``settings``: cache-affecting settings that changed, with the tiers each invalidates.
    ``invalidated``: union of the tiers lost, in render order: from ``first_tier`` on, plus what
    setting changes invalidate.
    ``excerpt_before`` / ``excerpt_after``: text around ``offset`` in the previous and current
    rendering (short, secrets were dropped at read time).
    """

    first_tier: str | None
    offset: int | None
    common_bytes: int
    tiers: tuple[TierDiff, ...] = ()
    settings: tuple[SettingChange, ...] = ()
    invalidated: tuple[str, ...] = ()
    excerpt_before: str = ""
    excerpt_after: str = ""

    @property
    def broken(self) -> bool:
        """True when some cached tier of the previous request cannot be reused."""
        return bool(self.invalidated)

    def tier_diff(self, tier: str) -> TierDiff | None:
        for t in self.tiers:
            if t.tier == tier:
                return t
        return None


@dataclass
class Session:
    """Requests grouped as one conversation.

    ``id``: a short stable id (``s1``, ``s2``… in order of first appearance in the run).
    ``grouping``: how it was grouped — ``explicit`` (a session key: ``key_source`` says which),
    ``cassette`` (one recording), ``history`` (inferred: each request's messages extend the previous
    one's), ``response-chain`` (OpenAI ``previous_response_id``), ``single`` (a request that
    continued nothing and was not continued).
    ``requests``: the requests still held, in order (the pipeline may drop old requests' blocks
    once they are no longer needed; counts below stay exact).
    ``count``: number of requests ever added. ``breaks``: number of pairs with a broken prefix.
    ``host``: the first request's ``host`` (a compatible API or gateway), or None.
    ``started``: why the first request started a session rather than continue an open one (empty
    when no open session was a candidate); ``started_after``: where that candidate's last request
    was (``log.jsonl:12``), when one was.
    """

    id: str
    grouping: str
    key: str | None = None
    key_source: str | None = None
    requests: list[Request] = field(default_factory=list)
    count: int = 0
    breaks: int = 0
    provider: str | None = None
    model: str | None = None
    path: str | None = None
    host: str | None = None
    started: str = ""
    started_after: str | None = None
