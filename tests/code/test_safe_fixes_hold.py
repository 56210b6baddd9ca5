"""A ``sorted(...)`` fix is safe only when the names it relies on are what the analysis took them for
and nothing else can put other kinds of values into what it sorts. Each case is run before and
after ``check --fix`` (and after ``--unsafe-fixes`` where a fix is still offered, to show what it
would break) with a fake SDK: a safe fix never makes the program raise where it did not.

The look-alikes keep their safe fix: a module set that is only iterated, tested with ``in``,
counted, or copied."""

from __future__ import annotations

import pytest
from conftest import check_tree, write_tree
from test_fixes_run import FAKES, _run

from cachelint.code import check_module
from cachelint.diagnostics import Applicability

HEADER = "import anthropic\n\nclient = anthropic.Anthropic()\n\n\n"
CALL = "    return client.messages.create(model='m', system=', '.join(str(n) for n in NAMES), messages=[q])\n"

# Other code reaches the set, or could: the elements are not known to be text.
REACHED = {
    "an alias adds to it": HEADER
    + "NAMES = {'search', 'fetch'}\nALIAS = NAMES\nALIAS.add(None)\n\n\ndef ask(q):\n"
    + CALL,
    "a helper it is passed to adds": HEADER
    + "NAMES = {'search', 'fetch'}\n\n\ndef extend(names):\n    names.add(None)\n\n\nextend(NAMES)\n\n\ndef ask(q):\n"
    + CALL,
    "a register decorator adds classes": HEADER
    + "NAMES = {'search', 'fetch'}\n\n\ndef register(cls):\n    NAMES.add(cls)\n    return cls\n\n\n"
    + "@register\nclass Plugin:\n    pass\n\n\ndef ask(q):\n"
    + CALL,
    "globals() rebinds it": HEADER
    + "NAMES = {'search', 'fetch'}\nglobals()['NAMES'] = {1, 'a'}\n\n\ndef ask(q):\n"
    + CALL,
    "a global statement rebinds it": HEADER
    + "NAMES = {'search', 'fetch'}\n\n\ndef reset():\n    global NAMES\n    NAMES = {1, 'a'}\n\n\nreset()\n\n\ndef ask(q):\n"
    + CALL,
    "|= with values of another kind": HEADER
    + "NAMES = {'search', 'fetch'}\nMORE = {1, 2}\nNAMES |= MORE\n\n\ndef ask(q):\n"
    + CALL,
}

# ``sorted`` is not the builtin where the fix would write it: no fix at all.
SHADOWED = {
    "a module function named sorted": {
        "agent.py": HEADER
        + "def sorted(items, key):\n    return list(items)\n\n\ndef ask(q):\n    NAMES = {'search', 'fetch'}\n"
        + CALL
    },
    "a parameter named sorted": {
        "agent.py": HEADER + "def ask(q, sorted=None):\n    NAMES = {'search', 'fetch'}\n" + CALL
    },
    "a star import": {
        "helpers.py": "def sorted(items, key):\n    return list(items)\n",
        "agent.py": HEADER + "from helpers import *\n\n\ndef ask(q):\n    NAMES = {'search', 'fetch'}\n" + CALL,
    },
}

# Only reads reach the set (or text is added): the fix stays safe, and the fixed program runs.
READ_ONLY = {
    "iterated, tested and counted": HEADER
    + "NAMES = {'search', 'fetch'}\nassert 'search' in NAMES and len(NAMES) == 2\n\n\ndef ask(q):\n"
    + CALL,
    "copied with set()": HEADER + "BASE = {'search', 'fetch'}\n\n\ndef ask(q):\n    NAMES = set(BASE)\n" + CALL,
}


def _fixes(source: str) -> list:
    return [d.fix for d in check_module("agent.py", source, None) if d.code in ("CL101", "CL102")]


def _fixed_runs(tmp_path, files: dict[str, str], **options) -> None:
    write_tree(tmp_path, {**FAKES, **files})
    before = _run(tmp_path, "agent", 0)
    check_tree(tmp_path, paths=tuple(sorted(files)), fix=True, **options)
    after = _run(tmp_path, "agent", 0)  # raises (the assertion in _run) if the fix broke it
    assert len(after) == len(before)


@pytest.mark.parametrize("name", sorted(REACHED))
def test_no_safe_fix_where_other_code_reaches_the_collection(tmp_path, name):
    fixes = _fixes(REACHED[name])
    assert fixes and all(f is None or f.applicability == Applicability.UNSAFE for f in fixes), fixes
    _fixed_runs(tmp_path, {"agent.py": REACHED[name]})
    assert (tmp_path / "agent.py").read_text() == REACHED[name]  # nothing safe to apply


@pytest.mark.parametrize("name", ["an alias adds to it", "a helper it is passed to adds", "globals() rebinds it"])
def test_the_unsafe_fix_is_unsafe_for_a_reason(tmp_path, name):
    """Applied anyway (--unsafe-fixes), the sort meets None or numbers beside text and raises:
    what the unsafe label warns of."""
    write_tree(tmp_path, {**FAKES, "agent.py": REACHED[name]})
    _run(tmp_path, "agent", 0)
    check_tree(tmp_path, paths=("agent.py",), fix=True, unsafe_fixes=True)
    assert "sorted(" in (tmp_path / "agent.py").read_text()
    with pytest.raises(AssertionError, match="TypeError"):
        _run(tmp_path, "agent", 0)


@pytest.mark.parametrize("name", sorted(SHADOWED))
def test_no_fix_where_sorted_is_not_the_builtin(tmp_path, name):
    files = SHADOWED[name]
    assert _fixes(files["agent.py"]) and all(f is None for f in _fixes(files["agent.py"]))
    _fixed_runs(tmp_path, files, unsafe_fixes=True)
    assert (tmp_path / "agent.py").read_text() == files["agent.py"]


@pytest.mark.parametrize("name", sorted(READ_ONLY))
def test_a_collection_only_read_keeps_its_safe_fix(tmp_path, name):
    fixes = _fixes(READ_ONLY[name])
    assert fixes and all(f is not None and f.applicability == Applicability.SAFE for f in fixes), fixes
    _fixed_runs(tmp_path, {"agent.py": READ_ONLY[name]})
    assert "sorted(" in (tmp_path / "agent.py").read_text()
