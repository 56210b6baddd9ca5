"""Inline suppressions: ``# cachelint: ignore[CL101, CL103]`` and ``# noqa: CL101``.

A suppression applies to its own line and to the line below it (a comment on the line above the
flagged one). A code finding shows on several lines: where the value is made (its line), where it
is put in order and where it reaches the call (``details["related_lines"]``); a suppression on any
of them applies. ``cachelint: ignore-file[CL101]`` anywhere in a file applies to the whole file. The
same text works in Markdown (``<!-- cachelint: ignore[CL202] -->``) and YAML front matter. Codes
are required: a blanket ``# noqa`` is another tool's business and is left alone. An unknown code
inside a cachelint suppression is itself reported (CL002), because a typo there silently keeps a
finding alive; so is a code that suppresses nothing (CL004, as Ruff's RUF100), because it would
hide the next finding of that rule on that line unseen. Both carry the fix that removes the code
(``cachelint.noqa`` writes and removes suppressions).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from cachelint.diagnostics import Applicability, Diagnostic, Edit, Fix

# The codes stop at the next bracket of either kind: ``[^\]]*`` read to the end of the line from
# every ``cachelint: ignore[`` of a line of them (quadratic).
_CACHELINT = re.compile(r"cachelint\s*:\s*ignore(-file)?\s*\[([^\]\[]*)\]", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa\s*:\s*([A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
_CODE = re.compile(r"^CL[0-9]{3}$")


@dataclass(frozen=True)
class Suppression:
    line: int  # 1-based line of the comment
    column: int
    codes: tuple[str, ...]
    explicit: bool  # written for cachelint (not a shared noqa)
    whole_file: bool = False  # ``ignore-file[...]``: every line of the file
    # where the codes are written in the line (1-based columns, end exclusive), for the fix that
    # removes one; the codes as written there
    codes_column: int = 0
    codes_end: int = 0
    written: tuple[str, ...] = ()


def _scan_line(number: int, line: str, offset: int = 0) -> list[Suppression]:
    out = []
    if "cachelint" in line.lower():
        for m in _CACHELINT.finditer(line):
            written = tuple(c.strip() for c in re.split(r"[\s,]+", m.group(2)) if c.strip())
            codes = tuple(_code_or_name(c) for c in written)
            out.append(
                Suppression(
                    number,
                    offset + m.start() + 1,
                    codes,
                    True,
                    whole_file=m.group(1) is not None,
                    codes_column=offset + m.start(2) + 1,
                    codes_end=offset + m.end(2) + 1,
                    written=written,
                )
            )
    if "noqa" in line.lower():
        for m in _NOQA.finditer(line):
            written = tuple(c for c in re.split(r"[\s,]+", m.group(1)) if c)
            codes = tuple(c.upper() for c in written)
            # noqa is shared with flake8/ruff: only our own codes concern us
            if any(c.startswith("CL") for c in codes):
                out.append(
                    Suppression(
                        number,
                        offset + m.start() + 1,
                        tuple(c for c in codes if c.startswith("CL")),
                        False,
                        codes_column=offset + m.start(1) + 1,
                        codes_end=offset + m.end(1) + 1,
                        written=written,
                    )
                )
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
    return _apply(diagnostics, suppressions, path, known_codes, text)


def _apply_notebook(
    diagnostics: Sequence[Diagnostic], text: str, path: str, known_codes: Iterable[str]
) -> list[Diagnostic]:
    per_cell = find_notebook_suppressions(text)
    if not per_cell:
        return list(diagnostics)
    complete = not any(d.code in _NEVER_SUPPRESSED for d in diagnostics)
    known = tuple(known_codes)
    # ``ignore-file`` in any cell is the notebook's: applied over every cell first, cell by cell
    kept: list[Diagnostic] = []
    for cell, found in sorted(per_cell.items()):
        whole = [s for s in found if s.whole_file]
        if whole:
            rest = _apply(diagnostics, whole, path, known, complete=complete)
            diagnostics = [d for d in rest if d.code not in (INVALID_SUPPRESSION, UNUSED_SUPPRESSION)]
            kept.extend(_in_cell(d, cell) for d in rest if d.code in (INVALID_SUPPRESSION, UNUSED_SUPPRESSION))
    by_cell: dict[int | None, list[Diagnostic]] = {}
    for d in diagnostics:
        where = d.details.get("cell") if d.details else None
        by_cell.setdefault(where if isinstance(where, int) else None, []).append(d)
    kept.extend(by_cell.pop(None, []))
    for cell, suppressions in sorted(per_cell.items()):
        lines = [s for s in suppressions if not s.whole_file]
        result = _apply(by_cell.pop(cell, []), lines, path, known, complete=complete)
        kept.extend(_in_cell(d, cell) if d.code in (INVALID_SUPPRESSION, UNUSED_SUPPRESSION) else d for d in result)
    for rest in by_cell.values():
        kept.extend(rest)
    return kept


def _in_cell(d: Diagnostic, cell: int) -> Diagnostic:
    """A finding about a suppression in a notebook's cell: placed in its cell, as the checks' (the
    reporters show ``path.ipynb:cell N:line:col``)."""
    return d.with_changes(details={**d.details, "cell": cell})


def _apply(
    diagnostics: Sequence[Diagnostic],
    suppressions: Sequence[Suppression],
    path: str,
    known_codes: Iterable[str],
    text: str | None = None,
    complete: bool = True,
) -> list[Diagnostic]:
    """The diagnostics no suppression covers, then CL002 for each unknown code and CL004 for each
    code that covered no finding. With ``text`` (a Python file's), each carries the fix that
    removes the code, or the whole suppression when no code of it is left."""
    if not suppressions:
        return list(diagnostics)
    known = set(known_codes)
    covering: dict[int, list[tuple[int, str]]] = {}  # line -> (suppression, code)
    whole: dict[str, list[int]] = {}  # code -> ignore-file suppressions
    extra: list[Diagnostic] = []
    unknown: dict[int, list[str]] = {}
    for i, s in enumerate(suppressions):
        for code in s.codes:
            if code not in known:
                if s.explicit or _CODE.match(code):
                    unknown.setdefault(i, []).append(code)
                continue
            if s.whole_file:
                whole.setdefault(code, []).append(i)
            else:
                covering.setdefault(s.line, []).append((i, code))
                covering.setdefault(s.line + 1, []).append((i, code))
    used: set[tuple[int, str]] = set()
    kept = []
    for d in diagnostics:
        hits = [(i, code) for n in _lines_of(d) for i, code in covering.get(n, ()) if code == d.code]
        if d.code not in _NEVER_SUPPRESSED:
            hits += [(i, d.code) for i in whole.get(d.code, ())]
        if hits:
            used.update(hits)
        else:
            kept.append(d)
    lines = None
    if text is not None and path.lower().endswith((".py", ".pyi", ".md", ".markdown", ".yaml", ".yml")):
        lines = lines_of(text)
    for i, codes in sorted(unknown.items()):
        s = suppressions[i]
        for code in codes:
            # unsafe: the code was meant to name a rule; correcting it keeps the suppression
            fix = _removal(s, {code}, lines, f"remove the unknown code {code}", Applicability.UNSAFE)
            extra.append(
                _about(s, INVALID_SUPPRESSION, f"unknown rule code {code!r} in suppression comment", path, fix)
            )
    # A file whose analysis did not finish (CL001, CL003) has findings missing: nothing is unused.
    if complete and not any(d.code in _NEVER_SUPPRESSED for d in diagnostics):
        for i, s in enumerate(suppressions):
            unused = [c for c in dict.fromkeys(s.codes) if c in known and (i, c) not in used]
            if not unused:
                continue
            where = "in this file" if s.whole_file else "on this line or the next"
            fix = _removal(s, set(unused), lines, f"remove the unused {', '.join(unused)}")
            message = f"unused suppression of {', '.join(unused)}: no such finding {where}"
            extra.append(_about(s, UNUSED_SUPPRESSION, message, path, fix, {"codes": unused}))
    return kept + extra


def _about(
    s: Suppression, code: str, message: str, path: str, fix: Fix | None, details: dict | None = None
) -> Diagnostic:
    """A finding about the suppression ``s`` (CL002, CL004), at the suppression."""
    return Diagnostic(
        code=code, message=message, path=path, line=s.line, column=s.column, fix=fix, details=details or {}
    )


INVALID_SUPPRESSION = "CL002"
UNUSED_SUPPRESSION = "CL004"


def _removal(
    s: Suppression,
    codes: set[str],
    lines: Sequence[str] | None,
    description: str,
    applicability: Applicability = Applicability.SAFE,
) -> Fix | None:
    if lines is None or not 1 <= s.line <= len(lines) or not s.written:
        return None
    edit = removal_edit(s, codes, lines[s.line - 1], _code_or_name)
    return None if edit is None else Fix(description, (edit,), applicability)


def _lines_of(d: Diagnostic) -> list[int]:
    """The line of a finding and the other lines where the user sees it (a code finding's call and
    argument, where its value is put in order: ``details["related_lines"]``)."""
    related = d.details.get("related_lines") if d.details else None
    if not isinstance(related, list):
        return [d.line]
    return [d.line, *(n for n in related if isinstance(n, int))]


def apply_text_file_suppressions(
    diagnostics: Sequence[Diagnostic],
    read_text: "Callable[[str], str | None]",
    known_codes: Iterable[str],
    also: Sequence[str] = (),
) -> list[Diagnostic]:
    """The suppressions of the files other than Python and notebooks (Markdown, YAML front
    matter, plugin manifests): the findings of the skill checks, grouped by file, against the
    comments in that file (``<!-- cachelint: ignore[CL204] -->``, ``# cachelint: ignore[CL202]``).
    Python files and notebooks are done per file where they are analysed; findings about
    unreadable inputs (CL001) or cachelint's own failures (CL003) are never suppressed here.
    ``read_text``: the text of a displayed path, or None when it cannot be read. ``also``: the
    other files of the run, whose suppressions are unused (CL004) since they have no finding."""
    by_path: dict[str, list[Diagnostic]] = {}
    kept: list[Diagnostic] = []
    for d in diagnostics:
        if d.code in _NEVER_SUPPRESSED or d.path.endswith((".py", ".pyi", ".ipynb")):
            kept.append(d)
        else:
            by_path.setdefault(d.path, []).append(d)
    known = tuple(known_codes)
    # skill checks that did not finish (a file they could not read, their tree's time bound,
    # their own failure) leave findings unknown: no suppression is called unused then
    finished = not any(d.code in _NEVER_SUPPRESSED for d in kept)
    for path in also if finished else ():
        if not path.endswith((".py", ".pyi", ".ipynb", ".json")):
            by_path.setdefault(path, [])
    for path in sorted(by_path):
        found = by_path[path]
        text = read_text(path)
        kept.extend(found if text is None else apply_suppressions(found, text, path, known))
    return kept


_NEVER_SUPPRESSED = frozenset({"CL001", "CL003"})


# --- removing a suppression's codes (the fix of CL002 and CL004, applied by the fixer in Python
# files and by ``cachelint.noqa`` in Markdown and YAML) ---------------------------------------------

# What must hold of a file's text after an edit: (old text, new text) -> it reads the same.
ReadsTheSame = Callable[[str, str], bool]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines_of(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them, each with its end (not split at form feeds)."""
    return _LINE.findall(text)


def line_end(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _code_tokens(text: str) -> list[tuple[int, str]] | None:
    try:
        return [
            (t.type, t.string)
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL)
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None


def python_reads_the_same(old: str, new: str) -> bool:
    """``new`` compiles, and holds the tokens of ``old`` but for comments and blank lines."""
    try:
        compile(new, "<suppressed>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    before = _code_tokens(old)
    return before is not None and before == _code_tokens(new)


def removal_edit(suppression: Suppression, codes: set[str], line: str, code_of: Callable[[str], str]) -> Edit | None:
    """The edit of ``line`` (the suppression's, with its end) that removes ``codes`` from the
    suppression ``suppression`` (``cachelint.suppressions.Suppression``): the codes alone when
    others stay, else the whole comment (with the reason written after it), else the whole line
    when nothing else is on it. ``code_of`` reads a written code or rule name as its code. An edit
    that replaces text (not an insertion) is a comment edit (``is_comment_fix``)."""
    # a shared noqa keeps the other linters' codes (they are in ``written``, not in ``codes``)
    keep = [w for w in suppression.written if code_of(w) not in codes]
    number = suppression.line
    if keep:
        return Edit(number, suppression.codes_column, number, suppression.codes_end, ", ".join(keep))
    body = line.rstrip("\r\n")
    opening = body.rfind("<!--", 0, suppression.column - 1)
    closing = body.find("-->", suppression.codes_end - 1)
    if opening != -1 and closing != -1:  # Markdown: the HTML comment, the reason in it included
        start, end = opening, closing + 3
    else:
        start = body.rfind("#", 0, suppression.column - 1)
        if start == -1:
            return None
        end = body.find("#", suppression.codes_end)
        end = len(body) if end == -1 else end
    while start > 0 and body[start - 1] in " \t":
        start -= 1
    rest = body[:start] + (body[end:] if end < len(body) else "")
    if not rest.strip():
        return Edit(number, 1, number + 1, 1, "")
    if end < len(body):  # another comment follows on the line: it keeps its place
        return Edit(number, start + 1, number, end + 1, "  " if start > 0 else "")
    return Edit(number, start + 1, number, len(body) + 1, "")


def is_comment_fix(fix: Fix) -> bool:
    """The fix removes text (a suppression's code or comment), as no fix of the code checks does
    (they insert text around expressions)."""
    return any((e.line, e.column) != (e.end_line, e.end_column) for e in fix.edits)


def apply_comment_fixes(
    text: str, fixes: Sequence[Fix], reads_the_same: ReadsTheSame | None = None
) -> tuple[str, set[int], list[Fix], list[tuple[Fix, str]]]:
    """``text`` with the comment fixes applied, lines removed whole left empty (so that the
    positions of other fixes stay valid; ``drop_lines`` removes them after); the lines emptied,
    the fixes applied, and those not applied with why. ``reads_the_same(old, new)``: what must
    hold of each result (default: a Python module with the same code)."""
    same = reads_the_same or python_reads_the_same
    lines = lines_of(text)
    emptied: set[int] = set()
    applied: list[Fix] = []
    failed: list[tuple[Fix, str]] = []
    ordered = sorted(fixes, key=lambda f: (f.edits[0].line, f.edits[0].column), reverse=True)
    for fix in ordered:
        if len(fix.edits) != 1:
            failed.append((fix, "a comment fix is one edit"))
            continue
        (e,) = fix.edits
        if not 1 <= e.line <= len(lines):
            failed.append((fix, "no such line"))
            continue
        line = lines[e.line - 1]
        eol = line_end(line)
        body = line[: len(line) - len(eol)]
        if (e.end_line, e.end_column) == (e.line + 1, 1) and e.column == 1 and not e.content:
            candidate = lines[: e.line - 1] + [eol] + lines[e.line :]
            marked = {e.line}
        elif e.end_line == e.line and e.end_column <= len(body) + 1:
            candidate = (
                lines[: e.line - 1]
                + [body[: e.column - 1] + e.content + body[e.end_column - 1 :] + eol]
                + lines[e.line :]
            )
            marked = set()
        else:
            failed.append((fix, "the edit is not within one line"))
            continue
        if not same("".join(lines), "".join(candidate)):
            failed.append((fix, "removing it would change what the file says"))
            continue
        lines = candidate
        emptied |= marked
        applied.append(fix)
    return "".join(lines), emptied, applied, failed


def drop_lines(text: str, numbers: set[int]) -> str:
    """``text`` without the lines ``numbers`` (1-based) that are empty."""
    return "".join(line for number, line in enumerate(lines_of(text), start=1) if number not in numbers or line.strip())
