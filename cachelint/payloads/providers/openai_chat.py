"""OpenAI Chat Completions (and the chat APIs that copy it: a gateway's, Ollama's, Cohere's):
everything cachelint knows about the API, declared at the end (``PROVIDER``). Request shape:
docs/background/request-shapes.md#openai-chat-completions."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.content import Part, arguments_text, result_text
from cachelint.payloads.model import Block
from cachelint.payloads.providers import openai_usage
from cachelint.payloads.providers.builder import Builder
from cachelint.payloads.providers.messages import history_after_system_messages, openai_implicit_breakpoint
from cachelint.payloads.providers.provider import ContentShape, Provider, unix_time_field
from cachelint.payloads.trace import KnownRun, has_openai_tools, role_of

NAME = "openai-chat"


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
        # GPT-5.6+: where breakpoints come from and their TTL; not part of the prefix's key (it says
        # which prefixes are written), read by CL305
        "prompt_cache_options": body.get("prompt_cache_options"),
        # part of the cache key: reuse needs "compatible request settings, including the model, service
        # tier, and tools" (OpenAI's prompt cache diagnostics guide)
        "service_tier": body.get("service_tier"),
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


# --- which requests are OpenAI Chat's -------------------------------------------------------------

_CHAT_ROLES = ("system", "developer", "tool")


def claims_body(body: Mapping[str, Any]) -> bool:
    """Messages with a role only Chat's history has (system, developer, tool), function tools, or
    a setting of its own (``response_format``, ``prompt_cache_key``)."""
    messages = body.get("messages")
    return isinstance(messages, list) and (
        any(role_of(m) in _CHAT_ROLES for m in messages)
        or has_openai_tools(body.get("tools"))
        or "response_format" in body
        or "prompt_cache_key" in body
    )


def hints_body(body: Mapping[str, Any]) -> bool:
    """Messages and a model: the shape most APIs copy."""
    return isinstance(body.get("messages"), list) and "model" in body


# --- what its response says -------------------------------------------------------------------


def response_usage(response: Mapping[str, Any]) -> Any:
    return response.get("usage")


def response_marks(response: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The ids of the first choice's tool calls and its text."""
    ids: list[str] = []
    texts: list[str] = []
    choices = response.get("choices")
    message = (
        choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    )
    if isinstance(message, dict):
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                ids.append(call["id"])
        if isinstance(message.get("content"), str):
            texts.append(message["content"])
    return ids, texts


def is_response(value: Mapping[str, Any]) -> bool:
    return value.get("object") in ("chat.completion", "chat.completion.chunk")


# --- a content-level prompt in its shape (the one a tool's label names when it names no other) ----


def content_tools(tools: list[dict[str, Any]]) -> list[Any]:
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]},
        }
        for t in tools
    ]


def content_messages(role: str, parts: list[Part]) -> list[dict[str, Any]]:
    """One message, and one ``tool`` message per tool result (Chat gives each its own)."""
    role = {"ai": "assistant", "model": "assistant", "human": "user"}.get(role, role)
    texts = [p.text for p in parts if p.kind == "text"]
    others = [p.value for p in parts if p.kind == "other"]
    calls = [p for p in parts if p.kind == "tool_call"]
    results = [p for p in parts if p.kind == "tool_result"]
    out: list[dict[str, Any]] = []
    if texts or others or calls or not results:
        message: dict[str, Any] = {"role": role}
        if others:
            message["content"] = [{"type": "text", "text": t} for t in texts] + others
        else:
            message["content"] = "".join(texts) if texts or not calls else None
        if calls:
            message["tool_calls"] = [
                {
                    "id": str(c.id or ""),
                    "type": "function",
                    "function": {"name": str(c.name or ""), "arguments": arguments_text(c.arguments)},
                }
                for c in calls
            ]
        out.append(message)
    for r in results:
        out.append({"role": "tool", "tool_call_id": str(r.id or ""), "content": result_text(r.value)})
    return out


def content_prompt(system: list[str], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The system texts as leading system messages."""
    return {"messages": [{"role": "system", "content": s} for s in system] + messages}


def content_usage(prompt: int, uncached: int, read: int, written: int, output: int | None) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": prompt, "prompt_tokens_details": {"cached_tokens": read}}
    if output is not None:
        usage["completion_tokens"] = output
    return {"usage": usage}


CONTENT = ContentShape(tools=content_tools, messages=content_messages, prompt=content_prompt, usage=content_usage)

PROVIDER = Provider(
    name=NAME,
    title="OpenAI Chat Completions",
    family="openai",
    usage=openai_usage.USAGE,
    adapt=adapt,
    claims_body=claims_body,
    hints_body=hints_body,
    response_usage=response_usage,
    response_marks=response_marks,
    is_response=is_response,
    endpoint="https://api.openai.com/v1/chat/completions",
    content=CONTENT,
    response_time=unix_time_field("created"),  # the response object's `created` (OpenAI API reference)
)
