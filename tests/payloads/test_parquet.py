"""Parquet tables (pyarrow): a log written to Parquet, one record a row and nested values as JSON
text as stores keep them, is audited as the JSONL log it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachelint.api import audit_logs
from cachelint.payloads import AuditOptions
from cachelint.payloads.formats.parquet import row_record
from cachelint.report import render

SAMPLES = Path(__file__).parent / "format_samples"


def _to_parquet(jsonl: Path, target: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    names = sorted({key for row in rows for key in row})
    columns = {
        name: [
            None
            if name not in row
            else row[name]
            if isinstance(row[name], (str, int, float))
            else json.dumps(row[name])
            for row in rows
        ]
        for name in names
    }
    # two row groups: the reader goes from one to the next
    pq.write_table(pa.table(columns), target, row_group_size=max(1, len(rows) // 2))


def _report(path: Path, root: Path) -> dict:
    result = audit_logs([str(path)], options=AuditOptions(progress=False, jobs=1), cwd=root)
    found = json.loads(render("json", result.diagnostics, summary=result.summary))
    for finding in found["findings"]:
        finding.pop("fingerprint", None)
    found["summary"].pop("formats")
    return found


@pytest.mark.parametrize("sample", ["litellm/timestamp/litellm.jsonl", "litellm/tools/litellm.jsonl"])
def test_a_log_exported_to_parquet_gives_the_findings_of_the_log(tmp_path, sample):
    jsonl = tmp_path / "calls.jsonl"
    jsonl.write_bytes((SAMPLES / sample).read_bytes())
    table = tmp_path / "calls.parquet"
    _to_parquet(jsonl, table)
    from_jsonl = json.dumps(_report(jsonl, tmp_path)).replace("calls.jsonl", "calls.parquet")
    from_parquet = _report(table, tmp_path)
    assert json.loads(from_jsonl) == from_parquet
    assert from_parquet["summary"]["requests"] == 3
    assert any(f["code"] == "CL302" or f["code"].startswith("CL3") for f in from_parquet["findings"])


def test_an_envelope_log_in_parquet(tmp_path):
    lines = []
    for i in range(3):
        body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "system": f"Now: 10:0{i}", "messages": []}
        body["messages"] = [{"role": "user", "content": "go"}] + [
            m
            for k in range(i)
            for m in ({"role": "assistant", "content": f"a{k}"}, {"role": "user", "content": f"u{k}"})
        ]
        lines.append(json.dumps({"url": "https://api.anthropic.com/v1/messages", "request": body}))
    jsonl = tmp_path / "env.jsonl"
    jsonl.write_text("\n".join(lines) + "\n")
    table = tmp_path / "env.parquet"
    _to_parquet(jsonl, table)
    from_parquet = _report(table, tmp_path)
    assert json.loads(json.dumps(_report(jsonl, tmp_path)).replace("env.jsonl", "env.parquet")) == from_parquet
    assert from_parquet["summary"]["totals"]["breaks"] == 2


def test_columns_renamed_by_a_format_and_json_text_decoded():
    record = row_record({"req": '{"model": "m"}', "ts": "2026-12-01", "note": "{not json"}, {"req": "request.body"})
    assert record == {"request": {"body": {"model": "m"}}, "ts": "2026-12-01", "note": "{not json"}


def test_a_file_that_is_not_parquet_is_one_message(tmp_path):
    pytest.importorskip("pyarrow")
    bad = tmp_path / "broken.parquet"
    bad.write_bytes(b"PAR1 this is not a table")
    result = audit_logs([str(bad)], options=AuditOptions(progress=False, jobs=1), cwd=tmp_path)
    assert [d.message for d in result.diagnostics if d.path.endswith("broken.parquet")] == [
        "not a readable Parquet table: ArrowInvalid"
    ]
