"""Reporters: each turns Diagnostics (plus, for audits, the typed ``AuditSummary``) into text.

They import nothing but ``cachelint.diagnostics``, ``cachelint.catalog`` and the summary types of
``cachelint.payloads``. Which stream the text goes to is the CLI's business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.report.common import RenderOptions

if TYPE_CHECKING:
    from cachelint.payloads import AuditSummary

FORMATS = ("concise", "full", "json", "json-lines", "sarif", "github", "gitlab", "junit")
AUDIT_FORMATS = FORMATS + ("html",)
# Formats for people: they end with the totals (Found N findings ...), which the others leave out.
TEXT_FORMATS = ("concise", "full")

__all__ = ["AUDIT_FORMATS", "FORMATS", "TEXT_FORMATS", "RenderOptions", "render", "render_parts", "render_statistics"]


def render(
    fmt: str,
    diagnostics: Sequence[Diagnostic],
    *,
    summary: "AuditSummary | None" = None,
    root_uri: str | None = None,
    options: RenderOptions = RenderOptions(),
) -> str:
    """Render diagnostics in ``fmt``. ``summary``: the audit's summary (sessions, usage, money),
    shown by the text and html outputs and part of the audit's json object."""
    if fmt == "concise":
        if summary is not None:
            from cachelint.report.audit_text import render_audit_concise

            return render_audit_concise(diagnostics, summary, options)
        from cachelint.report.text import render_concise

        return render_concise(diagnostics, options)
    if fmt == "full":
        if summary is not None:
            from cachelint.report.audit_text import render_audit_full

            return render_audit_full(diagnostics, summary, options)
        from cachelint.report.text import render_full

        return render_full(diagnostics, options)
    if fmt == "json":
        from cachelint.report.json_report import render_json

        return render_json(diagnostics, summary)
    if fmt == "json-lines":
        from cachelint.report.json_report import render_json_lines

        return render_json_lines(diagnostics)
    if fmt == "sarif":
        from cachelint.report.sarif import render_sarif

        return render_sarif(diagnostics, root_uri=root_uri)
    if fmt == "github":
        from cachelint.report.github import render_github

        return render_github(diagnostics)
    if fmt == "gitlab":
        from cachelint.report.gitlab import render_gitlab

        return render_gitlab(diagnostics)
    if fmt == "junit":
        from cachelint.report.junit import render_junit

        return render_junit(diagnostics)
    if fmt == "html":
        from cachelint.payloads import AuditSummary
        from cachelint.report.html import render_html

        return render_html(diagnostics, summary if summary is not None else AuditSummary())
    raise ValueError(f"unknown output format {fmt!r}")


def render_parts(
    fmt: str,
    diagnostics: Sequence[Diagnostic],
    *,
    summary: "AuditSummary | None" = None,
    root_uri: str | None = None,
    options: RenderOptions = RenderOptions(),
) -> Iterable[str]:
    """``render``'s text in pieces to be written as they come: the audit's JSON object a finding
    and a session at a time (its whole text would weigh as much as the run's summary again);
    every other output in one piece."""
    if fmt == "json" and summary is not None:
        from cachelint.report.json_report import json_parts

        return json_parts(diagnostics, summary)
    return (render(fmt, diagnostics, summary=summary, root_uri=root_uri, options=options),)


def render_statistics(fmt: str, diagnostics: Sequence[Diagnostic], options: RenderOptions = RenderOptions()) -> str:
    """``--statistics``: findings per rule, as JSON for the JSON formats (a list of ``code``,
    ``name``, ``count``, ``fixable``, as Ruff writes it), else as a text table."""
    from cachelint.report.text import render_statistics as text_table, statistics

    if fmt in ("json", "json-lines"):
        import json

        rows = statistics(diagnostics, options)
        if fmt == "json-lines":
            return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    return text_table(diagnostics, options)
