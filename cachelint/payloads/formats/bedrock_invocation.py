"""AWS Bedrock model invocation logs (``schemaType: ModelInvocationLog``), as delivered to S3
(``AWSLogs/<account>/BedrockModelInvocationLogs/…/*.json.gz``: gzip-compressed, one record a line)
or exported from CloudWatch Logs as JSONL.

A record holds the request body as sent (``input.inputBodyJson``: an Anthropic Messages body for
``InvokeModel``, a Converse body for ``Converse``), the response (``output.outputBodyJson``; a
list of chunks for streams), the token counts (``input.inputTokenCount``,
``cacheReadInputTokenCount``, ``cacheWriteInputTokenCount``, ``output.outputTokenCount``), the
``modelId``, the ``operation`` and the ``timestamp``. A body over 100 KB is not inline but in S3
(``inputBodyS3Path``). Source: https://docs.aws.amazon.com/bedrock/latest/userguide/model-invocation-logging.html
"""

from __future__ import annotations

from typing import Any, Iterator, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.content import json_value
from cachelint.payloads.formats.common import body_json, dig, make_record, note_body_text, number
from cachelint.payloads.model import Origin

NAME = "bedrock-invocation"
_PATHS = {
    "Converse": "converse",
    "ConverseStream": "converse-stream",
    "InvokeModel": "invoke",
    "InvokeModelWithResponseStream": "invoke-with-response-stream",
}
_SESSION_KEYS = ("session_id", "sessionId", "session", "conversation_id", "conversationId", "thread_id")


def matches(value: Any) -> bool:
    if value.get("schemaType") == "ModelInvocationLog":
        return True
    inp = value.get("input")
    return "modelId" in value and isinstance(inp, dict) and ("inputBodyJson" in inp or "inputBodyS3Path" in inp)


def _usage(operation: str, inp: dict, out: dict, response: Any) -> dict | None:
    """The response's usage when it carries one, else one built from the log's token counts
    (Bedrock counts the uncached input apart from the cache reads and writes, as the APIs do)."""
    if isinstance(response, dict) and isinstance(response.get("usage"), dict):
        return response
    fresh, read, written, output = (
        number(inp.get("inputTokenCount")),
        number(inp.get("cacheReadInputTokenCount")) or 0,
        number(inp.get("cacheWriteInputTokenCount")) or 0,
        number(out.get("outputTokenCount")),
    )
    if fresh is None:
        return response if isinstance(response, dict) else None
    base = dict(response) if isinstance(response, dict) else {}
    if operation.startswith("Converse"):
        base["usage"] = {
            "inputTokens": fresh,
            "cacheReadInputTokens": read,
            "cacheWriteInputTokens": written,
            "outputTokens": output or 0,
        }
    else:
        base["usage"] = {
            "input_tokens": fresh,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
            "output_tokens": output or 0,
        }
    return base


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    inp = cast(dict, value.get("input")) if isinstance(value.get("input"), dict) else {}
    out = cast(dict, value.get("output")) if isinstance(value.get("output"), dict) else {}
    body = inp.get("inputBodyJson")
    text = body
    if isinstance(body, str):
        body = json_value(body)
    if not isinstance(body, dict):
        if inp.get("inputBodyS3Path"):
            ctx.unread.add(
                "are Bedrock invocation logs whose request body was delivered to S3 (input.inputBodyS3Path: bodies"
                " over 100 KB): download those objects and put each body in input.inputBodyJson",
                origin,
            )
        else:
            ctx.unread.add(
                "are Bedrock invocation logs without input.inputBodyJson: turn on text data delivery"
                " (textDataDeliveryEnabled) in the logging configuration",
                origin,
            )
        yield make_record(origin, None, ctx.redactor, fmt=NAME)
        return
    operation = str(
        value.get("operation") or ("Converse" if "toolConfig" in body or "inferenceConfig" in body else "InvokeModel")
    )
    model = str(value.get("modelId") or "")
    url = None
    if model and operation in _PATHS:
        region = value.get("region") if isinstance(value.get("region"), str) else "us-east-1"
        url = f"https://bedrock-runtime.{region}.amazonaws.com/model/{model.replace('/', '%2F')}/{_PATHS[operation]}"
    response = out.get("outputBodyJson")
    response = json_value(response) if isinstance(response, str) else response
    if isinstance(response, list):  # a stream's chunks: the usage sits in one of them
        response = _stream_usage(response)
    metadata = cast(dict, value.get("requestMetadata")) if isinstance(value.get("requestMetadata"), dict) else {}
    session = next((metadata[k] for k in _SESSION_KEYS if metadata.get(k)), None)
    error = value.get("errorCode") or dig(value, "output", "error")
    if not isinstance(text, str):
        text = body_json(ctx.state, body)  # before make_record's redactor drops fields
    made = make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        response=_usage(operation, inp, out, response),
        time=value.get("timestamp"),
        session=session,
        url=url,
        method="POST",
        status=400 if error else None,
    )
    yield note_body_text(ctx.state, made, text)


def _stream_usage(chunks: list) -> dict | None:
    """The usage of a streamed response's chunks: Anthropic events (``message_start``,
    ``message_delta``) or Converse ``metadata``."""
    usage: dict[str, Any] = {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        start = dig(chunk, "message", "usage")
        if isinstance(start, dict):
            usage.update(start)
        if chunk.get("type") == "message_delta" and isinstance(chunk.get("usage"), dict):
            usage.update(chunk["usage"])
        meta = dig(chunk, "metadata", "usage")
        if isinstance(meta, dict):
            usage.update(meta)
    return {"usage": usage} if usage else None


FORMAT = registry.LogFormat(
    name=NAME,
    title="Bedrock model invocation log",
    fidelity="wire",
    keeps={
        "wire bytes": "the body as sent (input.inputBodyJson), re-serialised by the log",
        "key order": "yes",
        "cache markers": "yes (cache_control, cachePoint)",
        "usage": "yes (token counts incl. cache reads and writes)",
        "time": "timestamp",
        "session key": "requestMetadata session_id (if the caller sets one)",
    },
    matches=matches,
    records=records,
    body_paths=(("input", "inputBodyJson"),),
    source="https://docs.aws.amazon.com/bedrock/latest/userguide/model-invocation-logging.html",
)
