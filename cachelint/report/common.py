"""Shared helpers of the reporters."""
from __future__ import annotations

import os
import stat

from cachelint.catalog import default_severity, rule_name
from cachelint.diagnostics import Diagnostic, Severity


def severity_of(d: Diagnostic) -> Severity:
    return d.severity or default_severity(d.code)


def location(d: Diagnostic) -> str:
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
        """The line, key-shaped strings masked (``cachelint.masking``: it is file content)."""
        if path not in self._files:
            try:
                if not stat.S_ISREG(os.stat(path).st_mode):
                    raise OSError("not a regular file")  # a FIFO would wait forever for a writer
                with open(path, encoding="utf-8", errors="replace") as handle:
                    self._files[path] = handle.read(self.limit).splitlines()
            except (OSError, ValueError):
                self._files[path] = None
        lines = self._files[path]
        if not lines or number < 1 or number > len(lines):
            return None
        from cachelint.masking import masker

        return masker().mask(lines[number - 1])
