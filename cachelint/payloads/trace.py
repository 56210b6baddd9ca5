"""What a provider adapter built from the reusable parts of one request body, in the form a later
record with the same bytes replays (``cachelint.payloads.reuse``): the parts the reader did not
decode (``KnownBlock``, ``KnownRun``), the trace of one body (``BuildTrace``), and the few facts of
a message or a tools list that provider detection reads, from decoded and known parts alike.

Below the adapters: the readers import it without importing any adapter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cachelint.payloads.model import Block, Breakpoint


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

    def __init__(
        self, entry: tuple, variant: str, anthropic_tools: bool, openai_tools: bool, tool_types: tuple[str, ...]
    ) -> None:
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
        self.history_sums.append(
            (before[0] + positions, before[1] + images, before[2] + citations, len(self.history_marks))
        )
        self.history_blocks.append(block)
        self.history.append(known_message(entry, variant, message))


def tools_facts(values: Any) -> tuple[bool, bool, tuple[str, ...]]:
    if type(values) is KnownRun:
        return values.anthropic_tools, values.openai_tools, values.tool_types
    types = tuple(str(t.get("type", "")) for t in values if isinstance(t, dict)) if isinstance(values, list) else ()
    return has_anthropic_tools(values), has_openai_tools(values), types


def known_message(entry: tuple, variant: str, message: Any) -> KnownBlock:
    if type(message) is KnownBlock:
        return (
            message
            if message.entry is entry
            else KnownBlock(entry, variant, message.role, message.anthropic_content, message.converse_content)
        )
    role = message.get("role") if isinstance(message, dict) else None
    return KnownBlock(entry, variant, role, has_anthropic_content([message]), has_converse_content([message]))


def role_of(message: Any) -> Any:
    if type(message) is KnownBlock:
        return message.role
    return message.get("role") if isinstance(message, dict) else None


def has_converse_content(messages: list) -> bool:
    for m in messages[:4]:
        if type(m) is KnownBlock:
            if m.converse_content:
                return True
            continue
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and content and isinstance(content[0], dict):
            first = content[0]
            if "type" not in first and any(
                k in first for k in ("text", "toolUse", "toolResult", "image", "cachePoint")
            ):
                return True
    return False


def has_anthropic_content(messages: list) -> bool:
    for m in messages:
        if type(m) is KnownBlock:
            if m.anthropic_content:
                return True
            continue
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result", "thinking", "document")
            for b in content
        ):
            return True
    return False


def has_anthropic_tools(tools: Any) -> bool:
    if type(tools) is KnownRun:
        return tools.anthropic_tools
    return isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools)


def has_openai_tools(tools: Any) -> bool:
    if type(tools) is KnownRun:
        return tools.openai_tools
    return isinstance(tools, list) and any(isinstance(t, dict) and t.get("type") == "function" for t in tools)
