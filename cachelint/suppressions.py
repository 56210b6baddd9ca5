"""Inline suppressions: ``# cachelint: ignore[CL101, CL103]`` and ``# noqa: CL101``.

A suppression applies to its own line and to the line below it (a comment on the line above the
flagged one). A code finding shows on several lines: where the value is made (its line), where it
is put in order and where it reaches the call (``details["related_lines"]``); a suppression on any
of them applies. The same text works in Markdown (``<!-- cachelint: ignore[CL202] -->``) and YAML
front matter. Codes are required: a blanket ``# noqa`` is another tool's business and is left
alone. An unknown code inside a cachelint suppression is itself reported (CL002), because a typo
there silently keeps a finding alive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from cachelint.diagnostics import Diagnostic

# The codes stop at the next bracket of either kind: ``[^\]]*`` read to the end of the line from
# every ``cachelint: ignore[`` of a line of them (quadratic).
_CACHELINT = re.compile(r"cachelint\s*:\s*ignore\s*\[([^\]\[]*)\]", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa\s*:\s*([A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
_CODE = re.compile(r"^CL[0-9]{3}$")


@dataclass(frozen=True)
class Suppression:
    line: int  # 1-based line of the comment
    column: int
    codes: tuple[str, ...]
    explicit: bool  # written for cachelint (not a shared noqa)


def _scan_line(number: int, line: str, offset: int = 0) -> list[Suppression]:
    out = []
    if "cachelint" in line.lower():
        for m in _CACHELINT.finditer(line):
            codes = tuple(_code_or_name(c) for c in re.split(r"[\s,]+", m.group(1)) if c.strip())
            out.append(Suppression(number, offset + m.start() + 1, codes, True))
    if "noqa" in line.lower():
        for m in _NOQA.finditer(line):
            codes = tuple(c.upper() for c in re.split(r"[\s,]+", m.group(1)) if c)
            # noqa is shared with flake8/ruff: only our own codes concern us
            codes = tuple(c for c in codes if c.startswith("CL"))
            if codes:
                out.append(Suppression(number, offset + m.start() + 1, codes, False))
    return out


def _code_or_name(text: str) -> str:
    """A code written in a suppression (any case), or a rule name (``unordered-tools``) as its code."""
    text = text.strip()
    if "-" in text:
        from cachelint.catalog import code_of

        return code_of(text) or text
    return text.upper()


_NOQA_COLON = re.compile(r"noqa\s*:", re.IGNORECASE)
_OUR_CODE = re.compile(r"\bCL[0-9]", re.IGNORECASE)


def _noqa_names_our_code(text: str) -> bool:
    """``noqa:`` followed on its line by one of our codes (what ``noqa\\s*:[^\\n]*?\\bCL[0-9]``
    searched for). The rest of a line is searched once: after a later ``noqa:`` of the same line
    it is part of what was searched already (the expression read it again from each)."""
    searched_to = -1  # the end of the line whose rest was searched last, in vain
    for m in _NOQA_COLON.finditer(text):
        if m.end() <= searched_to:
            continue  # the same line: no line break between the two
        end = text.find("\n", m.end())
        end = len(text) if end == -1 else end
        if _OUR_CODE.search(text, m.end(), end) is not None:
            return True
        searched_to = end
    return False


def _mentions_suppression(text: str) -> bool:
    """Cheap test before any line or token scan: ``cachelint`` anywhere, or a ``noqa`` that names
    one of our codes. Projects full of ``# noqa: E501`` for other linters must not pay for a
    tokenize pass per file (measured: 1.0 s of CPU on the SDK corpus)."""
    lowered = text.lower()
    if "cachelint" in lowered:
        return True
    return "noqa" in lowered and _noqa_names_our_code(text)


def find_suppressions(text: str) -> list[Suppression]:
    """Suppressions anywhere in the text (Markdown, YAML, plain text)."""
    if not _mentions_suppression(text):
        return []
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        out.extend(_scan_line(number, line))
    return out


def find_python_suppressions(text: str) -> list[Suppression]:
    """Suppressions in Python comments only: a string that happens to contain
    ``# noqa: CL101`` (a test, a docstring) is not a suppression. Falls back to the plain text
    scan when the source does not tokenize (the file then has a CL001 anyway)."""
    if not _mentions_suppression(text):
        return []
    import io
    import tokenize

    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and _mentions_suppression(tok.string):
                out.extend(_scan_line(tok.start[0], tok.string, tok.start[1]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return find_suppressions(text)
    return out


def find_notebook_suppressions(text: str) -> dict[int, list[Suppression]]:
    """Suppressions per code cell of a notebook (1-based cell index among all cells), with lines
    counted within the cell, as the code checks report them (``details.cell``)."""
    if not _mentions_suppression(text):
        return {}
    import json

    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError, RecursionError):
        return {}
    out: dict[int, list[Suppression]] = {}
    for index, cell in enumerate(cells if isinstance(cells, list) else [], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(s) for s in source)
        if isinstance(source, str) and _mentions_suppression(source):
            found = find_python_suppressions(source)
            if found:
                out[index] = found
    return out


def apply_suppressions(
    diagnostics: Sequence[Diagnostic], text: str, path: str, known_codes: Iterable[str]
) -> list[Diagnostic]:
    """Drop suppressed diagnostics of one file; add CL002 for unknown codes in suppressions.

    Python files are read by their comments, notebooks cell by cell, other files as text."""
    if path.endswith(".ipynb"):
        return _apply_notebook(diagnostics, text, path, known_codes)
    if path.endswith((".py", ".pyi")):
        suppressions = find_python_suppressions(text)
    else:
        suppressions = find_suppressions(text)
    return _apply(diagnostics, suppressions, path, known_codes)


def _apply_notebook(
    diagnostics: Sequence[Diagnostic], text: str, path: str, known_codes: Iterable[str]
) -> list[Diagnostic]:
    per_cell = find_notebook_suppressions(text)
    if not per_cell:
        return list(diagnostics)
    kept: list[Diagnostic] = []
    by_cell: dict[int | None, list[Diagnostic]] = {}
    for d in diagnostics:
        cell = d.details.get("cell") if d.details else None
        by_cell.setdefault(cell if isinstance(cell, int) else None, []).append(d)
    kept.extend(by_cell.pop(None, []))
    for cell, suppressions in sorted(per_cell.items()):
        result = _apply(by_cell.pop(cell, []), suppressions, path, known_codes)
        for d in result:
            if d.code == "CL002":
                d = d.with_changes(details={"cell": cell})
            kept.append(d)
    for rest in by_cell.values():
        kept.extend(rest)
    return kept


def _apply(
    diagnostics: Sequence[Diagnostic], suppressions: Sequence[Suppression], path: str, known_codes: Iterable[str]
) -> list[Diagnostic]:
    if not suppressions:
        return list(diagnostics)
    known = set(known_codes)
    by_line: dict[int, set[str]] = {}
    extra: list[Diagnostic] = []
    for s in suppressions:
        for code in s.codes:
            if code not in known:
                if s.explicit or _CODE.match(code):
                    extra.append(
                        Diagnostic(
                            code="CL002",
                            message=f"unknown rule code {code!r} in suppression comment",
                            path=path,
                            line=s.line,
                            column=s.column,
                        )
                    )
                continue
            by_line.setdefault(s.line, set()).add(code)
            by_line.setdefault(s.line + 1, set()).add(code)
    kept = [d for d in diagnostics if not any(d.code in by_line.get(n, ()) for n in _lines_of(d))]
    return kept + extra


def _lines_of(d: Diagnostic) -> list[int]:
    """The line of a finding and the other lines where the user sees it (a code finding's call and
    argument, where its value is put in order: ``details["related_lines"]``)."""
    related = d.details.get("related_lines") if d.details else None
    if not isinstance(related, list):
        return [d.line]
    return [d.line, *(n for n in related if isinstance(n, int))]


def apply_text_file_suppressions(
    diagnostics: Sequence[Diagnostic], read_text: "Callable[[str], str | None]", known_codes: Iterable[str]
) -> list[Diagnostic]:
    """The suppressions of the files other than Python and notebooks (Markdown, YAML front
    matter, plugin manifests): the findings of the skill checks, grouped by file, against the
    comments in that file (``<!-- cachelint: ignore[CL204] -->``, ``# cachelint: ignore[CL202]``).
    Python files and notebooks are done per file where they are analysed; findings about
    unreadable inputs (CL001) or cachelint's own failures (CL003) are never suppressed here.
    ``read_text``: the text of a displayed path, or None when it cannot be read."""
    by_path: dict[str, list[Diagnostic]] = {}
    kept: list[Diagnostic] = []
    for d in diagnostics:
        if d.code in _NEVER_SUPPRESSED or d.path.endswith((".py", ".pyi", ".ipynb")):
            kept.append(d)
        else:
            by_path.setdefault(d.path, []).append(d)
    known = tuple(known_codes)
    for path in sorted(by_path):
        found = by_path[path]
        text = read_text(path)
        kept.extend(found if text is None else apply_suppressions(found, text, path, known))
    return kept


_NEVER_SUPPRESSED = frozenset({"CL001", "CL003"})
