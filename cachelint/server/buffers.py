"""One editor buffer checked as ``cachelint check --stdin-filename PATH -`` checks it: its
findings, its text with the safe fixes applied, the edit that suppresses a finding. Nothing here
knows LSP; positions are cachelint's (1-based lines, 1-based columns in characters)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from cachelint.diagnostics import Diagnostic, Edit


@dataclass(frozen=True)
class Buffer:
    """The text of a document as the editor holds it, and the file it stands for."""

    path: Path  # absolute
    text: str
    root: Path  # the workspace folder: configurations are found from the file up, paths shown from here

    @property
    def display(self) -> str:
        try:
            return self.path.relative_to(self.root).as_posix()
        except ValueError:
            return str(self.path)


@dataclass
class Checked:
    """The findings of a buffer, or the error that kept it from being checked (a configuration)."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None
    fixed_text: str | None = None  # with ``fix``: the buffer with its safe fixes (None: none applied)


def is_checked(path: Path) -> bool:
    """Does ``cachelint check`` read this kind of file?"""
    from cachelint.engine import is_python, is_skill_related

    return is_python(path) or is_skill_related(path)


def check_buffer(buffer: Buffer, fix: bool = False) -> Checked:
    """The findings of the buffer (with ``fix``: of the buffer once its safe fixes are applied,
    and that fixed text)."""
    from cachelint.catalog import CatalogError
    from cachelint.config import ConfigError, ConfigResolver
    from cachelint.engine import CheckOptions, StdinInput, run_check

    stdin = StdinInput(data=buffer.text.encode("utf-8"), path=buffer.path, display=buffer.display)
    try:
        resolver = ConfigResolver(buffer.root)
        result = run_check(
            ["-"],
            resolver.for_path(buffer.path),
            CheckOptions(fix=fix, no_cache=True, jobs=1, stdin=stdin),
            buffer.root,
            resolver=resolver,
        )
    except (ConfigError, CatalogError) as exc:
        return Checked(error=str(exc))
    fixed = result.stdin_fixed.decode("utf-8") if result.stdin_fixed is not None else None
    mine = [d for d in result.diagnostics if d.path == buffer.display]
    return Checked(diagnostics=mine, fixed_text=fixed)


def suppression_edit(buffer: Buffer, diagnostic: Diagnostic) -> Edit | None:
    """The edit that adds a suppression of ``diagnostic``'s code for its line (``cachelint.noqa``),
    or None where none can be written (JSON, a line inside a string…)."""
    from cachelint.noqa import NOT_SUPPRESSED_INLINE, add_suppressions, line_edit

    if diagnostic.code in NOT_SUPPRESSED_INLINE:
        return None
    cell = diagnostic.details.get("cell") if diagnostic.details else None
    done = add_suppressions(
        buffer.display, buffer.text, {(cell if isinstance(cell, int) else None, diagnostic.line): {diagnostic.code}}
    )
    return line_edit(buffer.text, done.text) if done.added else None


def notebook_text(cells: Sequence[tuple[str, str]]) -> str:
    """A notebook's JSON from its cells as an editor holds them ((kind, text): ``code`` or
    ``markdown``), cell numbers as in the file (1-based among all cells)."""
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for kind, text in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )
