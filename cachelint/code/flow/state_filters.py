"""Prefixes that select their entries by state the program changes between requests.

A skill listing shows the name and description of every skill in the prompt and loads a skill's
body on demand (progressive disclosure). An agent that lists only the skills not yet loaded
(``n not in self.loaded``), or only those enabled so far, builds another listing whenever that
collection changes: the same conversation sends another system prompt (or tool description) after
each load, and the cached prefix is written again from that tier on. Found where the collection
is an attribute of the agent's instance or a module global that a function other than the
constructor changes (``self.loaded.add(name)`` in the tool that loads a skill), and the system or
tools argument of a request is built, through the function's names and the methods or module
functions it calls for it, from a selection by that collection: a membership test (``in``,
``not in``), a set difference or intersection. A collection filled only while the object is built
(``__init__`` and the methods it calls) is a set-up, not a change; a collection the prompt
iterates without selecting by it (a registry of tools) is not reported here."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterator

from cachelint.code.flow.dependencies import LocalDeps
from cachelint.code.flow.scopes import place_of

# The methods that build an object: what they put in its attributes is its initial state.
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__", "__set_name__"})
# Set methods whose result is a selection of one collection by another.
_SELECTING_METHODS = frozenset({"difference", "intersection", "symmetric_difference"})
# Builtins that copy a collection: a selection by the copy selects by the collection.
_COPIES = frozenset({"set", "frozenset", "list", "tuple", "sorted", "dict"})
# How far the prefix is followed into the methods and functions that build it.
_MAX_DEPTH = 3
_MAX_NODES = 256


@dataclass(frozen=True)
class StateFilter:
    """A selection (``site``) by ``place`` (``self.loaded``, a global ``ACTIVE``) that ``changed_by``
    changes at ``changed_at`` (a line)."""

    site: ast.AST
    place: str
    changed_by: str
    changed_at: int


def first_param(function: ast.AST) -> str | None:
    args = getattr(function, "args", None)
    positional = (args.posonlyargs + args.args) if args is not None else []
    return positional[0].arg if positional else None


def _written_places(function: ast.AST, mutating_methods: frozenset[str]) -> Iterator[tuple[str, int, bool]]:
    """The places ``function`` changes in place or rebinds (``x.add(v)``, ``x[k] = v``,
    ``x |= v``, ``x = v``, ``del x[k]``), with the line and whether the place is rebound (a name
    rebound in a function is its own local unless declared ``global``)."""
    for node in ast.walk(function):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in mutating_methods:
            targets = [node.func.value]
        elif isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        for target in targets:
            for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                place = place_of(element)
                if place is not None:
                    rebound = not isinstance(node, (ast.Call, ast.Delete)) and isinstance(
                        element, (ast.Name, ast.Attribute)
                    )
                    yield place, node.lineno, rebound  # type: ignore[attr-defined]


def _called_methods(function: ast.AST, self_name: str | None) -> set[str]:
    """The methods of its own instance ``function`` calls (``self.load()``)."""
    out: set[str] = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == self_name
        ):
            out.add(node.func.attr)
    return out


def changed_attributes(methods: dict[str, ast.AST], mutating_methods: frozenset[str]) -> dict[str, tuple[str, int]]:
    """The attributes of its instance that a method of a class changes after the object is built:
    attribute -> (the first method that changes it, the line)."""
    building = set(_CONSTRUCTORS & methods.keys())
    todo = list(building)
    while todo:  # the methods the constructor calls build the object too
        method = methods[todo.pop()]
        for called in _called_methods(method, first_param(method)):
            if called in methods and called not in building:
                building.add(called)
                todo.append(called)
    out: dict[str, tuple[str, int]] = {}
    for name in sorted(methods, key=lambda n: (getattr(methods[n], "lineno", 0), n)):
        if name in building:
            continue
        method = methods[name]
        if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list):  # type: ignore[attr-defined]
            continue
        for attribute, line in attributes_changed_by(method, mutating_methods):
            if attribute not in methods and attribute not in out:
                out[attribute] = (f"{name}()", line)
    return out


def module_names(tree: ast.Module) -> set[str]:
    """The names the module's own statements bind (its globals)."""
    return {
        name
        for stmt in tree.body
        if isinstance(stmt, (ast.Assign, ast.AnnAssign))
        for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        if (name := place_of(t)) is not None
    }


def _global_places(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    names: set[str],
    functions: dict[str, ast.AST],
    mutating_methods: frozenset[str],
) -> Iterator[tuple[str, int]]:
    """The places in module globals (of ``names``) that ``function`` writes, as written
    (``FILES``, ``CONFIG.model``), with the line. A name the function binds itself is its own,
    unless declared ``global``."""
    declared = {name for n in ast.walk(function) if isinstance(n, ast.Global) for name in n.names}
    params = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    bound = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - declared
    for place, line, rebound in _written_places(function, mutating_methods):
        name = place.split(".")[0].split("[")[0]
        if name not in names or name in params or name in functions:
            continue
        if (rebound and place == name and name not in declared) or name in bound:
            continue  # a local of the same name
        yield place, line


def _attribute_places(function: ast.AST, mutating_methods: frozenset[str]) -> Iterator[tuple[str, int]]:
    """The places in the attributes of its own instance that a method writes, as written after
    ``self.`` (``notes``, ``tools.config.parser``), with the line."""
    self_name = first_param(function)
    if self_name is None:
        return
    for place, line, _rebound in _written_places(function, mutating_methods):
        head, _, rest = place.partition(".")
        if head == self_name and rest:
            yield rest, line


def globals_changed_by(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    names: set[str],
    functions: dict[str, ast.AST],
    mutating_methods: frozenset[str],
) -> Iterator[tuple[str, int]]:
    """The module globals (of ``names``) that ``function`` changes when it runs, with the line."""
    for place, line in _global_places(function, names, functions, mutating_methods):
        yield place.split(".")[0].split("[")[0], line


def attributes_changed_by(function: ast.AST, mutating_methods: frozenset[str]) -> Iterator[tuple[str, int]]:
    """The attributes of its own instance that a method changes when it runs (``self.notes``), as
    the attribute's name, with the line."""
    for rest, line in _attribute_places(function, mutating_methods):
        yield rest.split(".")[0].split("[")[0], line


def _empty(node: ast.AST) -> bool:
    """An empty collection: ``[]``, ``{}``, ``()``, ``set()``, ``list()``, ``dict()``."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return not node.elts
    if isinstance(node, ast.Dict):
        return not node.keys
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "dict", "set", "tuple")
        and not node.args
        and not node.keywords
    )


def _resets_and_restores(function: ast.AST) -> tuple[set[tuple[str, int]], set[str]]:
    """The writes of ``function`` that leave a place as a new session starts it or as the function
    found it: the places emptied, (place, line) (``files = {}``, ``files.clear()``: a reset, what
    starting over does), and the places given back the value a local saved from them (``saved =
    self.llm`` ... ``self.llm = saved`` in ``finally``: every write of such a place in the function
    is a temporary override)."""
    saved: dict[str, str] = {}  # local -> the place its value was read from
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            source = place_of(node.value) if isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)) else None
            if source is not None:
                saved[node.targets[0].id] = source
    emptied: set[tuple[str, int]] = set()
    restored: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                place = place_of(target)
                if place is None:
                    continue
                if _empty(node.value):
                    emptied.add((place, node.lineno))
                elif isinstance(node.value, ast.Name) and saved.get(node.value.id) == place:
                    restored.add(place)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "clear"
            and not node.args
            and (place := place_of(node.func.value)) is not None
        ):
            emptied.add((place, node.lineno))
    return emptied, restored


def state_changes(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    names: set[str],
    functions: dict[str, ast.AST],
    mutating_methods: frozenset[str],
    own_instance: bool,
) -> Iterator[tuple[str, str, int]]:
    """What running ``function`` changes outside itself and leaves changed: ("global", the place
    written, line), and with ``own_instance`` ("attribute", the place after ``self.``, line). Not
    the resets and restores (_resets_and_restores)."""
    emptied, restored = _resets_and_restores(function)
    for place, line in _global_places(function, names, functions, mutating_methods):
        if (place, line) not in emptied and place not in restored:
            yield "global", place, line
    if own_instance:
        self_name = first_param(function)
        for rest, line in _attribute_places(function, mutating_methods):
            written = f"{self_name}.{rest}"
            if (written, line) not in emptied and written not in restored:
                yield "attribute", rest, line


def changed_globals(
    tree: ast.Module, functions: dict[str, ast.AST], mutating_methods: frozenset[str]
) -> dict[str, tuple[str, int]]:
    """The module's global names that a function (or method) changes when it runs, not while the
    module is set up: name -> (the first function that changes it, the line)."""
    names = module_names(tree)
    out: dict[str, tuple[str, int]] = {}
    defs = sorted(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for function in defs:
        for name, line in globals_changed_by(function, names, functions, mutating_methods):
            if name not in out:
                out[name] = (f"{function.name}()", line)
    return out


def _collection(node: ast.AST) -> ast.AST:
    """The collection a copy is made of: ``c`` for ``set(c)``, ``list(c)``, ``sorted(c)``."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _COPIES
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    return node


def _selections(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """Each selection in ``node`` and the collection it selects by: ``x in c`` / ``x not in c``
    (c), ``a - c``, ``a & c``, ``a ^ c`` (both sides), ``a.difference(c)`` (c)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Compare):
            for op, right in zip(sub.ops, sub.comparators):
                if isinstance(op, (ast.In, ast.NotIn)):
                    yield sub, _collection(right)
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Sub, ast.BitAnd, ast.BitXor)):
            yield sub, _collection(sub.right)
            if not isinstance(sub.op, ast.Sub):
                yield sub, _collection(sub.left)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in _SELECTING_METHODS:
            for arg in sub.args:
                yield sub, _collection(arg)


def _loop_tests(function: ast.AST) -> dict[int, list[ast.AST]]:
    """id(statement inside a ``for`` loop) -> the tests of the ``if`` statements of that loop's
    body: a loop that appends only what passes a test selects what it builds."""
    out: dict[int, list[ast.AST]] = {}
    for loop in ast.walk(function):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        tests = [n.test for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.If)]
        if not tests:
            continue
        for stmt in loop.body:
            for n in ast.walk(stmt):
                out.setdefault(id(n), []).extend(tests)
    return out


@dataclass
class StateFilterSearch:
    """Follows a prefix argument back through the names of the function that sends it and into
    the methods of its own instance and the module functions it calls."""

    methods: dict[str, ast.AST]  # the class's methods (empty outside a class)
    functions: dict[str, ast.AST]  # the module's functions
    attributes: dict[str, tuple[str, int]]  # changed_attributes of the class
    globals_: dict[str, tuple[str, int]]  # changed_globals of the module
    deps_of: Callable[[ast.AST], LocalDeps]

    def find(
        self, expr: ast.AST, function: ast.AST | None, self_name: str | None, before: int | None
    ) -> StateFilter | None:
        seen: set[int] = set()
        return self._find(expr, function, self_name, before, 0, seen)

    def _find(
        self,
        expr: ast.AST,
        function: ast.AST | None,
        self_name: str | None,
        before: int | None,
        depth: int,
        seen: set[int],
    ) -> StateFilter | None:
        nodes = [expr]
        if function is not None:
            deps = self.deps_of(function)
            nodes += deps.sources(expr, before)
            tests = _loop_tests(function)
            for node in list(nodes):
                nodes.extend(tests.get(id(node), ()))
        for node in nodes:
            if id(node) in seen or len(seen) > _MAX_NODES:
                continue
            seen.add(id(node))
            found = self._selection_by_state(node, function, self_name)
            if found is not None:
                return found
        if depth >= _MAX_DEPTH:
            return None
        for node in nodes:
            for callee, callee_self in self._callees(node, self_name):
                for value in _returned(callee):
                    found = self._find(value, callee, callee_self, None, depth + 1, seen)
                    if found is not None:
                        return found
        return None

    def _selection_by_state(self, node: ast.AST, function: ast.AST | None, self_name: str | None) -> StateFilter | None:
        local = self.deps_of(function).bindings if function is not None else {}
        for site, collection in _selections(node):
            place = place_of(collection)
            if place is None:
                continue
            head, _, rest = place.partition(".")
            if self_name is not None and head == self_name and rest:
                attribute = rest.split(".")[0].split("[")[0]
                change = self.attributes.get(attribute)
                if change is not None:
                    return StateFilter(site, f"{self_name}.{attribute}", *change)
            name = place.split(".")[0].split("[")[0]
            change = self.globals_.get(name)
            if change is not None and name not in local:
                return StateFilter(site, name, *change)
        return None

    def _callees(self, node: ast.AST, self_name: str | None) -> Iterator[tuple[ast.AST, str | None]]:
        """The methods of its instance and the module functions ``node`` calls (or reads, for a
        property), with the name of their own instance parameter."""
        for sub in ast.walk(node):
            target = sub.func if isinstance(sub, ast.Call) else sub
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and self_name is not None
                and target.value.id == self_name
                and target.attr in self.methods
            ):
                method = self.methods[target.attr]
                yield method, first_param(method)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in self.functions:
                yield self.functions[sub.func.id], None


def _returned(function: ast.AST) -> list[ast.AST]:
    """The values ``function`` returns, not those of the functions nested in it."""
    out: list[ast.AST] = []
    stack = list(getattr(function, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            out.append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
