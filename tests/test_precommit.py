"""The pre-commit hooks of .pre-commit-hooks.yaml, driven through a real pre-commit: `try-repo`
against this checkout, and a `.pre-commit-config.yaml` that pins a commit, as users write it.

pre-commit builds a hook's environment with `pip install .` from the hook repository. These tests
build it without a network: pip's index is switched off (PIP_NO_INDEX) and the package's
dependencies, hatchling (the build backend) included, come from the interpreter running the tests,
put on PYTHONPATH without cachelint itself, so the hooks run the copy pre-commit installed. When
the checkout is not a git repository (an unpacked sdist), the hooks are installed from a git
repository made of a copy of it. Slow: every `try-repo` builds an environment of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import HANG_GUARD, REPO, offline_pip_env, write_tree

pytestmark = pytest.mark.slow

# What `pip install .` of the hook repository reads: the package, its data and its metadata.
PACKAGE_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "cachelint", "rules")


def test_hook_manifest_is_valid():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    ids = [h["id"] for h in hooks]
    assert ids == ["cachelint", "cachelint-fix", "cachelint-index", "cachelint-audit"]
    for hook in hooks:
        assert hook["language"] == "python"
        assert hook["entry"].startswith("cachelint ")
        assert hook["require_serial"] is True
    assert {h["id"]: h.get("stages") for h in hooks}["cachelint-audit"] == ["manual"]


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def _git_toplevel(path: Path) -> Path | None:
    done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=path, capture_output=True, text=True)
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def _snapshot_repo(target: Path) -> Path:
    """A git repository holding the package files of this checkout as they are on disk now."""
    target.mkdir()
    for name in PACKAGE_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target / name)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-qm", "snapshot")
    return target


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> Path:
    return _snapshot_repo(tmp_path_factory.mktemp("hook-repo") / "cachelint")


@pytest.fixture(scope="module")
def hook_repo(snapshot) -> Path:
    """What `try-repo` installs from: the checkout itself when it is a git work tree (try-repo
    then adds its uncommitted changes to a shadow copy), else the snapshot repository."""
    return REPO if _git_toplevel(REPO) == REPO.resolve() else snapshot


@pytest.fixture(scope="module")
def offline_env(tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("pre-commit")
    env = {k: v for k, v in offline_pip_env(base).items() if not k.startswith("PRE_COMMIT")}
    env.update(
        {
            "PRE_COMMIT_HOME": str(base / "home"),
            "PRE_COMMIT_COLOR": "never",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        }
    )
    return env


def _pre_commit(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    return subprocess.run([exe, *args], cwd=project, capture_output=True, text=True, env=env, timeout=HANG_GUARD)


def _try_repo(project: Path, repo: Path, hook: str, env: dict[str, str], *files: str):
    args = ["try-repo", str(repo), hook, "--verbose"]
    args += ["--files", *files] if files else ["--all-files"]
    return _pre_commit(project, env, *args)


def _project(tmp_path: Path, files) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    write_tree(project, files)
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "init")
    return project


def _output(done: subprocess.CompletedProcess) -> str:
    return done.stdout + done.stderr


def test_check_hook_fails_on_findings_and_passes_when_clean(tmp_path, hook_repo, offline_env):
    project = _project(tmp_path, {"clean.py": "x = 1\n", "broken.py": b"x = '\xff'\n"})
    failing = _try_repo(project, hook_repo, "cachelint", offline_env)
    assert failing.returncode == 1, _output(failing)
    assert "broken.py:1:" in failing.stdout and "CL001" in failing.stdout
    passing = _try_repo(project, hook_repo, "cachelint", offline_env, "clean.py")
    assert passing.returncode == 0, _output(passing)


def test_fix_hook_rewrites_and_then_passes(tmp_path, hook_repo, offline_env):
    source = (
        "import anthropic\n"
        "client = anthropic.Anthropic()\n"
        "TOOLS = {'a': {'name': 'a'}, 'b': {'name': 'b'}}\n"
        "names = {'a', 'b'}\n"
        "client.messages.create(model='m', max_tokens=1, tools=[TOOLS[n] for n in names], messages=[])\n"
    )
    project = _project(tmp_path, {"agent.py": source})
    first = _try_repo(project, hook_repo, "cachelint-fix", offline_env)
    assert first.returncode == 1, _output(first)  # files were modified
    fixed = (project / "agent.py").read_text()
    assert "sorted(names)" in fixed
    second = _try_repo(project, hook_repo, "cachelint-fix", offline_env)
    assert second.returncode == 0, _output(second)


def _skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\nSteps.\n"


SKILLS = {
    "skills/reconcile-card-receipts/SKILL.md": _skill(
        "reconcile-card-receipts",
        "Use to reconcile card receipts against the bank statement and settle the matching invoices.",
    ),
    "skills/issue-invoices/SKILL.md": _skill(
        "issue-invoices", "Use to issue, cancel or look up electronic invoices for a customer order."
    ),
}

HOOK_CONFIG = """repos:
  - repo: {repo}
    rev: {rev}
    hooks:
      - id: cachelint-index
        args: [--check, AGENTS.md, skills]
      - id: cachelint-audit
"""


def _configured_project(tmp_path: Path, snapshot: Path, files) -> Path:
    """A project whose .pre-commit-config.yaml pins the snapshot's commit (the documented
    `rev: <commit sha>` form)."""
    config = HOOK_CONFIG.format(repo=snapshot, rev=_git(snapshot, "rev-parse", "HEAD"))
    return _project(tmp_path, {**files, ".pre-commit-config.yaml": config})


def test_index_hook_passes_on_a_current_index_and_fails_on_a_stale_one(tmp_path, snapshot, offline_env):
    project = _configured_project(tmp_path, snapshot, {**SKILLS, "AGENTS.md": "# Agent\n"})
    written = subprocess.run(
        [sys.executable, "-m", "cachelint", "index", "skills", "--write", "AGENTS.md"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0, written.stdout + written.stderr
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "index")
    current = _pre_commit(project, offline_env, "run", "cachelint-index", "--all-files")
    assert current.returncode == 0, _output(current)

    write_tree(
        project,
        {
            "skills/chase-overdue-invoices/SKILL.md": _skill(
                "chase-overdue-invoices", "Use to send the reminder sequence for overdue invoices to their customers."
            )
        },
    )
    _git(project, "add", "-A")
    stale = _pre_commit(project, offline_env, "run", "cachelint-index", "--all-files")
    assert stale.returncode == 1, _output(stale)
    assert "AGENTS.md" in stale.stdout


def test_audit_hook_runs_on_the_manual_stage_only(tmp_path, snapshot, offline_env):
    log = (REPO / "examples" / "logs" / "backoffice-session.jsonl").read_text(encoding="utf-8")
    project = _configured_project(tmp_path, snapshot, {"recordings/session.jsonl": log})
    default_stage = _pre_commit(project, offline_env, "run", "--all-files")
    assert default_stage.returncode == 0, _output(default_stage)
    assert "cachelint audit" not in default_stage.stdout  # not run on the commit stage
    manual = _pre_commit(project, offline_env, "run", "cachelint-audit", "--hook-stage", "manual", "--all-files")
    assert manual.returncode == 1, _output(manual)
    assert "recordings/session.jsonl:" in manual.stdout and "CL3" in manual.stdout


def _documented_local_hook() -> str:
    """The `repo: local` configuration of docs/pre-commit.md, as a user copies it."""
    text = (REPO / "docs" / "pre-commit.md").read_text(encoding="utf-8")
    section = text.split("## A local hook", 1)[1]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_documented_local_hook_runs_the_installed_cachelint(tmp_path, offline_env):
    config = _documented_local_hook()
    assert "repo: local" in config and "language: system" in config
    project = _project(
        tmp_path, {".pre-commit-config.yaml": config, "clean.py": "x = 1\n", "broken.py": b"x = '\xff'\n"}
    )
    env = {**offline_env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{offline_env.get('PATH', '')}"}
    failing = _pre_commit(project, env, "run", "--all-files")
    assert failing.returncode == 1, _output(failing)
    assert "broken.py:1:" in failing.stdout and "CL001" in failing.stdout
    passing = _pre_commit(project, env, "run", "--files", "clean.py")
    assert passing.returncode == 0, _output(passing)
