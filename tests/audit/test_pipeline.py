"""Usage and money through the whole audit (reader -> adapter -> ledger) for every provider, with
hand-computed figures, and the new rules firing from a log on disk."""

from __future__ import annotations

import json

import pytest

from conftest import audit_records

SYSTEM = "You are a careful assistant. " * 200


def _usage(result):
    return result.summary.usage


def test_bedrock_converse_usage_and_cachepoint(tmp_path):
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1:0/converse"
    body = {
        "system": [{"text": SYSTEM}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }
    response = {
        "output": {},
        "usage": {
            "inputTokens": 4,
            "outputTokens": 9,
            "totalTokens": 1513,
            "cacheReadInputTokens": 0,
            "cacheWriteInputTokens": 1500,
            "cacheDetails": [{"ttl": "5m", "inputTokens": 1500}],
        },
    }
    result = audit_records(tmp_path, [{"request": body, "response": response, "url": url}])
    s = _usage(result)["sessions"][0]
    assert s["provider"] == "bedrock-converse"
    assert s["tokens"] == {"read": 0, "written": 1500, "uncached": 4, "prompt": 1504}
    # Sonnet 4.5 rates: 4*3 + 1500*3.75 = 5637 per million
    assert s["money"] == pytest.approx(0.005637, abs=1e-6)
    assert [d.code for d in result.diagnostics] == []


def test_bedrock_long_prompt_without_cachepoint_is_cl310(tmp_path):
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1:0/converse"
    body = {"system": [{"text": SYSTEM}], "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    response = {"usage": {"inputTokens": 1504, "outputTokens": 9, "totalTokens": 1513}}
    once = audit_records(tmp_path, [{"request": body, "response": response, "url": url}])
    assert once.diagnostics == []  # a unique one-shot prompt: a breakpoint would only add the write premium
    again = {"system": body["system"], "messages": [{"role": "user", "content": [{"text": "hello"}]}]}
    result = audit_records(
        tmp_path,
        [{"request": body, "response": response, "url": url}, {"request": again, "response": response, "url": url}],
    )
    assert [(d.code, d.kind, d.record) for d in result.diagnostics] == [("CL310", "shared", 0)]
    assert "cache_control" not in result.diagnostics[0].message  # Bedrock has no automatic mode


def test_gemini_usage(tmp_path):
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    body = {
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    }
    response = {
        "candidates": [],
        "usageMetadata": {"promptTokenCount": 1504, "cachedContentTokenCount": 1024, "candidatesTokenCount": 3},
    }
    result = audit_records(tmp_path, [{"request": body, "response": response, "url": url}])
    s = _usage(result)["sessions"][0]
    assert s["tokens"] == {"read": 1024, "written": 0, "uncached": 480, "prompt": 1504}
    assert s["hit_rate"] == pytest.approx(0.6809, abs=1e-4)
    # 480*0.30 + 1024*0.03 = 174.72 per million
    assert s["money"] == pytest.approx(0.00017472, abs=1e-6)


def test_openai_responses_stream_usage(tmp_path):
    events = (
        "event: response.completed\ndata: "
        + json.dumps(
            {
                "type": "response.completed",
                "response": {
                    "id": "resp_1",
                    "usage": {
                        "input_tokens": 2048,
                        "input_tokens_details": {"cached_tokens": 1920},
                        "output_tokens": 5,
                    },
                },
            }
        )
        + "\n\n"
    )
    body = {
        "model": "gpt-5.4",
        "instructions": SYSTEM,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
    }
    result = audit_records(
        tmp_path, [{"request": body, "response": events, "url": "https://api.openai.com/v1/responses"}]
    )
    s = _usage(result)["sessions"][0]
    assert s["tokens"] == {"read": 1920, "written": 0, "uncached": 128, "prompt": 2048}
    # 128*2.50 + 1920*0.25 = 800 per million
    assert s["money"] == pytest.approx(0.0008, abs=1e-7)


def test_anthropic_stream_with_cache_diagnostics_disagreeing(tmp_path):
    def stream(read, written, reason=None):
        start = {
            "type": "message_start",
            "message": {
                "id": "msg_x",
                "usage": {
                    "input_tokens": 5,
                    "cache_read_input_tokens": read,
                    "cache_creation_input_tokens": written,
                    "output_tokens": 1,
                },
            },
        }
        if reason is not None:
            start["message"]["diagnostics"] = {"cache_miss_reason": {"type": reason, "cache_missed_input_tokens": 1500}}
        return "event: message_start\ndata: " + json.dumps(start) + "\n\n"

    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    one = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 9,
        "system": system,
        "messages": [{"role": "user", "content": "hi"}],
    }
    two = dict(
        one,
        messages=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "yo"},
            {"role": "user", "content": "more"},
        ],
    )
    records = [
        {"request": one, "response": stream(0, 1500), "time": "2026-11-01T10:00:00Z"},
        {"request": two, "response": stream(0, 1510, "tools_changed"), "time": "2026-11-01T10:00:20Z"},
    ]
    result = audit_records(tmp_path, records)
    assert [d.code for d in result.diagnostics] == ["CL308"]
    assert result.diagnostics[0].details["provider_reason"] == "tools_changed"
    s = _usage(result)["sessions"][0]
    assert s["provider_verdicts"][0]["agrees"] is False and s["disagreements"] == 1
    from cachelint.report import render

    assert "they disagree" in render("full", result.diagnostics, summary=result.summary)


def test_openai_prompt_cache_diagnostics_are_read_and_shown_beside_our_diff(tmp_path):
    """OpenAI's verdict (Responses ``prompt_cache_diagnostics``) is read like Anthropic's: a miss's
    reason is shown beside our diff; its tiers are not documented, so it is never called a
    disagreement; a hit or no diagnostics at all give no verdict."""
    instructions = SYSTEM

    def body(turns_: int, **extra):
        items = []
        for i in range(turns_):
            items.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"})
        return {"model": "gpt-5.6", "instructions": instructions, "input": items, "prompt_cache_key": "k1", **extra}

    def response(rid, read, diagnostics=None):
        usage = {"input_tokens": 2000, "input_tokens_details": {"cached_tokens": read}, "output_tokens": 3}
        out = {"id": rid, "object": "response", "usage": usage}
        if diagnostics is not None:
            out["prompt_cache_diagnostics"] = diagnostics
        return out

    miss = {"type": "cache_miss", "reason": "a_reason_we_do_not_map", "cache_missed_tokens": 1800}
    url = "https://api.openai.com/v1/responses"
    records = [
        {"request": body(1), "response": response("resp_1", 0), "time": "2026-11-01T10:00:00Z", "url": url},
        {
            "request": body(3),
            "response": response("resp_2", 1792, {"type": "cache_hit"}),
            "time": "2026-11-01T10:00:10Z",
            "url": url,
        },
        {"request": body(5), "response": response("resp_3", 0, miss), "time": "2026-11-01T10:00:20Z", "url": url},
    ]
    result = audit_records(tmp_path, records)
    (s,) = _usage(result)["sessions"]
    (verdict,) = s["provider_verdicts"]
    assert (verdict["record"], verdict["provider_reason"], verdict["provider_missed_tokens"]) == (
        2,
        "a_reason_we_do_not_map",
        1800,
    )
    assert verdict["agrees"] is None and s["disagreements"] == 0
    from cachelint.report import render

    text = render("full", result.diagnostics, summary=result.summary)
    assert "record 2: provider says a_reason_we_do_not_map, our diff says prefix intact: no tier to compare" in text
