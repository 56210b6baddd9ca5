"""cachelint's own failures are CL003, never the user's CL001: reported whatever the selection,
the rest of the run goes on, and the command exits 2 (its result is not complete)."""

from __future__ import annotations

import json

import pytest


import cachelint.code

from conftest import forget_rule_memos, invoke_in, write_tree


pytestmark = pytest.mark.usefixtures("fresh_rule_memos")
_run = invoke_in


def _replace_rule(monkeypatch, scope: str, code: str, **changes) -> None:
    """Run ``code`` of ``scope`` with some of its declaration replaced (a check that raises)."""
    import dataclasses

    import cachelint.rules as rules

    real = rules.declared

    def declared(wanted: str):
        found = real(wanted)
        if wanted != scope:
            return found
        return tuple(dataclasses.replace(r, **changes) if r.code == code else r for r in found)

    monkeypatch.setattr(rules, "declared", declared)
    forget_rule_memos()  # and again after the test (``fresh_rule_memos``)


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
    def broken(req, ctx):
        raise ValueError("simulated")

    _replace_rule(monkeypatch, "payloads", "CL305", check_request=broken)
    body = {"model": "claude-sonnet-4-5", "system": "You help.", "messages": [{"role": "user", "content": "hi"}]}
    (tmp_path / "log.jsonl").write_text(json.dumps(body) + "\n")
    result = _run(tmp_path, "audit", "--isolated", "--output-format", "concise", "log.jsonl")
    assert result.exit_code == 2, result.output
    assert "CL003 internal error in CL305 breakpoint-misuse: ValueError: simulated" in result.stdout
    assert "bug in cachelint" in result.stdout


def _simulated(*args):
    raise ValueError("simulated")


def test_a_crashing_code_rule_is_a_cl003_naming_it_and_the_other_rules_still_report(tmp_path, monkeypatch):
    _replace_rule(monkeypatch, "code", "CL102", check=_simulated)
    write_tree(tmp_path, {"agent.py": AGENT})
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "concise", ".")
    assert result.exit_code == 2, result.output
    lines = result.stdout.splitlines()
    assert any(line.startswith("agent.py:4:") and "CL101" in line for line in lines), result.stdout
    assert "agent.py:1:1: CL003 internal error in CL102 unordered-prompt: ValueError: simulated" in result.stdout


def test_a_crashing_skill_rule_is_a_cl003_naming_it_and_the_other_rules_still_report(tmp_path, monkeypatch):
    _replace_rule(monkeypatch, "skills", "CL201", check=_simulated)
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            "pdf/SKILL.md": "---\nname: other-name\ndescription: Use when the task merges PDF files.\n---\n",
        },
    )
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "concise", ".")
    assert result.exit_code == 2, result.output
    assert (
        "pdf/SKILL.md:1:1: CL003 internal error in CL201 invalid-skill-metadata: ValueError: simulated" in result.stdout
    )
    assert "CL205" in result.stdout  # the name that is not its folder's, reported beside it


def test_a_crashing_payload_rule_is_a_cl003_naming_it_and_the_other_rules_still_report(tmp_path, monkeypatch):
    _replace_rule(monkeypatch, "payloads", "CL302", check_pair=_simulated)
    first = {
        "model": "claude-sonnet-4-5",
        "tools": [{"name": "a", "input_schema": {}}],
        "system": "One.",
        "messages": [{"role": "user", "content": "hi"}],
    }
    second = {**first, "tools": [{"name": "b", "input_schema": {}}], "system": "Two."}
    records = [{"request": body, "session": "s1"} for body in (first, second)]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = _run(tmp_path, "audit", "--isolated", "--output-format", "concise", "log.jsonl")
    assert result.exit_code == 2, result.output
    assert "CL301" in result.stdout  # the tools that changed, reported beside it
    assert "CL003 internal error in CL302 system-changed: ValueError: simulated" in result.stdout
