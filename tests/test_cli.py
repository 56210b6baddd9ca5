"""The command line as a user meets it: listing rules, exit codes, selection, formats, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from cachelint.cli import main
from conftest import HANG_GUARD, REPO, write_tree


def run(args, cwd: Path):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def test_rules_lists_every_rule_with_status(tmp_path):
    result = run(["rules"], tmp_path)
    assert result.exit_code == 0
    assert "CL001  unreadable-input" in result.output
    for line in result.output.splitlines():
        assert (" stable " in line) or (" planned " in line), line


def test_rules_json_has_the_documented_keys(tmp_path):
    result = run(["rules", "--output-format", "json"], tmp_path)
    data = json.loads(result.output)
    assert isinstance(data, list) and len(data) >= 24
    for entry in data:
        assert {"code", "name", "status", "summary"} <= set(entry)


def test_rule_prints_docs_by_code_or_name(tmp_path):
    by_code = run(["rule", "CL001"], tmp_path)
    by_name = run(["rule", "unreadable-input"], tmp_path)
    assert by_code.exit_code == 0 and by_code.output == by_name.output
    assert by_code.output.startswith("# CL001 unreadable-input")
    assert "## Why is this bad?" in by_code.output
    as_json = json.loads(run(["rule", "cl001", "--output-format", "json"], tmp_path).output)
    assert as_json[0]["code"] == "CL001" and as_json[0]["status"] == "stable"


def test_unknown_rule_is_a_usage_error(tmp_path):
    result = run(["rule", "CL999"], tmp_path)
    assert result.exit_code == 2
    assert "unknown rule" in result.output


def test_clean_tree_exits_zero(tmp_path):
    write_tree(tmp_path, {"ok.py": "x = 1\n"})
    result = run(["check", "--no-cache", "."], tmp_path)
    assert result.exit_code == 0, result.output


def test_unreadable_file_is_cl001_and_the_run_goes_on(tmp_path):
    write_tree(tmp_path, {"bad.py": b"x = '\xff\xfe'\n", "good.py": "y = 2\n"})
    result = run(["check", "--no-cache", "--output-format", "json", "."], tmp_path)
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert [(d["code"], d["path"], d["line"]) for d in data] == [("CL001", "bad.py", 1)]
    assert "not valid UTF-8" in data[0]["message"]


def test_exit_zero_and_statistics(tmp_path):
    write_tree(tmp_path, {"bad.py": b"\x00\x01", "bad2.py": b"\xff"})
    result = run(["check", "--no-cache", "--exit-zero", "--statistics", "."], tmp_path)
    assert result.exit_code == 0
    assert result.output.split("\t")[0].strip() == "2"
    assert "CL001\tunreadable-input" in result.output


def test_missing_path_is_reported_not_a_crash(tmp_path):
    result = run(["check", "--no-cache", "nope.py"], tmp_path)
    assert result.exit_code == 1
    assert "nope.py:1:1: CL001 no such file or directory" in result.output


def test_select_unknown_code_is_a_usage_error(tmp_path):
    result = run(["check", "--select", "CL9", "."], tmp_path)
    assert result.exit_code == 2
    assert "unknown rule selector 'CL9'" in result.output


def test_ignore_by_prefix(tmp_path):
    write_tree(tmp_path, {"bad.py": b"\xff"})
    assert run(["check", "--no-cache", "--ignore", "CL0", "."], tmp_path).exit_code == 0


def test_output_file_is_written(tmp_path):
    write_tree(tmp_path, {"bad.py": b"\xff"})
    result = run(["check", "--no-cache", "--output-format", "json", "-o", "out.json", "."], tmp_path)
    assert result.exit_code == 1
    assert json.loads((tmp_path / "out.json").read_text())[0]["code"] == "CL001"


def test_config_error_is_one_line_and_exit_2(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.cachelint]\nselekt = ['CL1']\n", "a.py": "x=1\n"})
    result = run(["check", "."], tmp_path)
    assert result.exit_code == 2
    lines = [l for l in result.output.splitlines() if l.strip()]
    assert len(lines) == 1
    assert "selekt" in lines[0] and "pyproject.toml" in lines[0]


def test_ill_typed_config_key_names_the_key(tmp_path):
    write_tree(tmp_path, {"cachelint.toml": "max-file-size = 'big'\n"})
    result = run(["check", "."], tmp_path)
    assert result.exit_code == 2
    assert "max-file-size" in result.output


def test_installed_script_finds_its_rules_outside_the_checkout(tmp_path):
    """The installed package carries rules/ (as cachelint/_rules in the wheel)."""
    proc = subprocess.run(
        [sys.executable, "-m", "cachelint", "rule", "CL001"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# CL001")


def test_version(tmp_path):
    result = run(["--version"], tmp_path)
    assert result.exit_code == 0 and "cachelint" in result.output


def test_audit_works_where_orjson_cannot_be_imported():
    """orjson is a dependency, but the README's audit must not depend on it being importable: with
    it blocked, every line is decoded by the standard library and the same findings come out."""
    code = (
        "import sys; sys.modules['orjson'] = None; sys.argv = ['cachelint', 'audit', 'examples/logs',"
        " '--output-format', 'concise', '--isolated']; from cachelint.cli import main; main()"
    )
    blocked = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=HANG_GUARD)
    normal = subprocess.run(
        [sys.executable, "-m", "cachelint", "audit", "examples/logs", "--output-format", "concise", "--isolated"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert "internal error" not in blocked.stderr, blocked.stderr
    assert (blocked.returncode, blocked.stdout) == (normal.returncode, normal.stdout) and normal.returncode == 1
