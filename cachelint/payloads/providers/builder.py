"""The builder every adapter fills: blocks in render order with their offsets, content positions,
breakpoints, image and citation counts, through the cache of blocks already built (``BlockCache``)
and the trace a later record replays (``cachelint.payloads.trace``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from cachelint.payloads.jsonio import dumps
from cachelint.payloads.model import Block, Breakpoint
from cachelint.payloads.providers.canonical import canonical_bytes, ttl_of
from cachelint.payloads.trace import BuildTrace, KnownBlock, KnownRun, ReuseMismatch, tools_facts


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


@dataclass
class Builder:
    """Accumulates blocks in render order, their offsets and the breakpoints."""

    tools: list[Block] = field(default_factory=list)
    system: list[Block] = field(default_factory=list)
    messages: list[Block] = field(default_factory=list)
    breakpoints: list[Breakpoint] = field(default_factory=list)
    offset: int = 0
    position: int = 0  # content-block positions (the unit of the 20-block lookback)
    cache: BlockCache | None = None
    images: int = (
        0  # image blocks in system and messages (a change invalidates messages, Anthropic's prompt caching docs)
    )
    citations: int = (
        0  # blocks with citations enabled (a toggle invalidates system and messages, Anthropic's prompt caching docs)
    )
    trace: BuildTrace | None = None  # set when the reader keeps the record's bytes for reuse

    def cached(self, tier: str, value: Any, variant: str, build: Callable[["Builder", Any], Block]) -> Block:
        """``build(self, value)`` through the cache: on a hit, replay the block, its positions and
        its breakpoints (positions relative to the block's first one)."""
        return self.cached_entry(tier, value, variant, build)[0]

    def cached_entry(self, tier: str, value: Any, variant: str, build: Callable[["Builder", Any], Block]) -> tuple:
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

    def built_entry(self, value: Any, build: Callable[["Builder", Any], Block]) -> tuple:
        """``build(self, value)`` without the cache, as an entry."""
        start = (self.position, len(self.breakpoints), self.images, self.citations)
        block = build(self, value)
        marks = (
            tuple((bp.position - start[0], bp) for bp in self.breakpoints[start[1] :])
            if len(self.breakpoints) > start[1]
            else ()
        )
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

    def cached_run(
        self, tier: str, values: Any, variant: str, build: Callable[["Builder", Any], Block], source: str = ""
    ) -> None:
        """A whole run of blocks (a tools list, a system list) through the cache in one lookup:
        98% of consecutive requests resend their tools byte for byte. ``source``: the body key the
        run came from, recorded in the trace for reuse by a later record."""
        if type(values) is KnownRun:
            replayed = self._replay_run(tier, values)
            if self.trace is not None and source:
                self.trace.runs[source] = (
                    values
                    if replayed is values.entry
                    else KnownRun(replayed, variant, values.anthropic_tools, values.openai_tools, values.tool_types)
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
            self.trace.runs[source] = KnownRun(entry, variant, *tools_facts(values))

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

    def mark(
        self,
        tier: str,
        block: int,
        part: int | None,
        marker: Any,
        empty: bool = False,
        ttl_default: str = "5m",
        key: str = "cache_control",
    ) -> None:
        if marker is None:
            return  # "cache_control": null (SDKs serialise an unset field so): no breakpoint
        self.breakpoints.append(
            Breakpoint(
                tier=tier,
                block=block,
                part=part,
                position=self.position - 1,
                ttl=ttl_of(marker, ttl_default),
                automatic=False,
                empty=empty,
                marker=dict(marker) if isinstance(marker, dict) else {},
                key=key,
            )
        )


def is_empty_text(block: Any) -> bool:
    return isinstance(block, dict) and "text" in block and isinstance(block.get("text"), str) and not block["text"]


def text_block(text: str, kind: str = "text") -> dict[str, Any]:
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
