"""Running the CLI the way a user does, and reading its JSON output back."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from click.testing import CliRunner

from cachelint.cli import main

CORPUS = Path(__file__).resolve().parent / "corpus"

# The agent every check corpus case puts beside its bad file: one CL101 at 4:9.
GOOD_AGENT = (CORPUS / "check" / "good_flagged.py").read_text(encoding="utf-8")
GOOD_AGENT_FINDING = ("CL101", "agent.py", 4, 9)
# The log every audit case puts beside its bad file: the tools reordered at record 1 (line 2).
GOOD_LOG = (CORPUS / "audit" / "good_flagged.jsonl").read_bytes()
GOOD_LOG_FINDING = ("CL301", "good_flagged.jsonl", 2, 1)


def run_cli(root: Path, args: Sequence[str]) -> tuple[int, str]:
    """``cachelint ARGS`` in ``root`` (in-process, click's runner); returns (exit code, stdout)."""
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout


def listed(out: str) -> list[dict]:
    """The findings of a JSON output: check's list, or the ``findings`` of audit's object."""
    data = json.loads(out)
    return data["findings"] if isinstance(data, dict) else data


def findings(root: Path, command: str, paths: Sequence[str] = (".",), *extra: str) -> tuple[int, list[tuple]]:
    """(exit code, [(code, path, line, column, record), ...]) of ``cachelint COMMAND`` in JSON; any
    finding fails the run (``--fail-on info``: the planted reorder lost nothing cached)."""
    args = [command, "--isolated", "--fail-on", "info", "--output-format", "json", *extra, *paths]
    if command == "check":
        args.insert(1, "--no-cache")
    code, out = run_cli(root, args)
    assert code in (0, 1), out
    return code, [(d["code"], d["path"], d["line"], d["column"], d.get("record")) for d in listed(out)]


def full_findings(root: Path, command: str, paths: Sequence[str] = (".",), *extra: str) -> list[dict]:
    args = [command, "--isolated", "--output-format", "json", *extra, *paths]
    if command == "check":
        args.insert(1, "--no-cache")
    code, out = run_cli(root, args)
    assert code in (0, 1), out
    return listed(out)
