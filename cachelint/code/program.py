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
from typing import Iterator

from cachelint.code import pyparse
from cachelint.diagnostics import Diagnostic, unreadable

# IPython syntax that is not Python: line magics (%time), shell escapes (!ls), help (obj?).
_MAGIC_LINE = re.compile(r"^(\s*)(?:[%!]|\?\?|\?)")
_SHELL_ASSIGN = re.compile(r"^(\s*[A-Za-z_][A-Za-z0-9_]*\s*=\s*)[%!]")
_HELP_SUFFIX = re.compile(r"^(\s*)[A-Za-z_][\w.]*\?\??\s*$")
# PEP 695 (3.12): "type X = ...", "def f[T](...)", "class C[T]:".
_NEWER_SYNTAX = re.compile(r"^\s*(?:type\s+[A-Za-z_]\w*\s*(?:\[|=)|(?:async\s+)?def\s+\w+\[|class\s+\w+\[)")
# What later grammars changed, anywhere in a file: an f-string or template-string prefix, a type
# statement, type parameters, except with a list or a star, a star in a subscript. (Spaces before
# ``type`` stop at a line break: ``^\s*`` crossed them, and a run of blank lines was read again from
# each of its lines, quadratic in the run.)
_NEWER_CANDIDATE = re.compile(
    r"(?im)(?<![\w.])[rbt]?[ft][rbt]?['\"]|^[^\S\n]*type\s|\bdef\s+\w+\[|\bclass\s+\w+\["
    r"|^[^\S\n]*except\b[^:\n]*[,*]|\[[^\S\n]*\*(?!\*)"
)
# A template placeholder or tag ({{ name }}, {% if %}), a <slot> inside a name (`def test_<entry_point>_x`:
# the slot touches a name character, as a spaced comparison `a < b > c` does not), or a path named
# *.template.py (deer-flow's templates/anchor.template.py): a generator's file, not Python.
# (A ``{% … %}`` tag is looked for by ``_has_tag``: ``\{%[^\n]*%\}`` read the rest of the line from
# every ``{%``, quadratic on a line of them.)
_TEMPLATE = re.compile(
    r"\{\{[^{}\n]*\}\}"
    r"|(?<=[A-Za-z0-9_])<[A-Za-z_][A-Za-z0-9_]*>|<[A-Za-z_][A-Za-z0-9_]*>(?=[A-Za-z0-9_])"
    r"|\.template\.py$"
)


def _has_tag(text: str) -> bool:
    """A ``{% … %}`` tag on one line. The first ``{%`` of a line decides for the whole line: any
    ``%}`` after a later one is after it too."""
    start = text.find("{%")
    while start != -1:
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        if text.find("%}", start + 2, end) != -1:
            return True
        start = text.find("{%", end)
    return False


def _looks_like_template(text: str) -> bool:
    return _TEMPLATE.search(text) is not None or _has_tag(text)


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


# Memory: ``ast`` builds a Python object per node, about 1 KB each with the parser's own tables,
# and LibCST more: an 8 MB list literal (2.7 million nodes) took 2.6 GB to parse and the analysis
# 4-6 GB, per worker. The tokens of a file bound its nodes from above within a small factor (a
# literal, a name or an operator each make at most a node or two), so a file is measured in
# tokens before any tree is built. A string or a comment is one token, so prose and data in
# strings do not count. A file has no more tokens than characters: one of up to ``max_nodes``
# characters is not even scanned.
_TOKEN = re.compile(
    r"""[A-Za-z0-9_]+|\#[^\n]*|'{3}[\s\S]*?(?:'{3}|\Z)|"{3}[\s\S]*?(?:"{3}|\Z)"""
    r"""|'[^'\n\\]*(?:\\.[^'\n\\]*)*'?|"[^"\n\\]*(?:\\.[^"\n\\]*)*"?|[^\sA-Za-z0-9_]"""
)


# An f-string is one token to the pattern above but not one node: each replacement field makes a
# FormattedValue, its expression and the literal after it. Counted as three nodes a field, 3 MB of
# f-string lines (1.3 GB to parse as one token a string) are past the default bound.
_NODES_PER_FSTRING_FIELD = 3
_STRING_PREFIX = re.compile(r"[rRbBuUfF]{1,2}")


def _is_fstring(prefix: str) -> bool:
    return bool(_STRING_PREFIX.fullmatch(prefix)) and "f" in prefix.lower()


def fstring_fields(literal: str) -> int:
    """Replacement fields of an f-string literal (``{`` not doubled; a nested format spec's
    fields count too)."""
    return literal.count("{") - 2 * literal.count("{{")


def count_tokens(text: str, stop_after: int) -> int:
    """Tokens of a Python text (a name, a number, a string, a comment or one other character
    each; an f-string also ``_NODES_PER_FSTRING_FIELD`` per replacement field), counted up to
    ``stop_after`` + 1. Linear: every match succeeds where it starts (a string not closed runs to
    the end of its line, or of the text for a triple-quoted one), so no character is read again
    from a later start."""
    count = 0
    prefix, prefix_end = "", -1
    for match in _TOKEN.finditer(text):
        count += 1
        token = match.group()
        if token[0] in "'\"":
            if prefix_end == match.start() and _is_fstring(prefix):
                count += _NODES_PER_FSTRING_FIELD * fstring_fields(token)
        else:
            prefix, prefix_end = token, match.end()
        if count > stop_after:
            break
    return count


def fstrings(text: str) -> Iterator[tuple[int, int, int]]:
    """(line, replacement fields, length in characters) of each f-string literal of a Python text."""
    prefix, prefix_end = "", -1
    line, counted_to = 1, 0  # lines counted up to counted_to: each character is counted once
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] in "'\"":
            if prefix_end == match.start() and _is_fstring(prefix):
                line += text.count("\n", counted_to, match.start())
                counted_to = match.start()
                yield line, fstring_fields(token), len(token)
        else:
            prefix, prefix_end = token, match.end()


# Python before 3.12 parses an f-string in time proportional to its replacement fields times its
# length (each field's position is searched for from the literal's start): measured on 3.10 and
# 3.11, 2.5e-10 s per field-character (10,000 fields in 300 KB: 0.7 s; 300,000 in 900 KB: about
# 80 s), against 0.15 s for the 300 KB one on 3.12 and 3.13, which tokenize f-strings (PEP 701).
# The parse is one call into C, where the analysis deadline's signal handler cannot run: a file
# whose f-strings would take longer than the deadline is refused before it is parsed.
FSTRING_PARSE_SECONDS = 2.5e-10 if sys.version_info < (3, 12) else 0.0


def slow_fstrings(path: str, text: str, seconds: float) -> Diagnostic | None:
    """The CL001 of a file whose f-strings this Python's parser would take more than ``seconds``
    to read (``FSTRING_PARSE_SECONDS``), or None. Only a text long enough for that is scanned."""
    if not FSTRING_PARSE_SECONDS or len(text) ** 2 / 2 * FSTRING_PARSE_SECONDS <= seconds:
        return None
    cost, worst = 0.0, (0, 0, 0)
    for line, fields, length in fstrings(text):
        cost += fields * length * FSTRING_PARSE_SECONDS
        worst = max(worst, (fields * length, line, fields))
    if cost <= seconds:
        return None
    _, line, fields = worst
    return unreadable(
        path,
        f"f-strings this Python parses in time proportional to fields times length (the largest: {fields}"
        f" replacement fields, line {line}) would take longer than the analysis deadline of {seconds:g} s;"
        " not analysed (analysis-timeout)",
        line=line,
    )


def too_many_nodes(path: str, text: str, max_nodes: int) -> Diagnostic | None:
    """The CL001 of a file whose syntax tree would hold more than ``max_nodes`` nodes (estimated
    from its tokens, before any tree is built), or None."""
    if len(text) <= max_nodes:
        return None
    tokens = count_tokens(text, max_nodes)
    if tokens <= max_nodes:
        return None
    return unreadable(
        path,
        f"more than {max_nodes} tokens: its syntax tree would take gigabytes of memory; not analysed (max-syntax-nodes)",
    )


# Python's own parser refuses more than 200 nested brackets, whatever the version.
_MAX_BRACKET_DEPTH = 200
_BRACKETS = re.compile(r"[\[\](){}]")


def _bracket_depth(source: str) -> int:
    depth = deepest = 0
    for m in _BRACKETS.finditer(source):
        if m.group() in "([{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


# LibCST's native parser takes time superlinear in the operands of one expression (a chain of 800
# `*` 0.2-0.3 s a grammar, 10,000 several minutes), and native code runs on past the analysis
# deadline: an expression chaining more operators than this is not given to it.
_MAX_OPERATOR_CHAIN = 1000
_OPERATORS = frozenset("+-*/%@&|^<>")


def _longest_operator_chain(source: str) -> int:
    """The most operator characters in one logical line (a line ends at a newline outside
    brackets, or at ``;``): an upper bound of one expression's binary operators."""
    longest = run = depth = 0
    for ch in source:
        if ch in _OPERATORS:
            run += 1
            if run > longest:
                longest = run
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = depth - 1 if depth else 0
        elif ch == ";" or (ch == "\n" and not depth):
            run = 0
    return longest


def newer_grammar(source: str) -> str | None:
    """The newer Python version whose grammar accepts ``source``, which this Python's parser
    rejected, or None. LibCST's parser knows the grammars of later versions (3.12's f-strings that
    reuse their quotes, PEP 701; type parameters, PEP 695; 3.14's template strings and except
    lists): such a file is valid Python that this interpreter's ``ast`` cannot read, not a broken
    one. Asked only after a syntax error."""
    if _bracket_depth(source) > _MAX_BRACKET_DEPTH:
        return None  # LibCST's native parser overflows its stack on absurd nesting (~3000 levels)
    if _longest_operator_chain(source) > _MAX_OPERATOR_CHAIN:
        return None
    try:
        from libcst import PartialParserConfig, parse_module
    except ImportError:  # pragma: no cover - libcst is a dependency
        return None
    for version in ("3.11", "3.12", "3.13", "3.14"):
        if (sys.version_info.major, sys.version_info.minor) >= tuple(int(p) for p in version.split(".")):
            continue
        try:
            parse_module(source, config=PartialParserConfig(python_version=version))
            return version
        except Exception:  # noqa: BLE001 - any parser failure means "not this grammar either"
            continue
    return None


# LibCST parses ~0.25 MB a second and holds the whole tree: a larger file is not given to it only
# to word a message (deepagents' 1.2 MB app.py: 5 s and 283 MB).
_MAX_NEWER_GRAMMAR_SOURCE = 256 * 1024


def _syntax_error(
    path: str,
    exc: SyntaxError,
    line_offset: int = 0,
    cell: int | None = None,
    source: str | None = None,
    explain: bool = True,
) -> Diagnostic:
    """The CL001 of a syntax error. ``explain=False``: the message is never shown (a summary of an
    imported module), so no second parser is asked whether a later grammar accepts the file."""
    line = (exc.lineno or 1) + line_offset
    column = exc.offset or 1
    message = f"syntax error: {exc.msg}"
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    # Only a file that uses what later grammars added (an f-string, type parameters) is worth
    # asking a second parser about; the whole file is searched, since for an error inside a
    # multi-line string Python shows only the string's last line.
    candidate = explain and source is not None and _NEWER_CANDIDATE.search(source) is not None
    newer = (
        newer_grammar(source) if candidate and source is not None and len(source) <= _MAX_NEWER_GRAMMAR_SOURCE else None
    )
    if newer is not None:
        message = (
            f"valid Python {newer} that the Python {running} running cachelint cannot parse ({exc.msg}): "
            f"not analysed; run cachelint with Python {newer} or newer to check this file"
        )
    elif candidate and source is not None and len(source) > _MAX_NEWER_GRAMMAR_SOURCE:
        message += (
            " (the file uses f-strings or type parameters, whose grammar Python 3.12 widened: if it is valid"
            " there, run cachelint with Python 3.12 or newer to check it)"
        )
    elif exc.text and _NEWER_SYNTAX.match(exc.text):
        message += f" (this looks like syntax newer than the Python {running} that runs cachelint)"
    elif exc.text and _looks_like_template(exc.text) or _looks_like_template(path):
        message += " (this looks like a template, Jinja or cookiecutter, not Python: exclude it with extend-exclude)"
    if cell is not None:
        return unreadable(path, message, line=exc.lineno or 1, column=column, details={"cell": cell})
    return unreadable(path, message, line=line, column=max(1, column))


def parse_newer(path: str, text: str) -> ast.Module | SyntaxError | None:
    """The tree of a text that the running parser rejects but a later grammar accepts (3.12's
    f-strings and type parameters, 3.14's template strings...): the text lowered to this
    interpreter's syntax, same lines and offsets (newer_syntax.py), parsed; None when it uses no
    newer syntax, cannot be lowered, or no grammar LibCST knows accepts it (a broken file stays a
    CL001). LibCST confirms the original up to ``_MAX_NEWER_GRAMMAR_SOURCE`` characters; a larger
    file that parses once lowered is taken as it is (its 1 MB costs LibCST about 4 s)."""
    if _NEWER_CANDIDATE.search(text) is None:
        return None
    from cachelint.code.newer_syntax import lower_newer_syntax

    lowered = lower_newer_syntax(text)
    if lowered is None:
        return None
    try:
        tree = pyparse.parse(lowered, filename=path, type_comments=False)
    except SyntaxError as exc:
        return exc  # an error that is not about newer syntax, at its own line
    except (RecursionError, MemoryError, ValueError):
        return None
    if len(text) <= _MAX_NEWER_GRAMMAR_SOURCE and newer_grammar(text) is None:
        return None
    return tree


def parse_python(path: str, text: str, explain: bool = True) -> Program | Diagnostic:
    """The parsed module, or the CL001 saying why not (``explain``: see ``_syntax_error``)."""
    try:
        tree = pyparse.parse(text, filename=path, type_comments=False)
    except SyntaxError as exc:
        newer = parse_newer(path, text)
        if not isinstance(newer, ast.Module):
            return _syntax_error(path, newer or exc, source=text, explain=explain)
        tree = newer
    except (RecursionError, MemoryError):
        return unreadable(path, "too deeply nested to parse")
    except ValueError as exc:  # e.g. source with NUL bytes (the reader reports those first)
        return unreadable(path, f"cannot parse: {exc}")
    from cachelint.textio import python_lines

    return Program(path=path, tree=tree, lines=python_lines(text))


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
    continued = False  # the previous line was IPython's and ended with "\\": this one is joined to it
    for line in lines:
        assign = None if continued else _SHELL_ASSIGN.match(line)
        magic = None if continued or assign else _MAGIC_LINE.match(line) or _HELP_SUFFIX.match(line)
        if continued:
            out.append("")
        elif assign:
            out.append(assign.group(1) + "None")
        elif magic:
            out.append(magic.group(1) + "pass")
        else:
            out.append(line)
            continue
        continued = line.rstrip().endswith("\\")
    return "\n".join(out)


# "pip install x" without the %: IPython runs it as the %pip magic (automagic is on by default).
_AUTOMAGIC = re.compile(
    r"^(\s*)(?:pip|conda|mamba|micromamba)\s+(?:install|uninstall|list|show|freeze|download|config|env|create|remove|update|upgrade)\b"
)


def ipython_rewrite(source: str) -> tuple[str, str, set[int]] | None:
    """What IPython makes of a cell that Python rejects, or None when it changes nothing: the
    leading indentation of the first line removed from every line that has it (IPython's
    ``leading_indent``), and ``pip install`` / ``conda install`` lines run as magics. Returns the
    text, the indentation removed and the (1-based) lines it was removed from, so that columns
    can be put back where the user sees them."""
    lines = source.split("\n")
    changed = False
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    dedented: set[int] = set()
    if indent:
        for number, line in enumerate(lines, start=1):
            if line.startswith(indent):
                lines[number - 1] = line[len(indent) :]
                dedented.add(number)
        changed = True
    for number, line in enumerate(lines):
        m = _AUTOMAGIC.match(line)
        if m:
            lines[number] = m.group(1) + "pass"
            changed = True
    return ("\n".join(lines), indent, dedented) if changed else None


def _shift_columns(tree: ast.AST, width: int, lines: set[int]) -> None:
    """Add ``width`` to the columns of nodes on ``lines`` (the cell lines IPython dedented)."""
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in lines and hasattr(node, "col_offset"):
            node.col_offset += width
        if getattr(node, "end_lineno", None) in lines and getattr(node, "end_col_offset", None) is not None:
            node.end_col_offset += width  # type: ignore[attr-defined]  # not every AST node declares it; this one has it


def _parse_cell(path: str, index: int, source: str) -> tuple[ast.Module, str] | Diagnostic:
    """A cell's tree and the text it was parsed from (IPython's rewrite of it when Python alone
    rejects it but IPython runs it), or its CL001."""
    try:
        return pyparse.parse(source, filename=f"{path}#cell{index}"), source
    except SyntaxError as exc:
        newer = parse_newer(f"{path}#cell{index}", source)
        if isinstance(newer, ast.Module):
            return newer, source
        exc = newer or exc
        rewritten = ipython_rewrite(source)
        if rewritten is not None:
            text, indent, dedented = rewritten
            try:
                tree = pyparse.parse(text, filename=f"{path}#cell{index}")
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                pass
            else:
                if indent:
                    _shift_columns(tree, len(indent.encode("utf-8")), dedented)
                    # the program keeps the text as the user sees it: put the indentation back
                    text = "\n".join(
                        indent + line if n in dedented else line for n, line in enumerate(text.split("\n"), start=1)
                    )
                return tree, text
        return _syntax_error(path, exc, cell=index, source=source)
    except (RecursionError, MemoryError, ValueError):
        return unreadable(path, "too deeply nested to parse", details={"cell": index})


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
    from cachelint.textio import python_lines

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
        parsed = _parse_cell(path, index, source)
        if isinstance(parsed, Diagnostic):
            problems.append(parsed)
            continue
        tree, source = parsed
        offset = len(lines)
        if offset:
            ast.increment_lineno(tree, offset)
        spans.append(CellSpan(index=index, first_line=offset + 1))
        # lines as the parser counts them (a cell may end its lines with a lone CR, as classic Mac
        # files do: split at "\n" only, such a cell was one line, and every column and line after
        # it pointed elsewhere); a last empty line as "\n".split gave, so the next cell's lines
        # start where they always did
        cell_lines = python_lines(source)
        if source.endswith(("\n", "\r")):
            cell_lines.append("")
        lines.extend(cell_lines)
        body.extend(tree.body)
    module = ast.Module(body=body, type_ignores=[])
    return Program(path=path, tree=module, lines=lines, cells=spans), problems


def syntax_problems(path: str, text: str) -> list[Diagnostic]:
    """Whether a Python file parses, without building its tree: what the check reports for a file
    the prefilter skips. ``symtable`` runs the same parser as ``ast.parse`` but builds no Python
    objects (0.6x its time on the SDK corpus of docs/benchmarks.md); it also rejects a few programs that parse
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
    check that follows cost more than it saved (on the SDK corpus of docs/benchmarks.md, keeping the last 1M
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
