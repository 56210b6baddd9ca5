"""A code finding shows on several lines: where its value is made (the line it is reported at),
where the value is put in order, and the call it reaches (with its argument). A suppression comment
on any of them (or the line above) applies; one for another code, or on an unrelated line, does not.
The examples of docs/suppressions.md are run as written."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import check_tree, write_tree

HEAD = """\
from datetime import date

import anthropic

client = anthropic.Anthropic()
TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}
"""


def codes(tmp_path: Path, body: str) -> list[str]:
    write_tree(tmp_path, {"agent.py": HEAD + body})
    return sorted(d.code for d in check_tree(tmp_path).diagnostics)


def test_the_docs_examples_work(tmp_path):
    body = """

def ask(messages):
    names = {"search", "fetch"}
    tools = [TOOLS[n] for n in names]  # cachelint: ignore[CL101]

    # cachelint: ignore[CL105] -- the date is coarse on purpose
    system = f"Today is {date.today()}"
    return client.messages.create(model="m", max_tokens=10, tools=tools, system=system, messages=messages)
"""
    assert codes(tmp_path, body) == []
    assert codes(
        tmp_path, body.replace("  # cachelint: ignore[CL101]", "").replace("# cachelint: ignore[CL105] -- ", "# ")
    ) == [
        "CL101",
        "CL105",
    ]


def test_on_the_line_the_value_is_made(tmp_path):
    body = """
def ask(messages):
    names = {"search", "fetch"}  # cachelint: ignore[CL101]
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
"""
    assert codes(tmp_path, body) == []


def test_on_the_call_line_or_above_it(tmp_path):
    on = """
def ask(messages):
    names = {"search", "fetch"}
    return client.messages.create(  # noqa: CL101
        model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
"""
    above = """
def ask(messages):
    names = {"search", "fetch"}
    # cachelint: ignore[unordered-tools]
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
"""
    assert codes(tmp_path, on) == [] and codes(tmp_path, above) == []


def test_on_the_argument_line(tmp_path):
    body = """
def ask(messages):
    names = {"search", "fetch"}
    tools = [TOOLS[n] for n in names]
    return client.messages.create(
        model="m",
        max_tokens=10,
        tools=tools,  # cachelint: ignore[CL101]
        messages=messages,
    )
"""
    assert codes(tmp_path, body) == []


def test_a_loop_change_on_the_call_line(tmp_path):
    body = """
def run(messages, skills):
    system = "base"
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)  # cachelint: ignore[CL104]
        system = "base" + skills[reply.content[-1].input["name"]]
        messages.append({"role": "assistant", "content": reply.content})
"""
    assert codes(tmp_path, body) == []
    assert codes(tmp_path, body.replace("  # cachelint: ignore[CL104]", "")) == ["CL104"]


def test_other_codes_and_unrelated_lines_do_not_suppress(tmp_path):
    other_code = """
def ask(messages):
    names = {"search", "fetch"}
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)  # cachelint: ignore[CL105]
"""
    unrelated = """
def ask(messages):
    names = {"search", "fetch"}
    count = len(names)  # cachelint: ignore[CL101]

    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
"""
    # each suppression suppresses nothing, and says so (CL004)
    assert sorted(codes(tmp_path, other_code)) == ["CL004", "CL101"]
    assert sorted(codes(tmp_path, unrelated)) == ["CL004", "CL101"]


def test_related_lines_are_in_the_json_output(tmp_path):
    import subprocess
    import sys

    body = """
def ask(messages):
    names = {"search", "fetch"}
    tools = [TOOLS[n] for n in names]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
"""
    write_tree(tmp_path, {"agent.py": HEAD + body})
    out = subprocess.run(
        [sys.executable, "-m", "cachelint", "check", "--isolated", "--no-cache", "--output-format", "json", "agent.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    (finding,) = json.loads(out.stdout)
    start = HEAD.count("\n") + 3
    assert finding["line"] == start and finding["details"]["related_lines"] == [start + 1, start + 2]


def test_notebook_related_lines_stay_in_the_cell(tmp_path):
    cells = [
        HEAD,
        'names = {"search", "fetch"}\ntools = [TOOLS[n] for n in names]',
        "client.messages.create(model='m', max_tokens=10, tools=tools, messages=[])  # cachelint: ignore[CL101]",
    ]
    nb = {
        "cells": [
            {"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "agent.ipynb").write_text(json.dumps(nb))
    # the call is in another cell than the set: the suppression there is unused (CL004)
    (found,) = [d for d in check_tree(tmp_path).diagnostics if d.code != "CL004"]
    assert found.code == "CL101" and found.details["cell"] == 2 and found.details["related_lines"] == [2]
    cells[1] = 'names = {"search", "fetch"}\ntools = [TOOLS[n] for n in names]  # cachelint: ignore[CL101]'
    nb["cells"][1]["source"] = cells[1]
    nb["cells"][2]["source"] = cells[2].split("  #")[0]  # the suppression that did not apply, gone
    (tmp_path / "agent.ipynb").write_text(json.dumps(nb))
    assert check_tree(tmp_path).diagnostics == []
