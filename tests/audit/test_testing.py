"""cachelint.testing.assert_prefix_stable: passes on a stable capture, fails on a broken one with
the audit's own explanation."""

from __future__ import annotations

import json

import pytest

from cachelint.report import render
from cachelint.testing import assert_prefix_stable

from .conftest import CC, anthropic, assistant, sys_block, text, user

SYSTEM = text(6000, "policy")


def _write(path, bodies):
    path.write_text("".join(json.dumps(b) + "\n" for b in bodies), encoding="utf-8")
    return path


def _stable():
    one = anthropic(sys_block(SYSTEM), [user("hi", CC)])
    two = anthropic(sys_block(SYSTEM), [user("hi"), assistant("hello"), user("more", CC)])
    return [one, two]


def test_stable_capture_passes_and_returns_the_result(tmp_path):
    log = _write(tmp_path / "run.jsonl", _stable())
    result = assert_prefix_stable(log, cwd=tmp_path, isolated=True)
    assert result.summary.requests == 2


def test_broken_capture_fails_with_the_audit_explanation(tmp_path):
    one, two = _stable()
    two = dict(two, system=sys_block(SYSTEM.replace("policy", "POLICY", 1)))
    log = _write(tmp_path / "run.jsonl", [one, two])
    with pytest.raises(AssertionError) as info:
        assert_prefix_stable(log, cwd=tmp_path, isolated=True)
    message = str(info.value)
    assert message.startswith("prompt prefix not stable: 1 finding in ")
    assert "CL302" in message
    # the same text the CLI's full output prints for that finding
    from cachelint.api import audit_logs
    from cachelint.config import load_settings

    result = audit_logs([str(log)], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    assert render("full", result.diagnostics, summary=result.summary) in message


def test_unreadable_capture_is_not_stable(tmp_path):
    log = tmp_path / "run.jsonl"
    log.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="CL001"):
        assert_prefix_stable(log, cwd=tmp_path, isolated=True)


def test_codes_select_what_fails(tmp_path):
    short = anthropic(sys_block("You are terse."), [user("hi")])  # CL305: marker below the minimum
    log = _write(tmp_path / "run.jsonl", [short])
    assert_prefix_stable(log, cwd=tmp_path, isolated=True)  # not a prefix break
    with pytest.raises(AssertionError, match="CL305"):
        assert_prefix_stable(log, cwd=tmp_path, isolated=True, codes=("ALL",))
    with pytest.raises(TypeError):
        assert_prefix_stable()
