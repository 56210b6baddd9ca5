"""cachelint's own failures are CL003, never the user's CL001: reported whatever the selection,
the rest of the run goes on, and the command exits 2 (its result is not complete)."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner

import cachelint.code
from cachelint.cli import main

from conftest import write_tree


def _run(root, *args: str):
    old = os.getcwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def _break_the_code_checks(monkeypatch, only: str) -> None:
    real = cachelint.code.check_module

    def check(path, text, settings, project_summaries=None):
        if path.endswith(only):
            raise ValueError("simulated")
        return real(path, text, settings, project_summaries)

    monkeypatch.setattr(cachelint.code, "check_module", check)


AGENT = "import anthropic\n\ndef run(names):\n    return anthropic.Anthropic().messages.create(model='m', tools=[{'name': n} for n in set(names)], messages=[])\n"


def test_check_reports_cl003_beside_the_other_findings_and_exits_2(tmp_path, monkeypatch):
    _break_the_code_checks(monkeypatch, "broken.py")
    write_tree(tmp_path, {"broken.py": "x = 1\n", "agent.py": AGENT})
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", ".")
    assert result.exit_code == 2, result.output
    codes = [(d["code"], d["path"]) for d in json.loads(result.stdout)]
    assert codes == [("CL101", "agent.py"), ("CL003", "broken.py")]
    assert "internal error on some inputs" in result.stderr


def test_no_selection_hides_an_internal_error_and_exit_zero_does_not_pass_it(tmp_path, monkeypatch):
    _break_the_code_checks(monkeypatch, "broken.py")
    write_tree(tmp_path, {"broken.py": "x = 1\n"})
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--select", "CL101", "--exit-zero", ".")
    assert result.exit_code == 2
    assert "broken.py:1:1: CL003 internal error while analysing this file: ValueError: simulated" in result.stdout
    assert "CL001" not in result.stdout


def test_audit_reports_a_crashing_check_as_cl003_and_exits_2(tmp_path, monkeypatch):
    import cachelint.payloads.pipeline as pipeline_module

    def broken(req, ctx):
        raise ValueError("simulated")

    monkeypatch.setattr(pipeline_module, "request_checks", lambda: (broken,))
    body = {"model": "claude-sonnet-4-5", "system": "You help.", "messages": [{"role": "user", "content": "hi"}]}
    (tmp_path / "log.jsonl").write_text(json.dumps(body) + "\n")
    result = _run(tmp_path, "audit", "--isolated", "--output-format", "concise", "log.jsonl")
    assert result.exit_code == 2, result.output
    assert "CL003 internal error in test_internal_errors: ValueError: simulated" in result.stdout
    assert "bug in cachelint" in result.stdout
