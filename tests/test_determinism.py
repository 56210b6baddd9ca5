"""Same input, same bytes out: whatever the hash seed, whatever the file-system order."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

FORMATS = ["concise", "full", "json", "sarif", "github"]


def cachelint(args, cwd, seed):
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "CACHELINT_NO_CACHE": "1"}
    proc = subprocess.run([sys.executable, "-m", "cachelint", *args], cwd=cwd, capture_output=True, env=env)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return proc.stdout


def copy_examples(dst: Path, reverse: bool) -> Path:
    """Copy examples/ creating files in forward or reverse order (directory order differs)."""
    src = REPO / "examples"
    files = sorted(p for p in src.rglob("*") if p.is_file())
    if reverse:
        files.reverse()
    for f in files:
        target = dst / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    return dst


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_check_output_is_byte_identical_across_seeds_and_orders(tmp_path, fmt):
    a = copy_examples(tmp_path / "a", reverse=False)
    b = copy_examples(tmp_path / "b", reverse=True)
    outputs = {
        cachelint(["check", "--output-format", fmt, "."], a, 0),
        cachelint(["check", "--output-format", fmt, "."], a, 1),
        cachelint(["check", "--output-format", fmt, "."], b, 12345),
    }
    assert len(outputs) == 1


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_audit_output_is_byte_identical_across_seeds(tmp_path, fmt):
    a = copy_examples(tmp_path / "a", reverse=False)
    outputs = {cachelint(["audit", "--output-format", fmt, "logs"], a, seed) for seed in (0, 1, 99)}
    assert len(outputs) == 1
