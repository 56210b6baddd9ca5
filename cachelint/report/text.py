"""Human outputs. ``concise``: one stable line per finding (``path:line:col: CODE [*] message``,
``path:cell N:line:col: ...`` in a notebook, as Ruff writes it;
``[*]``: ``--fix`` would fix it). ``full``: the same line, the severity and rule name, the source
line with a caret, the details a check attached, the fix or a pointer to the rule's page. The
totals (``Found N findings in M files (K files checked).``, what ``--fix`` would do) are
rendered here too; the CLI prints them after the findings, on the same stream.

Audits have their own layout (sessions, then their breaks): ``cachelint.report.audit_text``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, cast

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.report.common import RenderOptions, SourceLines, applicable_fix, cell_of, name_of, severity_of


class Style:
    """ANSI styles, or none (``RenderOptions.color``)."""

    _CODES = {"bold": "1", "dim": "2", "red": "31", "yellow": "33", "blue": "34", "cyan": "36", "green": "32"}

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles or not text:
            return text
        codes = ";".join(self._CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def severity(self, d: Diagnostic, text: str) -> str:
        colour = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "blue"}[severity_of(d)]
        return self(text, "bold", colour)


FIX_MARK = "[*]"
# Details that are places for tools (the cell is in the finding's line; the other lines a
# suppression may sit on; a notebook finding's place in the file): not shown to a reader.
POSITION_DETAILS = frozenset({"cell", "related_lines", "notebook_position"})


def finding_line(d: Diagnostic, options: RenderOptions = RenderOptions()) -> str:
    """``path:line:col: CODE [*] message`` (the marker when ``--fix`` would fix it)."""
    style = Style(options.color)
    sep = style(":", "cyan")
    cell = cell_of(d)
    in_cell = f"cell {cell}{sep}" if cell is not None else ""  # path:cell N:line:col, as Ruff writes it
    where = f"{style(d.path, 'bold')}{sep}{in_cell}{d.line}{sep}{d.column}{sep}"
    mark = f"{style(FIX_MARK, 'cyan')} " if applicable_fix(d, options) else ""
    return f"{where} {style.severity(d, d.code)} {mark}{d.message}"


def render_concise(diagnostics: Sequence[Diagnostic], options: RenderOptions = RenderOptions()) -> str:
    out = [finding_line(d, options) for d in diagnostics]
    return "\n".join(out) + ("\n" if out else "")


def inline(value: Any) -> str:
    """One line for a nested value: ``key=value`` pairs for mappings, JSON-like for the rest; line
    breaks inside a string are shown escaped (a captured prompt quoted in a detail must not break
    the report's line structure)."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={inline(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return str(value).replace("\r", "\\r").replace("\n", "\\n")


def format_detail(key: str, value: Any, indent: str = "    ") -> list[str]:
    if isinstance(value, str) and "\n" in value:
        return [f"{indent}{key}:"] + [f"{indent}  {ln}" for ln in value.splitlines()]
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (str, int, float)) for v in value):
            return [f"{indent}{key}: " + ", ".join(inline(v) for v in value)]
        lines = [f"{indent}{key}:"]
        for v in value:
            lines.append(f"{indent}  - {inline(v)}")
        return lines
    if isinstance(value, Mapping):
        lines = [f"{indent}{key}:"]
        for k in value:
            lines.append(f"{indent}  {k}: {inline(value[k])}")
        return lines
    return [f"{indent}{key}: {inline(value)}"]


def fix_or_help(d: Diagnostic, options: RenderOptions, indent: str = "  ") -> str:
    """The finding's fix, or (no fix) where to read how to fix it by hand."""
    style = Style(options.color)
    if d.fix is not None:
        how = "" if applicable_fix(d, options) else " with --unsafe-fixes"
        return f"{indent}{style('fix', 'cyan')} ({d.fix.applicability.value}{how}): {d.fix.description}"
    return f"{indent}{style('help', 'cyan')}: `cachelint rule {d.code}` says why it breaks the cache and how to fix it"


def render_full(diagnostics: Sequence[Diagnostic], options: RenderOptions = RenderOptions()) -> str:
    sources = SourceLines(limit=4 * 1024 * 1024)
    style = Style(options.color)
    blocks = []
    for d in diagnostics:
        lines = [finding_line(d, options), f"  {severity_of(d).value} · {d.code} {name_of(d)}"]
        if d.record is None:
            src = sources.line(d.path, d.line)
            if src is not None and len(src) <= 400:
                lines.append(f"  {d.line:>5} | {src}")
                width = max(
                    1, (cast(int, d.end_column) - d.column) if d.end_line == d.line else len(src) - d.column + 1
                )
                caret = "^" * min(width, max(1, len(src) - d.column + 1))
                lines.append("        | " + " " * (d.column - 1) + style(caret, "red"))
        else:
            # A finding in a request log quotes no raw line: a line its reader could not parse
            # was never redacted (tests/reliability); its details are redacted excerpts.
            where = f"record {d.record}"
            if d.session is not None:
                where += f", session {d.session}"
            if d.kind:
                where += f", kind {d.kind}"
            lines.append(f"  {where}")
        for key in d.details:
            if key not in POSITION_DETAILS:
                lines.extend(format_detail(key, d.details[key]))
        lines.append(fix_or_help(d, options))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


# --- totals ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Totals:
    """The numbers under a report. ``files``: files checked (``check``) or logs read (``audit``);
    ``files_with_findings``: of those, the files the reported findings are in; ``fixed``: findings
    ``--fix`` removed (None: no ``--fix``); ``baselined``: findings the baseline hid."""

    findings: int
    files_with_findings: int
    files: int
    verb: str = "checked"  # files checked / read
    fixed: int | None = None
    fixable: int = 0  # fixable with --fix under the current options
    fixable_unsafe: int = 0  # fixable only with --unsafe-fixes (not enabled)
    without_fix: tuple[str, ...] = ()  # codes of reported findings that have no fix
    baselined: int = 0
    fixes_by_file: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # --show-fixes


def totals_of(
    diagnostics: Sequence[Diagnostic],
    files: int,
    options: RenderOptions,
    verb: str = "checked",
    fixed: Mapping[str, Mapping[str, int]] | None = None,
    baselined: int = 0,
) -> Totals:
    fixable = sum(1 for d in diagnostics if applicable_fix(d, options))
    unsafe = sum(1 for d in diagnostics if d.fix is not None and not applicable_fix(d, options))
    return Totals(
        findings=len(diagnostics),
        files_with_findings=len({d.path for d in diagnostics}),
        files=files,
        verb=verb,
        fixed=None if fixed is None else sum(n for per in fixed.values() for n in per.values()),
        fixable=fixable,
        fixable_unsafe=unsafe,
        without_fix=tuple(sorted({d.code for d in diagnostics if d.fix is None})),
        baselined=baselined,
        fixes_by_file=fixed or {},
    )


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def render_totals(totals: Totals, options: RenderOptions = RenderOptions(), rule_help: bool = True) -> str:
    """``Found 8 findings in 4 files (8 files checked).``, what ``--fix`` would fix, and where to
    read how to fix the rest. ``rule_help``: the pointer to ``cachelint rule CODE`` (the full
    output has one per finding and leaves it out here)."""
    style = Style(options.color)
    lines = []
    checked = f"{_count(totals.files, 'file')} {totals.verb}"
    if totals.fixed:
        found = totals.findings + totals.fixed
        where = f" in {_count(totals.files_with_findings, 'file')}" if totals.findings else ""
        lines.append(
            f"Found {_count(found, 'finding')} ({totals.fixed:,} fixed, {totals.findings:,} remaining{where}); {checked}."
        )
    elif totals.findings:
        lines.append(
            f"Found {_count(totals.findings, 'finding')} in {_count(totals.files_with_findings, 'file')} ({checked})."
        )
    else:
        lines.append(f"{style('All checks passed!', 'green')} ({checked})")
    if totals.baselined:
        lines.append(
            f"{_count(totals.baselined, 'finding')} accepted in the baseline {'is' if totals.baselined == 1 else 'are'} not shown."
        )
    mark = style(FIX_MARK, "cyan")
    if totals.fixable:
        more = f" ({totals.fixable_unsafe:,} more with `--unsafe-fixes`)" if totals.fixable_unsafe else ""
        flag = "`--fix --unsafe-fixes`" if options.unsafe_fixes else "`--fix`"
        lines.append(f"{mark} {totals.fixable:,} fixable with {flag}{more}.")
    elif totals.fixable_unsafe:
        lines.append(f"No fix available with `--fix` alone ({totals.fixable_unsafe:,} with `--fix --unsafe-fixes`).")
    if rule_help and totals.without_fix:
        codes = ", ".join(totals.without_fix)
        lines.append(f"No automatic fix for {codes}: `cachelint rule CODE` says how to fix each by hand.")
    return "\n".join(lines) + "\n"


def render_fixes(totals: Totals) -> str:
    """``--show-fixes``: what ``--fix`` changed, per file and rule (as Ruff lists it)."""
    if not totals.fixes_by_file:
        return "No fixes applied.\n" if totals.fixed is not None else ""
    from cachelint.catalog import rule_name

    lines = [f"Fixed {_count(sum(n for per in totals.fixes_by_file.values() for n in per.values()), 'finding')}:"]
    for path in sorted(totals.fixes_by_file):
        lines.append(f"- {path}:")
        for code, n in sorted(totals.fixes_by_file[path].items()):
            lines.append(f"    {n} × {code} ({rule_name(code)})")
    return "\n".join(lines) + "\n"


# --- statistics --------------------------------------------------------------------------------


def statistics(diagnostics: Sequence[Diagnostic], options: RenderOptions = RenderOptions()) -> list[dict[str, Any]]:
    """Findings per rule, most frequent first: code, name, count, and whether ``--fix`` fixes them
    all (as Ruff's ``--statistics``)."""
    counts: dict[str, list[int]] = {}
    for d in diagnostics:
        entry = counts.setdefault(d.code, [0, 0])
        entry[0] += 1
        entry[1] += applicable_fix(d, options)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))
    from cachelint.catalog import rule_name

    return [{"code": code, "name": rule_name(code), "count": n, "fixable": fixable == n} for code, (n, fixable) in rows]


def render_statistics(diagnostics: Sequence[Diagnostic], options: RenderOptions = RenderOptions()) -> str:
    rows = statistics(diagnostics, options)
    style = Style(options.color)
    return "".join(
        f"{row['count']:>5}\t{row['code']}\t{style(FIX_MARK, 'cyan') + ' ' if row['fixable'] else ''}{row['name']}\n"
        for row in rows
    )
