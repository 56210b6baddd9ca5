"""Summaries that follow chains of modules: a module's summary is made with the summaries of the
project modules it imports, so what A sends through B into C (or gets from C through B) is seen
in A — the same in a cold run, a warm run, a pre-commit run of one file and the process pool —,
and a change in C re-checks A only through B's summary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cachelint import engine
from cachelint.engine import facts, scheduler, tasks, workers
from conftest import check_with_cache, write_tree

pytestmark = pytest.mark.usefixtures("frozen_code_stamp")

AGENT = """\
from langchain.agents import create_agent

from pkg.prompt import apply_prompt_template


def make(model, deferred):
    return create_agent(model=model, tools=[], system_prompt=apply_prompt_template(deferred))
"""
PROMPT = """\
from pkg.tool_search import get_section


def apply_prompt_template(deferred_names: frozenset[str]) -> str:
    return "You are an agent.\\n" + get_section(deferred_names)
"""
SECTION_SORTED = 'def get_section(deferred_names):\n    return "\\n".join(sorted(deferred_names))\n'
SECTION_UNSORTED = 'def get_section(deferred_names):\n    return "\\n".join(deferred_names)\n'

# deer-flow's shape (docs/code-checks.md): A -> B -> C, and C sorts what B passes it.
THREE_MODULES = {
    "pkg/__init__.py": "",
    "pkg/agent.py": AGENT,
    "pkg/prompt.py": PROMPT,
    "pkg/tool_search.py": SECTION_SORTED,
}

# The symmetric miss: C returns a set as a list, B returns C's result, A sends it as tools=.
TOOLS_THROUGH_TWO_MODULES = {
    "app/__init__.py": "",
    "app/registry.py": 'def tool_list():\n    enabled = {"search", "fetch", "browse"}\n    return list(enabled)\n',
    "app/tools.py": "from app.registry import tool_list\n\n\ndef agent_tools():\n    return tool_list()\n",
    "app/agent.py": (
        "from langchain.agents import create_agent\n\nfrom app.tools import agent_tools\n\n\n"
        "def make(model):\n"
        '    return create_agent(model=model, tools=agent_tools(), system_prompt="You are an agent.")\n'
    ),
}


def found(result) -> list[tuple[str, str, int]]:
    return [(d.code, d.path, d.line) for d in result.diagnostics]


def summarised(monkeypatch) -> list[str]:
    """The names of the modules the engine summarises from now on, in the order it does."""
    made: list[str] = []
    real = engine.collect_facts

    def spy(task):
        if task.summarize:
            made.append(Path(task.path).name)
        return real(task)

    for module in (tasks, facts):  # the workers' tasks, and a summary the cache lost
        monkeypatch.setattr(module, "collect_facts", spy)
    return made


def test_a_third_module_that_sorts_clears_the_finding(tmp_path):
    write_tree(tmp_path, THREE_MODULES)
    assert found(check_with_cache(tmp_path, no_cache=True)) == []
    assert found(check_with_cache(tmp_path)) == []  # cold, with the cache
    assert found(check_with_cache(tmp_path)) == []  # warm
    assert found(check_with_cache(tmp_path, paths=("pkg/agent.py",), no_cache=True)) == []  # pre-commit


def test_an_unordered_value_returned_through_two_modules_is_found(tmp_path):
    write_tree(tmp_path, TOOLS_THROUGH_TWO_MODULES)
    expected = [("CL101", "app/agent.py", 7)]
    result = check_with_cache(tmp_path, no_cache=True)
    assert found(result) == expected
    # where the value is made (the first module) and the function that hands it on, in one phrase
    assert (
        "(made in app.registry.tool_list(), line 2; returned by app.tools.agent_tools())"
        in result.diagnostics[0].message
    )
    assert found(check_with_cache(tmp_path)) == expected
    assert found(check_with_cache(tmp_path)) == expected
    assert found(check_with_cache(tmp_path, paths=("app/agent.py",), no_cache=True)) == expected


def test_a_chain_of_four_modules(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/agent.py": AGENT,
        "pkg/prompt.py": PROMPT,
        # C passes what it is given to D, which sorts it (or not)
        "pkg/tool_search.py": "from pkg.render import render\n\n\ndef get_section(names):\n    return render(names)\n",
        "pkg/render.py": 'def render(names):\n    return "\\n".join(sorted(names))\n',
    }
    write_tree(tmp_path, files)
    assert found(check_with_cache(tmp_path)) == []
    (tmp_path / "pkg/render.py").write_text('def render(names):\n    return "\\n".join(names)\n')
    assert found(check_with_cache(tmp_path)) == [("CL102", "pkg/agent.py", 7)]
    assert found(check_with_cache(tmp_path, no_cache=True)) == [("CL102", "pkg/agent.py", 7)]


CYCLE = {
    "pkg/__init__.py": "",
    "pkg/agent.py": AGENT,
    # B and C import each other: each is summarised without the other's summary; C's call into
    # D, outside the cycle, is still followed
    "pkg/prompt.py": PROMPT.replace(
        "from pkg.tool_search import get_section\n", "from pkg.tool_search import get_section, HEADER\n"
    ),
    "pkg/tool_search.py": (
        "from pkg.render import render\nfrom pkg import prompt\n\nHEADER = 'tools'\n\n\n"
        "def get_section(names):\n    return render(names)\n\n\ndef again(names):\n    return prompt.apply_prompt_template(names)\n"
    ),
    "pkg/render.py": 'def render(names):\n    return "\\n".join(sorted(names))\n',
}


def renamed(files: dict[str, str], package: str) -> dict[str, str]:
    """The same modules in another package."""
    return {
        k.replace("pkg/", f"{package}/"): v.replace("pkg.", f"{package}.").replace("from pkg ", f"from {package} ")
        for k, v in files.items()
    }


def test_an_import_cycle_terminates_and_gives_one_answer(tmp_path):
    write_tree(tmp_path, CYCLE)
    # inside the cycle, prompt.py does not see tool_search.py's summary: the finding stays
    expected = [("CL102", "pkg/agent.py", 7)]
    assert found(check_with_cache(tmp_path, no_cache=True)) == expected
    assert found(check_with_cache(tmp_path)) == expected
    assert found(check_with_cache(tmp_path)) == expected
    for start in ("pkg/agent.py", "pkg/prompt.py", "pkg/tool_search.py"):
        result = check_with_cache(tmp_path, paths=("pkg/agent.py", start), no_cache=True)
        assert found(result) == expected, start
    # once the cycle is broken, C's summary (which sees D's) reaches B and A
    (tmp_path / "pkg/tool_search.py").write_text(CYCLE["pkg/tool_search.py"].replace("from pkg import prompt\n", ""))
    (tmp_path / "pkg/prompt.py").write_text(PROMPT)
    assert found(check_with_cache(tmp_path)) == []


def test_the_import_graph_orders_cycles_after_what_they_import(tmp_path):
    write_tree(tmp_path, CYCLE)
    from cachelint.engine import ImportGraph, ModuleLocator

    locator = ModuleLocator()
    facts, needed = {}, {}
    for rel in sorted(CYCLE):
        path = str(tmp_path / rel)
        module, is_package = locator.module_of(path)
        locator.add(module, path)
        text = (tmp_path / rel).read_text()
        facts[path] = {"imports": engine.import_candidates(text, module, is_package)}
        needed[path] = (rel, module, is_package)
    graph = ImportGraph(needed, facts, locator)
    names = {str(tmp_path / rel): rel for rel in CYCLE}
    order = [[names[p] for p in component] for component in graph.order]
    cycle = ["pkg/prompt.py", "pkg/tool_search.py"]
    assert cycle in order
    assert order.index(["pkg/render.py"]) < order.index(cycle) < order.index(["pkg/agent.py"])
    assert [names[p] for p in graph.before[str(tmp_path / "pkg/tool_search.py")]] == [
        "pkg/__init__.py",
        "pkg/render.py",
    ]


def test_a_change_in_the_third_module_reaches_the_first_through_the_cache(tmp_path):
    write_tree(tmp_path, THREE_MODULES)
    agent = tmp_path / "pkg/agent.py"
    stamp = agent.stat().st_mtime_ns
    assert found(check_with_cache(tmp_path)) == []
    (tmp_path / "pkg/tool_search.py").write_text(SECTION_UNSORTED)
    assert found(check_with_cache(tmp_path)) == [("CL102", "pkg/agent.py", 7)]
    assert found(check_with_cache(tmp_path)) == [("CL102", "pkg/agent.py", 7)]  # warm, all hits
    (tmp_path / "pkg/tool_search.py").write_text(SECTION_SORTED)
    assert found(check_with_cache(tmp_path)) == []
    assert found(check_with_cache(tmp_path, paths=("pkg/agent.py",))) == []
    assert agent.stat().st_mtime_ns == stamp  # A itself never changed


def test_a_summary_is_remade_only_when_what_it_used_changed(tmp_path, monkeypatch):
    write_tree(tmp_path, {**THREE_MODULES, "pkg/other.py": "def f():\n    return 1\n"})
    check_with_cache(tmp_path)
    made = summarised(monkeypatch)
    # a comment in C: C is summarised again, its summary is unchanged, so B's stays valid
    (tmp_path / "pkg/tool_search.py").write_text(SECTION_SORTED + "# a comment\n")
    check_with_cache(tmp_path)
    assert made == ["tool_search.py"]
    made.clear()
    # C's summary changes: B's summary is made again with it
    (tmp_path / "pkg/tool_search.py").write_text(SECTION_UNSORTED)
    check_with_cache(tmp_path)
    assert made == ["tool_search.py", "prompt.py"]


def test_pool_and_in_process_runs_agree_on_chains(tmp_path, monkeypatch):
    files = {**THREE_MODULES, **TOOLS_THROUGH_TWO_MODULES, **renamed(CYCLE, "cyc")}
    for i in range(8):
        files[f"pkg/user_{i}.py"] = AGENT if i % 2 else f"X = {i}\n"
    write_tree(tmp_path, files)
    serial = check_with_cache(tmp_path, no_cache=True, jobs=1)
    monkeypatch.setattr(scheduler, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(workers, "start_method", lambda: "fork")
    pooled = check_with_cache(tmp_path, no_cache=True, jobs=2)
    assert pooled.diagnostics == serial.diagnostics
    assert ("CL101", "app/agent.py", 7) in found(pooled)
    assert ("CL102", "cyc/agent.py", 7) in found(pooled)
    assert not any(path.startswith("pkg/") for _, path, _ in found(pooled))
    warm_pooled = [check_with_cache(tmp_path, jobs=2) for _ in range(2)]
    assert all(r.diagnostics == serial.diagnostics for r in warm_pooled)


@pytest.mark.slow
def test_chains_give_the_same_output_whatever_the_hash_seed(tmp_path):
    write_tree(tmp_path, {**THREE_MODULES, **TOOLS_THROUGH_TWO_MODULES, **renamed(CYCLE, "cyc")})
    outputs = set()
    for seed in (0, 1, 12345):
        env = {**os.environ, "PYTHONHASHSEED": str(seed), "CACHELINT_NO_CACHE": "1"}
        proc = subprocess.run(
            [sys.executable, "-m", "cachelint", "check", "--isolated", "--output-format", "json", "."],
            cwd=tmp_path,
            capture_output=True,
            env=env,
        )
        assert proc.returncode == 1, proc.stderr.decode()
        outputs.add(proc.stdout)
    assert len(outputs) == 1
    output = outputs.pop()
    assert b"app/agent.py" in output and b"cyc/agent.py" in output and b"pkg/agent.py" not in output


def test_a_module_read_only_from_inside_its_cycle_is_not_summarised(tmp_path, monkeypatch):
    write_tree(tmp_path, CYCLE)
    made = summarised(monkeypatch)
    # agent.py reads prompt.py's summary, which is made without tool_search.py's (one cycle);
    # nothing outside the cycle imports tool_search.py: neither it nor render.py is summarised
    check_with_cache(tmp_path, paths=("pkg/agent.py",), no_cache=True)
    assert made == ["prompt.py"]
