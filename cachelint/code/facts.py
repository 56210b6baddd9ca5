"""``CodeFacts``: what a code rule (``cachelint/rules/code/``) reads about one module, and the views
of those facts the rules share: where a line is (a notebook's cell), a diagnostic at an ast span,
the reaches of one kind into some tiers (one per construction site), the loop changes of a tier
(one per changed place).

Made by the runner (findings.py) from the order-flow analysis (flow/) of the module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from cachelint.code.flow.facts import LoopChange, Reach, SinkRef, UncachedPrefix
from cachelint.code.program import Program
from cachelint.code.values import CONVERSATION, SELECTION, Span
from cachelint.diagnostics import Diagnostic, Fix, Severity

# A clock reduced to its date changes less often than the clock itself.
_GRANULARITY_RANK = {"date": 1}
# How often a sink takes a new value, from the most often (each request) on.
_RENEWED_RANK = {"run": 1, "call": 1, "conversation": 2, "agent": 2}


@dataclass(frozen=True)
class CodeFacts:
    program: Program
    # an origin (unordered or volatile) reaching a prefix argument of an LLM call
    reaches: tuple[Reach, ...]
    # a place a loop changes that reaches a call it repeats, one tier per changed place: the one
    # earliest in the prefix (``request.update(tools=..., tool_choice=...)`` is a tools change)
    changes: tuple[LoopChange, ...]
    # requests to a provider that caches only at a marker, whose static prefix carries none (CL107)
    uncached: tuple[UncachedPrefix, ...] = ()

    def where(self, line: int) -> str:
        """``line 12``, or ``cell 3, line 4`` in a notebook."""
        cell, cell_line = self.program.locate(line)
        if cell is None:
            return f"line {line}"
        return f"cell {cell}, line {cell_line}"

    def location(self, span: Span) -> dict[str, int]:
        """An ast span as 1-based lines and character columns of the program."""
        p = self.program
        line, col, end_line, end_col = span
        return {
            "line": line,
            "column": p.char_column(line, col),
            "end_line": end_line,
            "end_column": p.char_column(end_line, end_col),
        }

    def diagnostic(
        self,
        code: str,
        message: str,
        span: Span,
        fix: Fix | None = None,
        severity: Severity | None = None,
        related: Iterable[int] = (),
    ) -> Diagnostic:
        """``related``: the other lines of the program where the user sees this finding (the call
        it reaches, its argument, where the value is put in order): a suppression comment on one
        of them applies too (``details["related_lines"]``, in the finding's cell for a notebook)."""
        loc = self.location(span)
        details: dict[str, Any] = {}
        line, end_line = loc["line"], loc["end_line"]
        others = sorted(set(related) - {line})
        if self.program.is_notebook:
            cell, line = self.program.locate(loc["line"])
            _, end_line = self.program.locate(loc["end_line"])
            details["cell"] = cell
            others = sorted({n for c, n in map(self.program.locate, others) if c == cell} - {line})
        if others:
            details["related_lines"] = others
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

    @staticmethod
    def reach_lines(r: Reach) -> list[int]:
        """Where a reach shows besides its origin: the call, the argument, where the value is put
        in order in this module."""
        lines = [r.sink.line]
        if r.arg_span is not None:
            lines.append(r.arg_span[0])
        if r.origin.fix_at is not None and r.origin.fix_module is None:
            lines.append(r.origin.fix_at[0])
        return lines

    def first_reach_per_origin(self, kind: str, tiers: tuple[str, ...]) -> list[Reach]:
        """One reach per construction site of an origin of ``kind`` into one of ``tiers``: the sink
        with the lowest line (then label) is named. (A call into another module can carry several
        origins: still one finding at the call.)"""
        best: dict[Span, tuple[tuple, Reach]] = {}
        for r in self.reaches:
            if r.origin.kind != kind or r.sink.tier not in tiers:
                continue
            # One clock read once can reach a prompt both whole and reduced to its date (``f"{now}"``
            # and ``now.year`` in one template): the finest change is the one the prompt sees.
            coarse = _GRANULARITY_RANK.get(r.origin.granularity, 0)
            rank = (
                coarse,
                _RENEWED_RANK.get(r.sink.renewed or "", 0),  # a request it reaches anew before a conversation it starts
                r.sink.line,
                r.sink.label,
                r.arg_span is None,
                r.origin.what,
                r.origin.fix_at or (0, 0, 0, 0),
            )
            current = best.get(r.origin.site)
            if current is None or rank < current[0]:
                best[r.origin.site] = (rank, r)
        return [best[site][1] for site in sorted(best)]

    def first_change_per_place(self, tier: str) -> list[LoopChange]:
        """One change per changed place of ``tier``, at the first call it reaches (lowest line, then
        label), in the order of the places."""
        # a selection by state that a function the loop calls changes is reported at the selection
        # (rebuilt_per_request): it says what to list instead
        selected = {
            (r.origin.attr, r.sink.line)
            for r in self.reaches
            if r.origin.kind == CONVERSATION and r.origin.mode == SELECTION
        }
        best: dict[Span, LoopChange] = {}
        for c in self.changes:
            if c.tier != tier or (c.by_call and (c.path, c.sink.line) in selected):
                continue
            current = best.get(c.site)
            if current is None or (c.sink.line, c.sink.label) < (current.sink.line, current.sink.label):
                best[c.site] = c
        return [best[site] for site in sorted(best)]

    def reached(self, sink: SinkRef) -> str:
        """The call a value reaches, and where: ``tools= of client.messages.create at line 12``,
        or, for a call inside another module's function, ``tools= of client.messages.create in
        pkg.llm.ask (line 7), called at line 12`` (the call of this module that leads there)."""
        if sink.external is not None:
            return f"{sink.label}, called at {self.where(sink.line)}"
        return f"{sink.label} at {self.where(sink.line)}"

    def rebuilt_per_request(self, tier: str) -> list[Reach]:
        """The reaches of the conversation's state into ``tier`` (one per construction site), but
        a selection by a place that a loop repeating the same call changes: that change is the
        finding (first_change_per_place)."""
        in_loops = {(c.path, c.sink.line) for c in self.changes if c.tier == tier and not c.by_call}
        return [
            r
            for r in self.first_reach_per_origin(CONVERSATION, (tier,))
            if not (r.origin.mode == SELECTION and (r.origin.attr, r.sink.line) in in_loops)
        ]

    def per_request_message(self, r: Reach, rewritten: str) -> str:
        """How CL103 and CL104 word a prefix rebuilt for the requests of a conversation with no
        change in view of a loop: built from the conversation itself, or listing only the entries
        a test on state that changes between requests lets through (the skills not loaded yet)."""
        if r.origin.mode == SELECTION:
            return (
                f"{self.reached(r.sink)} keeps only the entries that a test on {r.origin.what} lets"
                f" through, so the request after each change rewrites {rewritten}"
            )
        return f"{self.reached(r.sink)} is built from {r.origin.what}, which differs on every request, so every request rewrites {rewritten}"

    def loop_change_message(self, c: LoopChange, effect: str) -> str:
        """How CL103, CL104 and CL106 word a change: "<place> is <changed> inside the loop that
        repeats the call: it reaches <sink>, <effect>"."""
        return (
            f"{c.path} is {c.action} inside the loop that repeats the call: it reaches {self.reached(c.sink)}, {effect}"
        )


__all__ = ["CodeFacts"]
