"""Suppression comments written and removed: ``check --add-noqa`` (a suppression for every current
finding), the language server's "suppress" code action, and the fix of an unused suppression
(CL004) or of an unknown code in one (CL002). ``cachelint.suppressions`` reads what this writes.

Each kind of file gets the comment its own readers ignore:

- Python, and each code cell of a notebook: ``# cachelint: ignore[CODES]`` at the end of the
  flagged line, else on a line of its own above it. A line that ends inside a string, or with a
  backslash continuation, cannot end with a comment, nor can a line be put after such a line.
- YAML (the front matter of a SKILL.md, a YAML index): ``# cachelint: ignore[CODES]`` on a line
  of its own above the flagged key, with its indentation, else at the end of the line. A finding
  on the first line of a SKILL.md (the front matter's ``---``, which nothing may precede) gets
  ``# cachelint: ignore-file[CODES]`` as the front matter's first line.
- Markdown: ``<!-- cachelint: ignore[CODES] -->`` at the end of the flagged line.
- JSON (marketplace.json, plugin.json) has no comments: per-file ignores or a baseline.

An existing cachelint suppression on the line, or on its own line just above, gets the codes
added instead. Nothing is written that no longer reads as before: Python must compile and keep
every token but its comments, YAML must load to the same data, a notebook must stay the same JSON
but for the sources of the cells changed (and is rewritten only when it is in nbformat's own
layout, so that no other byte moves).
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from cachelint.diagnostics import Diagnostic, Edit
from cachelint.suppressions import (
    ReadsTheSame,
    apply_comment_fixes,
    drop_lines,
    line_end,
    lines_of,
    python_reads_the_same,
)

if TYPE_CHECKING:
    from cachelint.textio import SourceText

_SUPPRESSION = re.compile(r"cachelint\s*:\s*ignore\s*\[([^\]\[]*)\]", re.IGNORECASE)


def _codes_text(codes: Iterable[str]) -> str:
    return ", ".join(sorted(set(codes)))


def _merged(line: str, codes: Iterable[str]) -> str | None:
    """``line`` with ``codes`` added to its cachelint suppression, or None when it has none."""
    match = _SUPPRESSION.search(line)
    if match is None:
        return None
    present = [c.strip() for c in re.split(r"[\s,]+", match.group(1)) if c.strip()]
    merged = list(dict.fromkeys([*present, *sorted(set(codes) - {c.upper() for c in present})]))
    return line[: match.start(1)] + ", ".join(merged) + line[match.end(1) :]


@dataclass
class Added:
    """The text with the suppressions added, and the lines that could take none, with why."""

    text: str
    added: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)


# --- Python ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _PythonLines:
    """What each line of a module allows: a comment at its end, a line of its own after it."""

    open_end: frozenset[int]  # lines whose end is inside a string or continued by a backslash
    comments: dict[int, tuple[int, str]]  # line -> (column, text) of its comment


def _python_lines(text: str) -> _PythonLines | None:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    open_end: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = (tok.start[1], tok.string)
        elif tok.start[0] < tok.end[0] and tok.type not in (tokenize.NL, tokenize.NEWLINE):
            open_end.update(range(tok.start[0], tok.end[0]))  # a string over several lines
    for number, line in enumerate(lines_of(text), start=1):
        if line.rstrip("\r\n").endswith("\\") and number not in comments:
            open_end.add(number)
    return _PythonLines(frozenset(open_end), comments)


def _python_choice(lines: list[str], facts: _PythonLines, number: int, codes: list[str]) -> list[str] | None:
    """The lines with a suppression of ``codes`` for line ``number`` (1-based), or None."""
    index = number - 1
    line = lines[index]
    if number in facts.comments:
        merged = _merged(line, codes)
        if merged is not None:
            return lines[:index] + [merged] + lines[index + 1 :]
    if index > 0 and lines[index - 1].lstrip().startswith("#"):
        merged = _merged(lines[index - 1], codes)
        if merged is not None:
            return lines[: index - 1] + [merged] + lines[index:]
    if number not in facts.open_end:
        body = line.rstrip("\r\n")
        eol = line_end(line) or ("\n" if index + 1 < len(lines) else "")
        return lines[:index] + [f"{body.rstrip()}  # cachelint: ignore[{_codes_text(codes)}]{eol}"] + lines[index + 1 :]
    if index == 0 or (number - 1) not in facts.open_end:
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        eol = line_end(lines[index - 1]) if index > 0 else (line_end(line) or "\n")
        return lines[:index] + [f"{indent}# cachelint: ignore[{_codes_text(codes)}]{eol}"] + lines[index:]
    return None


def add_to_python(text: str, wanted: Mapping[int, Iterable[str]]) -> Added:
    """``text`` (a module, or a notebook cell's Python) with a suppression for each line of
    ``wanted`` (line -> codes)."""
    out = Added(text)
    facts = _python_lines(text)
    if facts is None:
        out.skipped = [(line, "the file does not tokenize as Python") for line in sorted(wanted)]
        return out
    lines = lines_of(text)
    # bottom up: a line put above one finding moves none of the findings above it
    current = lines
    for number in sorted(wanted, reverse=True):
        if not 1 <= number <= len(lines):
            out.skipped.append((number, "no such line"))
            continue
        candidate = _python_choice(current, facts, number, list(wanted[number]))
        if candidate is None:
            out.skipped.append((number, "the line ends inside a string or a continued line"))
            continue
        if not python_reads_the_same(text, "".join(candidate)):
            out.skipped.append((number, "no comment there leaves the code as it is"))
            continue
        current = candidate
        out.added += 1
    out.text = "".join(current)
    return out


# --- YAML and Markdown ---------------------------------------------------------------------------


def front_matter_span(lines: Sequence[str]) -> tuple[int, int] | None:
    """1-based (first, last) lines of a SKILL.md's front matter, its ``---`` lines included."""
    if not lines or lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return 1, index + 1
    return None


def _yaml_data(text: str) -> object:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return list(yaml.load_all(text, Loader=loader))
    except yaml.YAMLError:
        return _UNREADABLE


_UNREADABLE = object()


def _yaml_choices(lines: list[str], index: int, codes: list[str], first: int) -> list[list[str]]:
    """Candidate line lists for a suppression of line ``index`` (0-based) of a YAML region that
    starts at line index ``first``."""
    line = lines[index]
    out = []
    if index > first and lines[index - 1].lstrip().startswith("#"):
        merged = _merged(lines[index - 1], codes)
        if merged is not None:
            out.append(lines[: index - 1] + [merged] + lines[index:])
    merged = _merged(line, codes)
    if merged is not None:
        out.append(lines[:index] + [merged] + lines[index + 1 :])
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    eol = line_end(lines[index - 1]) if index > 0 else "\n"
    out.append(lines[:index] + [f"{indent}# cachelint: ignore[{_codes_text(codes)}]{eol}"] + lines[index:])
    body = line.rstrip("\r\n")
    out.append(
        lines[:index]
        + [f"{body.rstrip()}  # cachelint: ignore[{_codes_text(codes)}]{line_end(line)}"]
        + lines[index + 1 :]
    )
    return out


def add_to_text(text: str, wanted: Mapping[int, Iterable[str]], yaml_file: bool) -> Added:
    """A Markdown file (with or without front matter) or a YAML file, with a suppression for each
    line of ``wanted``."""
    out = Added(text)
    lines = lines_of(text)
    span = None if yaml_file else front_matter_span([line.rstrip("\r\n") for line in lines])
    for number in sorted(wanted, reverse=True):
        codes = list(wanted[number])
        if not 1 <= number <= len(lines):
            out.skipped.append((number, "no such line"))
            continue
        index = number - 1
        if yaml_file or (span is not None and span[0] < number < span[1]):
            region = _whole if yaml_file else _front
            before = _yaml_data(region(lines))
            for candidate in _yaml_choices(lines, index, codes, 0 if yaml_file else 1):
                if before is not _UNREADABLE and _yaml_data(region(candidate)) == before:
                    lines = candidate
                    out.added += 1
                    break
            else:
                out.skipped.append((number, "no comment there leaves the YAML as it is"))
            continue
        if span is not None and number == 1:
            # nothing may precede the front matter's "---": the code is suppressed for the file
            eol = line_end(lines[0]) or "\n"
            lines = [lines[0], f"# cachelint: ignore-file[{_codes_text(codes)}]{eol}", *lines[1:]]
            out.added += 1
            continue
        if span is not None and number == span[1]:
            out.skipped.append((number, "the front matter's closing line takes no comment"))
            continue
        merged = _merged(lines[index], codes)
        if merged is None:
            body = lines[index].rstrip("\r\n")
            merged = f"{body.rstrip()} <!-- cachelint: ignore[{_codes_text(codes)}] -->{line_end(lines[index])}"
        lines = lines[:index] + [merged] + lines[index + 1 :]
        out.added += 1
    out.text = "".join(lines)
    return out


def _whole(lines: Sequence[str]) -> str:
    return "".join(lines)


def _front(lines: Sequence[str]) -> str:
    """The YAML between a SKILL.md's ``---`` lines."""
    span = front_matter_span([line.rstrip("\r\n") for line in lines])
    return "".join(lines[1 : span[1] - 1]) if span else ""


# --- notebooks -----------------------------------------------------------------------------------


def nbformat_text(data: object) -> str:
    """A notebook as Jupyter writes it (nbformat: one-space indent, keys sorted, UTF-8 kept)."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def add_to_notebook(text: str, wanted: Mapping[tuple[int, int], Iterable[str]]) -> Added:
    """A notebook with a suppression for each (cell, line) of ``wanted`` (cells 1-based among all
    cells, lines of the cell), written in the cell's own source."""
    from cachelint.code.program import python_of_cell

    out = Added(text)
    try:
        data = json.loads(text)
        cells = data["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        out.skipped = [(line, f"the notebook cannot be read ({type(exc).__name__})") for _cell, line in wanted]
        return out
    if nbformat_text(data) != text:
        out.skipped = [(line, "the notebook is not in nbformat's layout; not rewritten") for _cell, line in wanted]
        return out
    by_cell: dict[int, dict[int, list[str]]] = {}
    for (cell, line), codes in wanted.items():
        by_cell.setdefault(cell, {})[line] = list(codes)
    for cell, lines in sorted(by_cell.items()):
        entry = cells[cell - 1] if 1 <= cell <= len(cells) and isinstance(cells[cell - 1], dict) else None
        raw = entry.get("source") if entry else None
        source = "".join(raw) if isinstance(raw, list) else raw
        program = python_of_cell(source) if isinstance(source, str) else None
        if entry is None or not isinstance(source, str) or program is None:
            out.skipped.extend((line, f"cell {cell} is not a Python cell") for line in sorted(lines))
            continue
        own = {n: c for n, c in lines.items() if _same_line(source, program, n)}
        out.skipped.extend((n, f"cell {cell}: an IPython line takes no comment") for n in sorted(set(lines) - set(own)))
        # The program (magics as ``pass``) is what must still compile; its changed lines are put
        # back into the cell's source, which holds the same text on those lines.
        done = add_to_python(program, own)
        out.skipped.extend((n, f"cell {cell}: {why}") for n, why in done.skipped)
        new_source = _onto_source(source, program, done.text)
        if new_source is None:
            out.skipped.extend((n, f"cell {cell}: a line of its own in a cell of IPython lines") for n in sorted(own))
        elif done.added:
            entry["source"] = new_source.splitlines(keepends=True) if isinstance(raw, list) else new_source
            out.added += done.added
    out.text = nbformat_text(data)
    return out


def _onto_source(source: str, program: str, new_program: str) -> str | None:
    """The cell's source with the lines the program's edit changed, when the edit kept the line
    count (a comment at a line's end, codes added to one); else None."""
    old, new, lines = program.split("\n"), new_program.split("\n"), source.split("\n")
    if len(old) != len(new) or len(lines) != len(old):
        return None
    return "\n".join(n if o != n else s for s, o, n in zip(lines, old, new))


def _same_line(source: str, program: str, number: int) -> bool:
    a, b = source.split("\n"), program.split("\n")
    return 1 <= number <= min(len(a), len(b)) and a[number - 1] == b[number - 1]


# --- one file, whatever its kind ------------------------------------------------------------------


def add_suppressions(path: str, text: str, wanted: Mapping[tuple[int | None, int], Iterable[str]]) -> Added:
    """``text`` (the file ``path``) with a suppression for each (cell, line) of ``wanted``; cell
    is None but in notebooks."""
    lower = path.lower()
    if lower.endswith(".ipynb"):
        return add_to_notebook(text, {(c or 0, n): v for (c, n), v in wanted.items()})
    lines = {n: v for (_c, n), v in wanted.items()}
    if lower.endswith((".py", ".pyi")):
        return add_to_python(text, lines)
    if lower.endswith((".md", ".markdown", ".txt")):
        return add_to_text(text, lines, yaml_file=False)
    if lower.endswith((".yaml", ".yml")):
        return add_to_text(text, lines, yaml_file=True)
    return Added(text, skipped=[(n, "JSON takes no comments: use per-file-ignores or a baseline") for n in lines])


def line_edit(old: str, new: str) -> Edit | None:
    """The one edit that turns ``old`` into ``new``: the lines between the first and the last that
    differ, replaced (1-based, end exclusive: column 1 of the line after)."""
    a, b = lines_of(old), lines_of(new)
    if a == b:
        return None
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    return Edit(start + 1, 1, end_a + 1, 1, "".join(b[start:end_b]))


def _read_source(path: Path, display: str) -> "tuple[bytes, SourceText] | str":
    """The bytes of a file and its text, or why they cannot be had."""
    from cachelint.textio import decode

    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"{display}: cannot be read ({exc.strerror or exc})"
    source = decode(data, display)
    if isinstance(source, Diagnostic):
        return f"{display}: {source.message}"
    return data, source


def _constant(data: bytes) -> Callable[[bytes], bytes]:
    return lambda _current: data


# --- check --add-noqa ------------------------------------------------------------------------------

# Findings no suppression is written for: an input that could not be read and cachelint's own
# failure are never suppressed inline, and a suppression for a finding about a suppression would
# only hide that the first one is wrong.
NOT_SUPPRESSED_INLINE = frozenset({"CL001", "CL002", "CL003", "CL004"})


@dataclass
class Written:
    """What ``write_suppressions`` did: suppressions added, files changed, lines left, warnings."""

    added: int = 0
    files: int = 0
    warnings: list[str] = field(default_factory=list)


def write_suppressions(diagnostics: Sequence[Diagnostic], cwd: Path, max_size: int) -> Written:
    """Add a suppression for every finding of ``diagnostics`` to its file, each file rewritten
    only while it holds the bytes it had when read here (``fileutil.replace_if_unchanged``)."""
    from cachelint import fileutil
    from cachelint.textio import BOM

    out = Written()
    wanted: dict[str, dict[tuple[int | None, int], set[str]]] = {}
    for d in diagnostics:
        if d.code in NOT_SUPPRESSED_INLINE or d.record is not None or d.path == "-":
            continue
        cell = d.details.get("cell") if d.details else None
        key = (cell if isinstance(cell, int) else None, d.line)
        wanted.setdefault(d.path, {}).setdefault(key, set()).add(d.code)
    for display in sorted(wanted):
        path = Path(cwd) / display
        read = _read_source(path, display)
        if isinstance(read, str):
            out.warnings.append(f"{read}; no suppression added")
            continue
        data, source = read
        done = add_suppressions(display, source.text, wanted[display])
        for line, why in sorted(done.skipped):
            out.warnings.append(f"{display}:{line}: no suppression added: {why}")
        if not done.added or done.text == source.text:
            continue
        new = ((BOM if source.had_bom else "") + done.text).encode("utf-8")
        try:
            if fileutil.replace_if_unchanged(path, fileutil.sha256(data), _constant(new), max_size):
                out.added += done.added
                out.files += 1
        except (fileutil.Skipped, fileutil.Changed, OSError) as exc:
            out.warnings.append(f"{display}: {exc}")
    return out


# --- --fix of the suppressions in Markdown and YAML ------------------------------------------------


def text_reads_the_same(path: str) -> ReadsTheSame:
    """What must hold when a comment is removed from the Markdown or YAML file ``path``: its YAML
    (a YAML file, a SKILL.md's front matter) loads to the same data; a Markdown body has no more
    to it (the comment is gone, nothing else moved)."""
    yaml_file = path.lower().endswith((".yaml", ".yml"))

    def same(old: str, new: str) -> bool:
        region = _whole if yaml_file else _front
        before = _yaml_data(region(lines_of(old)))
        return before is not _UNREADABLE and before == _yaml_data(region(lines_of(new)))

    return same


def fix_text_files(
    diagnostics: Sequence[Diagnostic], fixable: Callable[[Diagnostic], bool], cwd: Path, max_size: int, diff: bool
) -> "TextFixes":
    """Apply (or, with ``diff``, show) the fixes of ``diagnostics`` in Markdown and YAML files
    (those of CL004 and CL002: comments removed); ``fixable(d)`` says which fixes to apply."""
    from cachelint import fileutil
    from cachelint.textio import BOM

    out = TextFixes()
    by_path: dict[str, list] = {}
    for d in diagnostics:
        if d.fix is not None and fixable(d) and d.path.lower().endswith((".md", ".markdown", ".yaml", ".yml")):
            by_path.setdefault(d.path, []).append(d)
    for display in sorted(by_path):
        path = Path(cwd) / display
        read = _read_source(path, display)
        if isinstance(read, str):
            out.warnings.append(f"{read}; not fixed")
            continue
        data, source = read
        kept, emptied, applied, failed = apply_comment_fixes(
            source.text, [d.fix for d in by_path[display]], text_reads_the_same(display)
        )
        for _fix, why in failed:
            out.warnings.append(f"{display}: a suppression was not removed: {why}")
        if not applied:
            continue
        new = ((BOM if source.had_bom else "") + drop_lines(kept, emptied)).encode("utf-8")
        done = [d for d in by_path[display] if d.fix in applied]
        if diff:
            import difflib

            out.diffs.append(
                "".join(
                    difflib.unified_diff(
                        lines_of(data.decode("utf-8", "replace")),
                        lines_of(new.decode("utf-8", "replace")),
                        f"a/{display}",
                        f"b/{display}",
                    )
                )
            )
            out.fixed.extend(done)
            continue
        try:
            if fileutil.replace_if_unchanged(path, fileutil.sha256(data), _constant(new), max_size):
                out.fixed.extend(done)
        except (fileutil.Skipped, OSError) as exc:
            out.warnings.append(f"{display}: {exc}")
    return out


@dataclass
class TextFixes:
    """What ``fix_text_files`` did: the findings fixed, the diffs (``--diff``), the warnings."""

    fixed: list[Diagnostic] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
