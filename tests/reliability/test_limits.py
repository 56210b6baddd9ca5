"""Limits: an input over a size bound is a CL001 (never silently skipped) and the run goes on;
analysis time per file is bounded; memory stays bounded on a 50 MB record and a gzip bomb.

check: ``max-file-size`` (bytes, default 8 MiB) for every file it reads; ``analysis-timeout``
(seconds, default 30) per Python file.
audit: logs are streamed, so a log file has no size bound as such; ``[audit] max-record-size``
bounds one JSONL line (default 32 MiB, Anthropic's request size limit) and ``[audit]
max-document-size`` one HAR / JSON / YAML document after decompression (default 512 MiB).
docs/reliability.md says why.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path


import cachelint.code

from . import big_inputs
from .helpers import GOOD_AGENT, GOOD_LOG, GOOD_LOG_FINDING, findings, full_findings
from conftest import HANG_GUARD

AUDIT_CORPUS = Path(__file__).resolve().parent / "corpus" / "audit"


def rows(result: list[dict]) -> list[tuple]:
    return [(d["code"], d["path"], d["line"], d["column"], d.get("record")) for d in result]


# --- check: max-file-size ----------------------------------------------------------------------


def test_max_file_size_in_check_is_reported_for_code_skills_and_indexes(tmp_path):
    (tmp_path / "agent.py").write_text(GOOD_AGENT)  # 223 bytes: under the limit, still checked
    (tmp_path / "big.py").write_text(GOOD_AGENT + "#" * 2000 + "\n")
    for name in ("pdf", "docx"):
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use when the task handles {name} files.\n---\n"
            + ("Body. " * 400 if name == "pdf" else "")
        )
    (tmp_path / "AGENTS.md").write_text("- pdf: PDF files\n- docx: Word files\n" + "\n" * 1200)
    config = "max-file-size = 1000\n[skills]\nindex = ['AGENTS.md']\n"
    (tmp_path / "cachelint.toml").write_text(config)
    result = full_findings(
        tmp_path, "check", ["agent.py", "big.py", "skills", "AGENTS.md"], "--config", "cachelint.toml"
    )
    sizes = {p: (tmp_path / p).stat().st_size for p in ("big.py", "skills/pdf/SKILL.md", "AGENTS.md")}
    assert rows(result) == [
        ("CL001", "AGENTS.md", 1, 1, None),
        ("CL101", "agent.py", 4, 9, None),
        ("CL001", "big.py", 1, 1, None),
        ("CL001", "skills/pdf/SKILL.md", 1, 1, None),
    ]
    for d in result:
        if d["code"] == "CL001":
            assert (
                d["message"] == f"file is {sizes[d['path']]} bytes, over the size limit of 1000 bytes (max-file-size)"
            )


# --- check: analysis-timeout -------------------------------------------------------------------


def test_analysis_timeout_stops_a_runaway_analysis_and_the_run_goes_on(tmp_path, monkeypatch):
    real_check = cachelint.code.check_module

    def check_module(path, text, settings, project_summaries=None):
        if "RUNAWAY" in text:
            while True:  # an analysis that never ends (pure Python: the alarm can interrupt it)
                time.sleep(0.01)
        return real_check(path, text, settings, project_summaries)

    monkeypatch.setattr(cachelint.code, "check_module", check_module)
    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    (tmp_path / "runaway.py").write_text("RUNAWAY = 1\n")
    result = full_findings(tmp_path, "check", ["."], "--config", "analysis-timeout = 0.2", "-j", "1")
    assert rows(result) == [("CL101", "agent.py", 4, 9, None), ("CL001", "runaway.py", 1, 1, None)]
    assert result[1]["message"] == "analysis took longer than 0.2 s and was stopped (analysis-timeout)"


def test_analysis_timeout_on_a_real_hundred_thousand_line_module(tmp_path):
    """No machine parses and analyses 100,000 lines in a millisecond."""
    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    big_inputs.long_module(tmp_path / "long.py")
    code, found = findings(tmp_path, "check", ["."], "--config", "analysis-timeout = 0.001", "-j", "1")
    assert code == 1
    assert ("CL001", "long.py", 1, 1, None) in found


# --- audit: record and document bounds ---------------------------------------------------------


def audit_config(tmp_path: Path, **options: int) -> None:
    lines = "".join(f"{k.replace('_', '-')} = {v}\n" for k, v in options.items())
    (tmp_path / "cachelint.toml").write_text("[audit]\n" + lines)


def test_max_record_size_skips_one_line_and_reading_goes_on(tmp_path):
    audit_config(tmp_path, max_record_size=1024)
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)  # its lines are under 1 KiB
    lines = (AUDIT_CORPUS / "truncated_line.jsonl").read_text().splitlines()
    first, last = json.loads(lines[0]), json.loads(lines[2])
    long = dict(first, system=first["system"] + " " + "padding " * 300)
    (tmp_path / "long.jsonl").write_text("\n".join(json.dumps(r) for r in (first, long, last)) + "\n")
    result = full_findings(tmp_path, "audit", ["good_flagged.jsonl", "long.jsonl"], "--config", "cachelint.toml")
    assert rows(result) == [(*GOOD_LOG_FINDING, 1), ("CL001", "long.jsonl", 2, 1, 1), ("CL301", "long.jsonl", 3, 1, 2)]
    assert result[1]["message"] == "line is over 1024 bytes (max-record-size); skipped"


def test_max_document_size_is_reported_per_document(tmp_path):
    audit_config(tmp_path, max_document_size=1024)
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    (tmp_path / "big.har").write_text((AUDIT_CORPUS / "missing_fields.har").read_text())  # 2.6 KB
    result = full_findings(tmp_path, "audit", ["good_flagged.jsonl", "big.har"], "--config", "cachelint.toml")
    assert rows(result) == [("CL001", "big.har", 1, 1, None), (*GOOD_LOG_FINDING, 1)]
    assert result[0]["message"].startswith("har document is over 1024 bytes (max-document-size)")


def test_max_file_size_does_not_apply_to_streamed_logs(tmp_path):
    """The decision documented in docs/reliability.md: logs are streamed record by record, so
    a log larger than max-file-size is audited; its records are bounded instead."""
    (tmp_path / "cachelint.toml").write_text("max-file-size = 1000\n")
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    assert len(GOOD_LOG) > 1000
    code, found = findings(tmp_path, "audit", ["good_flagged.jsonl"], "--config", "cachelint.toml")
    assert (code, found) == (1, [(*GOOD_LOG_FINDING, 1)])


def gzip_bomb(path: Path, megabytes: int, newline: bool) -> Path:
    """``megabytes`` MiB of one byte, compressed ~1000:1; no line break when ``newline`` is False."""
    chunk = b"a" * (1024 * 1024)
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b'{"model": "claude-sonnet-4-5", "system": "')
        for _ in range(megabytes):
            handle.write(chunk)
        handle.write(b'"}' + (b"\n" if newline else b""))
    return path


def test_gzip_bombs_are_bounded(tmp_path):
    audit_config(tmp_path, max_record_size=1 << 20, max_document_size=1 << 20)
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    gzip_bomb(tmp_path / "bomb.jsonl.gz", 64, newline=False)
    gzip_bomb(tmp_path / "bomb.har.gz", 64, newline=False)
    assert (tmp_path / "bomb.har.gz").stat().st_size < 200_000
    result = full_findings(
        tmp_path, "audit", ["good_flagged.jsonl", "bomb.jsonl.gz", "bomb.har.gz"], "--config", "cachelint.toml"
    )
    assert rows(result) == [
        ("CL001", "bomb.har.gz", 1, 1, None),
        ("CL001", "bomb.jsonl.gz", 1, 1, 0),
        (*GOOD_LOG_FINDING, 1),
    ]
    # the stream is cut by whichever bound it meets first: the ratio, 256 KiB in, for a document
    # as for JSONL (the document reader once held 1 MiB of the bomb to its max-document-size)
    assert "max-gzip-ratio" in result[0]["message"] and "max-gzip-ratio" in result[1]["message"]


MEASURE = """
import resource, subprocess, sys
proc = subprocess.run([sys.executable, "-m", "cachelint", *sys.argv[1:]], capture_output=True)
print(proc.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_rss_mb(cwd: Path, *args: str) -> tuple[int, float]:
    """(exit code, peak resident memory in MiB) of ``cachelint ARGS`` in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *args], cwd=cwd, capture_output=True, text=True, timeout=HANG_GUARD
    )
    code, kib = out.stdout.split()
    return int(code), int(kib) / 1024


def test_a_fifty_megabyte_record_costs_bounded_memory(tmp_path):
    """Peak memory of the audit of a 50 MB line stays near one max-record-size (32 MiB) above
    the audit of a small log: the line is never held whole, never parsed."""
    lines = (AUDIT_CORPUS / "truncated_line.jsonl").read_text().splitlines()
    big_inputs.fifty_megabyte_jsonl_line(tmp_path / "big.jsonl", json.loads(lines[0]), json.loads(lines[2]))
    (tmp_path / "small.jsonl").write_text(lines[0] + "\n" + lines[2] + "\n")
    args = ("audit", "--isolated", "--fail-on", "info", "--output-format", "json")
    code_small, small = peak_rss_mb(tmp_path, *args, "small.jsonl")
    code_big, big = peak_rss_mb(tmp_path, *args, "big.jsonl")
    assert (code_small, code_big) == (1, 1)
    assert big - small < 3 * 32, (small, big)  # a few copies of the 32 MiB window at most, not 50 MB x N


# --- audit: a large record under the bound -----------------------------------------------------


def test_a_late_difference_in_a_long_block_is_located_exactly(tmp_path):
    """A 1 MB system prompt changed 900,000 characters in: the break is reported at that byte,
    with excerpts that show the change."""
    text = "rules " * 175_000
    at = 900_000
    changed = text[:at] + "NEW RULE " + text[at:]
    bodies = [
        {"model": "claude-sonnet-4-5", "system": text, "messages": [{"role": "user", "content": "q0"}]},
        {
            "model": "claude-sonnet-4-5",
            "system": changed,
            "messages": [
                {"role": "user", "content": "q0"},
                {"role": "assistant", "content": "a"},
                {"role": "user", "content": "q1"},
            ],
        },
    ]
    (tmp_path / "long.jsonl").write_text("".join(json.dumps(b) + "\n" for b in bodies))
    result = full_findings(tmp_path, "audit", ["long.jsonl"])
    (cl302,) = [d for d in result if d["code"] == "CL302"]
    prefix = len(
        '{"type":"text","text":"'
    )  # the canonical block as rendered (docs/background/request-shapes.md#anthropic-messages: system as text blocks)
    assert cl302["details"]["byte_offset"] == prefix + at
    assert "NEW RULE" in cl302["details"]["after"] and "NEW RULE" not in cl302["details"]["before"]
