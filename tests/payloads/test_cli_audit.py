"""The audit through the CLI: exit codes, the concise line format, JSON fields, HAR and Bedrock /
Gemini end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import TOOLS, anthropic, turns
from test_readers import har, har_entry

from cachelint.cli import main

SELECT = ["--select", "CL001,CL301,CL302,CL303,CL304,CL309"]


def run(tmp_path, monkeypatch, *args):
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["audit", "--isolated", *SELECT, *args], catch_exceptions=False)


def write_jsonl(path: Path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_concise_lines_and_exit_codes(tmp_path, monkeypatch):
    write_jsonl(
        tmp_path / "log.jsonl", [anthropic(turns(1)), anthropic(turns(3), tools=[TOOLS[1], TOOLS[0], *TOOLS[2:]])]
    )
    result = run(tmp_path, monkeypatch, "--output-format", "concise", "--fail-on", "info", "log.jsonl")
    assert result.exit_code == 1  # information (no breakpoint: nothing cached was lost) fails at --fail-on info
    assert run(tmp_path, monkeypatch, "--output-format", "concise", "log.jsonl").exit_code == 0
    first = result.output.splitlines()[0]
    assert first.startswith("log.jsonl:2:1: CL301 tools changed (reordered) at byte 9: tool 'fetch' moved from 1 to 0")
    write_jsonl(tmp_path / "ok.jsonl", [anthropic(turns(1)), anthropic(turns(3))])
    assert run(tmp_path, monkeypatch, "--output-format", "concise", "ok.jsonl").exit_code == 0


def test_json_fields(tmp_path, monkeypatch):
    write_jsonl(tmp_path / "log.jsonl", [anthropic(turns(1)), anthropic(turns(3), tools=TOOLS[:2])])
    result = run(tmp_path, monkeypatch, "--output-format", "json", "log.jsonl")
    data = json.loads(result.output)
    findings = data if isinstance(data, list) else data.get("diagnostics", data.get("findings"))
    (f,) = findings
    assert (f["code"], f["path"], f["line"], f["record"], f["session"], f["kind"]) == (
        "CL301",
        "log.jsonl",
        2,
        1,
        "s1",
        "removed",
    )
    assert f["details"]["byte_offset"] == f["details"]["byte_offset"] and f["details"]["invalidated"] == [
        "tools",
        "system",
        "messages",
    ]


def test_har_end_to_end_with_entry_location(tmp_path, monkeypatch):
    entries = [
        har_entry(anthropic(turns(3), system="Today is 2026-11-29."), "2026-11-29T10:00:09Z"),
        har_entry(anthropic(turns(1), system="Today is 2026-11-28."), "2026-11-29T10:00:00Z"),
    ]
    (tmp_path / "s.har").write_text(har(entries))
    result = run(tmp_path, monkeypatch, "--output-format", "json", "s.har")
    (f,) = (
        json.loads(result.output)
        if isinstance(json.loads(result.output), list)
        else json.loads(result.output)["findings"]
    )
    lines = (tmp_path / "s.har").read_text().splitlines()
    assert (
        f["code"] == "CL309"
        and f["record"] == 0
        and '"startedDateTime": "2026-11-29T10:00:09Z"' in lines[f["line"] - 1]
    )


def test_each_har_file_is_one_recording(tmp_path, monkeypatch):
    """Test recorders write one HAR a test: one-shot requests of two tests (same empty agent, a
    model override in the second) are not one session with a model change (Mirascope's HARs)."""
    bare = lambda model: {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": "Say hello"}]}  # noqa: E731
    (tmp_path / "a.har").write_text(har([har_entry(bare("claude-sonnet-4-5"), "2026-11-29T10:00:00Z")]))
    (tmp_path / "b.har").write_text(har([har_entry(bare("claude-haiku-4-5"), "2026-11-29T10:00:05Z")]))
    result = run(tmp_path, monkeypatch, "--output-format", "json", "a.har", "b.har")
    out = json.loads(result.output)
    assert (out if isinstance(out, list) else out["findings"]) == []
    (tmp_path / "ab.har").write_text(
        har(
            [
                har_entry(bare("claude-sonnet-4-5"), "2026-11-29T10:00:00Z"),
                har_entry(bare("claude-haiku-4-5"), "2026-11-29T10:00:05Z"),
            ]
        )
    )
    # one file, yet two sessions: the same message sent again with no tools and no system prompt
    # to say it is the same agent is another request, not a retry with a model change
    out = json.loads(run(tmp_path, monkeypatch, "--output-format", "json", "ab.har").output)
    assert [d["code"] for d in (out if isinstance(out, list) else out["findings"])] == []
    greeter = lambda model: {**bare(model), "system": "You greet people."}  # noqa: E731
    (tmp_path / "ab.har").write_text(
        har(
            [
                har_entry(greeter("claude-sonnet-4-5"), "2026-11-29T10:00:00Z"),
                har_entry(greeter("claude-haiku-4-5"), "2026-11-29T10:00:05Z"),
            ]
        )
    )
    out = json.loads(run(tmp_path, monkeypatch, "--output-format", "json", "ab.har").output)
    assert [d["code"] for d in (out if isinstance(out, list) else out["findings"])] == [
        "CL304"
    ]  # one agent: one session


def test_bedrock_converse_and_gemini_envelopes(tmp_path, monkeypatch):
    converse_url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-v1:0/converse"

    def converse(n, tool_names):
        return {
            "toolConfig": {
                "tools": [{"toolSpec": {"name": t, "inputSchema": {"json": {"type": "object"}}}} for t in tool_names]
            },
            "system": [{"text": "You are helpful."}],
            "messages": [
                {"role": "user" if i % 2 == 0 else "assistant", "content": [{"text": f"m{i}"}]} for i in range(n)
            ],
        }

    gemini_url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"

    def gem(n, model_turn_text):
        contents = [{"role": "user" if i % 2 == 0 else "model", "parts": [{"text": f"g{i}"}]} for i in range(n)]
        if n > 1:
            contents[1]["parts"][0]["text"] = model_turn_text
        return {"contents": contents}

    write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            {"request": converse(1, ["a", "b"]), "url": converse_url},
            {"request": gem(1, ""), "url": gemini_url},
            {"request": converse(3, ["b", "a"]), "url": converse_url},
            {"request": gem(3, "first answer"), "url": gemini_url},
            {"request": gem(5, "rewritten answer"), "url": gemini_url},
        ],
    )
    result = run(tmp_path, monkeypatch, "--output-format", "json", "mixed.jsonl")
    data = json.loads(result.output)
    findings = data if isinstance(data, list) else data["findings"]
    assert [(f["code"], f["record"], f.get("kind")) for f in findings] == [
        ("CL301", 2, "reordered"),
        ("CL303", 4, "changed"),
    ]


# --- wrong input: one message, and exit 2 when no LLM request was read ------------------------


def plain(tmp_path, monkeypatch, *args):
    """``cachelint audit`` without this module's narrow selection."""
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["audit", "--isolated", *args], catch_exceptions=False)


AGENT_SOURCE = "import anthropic\n\nclient = anthropic.Anthropic()\n" + "".join(f"x{i} = {i}\n" for i in range(40))


def test_a_python_file_is_one_error_naming_what_it_looks_like(tmp_path, monkeypatch):
    (tmp_path / "agent.py").write_text(AGENT_SOURCE)
    result = plain(tmp_path, monkeypatch, "agent.py")
    assert result.exit_code == 2
    assert result.stdout == (
        "agent.py:1:1: CL001 not a request log: Python source (cachelint audit reads JSONL, JSON, HAR and VCR cassettes;"
        " see docs/audit.md); check code and skill files with `cachelint check agent.py`\n"
    )
    assert (
        result.stderr
        == "cachelint: error: no LLM requests found in 1 file (formats read: none; 1 file without a record (see above); see docs/audit.md)\n"
    )


@pytest.mark.parametrize(
    "name, content, looks_like",
    [
        ("README.md", "# Agent\n\nIt runs.\n", "Markdown"),
        ("notes.txt", "some notes\nmore notes\n", "plain text"),
        ("pyproject.toml", "[project]\nname = 'x'\n", "TOML"),
        ("capture.log", "#!/usr/bin/env python\nimport os\n", "Python source"),
        ("page.html", "<!DOCTYPE html><html></html>", "HTML"),
        ("analysis.ipynb", '{"cells": [], "nbformat": 4}', "a Jupyter notebook"),
    ],
)
def test_files_that_are_not_logs(tmp_path, monkeypatch, name, content, looks_like):
    (tmp_path / name).write_text(content)
    result = plain(tmp_path, monkeypatch, "--output-format", "concise", name)
    assert result.exit_code == 2
    (line,) = result.stdout.splitlines()
    assert line.startswith(f"{name}:1:1: CL001 not a request log: {looks_like} (")


def test_a_yaml_file_that_is_not_a_cassette(tmp_path, monkeypatch):
    (tmp_path / "ci.yaml").write_text("name: CI\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    result = plain(tmp_path, monkeypatch, "ci.yaml")
    assert result.exit_code == 2
    assert result.stdout == (
        "ci.yaml:1:1: CL001 not a request log: a YAML mapping with the keys jobs, name, on, not a VCR cassette"
        " (a cassette has an 'interactions' list; see docs/audit.md)\n"
    )


def test_a_log_with_a_damaged_first_line_is_still_read(tmp_path, monkeypatch):
    """Not mistaken for a non-log: the lines after a cut first line are requests."""
    write_jsonl(tmp_path / "cut.jsonl", [anthropic(turns(1)), anthropic(turns(3))])
    (tmp_path / "cut.jsonl").write_text('ages": [1, 2]}\n' + (tmp_path / "cut.jsonl").read_text())
    result = plain(tmp_path, monkeypatch, "--output-format", "concise", "cut.jsonl")
    assert result.exit_code == 1
    assert result.stdout.startswith("cut.jsonl:1:1: CL001 line is not valid JSON")
    assert "2 LLM requests in 1 session" in result.stdout


def test_llm_records_in_a_shape_not_read_are_counted_and_named(tmp_path, monkeypatch):
    transcript = {
        "type": "assistant",
        "sessionId": "abc",
        "uuid": "u1",
        "message": {"role": "assistant", "content": "hi"},
    }
    langsmith = {"run_type": "llm", "inputs": {"messages": [{"role": "user", "content": "hi"}]}, "outputs": {}}
    nested = {"ts": 1, "data": {"request_body": {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]}}}
    telemetry = {"event": "page_view", "url": "/home"}
    write_jsonl(tmp_path / "export.jsonl", [telemetry, transcript, transcript, langsmith, nested])
    result = plain(tmp_path, monkeypatch, "export.jsonl")
    assert result.exit_code == 2
    assert result.stderr == (
        "cachelint: error: no LLM requests found in 1 file (formats read: jsonl; 1 record that is not an LLM call;"
        " 4 records like LLM calls that were not read: Claude Code transcript (audit it with --input-format claude-code) (2),"
        " LangSmith run (audit it with --input-format langsmith) (1), a request body nested under 'data.request_body' (1);"
        " see docs/audit.md)\n"
    )
    # records of a format cachelint reads, met in a file read as another: one CL001 per file and format
    assert (
        "export.jsonl:4:1: CL001 1 record(s) are LangSmith run records but were not read as such: audit them with --input-format langsmith"
        in result.stdout
    )
    assert "export.jsonl:2:1: CL001 2 record(s) are Claude Code transcript records" in result.stdout
    # beside requests that were read, the same records are named in the report, not skipped silently
    write_jsonl(tmp_path / "ok.jsonl", [anthropic(turns(1)), anthropic(turns(3))])
    mixed = plain(tmp_path, monkeypatch, "--output-format", "concise", "ok.jsonl", "export.jsonl")
    assert mixed.exit_code == 1  # the CL001s above
    assert (
        "Not read: 4 records look like LLM calls in a shape this audit did not read: Claude Code transcript"
        in mixed.stdout
    )
    summary = json.loads(plain(tmp_path, monkeypatch, "--output-format", "json", "ok.jsonl", "export.jsonl").stdout)[
        "summary"
    ]
    assert summary["unread"] == {
        "Claude Code transcript (audit it with --input-format claude-code)": 2,
        "LangSmith run (audit it with --input-format langsmith)": 1,
        "a request body nested under 'data.request_body'": 1,
    }
    assert summary["skipped_non_llm"] == 1


def test_openai_batch_output_is_named_as_responses_without_requests(tmp_path, monkeypatch):
    line = {
        "id": "batch_req_1",
        "custom_id": "r1",
        "response": {"status_code": 200, "body": {"object": "chat.completion", "choices": []}},
    }
    write_jsonl(tmp_path / "batch_output.jsonl", [line, line])
    result = plain(tmp_path, monkeypatch, "batch_output.jsonl")
    assert result.exit_code == 2 and "OpenAI Batch output (responses only, without their requests) (2)" in result.stderr


def test_an_empty_folder_is_exit_2_with_the_names_it_looks_for(tmp_path, monkeypatch):
    (tmp_path / "logs").mkdir()
    result = plain(tmp_path, monkeypatch, "logs")
    assert result.exit_code == 2
    assert result.stderr == (
        "cachelint: error: no LLM requests found in 0 files (no file named *.jsonl, *.ndjson, *.har, *.json, *.yaml, *.yml"
        " (or .gz) found; see docs/audit.md)\n"
    )


def test_only_failed_requests_is_not_exit_2(tmp_path, monkeypatch):
    write_jsonl(tmp_path / "log.jsonl", [{"request": anthropic(turns(1)), "status": 429}])
    assert plain(tmp_path, monkeypatch, "log.jsonl").exit_code == 0


# --- the JSON output: findings, sessions, usage and money, by a documented schema ---------------


def output_schema():
    from cachelint.catalog import load_schema

    return load_schema("output.schema.json")


def test_audit_json_carries_the_summary_and_validates_against_the_schema(tmp_path, monkeypatch):
    import jsonschema

    from conftest import REPO

    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(
        main, ["audit", "--isolated", "--output-format", "json", "examples/logs"], catch_exceptions=False
    )
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    jsonschema.validate(data, output_schema())
    assert data["version"] == 1 and [f["code"] for f in data["findings"]] == ["CL301", "CL309", "CL303"]
    summary = data["summary"]
    total = summary["usage"]["total"]
    # what CI gates on: a hit rate and a cost, from the same run as the findings
    assert total["hit_rate"] == 0.3851 and total["money"] == 0.055483 and total["break_money"] == 0.031625
    assert summary["sessions"][0]["id"] == "s1" and summary["formats"] == {"jsonl": 1}
    # the check output stays a bare list, and validates too
    check = CliRunner().invoke(
        main, ["check", "--isolated", "--no-cache", "--output-format", "json", "examples"], catch_exceptions=False
    )
    findings = json.loads(check.stdout)
    assert isinstance(findings, list) and len(findings) == 8
    jsonschema.validate(findings, output_schema())


def test_schema_rejects_an_output_missing_its_summary():
    import jsonschema

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 1, "findings": []}, output_schema())


# --- the baseline hides findings from the whole report ------------------------------------------


def test_audit_baseline_hides_breaks_and_their_money(tmp_path, monkeypatch):
    marked = [{"type": "text", "text": "You follow the policy. " * 400, "cache_control": {"type": "ephemeral"}}]
    changed = [{"type": "text", "text": "You follow the new policy. " * 400, "cache_control": {"type": "ephemeral"}}]
    reversed_tools = list(reversed(TOOLS))

    def served(body, written, read):
        return {
            "request": body,
            "response": {
                "usage": {
                    "input_tokens": 10,
                    "output_tokens": 5,
                    "cache_creation_input_tokens": written,
                    "cache_read_input_tokens": read,
                }
            },
        }

    write_jsonl(
        tmp_path / "log.jsonl",
        [
            served(anthropic(turns(1), system=marked), 2400, 0),
            served(
                anthropic(turns(3), tools=reversed_tools, system=marked), 2500, 0
            ),  # CL301: everything written again
            served(anthropic(turns(5), tools=reversed_tools, system=changed), 2700, 0),  # CL302
        ],
    )
    everything = json.loads(
        plain(tmp_path, monkeypatch, "--output-format", "json", "-o", "all.json", "log.jsonl").stdout
        or (tmp_path / "all.json").read_text()
    )

    def prefix_misses(summary):  # record -> codes of the cache misses a prefix break caused
        return {
            b["record"]: b["codes"]
            for b in summary["usage"]["sessions"][0]["breaks"]
            if {"CL301", "CL302"} & set(b["codes"])
        }

    assert prefix_misses(everything["summary"]) == {1: ["CL301"], 2: ["CL302"]}
    money_before = everything["summary"]["usage"]["total"]["break_money"]
    cost_of_cl301 = next(
        b["cost"]["money"] for b in everything["summary"]["usage"]["sessions"][0]["breaks"] if b["record"] == 1
    )
    accepted = {**everything, "findings": [f for f in everything["findings"] if f["code"] == "CL301"]}
    (tmp_path / "accepted.json").write_text(json.dumps(accepted))
    result = plain(tmp_path, monkeypatch, "--baseline", "accepted.json", "log.jsonl")
    assert result.exit_code == 1
    assert "CL301" not in result.stdout and "1 prefix break" in result.stdout and result.stdout.count("before: ") == 1
    assert "1 finding accepted in the baseline is not shown." in result.stdout
    data = json.loads(
        plain(tmp_path, monkeypatch, "--baseline", "accepted.json", "--output-format", "json", "log.jsonl").stdout
    )
    assert "CL301" not in [f["code"] for f in data["findings"]] and "CL302" in [f["code"] for f in data["findings"]]
    session = data["summary"]["sessions"][0]
    assert session["breaks"] == 1 and [b["record"] for b in session["break_details"]] == [2]
    usage = data["summary"]["usage"]
    assert prefix_misses(data["summary"]) == {2: ["CL302"]}
    assert usage["total"]["break_money"] == round(money_before - cost_of_cl301, 6) and data["summary"]["baselined"] == 1
    # every finding accepted: a clean report, exit 0, no money lost
    quiet = plain(tmp_path, monkeypatch, "--baseline", "all.json", "log.jsonl")
    assert quiet.exit_code == 0 and "All checks passed!" in quiet.stdout and "no cache miss found" in quiet.stdout


def test_a_baseline_that_cannot_be_read_is_exit_2(tmp_path, monkeypatch):
    write_jsonl(tmp_path / "log.jsonl", [anthropic(turns(1))])
    (tmp_path / "b.json").write_text("{not json")
    result = plain(tmp_path, monkeypatch, "--baseline", "b.json", "log.jsonl")
    assert result.exit_code == 2 and result.stderr.startswith("cachelint: error: baseline b.json:")
    assert plain(tmp_path, monkeypatch, "--baseline", "missing.json", "log.jsonl").exit_code == 2


def test_look_alikes_of_llm_logs_are_skipped_without_a_cl001(tmp_path, monkeypatch):
    """Records that carry ``prompt``, ``params`` or ``inputs`` but are no log of a cacheable LLM
    call: legacy completion APIs and token counts (named by their URL), a tracing upload, a
    JSON-RPC call (MCP, agent-to-agent), a Hugging Face Inference body. Counted as not LLM calls,
    never reported as a log shape cachelint does not read."""
    entries = [
        har_entry(
            {"model": "gpt-3.5-turbo-instruct", "prompt": "Say hi"},
            "2026-11-29T10:00:00Z",
            url="https://api.openai.com/v1/completions",
        ),
        har_entry(
            {"model": "claude-2.1", "prompt": "\n\nHuman: hi\n\nAssistant:", "max_tokens_to_sample": 5},
            "2026-11-29T10:00:01Z",
            url="https://api.anthropic.com/v1/complete",
        ),
        har_entry(
            {"model": "llama3.1", "prompt": "hi"}, "2026-11-29T10:00:02Z", url="http://localhost:11434/api/generate"
        ),
        har_entry(
            {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]},
            "2026-11-29T10:00:03Z",
            url="https://api.anthropic.com/v1/messages/count_tokens",
        ),
        har_entry({"resourceSpans": []}, "2026-11-29T10:00:04Z", url="http://localhost:3000/traces"),
        har_entry(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "message/stream",
                "params": {"message": {"role": "user", "parts": []}},
            },
            "2026-11-29T10:00:05Z",
            url="http://localhost:9999/",
        ),
        har_entry(
            {"inputs": "Tell me a joke", "parameters": {"max_new_tokens": 20}},
            "2026-11-29T10:00:06Z",
            url="https://x.endpoints.huggingface.cloud/",
        ),
        har_entry(anthropic(turns(1)), "2026-11-29T10:00:07Z"),
    ]
    (tmp_path / "mixed.har").write_text(har(entries))
    result = plain(tmp_path, monkeypatch, "--output-format", "json", "mixed.har")
    out = json.loads(result.stdout)
    assert [d["code"] for d in out["findings"]] == [], out["findings"]
    assert out["summary"]["requests"] == 1 and out["summary"]["skipped_non_llm"] == 7
    assert out["summary"]["unread"] == {}
