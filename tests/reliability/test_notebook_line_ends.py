"""A notebook cell whose lines end with a lone CR (or mix CR, LF and CRLF), with non-ASCII text
before the fix site: found at the right cell, line and character column, and fixed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import run_cli

CALL = 'client.messages.create(model="m", tools=tools, messages=[])'
SHAPES = {
    "lone CR lines": [
        "# é☕ 𝒳\r",
        "import anthropic\r",
        "client = anthropic.Anthropic()\r",
        'x = "𝒳𝒳"; tools = list({"a", "b"})\r',
        CALL,
    ],
    "one CR string": '# é☕ 𝒳\rimport anthropic\rclient = anthropic.Anthropic()\rx = "𝒳𝒳"; tools = list({"a", "b"})\r'
    + CALL,
    "mixed ends": [
        "# é☕ 𝒳\rimport anthropic\n",
        "client = anthropic.Anthropic()\r\n",
        'x = "𝒳𝒳"; tools = list({"a", "b"})\r',
        CALL,
    ],
}
SECOND = ["t2 = list({'x'})\r", "client.messages.create(model='m', tools=t2, messages=[])"]


def _notebook(path: Path, source) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Título ☕\r", "texto"]},
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None},
        {"cell_type": "code", "metadata": {}, "source": SECOND, "outputs": [], "execution_count": None},
    ]
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False)
    )


def _cell_text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_cell_with_lone_cr_line_ends_is_found_where_it_is(tmp_path, shape):
    _notebook(tmp_path / "nb.ipynb", SHAPES[shape])
    code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--output-format", "json", "nb.ipynb"])
    found = [(d["code"], d["line"], d["column"], d["details"]["cell"]) for d in json.loads(out)]
    assert found == [("CL101", 4, 24, 2), ("CL101", 1, 11, 3)]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_cell_with_lone_cr_line_ends_is_fixed(tmp_path, shape):
    path = tmp_path / "nb.ipynb"
    _notebook(path, SHAPES[shape])
    code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--fix", "nb.ipynb"])
    assert code == 0, out
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    expected = _cell_text(SHAPES[shape]).replace('list({"a", "b"})', 'list(sorted({"a", "b"}))')
    assert _cell_text(cells[1]["source"]) == expected
    assert _cell_text(cells[2]["source"]) == _cell_text(SECOND).replace("list({'x'})", "list(sorted({'x'}))")
    assert cells[0]["source"] == ["# Título ☕\r", "texto"]
