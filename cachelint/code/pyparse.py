"""``ast.parse`` that survives a known fault of the interpreter's AST constructor.

CPython 3.11 and early 3.12 keep the AST constructor's recursion count in interpreter-wide state
and do not restore it when a conversion stops on an error (cpython gh-106905, fixed by
gh-106906): after an analysis stopped by its deadline in the middle of a parse, a later parse of
another, valid file in the same process can fail with ``SystemError: AST constructor recursion
depth mismatch``. Parsing is pure, and each parse starts the count afresh, so it is tried once more
before the error is let through (then reported as cachelint's own, never as the file's).
"""

from __future__ import annotations

import ast
from typing import Any

_DEPTH_MISMATCH = "AST constructor recursion depth mismatch"


def parse(source: str, filename: str = "<unknown>", mode: str = "exec", **options: Any) -> Any:
    try:
        return ast.parse(source, filename=filename, mode=mode, **options)
    except SystemError as exc:
        if _DEPTH_MISMATCH not in str(exc):
            raise
    return ast.parse(source, filename=filename, mode=mode, **options)
