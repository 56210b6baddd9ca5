"""The Anthropic Messages adapter (also Bedrock InvokeModel and Vertex rawPredict bodies)."""

from __future__ import annotations

import functools
from typing import Any, Mapping, cast

from cachelint.payloads.model import Block, Breakpoint
from cachelint.payloads.providers.builder import Builder, is_empty_text, text_block
from cachelint.payloads.providers.canonical import ttl_of
from cachelint.payloads.providers.messages import message_blocks
from cachelint.payloads.trace import KnownRun, tools_facts


def adapt(body: Mapping[str, Any], b: Builder) -> dict[str, Any]:
    tools = body.get("tools") if isinstance(body.get("tools"), (list, KnownRun)) else []
    if type(tools) is list and any(type(t) is dict and t.get("defer_loading") is True for t in tools):
        # Tool search: a deferred tool is not part of the prompt prefix; once found, its
        # definition is appended to the history as a tool_reference block (docs/background/prefix-and-invalidation.md#tool-search).
        # Adding, removing or editing deferred tools therefore changes no cached byte.
        tools = [t for t in tools if not (type(t) is dict and t.get("defer_loading") is True)]
    b.cached_run("tools", tools, "", _anthropic_tool, source="tools")
    system = body.get("system")
    if isinstance(system, str):
        system = [text_block(system)]  # rendered as one text block
    if isinstance(system, (list, KnownRun)):
        b.cached_run("system", system, "", _anthropic_system_block, source="system")
    messages = cast(list, body.get("messages")) if isinstance(body.get("messages"), list) else []
    message_blocks(b, messages, "text", source="messages")
    if isinstance(body.get("cache_control"), dict):
        _automatic(b, body["cache_control"])
    tool_choice = body.get("tool_choice")
    disable_parallel = None
    if isinstance(tool_choice, dict) and "disable_parallel_tool_use" in tool_choice:
        disable_parallel = tool_choice.get("disable_parallel_tool_use")
        tool_choice = {k: v for k, v in tool_choice.items() if k != "disable_parallel_tool_use"}
    output_config = cast(dict, body.get("output_config")) if isinstance(body.get("output_config"), dict) else {}
    tool_types = tools_facts(tools)[2]
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


def _anthropic_tool(b: Builder, tool: Any) -> Block:
    name = tool.get("name", tool.get("type", "")) if isinstance(tool, dict) else ""
    block = b.add("tools", tool, str(name))
    b.position += 1
    if isinstance(tool, dict) and "cache_control" in tool:
        b.mark("tools", block.index, None, tool["cache_control"])
    return block


def _anthropic_system_block(b: Builder, item: Any) -> Block:
    block = b.add("system", item, "system")
    b.position += 1
    if isinstance(item, dict) and "cache_control" in item:
        b.mark("system", block.index, None, item["cache_control"], empty=is_empty_text(item))
    return block


def _automatic(b: Builder, marker: Mapping[str, Any]) -> None:
    """Anthropic automatic caching: one breakpoint on the last cacheable block (docs/background/breakpoints-and-ttls.md#anthropic-breakpoints)."""
    for tier in ("messages", "system", "tools"):
        blocks = getattr(b, tier)
        if blocks:
            b.breakpoints.append(
                Breakpoint(
                    tier, blocks[-1].index, None, max(b.position - 1, 0), ttl_of(marker), True, False, dict(marker)
                )
            )
            return


def betas(headers: Mapping[str, str], body: Mapping[str, Any]) -> tuple[str, ...] | None:
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
