"""The scripted model: what it answers, turn by turn, in each API's wire format (read back the way
the audit reads a response), what a script makes it do, and the smallest arguments a schema takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachelint.payloads.sse import assemble_sse
from cachelint.proxy.fake_model import FakeModel, Script, ScriptError
from cachelint.proxy.schema_values import minimal_arguments

TOOL_SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "minLength": 3}}, "required": ["q"]}


def _anthropic(messages, stream=False, **extra):
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "stream": stream,
        "tools": [
            {"name": "search", "input_schema": TOOL_SCHEMA},
            {"name": "fetch", "input_schema": {"type": "object", "properties": {}}},
            {"type": "web_search_20250305", "name": "web_search"},  # a server tool: the model runs it, not the agent
        ],
        "messages": messages,
        **extra,
    }


def _answer(model: FakeModel, path: str, body: dict, query=None, upstream="anthropic"):
    reply = model.respond(upstream, "POST", path, query or {}, json.dumps(body).encode())
    text = b"".join(reply.chunks).decode()
    return reply, text


def test_anthropic_default_calls_each_client_tool_once_then_answers():
    model = FakeModel()
    history = [{"role": "user", "content": "go"}]
    reply, text = _answer(model, "/v1/messages", _anthropic(history))
    first = json.loads(text)
    assert reply.status == 200 and first["stop_reason"] == "tool_use"
    assert [(b["name"], b["input"]) for b in first["content"]] == [("search", {"q": "aaa"})]
    history += [{"role": "assistant", "content": first["content"]}, {"role": "user", "content": "r"}]
    second = json.loads(_answer(model, "/v1/messages", _anthropic(history))[1])
    assert [b["name"] for b in second["content"]] == ["fetch"]
    history += [{"role": "assistant", "content": second["content"]}, {"role": "user", "content": "r"}]
    third = json.loads(_answer(model, "/v1/messages", _anthropic(history))[1])
    assert third["stop_reason"] == "end_turn" and third["content"] == [{"type": "text", "text": "Done."}]
    assert "cache_read_input_tokens" not in third["usage"]  # unknown, not 0: it keeps no cache


def test_anthropic_stream_assembles_to_the_same_message():
    reply, text = _answer(FakeModel(), "/v1/messages", _anthropic([{"role": "user", "content": "go"}], stream=True))
    assert reply.headers["content-type"] == "text/event-stream" and len(reply.chunks) > 4
    events = [line.removeprefix("event: ") for line in text.splitlines() if line.startswith("event: ")]
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    partial = "".join(
        json.loads(line[6:])["delta"].get("partial_json", "")
        for line in text.splitlines()
        if line.startswith("data: ") and '"content_block_delta"' in line
    )
    assert json.loads(partial) == {"q": "aaa"}
    assert assemble_sse(text)["usage"]["output_tokens"] >= 1  # the audit reads the stream's usage


def test_anthropic_tool_choice_is_obeyed():
    model = FakeModel()
    named = json.loads(_answer(model, "/v1/messages", _anthropic([], tool_choice={"type": "tool", "name": "fetch"}))[1])
    assert [b["name"] for b in named["content"]] == ["fetch"]
    none = json.loads(_answer(model, "/v1/messages", _anthropic([], tool_choice={"type": "none"}))[1])
    assert none["content"][0]["type"] == "text"


def _chat(messages, stream=False, **extra):
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": TOOL_SCHEMA}}]
    return {"model": "gpt-5", "messages": messages, "tools": tools, "stream": stream, **extra}


def test_chat_completions_calls_then_answers_and_streams_with_usage():
    model = FakeModel()
    first = json.loads(
        _answer(model, "/v1/chat/completions", _chat([{"role": "user", "content": "x"}]), upstream="openai")[1]
    )
    choice = first["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    call = choice["message"]["tool_calls"][0]
    assert call["function"]["name"] == "lookup" and json.loads(call["function"]["arguments"]) == {"q": "aaa"}
    history = [
        {"role": "user", "content": "x"},
        choice["message"],
        {"role": "tool", "tool_call_id": call["id"], "content": "ok"},
    ]
    reply, text = _answer(
        model,
        "/v1/chat/completions",
        _chat(history, stream=True, stream_options={"include_usage": True}),
        upstream="openai",
    )
    assert text.endswith("data: [DONE]\n\n")
    chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Done."
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] > 0
    assert "prompt_tokens_details" not in chunks[-1]["usage"]


def test_responses_chain_by_previous_response_id():
    model = FakeModel()
    tools = [{"type": "function", "name": "a", "parameters": {}}, {"type": "function", "name": "b", "parameters": {}}]
    body = {"model": "gpt-5", "input": "go", "tools": tools}
    first = json.loads(_answer(model, "/v1/responses", body, upstream="openai")[1])
    assert [i["name"] for i in first["output"]] == ["a"]
    chained = {
        **body,
        "input": [{"type": "function_call_output", "call_id": "x", "output": "ok"}],
        "previous_response_id": first["id"],
    }
    second = json.loads(_answer(model, "/v1/responses", chained, upstream="openai")[1])
    assert [i["name"] for i in second["output"]] == ["b"]  # knows what the chain already called
    reply, text = _answer(
        model, "/v1/responses", {**chained, "previous_response_id": second["id"], "stream": True}, upstream="openai"
    )
    completed = assemble_sse(text)  # as the audit reads the stream: the completed response
    assert completed["id"].startswith("resp_") and completed["output"][0]["content"][0]["text"] == "Done."
    assert completed["usage"]["input_tokens"] > 0
    numbers = [json.loads(line[6:])["sequence_number"] for line in text.splitlines() if line.startswith("data: ")]
    assert numbers == list(range(len(numbers)))


@pytest.mark.parametrize("sse", [True, False])
def test_gemini_generate_content_and_its_streams(sse):
    model = FakeModel()
    body = {
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "find",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"n": {"type": "INTEGER", "minimum": 2}},
                            "required": ["n"],
                        },
                    }
                ]
            }
        ],
    }
    first = json.loads(_answer(model, "/v1beta/models/gemini-2.5-flash:generateContent", body, upstream="gemini")[1])
    assert first["candidates"][0]["content"]["parts"] == [{"functionCall": {"name": "find", "args": {"n": 2}}}]
    body["contents"] += [
        first["candidates"][0]["content"],
        {"role": "user", "parts": [{"functionResponse": {"name": "find", "response": {}}}]},
    ]
    query = {"alt": "sse"} if sse else {}
    reply, text = _answer(
        model, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", body, query, upstream="gemini"
    )
    if sse:
        pieces = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    else:
        pieces = json.loads(text)  # one JSON array, sent in pieces
        assert len(reply.chunks) > 1
    assert "".join(p["candidates"][0]["content"]["parts"][0]["text"] for p in pieces) == "Done."
    assert pieces[-1]["candidates"][0]["finishReason"] == "STOP"


def test_errors_come_in_the_apis_own_shape():
    model = FakeModel()
    bad = model.respond("anthropic", "POST", "/v1/messages", {}, b"not json")
    assert bad.status == 400 and json.loads(bad.chunks[0])["error"]["type"] == "invalid_request_error"
    missing = model.respond("openai", "POST", "/v1/embeddings", {}, b"{}")
    assert missing.status == 404 and "the fake model answers" in json.loads(missing.chunks[0])["error"]["message"]
    gemini = model.respond("gemini", "GET", "/v1beta/models", {}, b"")
    assert json.loads(gemini.chunks[0])["error"]["status"] == "NOT_FOUND"
    counted = model.respond("anthropic", "POST", "/v1/messages/count_tokens", {}, b'{"messages":[]}')
    assert json.loads(counted.chunks[0])["input_tokens"] >= 1


def test_a_script_says_which_tools_each_answer_calls(tmp_path):
    script = tmp_path / "script.yaml"
    script.write_text(
        "turns:\n"
        "  - call: [fetch, {name: search, arguments: {q: cats}}]\n"
        "  - text: thinking it over\n"
        "  - call: '*'\n"
        "final-text: All done.\n",
        encoding="utf-8",
    )
    reports: list[str] = []
    model = FakeModel(Script.load(script), reports.append)
    history: list[dict] = [{"role": "user", "content": "go"}]
    answers = []
    for _ in range(4):
        answer = json.loads(_answer(model, "/v1/messages", _anthropic(history))[1])
        answers.append([(b.get("name"), b.get("input"), b.get("text")) for b in answer["content"]])
        history += [{"role": "assistant", "content": answer["content"]}, {"role": "user", "content": "r"}]
    assert answers == [
        [("fetch", {}, None), ("search", {"q": "cats"}, None)],  # parallel calls, arguments as given
        [(None, None, "thinking it over")],
        [("search", {"q": "aaa"}, None), ("fetch", {}, None)],  # '*': every offered tool (all were called), in order
        [(None, None, "All done.")],
    ]
    assert reports == []


def test_the_script_schema_is_a_schema_and_the_documented_script_follows_it(tmp_path):
    import re

    import jsonschema

    from cachelint.catalog import rules_dir

    schema = json.loads((rules_dir() / "schema" / "fake-model-script.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "capture.md").read_text(encoding="utf-8")
    [documented] = re.findall(r"```yaml\n(turns:.*?)```", docs, re.S)
    (tmp_path / "documented.yaml").write_text(documented, encoding="utf-8")
    script = Script.load(tmp_path / "documented.yaml")
    assert len(script.turns) == 4 and script.turns[1].calls[0].arguments == {"path": "README.md"}
    assert script.turns[3].every and script.final_text == "All done."


def test_a_script_naming_a_tool_not_offered_is_a_400_that_says_so(tmp_path):
    script = tmp_path / "s.json"
    script.write_text('{"turns": [{"call": ["delete_everything"]}]}', encoding="utf-8")
    reports: list[str] = []
    reply, text = _answer(FakeModel(Script.load(script), reports.append), "/v1/messages", _anthropic([]))
    assert reply.status == 400
    assert "answer 1 of the script calls 'delete_everything', which the request does not offer" in text
    assert reports and "delete_everything" in reports[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("turns: [{call: []}]", "turns[0]"),
        ("turns: [{text: 3}]", "turns[0]"),
        ("turns: [{call: [x]}]\nextra: 1", "Additional properties are not allowed"),
        ("turns: [call: x", "not YAML or JSON"),
    ],
)
def test_a_bad_script_is_refused_with_its_file_and_place(tmp_path, text, message):
    script = tmp_path / "bad.yaml"
    script.write_text(text, encoding="utf-8")
    with pytest.raises(ScriptError) as error:
        Script.load(script)
    assert str(error.value).startswith(f"{script}: ") and message in str(error.value)


SCHEMAS = [
    {"type": "object", "properties": {}},
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 9}}, "required": ["a"]},
    {
        "type": "object",
        "properties": {"a": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.25}},
        "required": ["a"],
    },
    {"type": "object", "properties": {"a": {"type": "integer", "maximum": -3}}, "required": ["a"]},
    {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "string"}, "minItems": 3, "uniqueItems": True}},
        "required": ["a"],
    },
    {
        "type": "object",
        "properties": {"a": {"type": "string", "format": "date-time"}, "b": {"type": "string", "format": "email"}},
        "required": ["a", "b"],
    },
    {"type": "object", "properties": {"a": {"const": "fixed"}, "b": {"enum": [3, 4]}}, "required": ["a", "b"]},
    {
        "type": "object",
        "properties": {"a": {"anyOf": [{"type": "integer", "minimum": 10}, {"type": "null"}]}},
        "required": ["a"],
    },
    {
        "type": "object",
        "properties": {"a": {"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}},
        "required": ["a"],
    },
    {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]},
            {"required": ["b"], "properties": {"b": {"type": "string"}}},
        ]
    },
    {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/point"}},
        "required": ["a"],
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
    },
    {
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/n"}},
        "required": ["a"],
        "definitions": {"n": {"type": ["null", "integer"], "minimum": 1}},
    },
    {"type": "object", "minProperties": 2, "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
    {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{2}$"}},
        "required": ["code"],
    },
    {
        "type": "object",
        "properties": {
            "a": {
                "type": "object",
                "properties": {
                    "b": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2}
                },
                "required": ["b"],
            }
        },
        "required": ["a"],
    },
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_the_smallest_arguments_are_valid_for_their_schema(schema):
    import jsonschema

    value, problem = minimal_arguments(schema)
    assert problem is None
    jsonschema.validate(value, schema)


def test_a_schema_no_value_satisfies_is_said_not_hidden():
    contradiction = {"type": "string", "minLength": 5, "maxLength": 2}
    value, problem = minimal_arguments({"type": "object", "properties": {"a": contradiction}, "required": ["a"]})
    assert value == {"a": "aaaaa"} and "is too long" in problem


def test_a_password_pattern_with_look_aheads_still_gets_a_value():
    rule = {"type": "string", "pattern": "^(?=.*[A-Z])(?=.*[0-9]).{8,}$"}
    value, problem = minimal_arguments({"type": "object", "properties": {"p": rule}, "required": ["p"]})
    assert problem is None and len(value["p"]) >= 8
