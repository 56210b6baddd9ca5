"""The engine's run over Python files: import scan and module names, the two phases (summaries of
imported modules reach the check, and a change in an imported module re-checks its importers),
per-file timeouts and crashes as CL001, and the same answer in and out of the process pool."""

from __future__ import annotations

import sys
import time

import pytest

import cachelint.code
from cachelint.engine import scheduler, workers
from cachelint.diagnostics import Diagnostic
from cachelint.engine import ModuleLocator, import_candidates
from conftest import check_with_cache, write_tree


pytestmark = pytest.mark.usefixtures("frozen_code_stamp")
run = check_with_cache


# --- import scan -----------------------------------------------------------------------------


def test_import_candidates_absolute_and_from_imports():
    text = (
        "import os, json as j\n"
        "import pkg.sub.mod as m\n"
        "from pkg.tools import build, names as n\n"
        "from pkg.helpers import (\n    first,\n    second,  # trailing\n)\n"
        "from pkg.star import *\n"
        "    import lazy.inside\n"
    )
    assert import_candidates(text, "app.main", False) == [
        "json",
        "lazy.inside",
        "os",
        "pkg.helpers",
        "pkg.helpers.first",
        "pkg.helpers.second",
        "pkg.star",
        "pkg.sub.mod",
        "pkg.tools",
        "pkg.tools.build",
        "pkg.tools.names",
    ]


def test_import_candidates_relative_imports_resolve_against_the_package():
    text = "from . import sibling\nfrom .tools import build\nfrom .. import up\nfrom ...too_far import x\n"
    assert import_candidates(text, "pkg.sub.mod", False) == [
        "pkg",
        "pkg.sub",
        "pkg.sub.sibling",
        "pkg.sub.tools",
        "pkg.sub.tools.build",
        "pkg.up",
    ]
    # in a package's __init__, "." is the package itself
    assert import_candidates("from .tools import build\n", "pkg.sub", True) == ["pkg.sub.tools", "pkg.sub.tools.build"]


def test_import_candidates_read_blanks_around_dots_and_names():
    text = "from . mod import x\nfrom\ta\timport\tb\nfrom .import y\nfrom import z\n"
    assert import_candidates(text, "pkg.sub.mod", False) == ["a", "a.b", "pkg.sub.mod", "pkg.sub.mod.x"]


def test_import_candidates_are_linear_on_runs_of_blanks():
    # cubic before: 1,000 tabs took 0.7 s, 2,000 took 5 s, so 3,000 fails the bound without a hang
    started = time.process_time()
    for text in ("from" + "\t" * 3000 + "]", "from ." + " " * 3000 + "]", "from  " + " \t" * 1500):
        assert import_candidates(text, "pkg.mod", False) == []
    assert time.process_time() - started < 2


def test_module_names_follow_the_init_chain(tmp_path):
    write_tree(
        tmp_path,
        {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/mod.py": "", "scripts/run.py": ""},
    )
    locator = ModuleLocator()
    assert locator.module_of(str(tmp_path / "src/pkg/sub/mod.py")) == ("pkg.sub.mod", False)
    assert locator.module_of(str(tmp_path / "src/pkg/sub/__init__.py")) == ("pkg.sub", True)
    assert locator.module_of(str(tmp_path / "scripts/run.py")) == ("run", False)
    # a module outside the run is found on disk under a known source root
    assert locator.resolve("pkg.sub.mod") == str(tmp_path / "src/pkg/sub/mod.py")
    assert locator.resolve("pkg.sub") == str(tmp_path / "src/pkg/sub/__init__.py")
    assert locator.resolve("os") is None
    assert locator.resolve("pkg.sub.mod.SomeClass") is None


# --- the two phases --------------------------------------------------------------------------


@pytest.fixture
def cross_module(monkeypatch):
    """A summariser that records whether a module's functions return a set, and a check that
    flags a file calling an imported function whose summary says so. Records what it checked."""
    checked: list[tuple[str, tuple[str, ...]]] = []
    # these fakes live in this process only: a pool must fork to have them (under pytest-xdist the
    # process has a second thread, for which the engine would otherwise choose a fork server)
    monkeypatch.setattr(workers, "start_method", lambda: "fork")

    def summarize(path, text, settings=None, project_summaries=None):
        functions = {}
        for line in text.splitlines():
            if line.startswith("def ") and "set(" in text:
                functions[line[4 : line.index("(")]] = {"returns": "unordered"}
        return {"functions": functions, "names": {}}

    def check(path, text, settings, project_summaries=None):
        summaries = dict(project_summaries or {})
        checked.append((path, tuple(sorted(summaries))))
        out = []
        for module, summary in sorted(summaries.items()):
            for name, data in sorted(summary.get("functions", {}).items()):
                if data.get("returns") == "unordered" and f"{name}(" in text:
                    out.append(
                        Diagnostic(code="CL101", message=f"{module}.{name} returns a set", path=path, line=1, column=1)
                    )
        return out

    monkeypatch.setattr(cachelint.code, "summarize_module", summarize)
    monkeypatch.setattr(cachelint.code, "check_module", check)
    return checked


AGENT = "from tools import tool_names\nTOOLS = tool_names()\n"
TOOLS_ORDERED = "def tool_names():\n    return sorted(['b', 'a'])\n"
TOOLS_UNORDERED = "def tool_names():\n    return list(set(['b', 'a']))\n"


def test_summaries_of_imported_modules_reach_the_check(tmp_path, cross_module):
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_UNORDERED})
    result = run(tmp_path)
    assert [(d.path, d.message) for d in result.diagnostics] == [("agent.py", "tools.tool_names returns a set")]
    assert ("agent.py", ("tools",)) in cross_module


def test_a_change_in_an_imported_module_rechecks_its_importer(tmp_path, cross_module):
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_ORDERED, "other.py": "x = 1\n"})
    assert run(tmp_path).diagnostics == []
    cross_module.clear()
    (tmp_path / "tools.py").write_text(TOOLS_UNORDERED)
    result = run(tmp_path)
    assert sorted(path for path, _ in cross_module) == ["agent.py", "tools.py"]  # other.py: cached
    assert [d.path for d in result.diagnostics] == ["agent.py"]
    # and back: the fix in tools.py clears agent.py's finding without touching agent.py
    cross_module.clear()
    (tmp_path / "tools.py").write_text(TOOLS_ORDERED)
    assert run(tmp_path).diagnostics == []
    assert sorted(path for path, _ in cross_module) == ["agent.py", "tools.py"]


def test_an_importer_is_not_rechecked_when_the_summary_is_unchanged(tmp_path, cross_module):
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_UNORDERED})
    run(tmp_path)
    cross_module.clear()
    (tmp_path / "tools.py").write_text(TOOLS_UNORDERED + "# a comment changes nothing it returns\n")
    run(tmp_path)
    assert [path for path, _ in cross_module] == ["tools.py"]


def test_precommit_on_one_file_still_sees_the_modules_it_imports(tmp_path, cross_module):
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/agent.py": "from .tools import tool_names\nT = tool_names()\n",
            "pkg/tools.py": TOOLS_UNORDERED,
        },
    )
    result = run(tmp_path, paths=("pkg/agent.py",))
    assert [(d.path, d.message) for d in result.diagnostics] == [("pkg/agent.py", "pkg.tools.tool_names returns a set")]
    assert [path for path, _ in cross_module] == ["pkg/agent.py"]  # tools.py summarised, not checked


def test_without_a_cache_the_two_phases_still_run(tmp_path, cross_module):
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_UNORDERED})
    result = run(tmp_path, no_cache=True)
    assert [d.path for d in result.diagnostics] == ["agent.py"]
    assert not (tmp_path / ".cachelint_cache").exists()


def test_pool_and_in_process_runs_agree(tmp_path, cross_module, monkeypatch):
    files = {"tools.py": TOOLS_UNORDERED}
    for i in range(12):
        files[f"agent_{i:02d}.py"] = AGENT if i % 3 == 0 else f"x = {i}\n"
    write_tree(tmp_path, files)
    serial = run(tmp_path, no_cache=True, jobs=1)
    monkeypatch.setattr(scheduler, "POOL_MIN_BYTES", 0)
    pooled = run(tmp_path, no_cache=True, jobs=2)
    assert pooled.diagnostics == serial.diagnostics
    assert [d.path for d in pooled.diagnostics] == ["agent_00.py", "agent_03.py", "agent_06.py", "agent_09.py"]


# --- one file must not sink the run ----------------------------------------------------------


def test_a_slow_file_becomes_cl001_after_the_analysis_timeout(tmp_path, monkeypatch):
    def slow_check(path, text, settings, project_summaries=None):
        if "slow" in path:
            time.sleep(30)
        return []

    monkeypatch.setattr(cachelint.code, "check_module", slow_check)
    write_tree(tmp_path, {"slow.py": "x = 1\n", "fast.py": "y = 2\n"})
    result = run(tmp_path, no_cache=True, config={"analysis-timeout": 0.2})
    assert [(d.code, d.path) for d in result.diagnostics] == [("CL001", "slow.py")]
    assert "analysis-timeout" in result.diagnostics[0].message


def test_a_crash_in_a_check_is_cachelints_cl003_not_the_users_cl001(tmp_path, monkeypatch):
    def broken_check(path, text, settings, project_summaries=None):
        raise KeyError("boom")

    monkeypatch.setattr(cachelint.code, "check_module", broken_check)
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    result = run(tmp_path, no_cache=True)
    assert [(d.code, d.path) for d in result.diagnostics] == [("CL003", "a.py")]
    assert result.diagnostics[0].message == (
        "internal error while analysing this file: KeyError: 'boom' "
        "(this is a bug in cachelint: please report it, with the file if you can)"
    )


def test_a_crash_in_the_summariser_only_loses_the_summary(tmp_path, cross_module, monkeypatch):
    def broken_summary(path, text, settings=None, project_summaries=None):
        raise ValueError("boom")

    monkeypatch.setattr(cachelint.code, "summarize_module", broken_summary)
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_UNORDERED})
    assert run(tmp_path, no_cache=True).diagnostics == []
    assert sorted(path for path, _ in cross_module) == ["agent.py", "tools.py"]


def test_unreadable_files_are_reported_every_run(tmp_path):
    write_tree(tmp_path, {"bad.py": b"x = '\xff'\n"})
    for _ in range(2):
        result = run(tmp_path)
        assert [(d.code, d.path) for d in result.diagnostics] == [("CL001", "bad.py")]


def test_a_lost_summaries_file_is_rebuilt_when_a_check_needs_it(tmp_path, cross_module):
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_UNORDERED})
    run(tmp_path)
    (summaries,) = (tmp_path / ".cachelint_cache").glob("summaries-*.json")
    summaries.unlink()
    (tmp_path / "agent.py").write_text(AGENT + "# edited\n")
    cross_module.clear()
    result = run(tmp_path)
    assert [d.path for d in result.diagnostics] == ["agent.py"]
    assert cross_module == [("agent.py", ("tools",))]
    assert summaries.exists()


def test_a_corrupt_summaries_file_is_discarded_with_a_warning(tmp_path, cross_module):
    write_tree(tmp_path, {"agent.py": AGENT, "tools.py": TOOLS_UNORDERED})
    run(tmp_path)
    (summaries,) = (tmp_path / ".cachelint_cache").glob("summaries-*.json")
    summaries.write_text("{")
    (tmp_path / "agent.py").write_text(AGENT + "# edited\n")
    result = run(tmp_path)
    assert [d.path for d in result.diagnostics] == ["agent.py"]
    assert any("corrupt" in w for w in result.warnings)


def test_a_timeout_is_not_cached(tmp_path, monkeypatch):
    slow = {"on": True}

    def sometimes_slow_check(path, text, settings, project_summaries=None):
        if slow["on"]:
            time.sleep(30)
        return []

    monkeypatch.setattr(cachelint.code, "check_module", sometimes_slow_check)
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    first = run(tmp_path, config={"analysis-timeout": 0.2})
    assert [d.code for d in first.diagnostics] == ["CL001"]
    slow["on"] = False  # the machine is quiet again: the file is analysed, not answered from cache
    assert run(tmp_path, config={"analysis-timeout": 0.2}).diagnostics == []


REAL_CL101 = """import anthropic

client = anthropic.Anthropic()
NAMES = {"search", "fetch"}


def run(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[{"name": n} for n in NAMES], messages=messages)
"""


def test_a_threaded_host_gets_a_forkserver_pool_with_the_same_results(tmp_path, monkeypatch):
    """The API inside a threaded host (an IDE, a server): forking a process with other threads
    running can leave a lock held forever in the child; the pool then starts from a fork server."""
    import threading

    # real checks: a fork server's workers import cachelint afresh and see no monkeypatch
    files = {f"agent_{i:02d}.py": REAL_CL101 if i % 2 == 0 else f"x = {i}\n" for i in range(8)}
    write_tree(tmp_path, files)
    serial = run(tmp_path, no_cache=True, jobs=1)
    monkeypatch.setattr(scheduler, "POOL_MIN_BYTES", 0)
    if sys.platform.startswith("linux") and workers._threads() == 1:  # not under pytest-xdist (2 threads)
        assert workers.start_method() == "fork"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        if sys.platform.startswith("linux"):
            assert workers.start_method() == "forkserver"
        pooled = run(tmp_path, no_cache=True, jobs=2)
    finally:
        stop.set()
        other.join()
    assert pooled.diagnostics == serial.diagnostics
    assert [d.path for d in pooled.diagnostics] == ["agent_00.py", "agent_02.py", "agent_04.py", "agent_06.py"]
