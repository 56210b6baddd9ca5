"""Earlier turns' thinking blocks that the API strips itself (CL303 ``thinking-stripped``).

With extended thinking on, a user turn other than tool results makes the older Opus and Sonnet
models and every Haiku (on Anthropic's API and, the same models, on Bedrock) drop the thinking
blocks of the earlier assistant turns, and the messages from the first of them on drop out of the
cache (docs/background/prefix-and-invalidation.md#anthropic, "Non-tool-result user content while thinking is on"). Opus 4.5+ and Sonnet 4.6+ keep them. Which model does what
is pack data (``thinking_blocks`` in rules/packs/payloads-limits.yaml).

The request bytes only grow, so the byte diff sees nothing: the break is read from the shape of
the pair instead. CL303 reports it once per session; CL308 does not report the same pairs as
unexplained missed reads.
"""

from __future__ import annotations

from typing import Any, Mapping

from cachelint.payloads.diff import common_prefix_blocks
from cachelint.payloads.limits import Limits
from cachelint.payloads.model import Block, Request
from cachelint.payloads.providers.registry import provider

# Blocks are compact JSON with the keys as sent: a thinking block's type reads exactly so (the
# same text inside a string would have its quotes escaped). Bedrock Converse sends them as
# ``reasoningContent`` parts and tool results as ``toolResult`` parts.
_THINKING_TYPES = (b'"type":"thinking"', b'"type":"redacted_thinking"', b'"reasoningContent":')


def thinking_on(req: Request) -> bool:
    thinking = req.settings.get("thinking")
    return isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive")


def stripped_from(prev: Request, cur: Request, limits: Limits) -> int | None:
    """The index of the first message that drops out of the cache at ``cur`` because the API
    strips earlier thinking blocks, or None when that does not happen (or cannot be known: a
    model the pack does not name).

    On a model that strips them, a request is rendered without the thinking blocks of the
    assistant turns before its last user turn (a user message with content other than tool
    results) and with those after it (a tool loop keeps them). ``prev`` cached the thinking blocks
    after its last user turn; when ``cur`` brings a new user turn they are rendered no more, and
    the cache breaks at the first of them."""
    declared = provider(cur.provider)
    if declared is None or not declared.thinking_blocks or not thinking_on(cur) or not cur.messages:
        return None
    kept = len(prev.messages)
    if len(cur.messages) <= kept or common_prefix_blocks(prev.messages, cur.messages) < kept:
        return None  # nothing appended, or the history was rewritten (CL303 proper)
    verdict = limits.keeps_thinking(cur.provider, cur.model)
    if verdict is None or verdict[0]:
        return None
    before, now = last_user_turn(prev), last_user_turn(cur)
    if now <= before:
        return None  # a tool loop goes on: the thinking blocks stay
    for block in prev.messages[before + 1 : now]:
        if block.name == "assistant" and _carries_thinking(block):
            return block.index
    return None


def last_user_turn(req: Request) -> int:
    """Index of the last message that is a user turn (content other than tool results), -1 when
    none. Read from the end: a tool loop is a few messages long, a history may be thousands."""
    memo = req.memo.get("last_user_turn")
    if memo is not None:
        return memo
    found = -1
    for block in reversed(req.messages):
        if block.name == "user" and _user_turn(block):
            found = block.index
            break
    req.memo["last_user_turn"] = found
    return found


def _carries_thinking(block: Block) -> bool:
    data = block.data
    return (b"thinking" in data or b"reasoningContent" in data) and any(t in data for t in _THINKING_TYPES)


def _user_turn(block: Block) -> bool:
    if b'"tool_result"' not in block.data and b'"toolResult"' not in block.data:
        return True
    message: Any = block.raw
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return content is not None
    return any(not _tool_result(part) for part in content)


def _tool_result(part: Any) -> bool:
    return isinstance(part, dict) and (part.get("type") == "tool_result" or "toolResult" in part)
