"""Human outputs. ``concise``: one stable line per finding (``path:line:col: CODE message``).
``full``: the same line, the rule name, the source line with a caret, and the details a check
attached (byte offsets, before/after excerpts, costs). Audits add a per-session summary."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.report.common import SourceLines, headline, name_of, severity_of


def render_concise(diagnostics: Sequence[Diagnostic], summary: Mapping[str, Any] | None = None) -> str:
    out = [headline(d) for d in diagnostics]
    text = "\n".join(out) + ("\n" if out else "")
    if summary:
        # concise stays one line per finding plus the audit's headline; the per-session report,
        # diffs and money are in the full output (the audit's default)
        text += render_summary(summary).split("\n", 1)[0] + "\n"
    return text


def _inline(value: Any) -> str:
    """One line for a nested value: ``key=value`` pairs for mappings, JSON-like for the rest; line
    breaks inside a string are shown escaped (a captured prompt quoted in a detail must not break
    the report's line structure)."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_inline(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return str(value).replace("\r", "\\r").replace("\n", "\\n")


def _format_detail(key: str, value: Any) -> list[str]:
    if isinstance(value, str) and "\n" in value:
        return [f"    {key}:"] + [f"      {ln}" for ln in value.splitlines()]
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (str, int, float)) for v in value):
            return [f"    {key}: " + ", ".join(_inline(v) for v in value)]
        lines = [f"    {key}:"]
        for v in value:
            lines.append(f"      - {_inline(v)}")
        return lines
    if isinstance(value, Mapping):
        lines = [f"    {key}:"]
        for k in value:
            lines.append(f"      {k}: {_inline(value[k])}")
        return lines
    return [f"    {key}: {_inline(value)}"]


def render_full(diagnostics: Sequence[Diagnostic], summary: Mapping[str, Any] | None = None) -> str:
    sources = SourceLines(limit=4 * 1024 * 1024)
    blocks = []
    for d in diagnostics:
        lines = [f"{headline(d)}", f"  {severity_of(d).value} · {d.code} {name_of(d)}"]
        if d.record is None and summary is None:
            # Only check outputs quote the source. An audit (always rendered with its summary)
            # reads captured traffic: a line its reader could not parse was never redacted, so
            # quoting it would print the credentials the readers drop (tests/reliability).
            src = sources.line(d.path, d.line)
            if src is not None and len(src) <= 400:
                lines.append(f"  {d.line:>5} | {src}")
                width = max(1, (d.end_column - d.column) if d.end_line == d.line else len(src) - d.column + 1)
                lines.append("        | " + " " * (d.column - 1) + "^" * min(width, max(1, len(src) - d.column + 1)))
        elif d.record is not None:
            where = f"record {d.record}"
            if d.session is not None:
                where += f", session {d.session}"
            if d.kind:
                where += f", kind {d.kind}"
            lines.append(f"  {where}")
        for key in d.details:
            lines.extend(_format_detail(key, d.details[key]))
        if d.fix is not None:
            lines.append(f"  fix ({d.fix.applicability.value}): {d.fix.description}")
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks) + ("\n" if blocks else "")
    if summary:
        text += ("\n" if blocks else "") + render_summary(summary)
    return text


def render_summary(summary: Mapping[str, Any]) -> str:
    """A plain-text rendering of an audit summary: ``summary['lines']`` when the audit provides
    its own rendering, else the keys and values."""
    if "text" in summary and isinstance(summary["text"], str):
        return summary["text"] if summary["text"].endswith("\n") else summary["text"] + "\n"
    lines = []
    for key in summary:
        lines.extend(_format_detail(key, summary[key]))
    return "\n".join(lines) + "\n"
