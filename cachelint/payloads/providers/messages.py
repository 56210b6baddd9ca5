"""A history's messages as blocks, shared by the adapters whose bodies carry ``messages`` or
``input`` (Anthropic, OpenAI Chat and Responses, Bedrock Converse): string content as its single
text block, breakpoints on the parts, the cache hit inlined, a prefix of an earlier record's
history replayed by slicing; the leading system messages of OpenAI's histories moved to the system
tier; OpenAI's implicit breakpoint."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from cachelint.payloads.jsonio import dumps
from cachelint.payloads.model import Block, Breakpoint
from cachelint.payloads.providers.builder import Builder, is_empty_text, text_block
from cachelint.payloads.providers.canonical import MARKER_DEFAULT_TTL, MARKER_KEYS, is_cache_point, ttl_of
from cachelint.payloads.trace import BuildTrace, KnownBlock, role_of


def message_block(b: Builder, message: Any, text_kind: str, history: bool = False) -> Block:
    """One message as a block (string content as its single text block); breakpoints on its parts.
    ``history``: the message is an element of the body's history array (recorded in the trace)."""
    if history and b.trace is not None and type(message) is not KnownBlock:
        # a record read with reuse: its repeated messages come as KnownBlocks, so the few decoded
        # ones are new and the block cache (a dumps per message) would only miss
        entry = b.built_entry(message, lambda builder, m: _build_message_block(builder, m, text_kind))
    else:
        entry = b.cached_entry(
            "messages", message, text_kind, lambda builder, m: _build_message_block(builder, m, text_kind)
        )
    if history and b.trace is not None:
        b.trace.add_history(entry, text_kind, message)
    return entry[0]


def message_blocks(b: Builder, messages: list, text_kind: str, source: str = "") -> None:
    """Every message of a history: ``message_block`` in a loop, with the cache hit (the common
    case: the history was sent before) inlined because it runs once per message per request.
    ``source``: the body key of the history array (recorded in the trace for reuse)."""
    cache = b.cache
    trace = b.trace if source else None
    if trace is not None:
        trace.start_history(source, text_kind)
        start = _replay_history_prefix(b, trace, messages, source, text_kind)
        for message in messages[start:] if start else messages:
            message_block(b, message, text_kind, history=True)
        return
    if cache is None:
        for message in messages:
            message_block(b, message, text_kind)
        return
    entries = cache._entries
    out = b.messages
    for message in messages:
        if type(message) is KnownBlock:
            b.replay("messages", message.entry, message.variant, text_kind)
            continue
        hit = entries.get(("messages", text_kind, b.offset, len(out), dumps(message)))
        if hit is None:
            message_block(b, message, text_kind)
            continue
        b.append_hit(out, hit)


def _replay_history_prefix(b: Builder, trace: BuildTrace, messages: list, source: str, text_kind: str) -> int:
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


_TEXT_PART_KEYS = frozenset(("type", "text", *MARKER_KEYS))


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
            out[i] = {"type": part["type"], "text": part["text"], **{k: v for k, v in part.items() if k in MARKER_KEYS}}
    return content if out is None else out


def _build_message_block(b: Builder, message: Any, text_kind: str) -> Block:
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        role = message.get("role")
        kind = text_kind if text_kind != "input_text" or role != "assistant" else "output_text"
        message = {k: ([text_block(v, kind)] if k == "content" else v) for k, v in message.items()}
    elif isinstance(message, dict) and isinstance(message.get("content"), list):
        ordered = _text_parts_in_order(message["content"])
        if ordered is not message["content"]:
            message = {k: (ordered if k == "content" else v) for k, v in message.items()}
    role = str(message.get("role", message.get("type", ""))) if isinstance(message, dict) else ""
    block = b.add("messages", message, role)
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for part_index, part in enumerate(content):
            if is_cache_point(part):
                if part_index:
                    b.mark("messages", block.index, part_index - 1, part["cachePoint"], key="cachePoint")
                continue
            b.position += 1
            if isinstance(part, dict):
                for key in MARKER_KEYS:
                    if key in part:
                        b.mark(
                            "messages",
                            block.index,
                            part_index,
                            part[key],
                            empty=is_empty_text(part),
                            ttl_default=MARKER_DEFAULT_TTL[key],
                            key=key,
                        )
    else:
        b.position += 1
        if isinstance(message, dict) and "cache_control" in message:
            b.mark("messages", block.index, None, message["cache_control"])
    return block


# Roles whose leading messages are the system prompt (OpenAI Chat messages, Responses input).
SYSTEM_ROLES = ("system", "developer")


def history_after_system_messages(b: Builder, messages: list, text_kind: str, source: str) -> None:
    """A history whose leading system/developer messages are the system prompt (OpenAI Chat's
    messages, Responses' input): those go to the system tier — same bytes, same offsets — so that
    two conversations of one agent differ in their messages, not in their system prompt (and
    are two sessions, not one rewritten history)."""
    leading = 0
    for message in messages:
        if role_of(message) in SYSTEM_ROLES:
            leading += 1
        else:
            break
    if b.trace is not None:
        b.trace.start_history(source, text_kind)
        b.trace.reuse_from = None  # the system messages move tiers: replayed one by one
    for i, message in enumerate(messages):
        if i < leading:
            block = message_block(b, message, text_kind, history=True)
            # move the block into the system tier (same bytes, same offset)
            b.messages.pop()
            moved = Block("system", len(b.system), block.data, "system", block.offset)
            b.system.append(moved)
            b.breakpoints = [
                replace(bp, tier="system", block=moved.index)
                if bp.tier == "messages" and bp.block == block.index
                else bp
                for bp in b.breakpoints
            ]
        else:
            message_block(b, message, text_kind, history=True)


def openai_implicit_breakpoint(body: Mapping[str, Any], b: Builder) -> None:
    """OpenAI Chat and Responses: the breakpoint ``prompt_cache_options`` in implicit mode puts."""
    options = body.get("prompt_cache_options")
    if isinstance(options, dict) and options.get("mode", "implicit") == "implicit" and b.messages:
        # GPT-5.6+ implicit mode puts a breakpoint on the latest message (docs/background/prefix-and-invalidation.md#openai)
        b.breakpoints.append(
            Breakpoint(
                "messages",
                b.messages[-1].index,
                None,
                max(b.position - 1, 0),
                ttl_of(options, "30m"),
                True,
                False,
                dict(options),
            )
        )
