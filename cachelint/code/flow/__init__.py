"""The order-flow analysis: one walk over a module's ast that follows unordered and volatile values
into the prefix arguments of LLM calls, and watches the loops that repeat those calls.

How it works (see docs/code-checks.md):
- Statements run in source order in a ``Frame`` (a function activation, or the module). A name maps to
  a ``Value`` (values.py); ``if``/``try`` branches are analysed on copies and merged, loops once with
  their assignments merged into what was there before (a may-analysis: a value is unordered if it can
  be on some path).
- Expressions are evaluated by handlers dispatched on the node type. Calls are looked up in the
  knowledge tables (knowledge.py): sinks, unordered sources, sanitizers, volatile calls.
- Functions of the module are analysed once, with their parameters as symbolic origins, into a
  ``Summary`` (what they return, which parameters reach which sink); a call applies the summary.
  Module-level functions are analysed after the module body (so they see every global), or earlier
  on their first call. Summaries of other modules of the same run come in as plain data.
- A sink argument's value yields ``Reach`` facts (an origin reaching a sink); a loop that contains a
  sink and changes the variable passed to it yields ``LoopChange`` facts. The code rules
  (``cachelint/rules/code/``) read both, as ``cachelint.code.facts.CodeFacts``.

The package, by responsibility, each layer of ``ModuleAnalysis`` a subclass of the one before it
(a layer calls the layers below it directly, and those above it only through the dispatch tables,
``Scopes.eval`` and ``Scopes.block``):

- ``facts``: the data types (``SinkRef``, ``Reach``, ``LoopChange``, ``Summary``, ``Change``,
  ``LoopFrame``...);
- ``summary_data``: summaries as plain data, written for and read from other modules;
- ``scopes``: ``Frame``, the names of places, and ``Scopes``: the analysis' state, dispatch,
  binding and name resolution;
- ``sinks``: the prefix arguments of LLM calls, and the ``Reach`` facts they give;
- ``calls``: what calls return and do, and function summaries (``summary_of``);
- ``expressions``: the value of each kind of expression;
- ``loops``: ``for``/``while`` and the ``LoopChange`` facts of what a loop changes;
- ``statements``: the other statements;
- ``analysis``: ``ModuleAnalysis`` and its dispatch tables.
"""

from __future__ import annotations

from cachelint.code.flow.analysis import ModuleAnalysis
from cachelint.code.flow.facts import (
    Change,
    ClassInfo,
    ClassRef,
    External,
    LoopChange,
    LoopFrame,
    Positions,
    Reach,
    SinkRef,
    Summary,
    span_of,
)
from cachelint.code.flow.scopes import FIRST, Frame, first_item_place, path_of, place_of
from cachelint.code.flow.summary_data import origin_to_data, value_to_data

__all__ = [
    "FIRST",
    "Change",
    "ClassInfo",
    "ClassRef",
    "External",
    "Frame",
    "LoopChange",
    "LoopFrame",
    "ModuleAnalysis",
    "Positions",
    "Reach",
    "SinkRef",
    "Summary",
    "first_item_place",
    "origin_to_data",
    "path_of",
    "place_of",
    "span_of",
    "value_to_data",
]
