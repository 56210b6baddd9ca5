"""A parse that the interpreter's AST constructor fails once with its recursion-count fault
(cpython gh-106905) is tried again; any other SystemError, or the fault twice, goes through."""

from __future__ import annotations

import ast

import pytest

from cachelint.code import pyparse
from cachelint.code.program import parse_python


def failing(times: int, message: str = "AST constructor recursion depth mismatch (before=210, after=227)"):
    real = ast.parse
    calls = {"n": 0}

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= times:
            raise SystemError(message)
        return real(*args, **kwargs)

    return fake, calls


def test_the_fault_once_is_parsed_again(monkeypatch):
    fake, calls = failing(1)
    monkeypatch.setattr(pyparse.ast, "parse", fake)
    program = parse_python("agent.py", "x = 1\n")
    assert not hasattr(program, "code"), program  # a Program, not a diagnostic
    assert calls["n"] == 2


def test_the_fault_twice_goes_through(monkeypatch):
    fake, _calls = failing(2)
    monkeypatch.setattr(pyparse.ast, "parse", fake)
    with pytest.raises(SystemError):
        pyparse.parse("x = 1\n")


def test_another_system_error_is_not_retried(monkeypatch):
    fake, calls = failing(1, "some other fault")
    monkeypatch.setattr(pyparse.ast, "parse", fake)
    with pytest.raises(SystemError):
        pyparse.parse("x = 1\n")
    assert calls["n"] == 1
