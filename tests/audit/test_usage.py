"""Usage arithmetic per provider, against figures computed by hand from the documented semantics
(docs/background/usage-and-pricing.md#anthropic-usage, #openai-usage, #gemini-usage): Anthropic's input_tokens EXCLUDES cached tokens,
OpenAI's prompt/input tokens INCLUDE them, Bedrock's inputTokens excludes them, Gemini's
promptTokenCount includes them."""

from __future__ import annotations

import json

import pytest

from cachelint.payloads.pricing import PriceTable, break_cost_estimate, break_cost_from_usage
from cachelint.payloads.cache_usage import CacheUsage
from cachelint.payloads.usage import miss_reason, read_usage, reason_agrees, usage_from_response
from cachelint.catalog import load_packs


def test_anthropic_input_excludes_cache_and_ttl_split():
    u = read_usage(
        {
            "input_tokens": 50,
            "cache_creation_input_tokens": 2000,
            "cache_read_input_tokens": 10000,
            "cache_creation": {"ephemeral_5m_input_tokens": 500, "ephemeral_1h_input_tokens": 1500},
            "output_tokens": 300,
        },
        "anthropic",
    )
    assert (u.uncached, u.read, u.written, u.written_5m, u.written_1h, u.output) == (50, 10000, 2000, 500, 1500, 300)
    assert u.prompt == 12050  # 10000 + 2000 + 50 (Anthropic's prompt caching docs: total = read + creation + input)


def test_anthropic_without_split_counts_the_write_as_5m():
    u = read_usage({"input_tokens": 3, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 0}, "anthropic")
    assert (u.written_5m, u.written_1h) == (1200, 0)


def test_openai_chat_prompt_includes_cached():
    u = read_usage(
        {"prompt_tokens": 2006, "completion_tokens": 300, "prompt_tokens_details": {"cached_tokens": 1920}},
        "openai-chat",
    )
    assert (u.uncached, u.read, u.written, u.prompt, u.output) == (86, 1920, 0, 2006, 300)


def test_openai_responses_with_cache_write_tokens():
    # GPT-5.6+: cache_write_tokens beside cached_tokens, both inside input_tokens.
    u = read_usage(
        {
            "input_tokens": 5000,
            "input_tokens_details": {"cached_tokens": 3072, "cache_write_tokens": 1800},
            "output_tokens": 9,
        },
        "openai-responses",
    )
    assert (u.uncached, u.read, u.written, u.prompt) == (128, 3072, 1800, 5000)


def test_openai_malformed_never_negative():
    u = read_usage({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 500}}, "openai-chat")
    assert (u.uncached, u.read) == (0, 100)


def test_bedrock_input_excludes_cache_and_cache_details():
    u = read_usage(
        {
            "inputTokens": 20,
            "outputTokens": 7,
            "totalTokens": 4027,
            "cacheReadInputTokens": 3000,
            "cacheWriteInputTokens": 1000,
            "cacheDetails": [{"ttl": "1h", "inputTokens": 600}, {"ttl": "5m", "inputTokens": 400}],
        },
        "bedrock-converse",
    )
    assert (u.uncached, u.read, u.written, u.written_5m, u.written_1h) == (20, 3000, 1000, 400, 600)
    assert u.prompt + u.output == 4027  # totalTokens


def test_gemini_prompt_includes_cached():
    u = read_usage({"promptTokenCount": 10000, "cachedContentTokenCount": 7500, "candidatesTokenCount": 40}, "gemini")
    assert (u.uncached, u.read, u.written, u.output) == (2500, 7500, 0, 40)


def test_streams_anthropic_message_start():
    sse = "\n".join(
        [
            "event: message_start",
            "data: "
            + json.dumps(
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_1",
                        "usage": {
                            "input_tokens": 4,
                            "cache_read_input_tokens": 900,
                            "cache_creation_input_tokens": 100,
                            "output_tokens": 1,
                        },
                    },
                }
            ),
            "",
            "event: message_delta",
            "data: " + json.dumps({"type": "message_delta", "usage": {"output_tokens": 57}}),
            "",
        ]
    )
    u = usage_from_response(sse, "anthropic")
    assert (u.uncached, u.read, u.written, u.output) == (4, 900, 100, 57)


def test_streams_openai_chat_final_chunk_and_responses_completed():
    chat = "data: " + json.dumps({"choices": [{"delta": {"content": "x"}}]}) + "\n\n"
    chat += (
        "data: "
        + json.dumps(
            {
                "choices": [],
                "usage": {
                    "prompt_tokens": 1500,
                    "completion_tokens": 2,
                    "prompt_tokens_details": {"cached_tokens": 1024},
                },
            }
        )
        + "\n\ndata: [DONE]\n"
    )
    u = usage_from_response(chat, "openai-chat")
    assert (u.uncached, u.read) == (476, 1024)
    resp = (
        "event: response.completed\ndata: "
        + json.dumps(
            {
                "type": "response.completed",
                "response": {
                    "id": "resp_1",
                    "usage": {
                        "input_tokens": 2048,
                        "input_tokens_details": {"cached_tokens": 1152},
                        "output_tokens": 5,
                    },
                },
            }
        )
        + "\n"
    )
    u = usage_from_response(resp, "openai-responses")
    assert (u.uncached, u.read) == (896, 1152)


def test_streams_gemini_last_chunk_and_json_text():
    sse = "data: " + json.dumps({"candidates": [], "usageMetadata": {"promptTokenCount": 3000}}) + "\n\n"
    sse += (
        "data: "
        + json.dumps({"candidates": [], "usageMetadata": {"promptTokenCount": 3000, "cachedContentTokenCount": 2048}})
        + "\n\n"
    )
    assert usage_from_response(sse, "gemini").read == 2048
    assert usage_from_response(json.dumps({"usage": {"input_tokens": 1}}), "anthropic").uncached == 1
    assert usage_from_response("not json", "anthropic") is None
    assert usage_from_response({"no": "usage"}) is None


def test_bedrock_stream_metadata_event():
    u = usage_from_response({"metadata": {"usage": {"inputTokens": 5, "cacheReadInputTokens": 10}}}, "bedrock-converse")
    assert (u.uncached, u.read) == (5, 10)


def test_miss_reason_states():
    assert miss_reason(None) is None
    assert miss_reason({"cache_miss_reason": None}) == {"type": None, "tokens": None}
    assert miss_reason({"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 812}}) == {
        "type": "system_changed",
        "tokens": 812,
    }
    assert reason_agrees("system_changed", "system") is True
    assert reason_agrees("system_changed", "tools") is False
    assert reason_agrees("tools_changed", None) is False
    assert reason_agrees("model_changed", None, ("model",)) is True
    assert reason_agrees("unavailable", "tools") is None


@pytest.fixture(scope="module")
def prices() -> PriceTable:
    return PriceTable.from_packs(load_packs("payloads-prices"))


def test_prompt_cost_sonnet_hand_computed(prices):
    price = prices.lookup("claude-sonnet-4-5-20250929")
    u = CacheUsage("anthropic", uncached=50, read=10000, written=2000, written_5m=500, written_1h=1500)
    # 50*3 + 10000*0.30 + 500*3.75 + 1500*6 = 150 + 3000 + 1875 + 9000 = 14025 per million
    assert price.prompt_cost(u) == pytest.approx(0.014025)
    assert price.uncached_cost(u) == pytest.approx(12050 * 3 / 1e6)


def test_prices_match_models_and_dated(prices):
    assert prices.as_of == "2026-11-29"
    assert prices.lookup("claude-opus-4-5-20251101").input == 5.0
    assert prices.lookup("anthropic.claude-haiku-4-5-20251001-v1:0").cache_read == 0.1
    assert prices.lookup("gpt-4o-mini-2024-07-18").cache_read == 0.075
    assert prices.lookup("gpt-4o").cache_read == 1.25
    assert prices.lookup("models/gemini-2.5-flash").input == 0.3
    assert prices.lookup("totally-unknown") is None
    assert prices.lookup(None) is None


def test_break_cost_exact_and_estimate(prices):
    price = prices.lookup("claude-opus-4-8")
    u = CacheUsage("anthropic", uncached=100, read=0, written=20000, written_5m=20000)
    cost = break_cost_from_usage(20000, u, price)
    # paid 20000 at 6.25 instead of reading at 0.50: 20000 * 5.75 / 1e6
    assert cost.exact and cost.tokens == 20000 and cost.money == pytest.approx(0.115)
    # lost beyond what was written: the rest was billed as plain input (5.0)
    cost = break_cost_from_usage(20100, u, price)
    assert cost.money == pytest.approx((20000 * 6.25 + 100 * 5.0 - 20100 * 0.5) / 1e6)
    est = break_cost_estimate(1000, True, "1h", price)
    assert not est.exact and est.money == pytest.approx(1000 * (10 - 0.5) / 1e6)
    assert est.to_dict()["basis"].startswith("estimate")
    assert break_cost_estimate(1000, False, None, price).money == pytest.approx(1000 * 4.5 / 1e6)
    assert break_cost_estimate(10, True, None, None).money is None


def test_responses_stream_keeps_the_output_items_that_tell_server_steps():
    from cachelint.payloads.sse import assemble_sse

    search = {"id": "ws_1", "type": "web_search_call", "status": "completed"}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    usage = {"input_tokens": 9299, "input_tokens_details": {"cached_tokens": 8448}, "output_tokens": 5}
    events = [
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
    ]
    cut = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    assert assemble_sse(cut)["output"] == [search, message]  # a stream cut before it completed
    done = {"type": "response.completed", "response": {"id": "resp_1", "output": [search, message], "usage": usage}}
    whole = assemble_sse(cut + f"event: response.completed\ndata: {json.dumps(done)}\n\n")
    assert whole["output"] == [search, message] and whole["usage"] == usage and whole["id"] == "resp_1"


def test_anthropic_stream_keeps_the_content_blocks_that_tell_server_steps():
    from cachelint.payloads.sse import assemble_sse

    block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "bash_code_execution", "input": {}}
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude-sonnet-5", "usage": {"input_tokens": 6}}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "message_delta", "usage": {"output_tokens": 9}},
    ]
    out = assemble_sse("".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events))
    assert out["content"] == [block, {"type": "text", "text": ""}]
    assert out["usage"] == {"input_tokens": 6, "output_tokens": 9} and out["id"] == "msg_1"
