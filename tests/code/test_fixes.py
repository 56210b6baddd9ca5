"""Fixes: sorted(...) at the source for CL101/CL102, safe only for known strings or paths; --fix is
idempotent, --diff writes nothing, files without findings are never rewritten."""

from __future__ import annotations

import os

from conftest import check_tree, write_tree

from cachelint.code import check_module
from cachelint.diagnostics import Applicability

SAFE_SOURCE = """\
import os

import anthropic

client = anthropic.Anthropic()
TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}


def ask(messages):
    names = {"search", "fetch"}
    tools = [TOOLS[n] for n in names]
    index = "\\n".join(f for f in os.listdir("skills"))
    return client.messages.create(model="m", max_tokens=10, tools=tools, system=index, messages=messages)
"""

SAFE_FIXED = """\
import os

import anthropic

client = anthropic.Anthropic()
TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}


def ask(messages):
    names = {"search", "fetch"}
    tools = [TOOLS[n] for n in sorted(names)]
    index = "\\n".join(f for f in sorted(os.listdir("skills")))
    return client.messages.create(model="m", max_tokens=10, tools=tools, system=index, messages=messages)
"""

UNSAFE_SOURCE = """\
import anthropic

client = anthropic.Anthropic()


def ask(messages, loaded):
    tools = [t for t in set(loaded)]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
"""

COMPLETION_ORDER = """\
from concurrent.futures import as_completed

import anthropic

client = anthropic.Anthropic()


def ask(messages, futures):
    tools = [f.result() for f in as_completed(futures)]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
"""

CLEAN = """\
import anthropic

client = anthropic.Anthropic()


def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[], messages=messages)
"""


def test_safe_fix_wraps_the_iteration_in_sorted(tmp_path):
    write_tree(tmp_path, {"agent.py": SAFE_SOURCE, "clean.py": CLEAN})
    clean_before = os.stat(tmp_path / "clean.py").st_mtime_ns
    result = check_tree(tmp_path, fix=True)
    assert (tmp_path / "agent.py").read_text(encoding="utf-8") == SAFE_FIXED
    assert [d.code for d in result.diagnostics] == []
    assert result.fixes_applied >= 2
    assert os.stat(tmp_path / "clean.py").st_mtime_ns == clean_before
    # a second run finds nothing more to fix and leaves the file alone
    fixed_before = os.stat(tmp_path / "agent.py").st_mtime_ns
    again = check_tree(tmp_path, fix=True)
    assert again.fixes_applied == 0 and again.diagnostics == []
    assert os.stat(tmp_path / "agent.py").st_mtime_ns == fixed_before


def test_fix_applicability():
    by_code = {d.code: d for d in check_module("agent.py", SAFE_SOURCE, None)}
    assert by_code["CL101"].fix.applicability == Applicability.SAFE
    assert by_code["CL102"].fix.applicability == Applicability.SAFE
    (unsafe,) = check_module("agent.py", UNSAFE_SOURCE, None)
    assert unsafe.fix is not None and unsafe.fix.applicability == Applicability.UNSAFE


def test_unsafe_fix_needs_the_opt_in(tmp_path):
    write_tree(tmp_path, {"agent.py": UNSAFE_SOURCE})
    result = check_tree(tmp_path, fix=True)
    assert (tmp_path / "agent.py").read_text(encoding="utf-8") == UNSAFE_SOURCE
    assert [d.code for d in result.diagnostics] == ["CL101"]
    result = check_tree(tmp_path, fix=True, unsafe_fixes=True)
    text = (tmp_path / "agent.py").read_text(encoding="utf-8")
    assert "tools = [t for t in sorted(set(loaded))]" in text
    assert result.diagnostics == []


def test_completion_order_is_sorted_by_tool_name_at_the_call(tmp_path):
    write_tree(tmp_path, {"agent.py": COMPLETION_ORDER})
    check_tree(tmp_path, fix=True, unsafe_fixes=True)
    text = (tmp_path / "agent.py").read_text(encoding="utf-8")
    assert 'tools=sorted(tools, key=lambda t: t["name"])' in text
    assert check_tree(tmp_path).diagnostics == []


def test_diff_shows_and_does_not_write(tmp_path):
    write_tree(tmp_path, {"agent.py": SAFE_SOURCE})
    result = check_tree(tmp_path, diff=True)
    assert (tmp_path / "agent.py").read_text(encoding="utf-8") == SAFE_SOURCE
    (diff,) = result.diffs
    assert "+    tools = [TOOLS[n] for n in sorted(names)]" in diff


def test_fix_columns_count_characters_not_bytes(tmp_path):
    source = SAFE_SOURCE.replace('names = {"search", "fetch"}', 'names = {"busca", "ação"}').replace(
        "tools = [TOOLS[n] for n in names]", 'tools = [{"ação": n} for n in names]'
    )
    write_tree(tmp_path, {"agent.py": source})
    check_tree(tmp_path, fix=True)
    text = (tmp_path / "agent.py").read_text(encoding="utf-8")
    assert 'tools = [{"ação": n} for n in sorted(names)]' in text


def test_no_fix_for_loop_changes_and_volatile_values():
    source = """\
import time
import anthropic
client = anthropic.Anthropic()
def run(messages):
    tools = []
    while True:
        client.messages.create(model="m", max_tokens=1, tools=tools, system=f"{time.time()}", messages=messages)
        tools.append({"name": "x"})
"""
    found = check_module("agent.py", source, None)
    assert sorted(d.code for d in found) == ["CL103", "CL105"]
    assert all(d.fix is None for d in found)


ONE_SOURCE_TWO_TIERS = """\
import os

import anthropic

client = anthropic.Anthropic()


def ask(messages):
    names = [n for n in os.listdir("tools")]
    tools = [{"name": n} for n in names]
    system = ", ".join(names)
    return client.messages.create(model="m", max_tokens=10, tools=tools, system=system, messages=messages)
"""


def test_one_unordered_value_in_two_tiers_is_wrapped_once():
    """CL101 and CL102 start at the same listing: the first (in code order) offers the sorted(...),
    the other none, so applying every fix does not wrap it twice."""
    found = check_module("agent.py", ONE_SOURCE_TWO_TIERS, None)
    assert [(d.code, d.line) for d in found] == [("CL101", 9), ("CL102", 9)]
    assert found[0].fix is not None and found[1].fix is None
    assert [e.content for e in found[0].fix.edits] == ["sorted(", ")"]
