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
    kept = apply_suppressions([diag(1)], text, "a.py", KNOWN)
    assert [(d.code, d.line) for d in kept] == [("CL101", 1), ("CL004", 1)]  # and CL102 suppressed nothing


def test_several_codes_and_case():
    text = "x = 1  # CACHELINT: IGNORE[cl101, CL103]\n"
    kept = apply_suppressions([diag(1), diag(1, "CL103"), diag(1, "CL102")], text, "a.py", KNOWN)
    assert [d.code for d in kept] == ["CL102"]  # both codes used: no CL004


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


def test_python_strings_are_not_suppressions():
    text = 'doc = "x = 1  # cachelint: ignore[CL999]"\nother = 2  # noqa: CL101\n'
    kept = apply_suppressions([diag(2)], text, "a.py", KNOWN)
    assert kept == []  # the comment on line 2 works; the string on line 1 is not read (no CL002)


def test_python_comment_with_unknown_code_still_reported():
    kept = apply_suppressions([], "x = 1  # cachelint: ignore[CL999]\n", "a.py", KNOWN)
    assert [d.code for d in kept] == ["CL002"]


def test_notebook_suppressions_are_per_cell():
    import json

    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["# title"]},
            {"cell_type": "code", "source": ["x = 1\n", "y = 2  # cachelint: ignore[CL101]\n"]},
            {"cell_type": "code", "source": ["z = 3  # noqa: CL888\n"]},
        ]
    }
    text = json.dumps(nb)
    d_cell2 = Diagnostic(code="CL101", message="cell 2: m", path="n.ipynb", line=2, column=1, details={"cell": 2})
    d_cell3 = Diagnostic(code="CL101", message="cell 3: m", path="n.ipynb", line=2, column=1, details={"cell": 3})
    kept = apply_suppressions([d_cell2, d_cell3], text, "n.ipynb", KNOWN)
    assert [(d.code, d.details.get("cell")) for d in kept] == [("CL101", 3), ("CL002", 3)]
    assert kept[1].details == {"cell": 3} and kept[1].message.startswith("unknown rule code")
    unused = apply_suppressions([d_cell3], text, "n.ipynb", KNOWN)
    assert [(d.code, d.details.get("cell")) for d in unused] == [("CL004", 2), ("CL101", 3), ("CL002", 3)]
    assert unused[0].message == "unused suppression of CL101: no such finding on this line or the next"


# --- Markdown and YAML, end to end: the skill findings honour them --------------------------

from conftest import check_tree, write_tree

_INDEX_SKILLS = {
    "skills/conciliacao-cartao/SKILL.md": "---\nname: conciliacao-cartao\ndescription: use para bater recebimentos de cartão com o extrato e dar baixa no título\n---\n",
    "skills/emissao-nf/SKILL.md": "---\nname: emissao-nf\ndescription: use para emitir, cancelar ou consultar NF-e\n---\n",
}
_INDEX = (
    "Skills:\n"
    "- conciliacao-cartao: use para bater recebimentos de cartão com o extrato e dar baixa no título\n"
    "- emissao-nf: use para emitir, cancelar ou consultar NF-e\n"
    "{comment}- logistica: use para abrir chamado em transportadora ou consultar rastreio\n"
)


def test_a_markdown_comment_suppresses_a_dangling_index_entry(tmp_path):
    write_tree(tmp_path, {**_INDEX_SKILLS, "AGENTS.md": _INDEX.format(comment="")})
    assert [(d.code, d.path, d.line) for d in check_tree(tmp_path).diagnostics] == [("CL204", "AGENTS.md", 4)]
    ended = _INDEX.replace("rastreio\n", "rastreio <!-- cachelint: ignore[CL204] -- moved to the wiki -->\n")
    write_tree(tmp_path, {"AGENTS.md": ended.format(comment="")})
    assert check_tree(tmp_path).diagnostics == []
    # A comment on a line of its own ends the list (CommonMark: an HTML block): the entry below it
    # is no entry of the index any more, and the suppression suppresses nothing.
    write_tree(
        tmp_path, {"AGENTS.md": _INDEX.format(comment="<!-- cachelint: ignore[CL204] -- moved to the wiki -->\n")}
    )
    assert [(d.code, d.line) for d in check_tree(tmp_path).diagnostics] == [("CL004", 4)]


def test_a_yaml_comment_in_front_matter_suppresses_a_generic_description(tmp_path):
    skill = "---\nname: helper\n{comment}description: Helps with tasks.\n---\nbody\n"
    write_tree(tmp_path, {"skills/helper/SKILL.md": skill.format(comment="")})
    assert [d.code for d in check_tree(tmp_path).diagnostics] == ["CL202"]
    write_tree(
        tmp_path, {"skills/helper/SKILL.md": skill.format(comment="# cachelint: ignore[generic-skill-description]\n")}
    )
    assert check_tree(tmp_path).diagnostics == []
    write_tree(tmp_path, {"skills/helper/SKILL.md": skill.format(comment="# cachelint: ignore[CL299]\n")})
    assert [(d.code, d.line) for d in check_tree(tmp_path).diagnostics] == [("CL002", 3), ("CL202", 4)]


# --- whole-file suppressions, per kind --------------------------------------------------------


def test_ignore_file_covers_every_line_of_a_python_file():
    text = "# cachelint: ignore-file[CL101, unordered-prompt]\nx = 1\n\n\ny = 2\n"
    kept = apply_suppressions([diag(2), diag(5), diag(5, "CL102"), diag(5, "CL103")], text, "a.py", KNOWN)
    assert [(d.code, d.line) for d in kept] == [("CL103", 5)]


def test_ignore_file_in_one_cell_covers_the_whole_notebook():
    import json

    nb = {
        "cells": [
            {"cell_type": "code", "source": ["# cachelint: ignore-file[CL101]\n"]},
            {"cell_type": "code", "source": ["x = 1\n", "y = 2\n"]},
        ]
    }
    d = Diagnostic(code="CL101", message="cell 2: m", path="n.ipynb", line=2, column=1, details={"cell": 2})
    assert apply_suppressions([d], json.dumps(nb), "n.ipynb", KNOWN) == []
    [unused] = apply_suppressions([], json.dumps(nb), "n.ipynb", KNOWN)
    assert (unused.code, unused.details["cell"], unused.message) == (
        "CL004",
        1,
        "unused suppression of CL101: no such finding in this file",
    )


def test_ignore_file_in_markdown_and_in_front_matter(tmp_path):
    index = tmp_path / "index"
    write_tree(
        index, {**_INDEX_SKILLS, "AGENTS.md": "<!-- cachelint: ignore-file[CL204] -->\n" + _INDEX.format(comment="")}
    )
    assert check_tree(index).diagnostics == []
    skill = "---\n# cachelint: ignore-file[CL202]\nname: helper\ndescription: Helps with tasks.\n---\nbody\n"
    write_tree(tmp_path / "skill", {"skills/helper/SKILL.md": skill})
    assert check_tree(tmp_path / "skill").diagnostics == []


# --- unused suppressions (CL004) ----------------------------------------------------------------


def test_a_suppression_that_suppresses_nothing_is_cl004_with_a_fix():
    text = "x = 1  # cachelint: ignore[CL101, CL102]\n"
    [unused] = apply_suppressions([diag(1)], text, "a.py", KNOWN)
    assert (unused.code, unused.line, unused.message) == (
        "CL004",
        1,
        "unused suppression of CL102: no such finding on this line or the next",
    )
    [edit] = unused.fix.edits
    assert text.splitlines()[0][edit.column - 1 : edit.end_column - 1] == "CL101, CL102" and edit.content == "CL101"


def test_no_cl004_where_the_analysis_did_not_finish():
    text = "x = (  # cachelint: ignore[CL101]\n"
    kept = apply_suppressions([diag(1, "CL001")], text, "a.py", KNOWN)
    assert [d.code for d in kept] == ["CL001"]


def test_a_shared_noqa_keeps_the_other_linters_codes():
    text = "import os  # noqa: F401, CL101\n"
    [unused] = apply_suppressions([], text, "a.py", KNOWN)
    assert unused.code == "CL004"
    [edit] = unused.fix.edits
    assert edit.content == "F401"


def test_cl004_in_a_markdown_file_without_findings(tmp_path):
    """A suppression whose finding went away: the file has no finding left, and the CL004."""
    index = _INDEX.format(comment="<!-- cachelint: ignore[CL204] -->\n").replace("- logistica:", "- emissao-nf:")
    write_tree(tmp_path, {**_INDEX_SKILLS, "AGENTS.md": index, "skills/helper/SKILL.md": "no front matter\n"})
    found = [(d.code, d.path, d.line) for d in check_tree(tmp_path).diagnostics]
    assert ("CL004", "AGENTS.md", 4) in found
