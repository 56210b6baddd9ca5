"""The real crewAI cassettes (tests/payloads/fixtures, MIT, crewAIInc/crewAI f4731f5): what a correct
audit says about them, worked out from the bytes.

- Anthropic planning: a reasoning-plan agent (1 tool, 2 requests) then a research agent (3 tools,
  10 requests) whose history only grows: two sessions, no break.
- Gemini planning: the same two agents (1 + 5 requests), no break.
- test_disabling_cache_for_agent: one agent, 9 requests, append-only (crewAI appends mid-history
  system messages, which is appending): no break.
- test_tools_with_custom_caching: the same agent kicked off twice with different tasks (first user
  message differs): two sessions of 4, no break.
- test_using_memory: a stitched cassette (recordings from 2024 to 2025): a researcher (gpt-4o), a task
  evaluator with a function tool (gpt-4o-mini), then a converter (gpt-4.1-mini, other system prompt, no
  tools) asked twice, the second time with a response_format: on OpenAI the structured-output schema is
  a prefix to the system message (docs/background/prefix-and-invalidation.md#openai), so that retry loses system and messages: CL304.
  Telemetry and embeddings calls are skipped.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cachelint.api import audit_logs
from cachelint.config import load_settings

FIXTURES = Path(__file__).parent / "fixtures"
MINE = {"select": ["CL001", "CL301", "CL302", "CL303", "CL304", "CL309"]}


def test_real_cassettes(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "cassettes")
    result = audit_logs(["cassettes"], settings=load_settings(tmp_path, isolated=True, overrides=MINE), cwd=tmp_path)
    sessions = [
        (s["path"].split("/")[-1][:28], s["provider"], s["requests"], s["breaks"])
        for s in result.summary.to_dict()["sessions"]
    ]
    assert sessions == [
        ("TestAnthropicStructuredPlann", "anthropic", 2, 0),
        ("TestAnthropicStructuredPlann", "anthropic", 10, 0),
        ("TestGeminiStructuredPlanning", "gemini", 1, 0),
        ("TestGeminiStructuredPlanning", "gemini", 5, 0),
        ("test_disabling_cache_for_age", "openai-chat", 9, 0),
        ("test_tools_with_custom_cachi", "openai-chat", 4, 0),
        ("test_tools_with_custom_cachi", "openai-chat", 4, 0),
        ("test_using_memory.yaml", "openai-chat", 1, 0),
        ("test_using_memory.yaml", "openai-chat", 1, 0),
        ("test_using_memory.yaml", "openai-chat", 2, 1),
    ]
    assert result.summary.skipped_non_llm == 8 and result.summary.requests == 39
    (d,) = result.diagnostics
    assert (d.code, d.kind, d.path, d.line, d.record, d.session) == (
        "CL304",
        "response_format",
        "cassettes/test_using_memory.yaml",
        1235,
        10,
        "s10",
    )
    assert d.details["invalidated"] == ["system", "messages"]


# pydantic-ai's cassette serializer stores JSON bodies decoded, as ``parsed_body`` in place of
# ``body`` (request and response). A cassette of that shape, written here (the shape of their
# test_cache_prefix_stability recordings: an AG-UI adapter that dropped thinking blocks).
PARSED_BODY_CASSETTE = """\
interactions:
- request:
    headers:
      content-type:
      - application/json
      x-api-key:
      - sk-ant-secret-never-shown
    method: POST
    parsed_body:
      max_tokens: 4096
      messages:
      - content:
        - text: 'What is 17 * 23?'
          type: text
        role: user
      model: claude-sonnet-4-5
      thinking:
        budget_tokens: 1024
        type: enabled
    uri: https://api.anthropic.com/v1/messages?beta=true
  response:
    parsed_body:
      content:
      - signature: EqQBCgIYAh
        thinking: 17 * 23 = 391
        type: thinking
      - text: '391'
        type: text
      usage:
        cache_creation_input_tokens: 0
        cache_read_input_tokens: 0
        input_tokens: 51
        output_tokens: 162
    status:
      code: 200
      message: OK
- request:
    method: POST
    parsed_body:
      max_tokens: 4096
      messages:
      - content:
        - text: 'What is 17 * 23?'
          type: text
        role: user
      - content:
        - signature: EqQBCgIYAh
          thinking: 17 * 23 = 391
          type: thinking
        - text: '391'
          type: text
        role: assistant
      - content:
        - text: 'And 17 * 24?'
          type: text
        role: user
      model: claude-sonnet-4-5
      thinking:
        budget_tokens: 1024
        type: enabled
    uri: https://api.anthropic.com/v1/messages?beta=true
  response:
    parsed_body:
      content:
      - text: '408'
        type: text
      usage:
        cache_creation_input_tokens: 0
        cache_read_input_tokens: 0
        input_tokens: 70
        output_tokens: 20
    status:
      code: 200
      message: OK
- request:
    method: POST
    parsed_body:
      max_tokens: 4096
      messages:
      - content:
        - text: 'What is 17 * 23?'
          type: text
        role: user
      - content:
        - text: '391'
          type: text
        role: assistant
      - content:
        - text: 'And 17 * 24?'
          type: text
        role: user
      - content:
        - text: '408'
          type: text
        role: assistant
      - content:
        - text: 'And 17 * 25?'
          type: text
        role: user
      model: claude-sonnet-4-5
      thinking:
        budget_tokens: 1024
        type: enabled
    uri: https://api.anthropic.com/v1/messages?beta=true
  response:
    parsed_body:
      content:
      - text: '425'
        type: text
      usage:
        cache_creation_input_tokens: 0
        cache_read_input_tokens: 0
        input_tokens: 90
        output_tokens: 20
    status:
      code: 200
      message: OK
version: 1
"""


def test_parsed_body_cassette(tmp_path):
    (tmp_path / "thinking_dropped.yaml").write_text(PARSED_BODY_CASSETTE, encoding="utf-8")
    result = audit_logs(
        ["thinking_dropped.yaml"], settings=load_settings(tmp_path, isolated=True, overrides=MINE), cwd=tmp_path
    )
    summary = result.summary.to_dict()
    assert (summary["requests"], summary["skipped_non_llm"]) == (3, 0)
    assert [s["requests"] for s in summary["sessions"]] == [3]
    (d,) = result.diagnostics
    assert (d.code, d.record, d.line) == ("CL303", 2, 75)
    assert "content[0] (thinking) removed" in d.message
    assert summary["usage"]["total"]["requests_with_usage"] == 3  # response parsed_body read too
    assert "sk-ant-secret" not in repr(result.diagnostics) + repr(summary)


def test_interactions_that_are_not_http_exchanges_are_skipped_not_reported(tmp_path):
    """WebSocket and gRPC recorders write cassettes of the same outline; a malformed HTTP
    interaction is still a CL001."""
    (tmp_path / "ws.yaml").write_text(
        "version: 1\ninteractions:\n- kind: message\n  direction: received\n  data: {type: session.created}\n"
        "- request_sample:\n    json: {model: grok-4}\n  response_sample:\n    json: {id: x}\n",
        encoding="utf-8",
    )
    (tmp_path / "bad.yaml").write_text("interactions:\n- request: not a mapping\n", encoding="utf-8")
    result = audit_logs(["ws.yaml", "bad.yaml"], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    assert [(d.code, d.path) for d in result.diagnostics] == [("CL001", "bad.yaml")]
    assert "has no request mapping" in result.diagnostics[0].message
    assert (result.summary.requests, result.summary.skipped_non_llm) == (0, 2)


def test_uploads_whose_bodies_a_recorder_replaced_are_skipped_not_reported(tmp_path):
    """go-vcr writes "[multipart form data omitted]" for an audio upload (envoyproxy/ai-gateway's
    cassettes); a HAR of the same upload likewise. Not JSON, and not an LLM call: skipped. A body
    declared JSON that does not parse (a truncated recording) is still a CL001."""
    (tmp_path / "audio.yaml").write_text(
        "version: 2\ninteractions:\n- id: 0\n  request:\n    body: '[multipart form data omitted]'\n"
        "    headers:\n      Content-Type:\n      - multipart/form-data; boundary=9b8b\n"
        "    url: https://api.openai.com/v1/audio/transcriptions\n    method: POST\n"
        '  response:\n    body: \'{"text": "The sun rises."}\'\n    code: 200\n',
        encoding="utf-8",
    )
    har = {
        "log": {
            "entries": [
                {
                    "startedDateTime": "2026-11-29T10:00:00Z",
                    "request": {
                        "method": "POST",
                        "url": "https://api.openai.com/v1/audio/transcriptions",
                        "headers": [],
                        "postData": {"mimeType": "multipart/form-data; boundary=x", "text": "[binary omitted]"},
                    },
                    "response": {"status": 200},
                }
            ]
        }
    }
    (tmp_path / "audio.har").write_text(json.dumps(har), encoding="utf-8")
    (tmp_path / "cut.yaml").write_text(
        'interactions:\n- request:\n    body: \'[{"role": "user"\'\n    headers:\n      content-type: [application/json]\n'
        "    uri: https://api.openai.com/v1/chat/completions\n    method: POST\n",
        encoding="utf-8",
    )
    result = audit_logs(
        ["audio.yaml", "audio.har", "cut.yaml"], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path
    )
    assert [(d.code, d.path) for d in result.diagnostics] == [("CL001", "cut.yaml")]
    assert (result.summary.requests, result.summary.skipped_non_llm) == (0, 2)


@pytest.mark.skipif(
    not os.environ.get("CACHELINT_CASSETTE_CORPUS"),
    reason="set CACHELINT_CASSETTE_CORPUS=dir[:dir...] to run on real recordings",
)
def test_real_recordings_corpus():
    """Opt-in ecosystem run (pydantic-ai's and crewAI's cassette folders were used, docs/audit.md):
    every recording is read without an internal error, and every CL001 names a real reading
    problem at a location."""
    roots = [Path(p) for p in os.environ["CACHELINT_CASSETTE_CORPUS"].split(os.pathsep) if p]
    for root in roots:
        result = audit_logs([str(root)], settings=load_settings(root, isolated=True), cwd=root)
        assert result.summary.requests > 0, root
        for d in result.diagnostics:
            assert "internal error" not in d.message and "cannot interpret request" not in d.message, (
                d.path,
                d.message,
            )
            if d.code == "CL001":
                assert d.line >= 1 and d.path


# --- recorders of other languages, and tags the safe loader does not know ------------------------

SAMPLES = Path(__file__).parent / "format_samples"


def _audit_folder(folder: Path):
    return audit_logs(["."], settings=load_settings(folder, isolated=True), cwd=folder)


@pytest.mark.parametrize("sample", ["vcr-ruby", "go-vcr", "vcrpy-aiohttp", "nock", "polly-har", "httprr"])
def test_every_response_of_a_recording_is_read_whatever_its_encoding(sample: str) -> None:
    """Ruby's base64 bodies, nock's gzip hex chunks, Polly's base64 gzip chunks: the second
    request's usage (a read of 1,850 tokens) is read like the plain ones around it."""
    result = _audit_folder(SAMPLES / sample / "timestamp")
    summary = result.summary.to_dict()
    assert summary["requests"] == 3 and summary["skipped_non_llm"] == 0, summary
    (session,) = summary["usage"]["sessions"]
    assert session["requests_with_usage"] == 3 and session["tokens"]["read"] == 1850, session


def test_a_ruby_vcr_cassette_takes_its_times_from_recorded_at(tmp_path: Path) -> None:
    from cachelint.payloads.formats.registry import read_bytes_as_log
    from cachelint.catalog import load_packs
    from cachelint.payloads.secrets import Redactor

    data = (SAMPLES / "vcr-ruby" / "timestamp" / "cassette.yml").read_bytes()
    records = read_bytes_as_log(data, "cassette.yml", "auto", Redactor.from_packs(load_packs("payloads-secrets")))
    assert [r.time.isoformat() for r in records] == [
        "2026-11-29T10:00:00+00:00",
        "2026-11-29T10:00:40+00:00",
        "2026-11-29T10:01:30+00:00",
    ]
    assert all(r.fmt == "vcr" and "x-api-key" not in r.headers for r in records)


def test_python_and_ruby_tags_are_read_as_plain_data_and_never_constructed(tmp_path: Path) -> None:
    """A tag that names a callable (``!!python/object/apply:os.system``) must not run it: the
    loader reads what it tags as data. ``!binary`` (Psych's) is base64 like ``!!binary``."""
    from cachelint.payloads.readers.documents import plain_tags_loader
    import yaml

    marker = tmp_path / "ran"
    text = (
        f"a: !!python/object/apply:os.system ['touch {marker}']\n"
        "b: !!python/object/new:yarl.URL {state: !!python/tuple [https, x]}\n"
        "c: !ruby/object:Faraday::Response {status: 200}\n"
        "d: !binary aGVsbG8=\n"
        "e: !!python/name:builtins.print ''\n"
    )
    doc = yaml.load(text, Loader=plain_tags_loader())  # noqa: S506 - the loader under test
    assert doc == {
        "a": [f"touch {marker}"],
        "b": {"state": ["https", "x"]},
        "c": {"status": 200},
        "d": b"hello",
        "e": "",
    }
    assert not marker.exists()


def test_a_yaml_file_with_tags_that_is_no_cassette_is_still_named_for_what_it_is(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("---\nsettings: !ruby/hash {a: 1}\nname: x\n", encoding="utf-8")
    (d,) = _audit_folder(tmp_path).diagnostics
    assert d.code == "CL001" and "keys name, settings, not a VCR cassette" in d.message
