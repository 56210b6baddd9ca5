"""Vercel AI SDK spans (TypeScript agents), in OTLP and as Zipkin and Jaeger export them: each
provider call (``ai.*.doGenerate`` / ``ai.*.doStream``) read as a request at content level, the
SDK function's outer span not an LLM call, a call recorded without its prompt named once."""

from __future__ import annotations

import json
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.config import load_settings
from cachelint.payloads import AuditOptions

SYSTEM = "You triage support tickets for the billing team. Read the ticket, then answer. " * 40
TOOLS = [
    json.dumps(
        {"type": "function", "name": name, "description": f"{name} a ticket.", "inputSchema": {"type": "object"}}
    )
    for name in ("search", "close", "assign")
]


def call(i: int, tools: list[str], operation: str = "ai.streamText.doStream", **extra: object) -> dict:
    messages = [{"role": "system", "content": SYSTEM}]
    for turn in range(i + 1):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"Ticket {turn}"}]})
        if turn < i:
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool-call", "toolCallId": f"c{turn}", "toolName": "search", "args": {"q": "x"}}
                    ],
                }
            )
            messages.append(
                {
                    "role": "tool",
                    "content": [
                        {"type": "tool-result", "toolCallId": f"c{turn}", "toolName": "search", "result": "ok"}
                    ],
                }
            )
    attributes = {
        "ai.operationId": operation,
        "ai.model.id": "gpt-5",
        "ai.model.provider": "openai.responses",
        "ai.prompt.messages": json.dumps(messages),
        "ai.prompt.tools": tools,
        **extra,
    }
    return {
        "traceId": "a" * 32,
        "spanId": f"{i + 1:016x}",
        "name": operation,
        "startTimeUnixNano": str(1_764_400_000_000_000_000 + i * 10**9),
        "attributes": attributes,
    }


def audit(folder: Path):
    return audit_logs(["."], settings=load_settings(folder, isolated=True), options=AuditOptions(), cwd=folder)


def test_reordered_tools_between_calls_are_found(tmp_path: Path) -> None:
    spans = [call(0, TOOLS), call(1, TOOLS), call(2, [TOOLS[1], TOOLS[0], TOOLS[2]])]
    (tmp_path / "spans.jsonl").write_text("".join(json.dumps(s) + "\n" for s in spans))
    result = audit(tmp_path)
    assert result.summary.requests == 3
    assert [(d.code, d.record, d.kind) for d in result.diagnostics] == [("CL301", 2, "reordered")]


def test_the_outer_span_is_no_request_and_a_call_without_its_prompt_is_named(tmp_path: Path) -> None:
    outer = {
        "traceId": "b" * 32,
        "spanId": "0" * 15 + "9",
        "name": "ai.generateText",
        "startTimeUnixNano": "1764400000000000000",
        "attributes": {
            "ai.operationId": "ai.generateText",
            "ai.prompt": json.dumps({"prompt": "hi"}),
            "ai.model.id": "gpt-5",
        },
    }
    blind = {
        "traceId": "b" * 32,
        "spanId": "0" * 15 + "8",
        "name": "ai.generateText.doGenerate",
        "startTimeUnixNano": "1764400001000000000",
        "attributes": {
            "ai.operationId": "ai.generateText.doGenerate",
            "ai.model.id": "gpt-5",
            "ai.usage.promptTokens": 12,
        },
    }
    (tmp_path / "spans.jsonl").write_text(json.dumps(outer) + "\n" + json.dumps(blind) + "\n")
    result = audit(tmp_path)
    notices = [d for d in result.diagnostics if d.code == "CL001"]
    assert len(notices) == 1 and "recorded without their prompt (ai.prompt.messages)" in notices[0].message
    assert "turn recordInputs on" in notices[0].message


def test_zipkin_and_jaeger_exports_read_the_same_calls(tmp_path: Path) -> None:
    spans = [call(0, TOOLS), call(1, TOOLS), call(2, [TOOLS[1], TOOLS[0], TOOLS[2]])]
    zipkin = [
        {
            "traceId": s["traceId"],
            "id": s["spanId"],
            "name": s["name"],
            "timestamp": int(s["startTimeUnixNano"]) // 1000,
            "tags": {k: v if isinstance(v, str) else json.dumps(v) for k, v in s["attributes"].items()},
        }
        for s in spans
    ]
    jaeger = {
        "data": [
            {
                "traceID": "a" * 32,
                "spans": [
                    {
                        "traceID": s["traceId"],
                        "spanID": s["spanId"],
                        "operationName": s["name"],
                        "startTime": int(s["startTimeUnixNano"]) // 1000,
                        "tags": [
                            {"key": k, "type": "string", "value": v if isinstance(v, str) else json.dumps(v)}
                            for k, v in s["attributes"].items()
                        ],
                    }
                    for s in reversed(spans)  # an export lists spans as it likes: read in start order
                ],
            }
        ]
    }
    for name, document in (("zipkin.json", zipkin), ("jaeger.json", jaeger)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / name).write_text(json.dumps(document))
        result = audit(folder)
        assert result.summary.requests == 3, name
        assert [(d.code, d.kind) for d in result.diagnostics] == [("CL301", "reordered")], name
