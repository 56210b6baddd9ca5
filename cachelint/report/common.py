"""Shared helpers of the reporters."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from typing import Sequence

from cachelint.catalog import default_severity, rule_name
from cachelint.diagnostics import Applicability, Diagnostic, Severity


@dataclass(frozen=True)
class RenderOptions:
    """How the human outputs look. ``unsafe_fixes``: unsafe fixes count as applicable (marked
    ``[*]``), as they do under ``--unsafe-fixes``; ``color``: ANSI styles (the CLI decides: a
    terminal, ``--color``, ``NO_COLOR`` / ``FORCE_COLOR``)."""

    unsafe_fixes: bool = False
    color: bool = False


def applicable_fix(d: Diagnostic, options: RenderOptions) -> bool:
    """Would ``--fix`` (with ``--unsafe-fixes`` when the options say so) apply this finding's fix?"""
    if d.fix is None:
        return False
    return d.fix.applicability == Applicability.SAFE or options.unsafe_fixes


def severity_of(d: Diagnostic) -> Severity:
    return d.severity or default_severity(d.code)


def cell_of(d: Diagnostic) -> int | None:
    """The notebook cell a finding is in (its line and column count in that cell), or None."""
    cell = d.details.get("cell") if d.details else None
    return cell if isinstance(cell, int) and not isinstance(cell, bool) else None


def file_position(d: Diagnostic) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) in the file itself: a notebook finding's place in the
    notebook's JSON text (``details["notebook_position"]``), else the finding's own."""
    where = d.details.get("notebook_position") if d.details else None
    if isinstance(where, dict) and all(
        isinstance(where.get(k), int) for k in ("line", "column", "end_line", "end_column")
    ):
        return where["line"], where["column"], where["end_line"], where["end_column"]
    return d.line, d.column, d.end_line or d.line, d.end_column or d.column


def location(d: Diagnostic) -> str:
    """``path:line:col``, or ``path:cell N:line:col`` in a notebook (as Ruff writes it)."""
    cell = cell_of(d)
    if cell is not None:
        return f"{d.path}:cell {cell}:{d.line}:{d.column}"
    return f"{d.path}:{d.line}:{d.column}"


def headline(d: Diagnostic) -> str:
    """The stable concise line editors parse: ``path:line:col: CODE message``."""
    return f"{location(d)}: {d.code} {d.message}"


def name_of(d: Diagnostic) -> str:
    return rule_name(d.code)


class SourceLines:
    """The lines of the files findings point at, read once per file and only the first
    ``limit`` bytes (a log can be gigabytes; its findings never need its raw lines)."""

    def __init__(self, limit: int = 8 * 1024 * 1024) -> None:
        self.limit = limit
        self._files: dict[str, list[str] | None] = {}

    def line(self, path: str, number: int) -> str | None:
        """The line, key-shaped strings masked (``cachelint.masking``: it is file content). The
        file is masked whole, once: a key wrapped over two lines is recognised in both."""
        if path not in self._files:
            from cachelint.masking import masker

            try:
                if not stat.S_ISREG(os.stat(path).st_mode):
                    raise OSError("not a regular file")  # a FIFO would wait for a writer forever
                with open(path, encoding="utf-8", errors="replace") as handle:
                    self._files[path] = masker().mask(handle.read(self.limit)).splitlines()
            except (OSError, ValueError):
                self._files[path] = None
        lines = self._files[path]
        if not lines or number < 1 or number > len(lines):
            return None
        return lines[number - 1]


def fingerprint_basis(d: Diagnostic, lines: SourceLines) -> str:
    """What identifies a finding across runs: for a request log its rule, file, record, session
    and kind; for a source file its rule, file and the flagged line's text (not its number, so
    that lines added above do not change it)."""
    if d.record is not None:
        basis = f"{d.code}\0{d.path}\0{d.record}\0{d.session}\0{d.kind}"
    else:
        text = (lines.line(d.path, d.line) or "").strip()
        basis = f"{d.code}\0{d.path}\0{text}"
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:32]


def fingerprints(diagnostics: Sequence[Diagnostic], lines: SourceLines | None = None) -> list[str]:
    """One stable identity per finding, ``<hash>:<n>``: the n-th finding (in the order given,
    which is the sorted order of a run) with the same basis. SARIF's partialFingerprints, the
    GitLab report's fingerprint, the JSON ``fingerprint`` and the baseline all use it."""
    lines = lines or SourceLines()
    counts: dict[str, int] = {}
    out = []
    for d in diagnostics:
        base = fingerprint_basis(d, lines)
        counts[base] = counts.get(base, 0) + 1
        out.append(f"{base}:{counts[base]}")
    return out
