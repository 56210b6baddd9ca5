"""Provider adapters: detection from URL and body shape, tiers, settings, breakpoints, skipping."""

from __future__ import annotations


import pytest

from helpers import anthropic, turns

from cachelint.catalog import load_packs
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.providers import ProviderRules, canonical_bytes, to_request

RULES = ProviderRules.from_packs(load_packs("payloads-providers"))


def req(body, url=None, response=None):
    return to_request(Record(Origin("log.jsonl"), body, response=response, url=url), RULES)


def test_anthropic_tiers_offsets_and_breakpoints():
    body = anthropic(
        turns(3), system=[{"type": "text", "text": "Stable.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    )
    body["tools"][-1]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    body["messages"][2]["content"] = [{"type": "text", "text": "q", "cache_control": {"type": "ephemeral"}}]
    r = req(body)
    assert r.provider == "anthropic" and r.model == "claude-sonnet-4-5"
    assert [b.name for b in r.tools] == ["search", "fetch", "summarize", "translate"]
    assert r.tools[0].offset == 0 and r.system[0].offset == r.tools[-1].end and r.messages[0].offset == r.system[0].end
    assert all(b"cache_control" not in b.data for b in (*r.tools, *r.system, *r.messages))
    assert [(bp.tier, bp.block, bp.part, bp.position, bp.ttl) for bp in r.breakpoints] == [
        ("tools", 3, None, 3, "1h"),
        ("system", 0, None, 4, "1h"),
        ("messages", 2, 0, 7, "5m"),
    ]


def test_a_null_cache_control_is_no_breakpoint():
    """SDKs serialise an unset field as "cache_control": null (Mirascope's recordings): the API
    counts no breakpoint for it, so neither does the audit — four nulls beside three markers were
    reported as five breakpoints, over the limit of four."""
    body = anthropic(
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": t, "cache_control": None} for t in "abc"]
                + [{"type": "text", "text": "d", "cache_control": {"type": "ephemeral"}}],
            }
        ],
        system=[{"type": "text", "text": "S", "cache_control": None}],
    )
    body["tools"][0]["cache_control"] = None
    r = req(body)
    assert [(bp.tier, bp.block, bp.part) for bp in r.breakpoints] == [("messages", 0, 3)]
    assert all(b"cache_control" not in b.data for b in (*r.tools, *r.system, *r.messages))


def test_string_and_single_text_block_render_alike():
    a = req(anthropic([{"role": "user", "content": "hi"}], system="S"))
    b = req(
        anthropic(
            [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], system=[{"type": "text", "text": "S"}]
        )
    )
    assert [x.data for x in a.system + a.messages] == [x.data for x in b.system + b.messages]


def test_key_order_is_kept():
    assert canonical_bytes({"b": 1, "a": 2}) == b'{"b":1,"a":2}'
    assert (
        canonical_bytes({"b": 1, "cache_control": {"type": "ephemeral"}, "a": [{"cachePoint": {}}, 1]})
        == b'{"b":1,"a":[1]}'
    )


def test_anthropic_settings():
    body = anthropic(
        turns(1),
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
        thinking={"type": "enabled", "budget_tokens": 2048},
        speed="fast",
    )
    body["tools"].append({"type": "web_search_20250305", "name": "web_search"})
    body["messages"][0]["content"] = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
        {"type": "text", "text": "what is this"},
    ]
    s = req(body).settings
    assert s["tool_choice"] == {"type": "auto"} and s["disable_parallel_tool_use"] is True
    assert (
        s["thinking"]["budget_tokens"] == 2048 and s["speed"] == "fast" and s["web_search"] is True and s["images"] == 1
    )


def test_automatic_caching_breakpoint():
    r = req(anthropic(turns(3), cache_control={"type": "ephemeral"}))
    (bp,) = r.breakpoints
    assert bp.automatic and bp.tier == "messages" and bp.block == 2


def test_bedrock_invoke_and_vertex_bodies_are_anthropic():
    body = anthropic(turns(1))
    body.pop("model")
    body["anthropic_version"] = "bedrock-2023-05-31"
    r = req(body, url="https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-v1%3A0/invoke")
    assert (r.provider, r.model) == ("anthropic", "anthropic.claude-sonnet-4-5-v1:0")
    v = req(
        body,
        url="https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
    )
    assert (v.provider, v.model) == ("anthropic", "claude-sonnet-4-5")


def test_openai_chat_system_messages_form_the_system_tier():
    body = {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "developer", "content": "D"},
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "mid"},
        ],
        "tools": [
            {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
        ],
        "response_format": {"type": "json_object"},
        "prompt_cache_key": "tenant-1",
    }
    r = req(body, url="https://api.openai.com/v1/chat/completions")
    assert r.provider == "openai-chat"
    assert [b.tier for b in r.system] == ["system", "system"] and [b.name for b in r.messages] == ["user", "system"]
    assert r.messages[0].index == 0 and r.tools[0].name == "get_time"
    assert r.settings["prompt_cache_key"] == "tenant-1" and r.settings["response_format"] == {"type": "json_object"}


def test_openai_responses_instructions_input_and_chain():
    body = {
        "model": "gpt-5.5",
        "instructions": "Be exact.",
        "input": "hi",
        "previous_response_id": "resp_1",
        "text": {"format": {"type": "json_schema", "name": "x", "schema": {}}},
    }
    r = req(body, url="https://api.openai.com/v1/responses", response={"id": "resp_2", "usage": {"input_tokens": 5}})
    assert r.provider == "openai-responses" and r.previous_response_id == "resp_1" and r.response_id == "resp_2"
    assert r.system[0].raw == {"type": "input_text", "text": "Be exact."}
    assert r.messages[0].raw == {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    assert r.settings["response_format"]["type"] == "json_schema" and r.usage == {"input_tokens": 5}


def test_openai_responses_leading_developer_items_are_the_system_prompt():
    """As Chat's leading system messages: a developer item at the head of ``input`` is the
    system prompt, so two questions of one agent differ in their messages only (Mirascope's
    recordings: two one-shot questions were one session with "message 1 changed")."""
    dev = {"role": "developer", "content": "Answer in French."}
    url = "https://api.openai.com/v1/responses"
    a = req({"model": "gpt-4o", "input": [dev, {"role": "user", "content": "Capital of Italy?"}]}, url=url)
    b = req({"model": "gpt-4o", "input": [dev, {"role": "user", "content": "Capital of Spain?"}]}, url=url)
    assert [blk.tier for blk in a.system] == ["system"] and a.system[0].data == b.system[0].data
    assert len(a.messages) == 1 and a.messages[0].offset == a.system[0].end
    with_instructions = req(
        {"model": "gpt-4o", "instructions": "Be exact.", "input": [dev, {"role": "user", "content": "x"}]}, url=url
    )
    assert [blk.name for blk in with_instructions.system] == ["instructions", "system"]


def test_bedrock_converse_model_from_url_and_cache_points():
    body = {
        "system": [{"text": "stable"}, {"cachePoint": {"type": "default", "ttl": "1h"}}],
        "toolConfig": {
            "tools": [
                {"toolSpec": {"name": "get_time", "inputSchema": {"json": {"type": "object"}}}},
                {"cachePoint": {"type": "default"}},
            ],
            "toolChoice": {"auto": {}},
        },
        "messages": [
            {"role": "user", "content": [{"text": "doc"}, {"cachePoint": {"type": "default"}}, {"text": "question"}]}
        ],
    }
    r = req(body, url="https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-haiku-4-5/converse")
    assert (r.provider, r.model) == ("bedrock-converse", "anthropic.claude-haiku-4-5")
    assert [b.name for b in r.tools] == ["get_time"] and len(r.system) == 1
    assert b"cachePoint" not in r.messages[0].data
    assert [(bp.tier, bp.block, bp.part, bp.ttl) for bp in r.breakpoints] == [
        ("tools", 0, None, "5m"),
        ("system", 0, None, "1h"),
        ("messages", 0, 0, "5m"),
    ]


def test_gemini_model_from_url_and_function_declarations():
    body = {
        "systemInstruction": {"parts": [{"text": "S"}]},
        "tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}, {"googleSearch": {}}],
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    }
    r = req(
        body,
        url="https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=SECRET",
        response={"usageMetadata": {"cachedContentTokenCount": 3}},
    )
    assert (r.provider, r.model) == ("gemini", "gemini-2.5-flash")
    assert [b.name for b in r.tools] == ["a", "b", "googleSearch"] and r.usage == {"cachedContentTokenCount": 3}


@pytest.mark.parametrize(
    "url, body",
    [
        ("https://api.openai.com/v1/embeddings", {"model": "text-embedding-3-small", "input": ["a"]}),
        ("https://telemetry.crewai.com:4319/v1/traces", {"resourceSpans": []}),
        (None, {"model": "text-embedding-3-small", "input": "a", "encoding_format": "float"}),
        (None, {"hello": "world"}),
        ("https://api.anthropic.com/v1/messages/count_tokens", {"model": "claude-sonnet-4-5", "messages": []}),
    ],
)
def test_non_llm_requests_are_skipped(url, body):
    assert req(body, url=url) is None


@pytest.mark.parametrize(
    "body, provider",
    [
        (anthropic(turns(1)), "anthropic"),
        (
            {"model": "gpt-4o", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]},
            "openai-chat",
        ),
        (
            {
                "model": "gpt-5.5",
                "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
            },
            "openai-responses",
        ),
        (
            {"messages": [{"role": "user", "content": [{"text": "hi"}]}], "inferenceConfig": {"maxTokens": 5}},
            "bedrock-converse",
        ),
        ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, "gemini"),
    ],
)
def test_provider_from_body_shape_alone(body, provider):
    assert req(body).provider == provider
