"""Applying the code checks' fixes on LibCST's concrete syntax tree.

A fix of the code checks wraps expressions (``sorted(`` ... ``)``): each pair of insertions of a
``Fix`` names one expression of the file, by the positions the analysis took from ``ast``. Here
the expression is found in LibCST's tree (whose lines are counted as the tokenizer counts them,
so a form feed or another separator that ``str.splitlines`` splits at moves nothing), replaced by
the call around it, and the module is printed again: LibCST gives every other byte back as it was
(comments, CRLF, tabs, parentheses). The result is parsed again, by ``compile`` and by LibCST,
before anyone may write it; a fix whose result does not parse is dropped (``Rewrite.failed``).

Only files with a fix to apply come here: ``check`` never parses with LibCST (about 8x the cost of
``ast.parse``).

Notebooks: each code cell with a fix is rewritten the same way (as the program the analysis saw:
IPython magics stand as ``pass``), and only the JSON string(s) of that cell's ``source`` are
replaced in the notebook's text, so that its formatting and every other byte stay.
"""

from __future__ import annotations

import ast

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from cachelint.code import pyparse
from cachelint.code.notebook_json import array_items, source_spans
from cachelint.diagnostics import Fix

_HOLE = "__cachelint_fix_hole__"
# LibCST 1.x drops a form feed between a statement's indentation and its first token when it
# prints the statement: such a statement cannot be rewritten byte for byte (not a bug of ours).
_NOT_PRINTED = (
    "LibCST does not print the statement that holds it back as it is in the file (a form feed before a statement?)"
)


@dataclass
class Rewrite:
    """What applying fixes to one file gave: the new text (None when nothing was applied), the
    fixes applied, and those that could not be, with why. ``not_applicable``: the file (or cell)
    is outside what the fixer handles, not a bug (LibCST cannot parse it, an IPython-only cell);
    ``failed``: the fix was located and applied but its result does not parse, or it could not be
    located: a bug of cachelint."""

    text: str | None = None
    applied: list[Fix] = field(default_factory=list)
    failed: list[tuple[Fix, str]] = field(default_factory=list)
    not_applicable: list[tuple[Fix, str]] = field(default_factory=list)


def parse_error(text: str, round_trip: bool = False) -> str | None:
    """Why ``text`` is not a Python module both ``compile`` and LibCST accept (and, with
    ``round_trip``, that LibCST prints back byte for byte), or None."""
    try:
        compile(text, "<fixed>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError as exc:
        from cachelint.code.program import parse_newer

        if not isinstance(parse_newer("<fixed>", text), ast.Module):  # not a later grammar's either
            return f"syntax error: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"does not compile: {type(exc).__name__}: {exc}"
    import libcst

    text = _without_lone_cr(text)
    try:
        module = libcst.parse_module(text)
    except Exception as exc:  # noqa: BLE001 - any failure of LibCST's parser
        return f"LibCST cannot parse it: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if round_trip and module.code != text:
        return "LibCST does not print it back unchanged"
    return None


# --- Python source ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Wrap:
    """One fix located: the expression node it wraps, in which top-level statement, where the
    node is in the file (LibCST's range, without the node's own parentheses) and the text to put
    around it."""

    fix: Fix
    statement: int  # index in the module's body
    node: Any
    start: tuple[int, int]  # (1-based line, 0-based character column) in the file
    end: tuple[int, int]
    before: str
    after: str


@dataclass
class _Statement:
    """A top-level statement of the module and the first line of its code in the file (its
    leading blank and comment lines included, as LibCST prints them)."""

    node: Any
    first_line: int


def _without_lone_cr(text: str) -> str:
    """A file whose lines all end with a lone CR (classic Mac OS) with LF instead: the same
    program, line for line, and LibCST drops the last CR of such a file when it prints it."""
    return text.replace("\r", "\n") if "\r" in text and "\n" not in text else text


def rewrite_python(text: str, fixes: Sequence[Fix]) -> Rewrite:
    """Apply ``fixes`` (their edits in this text's positions) to the module ``text``: first the
    fixes that remove a suppression's code or comment (``cachelint.suppressions``: text edits within
    comments, a line removed whole kept empty until the end so that no other position moves),
    then those that wrap expressions (``rewrite_expressions``)."""
    from cachelint.suppressions import apply_comment_fixes, drop_lines, is_comment_fix

    comment_fixes = [f for f in fixes if is_comment_fix(f)]
    if not comment_fixes:
        return rewrite_expressions(text, fixes)
    kept, emptied, applied, failed = apply_comment_fixes(text, comment_fixes)
    done = rewrite_expressions(kept, [f for f in fixes if not is_comment_fix(f)])
    done.failed.extend(failed)
    if applied:
        new = done.text if done.text is not None else kept
        done.text = drop_lines(new, emptied)
        done.applied = [*applied, *done.applied]
    return done


def rewrite_expressions(text: str, fixes: Sequence[Fix]) -> Rewrite:
    """Apply ``fixes`` that wrap expressions (their edits in this text's positions) to ``text``.

    LibCST parses the whole file (and the fixed file again, to prove it can); the positions of
    nodes and the rewriting are computed on the top-level statements the fixes are in, whose
    printed code is spliced back into the text (LibCST's positions and printing cost as much
    as its parsing again, per statement instead of per file: a fix in a 2,000-line module)."""
    if "\r" in text and "\n" not in text:
        done = rewrite_expressions(_without_lone_cr(text), fixes)
        if done.text is not None:
            done.text = done.text.replace("\n", "\r")  # a fix inserts no line break
        return done
    import libcst

    out = Rewrite()
    if not fixes:
        return out
    try:
        module = libcst.parse_module(text)
        statements = _statements(module, text)
    except Exception as exc:  # noqa: BLE001 - LibCST's parser, or ast rejecting what LibCST took
        out.not_applicable = [(f, f"LibCST cannot parse the file ({type(exc).__name__})") for f in fixes]
        return out
    offsets = _line_offsets(text)
    try:
        wraps, failed = _locate(module, statements, fixes, text, offsets)
    except Exception as exc:  # noqa: BLE001 - LibCST's position metadata
        out.failed = [(f, f"the fix could not be located ({type(exc).__name__}: {exc})") for f in fixes]
        return out
    for fix, why in failed:
        (out.not_applicable if why == _NOT_PRINTED else out.failed).append((fix, why))
    if not wraps:
        return out
    new_text, problem = _fixed(module, statements, text, offsets, wraps)
    if problem is None:
        out.text = new_text
        out.applied = [w.fix for w in wraps]
        return out
    if problem == _NOT_PRINTED:  # find out which statements LibCST prints back unchanged
        printable = []
        for w in wraps:
            if _fixed(module, statements, text, offsets, [w])[1] == _NOT_PRINTED:
                out.not_applicable.append((w.fix, _NOT_PRINTED))
            else:
                printable.append(w)
        wraps = printable
        if not wraps:
            return out
        new_text, problem = _fixed(module, statements, text, offsets, wraps)
        if problem is None:
            out.text = new_text
            out.applied = [w.fix for w in wraps]
            return out
    # One of them breaks the file: keep those that do not, in order.
    kept: list[_Wrap] = []
    current = text
    for w in wraps:
        candidate, problem = _fixed(module, statements, text, offsets, kept + [w])
        if problem is None:
            kept.append(w)
            current = candidate
        else:
            out.failed.append((w.fix, problem))
    if kept:
        out.text = current
        out.applied = [w.fix for w in kept]
    return out


def ast_of(text: str) -> ast.Module:
    """The ast of a module, in this interpreter's grammar or a later one (program.parse_newer)."""
    try:
        return pyparse.parse(text)
    except SyntaxError:
        from cachelint.code.program import parse_newer

        tree = parse_newer("<fixed>", text)
        if isinstance(tree, ast.Module):
            return tree
        raise


def _statements(module: Any, text: str) -> list[_Statement]:
    """LibCST's top-level statements with the line their code starts at, from ``ast`` (which
    gives each statement's first line): a simple statement line of LibCST holds the ast
    statements separated by ``;``; a decorated definition starts at its first decorator."""
    import libcst

    body = ast_of(text).body
    out = []
    i = 0
    for node in module.body:
        count = len(node.body) if isinstance(node, libcst.SimpleStatementLine) else 1
        if i >= len(body):
            raise ValueError("LibCST and ast disagree on the statements")
        first = body[i]
        line = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", ())])
        out.append(_Statement(node, line - len(node.leading_lines)))
        i += count
    if i != len(body):
        raise ValueError("LibCST and ast disagree on the statements")
    return out


def _line_offsets(text: str) -> list[int]:
    """Offset of the start of each line (index 0 is line 1), lines ending as Python's tokenizer
    ends them (and LibCST counts them): ``\\n``, ``\\r\\n``, ``\\r``."""
    import re

    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def _offset(offsets: list[int], where: tuple[int, int]) -> int:
    line, column = where
    return offsets[line - 1] + column


def _statement_of(statements: Sequence[_Statement], line: int) -> int | None:
    found = None
    for index, st in enumerate(statements):
        if st.first_line <= line:
            found = index
        else:
            break
    return found


def _locate(
    module: Any, statements: Sequence[_Statement], fixes: Sequence[Fix], text: str, offsets: list[int]
) -> tuple[list[_Wrap], list[tuple[Fix, str]]]:
    """The expression each fix wraps. A fix is two insertions, ``before`` at the start of an
    expression and ``after`` at its end (1-based lines, 1-based character columns). A fix in a
    statement LibCST does not print back as it is fails with ``_NOT_PRINTED``."""
    printed: dict[int, bool] = {}

    def prints_back(index: int) -> bool:
        if index not in printed:
            sub = module.with_changes(header=[], body=[statements[index].node], footer=[])
            start = offsets[statements[index].first_line - 1]
            code = sub.code
            printed[index] = text[start : start + len(code)] == code
        return printed[index]

    import libcst
    from libcst.metadata import MetadataWrapper, PositionProvider

    ranges: dict[int, tuple[dict, dict, dict]] = {}

    def nodes_of(index: int) -> tuple[dict, dict, dict]:
        """(range -> node, range -> generator without parentheses, node -> range) of one
        statement, in the file's lines."""
        if index not in ranges:
            sub = module.with_changes(header=[], body=[statements[index].node], footer=[])
            shift = statements[index].first_line - 1
            by_range: dict[tuple[int, int, int, int], Any] = {}
            generators: dict[tuple[int, int, int, int], Any] = {}
            where_of: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
            for node, where in MetadataWrapper(sub, unsafe_skip_copy=True).resolve(PositionProvider).items():
                if not isinstance(node, libcst.BaseExpression):
                    continue
                key = (where.start.line + shift, where.start.column, where.end.line + shift, where.end.column)
                by_range.setdefault(key, node)
                where_of[id(node)] = ((key[0], key[1]), (key[2], key[3]))
                if isinstance(node, libcst.GeneratorExp) and not node.lpar:
                    generators[key] = node
            ranges[index] = (by_range, generators, where_of)
        return ranges[index]

    wraps: list[_Wrap] = []
    failed: list[tuple[Fix, str]] = []
    taken: set[int] = set()
    for fix in fixes:
        edits = sorted(fix.edits, key=lambda e: (e.line, e.column, e.end_line, e.end_column))
        if len(edits) != 2 or any((e.line, e.column) != (e.end_line, e.end_column) for e in edits):
            failed.append((fix, "the fix is not two insertions around an expression"))
            continue
        first, last = edits
        index = _statement_of(statements, first.line)
        node = None
        if index is not None and not prints_back(index):
            failed.append((fix, _NOT_PRINTED))
            continue
        if index is not None:
            by_range, generators, where_of = nodes_of(index)
            key = (first.line, first.column - 1, last.line, last.column - 1)
            node = by_range.get(key)
            if node is None:
                # ast counts the parentheses of f(x for x in y) as the generator's own; LibCST
                # gives them to the call
                node = generators.get((key[0], key[1] + 1, key[2], key[3] - 1))
        if node is None or index is None:
            failed.append(
                (
                    fix,
                    f"no expression spans line {first.line}, column {first.column} to line {last.line}, column {last.column}",
                )
            )
            continue
        if id(node) in taken:
            continue  # another fix of the same expression (a finding reached two ways) did it
        taken.add(id(node))
        start, end = where_of[id(node)]
        wraps.append(_Wrap(fix, index, node, start, end, first.content, last.content))
    return wraps, failed


def _fixed(
    module: Any, statements: Sequence[_Statement], text: str, offsets: list[int], wraps: Sequence[_Wrap]
) -> tuple[str, str | None]:
    try:
        return _fixed_text(module, statements, text, offsets, wraps)
    except Exception as exc:  # noqa: BLE001 - a fix's text that is no expression, a LibCST failure
        return text, f"the fix could not be applied on the tree ({type(exc).__name__}: {exc})"


def _fixed_text(
    module: Any, statements: Sequence[_Statement], text: str, offsets: list[int], wraps: Sequence[_Wrap]
) -> tuple[str, str | None]:
    """The text with ``wraps`` applied on the tree of their statements, and what is wrong with it
    (None: nothing). Each statement rewritten is printed by LibCST and spliced in where the
    original statement's printed code is; the result must be the text with each wrap's two
    insertions at its node's range and not one byte more changed (which proves LibCST printed
    the rest as it was), and it must parse with ``compile`` and with LibCST."""
    pieces, pos = [], 0
    for index in sorted({w.statement for w in wraps}):
        sub = module.with_changes(header=[], body=[statements[index].node], footer=[])
        start = offsets[statements[index].first_line - 1]
        old = sub.code
        if text[start : start + len(old)] != old:
            return text, _NOT_PRINTED
        new = sub.with_changes(body=[_apply(statements[index].node, [w for w in wraps if w.statement == index])]).code
        pieces.append(text[pos:start])
        pieces.append(new)
        pos = start + len(old)
    pieces.append(text[pos:])
    new_text = "".join(pieces)
    inserts = sorted(
        [(_offset(offsets, w.start), 1, i, w.before) for i, w in enumerate(wraps)]
        + [(_offset(offsets, w.end), 0, -i, w.after) for i, w in enumerate(wraps)]
    )
    expected, pos = [], 0
    for at, _order, _i, content in inserts:
        expected.append(text[pos:at])
        expected.append(content)
        pos = at
    expected.append(text[pos:])
    if "".join(expected) != new_text:
        return new_text, "the rewritten tree changes more than the fix's insertions"
    problem = parse_error(new_text, round_trip=False)
    return new_text, (f"the fixed file would not parse ({problem})" if problem is not None else None)


def _apply(statement: Any, wraps: Sequence[_Wrap]) -> Any:
    import libcst

    targets = {id(w.node): w for w in wraps}

    class Wrapper(libcst.CSTTransformer):
        def on_leave(self, original_node: Any, updated_node: Any) -> Any:
            w = targets.get(id(original_node))
            if w is None:
                return updated_node
            return _wrapped(updated_node, w.before, w.after)

    return statement.visit(Wrapper())


def _wrapped(node: Any, before: str, after: str) -> Any:
    """``before + node + after`` as an expression, the node itself kept as it was (its
    comments and spacing); its own parentheses go around the whole, as a text edit at the
    expression's ast positions (which exclude them) would put them."""
    import libcst

    template = libcst.parse_expression(before + _HOLE + after)
    inner = node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node

    class Fill(libcst.CSTTransformer):
        def leave_Name(self, original_node: Any, updated_node: Any) -> Any:
            return inner if updated_node.value == _HOLE else updated_node

    filled: Any = template.visit(Fill())  # an expression: the template is one
    if getattr(node, "lpar", None):
        filled = filled.with_changes(lpar=node.lpar, rpar=node.rpar)
    return filled


# --- notebooks -------------------------------------------------------------------------------


def rewrite_notebook(text: str, fixes: Sequence[Fix]) -> Rewrite:
    """Apply ``fixes`` (edits with ``cell`` set, lines of that cell) to the notebook JSON ``text``:
    each cell's program is rewritten as a module, and only that cell's source strings change in
    the text."""
    from cachelint.code.program import _cell_source, python_of_cell

    out = Rewrite()
    try:
        data = json.loads(text)
        cells = data["cells"]
        spans = source_spans(text)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        out.not_applicable = [(f, f"the notebook's JSON cannot be read ({type(exc).__name__})") for f in fixes]
        return out
    by_cell: dict[int, list[Fix]] = {}
    for fix in fixes:
        indexes = {e.cell for e in fix.edits}
        if len(indexes) != 1 or None in indexes:
            out.failed.append((fix, "the fix does not name one cell of the notebook"))
            continue
        (index,) = indexes
        by_cell.setdefault(index, []).append(fix)  # type: ignore[arg-type]
    replacements: list[tuple[int, int, str]] = []
    for index, cell_fixes in sorted(by_cell.items()):
        if not (1 <= index <= len(cells)) or index not in spans or not isinstance(cells[index - 1], dict):
            out.failed.extend((f, f"cell {index} has no source in the notebook") for f in cell_fixes)
            continue
        source = _cell_source(cells[index - 1])
        program = python_of_cell(source)
        if program is None:
            out.not_applicable.extend((f, f"cell {index} is not Python") for f in cell_fixes)
            continue
        done = rewrite_python(program, cell_fixes)
        out.failed.extend(done.failed)
        out.not_applicable.extend((f, f"cell {index}: {why}") for f, why in done.not_applicable)
        if done.text is None:
            continue
        new_source = _source_of(source, program, done.text)
        if new_source is None or python_of_cell(new_source) != done.text:
            out.failed.extend(
                (f, f"cell {index}: the fixed program does not map back onto the cell's lines") for f in done.applied
            )
            continue
        start, end = spans[index]
        replacements.append((start, end, _serialised_source(text, start, end, source, new_source)))
        out.applied.extend(done.applied)
    if not replacements:
        return out
    pieces = []
    pos = 0
    for start, end, new in sorted(replacements):
        pieces.append(text[pos:start])
        pieces.append(new)
        pos = end
    pieces.append(text[pos:])
    new_text = "".join(pieces)
    # The notebook must still be the same JSON but for those sources, each a module that parses.
    try:
        new_data = json.loads(new_text)
    except ValueError as exc:
        out.failed.extend((f, f"the fixed notebook is not valid JSON ({exc})") for f in out.applied)
        out.applied = []
        return out
    for index in (i for i in by_cell if i in spans):
        if 1 <= index <= len(cells) and isinstance(cells[index - 1], dict):
            cells[index - 1]["source"] = new_data["cells"][index - 1].get("source")
            cell_program = python_of_cell(_cell_source(new_data["cells"][index - 1]))
            problem = parse_error(cell_program, round_trip=False) if cell_program is not None else "not Python"
            if problem is not None:
                out.failed.extend((f, f"cell {index} would not parse ({problem})") for f in out.applied)
                out.applied = []
                return out
    if new_data != data:
        out.failed.extend((f, "the fixed notebook differs in more than the cells' sources") for f in out.applied)
        out.applied = []
        return out
    out.text = new_text
    return out


def _source_of(source: str, program: str, new_program: str) -> str | None:
    """The cell's source after the fix: the program's lines, except where the program stands for
    an IPython line (a magic is ``pass`` in the program), which keeps the cell's own line. None
    when the fix touched such a line or changed the number of lines."""
    old_lines = source.split("\n")
    program_lines = program.split("\n")
    new_lines = new_program.split("\n")
    if not (len(old_lines) == len(program_lines) == len(new_lines)):
        return None
    out = []
    for old, prog, new in zip(old_lines, program_lines, new_lines):
        if old == prog:
            out.append(new)
        elif new == prog:
            out.append(old)
        else:
            return None
    return "\n".join(out)


def _serialised_source(text: str, start: int, end: int, old_source: str, new_source: str) -> str:
    """The JSON of the new source in the style of the old one: a list of lines keeps its
    separators and the strings of lines that did not change; a string stays a string."""
    ensure_ascii = text.isascii()
    original = text[start:end]
    if not original.startswith("["):
        return json.dumps(new_source, ensure_ascii=ensure_ascii)
    items = array_items(text, start)
    old_lines = _lines_keepends(old_source)
    new_lines = _lines_keepends(new_source)
    values = [json.loads(text[a:b]) for a, b in items]
    if values == old_lines and len(new_lines) == len(old_lines):
        pieces = []
        pos = start
        for (a, b), old, new in zip(items, old_lines, new_lines):
            pieces.append(text[pos:a])
            pieces.append(text[a:b] if old == new else json.dumps(new, ensure_ascii=ensure_ascii))
            pos = b
        pieces.append(text[pos:end])
        return "".join(pieces)
    # Lines split otherwise than nbformat splits them: write the list again, as nbformat would,
    # with the separator the old list used.
    separator = text[items[0][1] : items[1][0]] if len(items) > 1 else ",\n"
    opening = text[start + 1 : items[0][0]] if items else ""
    closing = text[items[-1][1] : end - 1] if items else ""
    return (
        "["
        + opening
        + separator.join(json.dumps(line, ensure_ascii=ensure_ascii) for line in new_lines)
        + closing
        + "]"
    )


def _lines_keepends(source: str) -> list[str]:
    """nbformat's lines: split after each ``\\n`` only."""
    lines = source.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out
