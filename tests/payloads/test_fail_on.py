"""``--fail-on``: which findings make ``audit`` and ``check`` exit 1. A break that lost nothing
cached is information: by default (``warning``) a run with only such findings passes CI."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from helpers import LONG_SYSTEM, TOOLS, anthropic, turns

from cachelint.cli import main
from conftest import write_jsonl, write_tree


def cli(args, cwd):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def _info_only_log(tmp_path):
    """A reordered tool list after a request without a breakpoint: nothing cached was lost."""
    first, second = anthropic(turns(1)), anthropic(turns(3), tools=list(reversed(TOOLS)))
    return write_jsonl(tmp_path / "info.jsonl", [{"request": first}, {"request": second}])


def _warning_log(tmp_path):
    """History edited before the last breakpoint: a warning (CL303)."""

    def marked(messages):
        body = anthropic(messages, system=[{"type": "text", "text": LONG_SYSTEM}])
        last = body["messages"][-1]
        last["content"] = [{"type": "text", "text": last["content"], "cache_control": {"type": "ephemeral"}}]
        return body

    edited = turns(3)
    edited[0]["content"] = "an edited first message"
    return write_jsonl(
        tmp_path / "warning.jsonl", [{"request": marked(turns(3))}, {"request": marked(edited + turns(5)[3:])}]
    )


def _severities(tmp_path, log):
    out = cli(["audit", "--isolated", "--output-format", "json", log.name], tmp_path)
    return sorted({d["severity"] for d in json.loads(out.output)["findings"]})


@pytest.mark.parametrize(("fail_on", "code"), [(None, 0), ("warning", 0), ("error", 0), ("info", 1)])
def test_audit_of_information_only_passes_unless_asked(tmp_path, fail_on, code):
    log = _info_only_log(tmp_path)
    assert _severities(tmp_path, log) == ["info"]
    args = ["audit", "--isolated", log.name] + ([f"--fail-on={fail_on}"] if fail_on else [])
    result = cli(args, tmp_path)
    assert result.exit_code == code, result.output
    assert "nothing cached was lost" in result.output  # reported all the same


@pytest.mark.parametrize(("fail_on", "code"), [(None, 1), ("info", 1), ("warning", 1), ("error", 0)])
def test_audit_warning_fails_at_warning_and_below(tmp_path, fail_on, code):
    log = _warning_log(tmp_path)
    assert "warning" in _severities(tmp_path, log) and "error" not in _severities(tmp_path, log)
    result = cli(["audit", "--isolated", log.name] + ([f"--fail-on={fail_on}"] if fail_on else []), tmp_path)
    assert result.exit_code == code, result.output


def test_check_error_fails_at_every_level_and_exit_zero_still_wins(tmp_path):
    write_tree(tmp_path, {"bad.py": b"\xff"})  # CL001, an error
    for level in ("info", "warning", "error"):
        assert cli(["check", "--no-cache", "--isolated", f"--fail-on={level}", "."], tmp_path).exit_code == 1
    assert cli(["check", "--no-cache", "--isolated", "--fail-on=info", "--exit-zero", "."], tmp_path).exit_code == 0


def test_fail_on_from_the_environment_and_a_bad_value(tmp_path, monkeypatch):
    log = _info_only_log(tmp_path)
    monkeypatch.setenv("CACHELINT_FAIL_ON", "info")
    assert cli(["audit", "--isolated", log.name], tmp_path).exit_code == 1
    monkeypatch.delenv("CACHELINT_FAIL_ON")
    bad = cli(["audit", "--isolated", "--fail-on=notice", log.name], tmp_path)
    assert bad.exit_code == 2 and "--fail-on" in bad.output
