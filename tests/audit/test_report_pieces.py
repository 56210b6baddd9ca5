"""The audit's JSON report is written in pieces (a finding, a session, a usage entry at a time)
and the run's summary is masked without copying what holds no key: the bytes are those of
``json.dumps(indent=2)`` of the whole object, whichever way it is written."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cachelint.api import audit_logs
from cachelint.cli import main
from cachelint.masking import masker
from cachelint.payloads import AuditSummary, SessionReport
from cachelint.report import render, render_parts

URL = "https://api.anthropic.com/v1/messages"
KEY = "sk-ant-api03-" + "Q7x" * 30  # made up: the shape of an Anthropic key


def _log(path: Path, sessions: int) -> Path:
    lines = []
    for i in range(sessions):
        system = "You grade answers." if i % 2 else f"You grade answers. Key: {KEY}"
        for turn in range(2):
            messages = [{"role": "user", "content": f"question {i}"}]
            if turn:
                messages += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
            body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "system": system, "messages": messages}
            if turn and i % 3 == 0:
                body["tools"] = [{"name": f"t{i}", "description": "d", "input_schema": {"type": "object"}}]
            lines.append(json.dumps({"url": URL, "time": f"2026-12-01T10:{i % 60:02d}:{turn:02d}Z", "request": body}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_pieces_are_the_whole_object_dumped(tmp_path):
    result = audit_logs([_log(tmp_path / "log.jsonl", 12)], cwd=tmp_path)
    assert result.diagnostics and result.summary.sessions and result.summary.usage
    pieces = list(render_parts("json", result.diagnostics, summary=result.summary))
    assert len(pieces) > len(result.summary.sessions) * 2  # a session and a usage entry at a time
    text = "".join(pieces)
    assert text == render("json", result.diagnostics, summary=result.summary)
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert KEY[13:] not in text


def test_empty_lists_and_mappings_are_written_as_json_dumps_does(tmp_path):
    summary = AuditSummary()
    text = "".join(render_parts("json", [], summary=summary))
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    summary.usage = {"sessions": [], "total": {}}
    text = "".join(render_parts("json", [], summary=summary))
    assert json.loads(text)["summary"]["usage"] == {"sessions": [], "total": {}}
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_other_outputs_are_one_piece(tmp_path):
    result = audit_logs([_log(tmp_path / "log.jsonl", 3)], cwd=tmp_path)
    for fmt in ("concise", "full", "sarif", "html"):
        pieces = list(render_parts(fmt, result.diagnostics, summary=result.summary))
        assert pieces == [render(fmt, result.diagnostics, summary=result.summary)]


def test_output_file_holds_the_same_bytes_as_stdout(tmp_path):
    log = _log(tmp_path / "log.jsonl", 8)
    runner = CliRunner()
    out = runner.invoke(main, ["audit", "--output-format", "json", str(log)])
    assert out.exit_code in (0, 1), out.output
    assert json.loads(out.output)["summary"]["sessions"]
    target = tmp_path / "report.json"
    written = runner.invoke(main, ["audit", "--output-format", "json", "-o", str(target), str(log)])
    assert written.exit_code == out.exit_code and written.output == ""
    assert target.read_text(encoding="utf-8") == out.output
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".cachelint-tmp")]


def test_masking_copies_only_what_holds_a_key():
    def report(sid: str, path: str) -> SessionReport:
        return SessionReport(sid, "single", "a single request", path, f"{path}:1", "anthropic", "m", 1, 0)

    clean = report("s1", "a.jsonl")
    clean.usage = {"id": "s1", "tokens": {"read": 0}, "breaks": []}
    leaky = report("s2", f"{KEY}/a.jsonl")
    summary = AuditSummary(sessions=[clean, leaky])
    summary.usage = {"sessions": [clean.usage], "total": {"money": None}}
    masked = masker().mask_value(summary)
    assert masked is not summary
    assert masked.sessions[0] is clean and masked.usage is summary.usage  # nothing to mask: not copied
    assert masked.sessions[1] is not leaky and KEY[13:] not in masked.sessions[1].path
    assert leaky.path.startswith(KEY)  # the run's own copy is left as it was
    assert masker().mask_value(clean) is clean
    texts = ["a", "b", ("c", ["d"])]
    assert masker().mask_value(texts) is texts
    assert masker().mask_value(["x", KEY]) == ["x", masker().mask(KEY)]
