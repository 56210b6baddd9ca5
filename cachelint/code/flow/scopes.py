"""Scopes and places: ``Frame`` (a function activation, or the module) and the names it binds, the
stable names of places (``path_of``: ``self.tools``, ``cfg["system"]``), and ``Scopes``, the base
of the analysis: its state, the dispatch of statements and expressions to their handlers, binding
values to targets, and resolving a callee's dotted name through the module's imports."""

from __future__ import annotations

import ast
from typing import Any, Callable, Iterable

from cachelint.code import pyparse
from cachelint.code.flow.facts import (
    ClassInfo,
    ClassRef,
    External,
    LoopChange,
    LoopFrame,
    Reach,
    SinkRef,
    Summary,
    UncachedPrefix,
    span_of,
)
from cachelint.code.flow.sort_safety import SortSafety
from cachelint.code.knowledge import Knowledge
from cachelint.code.values import (
    CLEAN,
    DICT,
    EMPTY,
    PARAM,
    UNORDERED,
    Origin,
    Span,
    Value,
    as_element,
    element_of,
    filled,
    materialized,
    merge,
    typed,
    union,
)

# The handlers of each statement and expression node type, filled by analysis.py once every layer
# of ModuleAnalysis is defined (the dispatch here reaches handlers of the layers above it).
_STATEMENTS: dict[type, Callable[[Any, Any, Frame], None]] = {}
_EXPRESSIONS: dict[type, Callable[[Any, Any, Frame], Value]] = {}

# Dict displays up to this size keep their entries apart (body["tools"], data["system"]).
MAX_REMEMBERED_KEYS = 64


class Frame:
    __slots__ = (
        "names",
        "exprs",
        "parent",
        "summary",
        "self_name",
        "cls",
        "loops",
        "iter_orders",
        "local_funcs",
        "params",
        "types",
    )

    def __init__(self, parent: "Frame | None", summary: Summary | None = None, cls: ClassInfo | None = None) -> None:
        self.names: dict[str, Value] = {}
        self.exprs: dict[str, ast.AST] = {}
        self.parent = parent
        self.summary = summary
        self.self_name: str | None = None
        self.cls = cls
        self.loops: list[LoopFrame] = []
        self.iter_orders: list[frozenset[Origin]] = []
        self.local_funcs: dict[str, ast.AST] = {}
        self.params: set[str] = set()
        self.types: dict[str, ClassRef] = {}

    def attribute_of_self(self, node: ast.AST) -> "tuple[ClassInfo, str] | None":
        """``self.name`` in a method of a class of the module: that class and ``name``."""
        if (
            self.cls is not None
            and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self.self_name
        ):
            return self.cls, node.attr
        return None

    def type_of(self, name: str) -> "ClassRef | None":
        frame: Frame | None = self
        while frame is not None:
            ref = frame.types.get(name)
            if ref is not None:
                return ref
            if name in frame.names:
                return None
            frame = frame.parent
        return None

    def lookup(self, name: str) -> Value | None:
        frame: Frame | None = self
        while frame is not None:
            v = frame.names.get(name)
            if v is not None:
                return v
            frame = frame.parent
        return None

    def lookup_expr(self, name: str) -> ast.AST | None:
        frame: Frame | None = self
        while frame is not None:
            e = frame.exprs.get(name)
            if e is not None:
                return e
            if name in frame.names:
                return None
            frame = frame.parent
        return None


def path_of(node: ast.AST) -> str | None:
    """``tools``, ``self.tools``, ``state.system``, ``cfg["system"]``: a stable name for a place."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = path_of(node.value)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        base = path_of(node.value)
        return f"{base}[{node.slice.value!r}]" if base else None
    return None


def place_of(node: ast.AST) -> str | None:
    """The nearest named place an assignment target writes into: ``tools`` for ``tools[0]["x"]``."""
    while node is not None:
        path = path_of(node)
        if path is not None:
            return path
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
            continue
        return None
    return None


def path_root(path: str) -> str:
    for i, ch in enumerate(path):
        if ch in ".[":
            return path[:i]
    return path


def covers(changed: str, used: str) -> bool:
    """A change of ``changed`` changes what ``used`` reads."""
    if changed == used:
        return True
    if changed.startswith(used) and changed[len(used)] in ".[":
        return True
    return used.startswith(changed) and used[len(changed)] in ".["


def names_in(node: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


def read_paths(node: ast.AST) -> frozenset[str]:
    """The places an expression reads: ``self.llm.model``, ``params['model']``, ``x``; a method
    called reads its whole receiver (``self.render()`` reads ``self``)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            stack.append(sub.func.value)
            stack.extend(sub.args)
            stack.extend(kw.value for kw in sub.keywords)
            continue
        if isinstance(sub, (ast.Name, ast.Attribute, ast.Subscript)):
            path = path_of(sub)
            if path is not None:
                out.add(path)
                continue
        stack.extend(ast.iter_child_nodes(sub))
    return frozenset(out)


def _bound_names(target: ast.AST) -> list[str]:
    """The local names an assignment target binds or writes into (``x``, ``a, b``, ``x[k]``)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _bound_names(e)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        root = target.value
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        return [root.id] if isinstance(root, ast.Name) else []
    return []


def local_names(func: ast.AST) -> frozenset[str]:
    """The names a function binds itself (assigned, not declared ``global`` or ``nonlocal``)."""
    stored: set[str] = set()
    declared: set[str] = set()
    stack: list[ast.AST] = list(func.body)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(stored - declared)


def result_reads(
    func: ast.AST, adding_methods: frozenset[str], is_method: bool
) -> tuple[frozenset[str], list[ast.Call]]:
    """What a function's return value is built from, outside the function: the places rooted at
    names it does not bind (module globals, its ``self``) that its returns read, following its
    local names through every assignment, ``for`` target, ``with`` target and ``x.append(...)``
    (flow-insensitively); and the calls those values are built with (the caller follows the ones
    it knows). Its other parameters are left out: a caller reads what it passes."""
    deps: dict[str, set[str]] = {}
    local: set[str] = set()
    declared_global: set[str] = set()
    returned: set[str] = set()
    calls: list[ast.Call] = []
    args = func.args  # type: ignore[attr-defined]
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    self_name = params[0] if params and is_method else None
    assigned: list[tuple[list[str], ast.AST]] = []
    stack: list[ast.AST] = list(func.body)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        pairs: list[tuple[list[str], ast.AST]] = []
        if isinstance(node, ast.Assign):
            pairs = [(_bound_names(t), node.value) for t in node.targets]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            pairs = [(_bound_names(node.target), node.value)]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            pairs = [(_bound_names(node.target), node.iter)]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs = [(_bound_names(node.optional_vars), node.context_expr)]
        elif isinstance(node, ast.NamedExpr):
            pairs = [(_bound_names(node.target), node.value)]
        elif isinstance(node, ast.Global):
            declared_global.update(node.names)
        elif isinstance(node, ast.Return) and node.value is not None:
            returned |= read_paths(node.value)
            calls.extend(c for c in ast.walk(node.value) if isinstance(c, ast.Call))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in adding_methods
            and isinstance(node.func.value, ast.Name)
        ):
            pairs = [([node.func.value.id], node)]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
        for names, value in pairs:
            assigned.append((names, value))
            read = read_paths(value)
            for name in names:
                deps.setdefault(name, set()).update(read)
        stack.extend(ast.iter_child_nodes(node))
    local -= declared_global
    local.update(p for p in params if p != self_name)
    out: set[str] = set()
    seen: set[str] = set()
    todo = sorted(returned)
    while todo:
        path = todo.pop()
        root = path_root(path)
        if root in local or root in declared_global:
            if root not in seen:
                seen.add(root)
                todo.extend(sorted(deps.get(root, ())))
            if root in local:
                continue
        out.add(path)
    # the calls the returned value is built from, through its local names as well
    for names, value in assigned:
        if any(n in seen and n in local for n in names):
            calls.extend(c for c in ast.walk(value) if isinstance(c, ast.Call))
    if self_name is not None and any(isinstance(c.func, ast.Name) and c.func.id == "super" for c in calls):
        out.add(self_name)  # super().prompt(): what the base class reads of self is not known here
    return frozenset(out), calls


_PLAIN_TEST = (
    ast.Name,
    ast.Attribute,
    ast.Constant,
    ast.Compare,
    ast.BoolOp,
    ast.UnaryOp,
    ast.expr_context,
    ast.boolop,
    ast.cmpop,
    ast.unaryop,
)


def plain_test_reads(test: ast.AST) -> frozenset[str] | None:
    """The places a condition reads when it only compares them (names, attributes, constants,
    ``and``/``or``/``not``): its outcome changes only when one of them does. None when it calls,
    awaits or indexes something."""
    if not all(isinstance(sub, _PLAIN_TEST) for sub in ast.walk(test)):
        return None
    return read_paths(test)


def reads_any(paths: Iterable[str], varying: set[str]) -> set[str]:
    """The paths of ``paths`` that read a varying place (or a part of one)."""
    if not varying:
        return set()
    return {p for p in paths if any(covers(v, p) for v in varying)}


def display_entry_names(rhs: ast.AST) -> dict[str, frozenset[str]] | None:
    """``{"model": m, "messages": msgs}`` or ``dict(model=m, ...)``: the names each key's value
    depends on (None when a key is not a string constant or the dict unpacks another)."""
    if isinstance(rhs, ast.Dict):
        out: dict[str, frozenset[str]] = {}
        for key, value in zip(rhs.keys, rhs.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            out[key.value] = read_paths(value)
        return out
    if isinstance(rhs, ast.Call) and isinstance(rhs.func, ast.Name) and rhs.func.id == "dict" and not rhs.args:
        if any(kw.arg is None for kw in rhs.keywords):
            return None
        return {kw.arg: read_paths(kw.value) for kw in rhs.keywords if kw.arg is not None}
    return None


# The first message of a list sent as the messages: the place ``messages[0]`` (path_of never
# makes a ``[0]``: it names string keys only). Only a change of that exact place counts for it:
# appending to ``messages`` leaves its first message alone.
FIRST = "[0]"


def is_first_index(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def first_item_place(node: ast.AST) -> str | None:
    """``messages[0]`` for a write into ``messages[0]``, ``messages[0]["content"]`` or
    ``messages[0].content``: the first message of the list at ``messages`` (not ``[-1]``, ``[1]``)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and is_first_index(node.slice):
            base = path_of(node.value)
            return base + FIRST if base is not None else None
        node = node.value
    return None


def first_display(node: ast.AST | None) -> ast.AST | None:
    """The list display that starts ``node``: itself, or the left end of ``[first] + rest``."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        node = node.left
    return node if isinstance(node, (ast.List, ast.Tuple)) else None


def first_element(node: ast.AST) -> ast.AST | None:
    """The first element of a list display, of ``[first] + rest`` or ``[first, *rest]``."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        node = node.left
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts and not isinstance(node.elts[0], ast.Starred):
        return node.elts[0]
    return None


def _exit_kind(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return "return"
    if isinstance(stmt, ast.Break):
        return "break"
    if isinstance(stmt, ast.Continue):
        return "continue"
    return None


def _may_continue(stmt: ast.stmt) -> bool:
    """A ``continue`` of the enclosing loop may run in ``stmt`` (one in an ``except`` handler
    retries a request that failed, and a failed request caches nothing)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(
            node,
            (
                ast.For,
                ast.AsyncFor,
                ast.While,
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.ClassDef,
                ast.Lambda,
                ast.ExceptHandler,
            ),
        ):
            continue
        if isinstance(node, (ast.expr,)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def exits_after(stmts: list[ast.stmt]) -> list[str | None]:
    """For each statement of a block: how the block certainly ends once that statement has run
    (``return`` or ``raise``: every loop is left; ``break``: the innermost; ``continue``: the rest
    of the innermost loop's iteration is skipped), or None. A call followed by a return or break
    is made once, not once per iteration; a value set before a continue is not what the calls
    after it in the iteration send."""
    out: list[str | None] = [None] * len(stmts)
    kind: str | None = None
    for i in range(len(stmts) - 1, -1, -1):
        stmt = stmts[i]
        exit_kind = _exit_kind(stmt)
        if exit_kind is not None:
            kind = exit_kind
        elif _may_continue(stmt):
            kind = None
        out[i] = kind
    return out


def parsed_annotation(annotation: ast.AST | None) -> ast.AST | None:
    """An annotation as an expression: a string one (``"LLM | None"``, a forward reference)
    parsed, None when it is no valid expression."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return pyparse.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def is_abstract_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method that only declares an interface: decorated ``@abstractmethod``, or whose body is
    a docstring and ``pass``, ``...`` or ``raise NotImplementedError``. An instance it is called on
    is one of a subclass that overrides it (what the call runs is the override)."""
    if any(
        (d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else "") == "abstractmethod"
        for d in node.decorator_list
    ):
        return True
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring (or a lone ``...``)
    if not body:
        return True
    if len(body) != 1:
        return False
    stmt = body[0]
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def looks_like_class(name: str) -> bool:
    """PEP 8 class names (``Agent``, ``_RequestParams``)."""
    return name.lstrip("_")[:1].isupper()


def has_unordered(v: Value) -> bool:
    """``v`` is in an unordered order (an empty set has none yet)."""
    return any(o.kind == UNORDERED and not o.empty for o in v.own)


def _without_params(v: Value) -> Value:
    if not any(o.kind == PARAM for o in v.own) and not any(o.kind == PARAM for o in v.inner):
        return v
    return Value(frozenset(o for o in v.own if o.kind != PARAM), frozenset(o for o in v.inner if o.kind != PARAM))


class Scopes:
    """The base of ``ModuleAnalysis``: its state, the dispatch of statements and expressions, binding
    and name resolution (the layers above add the handlers)."""

    def __init__(
        self,
        tree: ast.Module,
        knowledge: Knowledge,
        resolve_external: "Callable[[tuple[str, ...]], External | None] | None" = None,
        resolve_external_name: "Callable[[tuple[str, ...]], External | None] | None" = None,
        resolve_method: "Callable[[str, str], External | None] | None" = None,
        resolve_class: "Callable[[str], External | None] | None" = None,
    ) -> None:
        self.resolve_method = resolve_method
        self.resolve_class = resolve_class  # an imported class's summary entry (its methods)
        # the changes loops make are read only for the findings of the module checked (LoopChange):
        # a summary for other modules (Summary) holds none of them, and need not look for those a
        # called function makes (Calls._state_changed_by_call, the costliest of them)
        self.loop_changes_wanted = True
        self.tree = tree
        self._sort_safety: SortSafety | None = None  # built when a value is first put in order
        self.k = knowledge
        self.resolve_external = resolve_external
        self.resolve_external_name = resolve_external_name
        self.imports: dict[str, str] = {}
        self.module_aliases: set[str] = set()  # names bound by ``import x`` / ``import x as y``
        self.module_funcs: dict[str, ast.AST] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.summaries: dict[int, Summary] = {}
        # id(function) -> what its result is built from outside it (result_reads)
        self.result_reads_cache: dict[int, tuple[frozenset[str], list[ast.Call]]] = {}
        self.summary_nodes: dict[int, ast.AST] = {}  # id(summary) -> the function it summarises
        self.local_names_cache: dict[int, frozenset[str]] = {}  # id(function) -> local_names
        self.func_class: dict[int, ClassInfo] = {}
        self.func_parent: dict[int, Frame] = {}
        self.pending: list[ast.AST] = []
        self.seeded: set[str] = set()  # the seeding calls (random.seed) this module has made with a seed
        self.reaches: list[Reach] = []
        self.uncached: list[UncachedPrefix] = []  # static prefixes sent with no cache marker (CL107)
        self._marker_written: dict[str, bool] | None = None  # cache marker key -> written in the module
        self.changes: list[LoopChange] = []
        self.role_contents: dict[int, tuple[Value, str]] = {}  # id(dict display) -> (content value, role)
        # id(summary) (or None: the module and class bodies) -> the message lists built there that
        # start with a system message, settled once the function is analysed (Sinks.settle_first_messages)
        self.first_message_lists: dict[int | None, list[tuple[ast.List, Value, str, Frame]]] = {}
        self.local_deps_cache: dict[int, Any] = {}  # id(function or module) -> its LocalDeps
        # id(class info) -> the attributes its methods change after the object is built, and the
        # module globals its functions change (state_filters), computed once when a request needs them
        self.changed_attributes_cache: dict[int, dict[str, tuple[str, int]]] = {}
        self.changed_globals_cache: dict[str, tuple[str, int]] | None = None
        # id(function) -> the globals and attributes of its instance that running it writes
        # (Calls._state_written_by); the module's global names, read once
        self.state_written_cache: dict[int, tuple[tuple[str, str, str, int], ...]] = {}
        self.module_globals: set[str] | None = None
        # id(summary) (or None) -> reaches of values bound to a system prompt's name, with the name
        # bound: kept once the function is read if anything may send it (Sinks._settle_named_prompts)
        self.named_prompts: dict[int | None, list[tuple[Reach, ast.Name, Frame]]] = {}
        # functions a framework calls once per request with the conversation's state, and how
        # (knowledge.PerTurn); run again at the end (Calls.per_turn_passes)
        self.per_turn_functions: list[tuple[ast.AST, Any]] = []
        # the site of a per-turn state parameter -> (its name, the keys that change per request,
        # the attribute that is the whole state): reading any other key gives a session's value
        self.turn_state_keys: dict[Span, tuple[str, frozenset[str], str | None]] = {}
        self.state_write_keys: frozenset[str] | None = None  # state["key"] = ... anywhere in the module
        # id(function a framework calls for each step) -> the state places that change per step
        # (``state['notes']``, ``state``'s conversation key): read by Sinks._rebuilt_per_turn
        self.turn_places: dict[int, frozenset[str]] = {}
        # (library, number of per-turn functions) -> the keys their returned state updates write
        self.returned_keys_memo: dict[tuple[str, int], frozenset[str]] = {}
        # id(list display) added after other messages (``history + [SystemMessage(...)]``,
        # ``messages += [...]``): its first element is not the first message of what is sent
        self.appended_lists: set[int] = set()
        # id(list display) -> what was added to the list it built, in order (``messages = []``
        # then ``messages.append({"role": "system", ...})``): each item's node, or None for an
        # addition whose place or number is not certain (in a loop, under a condition, not a
        # display); read where the list is sent, to know which messages come first
        self.added_items: dict[int, list[ast.AST | None]] = {}
        self.dict_entries: dict[int, dict[str, tuple[Value, ast.AST]]] = {}
        # id(call of a class the analysis does not know) -> what the object carries as a tool:
        # its arguments, without the clocks and ids given to keywords that only configure it
        self.tool_objects: dict[int, Value] = {}
        # id(dict display whose keys are all string constants) -> the value it was built with: a
        # name still holding exactly that value has not been changed in a way that matters since
        self.keyed_displays: dict[int, Value] = {}
        # id(call) -> per-item values when the callee returns a tuple display: a, b = f()
        self.tuple_results: dict[int, list[Value]] = {}
        # id(call of a class) -> its keyword values: x = Args(tools=...); x.tools
        self.call_keywords: dict[int, dict[str, Value]] = {}
        # id(ClassInfo) -> what its constructor sends to sinks (Calls._constructor_sinks)
        self.constructor_sinks: dict[int, "tuple[list[str], dict[str, list[tuple[SinkRef, str]]]] | None"] = {}
        self.module_frame = Frame(None)
        # > 0 while evaluating text being formatted (f-string fields, "..." + x, "%s" % x,
        # .format()): only there does a name like request_id put a per-request value into text.
        self._text_depth = 0
        self._branch_depth = 0  # if/match/try bodies being analysed around the current statement
        # those bodies, each numbered once: a statement whose bodies are a prefix of another's
        # runs whenever the other does, earlier in the same pass through them
        self._branch_path: tuple[int, ...] = ()
        self._branch_count = 0
        # body number -> the places the condition that enters it reads, when it is a plain test of
        # them (``if caching:``, ``elif provider == "x":``); None for an except handler, a case or
        # a test that calls something: whether that body runs may differ from pass to pass
        self._branch_tests: dict[int, frozenset[str] | None] = {}
        # id(LoopFrame) -> > 0 while analysing statements after which that loop certainly ends
        # (the return or break that follows a call): a call made there is not repeated by it
        self._final_loops: dict[int, int] = {}
        self._retried_loops: dict[int, int] = {}  # id(LoopFrame) -> > 0 inside a try body it retries
        # id(LoopFrame) -> > 0 while analysing statements after which that loop's iteration certainly
        # continues with the next one (a continue follows)
        self._continued_loops: dict[int, int] = {}

    def put_in_order(self, v: Value, node: ast.AST, iterated: bool) -> Value:
        """``v`` is put in a fixed order at ``node`` (see ``values.materialized``): the fix wraps
        ``node`` in ``sorted(...)``; safe only if it iterates ``v`` and nothing in the module can
        give what ``node`` reads other kinds of elements, and no fix spot at all where ``sorted``
        is not the builtin here (``sort_safety``)."""
        if not any(o.kind == UNORDERED and (o.fix_at is None or o.empty) for o in v.own):
            return v
        if self._sort_safety is None:
            self._sort_safety = SortSafety(self.tree)
        if not self._sort_safety.builtin("sorted"):
            return v
        return materialized(v, span_of(node), iterated and self._sort_safety.closed(node))

    def block(self, stmts: Iterable[ast.stmt], frame: Frame) -> None:
        table = _STATEMENTS
        if not frame.loops:
            for stmt in stmts:
                handler = table.get(type(stmt))
                if handler is not None:
                    handler(self, stmt, frame)
            return
        stmts = stmts if isinstance(stmts, list) else list(stmts)
        exits = exits_after(stmts)
        final = self._final_loops
        for stmt, exit_kind in zip(stmts, exits):
            handler = table.get(type(stmt))
            if handler is None:
                continue
            if exit_kind is None or not frame.loops:
                handler(self, stmt, frame)
                continue
            if exit_kind == "continue":
                key = id(frame.loops[-1])
                self._continued_loops[key] = self._continued_loops.get(key, 0) + 1
                try:
                    handler(self, stmt, frame)
                finally:
                    self._continued_loops[key] -= 1
                continue
            ended = [id(loop) for loop in frame.loops] if exit_kind == "return" else [id(frame.loops[-1])]
            ended = [key for key in ended if not self._retried_loops.get(key)]
            for key in ended:
                final[key] = final.get(key, 0) + 1
            try:
                handler(self, stmt, frame)
            finally:
                for key in ended:
                    final[key] -= 1

    def eval(self, node: ast.AST | None, frame: Frame) -> Value:
        if node is None:
            return CLEAN
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            return CLEAN
        return handler(self, node, frame)

    def bind(
        self, target: ast.AST, value: Value, frame: Frame, source: ast.AST | None = None, weak: bool = False
    ) -> None:
        if isinstance(target, (ast.Name, ast.Attribute)) and source is not None:
            self._record_type(target, source, frame)
        if isinstance(target, ast.Name):
            name = target.id
            call = source.value if isinstance(source, ast.Await) else source
            fields = self.call_keywords.get(id(call)) if call is not None else None
            if fields:
                for attr, attr_value in fields.items():
                    frame.names[f"{name}.{attr}"] = attr_value
            if frame.loops or weak:
                old = frame.names.get(name)
                value = merge(old, value) if old is not None else value
            frame.names[name] = value
            if source is not None:
                frame.exprs[name] = source
            else:
                frame.exprs.pop(name, None)
            for loop in frame.loops:
                loop.bound.add(name)
                loop.binds[name] = loop.binds.get(name, 0) + 1
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(source, (ast.Tuple, ast.List)) and len(source.elts) == len(target.elts):
                for t, s in zip(target.elts, source.elts):
                    self.bind(t, self.eval(s, frame), frame, s, weak)
                return
            call = source.value if isinstance(source, ast.Await) else source
            items = self.tuple_results.get(id(call)) if call is not None else None
            if (
                items is not None
                and len(items) == len(target.elts)
                and not any(isinstance(t, ast.Starred) for t in target.elts)
            ):
                for t, item in zip(target.elts, items):
                    self.bind(t, item, frame, None, weak)
                return
            part = element_of(value)
            for t in target.elts:
                self.bind(t.value if isinstance(t, ast.Starred) else t, part, frame, None, weak)
            return
        if isinstance(target, ast.Starred):
            self.bind(target.value, value, frame, None, weak)
            return
        if isinstance(target, ast.Attribute):
            path = path_of(target)
            own = frame.attribute_of_self(target)
            if own is not None:
                cls, attr = own
                self._stored_params(attr, value, frame)
                value = _without_params(value)  # a method's parameters mean nothing to the other methods
                if isinstance(source, (ast.Name, ast.Attribute)):
                    cls.attr_exprs[attr] = source
                else:
                    cls.attr_exprs.pop(attr, None)
                old = cls.attrs.get(attr)
                cls.attrs[attr] = merge(old, value) if old is not None else value
            elif path is not None:
                if frame.loops:
                    old = frame.names.get(path)
                    value = merge(old, value) if old is not None else value
                frame.names[path] = value
                if source is not None:
                    frame.exprs[path] = source
            else:
                self.eval(target.value, frame)
            return
        if isinstance(target, ast.Subscript):
            self.eval(target.slice, frame)
            base = target.value
            path = path_of(base)
            if path is not None:
                self._add_to(path, base, as_element(value), frame)
                if (
                    isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                    and target.slice.value in self.k.stash_keys
                ):
                    key_path = path_of(target)
                    if key_path is not None:
                        frame.exprs[key_path] = source if source is not None else target
            return

    def class_ref(self, node: ast.AST | None) -> ClassRef | None:
        """The class a call of ``node`` instantiates, or an annotation names."""
        if isinstance(node, ast.Name) and node.id in self.classes:
            return ("local", node.id)
        if isinstance(node, (ast.Name, ast.Attribute)):
            last = node.id if isinstance(node, ast.Name) else node.attr
            raw = self.raw_dotted(node)
            if raw is not None and looks_like_class(last):
                return ("ext", ".".join(raw))
        return None

    def annotated_class(self, annotation: ast.AST | None) -> ClassRef | None:
        """The class an annotation declares: ``LLM``, ``Optional[LLM]``, ``LLM | None``, ``"LLM"``
        (a value annotated so is an instance of it, or of a subclass, or None)."""
        node = parsed_annotation(annotation)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
            return self.annotated_class(sides[0]) if len(sides) == 1 else None
        if isinstance(node, ast.Subscript) and self.callee_path(node.value)[-1:] == ("Optional",):
            return self.annotated_class(node.slice)
        return self.class_ref(node)

    def record_declared_type(self, target: ast.AST, annotation: ast.AST, frame: Frame) -> None:
        """``self.llm: LLM = ...`` or ``llm: LLM = ...``: the name holds an instance of the class."""
        ref = self.annotated_class(annotation)
        if ref is None:
            return
        if isinstance(target, ast.Name):
            frame.types[target.id] = ref
        elif (own := frame.attribute_of_self(target)) is not None:
            cls, attr = own
            cls.attr_types[attr] = ref

    def _expression_class(self, node: ast.AST, frame: Frame, depth: int = 0) -> ClassRef | None:
        """The class of the instance an expression gives: ``Cls(...)``, a name of a known class
        (``llm``, a parameter annotated ``llm: LLM``), and ``a or b`` / ``a if c else b`` whose
        operands other than None all give the same class."""
        node = node.value if isinstance(node, ast.Await) else node
        if isinstance(node, ast.Call):
            return self.class_ref(node.func)
        if isinstance(node, ast.Name):
            return frame.type_of(node.id)
        if depth > 4:
            return None
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            operands = list(node.values)
        elif isinstance(node, ast.IfExp):
            operands = [node.body, node.orelse]
        else:
            return None
        refs = {
            self._expression_class(o, frame, depth + 1)
            for o in operands
            if not (isinstance(o, ast.Constant) and o.value is None)
        }
        return refs.pop() if len(refs) == 1 else None

    def _record_type(self, target: ast.AST, source: ast.AST, frame: Frame) -> None:
        ref = self._expression_class(source, frame)
        if isinstance(target, ast.Attribute):
            own = frame.attribute_of_self(target)
            if own is not None and ref is not None:
                cls, attr = own
                cls.attr_types[attr] = ref
            return
        if ref is not None:
            frame.types[target.id] = ref  # type: ignore[attr-defined]
        else:
            frame.types.pop(target.id, None)  # type: ignore[attr-defined]

    def _type_of(self, node: ast.AST, frame: Frame) -> ClassRef | None:
        if isinstance(node, ast.Name):
            return frame.type_of(node.id)
        own = frame.attribute_of_self(node)
        if own is not None:
            cls, attr = own
            return cls.attr_types.get(attr)
        if isinstance(node, ast.Call):  # Handler(role).handle(...)
            return self.class_ref(node.func)
        return None

    def _iter_order(self, frame: Frame) -> frozenset[Origin]:
        if not frame.iter_orders:
            return EMPTY
        out: frozenset[Origin] = EMPTY
        for o in frame.iter_orders:
            if o:
                out = out | o
        return out

    def _add_to(self, path: str, node: ast.AST, added: Value, frame: Frame) -> None:
        """Something is put into the collection at ``path``: inside a loop over an unordered source,
        the collection takes that order."""
        order = self._iter_order(frame)
        current = filled(self._read_path(path, node, frame))
        new = union(current, added, Value(order, EMPTY)) if order else union(current, added)
        if current.kind == DICT:
            new = typed(new, DICT)  # a dict with an item put in it is still a dict
        self._write_path(path, node, new, frame)

    def _read_path(self, path: str, node: ast.AST, frame: Frame) -> Value:
        if frame.cls is not None and frame.self_name and path.startswith(frame.self_name + "."):
            attr = path[len(frame.self_name) + 1 :]
            return frame.cls.attrs.get(attr, CLEAN)
        v = frame.lookup(path)
        if v is None and isinstance(node, ast.Subscript):
            # cfg["names"].add(x): what the dict held under that key, then x
            return self.eval(node, frame)
        return v if v is not None else CLEAN

    def _write_path(self, path: str, node: ast.AST, value: Value, frame: Frame) -> None:
        if frame.cls is not None and frame.self_name and path.startswith(frame.self_name + "."):
            attr = path[len(frame.self_name) + 1 :]
            self._stored_params(attr, value, frame)
            frame.cls.attrs[attr] = _without_params(value)
            return
        frame.names[path] = value

    def _stored_params(self, attr: str, value: Value, frame: Frame) -> None:
        """``self.tools = tools`` in a method: the parameter's value (as it is, its elements, or
        sorted) is the instance's attribute from then on."""
        summary = frame.summary
        if summary is None or not attr.isidentifier():
            return
        for o in value.own:
            if o.kind == PARAM and o.attr is None and o.what in frame.params:
                summary.param_attrs.setdefault(attr, {})[(o.what, o.mode)] = None

    def callee_path(self, func: ast.AST) -> tuple[str, ...]:
        parts: list[str] = []
        node = func
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            resolved = self.imports.get(node.id)
            if resolved is not None:
                parts.extend(reversed(resolved.lstrip(".").split(".")))
            else:
                parts.append(node.id)
        else:
            parts.append("?")
        parts.reverse()
        return tuple(parts)

    def raw_dotted(self, func: ast.AST) -> tuple[str, ...] | None:
        """The callee as imported, relative dots kept (``.llm.ask``), for other modules' summaries."""
        parts: list[str] = []
        node = func
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.imports:
            return None
        parts.append(self.imports[node.id])
        parts.reverse()
        return tuple(parts)
