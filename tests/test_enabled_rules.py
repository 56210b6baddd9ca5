"""Runners run only the rules the selection enables (Ruff's ``is_rule_enabled``): a selection
without a code rule reads no Python file, a selection of one code rule runs that rule alone with
a prefilter built from what it requires, and the audit calls no disabled rule but those whose
findings tell the summary which breaks are reported."""

from __future__ import annotations

import dataclasses
import json

import pytest

import cachelint.rules as rules

from conftest import forget_rule_memos, invoke_in, write_tree

AGENT = "import anthropic\n\ndef run(names):\n    return anthropic.Anthropic().messages.create(model='m', tools=[{'name': n} for n in set(names)], messages=[])\n"
SKILL = "---\nname: other-name\ndescription: Use when the task merges PDF files.\n---\n"


pytestmark = pytest.mark.usefixtures("fresh_rule_memos")
_run = invoke_in


def _spy_on(monkeypatch, scope: str, hooks: tuple[str, ...]) -> list[str]:
    """Every call of a rule of ``scope``, by code, while the rules run as declared."""
    called: list[str] = []
    real = rules.declared

    def spied(rule):
        changes = {}
        for hook in hooks:
            call = getattr(rule, hook)
            if call is None:
                continue

            def spy(*args, _call=call, _code=rule.code):
                called.append(_code)
                return _call(*args)

            changes[hook] = spy
        return dataclasses.replace(rule, **changes)

    monkeypatch.setattr(
        rules, "declared", lambda wanted: tuple(spied(r) for r in real(wanted)) if wanted == scope else real(wanted)
    )
    forget_rule_memos()
    return called


def test_a_selection_without_a_code_rule_reads_no_python_file(tmp_path, monkeypatch):
    import cachelint.textio as textio

    write_tree(tmp_path, {".git/HEAD": "", "broken.py": "def (:\n", "agent.py": AGENT, "pdf/SKILL.md": SKILL})
    read: list[str] = []
    real = textio.read_bytes

    def spy(path, display, max_size):
        read.append(display)
        return real(path, display, max_size)

    monkeypatch.setattr(textio, "read_bytes", spy)
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", "--select", "CL2", ".")
    assert [(d["code"], d["path"]) for d in json.loads(result.stdout)] == [("CL205", "pdf/SKILL.md")]
    assert not [p for p in read if p.endswith(".py")]


def test_a_selection_that_names_cl001_reads_python_files_for_their_syntax_only(tmp_path, monkeypatch):
    called = _spy_on(monkeypatch, "code", ("check",))
    write_tree(tmp_path, {"broken.py": "def (:\n", "agent.py": AGENT})
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", "--select", "CL001", ".")
    assert [(d["code"], d["path"]) for d in json.loads(result.stdout)] == [("CL001", "broken.py")]
    assert called == []


def test_a_selection_of_one_code_rule_runs_that_rule_alone(tmp_path, monkeypatch):
    called = _spy_on(monkeypatch, "code", ("check",))
    write_tree(tmp_path, {"agent.py": AGENT})
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", "--select", "CL105", ".")
    assert json.loads(result.stdout) == []
    assert called == ["CL105"]
    called.clear()
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", ".")
    assert [d["code"] for d in json.loads(result.stdout)] == ["CL101"]
    assert called == list(rules.codes("code"))


def test_a_selection_without_a_skill_rule_builds_no_skill_tree(tmp_path, monkeypatch):
    import cachelint.skills.tree as tree

    def refuse(*args, **kwargs):
        raise AssertionError("a skill tree was built")

    monkeypatch.setattr(tree, "build_tree", refuse)
    write_tree(tmp_path, {".git/HEAD": "", "agent.py": AGENT, "pdf/SKILL.md": SKILL})
    result = _run(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", "--select", "CL1", ".")
    assert [(d["code"], d["path"]) for d in json.loads(result.stdout)] == [("CL101", "agent.py")]


def test_the_audit_calls_no_disabled_rule_but_those_that_report_prefix_breaks(tmp_path, monkeypatch):
    called = _spy_on(monkeypatch, "payloads", ("check_request", "check_pair", "check_session", "check_run_end"))
    first = {
        "model": "claude-sonnet-4-5",
        "tools": [{"name": "a", "input_schema": {}}],
        "system": "One.",
        "messages": [{"role": "user", "content": "hi"}],
    }
    second = {**first, "tools": [{"name": "b", "input_schema": {}}]}
    records = [{"request": body, "session": "s1"} for body in (first, second)]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = _run(tmp_path, "audit", "--isolated", "--output-format", "json", "--select", "CL305", "log.jsonl")
    report = json.loads(result.stdout)
    assert report["findings"] == []
    assert report["summary"]["sessions"][0]["breaks"] == 0  # the CL301 left out: no break reported
    breaks = {r.code for r in rules.declared("payloads") if r.reports_prefix_break}
    assert set(called) == {"CL305"} | breaks
