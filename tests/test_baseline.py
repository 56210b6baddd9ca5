"""--baseline for check: findings of an earlier JSON output are accepted and left out, matched by
the fingerprint SARIF uses (rule, path, the flagged line's text), so lines moving does not bring
them back; a new finding, or an accepted one whose line changed, is reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from cachelint.cli import main
from conftest import write_tree

AGENT = (
    "import anthropic\nclient = anthropic.Anthropic()\nTOOLS = {'a': {'name': 'a'}}\n"
    "tools = [TOOLS[n] for n in {'a'}]\nclient.messages.create(model='m', max_tokens=1, tools=tools, messages=[])\n"
)


def run(cwd: Path, *args: str):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["check", "--isolated", "--no-cache", *args], catch_exceptions=False)
    finally:
        os.chdir(old)


def test_baselined_findings_stay_hidden_when_lines_move(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT})
    made = run(tmp_path, "--output-format", "json", "-o", "baseline.json", ".")
    assert made.exit_code == 1
    accepted = json.loads((tmp_path / "baseline.json").read_text())
    assert [f["code"] for f in accepted] == ["CL101"] and accepted[0]["fingerprint"].endswith(":1")
    write_tree(tmp_path, {"agent.py": "import os\nimport sys\n\n" + AGENT})  # the finding moves 3 lines down
    result = run(tmp_path, "--baseline", "baseline.json", ".")
    assert result.exit_code == 0
    assert (
        result.stdout == "All checks passed! (2 files checked)\n1 finding accepted in the baseline is not shown.\n"
    )  # baseline.json is a candidate index


def test_a_new_finding_and_a_changed_line_are_reported(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT})
    run(tmp_path, "--output-format", "json", "-o", "baseline.json", ".")
    second = (
        AGENT
        + "more = [TOOLS[n] for n in {'a'}]\nclient.messages.create(model='m', max_tokens=1, tools=more, messages=[])\n"
    )
    write_tree(tmp_path, {"agent.py": second})
    found = json.loads(run(tmp_path, "--baseline", "baseline.json", "--output-format", "json", ".").stdout)
    assert [(f["code"], f["line"]) for f in found] == [("CL101", 6)]
    edited = AGENT.replace("tools = [TOOLS[n] for n in {'a'}]", "tools = [TOOLS[k] for k in {'a'}]")
    write_tree(tmp_path, {"agent.py": edited})
    assert run(tmp_path, "--baseline", "baseline.json", ".").exit_code == 1


def test_an_entry_without_fingerprint_hides_its_code_in_its_file(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT, "other.py": AGENT})
    (tmp_path / "baseline.json").write_text(json.dumps([{"code": "CL101", "path": "agent.py"}]))
    found = json.loads(run(tmp_path, "--baseline", "baseline.json", "--output-format", "json", ".").stdout)
    assert [(f["code"], f["path"]) for f in found] == [("CL101", "other.py")]


def test_a_bad_baseline_is_exit_2_with_one_line(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT, "baseline.json": '{"findings": 3}'})
    result = run(tmp_path, "--baseline", "baseline.json", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith("cachelint: error: baseline baseline.json: ") and result.stderr.count("\n") == 1
