"""The pre-commit hooks, driven through a real `pre-commit try-repo` on a temporary git repo.
Slow (pre-commit builds an environment with cachelint installed from this checkout)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, write_tree

pytestmark = pytest.mark.slow


def test_hook_manifest_is_valid():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    ids = [h["id"] for h in hooks]
    assert ids == ["cachelint", "cachelint-fix", "cachelint-index", "cachelint-audit"]
    for hook in hooks:
        assert hook["language"] == "python"
        assert hook["entry"].startswith("cachelint ")
        assert hook["require_serial"] is True


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def precommit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


def _try_repo(project: Path, hook: str, home: Path, *files: str):
    exe = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    args = [exe, "try-repo", str(REPO), hook, "--verbose"]
    args += ["--files", *files] if files else ["--all-files"]
    return subprocess.run(args, cwd=project, capture_output=True, text=True, env=env, timeout=900)


def _project(tmp_path: Path, files) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    _git(project, "config", "user.email", "t@example.com")
    _git(project, "config", "user.name", "t")
    write_tree(project, files)
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "init")
    return project


def test_check_hook_fails_on_findings_and_passes_when_clean(tmp_path, precommit_home):
    project = _project(tmp_path, {"clean.py": "x = 1\n", "broken.py": b"x = '\xff'\n"})
    failing = _try_repo(project, "cachelint", precommit_home)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "broken.py:1:" in failing.stdout and "CL001" in failing.stdout
    passing = _try_repo(project, "cachelint", precommit_home, "clean.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr


def test_fix_hook_rewrites_and_then_passes(tmp_path, precommit_home):
    source = (
        "import anthropic\n"
        "client = anthropic.Anthropic()\n"
        "TOOLS = {'a': {'name': 'a'}, 'b': {'name': 'b'}}\n"
        "names = {'a', 'b'}\n"
        "client.messages.create(model='m', max_tokens=1, tools=[TOOLS[n] for n in names], messages=[])\n"
    )
    project = _project(tmp_path, {"agent.py": source})
    first = _try_repo(project, "cachelint-fix", precommit_home)
    assert first.returncode == 1, first.stdout + first.stderr  # files were modified
    fixed = (project / "agent.py").read_text()
    assert "sorted(names)" in fixed
    second = _try_repo(project, "cachelint-fix", precommit_home)
    assert second.returncode == 0, second.stdout + second.stderr
