"""Table-driven cases per rule: positives mark the reported line with ``# here``; negatives must not
raise the rule (and, unless they say otherwise, nothing at all)."""

from __future__ import annotations

import pytest

from codecheck_helpers import marked_lines, run


def check_positive(code: str, source: str) -> None:
    diagnostics = run(source)
    found = sorted(d.line for d in diagnostics if d.code == code)
    expected = marked_lines(source)
    assert expected, "a positive case needs a # here marker"
    assert found == expected, [f"{d.line} {d.code} {d.message}" for d in diagnostics]
    for d in diagnostics:
        if d.code == code:
            assert " at line " in d.message, d.message


def check_negative(code: str, source: str, only_this_code: bool = False) -> None:
    diagnostics = run(source)
    if only_this_code:
        assert [d for d in diagnostics if d.code == code] == [], [f"{d.line} {d.code} {d.message}" for d in diagnostics]
    else:
        assert diagnostics == [], [f"{d.line} {d.code} {d.message}" for d in diagnostics]


def params(cases: dict[str, str]) -> list:
    return [pytest.param(src, id=name) for name, src in cases.items()]
