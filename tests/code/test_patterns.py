"""The agent patterns of docs/background/agent-patterns.md, written as Python in fixtures/patterns: the bad
versions raise exactly the codes marked ``# expect: CLxxx`` on their lines; the good ones are clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecheck_helpers import run

PATTERNS = Path(__file__).parent / "fixtures" / "patterns"


def _expected(source: str) -> list[tuple[int, str]]:
    return sorted(
        (i, line.split("# expect: ", 1)[1].strip())
        for i, line in enumerate(source.splitlines(), start=1)
        if "# expect: " in line
    )


@pytest.mark.parametrize("path", sorted(PATTERNS.glob("*_bad.py")), ids=lambda p: p.stem)
def test_bad_seed_patterns_are_caught(path: Path):
    source = path.read_text(encoding="utf-8")
    found = sorted((d.line, d.code) for d in run(source, path=path.name, header=False))
    assert found == _expected(source)


@pytest.mark.parametrize("path", sorted(PATTERNS.glob("*_good.py")), ids=lambda p: p.stem)
def test_good_seed_counterparts_are_clean(path: Path):
    source = path.read_text(encoding="utf-8")
    assert run(source, path=path.name, header=False) == []


def test_every_bad_seed_has_a_good_counterpart():
    bad = {p.stem.removesuffix("_bad") for p in PATTERNS.glob("*_bad.py")}
    good = {p.stem.removesuffix("_good").removesuffix("_langgraph") for p in PATTERNS.glob("*_good.py")}
    assert bad <= good
