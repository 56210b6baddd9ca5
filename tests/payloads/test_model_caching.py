"""Models their provider caches nothing for (``implicit: false`` in payloads-limits: OpenAI before
gpt-4o, Gemini before 2.5) and OpenAI's 128-token read steps."""

from __future__ import annotations

from typing import Any

import pytest

from cachelint.diagnostics import Severity
from tests.conftest import audit_records

SYSTEM = "You are a careful research assistant. Answer with sources. " * 120  # ~1,700 tokens


def chat(model: str, n: int, system: str = SYSTEM) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for i in range(n):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"})
    return {"model": model, "messages": messages}


def openai_usage(prompt: int, cached: int) -> dict[str, Any]:
    return {
        "usage": {"prompt_tokens": prompt, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": cached}}
    }


def session(model: str, reads: list[int], prompts: list[int]) -> list[dict[str, Any]]:
    return [
        {"request": chat(model, 2 * i + 1), "response": openai_usage(p, r), "time": f"2026-11-29T10:00:{10 * i:02d}Z"}
        for i, (r, p) in enumerate(zip(reads, prompts))
    ]


def codes(result, code: str) -> list:
    return [d for d in result.diagnostics if d.code == code]


@pytest.mark.parametrize("model", ["gpt-3.5-turbo", "gpt-4-turbo-2024-04-09", "gpt-4", "gpt-4-0613"])
def test_no_read_is_expected_from_models_without_caching(tmp_path, model):
    result = audit_records(tmp_path, session(model, [0, 0, 0], [1700, 1750, 1800]))
    assert codes(result, "CL308") == []


def test_the_same_log_on_gpt_4o_misses(tmp_path):
    result = audit_records(tmp_path, session("gpt-4o", [0, 0, 0], [1700, 1750, 1800]))
    assert [d.record for d in codes(result, "CL308")] == [1, 2]


def test_reads_in_128_token_steps_are_not_misses(tmp_path):
    """A 1,193-token prefix can be read up to 1,152 tokens (1,024 + one 128-token step)."""
    result = audit_records(tmp_path, session("gpt-4o-mini", [0, 1024], [1193, 1240]))
    assert codes(result, "CL308") == []
    result = audit_records(tmp_path, session("gpt-4o-mini", [0, 1024], [1500, 1540]))
    assert [d.details["expected_read"] for d in codes(result, "CL308")] == [1408]  # 1,024 + 3 x 128


def test_a_change_on_a_model_without_caching_lost_nothing(tmp_path):
    first = {"request": chat("gemini-2.0-flash", 1), "time": "2026-11-29T10:00:00Z"}
    second = {"request": chat("gemini-2.0-flash", 3, system=SYSTEM + " Be brief."), "time": "2026-11-29T10:00:10Z"}
    for record in (first, second):
        record["request"] = {
            "contents": [
                {"role": "user", "parts": [{"text": m["content"]}]} for m in record["request"]["messages"][1:]
            ],
            "systemInstruction": {"parts": [{"text": record["request"]["messages"][0]["content"]}]},
        }
        record["url"] = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent"
    (d,) = codes(audit_records(tmp_path, [first, second]), "CL302")
    assert d.severity is Severity.INFO
    assert d.message.endswith("nothing cached was lost this time: its provider caches nothing for gemini-2.0-flash")


def test_openai_miss_without_a_cache_key_suggests_one(tmp_path):
    (d, *_) = codes(audit_records(tmp_path, session("gpt-4o", [0, 0], [1700, 1750])), "CL308")
    assert d.details["hint"] == "prompt_cache_key" and "set prompt_cache_key" in d.message
    keyed = session("gpt-4o", [0, 0], [1700, 1750])
    for record in keyed:
        record["request"]["prompt_cache_key"] = "tenant-a"
    (d, *_) = codes(audit_records(tmp_path, keyed), "CL308")
    assert "hint" not in d.details and "prompt_cache_key" not in d.message


def test_a_miss_on_a_compatible_api_suggests_no_openai_key(tmp_path):
    elsewhere = session("gpt-4o", [0, 0], [1700, 1750])
    for record in elsewhere:
        record["url"] = "https://gateway.example.net/v1/chat/completions"
    (d, *_) = codes(audit_records(tmp_path, elsewhere), "CL308")
    assert "hint" not in d.details and "prompt_cache_key" not in d.message


def test_usage_that_adds_up_server_tool_steps_is_not_the_prompt(tmp_path):
    """Anthropic's web search runs several sampling steps inside one request and the usage adds
    them all up (``server_tool_use``): 36K tokens "cached" by a 2K-token prompt. That total is what
    the request cost, not what it left in the cache: the next request reading 16K of it is no
    miss (Mirascope's recordings), while the money still counts every token."""
    marked_search = [{"type": "web_search_20250305", "name": "web_search", "cache_control": {"type": "ephemeral"}}]
    question = {"role": "user", "content": "Look up the price of bitcoin on Jan 1, 2026. " * 80}

    def body(messages):
        return {"model": "claude-sonnet-4-5", "max_tokens": 1000, "tools": marked_search, "messages": messages}

    searched = {
        "input_tokens": 2081,
        "cache_creation_input_tokens": 7621,
        "cache_read_input_tokens": 28247,
        "output_tokens": 574,
        "server_tool_use": {"web_search_requests": 3},
    }
    follow_up = [
        question,
        {"role": "assistant", "content": "Not found."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "And Ethereum?", "cache_control": {"type": "ephemeral"}}],
        },
    ]
    records = [
        {"request": body([question]), "response": {"usage": searched}, "time": "2026-11-29T10:00:00Z"},
        {
            "request": body(follow_up),
            "response": {
                "usage": {
                    "input_tokens": 17,
                    "cache_creation_input_tokens": 300,
                    "cache_read_input_tokens": 16242,
                    "output_tokens": 5,
                }
            },
            "time": "2026-11-29T10:00:30Z",
        },
    ]
    result = audit_records(tmp_path, records)
    assert codes(result, "CL308") == []
    (s,) = result.summary.usage["sessions"]
    assert s["tokens"]["read"] == 28247 + 16242  # billed: every step counts
    # the same pair without the server steps: the shortfall is a miss
    records[0]["response"]["usage"] = {k: v for k, v in searched.items() if k != "server_tool_use"}
    assert len(codes(audit_records(tmp_path, records), "CL308")) == 1
    # code execution is not counted in server_tool_use (pydantic-ai's recordings: all zeros there):
    # the server_tool_use blocks of the response's content tell it
    records[0]["response"]["usage"] = dict(
        searched, server_tool_use={"web_search_requests": 0, "web_fetch_requests": 0}
    )
    records[0]["response"]["content"] = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "bash_code_execution", "input": {"command": "ls"}},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_1", "content": {}},
        {"type": "text", "text": "Done."},
    ]
    assert codes(audit_records(tmp_path, records), "CL308") == []


def test_openai_responses_usage_with_server_executed_items_is_not_the_prompt(tmp_path):
    """A Responses result whose output holds items the server executed (web_search_call,
    code_interpreter_call…) or whose usage counts tool requests (``tool_usage``) adds up the
    internal model calls: recorded, a 40-token prompt with one search reports 9,299 input and 8,448
    cached tokens. The next, single-call request reading 1,024 of them is no miss."""
    question = {"role": "user", "content": "What was the closing price of NVDA yesterday? " * 40}

    def body(items):
        return {"model": "gpt-5", "input": items, "tools": [{"type": "web_search"}], "prompt_cache_key": "k"}

    searched_output = [
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It closed at 181."}]},
    ]
    first_usage = {"input_tokens": 9299, "input_tokens_details": {"cached_tokens": 8448}, "output_tokens": 400}
    follow_up = [
        question,
        {"role": "assistant", "content": "It closed at 181."},
        {"role": "user", "content": "And AMD?"},
    ]
    records = [
        {
            "request": body([question]),
            "response": {"id": "resp_1", "output": searched_output, "usage": first_usage},
            "time": "2026-11-29T10:00:00Z",
        },
        {
            "request": body(follow_up),
            "response": {
                "id": "resp_2",
                "output": [],
                "usage": {"input_tokens": 1900, "input_tokens_details": {"cached_tokens": 1024}, "output_tokens": 5},
            },
            "time": "2026-11-29T10:00:30Z",
        },
    ]
    assert codes(audit_records(tmp_path, records), "CL308") == []
    # told by the usage alone (tool_usage), without the output items
    records[0]["response"] = {
        "id": "resp_1",
        "usage": dict(first_usage, tool_usage={"web_search": {"num_requests": 1}}),
    }
    assert codes(audit_records(tmp_path, records), "CL308") == []
    # a client-executed item ends the response: its usage is one prompt, and the shortfall is a miss
    records[0]["response"] = {
        "id": "resp_1",
        "usage": first_usage,
        "output": [{"type": "function_call", "name": "quote", "arguments": "{}", "call_id": "c1"}],
    }
    assert len(codes(audit_records(tmp_path, records), "CL308")) == 1
