"""What a file reports does not depend on which paths the run was given: a monorepo whose
libraries each have their own source root (``libs/app``, ``libs/shared``) resolves a file's
imports to the same sibling library whether the whole repository or the one file is checked
(pre-commit passes only the changed files)."""

from __future__ import annotations

from pathlib import Path

from cachelint.api import CheckOptions, check_paths

SHARED = """\
import anthropic

client = anthropic.Anthropic()


def run_agent(tools, messages):
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
"""

BENCH = """\
from uuid import uuid4

from shared.agent import run_agent


def bench(messages):
    tools = [{"name": str(uuid4()), "input_schema": {"type": "object"}}]
    return run_agent(tools, messages)
"""


def _tree(root: Path) -> None:
    files = {
        "libs/shared/shared/__init__.py": "",
        "libs/shared/shared/agent.py": SHARED,
        "libs/app/bench/__init__.py": "",
        "libs/app/bench/agent_bench.py": BENCH,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _findings(root: Path, *paths: str) -> list[tuple[str, str, int]]:
    result = check_paths(list(paths), options=CheckOptions(no_cache=True, jobs=1), cwd=root)
    return sorted((d.code, Path(d.path).as_posix(), d.line) for d in result.diagnostics)


def test_one_file_reports_what_the_whole_repository_reports(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)  # run from the repository's root, as pre-commit does
    whole = _findings(tmp_path, ".")
    assert ("CL105", "libs/app/bench/agent_bench.py", 7) in whole
    assert _findings(tmp_path, "libs/app/bench/agent_bench.py") == [d for d in whole if d[1].startswith("libs/app/")]
    assert _findings(tmp_path, "libs/app") == [d for d in whole if d[1].startswith("libs/app/")]
