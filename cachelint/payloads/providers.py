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
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, cast

from cachelint.payloads.endpoints import Endpoint, EndpointRules
from cachelint.payloads.jsonio import dumps
from cachelint.payloads.model import Block, Breakpoint, Record, Request

PROVIDERS = ("anthropic", "openai-chat", "openai-responses", "bedrock-converse", "gemini")
_MARKER_KEYS = ("cache_control", "prompt_cache_breakpoint")
_MARKER_BYTES = (b'"cache_control"', b'"prompt_cache_breakpoint"', b'"cachePoint"')


# --- canonical bytes --------------------------------------------------------------------------


def strip_markers(value: Any) -> Any:
    """A copy of ``value`` without cache markers (key order kept)."""
    if isinstance(value, dict):
        return {k: strip_markers(v) for k, v in value.items() if k not in _MARKER_KEYS}
    if isinstance(value, list):
        return [strip_markers(v) for v in value if not _is_cache_point(v)]
    return value


def _is_cache_point(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and "cachePoint" in value


def canonical_bytes(value: Any) -> bytes:
    data = dumps(value)
    # _MARKER_BYTES spelled out: three C-level searches, no generator per block
    if b'"cache_control"' in data or b'"prompt_cache_breakpoint"' in data or b'"cachePoint"' in data:
        data = dumps(strip_markers(value))
    return data


def _ttl_of(marker: Any, default: str = "5m") -> str:
    if isinstance(marker, dict) and isinstance(marker.get("ttl"), str):
        return marker["ttl"]
    return default


class BlockCache:
    """Blocks already built, keyed by (tier, offset, index, raw bytes as sent): consecutive requests
    of a session resend the same history, so most blocks of a request were built for the previous
    one. A hit costs one ``dumps`` and a dict lookup instead of walking the block in Python, and the
    hit shares the previous Block object (memory follows unique content). First in, first out
    within a byte budget, so memory stays bounded."""

    def __init__(self, budget: int = 8 * 1024 * 1024) -> None:
        self.budget = budget
        # (built, length, marks, images, citations, size): what put() was given, and its size
        self._entries: dict[tuple, tuple[Any, int, tuple, int, int, int]] = {}
        self._bytes = 0

    def get(self, key: tuple) -> tuple[Any, int, tuple, int, int, int] | None:
        return self._entries.get(key)

    def put(self, key: tuple, value: tuple[Any, int, tuple, int, int], data_size: int) -> None:
        size = len(key[-1]) + data_size + 300  # bytes objects, the key tuple, the entry
        if size > self.budget // 4:
            return
        self._entries[key] = (*value, size)
        self._bytes += size
        while self._bytes > self.budget and self._entries:
            old_key = next(iter(self._entries))
            self._bytes -= self._entries.pop(old_key)[-1]


class KnownBlock:
    """A message the reader did not decode because its raw bytes repeat a message of an earlier
    record (``cachelint.payloads.reuse``): it carries what the adapter built from those bytes then
    (the block-cache entry: block, content positions, breakpoints, images, citations) and the few
    facts provider detection reads from a message. Equal bytes decode to equal values, so replaying
    the entry gives exactly the block a fresh build would."""

    __slots__ = ("entry", "variant", "role", "anthropic_content", "converse_content")

    def __init__(self, entry: tuple, variant: str, role: Any, anthropic_content: bool, converse_content: bool) -> None:
        self.entry = entry
        self.variant = variant
        self.role = role
        self.anthropic_content = anthropic_content
        self.converse_content = converse_content


class KnownRun:
    """A whole ``tools`` (or ``system``) value not decoded for the same reason: the run entry of
    its blocks and the facts detection and settings read from a tools list."""

    __slots__ = ("entry", "variant", "anthropic_tools", "openai_tools", "tool_types")

    def __init__(self, entry: tuple, variant: str, anthropic_tools: bool, openai_tools: bool, tool_types: tuple[str, ...]) -> None:
        self.entry = entry
        self.variant = variant
        self.anthropic_tools = anthropic_tools
        self.openai_tools = openai_tools
        self.tool_types = tool_types


class ReuseMismatch(Exception):
    """A replayed entry does not fit this request (another provider or text variant): the caller
    decodes the record in full instead."""


@dataclass
class BuildTrace:
    """What the adapter built from the reusable parts of one body, in the form a later record
    with the same bytes can replay: ``runs`` by body key (``tools``, ``functions``, ``system``),
    ``history`` one KnownBlock per element of the ``history_key`` array, in order, with the blocks
    appended for them, the running sums after each element (content positions, images, citations,
    breakpoints so far) and the breakpoints (position relative to the history's first one): a
    prefix of k elements replays with two slices instead of k calls.
    ``reuse_from``: set by the reader, (the trace of an earlier record, k) when this body's
    history starts with that record's first k elements; consumed (cleared) by the adapter."""

    provider: str | None = None
    runs: dict[str, KnownRun] = field(default_factory=dict)
    history_key: str | None = None
    history_variant: str | None = None
    history: list[KnownBlock] = field(default_factory=list)
    history_blocks: list[Block] = field(default_factory=list)
    history_sums: list[tuple[int, int, int, int]] = field(default_factory=list)
    history_marks: list[tuple[int, Breakpoint]] = field(default_factory=list)
    reuse_from: tuple["BuildTrace", int] | None = field(default=None, repr=False)

    def start_history(self, key: str, variant: str) -> None:
        self.history_key = key
        self.history_variant = variant
        self.history = []
        self.history_blocks = []
        self.history_sums = []
        self.history_marks = []

    def add_history(self, entry: tuple, variant: str, message: Any) -> None:
        block, positions, marks, images, citations = entry[:5]
        before = self.history_sums[-1] if self.history_sums else (0, 0, 0, 0)
        for rel, bp in marks:
            self.history_marks.append((before[0] + rel, bp))
        self.history_sums.append((before[0] + positions, before[1] + images, before[2] + citations, len(self.history_marks)))
        self.history_blocks.append(block)
        self.history.append(_known_message(entry, variant, message))


def _tools_facts(values: Any) -> tuple[bool, bool, tuple[str, ...]]:
    if type(values) is KnownRun:
        return values.anthropic_tools, values.openai_tools, values.tool_types
    types = tuple(str(t.get("type", "")) for t in values if isinstance(t, dict)) if isinstance(values, list) else ()
    return _anthropic_tools(values), _openai_tools(values), types


def _known_message(entry: tuple, variant: str, message: Any) -> KnownBlock:
    if type(message) is KnownBlock:
        return message if message.entry is entry else KnownBlock(entry, variant, message.role, message.anthropic_content, message.converse_content)
    role = message.get("role") if isinstance(message, dict) else None
    return KnownBlock(entry, variant, role, _anthropic_content([message]), _converse_content([message]))


@dataclass
class _Builder:
    """Accumulates blocks in render order, their offsets and the breakpoints."""

    tools: list[Block] = field(default_factory=list)
    system: list[Block] = field(default_factory=list)
    messages: list[Block] = field(default_factory=list)
    breakpoints: list[Breakpoint] = field(default_factory=list)
    offset: int = 0
    position: int = 0  # content-block positions (the unit of the 20-block lookback)
    cache: BlockCache | None = None
    images: int = 0  # image blocks in system and messages (a change invalidates messages, Anthropic's prompt caching docs)
    citations: int = 0  # blocks with citations enabled (a toggle invalidates system and messages, Anthropic's prompt caching docs)
    trace: BuildTrace | None = None  # set when the reader keeps the record's bytes for reuse

    def cached(self, tier: str, value: Any, variant: str, build: Callable[["_Builder", Any], Block]) -> Block:
        """``build(self, value)`` through the cache: on a hit, replay the block, its positions and
        its breakpoints (positions relative to the block's first one)."""
        return self.cached_entry(tier, value, variant, build)[0]

    def cached_entry(self, tier: str, value: Any, variant: str, build: Callable[["_Builder", Any], Block]) -> tuple:
        """``cached`` returning the whole entry (block, positions, marks, images, citations, …)."""
        if type(value) is KnownBlock:
            return self.replay(tier, value.entry, value.variant, variant)
        if self.cache is None:
            return self.built_entry(value, build)
        blocks = getattr(self, tier)
        key = (tier, variant, self.offset, len(blocks), dumps(value))
        hit = self.cache.get(key)
        if hit is not None:
            self.append_hit(blocks, hit)
            return hit
        start = (self.position, len(self.breakpoints), self.images, self.citations)
        block = build(self, value)
        marks = tuple((bp.position - start[0], bp) for bp in self.breakpoints[start[1] :])
        entry = (block, self.position - start[0], marks, self.images - start[2], self.citations - start[3])
        self.cache.put(key, entry, len(block.data))
        return (*entry, 0)

    def append_hit(self, blocks: list, hit: tuple) -> None:
        """Append a cached entry's block at the current position: its offset, its breakpoints
        (relative positions made absolute) and its image and citation counts."""
        block, positions, marks, images, citations = hit[:5]
        blocks.append(block)
        self.offset += len(block.data)
        if marks:
            self.breakpoints.extend(replace(bp, position=self.position + rel) for rel, bp in marks)
        self.position += positions
        self.images += images
        self.citations += citations

    def built_entry(self, value: Any, build: Callable[["_Builder", Any], Block]) -> tuple:
        """``build(self, value)`` without the cache, as an entry."""
        start = (self.position, len(self.breakpoints), self.images, self.citations)
        block = build(self, value)
        marks = tuple((bp.position - start[0], bp) for bp in self.breakpoints[start[1] :]) if len(self.breakpoints) > start[1] else ()
        return (block, self.position - start[0], marks, self.images - start[2], self.citations - start[3], 0)

    def replay(self, tier: str, entry: tuple, entry_variant: str, variant: str) -> tuple:
        """Append a block built earlier from the same bytes. Its tier index is the same (what came
        before it in its tier is byte-identical too); its offset moves when an earlier tier changed
        length, which happens when the body sends its messages before its tools."""
        if entry_variant != variant:
            raise ReuseMismatch(f"{tier} built as {entry_variant!r}, needed as {variant!r}")
        block = entry[0]
        blocks = getattr(self, tier)
        if block.offset != self.offset or block.index != len(blocks) or block.tier != tier:
            block = Block(tier, len(blocks), block.data, block.name, self.offset)
            entry = (block, *entry[1:])
        self.append_hit(blocks, entry)
        return entry

    def cached_run(self, tier: str, values: Any, variant: str, build: Callable[["_Builder", Any], Block], source: str = "") -> None:
        """A whole run of blocks (a tools list, a system list) through the cache in one lookup:
        98% of consecutive requests resend their tools byte for byte. ``source``: the body key the
        run came from, recorded in the trace for reuse by a later record."""
        if type(values) is KnownRun:
            replayed = self._replay_run(tier, values)
            if self.trace is not None and source:
                self.trace.runs[source] = values if replayed is values.entry else KnownRun(
                    replayed, variant, values.anthropic_tools, values.openai_tools, values.tool_types
                )
            return
        blocks = getattr(self, tier)
        start = (self.position, len(self.breakpoints), self.images, self.citations, len(blocks), self.offset)
        hit = None
        key: tuple = ()
        if self.cache is not None:
            key = (tier + "*", variant, self.offset, len(blocks), dumps(values))
            hit = self.cache.get(key)
        if hit is not None:
            self._append_run(blocks, hit)  # the key holds tier, offset and index: no shift to make
            entry: tuple = hit
        else:
            for value in values:
                self.cached(tier, value, variant, build)
            run = tuple(blocks[start[4] :])
            marks = tuple((bp.position - start[0], bp) for bp in self.breakpoints[start[1] :])
            entry = (run, self.position - start[0], marks, self.images - start[2], self.citations - start[3])
            if self.cache is not None:
                self.cache.put(key, entry, sum(len(b.data) for b in run))
        if self.trace is not None and source:
            self.trace.runs[source] = KnownRun(entry, variant, *_tools_facts(values))

    def _replay_run(self, tier: str, known: KnownRun) -> tuple:
        entry = known.entry
        run = entry[0]
        blocks = getattr(self, tier)
        if run and (run[0].offset != self.offset or run[0].index != len(blocks) or run[0].tier != tier):
            shift = self.offset - run[0].offset
            run = tuple(Block(tier, len(blocks) + i, b.data, b.name, b.offset + shift) for i, b in enumerate(run))
            entry = (run, *entry[1:])
        self._append_run(blocks, entry)
        return entry

    def _append_run(self, blocks: list, entry: tuple) -> None:
        """Append a run entry's blocks at the current position: the offset moves past them, their
        breakpoints' relative positions become absolute, image and citation counts add up."""
        run, positions, marks, images, citations = entry[:5]
        blocks.extend(run)
        self.offset = run[-1].end if run else self.offset
        if marks:
            self.breakpoints.extend(replace(bp, position=self.position + rel) for rel, bp in marks)
        self.position += positions
        self.images += images
        self.citations += citations

    def add(self, tier: str, value: Any, name: str = "") -> Block:
        blocks = getattr(self, tier)
        block = Block(tier, len(blocks), canonical_bytes(value), name, self.offset)
        blocks.append(block)
        self.offset += len(block.data)
        if tier != "tools":
            self.images += _count_images(block.data)
            self.citations += b'"citations":{"enabled":true' in block.data
        return block

    def mark(self, tier: str, block: int, part: int | None, marker: Any, empty: bool = False, ttl_default: str = "5m") -> None:
        if marker is None:
            return  # "cache_control": null (SDKs serialise an unset field so): no breakpoint
        self.breakpoints.append(
            Breakpoint(
                tier=tier,
                block=block,
                part=part,
                position=self.position - 1,
                ttl=_ttl_of(marker, ttl_default),
                automatic=False,
                empty=empty,
                marker=dict(marker) if isinstance(marker, dict) else {},
            )
        )


def _is_empty_text(block: Any) -> bool:
    return isinstance(block, dict) and "text" in block and isinstance(block.get("text"), str) and not block["text"]


# --- detection --------------------------------------------------------------------------------


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


def _role(message: Any) -> Any:
    if type(message) is KnownBlock:
        return message.role
    return message.get("role") if isinstance(message, dict) else None


def _provider_from_body(body: Mapping[str, Any]) -> str | None:
    """The provider from the body's shape alone (a bare-body JSONL log has no URL)."""
    if isinstance(body.get("contents"), list):
        return "gemini"
    messages = body.get("messages")
    if isinstance(messages, list):
        if "toolConfig" in body or "inferenceConfig" in body or _converse_content(messages):
            return "bedrock-converse"
        if "anthropic_version" in body or "system" in body or _anthropic_tools(body.get("tools")):
            return "anthropic"
        if any(_role(m) in ("system", "developer", "tool") for m in messages):
            return "openai-chat"
        if _openai_tools(body.get("tools")) or "response_format" in body or "prompt_cache_key" in body:
            return "openai-chat"
        if _anthropic_content(messages) or str(body.get("model", "")).startswith("claude"):
            return "anthropic"
        if "model" in body:
            return "openai-chat"
        return None
    inp = body.get("input")
    if "instructions" in body or "previous_response_id" in body or (
        isinstance(inp, list) and any(isinstance(i, dict) and ("type" in i or "role" in i) for i in inp)
    ):
        return "openai-responses"
    if isinstance(inp, str) and "model" in body and "encoding_format" not in body and "dimensions" not in body:
        return "openai-responses"
    return None


def _converse_content(messages: list) -> bool:
    for m in messages[:4]:
        if type(m) is KnownBlock:
            if m.converse_content:
                return True
            continue
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and content and isinstance(content[0], dict):
            first = content[0]
            if "type" not in first and any(k in first for k in ("text", "toolUse", "toolResult", "image", "cachePoint")):
                return True
    return False


def _anthropic_content(messages: list) -> bool:
    for m in messages:
        if type(m) is KnownBlock:
            if m.anthropic_content:
                return True
            continue
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result", "thinking", "document") for b in content
        ):
            return True
    return False


def _anthropic_tools(tools: Any) -> bool:
    if type(tools) is KnownRun:
        return tools.anthropic_tools
    return isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools)


def _openai_tools(tools: Any) -> bool:
    if type(tools) is KnownRun:
        return tools.openai_tools
    return isinstance(tools, list) and any(isinstance(t, dict) and t.get("type") == "function" for t in tools)


# --- the adapters -----------------------------------------------------------------------------


def to_request(record: Record, rules: ProviderRules, cache: BlockCache | None = None) -> Request | None:
    """The normalised request of a record, or None when it is not an LLM call. When the reader
    keeps the record's bytes for reuse (``record.trace``), the adapter fills that trace; when the
    body holds parts the reader did not decode (KnownRun / KnownBlock), they are replayed, and a
    part that does not fit raises ReuseMismatch (the caller then decodes the record in full)."""
    found = detect_endpoint(record, rules)
    if found is None:
        return None
    provider, endpoint = found
    url_model = endpoint.model
    body = record.request
    adapter = _ADAPTERS[provider]
    trace = record.trace if isinstance(record.trace, BuildTrace) else None
    if trace is not None:
        if trace.provider is not None and trace.provider != provider:
            raise ReuseMismatch(f"bytes reused from a {trace.provider} request in a {provider} request")
        trace.provider = provider
    builder = _Builder(cache=cache, trace=trace)
    try:
        settings = adapter(body, builder)
    finally:
        if trace is not None:
            trace.reuse_from = None  # never keep a chain of earlier traces alive
    model = body.get("model") if isinstance(body.get("model"), str) else url_model
    settings = {"model": model, **settings}
    if provider == "anthropic":
        betas = _anthropic_betas(record.headers, body)
        if betas is not None:
            settings["betas"] = betas
    response = record.response if isinstance(record.response, dict) else {}
    usage = _usage_of(provider, response)
    server_steps = _server_steps(provider, response) if usage is not None else 0
    diagnostics_present = "diagnostics" in response
    return Request(
        provider=provider,
        model=model,
        tools=tuple(builder.tools),
        system=tuple(builder.system),
        messages=tuple(builder.messages),
        origin=record.origin,
        settings=settings,
        breakpoints=tuple(builder.breakpoints),
        usage=usage,
        server_steps=server_steps,
        cache_diagnostics=response.get("diagnostics") if diagnostics_present else None,
        has_cache_diagnostics=diagnostics_present,
        time=record.time,
        response_id=response.get("id") if isinstance(response.get("id"), str) else None,
        previous_response_id=body.get("previous_response_id") if isinstance(body.get("previous_response_id"), str) else None,
        side_call=endpoint.side_call,
        host=endpoint.host,
        response_marks=response_marks(provider, response),
    )


def _anthropic_betas(headers: Mapping[str, str], body: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The set of beta features a request turned on: the ``anthropic-beta`` header (a comma list)
    and, on Bedrock InvokeModel, the body's ``anthropic_beta`` list; sorted, because Anthropic's cache diagnostics compares
    the set. None when there is none, or no header was captured (a log of bodies only)."""
    names: set[str] = set()
    header = headers.get("anthropic-beta") if headers else None
    if isinstance(header, str):
        names.update(part.strip() for part in header.split(","))
    listed = body.get("anthropic_beta")
    if isinstance(listed, list):
        names.update(item.strip() for item in listed if isinstance(item, str))
    elif isinstance(listed, str):
        names.update(part.strip() for part in listed.split(","))
    names.discard("")
    return tuple(sorted(names)) if names else None


# What the provider executed inside one response: each step fed its result back to the model in
# another internal call, and the usage adds those calls up. OpenAI Responses output items (recorded:
# a 40-token prompt with one web search reports 9,299 input and 8,448 cached tokens; a
# code_interpreter turn reports twice the input of the next, longer, single-call turn); Anthropic
# content blocks, whose ``usage.server_tool_use`` counts web searches and fetches but not code
# execution (recorded: two bash_code_execution steps, server_tool_use all 0, 20,443 tokens read by
# a request whose follow-up, a longer prompt, read 14,714). Client-executed items and tool_use
# blocks end the response instead.
_SERVER_ITEMS = frozenset(
    ("web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools")
)
_SERVER_BLOCKS = frozenset(("server_tool_use", "mcp_tool_use"))


def _server_steps(provider: str, response: Mapping[str, Any]) -> int:
    if provider == "openai-responses":
        items, kinds = response.get("output"), _SERVER_ITEMS
    elif provider == "anthropic":
        items, kinds = response.get("content"), _SERVER_BLOCKS
    else:
        return 0
    if not isinstance(items, list):
        return 0
    steps = 0
    for item in items:
        if type(item) is dict:
            kind = item.get("type")
            if kind in kinds or (kind == "tool_search_call" and item.get("execution") == "server"):
                steps += 1
    return steps


# What a request that carries this response on sends again: the ids of the calls and items the
# response made (a tool call answered by the next request names its id), and the start of its
# text. A session's next request that holds one of them replays this response: it is the same
# conversation even when nothing else (tools, system) shows it.
_MARK_TEXT_CHARS = 120
_MAX_MARKS = 8


def response_marks(provider: str, response: Mapping[str, Any]) -> tuple[bytes, ...]:
    """Byte strings the next request of the conversation repeats: ``"id"`` JSON strings of the
    response's tool calls and output items, then (last, and only when the response has text) the
    JSON-escaped start of its text, which counts only inside an assistant turn (a tool may return
    another call's text: ``sessions.replays_response``)."""
    ids: list[str] = []
    texts: list[str] = []
    if provider == "openai-chat":
        choices = response.get("choices")
        message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        if isinstance(message, dict):
            for call in message.get("tool_calls") or ():
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    ids.append(call["id"])
            if isinstance(message.get("content"), str):
                texts.append(message["content"])
    elif provider == "openai-responses":
        for item in response.get("output") or ():
            if not isinstance(item, dict):
                continue
            for key in ("call_id", "id"):
                if isinstance(item.get(key), str):
                    ids.append(item[key])
            for part in item.get("content") or ():
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
    elif provider == "anthropic":
        for part in response.get("content") or ():
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("id"), str):
                ids.append(part["id"])
            elif part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
    elif provider == "bedrock-converse":
        output = response.get("output")
        message = output.get("message") if isinstance(output, dict) else None
        for part in (message.get("content") if isinstance(message, dict) else None) or ():
            if isinstance(part, dict) and isinstance(part.get("toolUse"), dict) and isinstance(part["toolUse"].get("toolUseId"), str):
                ids.append(part["toolUse"]["toolUseId"])
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    marks = [dumps(i) for i in ids if len(i) >= 8][:_MAX_MARKS]
    for text in texts:
        start = text.strip()[:_MARK_TEXT_CHARS]
        if len(start) >= 16:  # a short answer ("OK", "4") is no evidence of anything
            marks.append(TEXT_MARK + dumps(start)[1:-1])
            break
    return tuple(marks)


TEXT_MARK = b"\x00text:"  # the prefix of a response mark that is text, not an id


@dataclass(frozen=True)
class Failure:
    """A request the provider rejected: the HTTP status and the error message it answered (the
    first 240 characters, anything shaped like a credential masked), or "" when it gave none."""

    status: int
    message: str = ""


_CREDENTIAL_LIKE = re.compile(r"\b(sk|pk|rk|ak)-[A-Za-z0-9_\-]{6,}|[A-Za-z0-9+/_\-]{32,}")
_MAX_ERROR_CHARS = 240


def failure_of(status: int, response: Any) -> Failure:
    """The Failure of a rejected request from its error body: Anthropic's and OpenAI's
    ``{"error": {"message"}}``, Bedrock's ``{"message"}``, Gemini's ``{"error": {"message"}}``."""
    message = ""
    if isinstance(response, dict):
        error = response.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
        elif isinstance(error, str):
            message = error
        elif isinstance(response.get("message"), str):
            message = response["message"]
    message = _CREDENTIAL_LIKE.sub("…", " ".join(message.split()))
    if len(message) > _MAX_ERROR_CHARS:
        message = message[: _MAX_ERROR_CHARS - 1] + "…"
    return Failure(status, message)


def _usage_of(provider: str, response: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if provider == "gemini":
        usage = response.get("usageMetadata")
    elif provider == "bedrock-converse":
        usage = response.get("usage")
        if usage is None and isinstance(response.get("metadata"), dict):
            usage = response["metadata"].get("usage")
    else:
        usage = response.get("usage")
    return usage if isinstance(usage, dict) else None


def _text_block(text: str, kind: str = "text") -> dict[str, Any]:
    return {"type": kind, "text": text}


_IMAGE_MARKS = (
    b'"type":"image"',  # Anthropic
    b'"type":"image_url"',  # OpenAI Chat
    b'"type":"input_image"',  # OpenAI Responses
    b'{"image":{',  # Bedrock Converse
    b'"mimeType":"image/',  # Gemini inlineData / fileData
    b'"mime_type":"image/',
)


def _count_images(data: bytes) -> int:
    """Image blocks in one block's canonical bytes (a C-level scan, done once per distinct block
    instead of walking every decoded structure of every request)."""
    if b"image" not in data:
        return 0
    return sum(data.count(mark) for mark in _IMAGE_MARKS)


# Anthropic Messages (also Bedrock InvokeModel and Vertex rawPredict bodies) ---------------------


def _anthropic(body: Mapping[str, Any], b: _Builder) -> dict[str, Any]:
    tools = body.get("tools") if isinstance(body.get("tools"), (list, KnownRun)) else []
    if type(tools) is list and any(type(t) is dict and t.get("defer_loading") is True for t in tools):
        # Tool search: a deferred tool is not part of the prompt prefix; once found, its
        # definition is appended to the history as a tool_reference block (docs/background/prefix-and-invalidation.md#tool-search).
        # Adding, removing or editing deferred tools therefore changes no cached byte.
        tools = [t for t in tools if not (type(t) is dict and t.get("defer_loading") is True)]
    b.cached_run("tools", tools, "", _anthropic_tool, source="tools")
    system = body.get("system")
    if isinstance(system, str):
        system = [_text_block(system)]  # rendered as one text block
    if isinstance(system, (list, KnownRun)):
        b.cached_run("system", system, "", _anthropic_system_block, source="system")
    messages = cast(list, body.get("messages")) if isinstance(body.get("messages"), list) else []
    _message_blocks(b, messages, "text", source="messages")
    if isinstance(body.get("cache_control"), dict):
        _automatic(b, body["cache_control"])
    tool_choice = body.get("tool_choice")
    disable_parallel = None
    if isinstance(tool_choice, dict) and "disable_parallel_tool_use" in tool_choice:
        disable_parallel = tool_choice.get("disable_parallel_tool_use")
        tool_choice = {k: v for k, v in tool_choice.items() if k != "disable_parallel_tool_use"}
    output_config = cast(dict, body.get("output_config")) if isinstance(body.get("output_config"), dict) else {}
    tool_types = _tools_facts(tools)[2]
    return {
        "tool_choice": tool_choice,
        "disable_parallel_tool_use": disable_parallel,
        "thinking": body.get("thinking"),
        "effort": output_config.get("effort"),
        "web_search": _has_tool_type(tool_types, "web_search"),
        "web_fetch": _has_tool_type(tool_types, "web_fetch"),
        "citations": b.citations > 0,
        "speed": body.get("speed"),
        "images": b.images,
        "context_management": body.get("context_management"),
        "output_format": body.get("output_format"),
    }


@functools.lru_cache(maxsize=256)
def _has_tool_type(tool_types: tuple[str, ...], prefix: str) -> bool:
    """Whether a server tool of that family is present (the same few tool lists every request)."""
    return any(t.startswith(prefix) for t in tool_types)


def _anthropic_tool(b: _Builder, tool: Any) -> Block:
    name = tool.get("name", tool.get("type", "")) if isinstance(tool, dict) else ""
    block = b.add("tools", tool, str(name))
    b.position += 1
    if isinstance(tool, dict) and "cache_control" in tool:
        b.mark("tools", block.index, None, tool["cache_control"])
    return block


def _anthropic_system_block(b: _Builder, item: Any) -> Block:
    block = b.add("system", item, "system")
    b.position += 1
    if isinstance(item, dict) and "cache_control" in item:
        b.mark("system", block.index, None, item["cache_control"], empty=_is_empty_text(item))
    return block


def _message_block(b: _Builder, message: Any, text_kind: str, history: bool = False) -> Block:
    """One message as a block (string content as its single text block); breakpoints on its parts.
    ``history``: the message is an element of the body's history array (recorded in the trace)."""
    if history and b.trace is not None and type(message) is not KnownBlock:
        # a record read with reuse: its repeated messages come as KnownBlocks, so the few decoded
        # ones are new and the block cache (a dumps per message) would only miss
        entry = b.built_entry(message, lambda builder, m: _build_message_block(builder, m, text_kind))
    else:
        entry = b.cached_entry("messages", message, text_kind, lambda builder, m: _build_message_block(builder, m, text_kind))
    if history and b.trace is not None:
        b.trace.add_history(entry, text_kind, message)
    return entry[0]


def _message_blocks(b: _Builder, messages: list, text_kind: str, source: str = "") -> None:
    """Every message of a history: ``_message_block`` in a loop, with the cache hit (the common
    case: the history was sent before) inlined because it runs once per message per request.
    ``source``: the body key of the history array (recorded in the trace for reuse)."""
    cache = b.cache
    trace = b.trace if source else None
    if trace is not None:
        trace.start_history(source, text_kind)
        start = _replay_history_prefix(b, trace, messages, source, text_kind)
        for message in messages[start:] if start else messages:
            _message_block(b, message, text_kind, history=True)
        return
    if cache is None:
        for message in messages:
            _message_block(b, message, text_kind)
        return
    entries = cache._entries
    out = b.messages
    for message in messages:
        if type(message) is KnownBlock:
            b.replay("messages", message.entry, message.variant, text_kind)
            continue
        hit = entries.get(("messages", text_kind, b.offset, len(out), dumps(message)))
        if hit is None:
            _message_block(b, message, text_kind)
            continue
        b.append_hit(out, hit)


def _replay_history_prefix(b: _Builder, trace: BuildTrace, messages: list, source: str, text_kind: str) -> int:
    """Replay the first k messages at once when they are the first k elements of an earlier
    record's history (the reader found their bytes repeated): the earlier blocks, breakpoints and
    sums, by slicing. Returns k (0 when nothing was replayed)."""
    found, trace.reuse_from = trace.reuse_from, None
    if found is None or b.messages:
        return 0
    earlier, k = found
    if (
        k <= 0
        or earlier.history_key != source
        or earlier.history_variant != text_kind
        or len(earlier.history) < k
        or len(messages) < k
        or messages[:k] != earlier.history[:k]  # the very KnownBlocks (identity, at C speed)
    ):
        return 0
    blocks = earlier.history_blocks[:k]
    if blocks[0].offset != b.offset:  # an earlier tier changed length: same blocks, moved
        shift = b.offset - blocks[0].offset
        blocks = [Block("messages", i, x.data, x.name, x.offset + shift) for i, x in enumerate(blocks)]
    b.messages.extend(blocks)
    b.offset = blocks[-1].end
    positions, images, citations, mark_count = earlier.history_sums[k - 1]
    marks = earlier.history_marks[:mark_count]
    if marks:
        b.breakpoints.extend(replace(bp, position=b.position + rel) for rel, bp in marks)
    b.position += positions
    b.images += images
    b.citations += citations
    trace.history = earlier.history[:k]
    trace.history_blocks = blocks
    trace.history_sums = earlier.history_sums[:k]
    trace.history_marks = marks
    return k


_TEXT_PART_KEYS = frozenset(("type", "text", *_MARKER_KEYS))


def _text_parts_in_order(content: list) -> list:
    """``content`` with every plain text part written type first (``{"type", "text"}``), as the
    single text block of a string content is: the order of a text part's two keys never reaches
    the prompt the provider renders (it renders the text), and a client that sends a part marked
    (``{"text", "type", "cache_control"}``) and later the same text as a string (the marker moved
    on) sends the same prompt. Anything but such a part is kept as sent."""
    out = None
    for i, part in enumerate(content):
        if (
            type(part) is dict
            and "text" in part
            and next(iter(part)) != "type"
            and isinstance(part.get("type"), str)
            and part.keys() <= _TEXT_PART_KEYS
        ):
            if out is None:
                out = list(content)
            out[i] = {"type": part["type"], "text": part["text"], **{k: v for k, v in part.items() if k in _MARKER_KEYS}}
    return content if out is None else out


def _build_message_block(b: _Builder, message: Any, text_kind: str) -> Block:
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        role = message.get("role")
        kind = text_kind if text_kind != "input_text" or role != "assistant" else "output_text"
        message = {k: ([_text_block(v, kind)] if k == "content" else v) for k, v in message.items()}
    elif isinstance(message, dict) and isinstance(message.get("content"), list):
        ordered = _text_parts_in_order(message["content"])
        if ordered is not message["content"]:
            message = {k: (ordered if k == "content" else v) for k, v in message.items()}
    role = str(message.get("role", message.get("type", ""))) if isinstance(message, dict) else ""
    block = b.add("messages", message, role)
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for part_index, part in enumerate(content):
            if _is_cache_point(part):
                if part_index:
                    b.mark("messages", block.index, part_index - 1, part["cachePoint"])
                continue
            b.position += 1
            if isinstance(part, dict):
                for key in _MARKER_KEYS:
                    if key in part:
                        b.mark("messages", block.index, part_index, part[key], empty=_is_empty_text(part))
    else:
        b.position += 1
        if isinstance(message, dict) and "cache_control" in message:
            b.mark("messages", block.index, None, message["cache_control"])
    return block


def _automatic(b: _Builder, marker: Mapping[str, Any]) -> None:
    """Anthropic automatic caching: one breakpoint on the last cacheable block (docs/background/breakpoints-and-ttls.md#anthropic-breakpoints)."""
    for tier in ("messages", "system", "tools"):
        blocks = getattr(b, tier)
        if blocks:
            b.breakpoints.append(
                Breakpoint(tier, blocks[-1].index, None, max(b.position - 1, 0), _ttl_of(marker), True, False, dict(marker))
            )
            return


# OpenAI Chat Completions ----------------------------------------------------------------------


def _openai_chat(body: Mapping[str, Any], b: _Builder) -> dict[str, Any]:
    source = "tools" if isinstance(body.get("tools"), (list, KnownRun)) else "functions"
    tools = body.get(source)
    if isinstance(tools, (list, KnownRun)):
        b.cached_run("tools", tools, "chat", _openai_chat_tool, source=source)
    messages = cast(list, body.get("messages")) if isinstance(body.get("messages"), list) else []
    _history_after_system_messages(b, messages, "text", "messages")
    _openai_options(body, b)
    return {
        "tool_choice": body.get("tool_choice"),
        "response_format": body.get("response_format"),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "prompt_cache_retention": body.get("prompt_cache_retention"),
        "effort": body.get("reasoning_effort"),
        "images": b.images,
    }


# Roles whose leading messages are the system prompt (OpenAI Chat messages, Responses input).
_SYSTEM_ROLES = ("system", "developer")


def _history_after_system_messages(b: _Builder, messages: list, text_kind: str, source: str) -> None:
    """A history whose leading system/developer messages are the system prompt (OpenAI Chat's
    messages, Responses' input): those go to the system tier — same bytes, same offsets — so that
    two conversations of one agent differ in their messages, not in their system prompt (and
    are two sessions, not one rewritten history)."""
    leading = 0
    for message in messages:
        if _role(message) in _SYSTEM_ROLES:
            leading += 1
        else:
            break
    if b.trace is not None:
        b.trace.start_history(source, text_kind)
        b.trace.reuse_from = None  # the system messages move tiers: replayed one by one
    for i, message in enumerate(messages):
        if i < leading:
            block = _message_block(b, message, text_kind, history=True)
            # move the block into the system tier (same bytes, same offset)
            b.messages.pop()
            moved = Block("system", len(b.system), block.data, "system", block.offset)
            b.system.append(moved)
            b.breakpoints = [
                Breakpoint("system", moved.index, bp.part, bp.position, bp.ttl, bp.automatic, bp.empty, bp.marker)
                if bp.tier == "messages" and bp.block == block.index
                else bp
                for bp in b.breakpoints
            ]
        else:
            _message_block(b, message, text_kind, history=True)


def _openai_chat_tool(b: _Builder, tool: Any) -> Block:
    fn = tool.get("function", tool) if isinstance(tool, dict) else {}
    block = b.add("tools", tool, str(fn.get("name", "")) if isinstance(fn, dict) else "")
    b.position += 1
    if isinstance(tool, dict) and "cache_control" in tool:
        # OpenRouter passes a Chat tool's cache_control on to Anthropic models, which cache the
        # prefix up to that tool (its Anthropic prompt caching guide)
        b.mark("tools", block.index, None, tool["cache_control"])
    return block


def _openai_responses_tool(b: _Builder, tool: Any) -> Block:
    block = b.add("tools", tool, str(tool.get("name", tool.get("type", ""))) if isinstance(tool, dict) else "")
    b.position += 1
    return block


def _openai_options(body: Mapping[str, Any], b: _Builder) -> None:
    options = body.get("prompt_cache_options")
    if isinstance(options, dict) and options.get("mode", "implicit") == "implicit" and b.messages:
        # GPT-5.6+ implicit mode puts a breakpoint on the latest message (docs/background/prefix-and-invalidation.md#openai)
        b.breakpoints.append(
            Breakpoint("messages", b.messages[-1].index, None, max(b.position - 1, 0), _ttl_of(options, "30m"), True, False, dict(options))
        )


# OpenAI Responses ---------------------------------------------------------------------------


def _openai_responses(body: Mapping[str, Any], b: _Builder) -> dict[str, Any]:
    tools = body.get("tools")
    if isinstance(tools, (list, KnownRun)):
        b.cached_run("tools", tools, "responses", _openai_responses_tool, source="tools")
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        b.add("system", _text_block(instructions, "input_text"), "instructions")
        b.position += 1
    inp = body.get("input")
    items = [{"role": "user", "content": inp}] if isinstance(inp, str) else inp if isinstance(inp, list) else []
    chained = isinstance(body.get("previous_response_id"), str)
    if isinstance(inp, list) and items and _role(items[0]) in _SYSTEM_ROLES and not chained:
        # as Chat's system messages. Not in a chained request: its input is appended after the
        # conversation held server-side, so a system message there is history, not a prefix
        _history_after_system_messages(b, items, "input_text", "input")
    else:
        _message_blocks(b, items, "input_text", source="input" if isinstance(inp, list) else "")
    _openai_options(body, b)
    text = cast(dict, body.get("text")) if isinstance(body.get("text"), dict) else {}
    reasoning = cast(dict, body.get("reasoning")) if isinstance(body.get("reasoning"), dict) else {}
    return {
        "tool_choice": body.get("tool_choice"),
        "response_format": text.get("format"),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "prompt_cache_retention": body.get("prompt_cache_retention"),
        "effort": reasoning.get("effort"),
        "images": b.images,
    }


# Bedrock Converse ---------------------------------------------------------------------------


def _converse(body: Mapping[str, Any], b: _Builder) -> dict[str, Any]:
    tool_config = cast(dict, body.get("toolConfig")) if isinstance(body.get("toolConfig"), dict) else {}
    tools = cast(list, tool_config.get("tools")) if isinstance(tool_config.get("tools"), list) else []
    for tool in tools:
        if _is_cache_point(tool):
            if b.tools:
                b.mark("tools", b.tools[-1].index, None, tool["cachePoint"])
            continue
        spec = tool.get("toolSpec", {}) if isinstance(tool, dict) else {}
        b.add("tools", tool, str(spec.get("name", "")) if isinstance(spec, dict) else "")
        b.position += 1
    system = cast(list, body.get("system")) if isinstance(body.get("system"), list) else []
    for item in system:
        if _is_cache_point(item):
            if b.system:
                b.mark("system", b.system[-1].index, None, item["cachePoint"])
            continue
        b.add("system", item, "system")
        b.position += 1
    messages = cast(list, body.get("messages")) if isinstance(body.get("messages"), list) else []
    _message_blocks(b, messages, "text", source="messages")
    extra = cast(dict, body.get("additionalModelRequestFields")) if isinstance(body.get("additionalModelRequestFields"), dict) else {}
    return {
        "tool_choice": tool_config.get("toolChoice"),
        "thinking": extra.get("thinking"),
        "images": b.images,
    }


# Gemini generateContent ---------------------------------------------------------------------


def _gemini(body: Mapping[str, Any], b: _Builder) -> dict[str, Any]:
    tools = cast(list, body.get("tools")) if isinstance(body.get("tools"), list) else []
    for tool in tools:
        decls = tool.get("functionDeclarations", tool.get("function_declarations")) if isinstance(tool, dict) else None
        if isinstance(decls, list) and len(tool) == 1:
            for decl in decls:  # one block per function so that a reorder is visible as such
                b.add("tools", decl, str(decl.get("name", "")) if isinstance(decl, dict) else "")
                b.position += 1
        else:
            b.add("tools", tool, next(iter(tool), "") if isinstance(tool, dict) else "")
            b.position += 1
    system = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(system, str):
        system = {"parts": [{"text": system}]}
    if isinstance(system, dict):
        parts = system.get("parts")
        for part in parts if isinstance(parts, list) else [system]:
            b.add("system", part, "system")
            b.position += 1
    contents = cast(list, body.get("contents")) if isinstance(body.get("contents"), list) else []
    for content in contents:
        block = b.add("messages", content, str(content.get("role", "")) if isinstance(content, dict) else "")
        parts = content.get("parts") if isinstance(content, dict) else None
        b.position += len(parts) if isinstance(parts, list) and parts else 1
        del block
    generation = cast(dict, body.get("generationConfig")) if isinstance(body.get("generationConfig"), dict) else {}
    response_format = {
        k: generation[k] for k in ("responseMimeType", "responseSchema", "responseJsonSchema") if k in generation
    } or None
    return {
        "tool_choice": body.get("toolConfig"),
        "cached_content": body.get("cachedContent"),
        "response_format": response_format,
        "thinking": generation.get("thinkingConfig"),
        "images": b.images,
    }


_ADAPTERS = {
    "anthropic": _anthropic,
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "bedrock-converse": _converse,
    "gemini": _gemini,
}
