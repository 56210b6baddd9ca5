"""The ``sorted(...)`` fix of an unordered value (CL101, CL102): where it goes and whether it is safe.

A value is sorted where it is first put in order (the loop or comprehension that iterates it,
list(), join; in the module that does so), else around the sink argument. The fix is safe only
where what is sorted there is known to hold only strings or only paths (values.py): sorting
anything else may raise or change meaning. Two findings may propose the same wrap; the runner
(findings.py) keeps the first."""

from __future__ import annotations

from cachelint.code.facts import CodeFacts
from cachelint.code.flow.facts import Reach
from cachelint.code.flow.sort_safety import SortSafety, expression_at
from cachelint.code.values import DICT, SORTABLE_KINDS, Span
from cachelint.diagnostics import Applicability, Edit, Fix


def wrap_in_sorted(
    facts: CodeFacts, span: Span, key: str | None, safe: bool, what: str, module: str | None = None
) -> Fix | None:
    """``sorted(`` and ``)`` around the expression at ``span``: in this file (an ast span), or in
    the other module ``module`` (a span in its characters, from its summary). None in a notebook
    when the expression spans two cells."""
    cell = None
    if module is None:
        loc = facts.location(span)
        line, column, end_line, end_column = loc["line"], loc["column"], loc["end_line"], loc["end_column"]
        if facts.program.is_notebook:
            cell, line = facts.program.locate(line)
            end_cell, end_line = facts.program.locate(end_line)
            if cell is None or end_cell != cell:
                return None
    else:
        line, column, end_line, end_column = span
    closing = f", {key})" if key else ")"
    return Fix(
        description=f"wrap {what} in sorted(...)" + (f" ({key})" if key else "") + (f" in {module}" if module else ""),
        edits=(
            Edit(line, column, line, column, "sorted(", module=module, cell=cell),
            Edit(end_line, end_column, end_line, end_column, closing, module=module, cell=cell),
        ),
        applicability=Applicability.SAFE if safe else Applicability.UNSAFE,
    )


def sorted_fix(facts: CodeFacts, reach: Reach) -> Fix | None:
    o = reach.origin
    if o.sortable and o.fix_at is not None:
        # the spot was vetted where it was found (Scopes.put_in_order), in its own module
        return wrap_in_sorted(facts, o.fix_at, None, o.fix_safe, "the unordered value", o.fix_module)
    if reach.arg_span is None:
        return None
    safety = SortSafety(facts.program.tree)
    if not safety.builtin("sorted"):
        return None  # a sorted(...) written here would call the module's own sorted
    if reach.arg_elements in SORTABLE_KINDS and o.sortable:
        argument = expression_at(facts.program.tree, reach.arg_span)
        closed = argument is not None and safety.closed(argument)
        return wrap_in_sorted(facts, reach.arg_span, None, closed, "the argument")
    if reach.arg_elements == DICT and not (reach.sink.tier == "tools" and reach.sink.tool_key):
        return None  # sorted() of dicts raises TypeError: no fix that would break the call
    if reach.sink.tier == "tools" and reach.sink.tool_key:
        # The tools themselves (dicts or objects of this SDK), collected in an unknown order:
        # sort them by name at the call. Unsafe: a tool without a name would raise.
        return wrap_in_sorted(facts, reach.arg_span, f"key={reach.sink.tool_key}", False, "the tools")
    if o.sortable:
        return wrap_in_sorted(facts, reach.arg_span, None, False, "the argument")
    return None


__all__ = ["sorted_fix", "wrap_in_sorted"]
