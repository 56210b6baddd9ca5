"""Safe fixes run: every case of the table (and every bad example of the catalog's CL101 and CL102)
is imported and run with fake SDK clients before and after ``check --fix``. The fixed program
must run without an exception, send the same requests apart from order (the same multiset of
characters in every string, the same multiset of items in every list), send exactly the same
requests whatever the hash seed, and leave nothing for ``check`` to report."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, check_tree, write_tree

from cachelint.diagnostics import Applicability

# Fake SDKs: each request's keyword arguments are recorded (JSON) in calls.json.
FAKES = {
    "fakes/_record.py": """\
import json, os
CALLS = []
def _body(value):
    # what an SDK sends: JSON, any other iterable (a set, a generator) in its iteration order
    if isinstance(value, dict):
        return {str(k): _body(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    try:
        return [_body(v) for v in value]
    except TypeError:
        return str(value)
def record(kind, kwargs):
    CALLS.append({"sdk": kind, **_body(kwargs)})
    return {"content": [{"type": "text", "text": "ok"}], "choices": [{"message": {"content": "ok"}}]}
def dump():
    with open(os.environ["CALLS_OUT"], "w") as handle:
        json.dump(CALLS, handle)
""",
    "fakes/anthropic/__init__.py": """\
from _record import record
class _Messages:
    def create(self, **kwargs):
        return record("anthropic", kwargs)
class Anthropic:
    def __init__(self, *args, **kwargs):
        self.messages = _Messages()
""",
    "fakes/openai/__init__.py": """\
from _record import record
class _Completions:
    def create(self, **kwargs):
        return record("openai", kwargs)
class _Chat:
    def __init__(self):
        self.completions = _Completions()
class OpenAI:
    def __init__(self, *args, **kwargs):
        self.chat = _Chat()
""",
}

RUNNER = """\
import importlib, sys
sys.path[:0] = ["fakes", "."]
import _record
module = importlib.import_module(sys.argv[1])
getattr(module, sys.argv[2])(*sys.argv[3:])
_record.dump()
"""

# Files the agents read: a folder of skills, a folder of tool definitions.
DATA = {
    "skills/pdf/SKILL.md": "---\nname: pdf\n---\n",
    "skills/docx/SKILL.md": "---\nname: docx\n---\n",
    "skills/xlsx/SKILL.md": "---\nname: xlsx\n---\n",
    "tools/search.json": "{}",
    "tools/fetch.json": "{}",
    "tools/write.json": "{}",
}

HEADER = "import os\nfrom pathlib import Path\n\nimport anthropic\n\nclient = anthropic.Anthropic()\nTOOLS = {n: {'name': n, 'input_schema': {}} for n in ['search', 'fetch', 'write', 'read']}\n\n\n"

CASES: dict[str, dict[str, str]] = {
    # the unordered value in another module: fixed there, where it is first put in order
    "registry-in-another-module": {
        "pkg/__init__.py": "",
        "pkg/registry.py": (
            "TOOLS = {'search': {'name': 'search'}, 'fetch': {'name': 'fetch'}, 'read': {'name': 'read'}}\n"
            "ENABLED = {'search', 'fetch', 'read'}\n\n\ndef get_tools():\n    return [TOOLS[n] for n in ENABLED]\n"
        ),
        "pkg/agent.py": (
            "import anthropic\n\nfrom pkg.registry import get_tools\n\nclient = anthropic.Anthropic()\n\n\n"
            "def ask(question):\n    return client.messages.create(model='m', max_tokens=10, tools=get_tools(), messages=[question])\n"
        ),
    },
    "names-imported-from-another-module": {
        "pkg/__init__.py": "",
        "pkg/names.py": "ENABLED = {'search', 'fetch', 'read'}\n",
        "pkg/agent.py": (
            "import anthropic\n\nfrom pkg.names import ENABLED\n\nclient = anthropic.Anthropic()\n\n\n"
            "def ask(question):\n    tools = [{'name': n} for n in ENABLED]\n"
            "    return client.messages.create(model='m', max_tokens=10, tools=tools, messages=[question])\n"
        ),
    },
    "set-of-literals": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {'search', 'fetch', 'read'}\n    return client.messages.create(model='m', tools=[TOOLS[n] for n in names], messages=[q])\n"
    },
    "set-algebra": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {'search', 'fetch'} | {'read'}\n    return client.messages.create(model='m', tools=[TOOLS[n] for n in names], messages=[q])\n"
    },
    "set-method": {
        "agent.py": HEADER
        + "BASE = {'search', 'fetch'}\n\n\ndef ask(q):\n    names = BASE.union({'read', 'write'})\n    return client.messages.create(model='m', tools=[TOOLS[n] for n in names], messages=[q])\n"
    },
    "loop-appends": {
        "agent.py": HEADER
        + "def ask(q):\n    tools = []\n    for n in {'search', 'fetch', 'read'}:\n        tools.append(TOOLS[n])\n    return client.messages.create(model='m', tools=tools, messages=[q])\n"
    },
    "list-of-set": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {'be brief', 'cite sources', 'say so'}\n    return client.messages.create(model='m', system='; '.join(list(names)), messages=[q])\n"
    },
    "set-as-the-argument": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {'search', 'fetch', 'read'}\n    return client.messages.create(model='m', tools=names, messages=[q])\n"
    },
    "listdir-join": {
        "agent.py": HEADER
        + "def ask(q):\n    return client.messages.create(model='m', system='\\n'.join(f for f in os.listdir('skills')), messages=[q])\n"
    },
    "listdir-of-a-parameter": {
        "agent.py": HEADER
        + "def tools_from(folder):\n    return [{'name': f[:-5]} for f in os.listdir(folder)]\n\n\ndef ask(q):\n    return client.messages.create(model='m', tools=tools_from('tools'), messages=[q])\n"
    },
    "path-glob": {
        "agent.py": HEADER
        + "ROOT = Path('skills')\n\n\ndef ask(q):\n    index = '\\n'.join(f'- {p.parent.name}' for p in ROOT.glob('*/SKILL.md'))\n    return client.messages.create(model='m', system='Skills:\\n' + index, messages=[q])\n"
    },
    "path-iterdir-names": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {p.name for p in Path('skills').iterdir()}\n    return client.messages.create(model='m', system=', '.join(names), messages=[q])\n"
    },
    "comprehension-of-str": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {f'tool_{n}' for n in ['a', 'b', 'c']}\n    return client.messages.create(model='m', system=' '.join(names), messages=[q])\n"
    },
    "form-feed-above": {
        "agent.py": HEADER.replace("client =", "\x0c\nclient =")
        + "def ask(q):\n    names = {'search', 'fetch', 'read'}\n    tools = [TOOLS[n] for n in names]\n    return client.messages.create(model='m', tools=tools, messages=[q])\n"
    },
    "crlf-and-bom": {
        "agent.py": "\ufeff"
        + (
            HEADER
            + "def ask(q):\n    names = {'search', 'fetch', 'read'}\n    return client.messages.create(model='m', tools=[TOOLS[n] for n in names], messages=[q])\n"
        ).replace("\n", "\r\n")
    },
    "tabs": {
        "agent.py": HEADER
        + "def ask(q):\n\tnames = {'search', 'fetch', 'read'}\n\tif q:\n\t\ttools = [TOOLS[n]\n\t\t         for n in names]  # one tool per name\n\treturn client.messages.create(model='m', tools=tools, messages=[q])\n"
    },
    "parenthesised": {
        "agent.py": HEADER
        + "def ask(q):\n    names = {'search', 'fetch', 'read'}\n    return client.messages.create(model='m', tools=[TOOLS[n] for n in (names)], messages=[q])\n"
    },
}

# Cases whose fix must not be safe: sorting them could raise or change more than the order.
UNSAFE = {
    "objects": HEADER
    + "class Tool:\n    pass\n\n\ndef ask(q):\n    objs = {Tool(), Tool()}\n    return client.messages.create(model='m', tools=list(objs), messages=[q])\n",
    "dicts-from-a-parameter": HEADER
    + "def ask(q, loaded=({'name': 'a'},)):\n    return client.messages.create(model='m', tools=[t for t in set(map(str, loaded))], messages=[q])\n",
    "either-set": HEADER
    + "def ask(q, load=lambda: {1, 2}):\n    names = {'search'} if q else set(load())\n    return client.messages.create(model='m', tools=[TOOLS.get(n) for n in names], messages=[q])\n",
    "formatted": HEADER
    + "def ask(q):\n    names = {'search', 'fetch'}\n    return client.messages.create(model='m', system=f'tools: {names}', messages=[q])\n",
    "traversable": HEADER
    + "from importlib.resources import files\n\n\ndef ask(q):\n    return client.messages.create(model='m', system=', '.join(p.name for p in files('pkg').iterdir()), messages=[q])\n",
    "annotated": HEADER
    + "def ask(q, names: set[str] = frozenset()):\n    return client.messages.create(model='m', tools=[TOOLS[n] for n in names], messages=[q])\n",
}


def _catalog_cases() -> dict[str, dict[str, str]]:
    out = {}
    for code in ("CL101", "CL102"):
        entry = yaml.safe_load((REPO / "rules" / "catalog" / f"{code}.yaml").read_text(encoding="utf-8"))
        for i, example in enumerate(entry["examples"]["bad"]):
            out[f"catalog-{code}-bad-{i}"] = {"agent.py": example["input"]}
    return out


ALL_CASES = {**CASES, **_catalog_cases()}


def _entry(files: dict[str, str]) -> str:
    return "pkg.agent" if "pkg/agent.py" in files else "agent"


def _run(root: Path, module: str, seed: int) -> list:
    out = root / f"calls-{seed}.json"
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "CALLS_OUT": str(out), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, module, "ask", "question"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, f"the program raised:\n{proc.stderr}"
    return json.loads(out.read_text())


def _multiset(value) -> object:
    """The request with every order removed: strings as multisets of characters, lists as
    multisets of their items."""
    if isinstance(value, str):
        return tuple(sorted(collections.Counter(value).items()))
    if isinstance(value, list):
        return tuple(sorted((_multiset(v) for v in value), key=repr))
    if isinstance(value, dict):
        return tuple(sorted((k, _multiset(v)) for k, v in value.items()))
    return value


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_the_fixed_program_runs_and_sends_the_same_requests_in_a_fixed_order(tmp_path, name):
    files = ALL_CASES[name]
    write_tree(tmp_path, {**FAKES, **DATA, **files})
    module = _entry(files)
    before = _run(tmp_path, module, 0)
    found = check_tree(tmp_path, paths=tuple(sorted({p.split("/")[0] for p in files})))
    fixes = [d.fix for d in found.diagnostics if d.code in ("CL101", "CL102")]
    assert fixes and all(f is not None and f.applicability == Applicability.SAFE for f in fixes), found.diagnostics

    result = check_tree(tmp_path, paths=tuple(sorted({p.split("/")[0] for p in files})), fix=True)
    assert result.fixes_applied >= 1 and result.warnings == []
    assert [d for d in result.diagnostics if d.code in ("CL101", "CL102")] == []
    for rel in files:
        text = (tmp_path / rel).read_bytes().decode("utf-8-sig")
        compile(text, rel, "exec")
    after = [_run(tmp_path, module, seed) for seed in (0, 1, 2, 3)]
    assert _multiset(after[0]) == _multiset(before)  # the same requests but for order
    assert after[1:] == after[:1] * 3  # in one order, whatever the hash seed
    again = check_tree(tmp_path, paths=tuple(sorted({p.split("/")[0] for p in files})), fix=True)
    assert again.fixes_applied == 0


@pytest.mark.parametrize("name", sorted(UNSAFE))
def test_no_safe_fix_where_sorting_could_change_more_than_the_order(name):
    from cachelint.code import check_module

    found = [d for d in check_module("agent.py", UNSAFE[name], None) if d.code in ("CL101", "CL102")]
    assert found, name
    assert all(d.fix is None or d.fix.applicability == Applicability.UNSAFE for d in found), [
        (d.code, d.fix) for d in found
    ]


def test_the_registry_case_is_fixed_in_the_registry(tmp_path):
    """The finding is at the call in agent.py; the fix sorts the names where get_tools iterates
    them (registry.py), not the list of dicts get_tools returns."""
    files = CASES["registry-in-another-module"]
    write_tree(tmp_path, files)
    (d,) = check_tree(tmp_path, paths=("pkg",)).diagnostics
    assert (d.code, d.path, d.line) == ("CL101", "pkg/agent.py", 9)
    assert d.fix is not None and d.fix.applicability == Applicability.SAFE
    assert {e.path for e in d.fix.edits} == {"pkg/registry.py"}
    check_tree(tmp_path, paths=("pkg",), fix=True)
    assert (tmp_path / "pkg/agent.py").read_text() == files["pkg/agent.py"]
    assert "return [TOOLS[n] for n in sorted(ENABLED)]" in (tmp_path / "pkg/registry.py").read_text()


def test_a_fix_in_a_module_that_was_not_given_is_not_written(tmp_path):
    """pre-commit names the changed file only: the module to edit is not among the files given."""
    files = CASES["registry-in-another-module"]
    write_tree(tmp_path, files)
    result = check_tree(tmp_path, paths=("pkg/agent.py",), fix=True)
    assert (tmp_path / "pkg/registry.py").read_text() == files["pkg/registry.py"]
    assert result.warnings == [
        "pkg/agent.py:9: the fix of CL101 edits pkg/registry.py, which is not among the files checked; not fixed"
    ]
    assert [d.code for d in result.diagnostics] == ["CL101"]


def test_reports_name_the_file_a_fix_edits(tmp_path):
    import json

    from cachelint.report.json_report import render_json
    from cachelint.report.sarif import render_sarif

    write_tree(tmp_path, CASES["registry-in-another-module"])
    (d,) = check_tree(tmp_path, paths=("pkg",)).diagnostics
    (record,) = json.loads(render_json([d]))
    assert {e["path"] for e in record["fix"]["edits"]} == {"pkg/registry.py"}
    sarif = json.loads(render_sarif([d]))
    (change,) = sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "pkg/registry.py"
