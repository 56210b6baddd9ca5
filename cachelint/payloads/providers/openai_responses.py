"""OpenAI Responses: everything cachelint knows about the API, declared at the end
(``PROVIDER``). Request shape: docs/background/request-shapes.md#openai-responses."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.model import Block
from cachelint.payloads.providers import openai_usage
from cachelint.payloads.providers.builder import Builder, text_block
from cachelint.payloads.providers.messages import (
    SYSTEM_ROLES,
    history_after_system_messages,
    message_blocks,
    openai_implicit_breakpoint,
)
from cachelint.payloads.providers.provider import Provider, unix_time_field
from cachelint.payloads.providers.response import count_server_items
from cachelint.payloads.trace import KnownRun, role_of

NAME = "openai-responses"


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
        # GPT-5.6+: where breakpoints come from and their TTL; not part of the prefix's key (it says
        # which prefixes are written), read by CL305
        "prompt_cache_options": body.get("prompt_cache_options"),
        # part of the cache key: reuse needs "compatible request settings, including the model, service
        # tier, and tools" (OpenAI's prompt cache diagnostics guide)
        "service_tier": body.get("service_tier"),
        "effort": reasoning.get("effort"),
        "images": b.images,
    }


def _openai_responses_tool(b: Builder, tool: Any) -> Block:
    block = b.add("tools", tool, str(tool.get("name", tool.get("type", ""))) if isinstance(tool, dict) else "")
    b.position += 1
    return block


# --- which requests are Responses' ----------------------------------------------------------------


def claims_body(body: Mapping[str, Any]) -> bool:
    """No ``messages`` but ``instructions``, a ``previous_response_id``, typed input items, or a
    string input with a model (and none of an embeddings request's fields)."""
    if isinstance(body.get("messages"), list):
        return False
    inp = body.get("input")
    if (
        "instructions" in body
        or "previous_response_id" in body
        or (isinstance(inp, list) and any(isinstance(i, dict) and ("type" in i or "role" in i) for i in inp))
    ):
        return True
    return isinstance(inp, str) and "model" in body and "encoding_format" not in body and "dimensions" not in body


# --- what its response says -------------------------------------------------------------------

# Output items the server executed inside one response: each fed its result back to the model in
# another internal call, and the usage adds those calls up (recorded: a 40-token prompt with one web
# search reports 9,299 input and 8,448 cached tokens; a code_interpreter turn reports twice the
# input of the next, longer, single-call turn). Client-executed items end the response instead.
_SERVER_ITEMS = frozenset(
    (
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    )
)


def response_usage(response: Mapping[str, Any]) -> Any:
    return response.get("usage")


def server_steps(response: Mapping[str, Any]) -> int:
    return count_server_items(response.get("output"), _SERVER_ITEMS)


def response_marks(response: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The call and item ids of the output items, and their texts."""
    ids: list[str] = []
    texts: list[str] = []
    for item in response.get("output") or ():
        if not isinstance(item, dict):
            continue
        for key in ("call_id", "id"):
            if isinstance(item.get(key), str):
                ids.append(item[key])
        for part in item.get("content") or ():
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    return ids, texts


def is_response(value: Mapping[str, Any]) -> bool:
    return value.get("object") == "response"


PROVIDER = Provider(
    name=NAME,
    title="OpenAI Responses",
    family="openai",
    usage=openai_usage.USAGE,
    adapt=adapt,
    claims_body=claims_body,
    response_usage=response_usage,
    server_steps=server_steps,
    response_marks=response_marks,
    is_response=is_response,
    endpoint="https://api.openai.com/v1/responses",
    response_time=unix_time_field("created_at"),  # the response object's `created_at` (OpenAI API reference)
)


# --- its prompt cache diagnostics -------------------------------------------------------------------

# The response member that holds OpenAI's prompt cache diagnostics (Responses API, GPT-5.6 and
# later, asked for with ``prompt_cache_options.comparison_response_id``: OpenAI's prompt cache
# diagnostics guide, https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics):
# ``{"type": "cache_miss", "reason": …, "cache_missed_tokens": N}``, ``cache_hit``,
# ``comparison_response_not_found`` or ``unavailable``.
PROMPT_CACHE_DIAGNOSTICS = "prompt_cache_diagnostics"


def miss_reason(diagnostics: Any) -> dict[str, Any] | None:
    """OpenAI's own verdict as ``{"type", "tokens"}`` (the miss's reason, or the outcome that
    names none: ``unavailable``, ``comparison_response_not_found``), None on a hit or an unknown
    shape. The tiers each reason names are not documented in what was read: a reason is shown
    beside our diff and never judged against it."""
    if not isinstance(diagnostics, dict) or not isinstance(diagnostics.get("type"), str):
        return None
    outcome = diagnostics["type"]
    if outcome == "cache_hit":
        return None
    if outcome != "cache_miss":
        return {"type": outcome, "tokens": None}
    reason = diagnostics.get("reason")
    if isinstance(reason, dict):
        reason = reason.get("type")
    tokens = diagnostics.get("cache_missed_tokens")
    return {
        "type": reason if isinstance(reason, str) else "cache_miss",
        "tokens": tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0 else None,
    }
