"""LiteLLM's StandardLoggingPayload (``kwargs["standard_logging_object"]``: what its logging
callbacks, the proxy's GCS / S3 / generic API loggers and a custom logger write), one a line, or
wrapped as ``{"standard_logging_object": …}``.

With raw-request logging on (``litellm.log_raw_request_response = True``, the proxy's
``log_raw_request_response: true``), ``raw_request_typed_dict`` holds the body LiteLLM sent to the
provider (``raw_request_body``) and its URL: that is read, byte-exact. Otherwise the request is
rebuilt from what LiteLLM received: ``model``, ``messages`` (OpenAI format, cache markers as
passed) and ``model_parameters`` (``tools``, ``tool_choice``, ``max_tokens``…), mapped for
Anthropic models the way LiteLLM maps them (system messages to ``system``, ``function`` tools to
``input_schema`` tools, tool calls and results to ``tool_use`` / ``tool_result`` blocks).
``response.usage`` gives the usage, ``startTime`` the time. Sources:
https://docs.litellm.ai/docs/proxy/logging_spec, https://docs.litellm.ai/docs/observability/raw_request_response
"""

from __future__ import annotations

from typing import Any, Iterator, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.content import json_value
from cachelint.payloads.formats.common import dig, make_record, usage_response
from cachelint.payloads.providers.registry import content_provider, endpoint
from cachelint.payloads.model import Origin

NAME = "litellm"
_SESSION_KEYS = ("session_id", "litellm_session_id", "thread_id", "conversation_id")


def _payload(value: dict) -> dict:
    inner = value.get("standard_logging_object")
    return inner if isinstance(inner, dict) else value


def matches(value: Any) -> bool:
    value = _payload(value)
    return isinstance(value.get("model_parameters"), dict) or (
        "call_type" in value and "messages" in value and ("startTime" in value or "response_cost" in value)
    )


def _raw_request(value: dict) -> dict | None:
    for where in (value, value.get("metadata"), value.get("hidden_params")):
        raw = where.get("raw_request_typed_dict") if isinstance(where, dict) else None
        if isinstance(raw, dict) and isinstance(json_value(raw.get("raw_request_body")), dict):
            return raw
    return None


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    outer = value  # a custom logger's kwargs: the raw request sits beside the payload
    value = _payload(value)
    metadata = cast(dict, value.get("metadata")) if isinstance(value.get("metadata"), dict) else {}
    session = next((metadata[k] for k in _SESSION_KEYS if metadata.get(k)), value.get("session_id"))
    status = 500 if value.get("status") == "failure" else None
    response = cast(dict, value.get("response")) if isinstance(value.get("response"), dict) else None
    raw = _raw_request(value) or _raw_request(outer)
    if raw is not None:
        body = json_value(raw["raw_request_body"])
        base = raw.get("raw_request_api_base")
        usage = _usage(
            content_provider(value.get("custom_llm_provider"), body.get("model") or value.get("model")), response
        )
        yield make_record(
            origin,
            body,
            ctx.redactor,
            fmt=NAME,
            response=usage,
            time=value.get("startTime"),
            session=session,
            url=base if isinstance(base, str) else None,
            headers=raw.get("raw_request_headers"),
            status=status,
        )
        return
    messages = value.get("messages")
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    if not isinstance(messages, list):
        ctx.unread.add(
            "are LiteLLM logs without messages (a call type other than chat, or message logging turned off:"
            " turn off turn_off_message_logging to keep them)",
            origin,
        )
        yield make_record(origin, None, ctx.redactor, fmt=NAME)
        return
    parameters = cast(dict, value.get("model_parameters")) if isinstance(value.get("model_parameters"), dict) else {}
    model = value.get("model")
    provider = content_provider(value.get("custom_llm_provider"), model)
    if value.get("call_type") in ("anthropic_messages", "aanthropic_messages"):
        body = {"model": model, "messages": messages, **parameters}  # already Anthropic's shape
        provider = "anthropic"
    elif provider == "anthropic":
        body = _as_anthropic(model, messages, parameters)
    else:
        body = {"model": model, "messages": messages, **parameters}
    yield make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        response=_usage(provider, response),
        time=value.get("startTime"),
        session=session,
        url=endpoint(provider),
        status=status,
    )


def _usage(provider: str, response: dict | None) -> dict | None:
    """LiteLLM's response usage is OpenAI's shape (``prompt_tokens`` with the cache included,
    ``prompt_tokens_details.cached_tokens``) plus Anthropic's ``cache_creation_input_tokens`` /
    ``cache_read_input_tokens``: in the provider's own shape for the adapter."""
    usage = response.get("usage") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return response
    if provider != "anthropic":
        return response
    read = usage.get("cache_read_input_tokens", dig(usage, "prompt_tokens_details", "cached_tokens"))
    counted = usage_response(
        "anthropic",
        total_input=usage.get("prompt_tokens"),
        read=read,
        written=usage.get("cache_creation_input_tokens"),
        output=usage.get("completion_tokens"),
    )
    return {**cast(dict, response), **(counted or {})}  # a dict: usage came from it


def _as_anthropic(model: Any, messages: list, parameters: dict) -> dict:
    """The Messages body LiteLLM sends for an OpenAI-format request to an Anthropic model
    (litellm/llms/anthropic/chat/transformation.py): leading and interleaved system messages
    become ``system`` text blocks (cache markers on their parts kept), ``function`` tools become
    ``{name, description, input_schema}``, assistant ``tool_calls`` become ``tool_use`` blocks
    and ``tool`` messages ``tool_result`` blocks of a user turn."""
    system: list[Any] = []
    out: list[dict] = []
    for message in messages:
        if not isinstance(message, dict):
            out.append(message)
            continue
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            if isinstance(content, str):
                block: dict[str, Any] = {"type": "text", "text": content}
                if "cache_control" in message:
                    block["cache_control"] = message["cache_control"]
                system.append(block)
            elif isinstance(content, list):
                system.extend(content)
            continue
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": content}
            if "cache_control" in message:
                block["cache_control"] = message["cache_control"]
            if (
                out
                and out[-1].get("role") == "user"
                and isinstance(out[-1].get("content"), list)
                and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in out[-1]["content"])
            ):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        if role == "assistant" and isinstance(message.get("tool_calls"), list):
            blocks: list[Any] = []
            if isinstance(content, str) and content:
                blocks.append({"type": "text", "text": content})
            elif isinstance(content, list):
                blocks.extend(content)
            for call in message["tool_calls"]:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    arguments = (
                        json_value(fn.get("arguments")) if isinstance(fn.get("arguments"), str) else fn.get("arguments")
                    )
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": call.get("id"),
                            "name": fn.get("name"),
                            "input": arguments if arguments is not None else {},
                        }
                    )
            out.append({"role": "assistant", "content": blocks})
            continue
        converted = {k: v for k, v in message.items() if k in ("role", "content")}
        if "cache_control" in message and isinstance(content, str):
            converted["content"] = [{"type": "text", "text": content, "cache_control": message["cache_control"]}]
        out.append(converted)
    body: dict[str, Any] = {"model": model}
    tools = parameters.get("tools")
    if isinstance(tools, list):
        body["tools"] = [_anthropic_tool(t) for t in tools]
    if system:
        body["system"] = system
    body["messages"] = out
    for key, item in parameters.items():
        if key not in ("tools",) and key not in body:
            body[key] = item
    return body


def _anthropic_tool(tool: Any) -> Any:
    if not (isinstance(tool, dict) and tool.get("type") == "function" and isinstance(tool.get("function"), dict)):
        return tool  # already Anthropic's shape (or a server tool)
    fn = tool["function"]
    out: dict[str, Any] = {"name": fn.get("name")}
    if "description" in fn:
        out["description"] = fn["description"]
    out["input_schema"] = fn.get("parameters", {"type": "object", "properties": {}})
    if "cache_control" in tool:
        out["cache_control"] = tool["cache_control"]
    return out


FORMAT = registry.LogFormat(
    name=NAME,
    title="LiteLLM StandardLoggingPayload",
    fidelity="wire",
    keeps={
        "wire bytes": "with raw-request logging: the body sent (raw_request_body); else the request LiteLLM received, mapped to the provider's shape",
        "key order": "yes",
        "cache markers": "yes (as passed to LiteLLM)",
        "usage": "yes (response.usage)",
        "time": "startTime",
        "session key": "metadata session_id (if set); else inferred",
    },
    matches=matches,
    records=records,
    source="https://docs.litellm.ai/docs/proxy/logging_spec",
)
