"""From flow facts to diagnostics: one function per rule, plus the sorted(...) fixes of CL101/CL102.

Every finding is reported at its construction site (where order or volatility enters, or where the
loop changes the prefix) and names the sink it reaches.
"""
from __future__ import annotations

from typing import Callable, Iterable

from cachelint.code.flow.facts import LoopChange, Reach
from cachelint.code.program import Program
from cachelint.code.values import SORTABLE_KINDS, UNORDERED, VOLATILE, Span
from cachelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity


def _where(program: Program, line: int) -> str:
    cell, cell_line = program.locate(line)
    if cell is None:
        return f"line {line}"
    return f"cell {cell}, line {cell_line}"


def _first_reach_per_origin(reaches: Iterable[Reach], kind: str, tiers: tuple[str, ...]) -> list[Reach]:
    """One finding per construction site: the sink with the lowest line (then label) is named.
    (A call into another module can carry several origins: still one finding at the call.)"""
    best: dict[Span, tuple[tuple, Reach]] = {}
    for r in reaches:
        if r.origin.kind != kind or r.sink.tier not in tiers:
            continue
        rank = (r.sink.line, r.sink.label, r.arg_span is None, r.origin.what, r.origin.fix_at or (0, 0, 0, 0))
        current = best.get(r.origin.site)
        if current is None or rank < current[0]:
            best[r.origin.site] = (rank, r)
    return [best[site][1] for site in sorted(best)]


class _Reporter:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.fixed_spans: set[tuple[str | None, Span]] = set()

    def location(self, span: Span) -> dict:
        p = self.program
        line, col, end_line, end_col = span
        return {
            "line": line,
            "column": p.char_column(line, col),
            "end_line": end_line,
            "end_column": p.char_column(end_line, end_col),
        }

    def wrap_in_sorted(self, span: Span, key: str | None, safe: bool, what: str, module: str | None = None) -> Fix | None:
        """``sorted(`` and ``)`` around the expression at ``span``: in this file (an ast span), or
        in the other module ``module`` (a span in its characters, from its summary)."""
        if (module, span) in self.fixed_spans:
            return None
        self.fixed_spans.add((module, span))
        cell = None
        if module is None:
            loc = self.location(span)
            line, column, end_line, end_column = loc["line"], loc["column"], loc["end_line"], loc["end_column"]
            if self.program.is_notebook:
                cell, line = self.program.locate(line)
                end_cell, end_line = self.program.locate(end_line)
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

    def sorted_fix(self, reach: Reach) -> Fix | None:
        """sorted(...) where the unordered value is first put in order (the loop or comprehension
        that iterates it, list(), join; in the module that does so), else around the sink
        argument. Safe only where what is sorted there is known to hold only strings or only paths
        (values.py): sorting anything else may raise or change meaning."""
        o = reach.origin
        if o.sortable and o.fix_at is not None:
            return self.wrap_in_sorted(o.fix_at, None, o.fix_safe, "the unordered value", o.fix_module)
        if reach.arg_span is None:
            return None
        if reach.arg_elements in SORTABLE_KINDS and o.sortable:
            return self.wrap_in_sorted(reach.arg_span, None, True, "the argument")
        if reach.sink.tier == "tools" and reach.sink.tool_key:
            # The tools themselves (dicts or objects of this SDK), collected in an unknown order:
            # sort them by name at the call. Unsafe: a tool without a name would raise.
            return self.wrap_in_sorted(reach.arg_span, f"key={reach.sink.tool_key}", False, "the tools")
        if o.sortable:
            return self.wrap_in_sorted(reach.arg_span, None, False, "the argument")
        return None

    def diagnostic(self, code: str, message: str, span: Span, fix: Fix | None = None, severity: Severity | None = None) -> Diagnostic:
        loc = self.location(span)
        details: dict = {}
        line, end_line = loc["line"], loc["end_line"]
        if self.program.is_notebook:
            cell, line = self.program.locate(loc["line"])
            _, end_line = self.program.locate(loc["end_line"])
            details["cell"] = cell
            message = f"cell {cell}: {message}"
        return Diagnostic(
            code=code,
            message=message,
            path=self.program.path,
            line=line,
            column=loc["column"],
            end_line=end_line,
            end_column=loc["end_column"],
            severity=severity,
            fix=fix,
            details=details,
        )


def unordered_tools(reporter: _Reporter, reaches: list[Reach]) -> list[Diagnostic]:
    """CL101: the order of the tools comes from an unordered source."""
    out = []
    for r in _first_reach_per_origin(reaches, UNORDERED, ("tools",)):
        msg = f"tools built from {r.origin.what} (unordered) reach {r.sink.label} at {_where(reporter.program, r.sink.line)}"
        out.append(reporter.diagnostic("CL101", msg, r.origin.site, reporter.sorted_fix(r)))
    return out


def unordered_prompt(reporter: _Reporter, reaches: list[Reach]) -> list[Diagnostic]:
    """CL102: system/instructions text assembled in an unordered order."""
    out = []
    for r in _first_reach_per_origin(reaches, UNORDERED, ("system",)):
        msg = f"system text built from {r.origin.what} (unordered) reaches {r.sink.label} at {_where(reporter.program, r.sink.line)}"
        out.append(reporter.diagnostic("CL102", msg, r.origin.site, reporter.sorted_fix(r)))
    return out


def volatile_prefix(reporter: _Reporter, reaches: list[Reach]) -> list[Diagnostic]:
    """CL105: a clock, random value, uuid, pid or per-request id in tools or system. A date changes
    once a day: reported as a warning. A value computed once when the module loads (at module
    level, outside any function or loop) is the same for every request of a process: the prefix
    differs from one process to the next, which costs a write per run, not per request: reported
    as information, saying so."""
    out = []
    once_lines: _OnceLines | None = None
    severity: Severity | None
    for r in _first_reach_per_origin(reaches, VOLATILE, ("tools", "system")):
        daily = r.origin.granularity == "date"
        if once_lines is None:
            once_lines = _OnceLines(reporter.program)
        if r.origin.granularity == "session":
            if r.origin.external is not None:
                # a user id formatted in another module (a file name, a log line) and carried
                # out coarsely through its function's result is no evidence of a per-user prompt
                continue
            effect = (
                "one cached prefix per user or session, never shared between them: every new session writes"
                " the prompt again; put per-user data after the cached part (a user message)"
            )
            severity = Severity.INFO
        elif r.origin.external is None and once_lines.evaluated_once(r.origin.site[0]):
            effect = (
                "computed once when the module loads, so the cached prefix differs between processes started on"
                " different days: a run on another day writes it again instead of reading the previous run's"
                if daily
                else "computed once when the module loads, so the cached prefix differs in every process:"
                " each run writes it again instead of reading the previous run's"
            )
            severity = Severity.INFO
        elif daily:
            effect, severity = "the cached prefix changes every day", Severity.WARNING
        else:
            effect, severity = "the cached prefix changes on every request", None
        msg = f"{r.origin.what} reaches {r.sink.label} at {_where(reporter.program, r.sink.line)}: {effect}"
        out.append(reporter.diagnostic("CL105", msg, r.origin.site, severity=severity))
    return out


class _OnceLines:
    """Which lines of a module run once per process: those outside every function, lambda and
    loop (a class body runs once too, its methods do not)."""

    def __init__(self, program: Program) -> None:
        import ast

        self.repeated: list[tuple[int, int]] = []
        stack: list[ast.AST] = [program.tree]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.For, ast.AsyncFor, ast.While)):
                self.repeated.append((node.lineno, node.end_lineno or node.lineno))
                continue  # everything inside repeats
            stack.extend(ast.iter_child_nodes(node))

    def evaluated_once(self, line: int) -> bool:
        return not any(start <= line <= end for start, end in self.repeated)


def _loop_changes(
    reporter: _Reporter, changes: list[LoopChange], tier: str, code: str, effect: Callable[[LoopChange], str]
) -> list[Diagnostic]:
    """One finding per changed place of a tier (at the first call it reaches), worded as
    "<place> is <changed> inside the loop that repeats the call: it reaches <sink>, <effect>"."""
    best: dict[Span, LoopChange] = {}
    for c in changes:
        if c.tier != tier:
            continue
        current = best.get(c.site)
        if current is None or (c.sink.line, c.sink.label) < (current.sink.line, current.sink.label):
            best[c.site] = c
    out = []
    for site in sorted(best):
        c = best[site]
        msg = (
            f"{c.path} is {c.action} inside the loop that repeats the call: it reaches {c.sink.label} "
            f"at {_where(reporter.program, c.sink.line)}, {effect(c)}"
        )
        out.append(reporter.diagnostic(code, msg, site))
    return out


def tools_changed_in_loop(reporter: _Reporter, changes: list[LoopChange]) -> list[Diagnostic]:
    """CL103: tools mutated or rebound inside the loop that repeats the call."""
    return _loop_changes(reporter, changes, "tools", "CL103", lambda c: "so each change rewrites the cached prefix from the tools (position 0) on")


def system_changed_in_loop(reporter: _Reporter, changes: list[LoopChange]) -> list[Diagnostic]:
    """CL104: system/instructions mutated or rebound inside the loop that repeats the call."""
    return _loop_changes(reporter, changes, "system", "CL104", lambda c: "so each change rewrites the cached prefix from the system prompt on")


# What a change of each cache-key setting loses (docs/background/prefix-and-invalidation.md#anthropic, docs/background/prefix-and-invalidation.md#openai; the audit's
# dated table is rules/packs/payloads-invalidation.yaml).
_SETTING_LOSES = {
    "tool_choice": "the cached messages",
    "thinking": "the cached messages",
    "model": "the whole cached prefix (caches are per model)",
    "response_format": "the cached system prompt and messages (the schema is a prefix to the system message)",
    "text": "the cached instructions and input (text.format's schema is a prefix to the instructions)",
    "prompt_cache_key": "the cache it was routed to (another key routes the request elsewhere)",
}


def setting_changed_in_loop(reporter: _Reporter, changes: list[LoopChange]) -> list[Diagnostic]:
    """CL106: a cache-key setting (tool_choice, thinking, model…) changed inside the loop that
    repeats the call: every change loses cached tiers without a byte of them changing."""

    def effect(c: LoopChange) -> str:
        setting = c.sink.label.split("=", 1)[0]
        return f"and each change of {setting} loses {_SETTING_LOSES.get(setting, 'cached tiers')}"

    return _loop_changes(reporter, changes, "setting", "CL106", effect)


_TIER_RANK = {"tools": 0, "system": 1, "setting": 2}


def _one_tier_per_site(changes: list[LoopChange]) -> list[LoopChange]:
    """One finding per changed place: ``request.update(tools=..., tool_choice=...)`` changes the
    tools and a setting at one site; the tools, earliest in the prefix, are what it loses."""
    best: dict[Span, int] = {}
    for c in changes:
        rank = _TIER_RANK.get(c.tier, 3)
        if rank < best.get(c.site, 4):
            best[c.site] = rank
    return [c for c in changes if _TIER_RANK.get(c.tier, 3) == best[c.site]]


def diagnostics_for(program: Program, reaches: list[Reach], changes: list[LoopChange]) -> list[Diagnostic]:
    reporter = _Reporter(program)
    changes = _one_tier_per_site(changes)
    out: list[Diagnostic] = []
    out += unordered_tools(reporter, reaches)
    out += unordered_prompt(reporter, reaches)
    out += volatile_prefix(reporter, reaches)
    out += tools_changed_in_loop(reporter, changes)
    out += system_changed_in_loop(reporter, changes)
    out += setting_changed_in_loop(reporter, changes)
    out.sort(key=Diagnostic.sort_key)
    return out
