"""The Bedrock Converse adapter."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.providers.builder import Builder
from cachelint.payloads.providers.canonical import is_cache_point
from cachelint.payloads.providers.messages import message_blocks


def adapt(body: Mapping[str, Any], b: Builder) -> dict[str, Any]:
    tool_config = cast(dict, body.get("toolConfig")) if isinstance(body.get("toolConfig"), dict) else {}
    tools = cast(list, tool_config.get("tools")) if isinstance(tool_config.get("tools"), list) else []
    for tool in tools:
        if is_cache_point(tool):
            if b.tools:
                b.mark("tools", b.tools[-1].index, None, tool["cachePoint"])
            continue
        spec = tool.get("toolSpec", {}) if isinstance(tool, dict) else {}
        b.add("tools", tool, str(spec.get("name", "")) if isinstance(spec, dict) else "")
        b.position += 1
    system = cast(list, body.get("system")) if isinstance(body.get("system"), list) else []
    for item in system:
        if is_cache_point(item):
            if b.system:
                b.mark("system", b.system[-1].index, None, item["cachePoint"])
            continue
        b.add("system", item, "system")
        b.position += 1
    messages = cast(list, body.get("messages")) if isinstance(body.get("messages"), list) else []
    message_blocks(b, messages, "text", source="messages")
    extra = (
        cast(dict, body.get("additionalModelRequestFields"))
        if isinstance(body.get("additionalModelRequestFields"), dict)
        else {}
    )
    return {
        "tool_choice": tool_config.get("toolChoice"),
        "thinking": extra.get("thinking"),
        "images": b.images,
    }
