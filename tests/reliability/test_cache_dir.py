"""A ``cache-dir`` inside the checked tree: cachelint marks only a folder it creates, its ignore
file names its own files, its cache files are never inputs, and a run that finds nothing to check
among files that exist says why."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .helpers import GOOD_AGENT, run_cli

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _project(root: Path, cache_dir: str) -> Path:
    (root / "pyproject.toml").write_text(f'[tool.cachelint]\ncache-dir = "{cache_dir}"\n', encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "agent.py").write_text(GOOD_AGENT, encoding="utf-8")
    return root


def _git_untracked(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    return sorted(line[3:] for line in out.splitlines())


def _check(root: Path) -> tuple[int, str]:
    return run_cli(root, ["check", "--output-format", "concise", "."])


@pytest.mark.parametrize("cache_dir", [".", "src"])
def test_a_cache_dir_that_exists_gets_no_ignore_file_and_the_next_run_still_checks(tmp_path, cache_dir):
    _project(tmp_path, cache_dir)
    first = _check(tmp_path)
    second = _check(tmp_path)
    folder = tmp_path / cache_dir
    assert not (folder / ".gitignore").exists() and not (folder / "CACHEDIR.TAG").exists()
    assert list(folder.glob("results-*.json"))  # the cache is still kept there
    assert first == second and first[0] == 1 and "src/agent.py:4:9: CL101" in first[1]
    assert "1 file checked" in second[1]  # its own cache files are not inputs


@needs_git
def test_git_still_sees_the_users_files_after_a_run_with_the_cache_in_the_root(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _project(tmp_path, ".")
    _check(tmp_path)
    (tmp_path / "new.py").write_text("x = 1\n", encoding="utf-8")
    assert {"new.py", "pyproject.toml", "src/agent.py"} <= set(_git_untracked(tmp_path))


@needs_git
def test_a_cache_folder_cachelint_creates_hides_only_its_own_files(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _project(tmp_path, "var/lint-cache")
    _check(tmp_path)
    folder = tmp_path / "var" / "lint-cache"
    assert (folder / "CACHEDIR.TAG").is_file() and list(folder.glob("results-*.json"))
    assert not (tmp_path / "var" / ".gitignore").exists()  # a parent it made is not a cache folder
    assert _git_untracked(tmp_path) == ["pyproject.toml", "src/agent.py"]
    # a file of the user's put there later stays visible to git and to discovery
    (folder / "tool.py").write_text(GOOD_AGENT, encoding="utf-8")
    assert "var/lint-cache/tool.py" in _git_untracked(tmp_path)
    code, out = _check(tmp_path)
    assert "var/lint-cache/tool.py:4:9: CL101" in out and "2 files checked" in out


def test_zero_files_checked_where_files_exist_says_which_ignore_file_left_them_out(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("# created by cachelint: the cache is local to this machine\n*\n")
    (tmp_path / "agent.py").write_text(GOOD_AGENT, encoding="utf-8")
    result = _stderr_of(tmp_path, ["check", "--isolated", "--no-cache", "."])
    assert result[0] == 0
    assert "0 files checked: 1 Python, notebook or skill file" in result[1]
    assert "agent.py is ignored by `*` in .gitignore" in result[1]


def test_zero_files_checked_names_the_exclude_setting(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.cachelint]\nexclude = ["skills/"]\n', encoding="utf-8")
    (tmp_path / "skills" / "a").mkdir(parents=True)
    (tmp_path / "skills" / "a" / "SKILL.md").write_text("---\nname: a\ndescription: d\n---\nbody\n")
    code, err = _stderr_of(tmp_path, ["check", "--no-cache", "."])
    assert "0 files checked: 1 Python, notebook or skill file" in err
    assert "skills is excluded by `skills/` in the exclude settings" in err


def test_an_empty_tree_keeps_the_plain_message(tmp_path):
    (tmp_path / "notes.csv").write_text("a,b\n")
    code, err = _stderr_of(tmp_path, ["check", "--isolated", "--no-cache", "."])
    assert "No Python files, notebooks or skill files found" in err and "0 files checked:" not in err


def test_files_no_selected_rule_reads_are_said_to_be_found(tmp_path):
    (tmp_path / "agent.py").write_text(GOOD_AGENT, encoding="utf-8")
    code, err = _stderr_of(tmp_path, ["check", "--isolated", "--no-cache", "--select", "CL3", "."])
    assert code == 0 and "1 file found under the given paths, but no selected rule reads it" in err


def _stderr_of(root: Path, args: list[str]) -> tuple[int, str]:
    import os

    from click.testing import CliRunner

    from cachelint.cli import main

    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stderr
