"""Gemini ``generateContent`` (Google AI and Vertex AI): everything cachelint knows about the API,
declared at the end (``PROVIDER``). Request shape: docs/background/request-shapes.md#gemini-generatecontent."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.cache_usage import CacheUsage, UsageFields, token_count
from cachelint.payloads.content import Part, arguments_value, result_text
from cachelint.payloads.providers.builder import Builder
from cachelint.payloads.providers.provider import ContentShape, Provider

NAME = "gemini"


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


def claims_body(body: Mapping[str, Any]) -> bool:
    """A ``contents`` list (Gemini's history)."""
    return isinstance(body.get("contents"), list)


# The names observability tools give Gemini's APIs (gen_ai.provider.name / gen_ai.system…).
_LABELS = ("gcp.gemini", "gcp.vertex_ai", "gemini", "google", "vertex")


def names_it(label: str, model: str) -> bool:
    return any(n in label for n in _LABELS) or model.startswith("gemini")


# --- what its response says -------------------------------------------------------------------


def response_usage(response: Mapping[str, Any]) -> Any:
    return response.get("usageMetadata")


def is_response(value: Mapping[str, Any]) -> bool:
    return "candidates" in value and "usageMetadata" in value


# --- how its usage counts the prompt ------------------------------------------------------------


def read_usage(usage: Mapping[str, Any]) -> CacheUsage:
    """``promptTokenCount`` INCLUDES ``cachedContentTokenCount`` (snake case in the Python SDK's
    dumps); implicit caching bills no write (docs/background/usage-and-pricing.md#gemini-usage)."""
    prompt = token_count(usage.get("promptTokenCount", usage.get("prompt_token_count")))
    read = min(prompt, token_count(usage.get("cachedContentTokenCount", usage.get("cached_content_token_count"))))
    output = token_count(usage.get("candidatesTokenCount", usage.get("candidates_token_count")))
    return CacheUsage(provider="gemini", uncached=prompt - read, read=read, output=output)


def reports_reads(usage: Mapping[str, Any]) -> bool:
    """Gemini leaves ``cachedContentTokenCount`` out when nothing was read: its absence is a 0."""
    return True


USAGE = UsageFields(
    family="gemini",
    tells=("promptTokenCount", "prompt_token_count"),
    read=read_usage,
    reports_reads=reports_reads,
)


# --- a content-level prompt in its shape ----------------------------------------------------------


def content_tools(tools: list[dict[str, Any]]) -> list[Any]:
    """One tool holding every function (one block per function: ``adapt``)."""
    return [
        {
            "functionDeclarations": [
                {"name": t["name"], "description": t["description"], "parameters": t["parameters"]} for t in tools
            ]
        }
    ]


def content_messages(role: str, parts: list[Part]) -> list[dict[str, Any]]:
    out: list[Any] = []
    for p in parts:
        if p.kind == "text":
            out.append({"text": p.text})
        elif p.kind == "tool_call":
            out.append({"functionCall": {"name": str(p.name or ""), "args": arguments_value(p.arguments)}})
        elif p.kind == "tool_result":
            out.append(
                {
                    "functionResponse": {
                        "name": str(p.name or p.id or ""),
                        "response": {"content": result_text(p.value)},
                    }
                }
            )
        else:
            out.append(p.value)
    return [{"role": "model" if role in ("assistant", "model", "ai") else "user", "parts": out}]


def content_prompt(system: list[str], messages: list[dict[str, Any]]) -> dict[str, Any]:
    if not system:
        return {"contents": messages}
    return {"systemInstruction": {"parts": [{"text": s} for s in system]}, "contents": messages}


def content_usage(prompt: int, uncached: int, read: int, written: int, output: int | None) -> dict[str, Any]:
    return {
        "usageMetadata": {
            "promptTokenCount": prompt,
            "cachedContentTokenCount": read,
            **({"candidatesTokenCount": output} if output is not None else {}),
        }
    }


PROVIDER = Provider(
    name=NAME,
    title="Gemini generateContent",
    family="gemini",
    usage=USAGE,
    adapt=adapt,
    claims_body=claims_body,
    response_usage=response_usage,
    is_response=is_response,
    names_it=names_it,
    content=ContentShape(tools=content_tools, messages=content_messages, prompt=content_prompt, usage=content_usage),
)
