"""Where a notebook finding is: the concise and full outputs write ``path:cell N:line:col`` as
Ruff does; JSON gives ``cell`` beside the line and column in that cell; the outputs that address
the file itself (SARIF's region, GitHub and GitLab annotations) point at the finding's place in the
notebook's JSON text (``details.notebook_position``), SARIF naming the cell in its properties."""

from __future__ import annotations

import json
import subprocess
import sys

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# An agent\n"]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": ["import anthropic\n", "\n", "client = anthropic.Anthropic()\n", 'TOOLS = {"a": {"name": "a"}}'],
        },
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": [
                "def ask(messages):\n",
                '    names = {"a", "b"}  # the set\n',
                '    return client.messages.create(model="m", max_tokens=1, tools=[TOOLS[n] for n in names], messages=messages)',
            ],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _check(tmp_path, *args: str) -> str:
    text = json.dumps(NOTEBOOK, indent=1)
    (tmp_path / "agent.ipynb").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "cachelint", "check", "--isolated", "--no-cache", *args, "agent.ipynb"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _file_place(tmp_path) -> tuple[int, int]:
    """Line and column of the set display in the notebook's JSON text, found by hand."""
    lines = (tmp_path / "agent.ipynb").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, start=1) if "names = {" in text)
    return line, lines[line - 1].index("{") + 1


def test_concise_is_rufflike(tmp_path):
    out = _check(tmp_path, "--output-format", "concise")
    assert out.splitlines()[0].startswith("agent.ipynb:cell 3:2:13: CL101 [*] tools built from a set"), out


def test_json_gives_the_cell_and_the_place_in_the_file(tmp_path):
    (finding,) = json.loads(_check(tmp_path, "--output-format", "json"))
    assert (finding["cell"], finding["line"], finding["column"]) == (3, 2, 13)
    line, column = _file_place(tmp_path)
    assert finding["details"]["notebook_position"]["line"] == line
    assert finding["details"]["notebook_position"]["column"] == column


def test_sarif_region_is_in_the_file_and_names_the_cell(tmp_path):
    sarif = json.loads(_check(tmp_path, "--output-format", "sarif"))
    (result,) = sarif["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == _file_place(tmp_path)
    assert result["properties"] == {"cell": 3, "cellLine": 2, "cellColumn": 13}


def test_github_annotation_is_on_the_files_line(tmp_path):
    out = _check(tmp_path, "--output-format", "github")
    line, column = _file_place(tmp_path)
    assert f",line={line},col={column}," in out and "agent.ipynb:cell 3:2:13: CL101" in out, out


def test_the_same_line_of_two_cells_gives_two_findings_in_cell_order(tmp_path):
    """Cells number their lines from 1: the same syntax error on line 2 of two cells is two
    findings (neither is a duplicate of the other), listed by cell."""

    def cell(source: list[str]) -> dict:
        return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}

    notebook = {
        "cells": [
            cell(["x = 1\n", 'reply = {"symbol”: “GM”}']),
            cell(["def f():\n", "    # no body"]),
            cell(["y = 2\n", 'reply = {"symbol”: “GM”}']),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "notes.ipynb").write_text(json.dumps(notebook))
    done = subprocess.run(
        [sys.executable, "-m", "cachelint", "check", "--isolated", "--no-cache", "notes.ipynb"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    places = [line.split(": CL001")[0] for line in done.stdout.splitlines() if ": CL001" in line]
    assert [p.split(":cell ")[1].split(":")[0] for p in places] == ["1", "2", "3"], done.stdout
