"""One file through the code checks: parse (CL001 on failure), prefilter, analyse, report.
Also the per-module summary used across modules of the same run."""

from __future__ import annotations

import contextlib
import sys
from pathlib import PurePosixPath
from typing import Any, Mapping

from cachelint.code.findings import diagnostics_for
from cachelint.code.flow.analysis import ModuleAnalysis
from cachelint.code.flow.facts import Positions
from cachelint.code.flow.scopes import is_abstract_stub
from cachelint.code.flow.summary_data import value_to_data
from cachelint.code.knowledge import Knowledge, knowledge_for
from cachelint.code.program import KnownToParse, Program, parse_notebook, parse_python, syntax_problems
from cachelint.code.values import PARAM, Value
from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.rules import enabled
from cachelint.rules.declarations import CodeRule

# The walk recurses once per nesting level of the ast (a 500-term string concatenation is 500
# levels). Python 3.11 frames of pure-Python recursion are cheap, so a higher limit is safe; beyond
# it the file is reported as CL001 instead of crashing the worker.
_RECURSION_LIMIT = 12000

Summaries = Mapping[str, Mapping[str, Any]]


def _module_parts(path: str) -> list[str]:
    parts = list(PurePosixPath(path.replace("\\", "/")).with_suffix("").parts)
    parts = [p for p in parts if p not in ("", ".", "..", "/")]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
        parts.append("__init__")  # the package itself: relative imports start from its folder
    return parts


class _ProjectIndex:
    """Finds another module's summary for a dotted callee, absolute or relative to this file."""

    def __init__(self, path: str, summaries: Summaries) -> None:
        self.summaries = summaries
        self.package = _module_parts(path)[:-1]

    def _candidates(self, dotted: str) -> list[tuple[str, str]]:
        level = len(dotted) - len(dotted.lstrip("."))
        rest = [p for p in dotted.lstrip(".").split(".") if p]
        if len(rest) < 2 and level == 0:
            return []
        if not rest:
            return []
        head, last = rest[:-1], rest[-1]
        if level == 0:
            return [(".".join(head), last)]
        base = self.package[: len(self.package) - (level - 1)] if level > 1 else self.package
        out = []
        for i in range(len(base) + 1):
            module = ".".join(base[i:] + head)
            if module:
                out.append((module, last))
        return out

    def lookup_method(self, class_dotted: str, method: str) -> tuple[str, Mapping[str, Any], str] | None:
        for module, name in self._candidates(class_dotted):
            summary = self.summaries.get(module)
            if summary is None:
                continue
            # The module is in the run: a method missing from its summary passes its arguments
            # through (summaries leave those out) and adds nothing of the instance.
            known = summary.get("classes", {}).get(name, {})
            entry = known.get("methods", {}).get(method)
            return f"{module}.{name}.{method}", entry if entry is not None else {"passes_arguments": True}, module
        return None

    def class_methods(self, class_dotted: str) -> list[tuple[str, str, Mapping[str, Any]]]:
        """(qualified name, module, method entries) of the class ``class_dotted`` names in the run."""
        for module, name in self._candidates(class_dotted):
            summary = self.summaries.get(module)
            if summary is None:
                continue
            known = summary.get("classes", {}).get(name, {})
            return [(f"{module}.{name}", module, known.get("methods", {}))]
        return []

    def lookup(self, dotted: str, table: str) -> tuple[str, Mapping[str, Any], str] | None:
        """(qualified name, summary entry, dotted name of the module) of ``dotted``."""
        for module, name in self._candidates(dotted):
            summary = self.summaries.get(module)
            if summary is None:
                continue
            entry = summary.get(table, {}).get(name)
            if entry is not None:
                return f"{module}.{name}", entry, module
        return None


def _wrapper_names(summaries: Summaries) -> frozenset[str]:
    """Functions and methods of other modules that pass a parameter to a sink: a call of one is a
    sink call of this file."""
    names: set[str] = set()
    for summary in summaries.values():
        names.update(
            name
            for name, data in summary.get("functions", {}).items()
            if data.get("param_sinks") or data.get("param_settings")
        )
        for class_name, info in summary.get("classes", {}).items():
            names.update(
                name
                for name, data in info.get("methods", {}).items()
                if data.get("param_sinks") or data.get("param_settings")
            )
            if info.get("methods", {}).get("__init__", {}).get("param_sinks"):
                names.add(class_name)  # a call of the class is a call of its constructor
    return frozenset(names)


_WRAPPERS_CACHE: dict[int, tuple[Summaries, frozenset[str]]] = {}


def required(rules: tuple[CodeRule, ...]) -> frozenset[str]:
    """What a file must show for one of ``rules`` to find anything in it: the union of what each
    requires (``CodeRule.requires``)."""
    return frozenset(r for rule in rules for r in rule.requires)


def _passes_prefilter(text: str, knowledge: Knowledge, summaries: Summaries | None, requires: frozenset[str]) -> bool:
    """Cheap text test (prefilter.py) of what the enabled rules require: without a sink called
    with a prefix argument, a system message or a call of another module's function that reaches a
    sink (``sink-call``), or a name that says it holds the system prompt (``system-prompt-name``),
    no flow in this file can reach what those rules report on."""
    sinks = "sink-call" in requires
    if sinks and (knowledge.prefilter is None or knowledge.prefilter.passes(text)):
        return True
    if "system-prompt-name" in requires and knowledge.may_name_system_prompt(text):
        return True
    if sinks and summaries:
        cached = _WRAPPERS_CACHE.get(id(summaries))
        if cached is None or cached[0] is not summaries:
            cached = (summaries, _wrapper_names(summaries))
            _WRAPPERS_CACHE.clear()
            _WRAPPERS_CACHE[id(summaries)] = cached
        return any(name in text for name in cached[1])
    return False


# Per process: a module summarised and then checked in the same process, whose check the
# prefilter skips, is parsed once (see KnownToParse).
_KNOWN_TO_PARSE = KnownToParse()


def _parse_python(path: str, text: str, explain: bool = True) -> tuple[Program | None, list[Diagnostic]]:
    parsed = parse_python(path, text, explain)
    if isinstance(parsed, Diagnostic):
        return None, [parsed]
    _KNOWN_TO_PARSE.add(path, text)
    return parsed, []


def _analyse(
    program: Program, knowledge: Knowledge, path: str, summaries: Summaries | None, loop_changes: bool = True
) -> ModuleAnalysis:
    resolve = resolve_name = resolve_method = resolve_class = None
    if summaries:
        index = _ProjectIndex(path, summaries)

        def raw(parts: tuple[str, ...]) -> str:
            return ".".join(parts)

        def resolve(parts: tuple[str, ...]):
            return index.lookup(raw(parts), "functions")

        def resolve_name(parts: tuple[str, ...]):
            return index.lookup(raw(parts), "names")

        def resolve_method(class_dotted: str, method: str):
            return index.lookup_method(class_dotted, method)

        def resolve_class(class_dotted: str):
            return index.lookup(class_dotted, "classes")

    analysis = ModuleAnalysis(program.tree, knowledge, resolve, resolve_name, resolve_method, resolve_class)
    analysis.loop_changes_wanted = loop_changes
    analysis.analyse()
    return analysis


@contextlib.contextmanager
def _deep_recursion():
    """ast.parse (3.11 checks the Python recursion limit while building the tree) and the walk both
    recurse once per nesting level."""
    limit = sys.getrecursionlimit()
    if limit < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    try:
        yield
    finally:
        if limit < _RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


def check(
    path: str, text: str, settings: Any, project_summaries: Summaries | None = None, *, prefilter: bool = True
) -> list[Diagnostic]:
    """The findings of one file (see ``_check``); a notebook's also give their place in its file."""
    found = _check(path, text, settings, project_summaries, prefilter)
    return with_notebook_positions(found, text) if path.endswith(".ipynb") else found


def _check(
    path: str, text: str, settings: Any, project_summaries: Summaries | None, prefilter: bool
) -> list[Diagnostic]:
    """The rules ``settings`` enable, on a file whose text shows what one of them requires (the
    others are only checked for syntax). ``prefilter=False`` analyses every file (the tests prove
    with it that the prefilter only skips files where the analysis finds nothing)."""
    knowledge = knowledge_for(settings)
    rules: tuple[CodeRule, ...] = enabled("code", settings)
    requires = required(rules)
    with _deep_recursion():
        if path.endswith(".ipynb"):
            # Filtered on its code, not on the JSON that quotes it.
            program, problems = parse_notebook(path, text)
            if program is None or (
                prefilter and not _passes_prefilter("\n".join(program.lines), knowledge, project_summaries, requires)
            ):
                return problems
        else:
            if prefilter and not _passes_prefilter(text, knowledge, project_summaries, requires):
                return [] if (path, text) in _KNOWN_TO_PARSE else syntax_problems(path, text)
            program, problems = _parse_python(path, text)
            if program is None:
                return problems
        try:
            analysis = _analyse(program, knowledge, path, project_summaries)
        except (RecursionError, MemoryError):
            return problems + [unreadable(path, "too deeply nested to analyse")]
    found = diagnostics_for(program, analysis.reaches, analysis.changes, rules, analysis.uncached)
    return sorted(problems + found, key=Diagnostic.sort_key)


def with_notebook_positions(diagnostics: list[Diagnostic], text: str) -> list[Diagnostic]:
    """Each finding in a notebook's cell also says where it is in the notebook's file (its JSON
    text): the reports that address the file itself (SARIF, CI annotations) point there
    (``details["notebook_position"]``: line, column, end line, end column, 1-based)."""
    if not any(d.details and isinstance(d.details.get("cell"), int) for d in diagnostics):
        return diagnostics
    from cachelint.code.notebook_json import NotebookPositions

    positions = NotebookPositions(text)
    out = []
    for d in diagnostics:
        cell = d.details.get("cell") if d.details else None
        start = positions.position(cell, d.line, d.column) if isinstance(cell, int) else None
        if start is None or not isinstance(cell, int):
            out.append(d)
            continue
        end = positions.position(cell, d.end_line or d.line, d.end_column or d.column) or start
        where = {"line": start[0], "column": start[1], "end_line": end[0], "end_column": end[1]}
        out.append(d.with_changes(details={**d.details, "notebook_position": where}))
    return out


def _says_something(v: Value) -> bool:
    """A return value that only passes its parameters through is what a caller assumes of any
    unknown function anyway: leaving it out keeps summaries (and cache keys) small. Sorting a
    parameter, or a real origin, is worth telling."""
    return any(o.kind != PARAM or o.mode == "sorted" for o in v.own | v.inner)


def _real(v: Value) -> bool:
    return any(o.kind != PARAM for o in v.own | v.inner)


def summarize(path: str, text: str, settings: Any = None, project_summaries: Summaries | None = None) -> dict[str, Any]:
    """What other modules need: top-level functions (parameters, what they return, which parameters
    reach which sink) and module-level names holding unordered or volatile values.

    ``project_summaries``: the summaries of the project modules this one imports (made the same
    way, first), so that what a call into a third module returns or sends is part of this summary
    (``b.apply()`` returning ``c.get_section(names)``, which sorts them)."""
    if path.endswith(".ipynb"):
        return {"functions": {}, "classes": {}, "names": {}}
    knowledge = knowledge_for(settings)
    with _deep_recursion():
        program, _problems = _parse_python(path, text, explain=False)  # a summary shows no message
        if program is None:
            return {"functions": {}, "classes": {}, "names": {}}
        try:
            analysis = _analyse(program, knowledge, path, project_summaries, loop_changes=False)
        except (RecursionError, MemoryError):
            return {"functions": {}, "classes": {}, "names": {}}

    def positions(span: tuple[int, int, int, int]) -> list[int]:
        line, col, end_line, end_col = span
        return [line, program.char_column(line, col), end_line, program.char_column(end_line, end_col)]

    functions: dict[str, Any] = {}
    for name, node in sorted(analysis.module_funcs.items()):
        entry = _function_entry(analysis, node, positions)
        if entry is not None:
            functions[name] = entry
    own_methods: dict[str, dict[str, Any]] = {}
    for class_name, info in sorted(analysis.classes.items()):
        methods = {}
        for method_name, node in sorted(info.methods.items()):
            entry = _function_entry(analysis, node, positions)
            if entry is not None:
                methods[method_name] = entry
        own_methods[class_name] = methods
    index = _ProjectIndex(path, project_summaries) if project_summaries else None
    classes: dict[str, Any] = {}
    for class_name, info in sorted(analysis.classes.items()):
        methods = _with_inherited(analysis, info, own_methods, index)
        methods.update(_abstract_overrides(analysis, info, own_methods))
        constructor = analysis._constructor_sinks(info)
        if constructor is not None:
            # the constructor with what it sends through the instance's attributes (a call of the
            # class in another module is a sink call)
            params, sinks = constructor
            init = dict(methods.get("__init__") or {"params": params})
            init["param_sinks"] = _sinks_data(sinks)
            methods["__init__"] = init
        if methods:
            classes[class_name] = {"methods": methods}
    names: dict[str, Any] = {}
    for name, value in sorted(analysis.module_frame.names.items()):
        if "." in name or "[" in name or not _real(value):
            continue
        names[name] = value_to_data(
            Value(
                frozenset(o for o in value.own if o.kind != PARAM),
                frozenset(o for o in value.inner if o.kind != PARAM),
                value.kind,
                value.elements,
            ),
            positions,
        )
    return {"functions": functions, "classes": classes, "names": names}


def _abstract_overrides(
    analysis: ModuleAnalysis, info: Any, own_methods: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    """The entries of the class's abstract methods that a subclass of this module overrides: a
    call in another module through an instance declared of the base (``llm: LLM``, then
    ``self.llm.completion(...)``) runs the override (``overridden_by`` names its class)."""
    out: dict[str, Any] = {}
    for name, node in sorted(info.methods.items()):
        if not is_abstract_stub(node):
            continue
        override = analysis.overriding_method(info, name)
        owner = analysis.func_class.get(id(override)) if override is not None else None
        entry = own_methods.get(owner.name, {}).get(name) if owner is not None else None
        if entry is not None and owner is not None:
            out[name] = {**entry, "overridden_by": owner.name}
    return out


def _with_inherited(
    analysis: ModuleAnalysis, info: Any, own_methods: Mapping[str, dict[str, Any]], index: _ProjectIndex | None
) -> dict[str, Any]:
    """The class's method entries and those it inherits without overriding them, from a base of
    this module or of another module of the run (depth-first, first base first, as the analysis
    looks them up): a call of ``Sub(...).handle()`` in another module runs the base's ``handle``.
    An entry inherited from another module says where it is defined (its sink lines and fix spots
    are that module's)."""
    methods: dict[str, Any] = {}
    defined: set[str] = set()

    def visit(current: Any, depth: int) -> None:
        if depth > 8:
            return
        for name, entry in own_methods.get(current.name, {}).items():
            if name not in defined:
                methods[name] = entry
        defined.update(current.methods)
        for kind, base in current.bases:
            if kind == "local":
                base_info = analysis.classes.get(base)
                if base_info is not None and base_info is not current:
                    visit(base_info, depth + 1)
            elif index is not None:
                for qualified_class, module, entries in index.class_methods(base):
                    for name, entry in sorted(entries.items()):
                        if name not in defined:
                            methods[name] = {
                                **entry,
                                "defined_in": entry.get("defined_in", f"{qualified_class}.{name}"),
                                "defined_module": entry.get("defined_module", module),
                            }
                            defined.add(name)

    visit(info, 0)
    return {name: methods[name] for name in sorted(methods)}


def _function_entry(analysis: ModuleAnalysis, node: Any, positions: Positions) -> dict[str, Any] | None:
    """A function's summary as data: parameters, what it returns, which parameters reach a sink;
    where the unordered values it returns are first put in order (``positions``: see flow.Positions),
    so that an importer's finding is fixed here."""
    summary = analysis.summaries.get(id(node))
    if summary is None:
        return None
    entry: dict[str, Any] = {"params": list(summary.params)}
    if summary.returns and _says_something(summary.returns):
        entry["returns"] = value_to_data(summary.returns, positions)
        # what each item of a returned tuple, or each field of a returned Cls(a=..., b=...),
        # carries: ``tools, setup = assemble(...)`` in another module takes only its item
        if summary.tuple_ok and summary.tuple_returns is not None:
            entry["tuple_returns"] = [value_to_data(v, positions) for v in summary.tuple_returns]
        elif summary.fields_ok and summary.field_returns:
            entry["field_returns"] = {
                name: value_to_data(v, positions) for name, v in sorted(summary.field_returns.items())
            }
    if summary.param_sinks:
        entry["param_sinks"] = _sinks_data(summary.param_sinks)
    settings = _param_settings(summary)
    if settings:
        entry["param_settings"] = settings
    if summary.param_attrs and getattr(node, "name", None) == "__init__":
        # the parameters the constructor stores on the instance: a subclass's methods may send them
        entry["param_attrs"] = {
            attr: sorted([list(pair) for pair in pairs]) for attr, pairs in sorted(summary.param_attrs.items())
        }
    return entry if len(entry) > 1 else None


def _param_settings(summary: Any) -> dict[str, Any]:
    """The parameters a function sends, as they are, to a cache-key setting of a sink
    (``tool_choice=tool_choice``): a caller that changes what it passes between two calls
    changes the setting (CL106 in the caller)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for used, sink in summary.uses:
        if sink.tier == "setting" and used in summary.params:
            out.setdefault(used, []).append({"label": sink.label, "line": sink.line})
    return {param: sorted(entries, key=lambda d: (d["line"], d["label"])) for param, entries in sorted(out.items())}


def _sinks_data(param_sinks: Mapping[str, Any]) -> dict[str, Any]:
    return {
        param: sorted(
            (
                {"tier": s.tier, "label": s.label, "line": s.line, "mode": mode}
                # how often it is made anew, where that is not each request: per conversation started,
                # per agent kept (Summary: SinkRef.renewed), as the importer's findings must say
                | ({"renewed": s.renewed} if s.renewed is not None else {})
                for s, mode in sinks
            ),
            key=lambda d: (d["line"], d["label"], d["mode"], d.get("renewed", "")),
        )
        for param, sinks in sorted(param_sinks.items())
    }
