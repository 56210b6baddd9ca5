"""The Gemini generateContent adapter."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.providers.builder import Builder


def adapt(body: Mapping[str, Any], b: Builder) -> dict[str, Any]:
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
