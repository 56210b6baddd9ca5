"""Amazon Bedrock Converse (and Nova models' InvokeModel bodies, of the Converse message shape):
everything cachelint knows about the API, declared at the end (``PROVIDER``). Request shape:
docs/background/request-shapes.md#bedrock-converse. Claude on Bedrock's InvokeModel takes
Anthropic's Messages body (``anthropic``)."""

from __future__ import annotations

from typing import Any, Mapping, cast

from cachelint.payloads.cache_usage import MAPPING, CacheUsage, UsageFields, token_count, ttl_split
from cachelint.payloads.providers.builder import Builder
from cachelint.payloads.providers.canonical import is_cache_point
from cachelint.payloads.providers.messages import message_blocks
from cachelint.payloads.providers.provider import Provider
from cachelint.payloads.trace import has_converse_content

NAME = "bedrock-converse"


def adapt(body: Mapping[str, Any], b: Builder) -> dict[str, Any]:
    tool_config = cast(dict, body.get("toolConfig")) if isinstance(body.get("toolConfig"), dict) else {}
    tools = cast(list, tool_config.get("tools")) if isinstance(tool_config.get("tools"), list) else []
    for tool in tools:
        if is_cache_point(tool):
            if b.tools:
                b.mark("tools", b.tools[-1].index, None, tool["cachePoint"], key="cachePoint")
            continue
        spec = tool.get("toolSpec", {}) if isinstance(tool, dict) else {}
        b.add("tools", tool, str(spec.get("name", "")) if isinstance(spec, dict) else "")
        b.position += 1
    system = cast(list, body.get("system")) if isinstance(body.get("system"), list) else []
    for item in system:
        if is_cache_point(item):
            if b.system:
                b.mark("system", b.system[-1].index, None, item["cachePoint"], key="cachePoint")
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


def claims_body(body: Mapping[str, Any]) -> bool:
    """Messages with Converse's settings (``toolConfig``, ``inferenceConfig``) or its content
    parts (``{"text"}``, ``toolUse``, ``cachePoint``… without a ``type``)."""
    messages = body.get("messages")
    return isinstance(messages, list) and (
        "toolConfig" in body or "inferenceConfig" in body or has_converse_content(messages)
    )


# --- what its response says -------------------------------------------------------------------


def response_usage(response: Mapping[str, Any]) -> Any:
    """``usage``, or in a stream's ``metadata`` event ``metadata.usage``."""
    usage = response.get("usage")
    if usage is None and isinstance(response.get("metadata"), dict):
        usage = response["metadata"].get("usage")
    return usage


def response_marks(response: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The ids of the output message's tool uses and its texts."""
    ids: list[str] = []
    texts: list[str] = []
    output = response.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    for part in (message.get("content") if isinstance(message, dict) else None) or ():
        if (
            isinstance(part, dict)
            and isinstance(part.get("toolUse"), dict)
            and isinstance(part["toolUse"].get("toolUseId"), str)
        ):
            ids.append(part["toolUse"]["toolUseId"])
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return ids, texts


# --- how its usage counts the prompt ------------------------------------------------------------


def read_usage(usage: Mapping[str, Any]) -> CacheUsage:
    """``inputTokens`` excludes ``cacheReadInputTokens`` and ``cacheWriteInputTokens`` (AWS
    TokenUsage; opencode PR #38427 corrected the opposite reading); ``cacheDetails[] {ttl,
    inputTokens}`` splits the write by TTL."""
    written = token_count(usage.get("cacheWriteInputTokens"))
    w5 = w1 = 0
    details = usage.get("cacheDetails")
    if isinstance(details, list):
        for item in details:
            if isinstance(item, MAPPING):
                if item.get("ttl") == "1h":
                    w1 += token_count(item.get("inputTokens"))
                else:
                    w5 += token_count(item.get("inputTokens"))
    w5, w1 = ttl_split(written, w5, w1)
    return CacheUsage(
        provider="bedrock",
        uncached=token_count(usage.get("inputTokens")),
        read=token_count(usage.get("cacheReadInputTokens")),
        written=written,
        written_5m=w5,
        written_1h=w1,
        output=token_count(usage.get("outputTokens")),
    )


def reports_reads(usage: Mapping[str, Any]) -> bool:
    """``cacheReadInputTokens`` (``cacheReadInputTokenCount`` in a model invocation log)."""
    return "cacheReadInputTokens" in usage or "cacheReadInputTokenCount" in usage


USAGE = UsageFields(
    family="bedrock",
    tells=("inputTokens", "cacheReadInputTokens"),
    read=read_usage,
    reports_reads=reports_reads,
)

PROVIDER = Provider(
    name=NAME,
    title="Amazon Bedrock Converse",
    family="bedrock",
    usage=USAGE,
    adapt=adapt,
    claims_body=claims_body,
    response_usage=response_usage,
    response_marks=response_marks,
    thinking_blocks=True,  # Claude on Bedrock: the model's own behaviour (``reasoningContent`` parts)
)
