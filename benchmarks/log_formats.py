"""Write a log of Anthropic requests in the formats of the tools teams run (Helicone, Bedrock
invocation logs, Message Batches, OpenAI Batch, LiteLLM, LangSmith, OpenInference, OpenTelemetry
GenAI, OpenLLMetry, Langfuse, Claude Code, mitmproxy .zhar), each written from the format's public
specification (see each reader's docstring in cachelint/payloads/formats/).

Input: envelopes ``{"request": Anthropic Messages body, "response": {"id", "usage"}, "time",
"session"?}``, one a line (benchmarks/gen_anthropic_log.py writes them). Used by the tests'
samples (``--samples DIR``: a 3-request conversation whose third request has a new timestamp in
the system prompt, and a twin whose third request reorders the tools) and by
``bench_audit.py --format NAME`` (the same log in each format).

    python benchmarks/log_formats.py --samples tests/payloads/format_samples
    python benchmarks/log_formats.py --format otel-genai --input /tmp/bench.jsonl -o /tmp/bench.otel.json
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import zlib
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

MODEL = "claude-sonnet-4-5"
BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def epoch(time: str) -> float:
    return datetime.fromisoformat(time.replace("Z", "+00:00")).timestamp()


def nanos(time: str) -> str:
    return str(int(round(epoch(time) * 1e9)))


# --- converting an Anthropic request -----------------------------------------------------------


def system_texts(body: dict) -> list[str]:
    system = body.get("system")
    if isinstance(system, str):
        return [system]
    return [b["text"] for b in system or [] if isinstance(b, dict) and b.get("type") == "text"]


def blocks(content: Any) -> list[dict]:
    return (
        [{"type": "text", "text": content}] if isinstance(content, str) else [b for b in content if isinstance(b, dict)]
    )


def openai_messages(body: dict, markers: bool = False) -> list[dict]:
    """The OpenAI Chat messages of an Anthropic body (system messages first, tool_use as
    tool_calls, tool_result as tool messages), as LiteLLM and the OpenAI SDK take them.
    ``markers``: keep the system blocks' cache markers on content parts (as LiteLLM takes them)."""
    out: list[dict] = []
    for block in (
        body["system"]
        if isinstance(body.get("system"), list)
        else [{"type": "text", "text": t} for t in system_texts(body)]
    ):
        if markers and "cache_control" in block:
            out.append(
                {
                    "role": "system",
                    "content": [{"type": "text", "text": block["text"], "cache_control": block["cache_control"]}],
                }
            )
        else:
            out.append({"role": "system", "content": block["text"]})
    for message in body["messages"]:
        parts = blocks(message["content"])
        texts = "".join(b["text"] for b in parts if b.get("type") == "text")
        if message["role"] == "assistant":
            entry: dict = {"role": "assistant", "content": texts or None}
            calls = [b for b in parts if b.get("type") == "tool_use"]
            if calls:
                entry["tool_calls"] = [
                    {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": dumps(c["input"])}}
                    for c in calls
                ]
            out.append(entry)
            continue
        for b in parts:
            if b.get("type") == "tool_result":
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": b["tool_use_id"],
                        "content": b["content"] if isinstance(b["content"], str) else dumps(b["content"]),
                    }
                )
        if texts:
            out.append({"role": "user", "content": texts})
    return out


def openai_tools(body: dict, markers: bool = False) -> list[dict]:
    out = []
    for t in body.get("tools", []):
        tool = {
            "type": "function",
            "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["input_schema"]},
        }
        if markers and "cache_control" in t:
            tool["cache_control"] = t["cache_control"]  # LiteLLM passes a tool's marker on to Anthropic
        out.append(tool)
    return out


def openai_body(body: dict) -> dict:
    out = {"model": "gpt-4o", "messages": openai_messages(body)}
    if body.get("tools"):
        out["tools"] = openai_tools(body)
    return out


def usage_of(env: dict) -> dict:
    return dict((env.get("response") or {}).get("usage") or {})


def total_input(usage: dict) -> int:
    return (
        usage.get("input_tokens", 0)
        + usage.get("cache_read_input_tokens", 0)
        + usage.get("cache_creation_input_tokens", 0)
    )


def message_response(env: dict, index: int) -> dict:
    return {
        "id": (env.get("response") or {}).get("id", f"msg_{index}"),
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn",
        "usage": usage_of(env),
    }


def otel_parts(content: Any) -> list[dict]:
    parts = []
    for b in blocks(content):
        if b.get("type") == "text":
            parts.append({"type": "text", "content": b["text"]})
        elif b.get("type") == "tool_use":
            parts.append({"type": "tool_call", "id": b["id"], "name": b["name"], "arguments": b["input"]})
        elif b.get("type") == "tool_result":
            parts.append({"type": "tool_call_response", "id": b["tool_use_id"], "response": b["content"]})
    return parts


def attr(key: str, value: Any) -> dict:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else dumps(value)}}


def span(env: dict, index: int, attributes: dict, trace: str) -> dict:
    start = nanos(env["time"])
    return {
        "traceId": trace,
        "spanId": f"{index + 1:016x}",
        "parentSpanId": "00000000000000ff",
        "name": f"chat {MODEL}",
        "kind": 3,
        "startTimeUnixNano": start,
        "endTimeUnixNano": str(int(start) + 2_000_000_000),
        "attributes": [attr(k, v) for k, v in attributes.items() if v is not None],
        "status": {},
    }


def trace_of(env: dict) -> str:
    import hashlib

    return hashlib.sha256(str(env.get("session", "trace")).encode()).hexdigest()[:32]


# --- one record per format -------------------------------------------------------------------


def helicone(env: dict, i: int) -> dict:
    body, usage = env["request"], usage_of(env)
    return {
        "request_id": f"00000000-0000-4000-8000-{i:012d}",
        "request_created_at": env["time"],
        "request_path": "/v1/messages",
        "request_user_id": None,
        "request_properties": {"Helicone-Session-Id": env["session"]} if env.get("session") else {},
        "request_model": body["model"],
        "provider": "ANTHROPIC",
        "target_url": "https://api.anthropic.com/v1/messages",
        "model": body["model"],
        "request_body": body,
        "response_id": f"00000000-0000-4000-9000-{i:012d}",
        "response_created_at": env["time"],
        "response_status": 200,
        "response_body": message_response(env, i),
        "prompt_tokens": usage.get("input_tokens"),
        "prompt_cache_read_tokens": usage.get("cache_read_input_tokens"),
        "prompt_cache_write_tokens": usage.get("cache_creation_input_tokens"),
        "completion_tokens": usage.get("output_tokens"),
    }


def bedrock(env: dict, i: int) -> dict:
    body = {k: v for k, v in env["request"].items() if k != "model"}
    body = {"anthropic_version": "bedrock-2023-05-31", **body}
    usage = usage_of(env)
    return {
        "schemaType": "ModelInvocationLog",
        "schemaVersion": "1.0",
        "timestamp": env["time"],
        "accountId": "123456789012",
        "identity": {"arn": "arn:aws:sts::123456789012:assumed-role/agent/session"},
        "region": "us-east-1",
        "requestId": f"00000000-0000-4000-a000-{i:012d}",
        "operation": "InvokeModel",
        "modelId": BEDROCK_MODEL,
        "input": {
            "inputContentType": "application/json",
            "inputBodyJson": body,
            "inputTokenCount": usage.get("input_tokens", 0),
            "cacheReadInputTokenCount": usage.get("cache_read_input_tokens", 0),
            "cacheWriteInputTokenCount": usage.get("cache_creation_input_tokens", 0),
        },
        "output": {
            "outputContentType": "application/json",
            "outputBodyJson": message_response(env, i),
            "outputTokenCount": usage.get("output_tokens", 0),
        },
    }


def batch_request(env: dict, i: int) -> dict:
    return {"custom_id": f"request-{i}", "params": env["request"]}


def batch_result(env: dict, i: int) -> dict:
    return {"custom_id": f"request-{i}", "result": {"type": "succeeded", "message": message_response(env, i)}}


def openai_batch_input(env: dict, i: int) -> dict:
    return {
        "custom_id": f"request-{i}",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": openai_body(env["request"]),
    }


def openai_batch_output(env: dict, i: int) -> dict:
    usage = usage_of(env)
    total = total_input(usage)
    read = usage.get("cache_read_input_tokens", 0)
    return {
        "id": f"batch_req_{i:06d}",
        "custom_id": f"request-{i}",
        "response": {
            "status_code": 200,
            "request_id": f"req_{i:06d}",
            "body": {
                "id": f"chatcmpl-{i}",
                "object": "chat.completion",
                "created": int(epoch(env["time"])),
                "model": "gpt-4o-2024-08-06",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}
                ],
                "usage": {
                    "prompt_tokens": total,
                    "completion_tokens": usage.get("output_tokens", 0),
                    "total_tokens": total + usage.get("output_tokens", 0),
                    "prompt_tokens_details": {"cached_tokens": read},
                },
            },
        },
        "error": None,
    }


def litellm(env: dict, i: int, raw: bool = False) -> dict:
    body, usage = env["request"], usage_of(env)
    parameters = {"max_tokens": body.get("max_tokens", 1024)}
    if body.get("tools"):
        parameters["tools"] = openai_tools(body, markers=True)
    total = total_input(usage)
    record = {
        "id": f"litellm-{i}",
        "trace_id": f"trace-{i}",
        "call_type": "acompletion",
        "stream": False,
        "status": "success",
        "custom_llm_provider": "anthropic",
        "model": body["model"],
        "model_group": body["model"],
        "api_base": "https://api.anthropic.com/v1/messages",
        "startTime": epoch(env["time"]),
        "endTime": epoch(env["time"]) + 2.0,
        "prompt_tokens": total,
        "completion_tokens": usage.get("output_tokens", 0),
        "metadata": {"session_id": env.get("session"), "user_api_key_hash": None},
        "messages": openai_messages(body, markers=True),
        "model_parameters": parameters,
        "response": {
            "id": f"chatcmpl-{i}",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": total,
                "completion_tokens": usage.get("output_tokens", 0),
                "prompt_tokens_details": {"cached_tokens": usage.get("cache_read_input_tokens", 0)},
                "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
                "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
            },
        },
    }
    if raw:  # a custom logger's kwargs with raw-request logging on: the payload and the raw request
        return {
            "standard_logging_object": record,
            "raw_request_typed_dict": {
                "raw_request_api_base": "https://api.anthropic.com/v1/messages",
                "raw_request_body": body,
                "raw_request_headers": {"anthropic-version": "2023-06-01", "x-api-key": "sk-ant-REDACTED"},
            },
        }
    return record


def langsmith(env: dict, i: int) -> dict:
    body = env["request"]
    return {
        "id": f"00000000-0000-4000-b000-{i:012d}",
        "name": "Anthropic",
        "run_type": "llm",
        "start_time": env["time"].replace("Z", ""),
        "end_time": env["time"].replace("Z", ""),
        "inputs": body,
        "outputs": message_response(env, i),
        "error": None,
        "extra": {
            "metadata": {
                "ls_provider": "anthropic",
                "ls_model_name": body["model"],
                "ls_model_type": "chat",
                "thread_id": env.get("session"),
            },
            "runtime": {"sdk": "langsmith-py"},
        },
        "trace_id": "00000000-0000-4000-c000-000000000001",
        "parent_run_id": None,
        "session_id": "00000000-0000-4000-d000-000000000001",
        "tags": [],
        "dotted_order": f"20261129T100000000000Z{i}",
    }


_LC_CLASSES = {"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage", "tool": "ToolMessage"}


def langsmith_langchain(env: dict, i: int) -> dict:
    body = env["request"]
    lc = []
    for text in system_texts(body):
        lc.append(
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", "messages", "SystemMessage"],
                "kwargs": {"content": text, "type": "system"},
            }
        )
    for message in body["messages"]:
        role = message["role"]
        kwargs: dict = {"content": message["content"], "type": "ai" if role == "assistant" else "human"}
        lc.append(
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", "messages", _LC_CLASSES[role]],
                "kwargs": kwargs,
            }
        )
    usage = usage_of(env)
    usage_metadata = {
        "input_tokens": total_input(usage),
        "output_tokens": usage.get("output_tokens", 0),
        "input_token_details": {
            "cache_read": usage.get("cache_read_input_tokens", 0),
            "cache_creation": usage.get("cache_creation_input_tokens", 0),
        },
    }
    return {
        "id": f"00000000-0000-4000-b000-{i:012d}",
        "name": "ChatAnthropic",
        "run_type": "llm",
        "start_time": env["time"].replace("Z", ""),
        "inputs": {"messages": [lc]},
        "outputs": {
            "generations": [
                [
                    {
                        "text": "Done.",
                        "type": "ChatGeneration",
                        "message": {
                            "lc": 1,
                            "type": "constructor",
                            "id": ["langchain", "schema", "messages", "AIMessage"],
                            "kwargs": {"content": "Done.", "type": "ai", "usage_metadata": usage_metadata},
                        },
                    }
                ]
            ]
        },
        "extra": {
            "invocation_params": {
                "model": body["model"],
                "max_tokens": body.get("max_tokens"),
                "tools": body.get("tools", []),
            },
            "metadata": {"ls_provider": "anthropic", "ls_model_name": body["model"], "thread_id": env.get("session")},
        },
        "trace_id": "00000000-0000-4000-c000-000000000001",
        "error": None,
    }


def openinference_span(env: dict, i: int) -> dict:
    usage = usage_of(env)
    return span(
        env,
        i,
        {
            "openinference.span.kind": "LLM",
            "llm.provider": "anthropic",
            "llm.system": "anthropic",
            "llm.model_name": env["request"]["model"],
            "input.value": dumps(env["request"]),
            "input.mime_type": "application/json",
            "output.value": dumps(message_response(env, i)),
            "output.mime_type": "application/json",
            "llm.token_count.prompt": total_input(usage),
            "llm.token_count.completion": usage.get("output_tokens", 0),
            "llm.token_count.prompt_details.cache_read": usage.get("cache_read_input_tokens", 0),
            "llm.token_count.prompt_details.cache_write": usage.get("cache_creation_input_tokens", 0),
            "session.id": env.get("session"),
        },
        trace_of(env),
    )


def otel_genai_span(env: dict, i: int) -> dict:
    body, usage = env["request"], usage_of(env)
    messages = [{"role": m["role"], "parts": otel_parts(m["content"])} for m in body["messages"]]
    tools = [
        {
            "type": "function",
            "name": t["name"],
            "description": t.get("description", ""),
            "parameters": t["input_schema"],
        }
        for t in body.get("tools", [])
    ]
    return span(
        env,
        i,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": body["model"],
            "gen_ai.request.max_tokens": body.get("max_tokens"),
            "gen_ai.system_instructions": dumps([{"type": "text", "content": t} for t in system_texts(body)]),
            "gen_ai.input.messages": dumps(messages),
            "gen_ai.tool.definitions": dumps(tools) if tools else None,
            "gen_ai.usage.input_tokens": total_input(usage),
            "gen_ai.usage.output_tokens": usage.get("output_tokens", 0),
            "gen_ai.usage.cache_read.input_tokens": usage.get("cache_read_input_tokens", 0),
            "gen_ai.usage.cache_creation.input_tokens": usage.get("cache_creation_input_tokens", 0),
            "gen_ai.conversation.id": env.get("session"),
        },
        trace_of(env),
    )


def vercel_ai_attributes(env: dict) -> dict:
    """A Vercel AI SDK provider call's attributes (its telemetry docs: the call LLM span)."""
    body = env["request"]
    messages: list[dict] = [{"role": "system", "content": t} for t in system_texts(body)]
    for m in body["messages"]:
        parts = []
        for b in blocks(m["content"]):
            if b.get("type") == "text":
                parts.append({"type": "text", "text": b["text"]})
            elif b.get("type") == "tool_use":
                parts.append({"type": "tool-call", "toolCallId": b["id"], "toolName": b["name"], "input": b["input"]})
            elif b.get("type") == "tool_result":
                parts.append({"type": "tool-result", "toolCallId": b["tool_use_id"], "output": b["content"]})
        messages.append(
            {"role": "tool" if any(p["type"] == "tool-result" for p in parts) else m["role"], "content": parts}
        )
    tools = [
        dumps(
            {
                "type": "function",
                "name": t["name"],
                "description": t.get("description", ""),
                "inputSchema": t["input_schema"],
            }
        )
        for t in body.get("tools", [])
    ]
    return {
        "operation.name": "ai.generateText.doGenerate",
        "ai.operationId": "ai.generateText.doGenerate",
        "ai.model.id": body["model"],
        "ai.model.provider": "anthropic.messages",
        "ai.prompt.messages": dumps(messages),
        "ai.prompt.tools": tools or None,
        "ai.telemetry.metadata.sessionId": env.get("session"),
    }


def vercel_ai_span(env: dict, i: int) -> dict:
    attributes = vercel_ai_attributes(env)
    out = span(env, i, {k: v for k, v in attributes.items() if k != "ai.prompt.tools"}, trace_of(env))
    if attributes["ai.prompt.tools"]:
        out["attributes"].append(
            {
                "key": "ai.prompt.tools",
                "value": {"arrayValue": {"values": [{"stringValue": t} for t in attributes["ai.prompt.tools"]]}},
            }
        )
    return out


def zipkin_span(env: dict, i: int) -> dict:
    """The same call as Zipkin's JSON v2 keeps it: tags as strings, times in microseconds."""
    attributes = vercel_ai_attributes(env)
    tags = {k: (v if isinstance(v, str) else dumps(v)) for k, v in attributes.items() if v is not None}
    return {
        "traceId": trace_of(env),
        "id": f"{i + 1:016x}",
        "name": "ai.generateText.doGenerate",
        "kind": "CLIENT",
        "timestamp": int(epoch(env["time"]) * 1_000_000),
        "duration": 2_000_000,
        "localEndpoint": {"serviceName": "agent"},
        "tags": tags,
    }


def jaeger_span(env: dict, i: int) -> dict:
    """The same call as Jaeger's query service exports it: typed tags, times in microseconds."""
    attributes = vercel_ai_attributes(env)
    tags = [
        {"key": k, "type": "string", "value": v if isinstance(v, str) else dumps(v)}
        for k, v in attributes.items()
        if v is not None
    ]
    return {
        "traceID": trace_of(env),
        "spanID": f"{i + 1:016x}",
        "operationName": "ai.generateText.doGenerate",
        "startTime": int(epoch(env["time"]) * 1_000_000),
        "duration": 2_000_000,
        "tags": tags,
        "processID": "p1",
    }


def _jaeger(name: str) -> Writer:
    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        traces: dict[str, list[dict]] = {}
        for i, env in enumerate(envs()):
            traces.setdefault(trace_of(env), []).append(jaeger_span(env, i))
        data = [
            {"traceID": t, "spans": spans, "processes": {"p1": {"serviceName": "agent", "tags": []}}}
            for t, spans in traces.items()
        ]
        with opener(name) as out:
            out.write(json.dumps({"data": data, "total": 0, "limit": 0, "offset": 0, "errors": None}).encode())
        return [name]

    return write


def openllmetry_span(env: dict, i: int) -> dict:
    body, usage = env["request"], usage_of(env)
    attrs: dict = {
        "gen_ai.system": "Anthropic",
        "llm.request.type": "chat",
        "gen_ai.request.model": body["model"],
        "gen_ai.request.max_tokens": body.get("max_tokens"),
    }
    n = 0
    for text in system_texts(body):
        attrs[f"gen_ai.prompt.{n}.role"] = "system"
        attrs[f"gen_ai.prompt.{n}.content"] = text
        n += 1
    for message in body["messages"]:
        attrs[f"gen_ai.prompt.{n}.role"] = message["role"]
        content = message["content"]
        attrs[f"gen_ai.prompt.{n}.content"] = (
            content
            if isinstance(content, str)
            else dumps([{k: v for k, v in b.items() if k != "cache_control"} for b in content])
        )
        n += 1
    for j, tool in enumerate(body.get("tools", [])):
        attrs[f"llm.request.functions.{j}.name"] = tool["name"]
        attrs[f"llm.request.functions.{j}.description"] = tool.get("description", "")
        attrs[f"llm.request.functions.{j}.parameters"] = dumps(tool["input_schema"])
    attrs.update(
        {
            "gen_ai.usage.prompt_tokens": total_input(usage),
            "gen_ai.usage.completion_tokens": usage.get("output_tokens", 0),
            "gen_ai.usage.cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
            "gen_ai.usage.cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
            "traceloop.association.properties.session_id": env.get("session"),
        }
    )
    return span(env, i, attrs, trace_of(env))


def langfuse(env: dict, i: int) -> dict:
    body, usage = env["request"], usage_of(env)
    prompt: Any = {"messages": openai_messages(body)}
    if body.get("tools"):
        prompt["tools"] = openai_tools(body)
    return {
        "id": f"obs-{i}",
        "traceId": f"trace-{env.get('session')}",
        "type": "GENERATION",
        "name": "anthropic-chat",
        "startTime": env["time"],
        "endTime": env["time"],
        "model": body["model"],
        "modelParameters": {"max_tokens": body.get("max_tokens")},
        "input": prompt,
        "output": {"role": "assistant", "content": "Done."},
        "level": "DEFAULT",
        "parentObservationId": None,
        "usageDetails": {
            "input": usage.get("input_tokens", 0),
            "output": usage.get("output_tokens", 0),
            "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
            "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
        },
        "metadata": {},
    }


def claude_code(env: dict, i: int) -> list[dict]:
    """A user turn and the assistant's answer written as two lines (a text block and a tool_use
    block) of one API call, as Claude Code does."""
    session = env.get("session", "00000000-0000-4000-e000-000000000001")
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/srv/project",
        "sessionId": session,
        "version": "2.0.14",
        "gitBranch": "main",
    }
    last = env["request"]["messages"][-1]
    user = {
        **base,
        "parentUuid": f"a-{i - 1}-1" if i else None,
        "type": "user",
        "message": {"role": "user", "content": last["content"]},
        "uuid": f"u-{i}",
        "timestamp": env["time"],
    }
    message = {
        "id": (env.get("response") or {}).get("id", f"msg_{i}"),
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "stop_reason": None,
        "usage": {**usage_of(env), "service_tier": "standard"},
    }
    first = {
        **base,
        "parentUuid": f"u-{i}",
        "type": "assistant",
        "message": {**message, "content": [{"type": "text", "text": "Working on it."}]},
        "requestId": f"req_{i:06d}",
        "uuid": f"a-{i}-0",
        "timestamp": env["time"],
    }
    second = {
        **base,
        "parentUuid": f"a-{i}-0",
        "type": "assistant",
        "message": {
            **message,
            "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "Read", "input": {"file_path": "README.md"}}],
        },
        "requestId": f"req_{i:06d}",
        "uuid": f"a-{i}-1",
        "timestamp": env["time"],
    }
    return [user, first, second]


def har_entry(env: dict, i: int) -> dict:
    return {
        "startedDateTime": env["time"],
        "time": 2000.0,
        "request": {
            "method": "POST",
            "url": "https://api.anthropic.com/v1/messages",
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "content-type", "value": "application/json"},
                {"name": "anthropic-version", "value": "2023-06-01"},
            ],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": dumps(env["request"])},
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "content-type", "value": "application/json"}],
            "cookies": [],
            "content": {"size": 0, "mimeType": "application/json", "text": dumps(message_response(env, i))},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 2000, "receive": 0},
    }


def http_date(time: str) -> str:
    from email.utils import format_datetime

    return format_datetime(datetime.fromisoformat(time.replace("Z", "+00:00")), usegmt=True)


def ruby_vcr_interaction(env: dict, i: int) -> dict:
    """An interaction of the Ruby ``vcr`` gem (https://relishapp.com/vcr/vcr/docs/cassettes/cassette-format):
    the response of every other request kept as ``base64_string`` (``preserve_exact_body_bytes``)."""
    response = dumps(message_response(env, i))
    body = (
        {"encoding": "ASCII-8BIT", "base64_string": base64.b64encode(response.encode()).decode()}
        if i % 2
        else {"encoding": "UTF-8", "string": response}
    )
    return {
        "request": {
            "method": "post",
            "uri": "https://api.anthropic.com/v1/messages",
            "body": {"encoding": "UTF-8", "string": dumps(env["request"])},
            "headers": {
                "Content-Type": ["application/json"],
                "Anthropic-Version": ["2023-06-01"],
                "X-Api-Key": ["<ANTHROPIC_API_KEY>"],
            },
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["application/json"]},
            "body": body,
        },
        "recorded_at": http_date(env["time"]),
    }


def go_vcr_interaction(env: dict, i: int) -> dict:
    """An interaction of a go-vcr v2+ cassette (``version: 2``; gopkg.in/dnaeon/go-vcr.v2 ``cassette.go``)."""
    return {
        "id": i,
        "request": {
            "proto": "HTTP/1.1",
            "proto_major": 1,
            "proto_minor": 1,
            "content_length": len(dumps(env["request"])),
            "host": "api.anthropic.com",
            "body": dumps(env["request"]),
            "form": {},
            "headers": {"Content-Type": ["application/json"], "Anthropic-Version": ["2023-06-01"]},
            "url": "https://api.anthropic.com/v1/messages",
            "method": "POST",
        },
        "response": {
            "proto": "HTTP/2.0",
            "content_length": -1,
            "body": dumps(message_response(env, i)),
            "headers": {"Content-Type": ["application/json"], "Date": [http_date(env["time"])]},
            "status": "200 OK",
            "code": 200,
            "duration": "2.1s",
        },
    }


def nock_definition(env: dict, i: int) -> dict:
    """A definition of nock's recorder (``output_objects``): the body parsed, the response of
    every other request gzip-encoded as hex chunks, the response headers as ``rawHeaders``."""
    response: Any = message_response(env, i)
    headers = ["Content-Type", "application/json", "Date", http_date(env["time"])]
    if i % 2:
        packed = gzip.compress(dumps(response).encode(), mtime=0)
        response = [packed[:20].hex(), packed[20:].hex()]
        headers += ["Content-Encoding", "gzip"]
    return {
        "scope": "https://api.anthropic.com:443",
        "method": "POST",
        "path": "/v1/messages",
        "body": env["request"],
        "status": 200,
        "response": response,
        "rawHeaders": headers,
        "responseIsBinary": False,
    }


def polly_entry(env: dict, i: int) -> dict:
    """A Polly.JS HAR entry (@pollyjs/persister's ``HarEntry``: ``_id``, ``_order``): the
    response of every other request kept as base64 chunks of its gzip bytes."""
    entry = har_entry(env, i)
    entry["_id"] = f"{i:032x}"
    entry["_order"] = 0
    if i % 2:
        packed = gzip.compress(entry["response"]["content"]["text"].encode(), mtime=0)
        chunks = [base64.b64encode(packed[:20]).decode(), base64.b64encode(packed[20:]).decode()]
        entry["response"]["content"] = {"mimeType": "application/json", "encoding": "base64", "text": dumps(chunks)}
        entry["response"]["headers"].append({"name": "content-encoding", "value": "gzip"})
    return entry


# --- files -----------------------------------------------------------------------------------

Envelopes = Callable[[], Iterable[dict]]  # a fresh iterator of the envelopes each call
Writer = Callable[[Envelopes, Callable[[str], IO[bytes]]], list[str]]


def _jsonl(convert: Callable[[dict, int], Any], name: str) -> Writer:
    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        with opener(name) as out:
            for i, env in enumerate(envs()):
                value = convert(env, i)
                for item in value if isinstance(value, list) else [value]:
                    out.write((dumps(item) + "\n").encode())
        return [name]

    return write


def _array(
    convert: Callable[[dict, int], Any],
    name: str,
    prefix: str = "[\n",
    suffix: str = "\n]\n",
    indent: int | None = None,
) -> Writer:
    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        with opener(name) as out:
            out.write(prefix.encode())
            for i, env in enumerate(envs()):
                text = (
                    json.dumps(convert(env, i), indent=indent, ensure_ascii=False) if indent else dumps(convert(env, i))
                )
                out.write(((",\n" if i else "") + text).encode())
            out.write(suffix.encode())
        return [name]

    return write


def _pair(first: Writer, second: Writer) -> Writer:
    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        return first(envs, opener) + second(envs, opener)

    return write


def _otlp_document(convert: Callable[[dict, int], dict], name: str) -> Writer:
    prefix = (
        '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"agent"}}]},'
        '"scopeSpans":[{"scope":{"name":"instrumentation","version":"1.0"},"spans":[\n'
    )
    return _array(convert, name, prefix, "\n]}]}]}\n")


def _otlp_lines(convert: Callable[[dict, int], dict], name: str, per_line: int = 1) -> Writer:
    def wrap(env: dict, i: int) -> dict:
        return {
            "resourceSpans": [
                {
                    "resource": {"attributes": [attr("service.name", "agent")]},
                    "scopeSpans": [{"scope": {"name": "instrumentation"}, "spans": [convert(env, i)]}],
                }
            ]
        }

    return _jsonl(wrap, name)


def _zhar(name: str) -> Writer:
    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        inflater = zlib.compressobj(9)
        with opener(name) as out:
            out.write(
                inflater.compress(
                    b'{"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0"}, "pages": [], "entries": [\n'
                )
            )
            for i, env in enumerate(envs()):
                out.write(inflater.compress(((",\n" if i else "") + json.dumps(har_entry(env, i), indent=4)).encode()))
            out.write(inflater.compress(b"\n]}}\n"))
            out.write(inflater.flush())
        return [name]

    return write


def _yaml(convert: Callable[[dict, int], dict], name: str, key: str, head: str = "", tail: str = "") -> Writer:
    """A YAML cassette: ``head``, then ``key:`` and the interactions, then ``tail``."""
    import yaml

    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        items = [convert(env, i) for i, env in enumerate(envs())]
        text = yaml.safe_dump({key: items}, sort_keys=False, allow_unicode=True, width=100)
        with opener(name) as out:
            out.write((head + text + tail).encode())
        return [name]

    return write


def _vcrpy_aiohttp(name: str) -> Writer:
    """A vcrpy cassette recorded through aiohttp, whose response carries the request's URL as the
    Python object vcrpy's YAML dumper tags (``!!python/object/new:yarl.URL``)."""

    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        with opener(name) as out:
            out.write(b"interactions:\n")
            for i, env in enumerate(envs()):
                out.write(
                    (
                        "- request:\n"
                        f"    body: {json.dumps(dumps(env['request']))}\n"
                        "    headers:\n      content-type:\n      - application/json\n"
                        "    method: POST\n"
                        "    uri: https://api.anthropic.com/v1/messages\n"
                        "  response:\n"
                        f"    body:\n      string: {json.dumps(dumps(message_response(env, i)))}\n"
                        f"    headers:\n      Date: {http_date(env['time'])}\n"
                        "    status:\n      code: 200\n      message: OK\n"
                        "    url: !!python/object/new:yarl.URL\n"
                        "      state: !!python/tuple\n"
                        "      - !!python/object/new:urllib.parse.SplitResult\n"
                        "        - https\n        - api.anthropic.com\n        - /v1/messages\n        - ''\n        - ''\n"
                        "      - false\n"
                    ).encode()
                )
            out.write(b"version: 1\n")
        return [name]

    return write


def _gzipped(writer: Writer) -> Writer:
    def write(envs: Envelopes, opener: Callable[[str], IO[bytes]]) -> list[str]:
        def gz(name: str) -> IO[bytes]:
            return gzip.GzipFile(fileobj=opener(name + ".gz"), mode="wb", mtime=0)  # type: ignore[return-value]

        return [n + ".gz" for n in writer(envs, gz)]

    return write


# name -> (the reader's format name, the writer). The files each writes are named for the format.
WRITERS: dict[str, tuple[str, Writer]] = {
    "helicone": ("helicone", _jsonl(helicone, "helicone.jsonl")),
    "helicone-json": ("helicone", _array(helicone, "helicone.json", indent=2)),
    "bedrock-invocation": ("bedrock-invocation", _jsonl(bedrock, "bedrock-invocation.jsonl")),
    "bedrock-invocation-s3": ("bedrock-invocation", _gzipped(_jsonl(bedrock, "20261129T1000Z_bedrock.json"))),
    "anthropic-batch": (
        "anthropic-batch",
        _pair(_jsonl(batch_request, "batch-requests.jsonl"), _jsonl(batch_result, "batch-results.jsonl")),
    ),
    "anthropic-batch-create": (
        "anthropic-batch",
        _pair(
            _array(batch_request, "batch-create.json", '{"requests": [\n', "\n]}\n"),
            _jsonl(batch_result, "batch-results.jsonl"),
        ),
    ),
    "openai-batch": (
        "openai-batch",
        _pair(_jsonl(openai_batch_input, "batch-input.jsonl"), _jsonl(openai_batch_output, "batch-output.jsonl")),
    ),
    "litellm": ("litellm", _jsonl(litellm, "litellm.jsonl")),
    "litellm-raw": ("litellm", _jsonl(lambda e, i: litellm(e, i, raw=True), "litellm-raw.jsonl")),
    "langsmith": ("langsmith", _jsonl(langsmith, "langsmith-runs.jsonl")),
    "langsmith-langchain": ("langsmith", _jsonl(langsmith_langchain, "langsmith-langchain-runs.jsonl")),
    "openinference": ("openinference", _otlp_document(openinference_span, "openinference.otlp.json")),
    "otel-genai": ("otel-genai", _otlp_document(otel_genai_span, "otel-genai.otlp.json")),
    "otel-genai-collector": ("otel-genai", _otlp_lines(otel_genai_span, "otel-genai-collector.jsonl")),
    "openllmetry": ("openllmetry", _otlp_lines(openllmetry_span, "openllmetry-collector.jsonl")),
    "vercel-ai": ("vercel-ai", _otlp_document(vercel_ai_span, "vercel-ai.otlp.json")),
    "vercel-ai-zipkin": ("vercel-ai", _array(zipkin_span, "vercel-ai.zipkin.json")),
    "vercel-ai-jaeger": ("vercel-ai", _jaeger("vercel-ai.jaeger.json")),
    "langfuse": (
        "langfuse",
        _array(
            langfuse,
            "langfuse-observations.json",
            '{"data": [\n',
            '\n], "meta": {"page": 1, "limit": 50, "totalItems": 0, "totalPages": 1}}\n',
        ),
    ),
    "claude-code": ("claude-code", _jsonl(claude_code, "claude-code-transcript.jsonl")),
    "zhar": ("zhar", _zhar("flows.zhar")),
    "vcr-ruby": (
        "vcr",
        _yaml(ruby_vcr_interaction, "cassette.yml", "http_interactions", "---\n", "recorded_with: VCR 6.3.1\n"),
    ),
    "go-vcr": ("vcr", _yaml(go_vcr_interaction, "cassette.yaml", "interactions", "---\nversion: 2\n")),
    "vcrpy-aiohttp": ("vcr", _vcrpy_aiohttp("cassette.yaml")),
    "nock": ("nock", _array(nock_definition, "recording.json", indent=2)),
    "polly-har": (
        "har",
        _array(
            polly_entry,
            "recording.har",
            '{"log": {"_recordingName": "agent", "creator": {"name": "Polly.JS", "version": "6.0.6", "comment": "persister:fs"}, "entries": [\n',
            '\n], "pages": [], "version": "1.2"}}\n',
            indent=2,
        ),
    ),
}
# the formats that keep the request's bytes (their tools-reordered twin must give CL301)
WIRE = (
    "helicone",
    "helicone-json",
    "bedrock-invocation",
    "bedrock-invocation-s3",
    "anthropic-batch",
    "anthropic-batch-create",
    "openai-batch",
    "litellm",
    "litellm-raw",
    "langsmith",
    "openinference",
    "zhar",
    "vcr-ruby",
    "go-vcr",
    "vcrpy-aiohttp",
    "nock",
    "polly-har",
)


# --- the samples -------------------------------------------------------------------------------

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file of the repository.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Path from the repository root."}},
            "required": ["path"],
        },
    },
    {
        "name": "search",
        "description": "Search the repository for a pattern.",
        "input_schema": {
            "type": "object",
            "properties": {"pattern": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["pattern"],
        },
    },
    {
        "name": "edit_file",
        "description": "Replace text in a file.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
            "required": ["path", "old", "new"],
        },
    },
]
RULES = " ".join(
    f"Rule {n}: keep changes small, explain them, and run the tests before you answer." for n in range(1, 41)
)  # a prompt long enough to cache


def conversation(twist: str) -> list[dict]:
    """Three requests of one agent conversation. ``twist``: ``timestamp`` (the third request's
    system prompt has a new time in it) or ``tools`` (the third request sends the tools in
    another order), or ``gap`` (the third request comes 8 minutes after the second and reads
    nothing: the cache had expired)."""
    turns = [
        "Find where the retry delay is computed.",
        "Now make it exponential with a cap of 30 seconds.",
        "Add a test for the cap.",
    ]
    times = [
        "2026-11-29T10:00:00Z",
        "2026-11-29T10:00:40Z",
        "2026-11-29T10:01:30Z" if twist != "gap" else "2026-11-29T10:08:40Z",
    ]
    out = []
    history: list[dict] = []
    for n in range(3):
        stamp = "2026-11-29T10:00:00Z" if (n < 2 or twist != "timestamp") else "2026-11-29T10:01:30Z"
        system = f"You are a coding agent in the acme/retry repository. Current time: {stamp}. {RULES}"
        tools = [dict(t) for t in TOOLS]
        if n == 2 and twist == "tools":
            tools = [tools[2], tools[0], tools[1]]
        tools[-1] = {**tools[-1], "cache_control": {"type": "ephemeral"}}
        history = history + (
            [{"role": "assistant", "content": [{"type": "text", "text": f"Done with step {n}."}]}] if n else []
        )
        history = history + [{"role": "user", "content": [{"type": "text", "text": turns[n]}]}]
        body = {
            "model": MODEL,
            "max_tokens": 1024,
            "tools": tools,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "messages": [dict(m) for m in history],
        }
        cached = 1850
        if n == 0:
            usage = {
                "input_tokens": 12,
                "cache_creation_input_tokens": cached,
                "cache_read_input_tokens": 0,
                "output_tokens": 40,
            }
        elif n == 1 or twist not in ("gap",):
            usage = {
                "input_tokens": 20 + 10 * n,
                "cache_creation_input_tokens": 0 if n == 1 else cached,
                "cache_read_input_tokens": cached if n == 1 else 0,
                "output_tokens": 40,
            }
        else:
            usage = {
                "input_tokens": 30,
                "cache_creation_input_tokens": cached,
                "cache_read_input_tokens": 0,
                "output_tokens": 40,
            }
        out.append(
            {
                "request": body,
                "response": {"id": f"msg_{twist}_{n}", "usage": usage},
                "time": times[n],
                "session": "00000000-0000-4000-e000-000000000001",
            }
        )
    return out


def write_samples(folder: Path) -> list[Path]:
    """Every format's samples: ``<name>/timestamp/…`` (CL309 on the third request) and, for the
    formats that keep the bytes, ``<name>/tools/…`` (CL301); Claude Code's ``gap`` sample."""
    written = []
    for name, (_fmt, writer) in WRITERS.items():
        twists = ["timestamp"] + (["tools"] if name in WIRE else []) + (["gap"] if name == "claude-code" else [])
        for twist in twists:
            target = folder / name / twist
            target.mkdir(parents=True, exist_ok=True)
            envs = conversation(twist)
            for file in writer(lambda e=envs: e, lambda n, t=target: open(t / n, "wb")):
                written.append(target / file)
    return written


def read_envelopes(path: Path) -> Iterator[dict]:
    with open(path, "rb") as f:
        for line in f:
            yield json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, help="write every format's samples into this folder")
    parser.add_argument("--format", choices=sorted(WRITERS), help="convert --input into this format")
    parser.add_argument("--input", type=Path, help="a JSONL of envelopes (gen_anthropic_log.py)")
    parser.add_argument("-o", "--output", type=Path, help="the folder to write the converted files into")
    parser.add_argument(
        "--per-session",
        type=int,
        default=40,
        help="--input's requests per session (gen_anthropic_log.py's default): the session key of the converted records",
    )
    args = parser.parse_args()
    if args.samples:
        for path in write_samples(args.samples):
            print(path)
    if args.format:
        if not args.input or not args.output:
            parser.error("--format needs --input and -o")
        args.output.mkdir(parents=True, exist_ok=True)

        def envelopes() -> Iterator[dict]:
            for i, env in enumerate(read_envelopes(args.input)):
                yield {**env, "session": f"session-{i // args.per_session}"}

        for name in WRITERS[args.format][1](envelopes, lambda n: open(args.output / n, "wb")):
            print(args.output / name)


if __name__ == "__main__":
    main()
