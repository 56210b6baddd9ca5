"""The README's main command on the bundled examples: a snapshot of what a new user sees.

Update after an intended change with: CACHELINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_examples.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SNAPSHOTS = Path(__file__).parent / "snapshots"


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CACHELINT_NO_CACHE": "1", "PYTHONHASHSEED": "0"}
    env.pop("CACHELINT_OUTPUT_FORMAT", None)
    return subprocess.run([sys.executable, "-m", "cachelint", *args], cwd=REPO, capture_output=True, text=True, env=env)


def compare(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("CACHELINT_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing snapshot {path}; run with CACHELINT_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name,args",
    [
        ("check-examples.txt", ["check", "examples"]),
        ("check-examples-full.txt", ["check", "--output-format", "full", "examples"]),
        ("audit-examples.txt", ["audit", "examples/logs"]),
    ],
)
def test_readme_main_command_snapshot(name, args):
    proc = run(*args)
    assert proc.returncode == 1, proc.stderr  # the examples have real findings
    compare(name, proc.stdout)


def test_examples_have_findings_of_every_part():
    check = run("check", "--output-format", "concise", "examples").stdout
    audit = run("audit", "--output-format", "concise", "examples/logs").stdout
    for code in ("CL101", "CL102", "CL103", "CL104", "CL105", "CL202", "CL203", "CL204"):
        assert f" {code} " in check, code
    for code in ("CL301", "CL303", "CL309"):
        assert f" {code} " in audit, code
    assert "good_agent.py" not in check
