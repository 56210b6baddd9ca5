"""From a file's text to one parsed program: a Python module, or a notebook's code cells joined in
order (the kernel runs them as one program, so flows cross cells). Unparseable input becomes CL001.

Positions: ast gives ``col_offset`` in UTF-8 bytes; diagnostics want 1-based character columns.
``Program.position`` converts, and for notebooks maps a program line back to (cell, line in cell).
"""
from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import dataclass, field

from cachelint.diagnostics import Diagnostic, unreadable

# IPython syntax that is not Python: line magics (%time), shell escapes (!ls), help (obj?).
_MAGIC_LINE = re.compile(r"^(\s*)(?:[%!]|\?\?|\?)")
_SHELL_ASSIGN = re.compile(r"^(\s*[A-Za-z_][A-Za-z0-9_]*\s*=\s*)[%!]")
_HELP_SUFFIX = re.compile(r"^(\s*)[A-Za-z_][\w.]*\?\??\s*$")
# PEP 695 (3.12): "type X = ...", "def f[T](...)", "class C[T]:".
_NEWER_SYNTAX = re.compile(r"^\s*(?:type\s+[A-Za-z_]\w*\s*(?:\[|=)|(?:async\s+)?def\s+\w+\[|class\s+\w+\[)")
# A template placeholder or tag ({{ name }}, {% if %}): a project generator's file, not Python.
_TEMPLATE = re.compile(r"\{\{[^{}\n]*\}\}|\{%[^\n]*%\}")
# Cell magics whose body is still Python (the others run another language or the shell).
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun", "%%debug")


@dataclass
class CellSpan:
    index: int  # 1-based among all cells of the notebook
    first_line: int  # first program line of this cell


@dataclass
class Program:
    path: str
    tree: ast.Module
    lines: list[str]  # program text lines (for byte -> character columns and fixes)
    cells: list[CellSpan] = field(default_factory=list)  # empty for a plain Python file

    @property
    def is_notebook(self) -> bool:
        return bool(self.cells)

    def char_column(self, line: int, byte_col: int) -> int:
        """1-based character column of an ast (line, UTF-8 byte offset)."""
        if 1 <= line <= len(self.lines):
            text = self.lines[line - 1]
            if not text.isascii():
                return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1
        return byte_col + 1

    def locate(self, line: int) -> tuple[int | None, int]:
        """(cell index or None, line within the cell) of a program line."""
        if not self.cells:
            return None, line
        cell = self.cells[0]
        for candidate in self.cells:
            if candidate.first_line <= line:
                cell = candidate
            else:
                break
        return cell.index, line - cell.first_line + 1


def _syntax_error(path: str, exc: SyntaxError, line_offset: int = 0, cell: int | None = None) -> Diagnostic:
    line = (exc.lineno or 1) + line_offset
    column = exc.offset or 1
    message = f"syntax error: {exc.msg}"
    if exc.text and _NEWER_SYNTAX.match(exc.text):
        message += f" (this looks like syntax newer than the Python {sys.version_info.major}.{sys.version_info.minor} that runs cachelint)"
    elif exc.text and _TEMPLATE.search(exc.text) or _TEMPLATE.search(path):
        message += " (this looks like a template, Jinja or cookiecutter, not Python: exclude it with extend-exclude)"
    if cell is not None:
        return unreadable(path, f"cell {cell}: {message}", line=exc.lineno or 1, column=column, details={"cell": cell})
    return unreadable(path, message, line=line, column=max(1, column))


def parse_python(path: str, text: str) -> Program | Diagnostic:
    try:
        tree = ast.parse(text, filename=path, type_comments=False)
    except SyntaxError as exc:
        return _syntax_error(path, exc)
    except (RecursionError, MemoryError):
        return unreadable(path, "too deeply nested to parse")
    except ValueError as exc:  # e.g. source with NUL bytes (the reader reports those first)
        return unreadable(path, f"cannot parse: {exc}")
    return Program(path=path, tree=tree, lines=text.splitlines())


def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def python_of_cell(source: str) -> str | None:
    """The cell as Python, line for line: IPython magics and shell escapes become ``pass`` (or
    ``None`` on the right of an assignment) so that positions stay where the user sees them.
    None for a cell magic that runs something other than Python (%%bash, %%html...)."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        if not lines[0].lstrip().startswith(_PYTHON_CELL_MAGICS):
            return None
        lines[0] = ""
    out = []
    for line in lines:
        m = _SHELL_ASSIGN.match(line)
        if m:
            out.append(m.group(1) + "None")
            continue
        m = _MAGIC_LINE.match(line) or _HELP_SUFFIX.match(line)
        if m:
            out.append(m.group(1) + "pass")
            continue
        out.append(line)
    return "\n".join(out)


def parse_notebook(path: str, text: str) -> tuple[Program | None, list[Diagnostic]]:
    """The code cells as one program, plus CL001 for invalid JSON or a cell that does not parse
    (the other cells are still analysed)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", 1)
        column = getattr(exc, "colno", 1)
        msg = getattr(exc, "msg", str(exc))
        return None, [unreadable(path, f"not a valid notebook: invalid JSON: {msg}", line=line, column=column)]
    except RecursionError:  # Python 3.13+ bounds the C decoder's depth whatever the recursion limit
        return None, [unreadable(path, "not a valid notebook: JSON nested too deeply to read")]
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return None, [unreadable(path, "not a valid notebook: no 'cells' list")]
    problems: list[Diagnostic] = []
    body: list[ast.stmt] = []
    lines: list[str] = []
    spans: list[CellSpan] = []
    for index, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = python_of_cell(_cell_source(cell))
        if source is None or not source.strip():
            continue
        try:
            tree = ast.parse(source, filename=f"{path}#cell{index}")
        except SyntaxError as exc:
            problems.append(_syntax_error(path, exc, cell=index))
            continue
        except (RecursionError, MemoryError, ValueError):
            problems.append(unreadable(path, f"cell {index}: too deeply nested to parse", details={"cell": index}))
            continue
        offset = len(lines)
        if offset:
            ast.increment_lineno(tree, offset)
        spans.append(CellSpan(index=index, first_line=offset + 1))
        cell_lines = source.split("\n")
        lines.extend(cell_lines)
        body.extend(tree.body)
    module = ast.Module(body=body, type_ignores=[])
    return Program(path=path, tree=module, lines=lines, cells=spans), problems


def syntax_problems(path: str, text: str) -> list[Diagnostic]:
    """Whether a Python file parses, without building its tree: what the check reports for a file
    the prefilter skips. ``symtable`` runs the same parser as ``ast.parse`` but builds no Python
    objects (0.6x its time on the SDK corpus of issue 7); it also rejects a few programs that parse
    (``nonlocal`` at module level...), so any error it raises is decided again by ``ast.parse``,
    which gives the exact CL001."""
    import symtable

    try:
        symtable.symtable(text, path, "exec")
        return []
    except Exception:  # SyntaxError, RecursionError, ValueError (NUL bytes)...
        pass
    parsed = parse_python(path, text)
    return [parsed] if isinstance(parsed, Diagnostic) else []


class KnownToParse:
    """Python texts this process has parsed without error, by path and text.

    The engine summarises a module that another file imports, then checks it: when the check's
    prefilter skips the file, all it needs is whether the text parses, which the summary found out
    if it ran in the same process (always in a run small enough to stay in-process, about half of
    the time in a pool of two workers). Only keys are kept: holding the trees themselves for the
    check that follows cost more than it saved (on the SDK corpus of issue 7, keeping the last 1M
    characters' trees made the in-process cold check 1.6x slower: the cyclic garbage collector
    walks them again and again), and a file the prefilter lets through is parsed again."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        # (path, len, hash): a wrong hit would need two texts of the same path and length whose
        # 64-bit keyed hashes (a random key per process) collide.
        self._keys: set[tuple[str, int, int]] = set()

    def add(self, path: str, text: str) -> None:
        if len(self._keys) >= self.max_entries:  # a long-lived process: start over rather than grow
            self._keys.clear()
        self._keys.add((path, len(text), hash(text)))

    def __contains__(self, item: tuple[str, str]) -> bool:
        path, text = item
        return (path, len(text), hash(text)) in self._keys
