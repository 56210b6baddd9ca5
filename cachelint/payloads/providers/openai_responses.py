"""The OpenAI Responses adapter."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.model import Block
from cachelint.payloads.providers.builder import Builder, text_block
from cachelint.payloads.providers.messages import (
    SYSTEM_ROLES,
    history_after_system_messages,
    message_blocks,
    openai_implicit_breakpoint,
)
from cachelint.payloads.trace import KnownRun, role_of


def adapt(body: Mapping[str, Any], b: Builder) -> dict[str, Any]:
    tools = body.get("tools")
    if isinstance(tools, (list, KnownRun)):
        b.cached_run("tools", tools, "responses", _openai_responses_tool, source="tools")
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        b.add("system", text_block(instructions, "input_text"), "instructions")
        b.position += 1
    inp = body.get("input")
    items = [{"role": "user", "content": inp}] if isinstance(inp, str) else inp if isinstance(inp, list) else []
    chained = isinstance(body.get("previous_response_id"), str)
    if isinstance(inp, list) and items and role_of(items[0]) in SYSTEM_ROLES and not chained:
        # as Chat's system messages. Not in a chained request: its input is appended after the
        # conversation held server-side, so a system message there is history, not a prefix
        history_after_system_messages(b, items, "input_text", "input")
    else:
        message_blocks(b, items, "input_text", source="input" if isinstance(inp, list) else "")
    openai_implicit_breakpoint(body, b)
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


def _openai_responses_tool(b: Builder, tool: Any) -> Block:
    block = b.add("tools", tool, str(tool.get("name", tool.get("type", ""))) if isinstance(tool, dict) else "")
    b.position += 1
    return block
