"""JUnit XML as Ruff writes it: one ``testsuite`` per file, one failed ``testcase`` per finding
(``name="org.cachelint.CODE"``, ``classname`` the path without its suffix, ``line`` and
``column``), the message in ``failure@message`` and ``line L, col C, message`` as its text; a run
without findings is one passing ``testcase`` named "No errors found"."""

from __future__ import annotations

from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

from cachelint.diagnostics import Diagnostic
from cachelint.report.common import cell_of


def _classname(path: str) -> str:
    head, sep, tail = path.rpartition("/")
    stem = tail.rsplit(".", 1)[0] if "." in tail.lstrip(".") else tail
    return f"{head}{sep}{stem}"


def _text(value: str) -> str:
    # XML 1.0 forbids most control characters even escaped: a message quoting a prompt may hold them
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 0x20 else f"\\x{ord(ch):02x}" for ch in value)


def _where(d: Diagnostic) -> str:
    cell = cell_of(d)
    return f"line {d.line}, col {d.column}" if cell is None else f"cell {cell}, line {d.line}, col {d.column}"


def render_junit(diagnostics: Sequence[Diagnostic]) -> str:
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    n = len(diagnostics)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    if not by_file:
        lines.append('<testsuites name="cachelint" tests="1" failures="0" errors="0">')
        lines.append(
            '    <testsuite name="cachelint" tests="1" disabled="0" errors="0" failures="0" package="org.cachelint">'
        )
        lines.append('        <testcase name="No errors found" classname="cachelint">')
        lines.append("        </testcase>")
        lines.append("    </testsuite>")
        lines.append("</testsuites>")
        return "\n".join(lines) + "\n"
    lines.append(f'<testsuites name="cachelint" tests="{n}" failures="{n}" errors="0">')
    for path in sorted(by_file):
        found = by_file[path]
        lines.append(
            f'    <testsuite name={quoteattr(_text(path))} tests="{len(found)}" disabled="0" errors="0"'
            f' failures="{len(found)}" package="org.cachelint">'
        )
        for d in found:
            message = _text(d.message)
            lines.append(
                f'        <testcase name="org.cachelint.{d.code}" classname={quoteattr(_text(_classname(path)))}'
                f' line="{d.line}" column="{d.column}">'
            )
            lines.append(
                f"            <failure message={quoteattr(message)}>{escape(f'{_where(d)}, {message}')}</failure>"
            )
            lines.append("        </testcase>")
        lines.append("    </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"
