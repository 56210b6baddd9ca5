"""Inputs the code checks must survive: syntax errors (Python 2 too), absurd nesting, notebooks
(cells analysed as one program, magics skipped, locations by cell and line), invalid notebooks."""

from __future__ import annotations

import json

from conftest import check_tree, write_tree

from cachelint.code import check_module

AGENT_CELLS = [
    "%pip install anthropic\nimport anthropic\nclient = anthropic.Anthropic()",
    "# notes",
    "names = {'search', 'fetch'}\nTOOLS = {n: {'name': n} for n in ['search', 'fetch']}\n!ls skills",
    "files = !ls\nreply = client.messages.create(model='m', max_tokens=10,\n    tools=[TOOLS[n] for n in names], messages=[])",
]


def notebook(cells: list[str], markdown_at: int | None = 1) -> str:
    out = []
    for i, source in enumerate(cells):
        cell_type = "markdown" if i == markdown_at else "code"
        out.append(
            {
                "cell_type": cell_type,
                "metadata": {},
                "source": source.splitlines(keepends=True),
                "outputs": [],
                "execution_count": None,
            }
        )
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def test_python2_print_is_cl001_at_its_line():
    (d,) = check_module("old.py", "import os\n\nprint 'hello'\n", None)
    assert d.code == "CL001"
    assert (d.line, d.column) == (3, 1)
    assert "syntax error" in d.message and "print" in d.message


def test_syntax_error_location():
    (d,) = check_module("agent.py", "def run(:\n    pass\n", None)
    assert (d.code, d.line, d.column) == ("CL001", 1, 9)


def test_a_template_is_named_as_such():
    """Project generators ship .py templates ({{ name }}, {% if %}): the CL001 says what they are."""
    (d,) = check_module("templates/crew.py", "from crewai import Agent\n\nclass {{crew_name}}():\n    pass\n", None)
    assert (d.code, d.line) == ("CL001", 3) and "looks like a template" in d.message
    (d,) = check_module("src/{{folder_name}}/tool.py", "from x import y\n\ndef f(:\n    pass\n", None)
    assert "looks like a template" in d.message  # the path is a template's
    (d,) = check_module("agent.py", "def run(:\n    pass\n", None)
    assert "template" not in d.message


def test_a_placeholder_template_is_named_as_such():
    """Generators also fill <slot> names into a file named *.template.py (deer-flow's
    templates/anchor.template.py; evals' `async def test_<entry_point>_x():`)."""
    (d,) = check_module("tests/evals/case.py", "import pytest\n\nasync def test_<entry_point>_x():\n    pass\n", None)
    assert (d.code, d.line) == ("CL001", 3) and "looks like a template" in d.message
    (d,) = check_module("templates/anchor.template.py", "def f(:\n    pass\n", None)
    assert "looks like a template" in d.message
    # look-alikes: a comparison, an HTML tag in a string-less line, a file merely named template.py
    for path, text in [
        ("agent.py", "if a < b > c:\n  x = (\n"),
        ("agent.py", "html = <div>\n"),
        ("src/template.py", "def f(:\n    pass\n"),
        ("src/my_template.py", "def f(:\n    pass\n"),
    ]:
        (d,) = check_module(path, text, None)
        assert d.code == "CL001" and "template" not in d.message, (path, d.message)


def test_absurd_nesting_is_cl001_or_analysed_but_never_raises():
    deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    found = check_module("deep.py", deep, None)
    assert [d.code for d in found] == ["CL001"]
    long_concat = (
        "import anthropic\nclient = anthropic.Anthropic()\ns = 'a'"
        + " + 'b'" * 3000
        + "\nclient.messages.create(system=s, messages=[])\n"
    )
    assert check_module("long.py", long_concat, None) == []


def test_notebook_cells_are_one_program_with_cell_locations():
    (d,) = check_module("agent.ipynb", notebook(AGENT_CELLS), None)
    assert d.code == "CL101"
    assert d.details["cell"] == 3
    assert (d.line, d.column) == (1, 9)
    assert d.message.startswith(
        "tools built from a set (unordered) reach tools= of client.messages.create at cell 4, line 2"
    )
    # the fix names the cell it edits and lines of that cell
    assert d.fix is not None and {(e.cell, e.line) for e in d.fix.edits} == {(4, 3)}


def test_notebook_syntax_error_in_one_cell_does_not_hide_the_others():
    cells = list(AGENT_CELLS)
    cells[1] = "def broken(:\n    pass"
    found = check_module("agent.ipynb", notebook(cells, markdown_at=None), None)
    found.sort(key=lambda d: d.details["cell"])
    assert [(d.code, d.details.get("cell"), d.line) for d in found] == [("CL001", 2, 1), ("CL101", 3, 1)]
    assert found[0].message.startswith("syntax error")


def test_invalid_notebook_json_is_cl001():
    (d,) = check_module("agent.ipynb", '{"cells": [', None)
    assert d.code == "CL001" and "invalid JSON" in d.message


def test_notebook_through_the_engine(tmp_path):
    """--fix rewrites the cell's source in the notebook's JSON and nothing else: the other cells,
    the magics (which the analysis saw as pass), the indentation and key order stay as they were."""
    original = notebook(AGENT_CELLS)
    write_tree(tmp_path, {"nb/agent.ipynb": original})
    result = check_tree(tmp_path, fix=True)
    assert result.diagnostics == [] and result.fixes_applied == 1 and result.warnings == []
    fixed = (tmp_path / "nb/agent.ipynb").read_text(encoding="utf-8")
    assert fixed == original.replace("for n in names]", "for n in sorted(names)]")
    assert json.loads(fixed)["cells"][3]["source"][0] == "files = !ls\n"


def _notebook_with(cells: list, indent: int | None = 1, ensure_ascii: bool = True) -> str:
    return json.dumps(
        {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=indent, ensure_ascii=ensure_ascii
    )


def test_notebook_sources_as_strings_and_non_ascii_keep_their_style(tmp_path):
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "import anthropic\nclient = anthropic.Anthropic()\nnames = {'ação', 'b'}",
        },
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": [
                "# ação\n",
                "client.messages.create(model='m', tools=[{'name': n} for n in names], messages=[])",
            ],
        },
    ]
    for ensure_ascii in (True, False):
        original = _notebook_with(cells, indent=None, ensure_ascii=ensure_ascii)
        write_tree(tmp_path, {"nb.ipynb": original})
        result = check_tree(tmp_path, fix=True)
        assert result.fixes_applied == 1 and result.diagnostics == [], result.warnings
        fixed = (tmp_path / "nb.ipynb").read_text(encoding="utf-8")
        assert fixed == original.replace("for n in names]", "for n in sorted(names)]")


def test_a_cell_ipython_dedents_gets_no_fix_and_says_so(tmp_path):
    cells = [
        "import anthropic\nclient = anthropic.Anthropic()",
        "  names = {'a', 'b'}\n  client.messages.create(model='m', tools=[{'name': n} for n in names], messages=[])",
    ]
    original = notebook(cells, markdown_at=None)
    write_tree(tmp_path, {"nb.ipynb": original})
    result = check_tree(tmp_path, fix=True)
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == original
    assert [d.code for d in result.diagnostics] == ["CL101"]
    assert len(result.warnings) == 1 and "nb.ipynb: the fix" in result.warnings[0] and "cell 2" in result.warnings[0]


def test_cells_ipython_runs_are_read_as_ipython_reads_them():
    """IPython removes the first line's indentation from a cell and runs "pip install x" as the
    %pip magic (automagic): such cells run, so they are analysed, not CL001 — and a finding in
    an indented cell keeps the column the user sees."""
    cells = [
        "pip install anthropic\nimport anthropic\nclient = anthropic.Anthropic()",
        "  names = {'search', 'fetch'}\n  TOOLS = {n: {'name': n} for n in ['search', 'fetch']}",
        "reply = client.messages.create(model='m', max_tokens=10, tools=[TOOLS[n] for n in names], messages=[])",
    ]
    (d,) = check_module("agent.ipynb", notebook(cells, markdown_at=None), None)
    assert d.code == "CL101" and d.details["cell"] == 2
    assert (d.line, d.column) == (1, 11)  # "names" at column 3, its set at 11: the indentation counted
    # a cell that is broken for IPython too stays CL001, at its own line
    broken = ["  x = (\n  1,", "pip install x y\ndef f(:"]
    found = check_module("b.ipynb", notebook(broken, markdown_at=None), None)
    assert sorted((d.code, d.details["cell"]) for d in found) == [("CL001", 1), ("CL001", 2)]


def test_a_magic_continued_with_a_backslash_is_one_magic():
    """IPython joins a line magic or shell line ending with a backslash to the next line."""
    cells = [
        '%pip install -q \\\n    "google-genai>=2.9.0" \\\n    langchain\nimport anthropic',
        "!ls \\\n   -la\nx = 1",
    ]
    assert check_module("nb.ipynb", notebook(cells, markdown_at=None), None) == []


def test_newer_python_inside_a_multiline_string_is_analysed(tmp_path, monkeypatch):
    """Python 3.11 shows only the last line of a multi-line f-string in its SyntaxError: the file
    is still read as the later grammar reads it, on any interpreter."""
    source = 'import anthropic\nitems = [\'a\']\ntext = f"""\n{\'\\\\n\'.join(items)}\n"""\n'
    write_tree(tmp_path, {"new.py": source})
    monkeypatch.chdir(tmp_path)  # the file is found under the name the parser is given
    assert check_tree(tmp_path).diagnostics == []


def test_newer_python_is_analysed_on_any_interpreter():
    """A file valid for a later Python (3.12's f-strings reusing their quotes) is analysed, not
    reported as broken (see test_newer_syntax.py)."""
    source = 'import anthropic\nnames = ["a"]\ntext = f"{", ".join(names)}"\n'
    assert check_module("new.py", source, None) == []


def test_newer_grammar_confirms_up_to_256_kb(monkeypatch):
    """LibCST confirms that a later grammar reads a file the running parser rejects, before its
    lowered text is analysed, up to 256 KB (beyond, seconds and hundreds of MB: a file that parses
    once lowered is taken as it is); a file that parses is never given to it."""
    import sys

    from cachelint.code import analysis, program

    asked: list[int] = []
    real = program.newer_grammar
    monkeypatch.setattr(program, "newer_grammar", lambda source: asked.append(len(source)) or real(source))
    source = 'import anthropic\nnames = ["a"]\ntext = f"{", ".join(names)}"\n'
    assert analysis.summarize("new.py", source) == {"functions": {}, "classes": {}, "names": {}}
    newer = sys.version_info < (3, 12)
    assert asked == ([len(source)] if newer else [])
    big = source + "# padding\n" * 30_000
    assert check_module("big.py", big, None) == []
    assert asked == ([len(source)] if newer else [])
    check_module("plain.py", "import anthropic\nx = 1\n", None)
    assert asked == ([len(source)] if newer else [])


def test_broken_code_with_fstrings_stays_cl001():
    source = 'import anthropic\nnames = ["a"]\ntext = f"{", ".join(names)}"\ndef f(:\n    pass\n'
    (d,) = check_module("broken.py", source, None)
    assert d.code == "CL001" and d.message.startswith("syntax error: ") and d.line == 4


def test_cell_magic_running_another_language_is_skipped():
    cells = ["%%bash\nfor f in *; do echo $f; done", "x = 1"]
    assert check_module("a.ipynb", notebook(cells, markdown_at=None), None) == []


def test_files_without_any_sink_name_skip_the_analysis():
    # The prefilter: no sink name in the text, no flow analysis (but still a parse).
    assert check_module("util.py", "names = {'a', 'b'}\nprint(list(names))\n", None) == []
    assert [d.code for d in check_module("util.py", "names = {'a',\n", None)] == ["CL001"]
