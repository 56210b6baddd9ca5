"""One bad value never takes down the rest: a front matter date that is not a date, a usage count
no log can hold, configuration numbers that are not finite or out of range."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import GOOD_AGENT, GOOD_LOG, full_findings, run_cli
from conftest import invoke_in

GENERIC = "---\nname: b\ndescription: Helps.\n---\nbody\n"  # one CL202, whatever else is in the tree


def _skills(root: Path, bad_value: str) -> None:
    for name, text in {
        "a": f"---\nname: a\ndescription: Drafts release notes from merged pull requests.\nupdated: {bad_value}\n---\nbody\n",
        "b": GENERIC,
    }.items():
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("bad_value", ["2024-02-30", "2023-13-01", "2024-02-30 10:00:00", "9" * 5000])
def test_a_front_matter_value_python_cannot_hold_drops_nothing(tmp_path, bad_value):
    _skills(tmp_path, bad_value)
    found = full_findings(tmp_path, "check")
    assert [(d["code"], d["path"]) for d in found] == [("CL202", "skills/b/SKILL.md")]


def test_index_reads_a_skill_whose_date_is_not_a_date(tmp_path):
    _skills(tmp_path, "2024-02-30")
    result = invoke_in(tmp_path, "index", "skills")
    assert result.exit_code == 0, result.output
    assert "- a: Drafts release notes from merged pull requests." in result.stdout
    assert "- b: Helps." in result.stdout


def _usage_log(root: Path, count: str) -> None:
    records = [json.loads(line) for line in GOOD_LOG.splitlines()]
    lines = []
    for i, record in enumerate(records):
        envelope = {
            "time": f"2026-01-01T00:0{i}:00Z",
            "request": record,
            "response": {"usage": {"input_tokens": 10, "cache_read_input_tokens": "N", "output_tokens": 5}},
        }
        lines.append(json.dumps(envelope).replace('"N"', count))
    (root / "good_flagged.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("count", ["1e308", "-1e308", "9007199254740993", "123456789012345678901234567890"])
def test_a_token_count_no_log_can_hold_is_not_a_count(tmp_path, count):
    _usage_log(tmp_path, count)
    code, out = run_cli(
        tmp_path, ["audit", "--isolated", "--fail-on", "info", "--output-format", "json", "good_flagged.jsonl"]
    )
    assert code == 1, out
    data = json.loads(out)
    assert [d["code"] for d in data["findings"]] == ["CL301"]


@pytest.mark.parametrize(
    ("toml", "what"),
    [
        ("analysis-timeout = inf", "analysis-timeout: inf is not a finite number"),
        ("analysis-timeout = nan", "analysis-timeout: nan is not a finite number"),
        ("analysis-timeout = 1e300", "analysis-timeout: 1e+300 is greater than the maximum of 86400"),
        ("analysis-timeout = -1.0", "analysis-timeout: -1.0 is less than or equal to the minimum of 0"),
        ("max-file-size = -5", "max-file-size: -5 is less than the minimum of 1"),
        ("[audit]\nmax-gzip-ratio = nan", "audit/max-gzip-ratio: nan is not a finite number"),
        ("[audit]\nmax-gzip-ratio = inf", "audit/max-gzip-ratio: inf is not a finite number"),
        ("[audit]\nmax-gzip-ratio = -2.0", "audit/max-gzip-ratio: -2.0 is less than or equal to the minimum of 1"),
        ("[skills]\ntree-timeout = inf", "skills/tree-timeout: inf is not a finite number"),
        ("[skills]\nindex-min-coverage = nan", "skills/index-min-coverage: nan is not a finite number"),
    ],
)
@pytest.mark.parametrize("command", ["check", "audit"])
def test_config_numbers_out_of_range_are_config_errors(tmp_path, toml, what, command):
    (tmp_path / "cachelint.toml").write_text(toml + "\n", encoding="utf-8")
    (tmp_path / "agent.py").write_text(GOOD_AGENT, encoding="utf-8")
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    result = invoke_in(tmp_path, command, "agent.py" if command == "check" else "good_flagged.jsonl")
    assert result.exit_code == 2
    assert result.stderr.strip() == f"cachelint: error: {tmp_path / 'cachelint.toml'}: invalid configuration: {what}"
    assert "CL003" not in result.output
