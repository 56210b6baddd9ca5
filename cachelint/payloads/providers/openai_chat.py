"""The OpenAI Chat Completions adapter."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.model import Block
from cachelint.payloads.providers.builder import Builder
from cachelint.payloads.providers.messages import history_after_system_messages, openai_implicit_breakpoint
from cachelint.payloads.trace import KnownRun


def adapt(body: Mapping[str, Any], b: Builder) -> dict[str, Any]:
    source = "tools" if isinstance(body.get("tools"), (list, KnownRun)) else "functions"
    tools = body.get(source)
    if isinstance(tools, (list, KnownRun)):
        b.cached_run("tools", tools, "chat", _openai_chat_tool, source=source)
    messages = cast(list, body.get("messages")) if isinstance(body.get("messages"), list) else []
    history_after_system_messages(b, messages, "text", "messages")
    openai_implicit_breakpoint(body, b)
    return {
        "tool_choice": body.get("tool_choice"),
        "response_format": body.get("response_format"),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "prompt_cache_retention": body.get("prompt_cache_retention"),
        "effort": body.get("reasoning_effort"),
        "images": b.images,
    }


def _openai_chat_tool(b: Builder, tool: Any) -> Block:
    fn = tool.get("function", tool) if isinstance(tool, dict) else {}
    block = b.add("tools", tool, str(fn.get("name", "")) if isinstance(fn, dict) else "")
    b.position += 1
    if isinstance(tool, dict) and "cache_control" in tool:
        # OpenRouter passes a Chat tool's cache_control on to Anthropic models, which cache the
        # prefix up to that tool (its Anthropic prompt caching guide)
        b.mark("tools", block.index, None, tool["cache_control"])
    return block
