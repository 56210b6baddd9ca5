"""Faults around a run: a damaged or unwritable cache, two runs at once on one tree. The answer
must be the answer of a run without the cache, and a damaged cache is said (a warning), never a
crash or a wrong result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cachelint import cachefile
from cachelint.cli import main

from .helpers import CORPUS, GOOD_AGENT
from conftest import HANG_GUARD


def make_tree(root: Path) -> Path:
    (root / "cachelint.toml").write_text("")  # the cache goes to root/.cachelint_cache
    for i in range(6):
        (root / f"agent_{i}.py").write_text(GOOD_AGENT.replace('"search"', f'"search_{i}"'))
    (root / "clean.py").write_text("import os\n")
    (root / "python2.py").write_text("print 'x'\n")
    for name in ("pdf", "docx"):
        (root / "skills" / name).mkdir(parents=True)
    (root / "skills" / "pdf" / "SKILL.md").write_text((CORPUS / "check" / "unclosed_front_matter.md").read_text())
    (root / "skills" / "docx" / "SKILL.md").write_text((CORPUS / "check" / "name_mismatch_front_matter.md").read_text())
    return root


def run(root: Path, *args: str) -> tuple[int, str, str]:
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["check", "--output-format", "json", *args, "."], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def tree(tmp_path):
    root = make_tree(tmp_path)
    expected = run(root, "--no-cache")
    assert expected[0] == 1
    code, out, _ = run(root)  # writes the cache
    assert (code, out) == expected[:2]
    return root, expected[1]


def cache_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / ".cachelint_cache").glob("*.json"))


CORRUPTIONS = {
    "truncated": lambda data: data[: len(data) // 2],
    "garbage": lambda data: b"\x00\xff garbage \x1f\x8b" * 10,
    "empty": lambda data: b"",
    "other format": lambda data: json.dumps({"format": 999, "files": {}}).encode(),
    "not an object": lambda data: b"[1, 2, 3]",
}


@pytest.mark.parametrize("damage", sorted(CORRUPTIONS))
def test_a_damaged_cache_file_is_discarded_with_a_warning(tree, damage):
    root, expected = tree
    files = cache_files(root)
    assert files
    for path in files:
        path.write_bytes(CORRUPTIONS[damage](path.read_bytes()))
    code, out, err = run(root)
    assert (code, out) == (1, expected)
    if damage != "empty":
        assert "cachelint: warning: cache" in err
    code, out, err = run(root)  # the cache was rewritten: sound again
    assert (code, out, err) == (1, expected, "")


def _entries_damaged(table: dict, damage) -> None:
    for entry in table.get("files", {}).values():
        if isinstance(entry, dict) and entry.get("diagnostics"):
            damage(entry)


ENTRY_DAMAGE = {
    "diagnostics not a list": lambda e: e.update(diagnostics="CL101"),
    "diagnostic missing keys": lambda e: e.update(diagnostics=[{"code": "CL101"}]),
    "fix of a wrong type": lambda e: e.update(diagnostics=[{**d, "fix": 3} for d in e["diagnostics"]]),
    "line of a wrong type": lambda e: e.update(diagnostics=[{**d, "line": "four"} for d in e["diagnostics"]]),
    "identity of wrong types": lambda e: e.update(mtime_ns="yesterday", size=None),
}


@pytest.mark.parametrize("damage", sorted(ENTRY_DAMAGE))
def test_damaged_entries_are_misses_not_crashes(tree, damage):
    root, expected = tree
    results = [p for p in cache_files(root) if p.name.startswith("results-")]
    assert results
    for path in results:
        data = cachefile.body_of(path)
        _entries_damaged(data, ENTRY_DAMAGE[damage])
        cachefile.rewrite_body(path, data)  # sound file, damaged entries: each must be a miss
    code, out, _ = run(root)
    assert (code, out) == (1, expected)


def test_an_unwritable_cache_folder_is_a_warning(tmp_path):
    root = make_tree(tmp_path)
    expected = run(root, "--no-cache")
    (root / ".cachelint_cache").write_text("a file where the cache folder should be\n")
    code, out, err = run(root)
    assert (code, out) == expected[:2]
    assert (root / ".cachelint_cache").read_text() == "a file where the cache folder should be\n"


CHECK_IN_SUBPROCESS = [sys.executable, "-m", "cachelint", "check", "--output-format", "json", "."]


def test_two_runs_at_once_share_the_cache_safely(tmp_path):
    root = make_tree(tmp_path)
    for i in range(60):  # enough work for the two runs to overlap
        (root / f"more_{i}.py").write_text(GOOD_AGENT.replace('"fetch"', f'"fetch_{i}"') + "X = 1\n" * 200)
    expected = subprocess.run([*CHECK_IN_SUBPROCESS[:-1], "--no-cache", "."], cwd=root, capture_output=True)
    env = {**os.environ}
    env.pop("CACHELINT_NO_CACHE", None)
    runs = [
        subprocess.Popen(CHECK_IN_SUBPROCESS, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=HANG_GUARD) for p in runs]
    for proc, (out, err) in zip(runs, outs):
        assert proc.returncode == 1, err.decode()
        assert out == expected.stdout
    again = subprocess.run(CHECK_IN_SUBPROCESS, cwd=root, capture_output=True, env=env)
    assert (again.returncode, again.stdout, again.stderr) == (1, expected.stdout, b"")
