"""Agent-code checks (CL101-CL106): order-flow analysis of Python sources and notebooks.

Entry points:
- ``check_module(path, text, settings, project_summaries=None) -> list[Diagnostic]`` (the engine's
  per-file call; never raises);
- ``summarize_module(path, text, settings=None) -> dict``: what other modules of the same run need to
  know about this one (functions returning unordered or volatile values, parameters that reach a
  sink, unordered module-level names), JSON-serialisable; pass the summaries of a run, keyed by the
  module's dotted name, back to ``check_module`` as ``project_summaries``; the summaries of the
  modules a module imports, passed to its own ``summarize_module``, make its summary follow calls
  into them (chains of modules).

How: a text prefilter built from the packs (prefilter.py: a sink called with a prefix argument, a
system message...); a file it skips is only checked for syntax (a SyntaxError is CL001); the others
get one ``ast.parse`` and one walk (flow/) whose facts (facts.py) the rule modules of
``cachelint/rules/code/`` turn into diagnostics (findings.py runs them). Measured on the SDK
corpus of docs/benchmarks.md: libcst parsing costs about 8.5x ``ast.parse``, so the analysis runs on ``ast``; the fixes name
expressions by ast positions and are applied on LibCST's tree (rewrite.py), which only the files with
a fix to apply are parsed into.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.diagnostics import Diagnostic


def check_module(
    path: str,
    text: str,
    settings: "Settings | None",
    project_summaries: "Mapping[str, Mapping[str, Any]] | None" = None,
) -> "list[Diagnostic]":
    from cachelint.code.analysis import check

    return check(path, text, settings, project_summaries)


def summarize_module(
    path: str,
    text: str,
    settings: "Settings | None" = None,
    project_summaries: "Mapping[str, Mapping[str, Any]] | None" = None,
) -> dict[str, Any]:
    from cachelint.code.analysis import summarize

    return summarize(path, text, settings, project_summaries)


__all__ = ["check_module", "summarize_module"]
