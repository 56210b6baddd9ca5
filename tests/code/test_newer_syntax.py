"""Python syntax newer than the interpreter running cachelint (3.12's f-strings and type
parameters, 3.14's template strings and except lists, 3.11's except* for 3.10) is analysed, at the
user's positions; only code that no Python version accepts is CL001."""

from __future__ import annotations

import ast
import json

import pytest

from codecheck_helpers import marked_lines, run
from cachelint.code import check_module
from cachelint.code.newer_syntax import lower_newer_syntax

PEP_701_AND_695 = """\
type Messages = list[dict[str, str]]


class Agent[ModelT]:
    def ask[M](self, messages: list[M]) -> M:
        labels = {"billing", "refunds"}  # here
        system = f"{BASE} at {datetime.now():{"%H:%M"}} for {'\\n'.join(labels)} ({self.names["main"]!r})"  # here
        return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
"""


def test_a_312_file_is_analysed_at_the_users_positions():
    found = run(PEP_701_AND_695)
    lines = marked_lines(PEP_701_AND_695)
    assert sorted((d.code, d.line) for d in found) == [("CL102", lines[0]), ("CL105", lines[1])], found
    source_lines = PEP_701_AND_695.splitlines()
    clock = next(d for d in found if d.code == "CL105")
    assert clock.column == next(line for line in source_lines if "datetime.now()" in line).index("datetime.now()") + 1


CASES = {
    "quotes-reused": ('x = f"{d["key"]} and {", ".join(items)}"\n', ["d", "items"]),
    "backslash-in-a-field": ("x = f\"{'\\n'.join(items)}\"\n", ["items"]),
    "comment-in-a-field": ('x = f"""{\n    items  # the list\n}"""\n', ["items"]),
    "field-over-lines": ('x = f"{\n    items\n}"\n', ["items"]),
    "nested-format-specs": ('x = f"{value:{width:{fill}}}"\n', ["value", "width", "fill"]),
    "self-documenting-with-quotes": ('x = f"{d["k"] = }"\n', ["d"]),
    "nested-fstring-same-quotes": ('x = f"{f"{inner}"}"\n', ["inner"]),
    "concatenated-over-lines": ('x = (f"{d["a"]}"\n     "tail"\n     f"{d["b"]}")\n', ["d", "d"]),
    "type-alias": ("type Pair[T] = tuple[T, T]\n", ["tuple", "T", "T"]),
    "generic-function": ("def first[T: (int, str)](xs: list[T]) -> T:\n    return xs[0]\n", ["list", "T", "T", "xs"]),
    "generic-class-over-lines": ("class Box[\n    T,\n    U = int,\n](Base):\n    pass\n", ["Base"]),
    "except-list": ("try:\n    go()\nexcept ValueError, KeyError:\n    pass\n", ["go", "ValueError", "KeyError"]),
    "template-string": ('x = t"Hello {name}"\n', ["name"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_lowered_text_keeps_lines_offsets_and_names(name):
    source, names = CASES[name]
    lowered = lower_newer_syntax(source)
    assert lowered is not None
    assert [len(line.encode()) for line in lowered.splitlines()] == [len(line.encode()) for line in source.splitlines()]
    tree = ast.parse(lowered)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    assert sorted(n.id for n in found) == sorted(names)
    for n in found:  # every name read is where the user wrote it
        line = source.splitlines()[n.lineno - 1].encode()
        assert line[n.col_offset : n.end_col_offset].decode() == n.id


def test_positions_outside_rewritten_text_are_unchanged_with_wide_characters():
    source = 'label = "café"; x = f"{d["κλειδί"]} → {items}"; y = now()\n'
    lowered = lower_newer_syntax(source)
    assert lowered is not None and len(lowered.encode()) == len(source.encode())
    call = next(n for n in ast.walk(ast.parse(lowered)) if isinstance(n, ast.Call))
    assert source.encode()[call.col_offset : call.end_col_offset].decode() == "now()"


def test_plain_code_is_left_alone():
    assert lower_newer_syntax('x = f"{a}" + "b"\nprint(x)\n') is None


def test_broken_code_using_new_syntax_is_still_cl001():
    (d,) = check_module("agent.py", 'import anthropic\ntext = f"{d["k"]}"\nif x\n    pass\n', None)
    assert d.code == "CL001" and d.line == 3 and d.message.startswith("syntax error")


def test_unterminated_fstring_is_cl001():
    (d,) = check_module("agent.py", 'import anthropic\ntext = f"{d["k"]\n', None)
    assert d.code == "CL001"


def test_notebook_cell_with_new_syntax():
    cell = 'import anthropic\nclient = anthropic.Anthropic()\nnames = {"a", "b"}\nsystem = f"{", ".join(names)}"\nclient.messages.create(model="m", max_tokens=1, system=system, messages=[])\n'
    nb = {
        "cells": [{"cell_type": "code", "source": cell, "metadata": {}, "outputs": []}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (d,) = check_module("agent.ipynb", json.dumps(nb), None)
    assert d.code == "CL102" and d.details["cell"] == 1 and d.line == 3


def test_fix_applies_in_a_file_with_new_syntax(tmp_path):
    import subprocess
    import sys

    source = (
        "import anthropic\n\nclient = anthropic.Anthropic()\n\n\n"
        "class Agent[T]:\n"
        "    def ask(self, messages):\n"
        '        names = {"search", "fetch"}\n'
        '        note = f"{self.meta["k"]}"\n'
        '        return client.messages.create(model="m", max_tokens=1, tools=[{"name": n} for n in names], messages=messages)\n'
    )
    (tmp_path / "agent.py").write_text(source)
    out = subprocess.run(
        [sys.executable, "-m", "cachelint", "check", "--isolated", "--no-cache", "--fix", "agent.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    fixed = (tmp_path / "agent.py").read_text()
    assert "for n in sorted(names)]" in fixed, out.stdout + out.stderr
    assert fixed.replace("sorted(names)", "names") == source
