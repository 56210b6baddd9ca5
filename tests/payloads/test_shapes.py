"""What the audit says about inputs it does not read: files that are not logs, and records of LLM
log shapes the readers do not take (named), apart from traffic that is no LLM call (counted)."""

from __future__ import annotations

import pytest

from cachelint.payloads.formats.unread import unread_shape
from cachelint.payloads.shapes import not_a_log


@pytest.mark.parametrize(
    "name, head, kind",
    [
        ("agent.py", b"import os\n", "Python source"),
        ("agent.py", b'{"a": 1}\n', "Python source"),  # the name says it whatever the bytes
        ("x.toml", b"[tool]\n", "TOML"),
        ("nb.ipynb", b'{"cells": []}', "a Jupyter notebook"),
        ("run.log", b"#!/usr/bin/python\nimport sys\n", "Python source"),
        ("dump.bin", b"\x00\x01\x02", "a binary file"),
        ("notes", b"hello\n", "plain text"),
    ],
)
def test_files_that_are_not_logs_are_named(name, head, kind):
    assert not_a_log(name, head).startswith(f"not a request log: {kind} (")


@pytest.mark.parametrize(
    "name, head",
    [
        ("log.jsonl", b'{"model": "x"}\n'),
        ("log.txt", b"[1]\n"),
        ("cut.jsonl", b'ages": 1}\n{"model": "x"}\n'),
        ("e.jsonl", b""),
    ],
)
def test_logs_are_left_to_the_readers(name, head):
    assert not_a_log(name, head) is None


@pytest.mark.parametrize(
    "record, shape",
    [
        (
            {"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}},
            "Claude Code transcript",
        ),
        ({"type": "response_item", "payload": {}}, "Codex CLI rollout"),
        ({"resourceSpans": []}, "OpenTelemetry trace (OTLP JSON"),
        ({"name": "chat", "attributes": [{"key": "gen_ai.request.model", "value": {}}]}, "OpenTelemetry GenAI span"),
        ({"name": "llm", "attributes": {"llm.input_messages": []}}, "OpenInference span"),
        ({"run_type": "llm", "inputs": {}}, "LangSmith run"),
        ({"type": "GENERATION", "input": "hi"}, "Langfuse export"),
        ({"op_name": "openai.chat", "inputs": {}}, "W&B Weave call"),
        ({"custom_id": "a", "result": {"type": "succeeded"}}, "Anthropic Message Batches result"),
        ({"type": "message", "role": "assistant", "content": []}, "a response body without its request"),
        ({"log": {"payload": {"model": "m", "messages": []}}}, "a request body nested under 'log.payload'"),
        ({"body": '{"model": "m", "messages": []}'}, "a request body nested under 'body' (as a JSON string)"),
    ],
)
def test_llm_log_shapes_are_named(record, shape):
    assert unread_shape(record).startswith(shape)


@pytest.mark.parametrize(
    "record", [{"event": "click"}, {"input": "text", "model": "text-embedding-3-small", "dimensions": 3}, [1, 2], None]
)
def test_other_traffic_is_not_called_an_llm_log(record):
    assert unread_shape(record) is None


def test_a_wide_record_is_looked_at_within_a_budget():
    wide = {f"k{i}": {f"j{j}": {f"m{m}": {"x": 1} for m in range(50)} for j in range(50)} for i in range(50)}
    assert unread_shape(wide) is None
    wide["k0"]["j0"]["deep"] = {"model": "m", "messages": []}  # beyond the budget's first 500 values: not searched for
    assert unread_shape({"near": {"model": "m", "messages": []}, **wide}) == "a request body nested under 'near'"
