"""What is not a request is not read as one, and a file of LLM traffic that is not read says why
(a CL001 naming what it is), never counted silently as "not an LLM call": response objects,
stream fixtures, token counting, legacy completions, spans of LLM calls no convention reads. Their
look-alikes (a cassette with a token count beside its requests, tool and agent spans) stay quiet."""

from __future__ import annotations

import json
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.config import load_settings

MESSAGES = [{"role": "user", "content": "Summarise the design document."}]


def audit(tmp_path: Path, files: dict[str, object]):
    for name, value in files.items():
        text = value if isinstance(value, str) else json.dumps(value)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return audit_logs(["."], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)


def notices(result) -> list[tuple[str, str, str]]:
    return [(d.code, d.path, d.message) for d in result.diagnostics]


def test_a_responses_api_response_object_is_named_not_read(tmp_path: Path) -> None:
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "output": [], "usage": {"input_tokens": 9}}
    result = audit(tmp_path, {"response.json": response})
    ((code, path, message),) = notices(result)
    assert (code, path) == ("CL001", "response.json") and "responses of an LLM API without the requests" in message
    assert result.summary.requests == 0


def test_a_stream_fixture_is_named_not_read(tmp_path: Path) -> None:
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 3}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "message_stop"},
    ]
    result = audit(tmp_path, {"stream.jsonl": "\n".join(json.dumps(e) for e in events) + "\n"})
    ((code, _path, message),) = notices(result)
    assert code == "CL001" and message.startswith("3 record(s) are events of a streamed LLM response")


def cassette(*calls: tuple[str, dict]) -> dict:
    return {
        "interactions": [
            {
                "request": {"method": "POST", "uri": url, "body": json.dumps(body), "headers": {}},
                "response": {"status": {"code": 200, "message": "OK"}, "body": {"string": "{}"}},
            }
            for url, body in calls
        ]
    }


def test_a_file_of_token_counts_or_legacy_completions_alone_says_so(tmp_path: Path) -> None:
    count = ("https://api.anthropic.com/v1/messages/count_tokens", {"model": "claude-sonnet-4-5", "messages": MESSAGES})
    legacy = ("https://api.openai.com/v1/completions", {"model": "gpt-3.5-turbo-instruct", "prompt": "Say hi"})
    inputs = ("https://api.openai.com/v1/responses/input_tokens", {"model": "gpt-5", "instructions": "Be brief."})
    result = audit(
        tmp_path,
        {"count.json": cassette(count, count), "legacy.json": cassette(legacy), "inputs.json": cassette(inputs)},
    )
    found = sorted((path, message.split(",")[0]) for _code, path, message in notices(result))
    assert found == [
        ("count.json", "2 record(s) are calls to /v1/messages/count_tokens"),
        ("inputs.json", "1 record(s) are calls to /v1/responses/input_tokens"),
        ("legacy.json", "1 record(s) are calls to /v1/completions"),
    ]
    assert result.summary.requests == 0


def test_a_token_count_beside_the_requests_of_a_recording_is_skipped_quietly(tmp_path: Path) -> None:
    count = ("https://api.anthropic.com/v1/messages/count_tokens", {"model": "claude-sonnet-4-5", "messages": MESSAGES})
    call = (
        "https://api.anthropic.com/v1/messages",
        {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": MESSAGES},
    )
    embed = ("https://api.openai.com/v1/embeddings", {"model": "text-embedding-3-small", "input": ["a"]})
    result = audit(tmp_path, {"mixed.json": cassette(count, call), "embeddings.json": cassette(embed)})
    assert notices(result) == []
    assert result.summary.requests == 1 and result.summary.skipped_non_llm == 2


def span(attributes: dict, name: str = "chat") -> dict:
    return {
        "name": name,
        "context": {"trace_id": "0x1", "span_id": "0x2"},
        "start_time": "2026-11-29T10:00:00Z",
        "attributes": attributes,
    }


def test_llm_call_spans_no_convention_reads_are_named_and_agent_spans_are_not(tmp_path: Path) -> None:
    spans = [
        span({"gen_ai.request.model": "gpt-5", "gen_ai.usage.input_tokens": 1200}),  # no provider, no prompt
        span({"ai.prompt.messages": json.dumps(MESSAGES), "ai.model.id": "gpt-5"}, "ai.generateText.doGenerate"),
        span({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"}, "execute_tool search"),
        span({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"}, "invoke_agent planner"),
        span({"http.method": "GET", "http.url": "https://example.com/"}, "GET"),
    ]
    result = audit(tmp_path, {"spans.json": spans})
    found = sorted(message.split(" (")[0] for _c, _p, message in notices(result))
    assert found == ["1 record(s) are LLM call spans"]
    assert result.summary.requests == 1  # the Vercel AI SDK's provider call is read


def test_spans_of_a_tracing_backend_export_are_named(tmp_path: Path) -> None:
    zipkin = [{"traceId": "a1", "id": "b2", "name": "chat gpt-5", "tags": {"gen_ai.system": "openai"}}]
    result = audit(tmp_path, {"zipkin.json": zipkin})
    ((code, _path, message),) = notices(result)
    assert code == "CL001" and "gen_ai.* attributes" in message


def _har(url: str, body: dict) -> dict:
    request = {
        "method": "POST",
        "url": url,
        "headers": [{"name": "content-type", "value": "application/json"}],
        "postData": {"mimeType": "application/json", "text": json.dumps(body)},
    }
    response = {"status": 200, "content": {"mimeType": "application/json", "text": json.dumps({"id": "g1"})}}
    return {
        "log": {
            "version": "1.2",
            "entries": [{"startedDateTime": "2026-11-30T10:00:00Z", "request": request, "response": response}],
        }
    }


def test_a_request_to_a_provider_cachelint_does_not_audit_names_where_it_went(tmp_path: Path) -> None:
    har = _har("https://llm.internal.example/v1/generate", {"model": "house-7b", "prompt": "Tell me a joke"})
    result = audit(tmp_path, {"recording.har": har})
    ((code, path, message),) = notices(result)
    assert (code, path) == ("CL001", "recording.har")
    assert "sent to llm.internal.example, a provider or endpoint cachelint does not audit" in message
    assert "no model, URL" not in message


def test_generation_calls_with_no_prompt_cache_to_render_are_named(tmp_path: Path) -> None:
    cases = {
        "titan.har": (
            _har(
                "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-text-express-v1/invoke",
                {"inputText": "What are the 4 cardinal directions?", "textGenerationConfig": {"maxTokenCount": 512}},
            ),
            "calls to Bedrock InvokeModel for amazon.titan-text-express-v1, a model family whose requests",
        ),
        "cohere-chat.har": (
            _har(
                "https://api.cohere.ai/v1/chat",
                {"message": "What year was it?", "chat_history": [{"role": "USER", "message": "Who found gravity?"}]},
            ),
            "calls to /v1/chat, an endpoint the audit does not read",
        ),
        "cohere-generate.har": (
            _har("https://api.cohere.ai/v1/generate", {"model": "command-light", "prompt": "Tell me a joke"}),
            "calls to /v1/generate, an endpoint the audit does not read",
        ),
    }
    for name, (har, expected) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        result = audit(folder, {name: har})
        ((code, _path, message),) = notices(result)
        assert code == "CL001" and expected in message, (name, message)
        assert result.summary.requests == 0


def test_a_request_without_a_url_says_no_provider_could_be_told(tmp_path: Path) -> None:
    result = audit(tmp_path, {"calls.jsonl": json.dumps({"prompt": "Tell me a joke", "max_tokens": 5}) + "\n"})
    ((code, _path, message),) = notices(result)
    assert code == "CL001" and "no provider could be told (no model, URL or provider-specific field)" in message
