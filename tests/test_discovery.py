from __future__ import annotations

import os
from pathlib import Path

import pytest

from cachelint.discovery import compile_patterns, walk
from conftest import write_tree


def files(root: Path, paths=(".",), **kw):
    kw.setdefault("exclude", (".git", "node_modules"))
    kw.setdefault("respect_gitignore", True)
    d = walk(paths, cwd=root, root=root, **kw)
    return [f.display for f in d.files], d.problems


def test_dot_folders_are_not_skipped(tmp_path):
    write_tree(tmp_path, {".claude/skills/a/SKILL.md": "x", "skills/.curated/b/SKILL.md": "y", "a.py": ""})
    found, _ = files(tmp_path)
    assert found == [".claude/skills/a/SKILL.md", "a.py", "skills/.curated/b/SKILL.md"]


def test_gitignore_is_respected_at_every_level(tmp_path):
    (tmp_path / ".git").mkdir()
    write_tree(
        tmp_path,
        {
            ".gitignore": "build/\n*.log\n/top_only.py\n!keep.log\n",
            "build/x.py": "",
            "a.log": "",
            "keep.log": "",
            "top_only.py": "",
            "sub/top_only.py": "",
            "sub/.gitignore": "secret_*.py\n",
            "sub/secret_1.py": "",
            "sub/ok.py": "",
        },
    )
    found, _ = files(tmp_path)
    assert found == [".gitignore", "keep.log", "sub/.gitignore", "sub/ok.py", "sub/top_only.py"]


def test_gitignore_can_be_disabled(tmp_path):
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {".gitignore": "*.py\n", "a.py": ""})
    found, _ = files(tmp_path, respect_gitignore=False)
    assert "a.py" in found


def test_configured_excludes(tmp_path):
    write_tree(tmp_path, {"gen/a.py": "", "src/b.py": "", "src/migrations/c.py": ""})
    found, _ = files(tmp_path, exclude=("gen", "migrations/"))
    assert found == ["src/b.py"]


def test_explicit_file_is_kept_unless_force_exclude(tmp_path):
    write_tree(tmp_path, {"gen/a.py": ""})
    assert files(tmp_path, ["gen/a.py"], exclude=("gen",))[0] == ["gen/a.py"]
    assert files(tmp_path, ["gen/a.py"], exclude=("gen",), force_exclude=True)[0] == []


def test_order_is_sorted_whatever_the_file_system_says(tmp_path):
    names = ["b.py", "a.py", "C.py", "_x.py", "a/b.py", "a/a.py"]
    write_tree(tmp_path, {n: "" for n in reversed(names)})
    assert files(tmp_path)[0] == sorted(names)


def test_symlink_loop_and_links_out_of_the_tree(tmp_path):
    outside = tmp_path / "outside"
    write_tree(outside, {"secret.py": ""})
    root = tmp_path / "root"
    write_tree(root, {"a.py": ""})
    os.symlink(root, root / "loop")
    os.symlink(outside, root / "out")
    os.symlink(root / "self", root / "self")
    found, problems = files(root)
    assert found == ["a.py"]
    assert any("self" in p[0] for p in problems)


def test_missing_path_is_a_problem_not_an_exception(tmp_path):
    found, problems = files(tmp_path, ["nope"])
    assert found == [] and problems == [("nope", "no such file or directory")]


@pytest.mark.parametrize(
    "pattern,path,expected",
    [
        ("*.py", "a/b.py", True),
        ("/a.py", "a.py", True),
        ("/a.py", "x/a.py", False),
        ("a/**/b.py", "a/x/y/b.py", True),
        ("**/cache", "x/cache", True),
        ("doc?", "docs", True),
        ("[ab].py", "c.py", False),
    ],
)
def test_gitignore_patterns(pattern, path, expected):
    rules = compile_patterns([pattern])
    assert rules[0].matches(path) is expected
