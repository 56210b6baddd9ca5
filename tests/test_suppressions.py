from __future__ import annotations

from cachelint.diagnostics import Diagnostic
from cachelint.suppressions import apply_suppressions, find_suppressions

KNOWN = {"CL001", "CL101", "CL102", "CL103"}


def diag(line, code="CL101"):
    return Diagnostic(code=code, message="m", path="a.py", line=line, column=1)


def test_same_line_and_line_above():
    text = "x = 1  # cachelint: ignore[CL101]\n# noqa: CL102\ny = 2\nz = 3\n"
    kept = apply_suppressions([diag(1), diag(3, "CL102"), diag(4)], text, "a.py", KNOWN)
    assert [(d.line, d.code) for d in kept] == [(4, "CL101")]


def test_other_codes_are_not_suppressed():
    text = "x = 1  # cachelint: ignore[CL102]\n"
    assert apply_suppressions([diag(1)], text, "a.py", KNOWN) == [diag(1)]


def test_several_codes_and_case():
    text = "x = 1  # CACHELINT: IGNORE[cl101, CL103]\n"
    kept = apply_suppressions([diag(1), diag(1, "CL103"), diag(1, "CL102")], text, "a.py", KNOWN)
    assert [d.code for d in kept] == ["CL102"]


def test_unknown_code_is_reported_as_cl002():
    text = "x = 1  # cachelint: ignore[CL999]\n"
    kept = apply_suppressions([diag(1)], text, "a.py", KNOWN)
    assert [d.code for d in kept] == ["CL101", "CL002"]
    assert "CL999" in kept[1].message and kept[1].line == 1


def test_foreign_noqa_codes_are_left_alone():
    text = "import os  # noqa: F401, E501\n"
    assert find_suppressions(text) == []
    assert apply_suppressions([diag(1)], text, "a.py", KNOWN) == [diag(1)]


def test_noqa_with_unknown_cl_code_is_reported():
    kept = apply_suppressions([], "x = 1  # noqa: CL777\n", "a.py", KNOWN)
    assert [d.code for d in kept] == ["CL002"]


def test_markdown_comment_form():
    text = "<!-- cachelint: ignore[CL101] -->\n- entry\n"
    assert apply_suppressions([diag(2)], text, "AGENTS.md", KNOWN) == []
