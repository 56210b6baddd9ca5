"""The audit through the CLI: exit codes, the concise line format, JSON fields, HAR and Bedrock /
Gemini end to end."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from helpers import TOOLS, anthropic, turns  # noqa: E402
from test_readers import har, har_entry  # noqa: E402

from cachelint.cli import main

SELECT = ["--select", "CL001,CL301,CL302,CL303,CL304,CL309"]


def run(tmp_path, monkeypatch, *args):
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["audit", "--isolated", *SELECT, *args], catch_exceptions=False)


def write_jsonl(path: Path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_concise_lines_and_exit_codes(tmp_path, monkeypatch):
    write_jsonl(tmp_path / "log.jsonl", [anthropic(turns(1)), anthropic(turns(3), tools=[TOOLS[1], TOOLS[0], *TOOLS[2:]])])
    result = run(tmp_path, monkeypatch, "--output-format", "concise", "log.jsonl")
    assert result.exit_code == 1
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
    assert (f["code"], f["path"], f["line"], f["record"], f["session"], f["kind"]) == ("CL301", "log.jsonl", 2, 1, "s1", "removed")
    assert f["details"]["byte_offset"] == f["details"]["byte_offset"] and f["details"]["invalidated"] == ["tools", "system", "messages"]


def test_har_end_to_end_with_entry_location(tmp_path, monkeypatch):
    entries = [
        har_entry(anthropic(turns(3), system="Today is 2026-11-29."), "2026-11-29T10:00:09Z"),
        har_entry(anthropic(turns(1), system="Today is 2026-11-28."), "2026-11-29T10:00:00Z"),
    ]
    (tmp_path / "s.har").write_text(har(entries))
    result = run(tmp_path, monkeypatch, "--output-format", "json", "s.har")
    (f,) = json.loads(result.output) if isinstance(json.loads(result.output), list) else json.loads(result.output)["findings"]
    lines = (tmp_path / "s.har").read_text().splitlines()
    assert f["code"] == "CL309" and f["record"] == 0 and '"startedDateTime": "2026-11-29T10:00:09Z"' in lines[f["line"] - 1]


def test_each_har_file_is_one_recording(tmp_path, monkeypatch):
    """Test recorders write one HAR a test: one-shot requests of two tests (same empty agent, a
    model override in the second) are not one session with a model change (Mirascope's HARs)."""
    bare = lambda model: {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": "Say hello"}]}  # noqa: E731
    (tmp_path / "a.har").write_text(har([har_entry(bare("claude-sonnet-4-5"), "2026-11-29T10:00:00Z")]))
    (tmp_path / "b.har").write_text(har([har_entry(bare("claude-haiku-4-5"), "2026-11-29T10:00:05Z")]))
    result = run(tmp_path, monkeypatch, "--output-format", "json", "a.har", "b.har")
    out = json.loads(result.output)
    assert (out if isinstance(out, list) else out["findings"]) == []
    (tmp_path / "ab.har").write_text(har([har_entry(bare("claude-sonnet-4-5"), "2026-11-29T10:00:00Z"),
                                          har_entry(bare("claude-haiku-4-5"), "2026-11-29T10:00:05Z")]))
    out = json.loads(run(tmp_path, monkeypatch, "--output-format", "json", "ab.har").output)
    assert [d["code"] for d in (out if isinstance(out, list) else out["findings"])] == ["CL304"]  # one file: one recording


def test_bedrock_converse_and_gemini_envelopes(tmp_path, monkeypatch):
    converse_url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-v1:0/converse"

    def converse(n, tool_names):
        return {
            "toolConfig": {"tools": [{"toolSpec": {"name": t, "inputSchema": {"json": {"type": "object"}}}} for t in tool_names]},
            "system": [{"text": "You are helpful."}],
            "messages": [{"role": "user" if i % 2 == 0 else "assistant", "content": [{"text": f"m{i}"}]} for i in range(n)],
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
    assert [(f["code"], f["record"], f.get("kind")) for f in findings] == [("CL301", 2, "reordered"), ("CL303", 4, "changed")]
