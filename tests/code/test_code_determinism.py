"""Findings, fixes and summaries do not depend on the process's string hashing (PYTHONHASHSEED)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PATTERNS = Path(__file__).parent / "fixtures" / "patterns"

SCRIPT = r"""
import json, sys
from pathlib import Path
from cachelint.code import check_module, summarize_module
out = {}
for path in sorted(Path(sys.argv[1]).glob("*.py")):
    text = path.read_text(encoding="utf-8")
    out[path.name] = {
        "summary": summarize_module(path.name, text),
        "diagnostics": [d.to_dict() for d in check_module(path.name, text, None)],
    }
print(json.dumps(out))
"""


def _run(seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(PATTERNS)], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def test_same_output_under_different_hash_seeds():
    first = _run("1")
    assert json.loads(first)  # something was analysed
    assert _run("2") == first
    assert _run("12345") == first
