"""The GitHub Action (action.yml), run locally: its own shell steps, taken from action.yml, with the
variables a runner sets (GITHUB_ACTION_PATH, GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
RUNNER_TEMP). The install step runs too (`pip install "$GITHUB_ACTION_PATH"` into a fresh virtual
environment), offline: pip's index is off and the dependencies come from the interpreter running
the tests (conftest.offline_pip_env). The upload steps (`uses:`) are GitHub's own and are not run;
their inputs, the SARIF files, are checked against the SARIF 2.1.0 schema."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Mapping

import pytest
import yaml

from conftest import HANG_GUARD, REPO, offline_pip_env, write_tree
from test_reports import validate_sarif

pytestmark = pytest.mark.slow

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
STEPS = {step.get("id", step.get("name")): step for step in ACTION["runs"]["steps"]}
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
ANNOTATION = re.compile(r"^::(error|warning|notice) (?P<props>[^:]*)::", re.M)


def expand(text: str, inputs: Mapping[str, str]) -> str:
    """The expressions of a shell step, as the runner evaluates them: only `inputs.*` appear in
    the steps the runner executes (anything else would make this simulation unfaithful)."""

    def value(match: re.Match) -> str:
        expr = match.group(1)
        name = expr.removeprefix("inputs.")
        assert expr.startswith("inputs.") and name in ACTION["inputs"], f"unexpected expression {expr!r}"
        return inputs[name]

    return EXPRESSION.sub(value, text)


def run_step(step: Mapping[str, Any], inputs: Mapping[str, str], env: Mapping[str, str], tmp: Path):
    assert step["shell"] == "bash"
    script = tmp / f"step-{step['id']}.sh"
    script.write_text(expand(step["run"], inputs), encoding="utf-8")
    step_env = {**env, **{key: expand(str(value), inputs) for key, value in step.get("env", {}).items()}}
    # what the runner runs for `shell: bash`
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=env["GITHUB_WORKSPACE"],
        env=step_env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )


def inputs_with(**given: str) -> dict[str, str]:
    values = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    values["python"] = sys.executable  # the dependencies on PYTHONPATH are built for this interpreter
    values.update({name.replace("_", "-"): value for name, value in given.items()})
    return values


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> dict[str, str]:
    """The job's environment after the action's install step ran."""
    base = tmp_path_factory.mktemp("runner")
    (base / "temp").mkdir()
    (base / "workspace").mkdir()
    env = offline_pip_env(base)
    env.update(
        {
            "GITHUB_ACTIONS": "true",
            "CI": "true",
            "GITHUB_ACTION_PATH": str(REPO),
            "GITHUB_WORKSPACE": str(base / "workspace"),
            "RUNNER_TEMP": str(base / "temp"),
        }
    )
    done = run_step(STEPS["install"], inputs_with(), env, base)
    assert done.returncode == 0, done.stdout + done.stderr
    venv_python = base / "temp" / "cachelint-venv" / "bin" / "python"
    where = subprocess.run(
        [str(venv_python), "-c", "import cachelint; print(cachelint.__file__)"],
        cwd=base / "workspace",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(base / "temp" / "cachelint-venv")  # the copy the step installed
    return env


def run_action(runner: Mapping[str, str], workspace: Path, tmp: Path, **given: str):
    """The action's run step in ``workspace``; returns the process, its outputs and its summary."""
    output, summary = tmp / "github_output", tmp / "step_summary"
    env = {
        **runner,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    done = run_step(STEPS["run"], inputs_with(**given), env, tmp)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines()) if output.exists() else {}
    return done, outputs, summary.read_text() if summary.exists() else ""


def examples_workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    shutil.copytree(REPO / "examples", workspace, ignore=shutil.ignore_patterns(".cachelint_cache"))
    return workspace


def sarif_uris(path: str) -> list[str]:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    validate_sarif(doc)
    return [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for run in doc["runs"] for r in run["results"]
    ]


def annotated_files(stdout: str) -> list[str]:
    return [dict(p.split("=", 1) for p in m.group("props").split(","))["file"] for m in ANNOTATION.finditer(stdout)]


def test_action_is_composite_and_its_steps_install_run_and_upload():
    assert ACTION["runs"]["using"] == "composite"
    assert list(STEPS)[:2] == ["install", "run"]
    assert "pip install" in STEPS["install"]["run"] and '"$GITHUB_ACTION_PATH"' in STEPS["install"]["run"]
    assert "scripts/github_action.py" in STEPS["run"]["run"]
    assert (REPO / "scripts" / "github_action.py").is_file()
    uploads = [s for s in ACTION["runs"]["steps"] if "uses" in s]
    assert [s["uses"] for s in uploads] == ["github/codeql-action/upload-sarif@v4"] * 2
    assert [s["with"]["sarif_file"] for s in uploads] == [
        "${{ steps.run.outputs.check-sarif }}",
        "${{ steps.run.outputs.audit-sarif }}",
    ]
    assert all(s["if"].startswith("${{ always() && inputs.upload-sarif == 'true'") for s in uploads)
    # every input reaches a step, and the documentation lists each one
    used = json.dumps(ACTION["runs"]["steps"])
    docs = (REPO / "docs" / "github-actions.md").read_text(encoding="utf-8")
    for name in ACTION["inputs"]:
        assert f"inputs.{name}" in used, name
        assert f"| `{name}` |" in docs, name


def test_findings_fail_the_step_with_annotations_and_valid_sarif(tmp_path, runner):
    workspace = examples_workspace(tmp_path)
    done, outputs, summary = run_action(runner, workspace, tmp_path, audit_paths="logs")
    assert done.returncode == 1, done.stdout + done.stderr
    assert outputs["findings"] == "true" and outputs["check-exit-code"] == "1" and outputs["audit-exit-code"] == "1"
    check, audit = sarif_uris(outputs["check-sarif"]), sarif_uris(outputs["audit-sarif"])
    assert "agent/backoffice_agent.py" in check and any(u.startswith("skills/") for u in check)
    assert set(audit) == {"logs/backoffice-session.jsonl"}
    assert all(not u.startswith(("/", "file:")) for u in check + audit)  # relative to the workspace
    # one annotation per SARIF result, on the same files
    assert sorted(annotated_files(done.stdout)) == sorted(check + audit)
    assert "| `cachelint check` | findings |" in summary and "| `cachelint audit` | findings |" in summary


def test_fail_on_findings_false_reports_and_passes(tmp_path, runner):
    workspace = examples_workspace(tmp_path)
    done, outputs, _ = run_action(runner, workspace, tmp_path, paths="agent", fail_on_findings="false")
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs["findings"] == "true" and outputs["audit-sarif"] == ""
    assert set(sarif_uris(outputs["check-sarif"])) == {"agent/backoffice_agent.py"}
    assert set(annotated_files(done.stdout)) == {"agent/backoffice_agent.py"}


def test_a_clean_workspace_passes_with_an_empty_sarif(tmp_path, runner):
    workspace = write_tree(tmp_path / "workspace", {"agent.py": "import anthropic\n\nTOOLS = [{'name': 'a'}]\n"})
    done, outputs, summary = run_action(runner, workspace, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs["findings"] == "false" and sarif_uris(outputs["check-sarif"]) == []
    assert annotated_files(done.stdout) == []
    assert "| `cachelint check` | clean | 0 |" in summary


@pytest.mark.parametrize(
    "given, message",
    [
        ({"args": "--select NOPE"}, "cachelint check exited 2"),
        ({"fail_on_findings": "maybe"}, "fail-on-findings: expected true or false"),
        ({"audit_paths": "logs", "audit_args": "--input-format nope"}, "cachelint audit exited 2"),
    ],
)
def test_errors_fail_the_step_whatever_fail_on_findings_says(tmp_path, runner, given, message):
    workspace = examples_workspace(tmp_path)
    done, outputs, _ = run_action(runner, workspace, tmp_path, **{"fail_on_findings": "false", **given})
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stdout
    if "args" in given:
        assert outputs["check-sarif"] == ""  # nothing to upload
