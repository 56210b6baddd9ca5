"""Reporters: each turns Diagnostics (plus, for audits, a plain-data summary) into text.

They import nothing but ``cachelint.diagnostics`` and ``cachelint.catalog``.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from cachelint.diagnostics import Diagnostic

FORMATS = ("concise", "full", "json", "sarif", "github")
AUDIT_FORMATS = FORMATS + ("html",)


def render(
    fmt: str,
    diagnostics: Sequence[Diagnostic],
    *,
    summary: Mapping[str, Any] | None = None,
    root_uri: str | None = None,
) -> str:
    """Render diagnostics in ``fmt``. ``summary`` is the audit's plain-data summary (sessions,
    usage, money), shown by text and html outputs and embedded in json/sarif properties."""
    if fmt == "concise":
        from cachelint.report.text import render_concise

        return render_concise(diagnostics, summary)
    if fmt == "full":
        from cachelint.report.text import render_full

        return render_full(diagnostics, summary)
    if fmt == "json":
        from cachelint.report.json_report import render_json

        return render_json(diagnostics)
    if fmt == "sarif":
        from cachelint.report.sarif import render_sarif

        return render_sarif(diagnostics, root_uri=root_uri)
    if fmt == "github":
        from cachelint.report.github import render_github

        return render_github(diagnostics)
    if fmt == "html":
        from cachelint.report.html import render_html

        return render_html(diagnostics, summary or {})
    raise ValueError(f"unknown output format {fmt!r}")
