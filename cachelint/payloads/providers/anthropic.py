"""Anthropic Messages (also Bedrock InvokeModel and Vertex rawPredict bodies): everything cachelint
knows about the API, declared at the end (``PROVIDER``). Request shape:
docs/background/request-shapes.md#anthropic-messages."""

from __future__ import annotations

import functools
from typing import Any, Mapping, cast

from cachelint.payloads.cache_usage import MAPPING, CacheUsage, UsageFields, token_count, ttl_split
from cachelint.payloads.content import Part, arguments_value, result_text
from cachelint.payloads.model import Block, Breakpoint
from cachelint.payloads.providers.builder import Builder, is_empty_text, text_block
from cachelint.payloads.providers.canonical import ttl_of
from cachelint.payloads.providers.messages import message_blocks
from cachelint.payloads.providers.provider import ContentShape, Provider
from cachelint.payloads.providers.response import count_server_items
from cachelint.payloads.trace import KnownRun, has_anthropic_content, has_anthropic_tools, tools_facts

NAME = "anthropic"


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


def header_settings(headers: Mapping[str, str], body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The cache-key settings a request sends outside its body: the beta features it turned on."""
    found = betas(headers, body)
    return {"betas": found} if found is not None else None


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


# --- which requests are Anthropic's -------------------------------------------------------------


def claims_body(body: Mapping[str, Any]) -> bool:
    """Messages with a field only Anthropic's body has: ``anthropic_version`` (Bedrock and Vertex
    bodies), a top-level ``system``, tools with an ``input_schema``."""
    return isinstance(body.get("messages"), list) and (
        "anthropic_version" in body or "system" in body or has_anthropic_tools(body.get("tools"))
    )


def hints_body(body: Mapping[str, Any]) -> bool:
    """Messages with Anthropic's content blocks (tool_use, tool_result, thinking, document), or a
    Claude model."""
    messages = body.get("messages")
    return isinstance(messages, list) and (
        has_anthropic_content(messages) or str(body.get("model", "")).startswith("claude")
    )


# The names observability tools give Anthropic's API (gen_ai.provider.name / gen_ai.system,
# ls_provider…); Claude on Bedrock is named by the platform, so its model says it.
_LABELS = ("anthropic", "claude")


def names_it(label: str, model: str) -> bool:
    return any(n in label for n in _LABELS) or ("bedrock" in label and "claude" in model) or model.startswith("claude")


# --- what its response says -------------------------------------------------------------------

# Content blocks of steps the server executed inside one response: each fed its result back to the
# model in another internal call, and the usage adds those calls up. The usage's own
# ``server_tool_use`` counts web searches and fetches but not code execution (recorded: two
# bash_code_execution steps, server_tool_use all 0, 20,443 tokens read by a request whose
# follow-up, a longer prompt, read 14,714). Client tool_use blocks end the response instead.
_SERVER_BLOCKS = frozenset(("server_tool_use", "mcp_tool_use"))


def response_usage(response: Mapping[str, Any]) -> Any:
    return response.get("usage")


def server_steps(response: Mapping[str, Any]) -> int:
    return count_server_items(response.get("content"), _SERVER_BLOCKS)


def response_marks(response: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The ids of the response's content blocks (tool calls) and its texts."""
    ids: list[str] = []
    texts: list[str] = []
    for part in response.get("content") or ():
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("id"), str):
            ids.append(part["id"])
        elif part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return ids, texts


def is_response(value: Mapping[str, Any]) -> bool:
    return value.get("type") == "message" and value.get("role") == "assistant" and "content" in value


# --- how its usage counts the prompt ------------------------------------------------------------


def read_usage(usage: Mapping[str, Any]) -> CacheUsage:
    """``input_tokens`` counts ONLY the tokens after the last breakpoint; the prompt is
    ``cache_read_input_tokens + cache_creation_input_tokens + input_tokens``. The write is split by
    TTL in ``cache_creation.ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``
    (Anthropic's prompt caching docs, "1-hour cache duration"); ``server_tool_use`` counts the
    web searches and fetches that ran inside the request (docs/background/usage-and-pricing.md#anthropic-usage).
    Streams carry the usage in ``message_start`` (and ``message_delta``)."""
    read = token_count(usage.get("cache_read_input_tokens"))
    written = token_count(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    w5 = w1 = 0
    if isinstance(split, MAPPING):
        w5 = token_count(split.get("ephemeral_5m_input_tokens"))
        w1 = token_count(split.get("ephemeral_1h_input_tokens"))
    w5, w1 = ttl_split(written, w5, w1)
    server = usage.get("server_tool_use")
    steps = sum(token_count(v) for v in server.values()) if isinstance(server, MAPPING) else 0
    return CacheUsage(
        provider="anthropic",
        uncached=token_count(usage.get("input_tokens")),
        read=read,
        written=written,
        written_5m=w5,
        written_1h=w1,
        output=token_count(usage.get("output_tokens")),
        server_steps=steps,
    )


def reports_reads(usage: Mapping[str, Any]) -> bool:
    return "cache_read_input_tokens" in usage


USAGE = UsageFields(
    family="anthropic",
    tells=("cache_read_input_tokens", "cache_creation_input_tokens"),
    read=read_usage,
    reports_reads=reports_reads,
)


# --- its cache diagnostics --------------------------------------------------------------------

# The response member that holds Anthropic's cache diagnostics (beta:
# docs/background/usage-and-pricing.md#cache-diagnostics), the provider's own verdict on a miss.
CACHE_DIAGNOSTICS = "diagnostics"


def miss_reason(diagnostics: Any) -> dict[str, Any] | None:
    """Anthropic's own verdict (cache diagnostics, docs/background/usage-and-pricing.md#cache-diagnostics) as ``{"type", "tokens"}``,
    ``{"type": None}`` while inconclusive, or None when absent or no divergence was found."""
    if not isinstance(diagnostics, MAPPING) or "cache_miss_reason" not in diagnostics:
        return None
    reason = diagnostics.get("cache_miss_reason")
    if reason is None:
        return {"type": None, "tokens": None}
    if not isinstance(reason, MAPPING):
        return None
    tokens = reason.get("cache_missed_input_tokens")
    return {"type": reason.get("type"), "tokens": token_count(tokens) if tokens is not None else None}


# The tiers each Anthropic miss reason names (Anthropic's cache diagnostics). ``unavailable`` and
# ``previous_message_not_found`` name none: they never disagree with our diff.
MISS_REASON_TIERS: dict[str, tuple[str, ...]] = {
    "model_changed": ("tools", "system", "messages"),
    "tools_changed": ("tools", "system", "messages"),
    "system_changed": ("system", "messages"),
    "messages_changed": ("messages",),
}


def reason_agrees(
    reason_type: str | None, first_tier: str | None, changed_settings: tuple[str, ...] = ()
) -> bool | None:
    """Whether the provider's miss reason and our diff say the same thing: the first broken tier,
    or for ``model_changed`` a changed ``model`` setting. None when the reason names no tier
    (inconclusive, unavailable, previous message not found)."""
    if reason_type not in MISS_REASON_TIERS:
        return None
    if reason_type == "model_changed":
        return "model" in changed_settings
    return first_tier is not None and MISS_REASON_TIERS[reason_type][0] == first_tier


# --- a content-level prompt in its shape ----------------------------------------------------------


def content_tools(tools: list[dict[str, Any]]) -> list[Any]:
    return [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in tools]


def content_messages(role: str, parts: list[Part]) -> list[dict[str, Any]]:
    blocks: list[Any] = []
    for p in parts:
        if p.kind == "text":
            blocks.append({"type": "text", "text": p.text})
        elif p.kind == "tool_call":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": str(p.id or ""),
                    "name": str(p.name or ""),
                    "input": arguments_value(p.arguments),
                }
            )
        elif p.kind == "tool_result":
            blocks.append({"type": "tool_result", "tool_use_id": str(p.id or ""), "content": result_text(p.value)})
        else:
            blocks.append(p.value)
    return [{"role": "assistant" if role in ("assistant", "model", "ai") else "user", "content": blocks}]


def content_prompt(system: list[str], messages: list[dict[str, Any]]) -> dict[str, Any]:
    if not system:
        return {"messages": messages}
    return {"system": [{"type": "text", "text": s} for s in system], "messages": messages}


def content_usage(prompt: int, uncached: int, read: int, written: int, output: int | None) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": uncached,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
    }
    if output is not None:
        usage["output_tokens"] = output
    return {"usage": usage}


PROVIDER = Provider(
    name=NAME,
    title="Anthropic Messages",
    family="anthropic",
    usage=USAGE,
    adapt=adapt,
    claims_body=claims_body,
    hints_body=hints_body,
    header_settings=header_settings,
    response_usage=response_usage,
    server_steps=server_steps,
    response_marks=response_marks,
    is_response=is_response,
    endpoint="https://api.anthropic.com/v1/messages",
    names_it=names_it,
    content=ContentShape(tools=content_tools, messages=content_messages, prompt=content_prompt, usage=content_usage),
    thinking_blocks=True,
)
