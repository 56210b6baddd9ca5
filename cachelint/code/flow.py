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
  sink and changes the variable passed to it yields ``LoopChange`` facts. findings.py turns both into
  diagnostics.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping

from cachelint.code.knowledge import PREFIX_TIERS, Knowledge, Sink
from cachelint.code.values import (
    CLEAN,
    EMPTY,
    NAME,
    PARAM,
    PATH,
    STR,
    STR_VALUE,
    UNORDERED,
    VOLATILE,
    Origin,
    Span,
    Value,
    agree,
    as_element,
    element_of,
    filled,
    holds_empty_set,
    materialized,
    merge,
    sanitized,
    substitute,
    typed,
    union,
    untyped,
)

# Dict displays up to this size keep their entries apart (body["tools"], data["system"]).
_MAX_REMEMBERED_KEYS = 64
_MUTATION_WORDS = {
    "append": "appended to",
    "appendleft": "appended to",
    "extend": "extended",
    "extendleft": "extended",
    "insert": "inserted into",
    "add": "added to",
    "update": "updated",
    "setdefault": "updated",
    "remove": "shrunk (.remove())",
    "pop": "shrunk (.pop())",
    "popitem": "shrunk (.popitem())",
    "discard": "shrunk (.discard())",
    "clear": "cleared",
    "reverse": "reversed",
}


def span_of(node: ast.AST) -> Span:
    return (
        node.lineno,  # type: ignore[attr-defined]
        node.col_offset,  # type: ignore[attr-defined]
        node.end_lineno or node.lineno,  # type: ignore[attr-defined]
        node.end_col_offset if node.end_col_offset is not None else node.col_offset,  # type: ignore[attr-defined]
    )


@dataclass(frozen=True)
class SinkRef:
    """A prefix argument of an LLM call: ``tools= of client.messages.create`` at a line."""

    tier: str  # tools | system | setting (a cache-key setting: only changes in loops count)
    label: str
    line: int
    external: str | None = None  # "pkg.mod" when the call is inside another module's function
    configures: bool = False  # an agent / bound model is built: only in-place changes count in loops
    tool_key: str | None = None  # sort key of this SDK's tools (fixes)


@dataclass(frozen=True)
class Reach:
    origin: Origin
    sink: SinkRef
    arg_span: Span | None  # the sink argument, when the origin is in the argument's own order
    arg_elements: str | None = None  # what the argument's elements are, when known (values.py)


@dataclass(frozen=True)
class LoopChange:
    tier: str
    sink: SinkRef
    site: Span
    path: str
    action: str


@dataclass
class Summary:
    name: str
    params: list[str]
    returns: Value = CLEAN
    returned: bool = False  # a return or yield was seen: ``returns`` holds what it gives
    # parameter -> [(sink, mode)]: the parameter's value (transformed by mode) reaches the sink
    param_sinks: dict[str, list[tuple[SinkRef, str]]] = field(default_factory=dict)
    # paths read by a sink argument, rooted at a parameter, ``self`` or a global name; an ordered
    # set (a dict): each call of the function replays them into its caller, and a list that kept
    # every repeat grew without bound through nested calls in loops (a 2,242-line crewAI module
    # took over 250 s)
    uses: dict[tuple[str, SinkRef], None] = field(default_factory=dict)
    # every return is a tuple display of this many items: what each item carries (else None)
    tuple_returns: list[Value] | None = None
    tuple_ok: bool = True
    # every return builds a class with keywords: what each keyword (attribute) carries
    field_returns: dict[str, Value] | None = None
    fields_ok: bool = True
    done: bool = False


@dataclass
class ClassInfo:
    name: str
    methods: dict[str, ast.AST] = field(default_factory=dict)
    attrs: dict[str, Value] = field(default_factory=dict)
    attr_types: dict[str, "ClassRef"] = field(default_factory=dict)
    # The positional parameters of the __init__ that @dataclass or NamedTuple writes, in order
    # (the fields a call's positional arguments go to); None when they cannot be known.
    init_fields: tuple[str, ...] | None = None
    dataclass: bool = False


# What class a value is an instance of: ("local", "Name") for a class of this module, or
# ("ext", raw dotted import) for one imported from another module of the run.
ClassRef = tuple[str, str]


@dataclass
class Change:
    path: str
    site: Span
    action: str
    rhs_names: frozenset[str] | None  # rebinding: names its value depends on; None otherwise
    counter: bool = False  # ``x += 1``: a number stepped, as a loop counts retries or steps
    branch_depth: int = 0  # if/match/try bodies around it (deeper than its loop's: conditional)
    # a rebinding to a dict display (or dict(...)) with string keys: the names each key's value
    # depends on, so that a use of one key (``**params`` read for model=) sees only that key
    entries: dict[str, frozenset[str]] | None = None
    # one key of a dict written (``params["api_key"] = ...``, ``request.update(tools=...)``): set
    # under a condition or after the call, even a fixed value differs between the calls
    keyed: bool = False
    # the right-hand side calls a model, a clock or reads input: a new value every time, whatever
    # its arguments are (``reply = client.messages.create(...)``)
    new_each_time: bool = False


@dataclass
class LoopFrame:
    node: ast.AST
    bound: set[str] = field(default_factory=set)
    changes: list[Change] = field(default_factory=list)
    uses: dict[tuple[str, SinkRef], None] = field(default_factory=dict)  # an ordered set, as Summary.uses
    targets: frozenset[str] = frozenset()  # ``for`` targets: a new value each iteration
    branch_depth: int = 0  # if/match/try bodies around the loop itself
    # ``for`` targets that are items of a collection (documents, files, questions), not counts of
    # turns or steps (``range``, ``itertools.count``): a value built only from them is per item
    items: frozenset[str] = frozenset()
    # places sent as the messages of a call inside the loop: a loop that grows one of them carries
    # a conversation from one iteration to the next (a session, not a batch of items)
    history: dict[str, None] = field(default_factory=dict)
    # how often each name is bound in the loop, and how many of those bindings are plain
    # rebindings whose right-hand side is recorded (the others, a ``for`` target, tuple
    # unpacking, ``with ... as``, take a value the analysis does not follow: they vary)
    binds: dict[str, int] = field(default_factory=dict)
    tracked: dict[str, int] = field(default_factory=dict)

    def per_item(self, change: "Change") -> bool:
        """A rebinding of this loop's own target (``path = f"{root}/{path}"``): still a value of
        the current item, new each iteration — one request per item, not a change."""
        return change.rhs_names is not None and change.path in self.targets


class Frame:
    __slots__ = ("names", "exprs", "parent", "summary", "self_name", "cls", "loops", "iter_orders", "local_funcs", "params", "types")

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


def _root(path: str) -> str:
    for i, ch in enumerate(path):
        if ch in ".[":
            return path[:i]
    return path


def _covers(changed: str, used: str) -> bool:
    """A change of ``changed`` changes what ``used`` reads."""
    if changed == used:
        return True
    if changed.startswith(used) and changed[len(used)] in ".[":
        return True
    return used.startswith(changed) and used[len(changed)] in ".["


def _has_deferred_tool(node: ast.AST, frame: Frame) -> bool:
    """``{"defer_loading": True, ...}``: a deferred tool stays out of the rendered prefix (tool search
    appends it to the messages when found; docs/background/prefix-and-invalidation.md#tool-search)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            target = frame.lookup_expr(sub.id)
            if target is not None and target is not node and _has_deferred_literal(target):
                return True
        elif isinstance(sub, ast.Dict) and _has_deferred_literal(sub):
            return True
        elif isinstance(sub, ast.Call) and any(
            kw.arg == "defer_loading" and isinstance(kw.value, ast.Constant) and kw.value.value is True for kw in sub.keywords
        ):
            return True
    return False


def _has_deferred_literal(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Dict):
            for k, v in zip(sub.keys, sub.values):
                if isinstance(k, ast.Constant) and k.value == "defer_loading" and isinstance(v, ast.Constant) and v.value is True:
                    return True
    return False


def _names_in(node: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


def _read_paths(node: ast.AST) -> frozenset[str]:
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


def _reads_any(paths: Iterable[str], varying: set[str]) -> set[str]:
    """The paths of ``paths`` that read a varying place (or a part of one)."""
    if not varying:
        return set()
    return {p for p in paths if any(_covers(v, p) for v in varying)}


def _display_entry_names(rhs: ast.AST) -> dict[str, frozenset[str]] | None:
    """``{"model": m, "messages": msgs}`` or ``dict(model=m, ...)``: the names each key's value
    depends on (None when a key is not a string constant or the dict unpacks another)."""
    if isinstance(rhs, ast.Dict):
        out: dict[str, frozenset[str]] = {}
        for key, value in zip(rhs.keys, rhs.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            out[key.value] = _read_paths(value)
        return out
    if isinstance(rhs, ast.Call) and isinstance(rhs.func, ast.Name) and rhs.func.id == "dict" and not rhs.args:
        if any(kw.arg is None for kw in rhs.keywords):
            return None
        return {kw.arg: _read_paths(kw.value) for kw in rhs.keywords if kw.arg is not None}
    return None


# The first message of a list sent as the messages: the place ``messages[0]`` (path_of never
# makes a ``[0]``: it names string keys only). Only a change of that exact place counts for it:
# appending to ``messages`` leaves its first message alone.
FIRST = "[0]"


def _is_first_index(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def first_item_place(node: ast.AST) -> str | None:
    """``messages[0]`` for a write into ``messages[0]``, ``messages[0]["content"]`` or
    ``messages[0].content``: the first message of the list at ``messages`` (not ``[-1]``, ``[1]``)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and _is_first_index(node.slice):
            base = path_of(node.value)
            return base + FIRST if base is not None else None
        node = node.value
    return None


def _first_element(node: ast.AST) -> ast.AST | None:
    """The first element of a list display, of ``[first] + rest`` or ``[first, *rest]``."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        node = node.left
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts and not isinstance(node.elts[0], ast.Starred):
        return node.elts[0]
    return None


def _varying_names(loop: "LoopFrame") -> tuple[set[str], set[str], set[str]]:
    """The places whose value may differ from one iteration of ``loop`` to the next; the places
    the loop first rebinds afresh each iteration (unconditionally, not from themselves); and the
    varying places built only from the loop's own item (``for doc in docs``).

    A place varies when the loop binds it in a way the analysis does not follow (a ``for`` target,
    tuple unpacking), changes it in place, or rebinds it from a place that varies (or from itself,
    accumulating), or from a model call, a clock or input. A place rebuilt each iteration only
    from places that do not vary (``text = render(BASE)``; ``system = text``) holds the same value
    at every call."""
    rebinds: dict[str, list[Change]] = {}
    keyed: list[Change] = []
    varying: set[str] = set()
    for c in loop.changes:
        if c.rhs_names is None:
            varying.add(c.path)
        elif c.action == "rebound":
            rebinds.setdefault(c.path, []).append(c)
            if c.new_each_time:
                varying.add(c.path)
        else:
            keyed.append(c)
    for name in loop.bound:
        if name not in rebinds or loop.binds.get(name, 0) > loop.tracked.get(name, 0):
            varying.add(name)
    fresh: set[str] = set()
    for path, changes in rebinds.items():
        first = min(changes, key=lambda c: c.site)
        if first.branch_depth <= loop.branch_depth and path not in first.rhs_names:  # type: ignore[operator]
            fresh.add(path)

    def reads(c: Change, path: str) -> frozenset[str]:
        names = c.rhs_names or frozenset()
        return names - {path} if path in fresh else names

    grew = True
    while grew:
        grew = False
        for path, changes in rebinds.items():
            if path in varying:
                continue
            if any(path in reads(c, path) or _reads_any(reads(c, path), varying) for c in changes):
                varying.add(path)
                grew = True
        for c in keyed:
            if c.path not in varying and _reads_any(c.rhs_names or (), varying):
                varying.add(c.path)
                grew = True
    # varying only through the loop's item: ``title = doc.title``; ``system = f"{title}"``
    per_item: set[str] = set(loop.items)
    grew = True
    while grew:
        grew = False
        for path, changes in rebinds.items():
            if path in per_item or path not in varying or any(c.new_each_time for c in changes):
                continue
            ok = True
            for c in changes:
                names = reads(c, path)
                if path in names or any(_root(p) not in per_item for p in _reads_any(names, varying)):
                    ok = False
                    break
            if ok and loop.binds.get(path, 0) <= loop.tracked.get(path, 0):
                per_item.add(path)
                grew = True
    return varying, fresh, per_item


def _history_paths(node: ast.AST) -> list[str]:
    """The lists a messages argument sends as they are (``messages``, ``*history``, ``history +
    [...]``): a loop growing one carries a conversation. The single messages of a display built at
    the call (``[SystemMessage(text)]``) are no history."""
    path = path_of(node)
    if path is not None:
        return [path]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _history_paths(node.left) + _history_paths(node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [p for e in node.elts if isinstance(e, ast.Starred) for p in _history_paths(e.value)]
    if isinstance(node, ast.Call):  # list(history), history.copy()
        inner = [node.func.value] if isinstance(node.func, ast.Attribute) else list(node.args)
        return [p for a in inner for p in _history_paths(a)]
    return []


def _exit_kind(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return "return"
    if isinstance(stmt, ast.Break):
        return "break"
    return None


def _may_continue(stmt: ast.stmt) -> bool:
    """A ``continue`` of the enclosing loop may run in ``stmt`` (one in an ``except`` handler
    retries a request that failed, and a failed request caches nothing)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ExceptHandler)):
            continue
        if isinstance(node, (ast.expr,)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _exits_after(stmts: list[ast.stmt]) -> list[str | None]:
    """For each statement of a block: how the block certainly ends once that statement has run
    (``return`` or ``raise``: every loop is left; ``break``: the innermost), or None. A call
    followed by one is made once, not once per iteration."""
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


# Positional arguments of the list/set/deque methods of those names: ``db.insert(rows)`` (one
# argument) is a database call, not ``list.insert(index, item)``, and does not put ``rows`` in
# ``db``.
_COLLECTION_ARITY = {"insert": 2, "append": 1, "appendleft": 1, "extend": 1, "extendleft": 1, "remove": 1, "discard": 1}


# Taking the next item of a work queue: ``queue.pop()``, ``queue.pop(0)``, ``queue.popleft()``,
# ``queue.get_nowait()``, ``next(iterator)`` (not ``d.pop(key)``, ``d.get(key)``: one lookup).
_NEXT_ITEM_METHODS = frozenset({"pop", "popleft", "get_nowait"})


def _takes_next_item(rhs: ast.AST) -> bool:
    """The value is the next item of a queue: like the target of ``for item in items``, a new
    item each iteration (one request per item), whatever else the loop does to the queue
    (``queue = parts + queue`` to process a split item first)."""
    if not isinstance(rhs, ast.Call) or rhs.keywords:
        return False
    func = rhs.func
    if isinstance(func, ast.Attribute) and func.attr in _NEXT_ITEM_METHODS:
        if not rhs.args:
            return True
        index = rhs.args[0]
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
            index = index.operand
        return func.attr == "pop" and len(rhs.args) == 1 and isinstance(index, ast.Constant) and type(index.value) is int
    return isinstance(func, ast.Name) and func.id == "next" and 1 <= len(rhs.args) <= 2


def _looks_like_class(name: str) -> bool:
    """PEP 8 class names (``Agent``, ``_RequestParams``)."""
    return name.lstrip("_")[:1].isupper()


def _has_unordered(v: Value) -> bool:
    """``v`` is in an unordered order (an empty set has none yet)."""
    return any(o.kind == UNORDERED and not o.empty for o in v.own)


def _is_empty_set_call(node: ast.Call) -> bool:
    """``set()``, ``frozenset()``, ``set([])``: a set with nothing in it."""
    if node.keywords or len(node.args) > 1:
        return False
    if not node.args:
        return True
    arg = node.args[0]
    return (isinstance(arg, (ast.List, ast.Tuple, ast.Set)) and not arg.elts) or (isinstance(arg, ast.Dict) and not arg.keys)


def _direct_set(node: ast.AST) -> bool:
    return isinstance(node, (ast.Set, ast.SetComp)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset")
    )


def _carries_history(loop: LoopFrame) -> bool:
    """The loop changes (appends to, extends, rebinds) what a call in it sends as its messages."""
    return any(_covers(change.path, used) for change in loop.changes for used in loop.history)


def _counts(iterable: ast.AST) -> bool:
    """``range(n)``, ``itertools.count()``, ``enumerate(range(n))``: the loop counts turns or steps
    of one task rather than going over items."""
    while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" and iterable.args:
        iterable = iterable.args[0]
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in ("range", "count")


def _empty_list(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple)) and not node.elts


def _is_constant(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _str_expr(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr)


def _common_kind(kinds: list[str | None]) -> str | None:
    """The kind every element has (one listing's file names count as one kind, two do not)."""
    if not kinds:
        return None
    kind = kinds[0]
    for other in kinds[1:]:
        kind = agree(kind, other)
    return kind


class ModuleAnalysis:
    """One module (or notebook program): run ``analyse()`` once, then read ``reaches``, ``changes``,
    ``module_frame`` and ``summaries``."""

    def __init__(
        self,
        tree: ast.Module,
        knowledge: Knowledge,
        resolve_external: "Callable[[tuple[str, ...]], External | None] | None" = None,
        resolve_external_name: "Callable[[tuple[str, ...]], External | None] | None" = None,
        resolve_method: "Callable[[str, str], External | None] | None" = None,
    ) -> None:
        self.resolve_method = resolve_method
        self.tree = tree
        self.k = knowledge
        self.resolve_external = resolve_external
        self.resolve_external_name = resolve_external_name
        self.imports: dict[str, str] = {}
        self.module_aliases: set[str] = set()  # names bound by ``import x`` / ``import x as y``
        self.module_funcs: dict[str, ast.AST] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.summaries: dict[int, Summary] = {}
        self.func_class: dict[int, ClassInfo] = {}
        self.func_parent: dict[int, Frame] = {}
        self.pending: list[ast.AST] = []
        self.reaches: list[Reach] = []
        self.changes: list[LoopChange] = []
        self.role_contents: dict[int, tuple[Value, str]] = {}  # id(dict display) -> (content value, role)
        # id(list display) added after other messages (``history + [SystemMessage(...)]``,
        # ``messages += [...]``): its first element is not the first message of what is sent
        self.appended_lists: set[int] = set()
        self.dict_entries: dict[int, dict[str, tuple[Value, ast.AST]]] = {}
        # id(dict display whose keys are all string constants) -> the value it was built with: a
        # name still holding exactly that value has not been changed in a way that matters since
        self.keyed_displays: dict[int, Value] = {}
        # id(call) -> per-item values when the callee returns a tuple display: a, b = f()
        self.tuple_results: dict[int, list[Value]] = {}
        # id(call of a class) -> its keyword values: x = Args(tools=...); x.tools
        self.call_keywords: dict[int, dict[str, Value]] = {}
        self.module_frame = Frame(None)
        # > 0 while evaluating text being formatted (f-string fields, "..." + x, "%s" % x,
        # .format()): only there does a name like request_id put a per-request value into text.
        self._text_depth = 0
        self._branch_depth = 0  # if/match/try bodies being analysed around the current statement
        # id(LoopFrame) -> > 0 while analysing statements after which that loop certainly ends
        # (the return or break that follows a call): a call made there is not repeated by it
        self._final_loops: dict[int, int] = {}
        self._retried_loops: dict[int, int] = {}  # id(LoopFrame) -> > 0 inside a try body it retries
    # --- driver ------------------------------------------------------------------------------

    def analyse(self) -> None:
        body = self.tree.body
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.module_funcs[stmt.name] = stmt
        self.block(body, self.module_frame)
        for node in self.pending:
            self.summary_of(node)

    def block(self, stmts: Iterable[ast.stmt], frame: Frame) -> None:
        table = _STATEMENTS
        if not frame.loops:
            for stmt in stmts:
                handler = table.get(type(stmt))
                if handler is not None:
                    handler(self, stmt, frame)
            return
        stmts = stmts if isinstance(stmts, list) else list(stmts)
        exits = _exits_after(stmts)
        final = self._final_loops
        for stmt, exit_kind in zip(stmts, exits):
            handler = table.get(type(stmt))
            if handler is None:
                continue
            if exit_kind is None or not frame.loops:
                handler(self, stmt, frame)
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

    def _bool_op(self, node: ast.BoolOp, frame: Frame) -> Value:
        return merge(*(self.eval(v, frame) for v in node.values))  # one of the operands

    def _unary_op(self, node: ast.UnaryOp, frame: Frame) -> Value:
        return CLEAN if isinstance(node.op, ast.Not) else untyped(self.eval(node.operand, frame))

    def _if_exp(self, node: ast.IfExp, frame: Frame) -> Value:
        self.eval(node.test, frame)
        return merge(self.eval(node.body, frame), self.eval(node.orelse, frame))

    def _inner(self, node: ast.Starred | ast.Await, frame: Frame) -> Value:
        return self.eval(node.value, frame)

    def _clean(self, node: ast.AST, frame: Frame) -> Value:
        return CLEAN

    # --- binding -----------------------------------------------------------------------------

    def bind(self, target: ast.AST, value: Value, frame: Frame, source: ast.AST | None = None, weak: bool = False) -> None:
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
            if items is not None and len(items) == len(target.elts) and not any(isinstance(t, ast.Starred) for t in target.elts):
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
            if frame.cls is not None and isinstance(target.value, ast.Name) and target.value.id == frame.self_name:
                value = _without_params(value)  # a method's parameters mean nothing to the other methods
                old = frame.cls.attrs.get(target.attr)
                frame.cls.attrs[target.attr] = merge(old, value) if old is not None else value
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
                if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str) and target.slice.value in self.k.stash_keys:
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
            if raw is not None and _looks_like_class(last):
                return ("ext", ".".join(raw))
        return None

    def _record_type(self, target: ast.AST, source: ast.AST, frame: Frame) -> None:
        call = source.value if isinstance(source, ast.Await) else source
        ref = self.class_ref(call.func) if isinstance(call, ast.Call) else None
        if isinstance(target, ast.Attribute):
            if frame.cls is not None and isinstance(target.value, ast.Name) and target.value.id == frame.self_name:
                if ref is not None:
                    frame.cls.attr_types[target.attr] = ref
            return
        if ref is not None:
            frame.types[target.id] = ref  # type: ignore[attr-defined]
        else:
            frame.types.pop(target.id, None)  # type: ignore[attr-defined]

    def _type_of(self, node: ast.AST, frame: Frame) -> ClassRef | None:
        if isinstance(node, ast.Name):
            return frame.type_of(node.id)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and frame.cls is not None
            and node.value.id == frame.self_name
        ):
            return frame.cls.attr_types.get(node.attr)
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
            frame.cls.attrs[path[len(frame.self_name) + 1 :]] = _without_params(value)
            return
        frame.names[path] = value

    def _record_change(
        self,
        frame: Frame,
        path: str | None,
        node: ast.AST,
        action: str,
        rhs: ast.AST | None = None,
        counter: bool = False,
        keyed: bool = False,
        strict: bool | None = None,
    ) -> None:
        """``rhs``: the value a rebinding (or a keyed write, ``keyed``) gives the place; changes
        without it (``x.append(...)``) always count as changes."""
        if path is None or not frame.loops:
            return
        rhs_names = None
        entries = None
        if action == "rebound" or keyed:
            rhs_names = frozenset() if rhs is None or _takes_next_item(rhs) else _read_paths(rhs)
            if action == "rebound" and rhs is not None:
                entries = _display_entry_names(rhs)
        change = Change(path, span_of(node), action, rhs_names, counter, self._branch_depth, entries, keyed if strict is None else strict)
        if rhs_names is not None and rhs is not None:
            change.new_each_time = self._new_each_time(rhs)
        final = self._final_loops
        for loop in frame.loops:
            if final.get(id(loop)):
                continue  # the loop ends after this (return, break): no later call of it sees it
            loop.changes.append(change)
            if action == "rebound" and path.isidentifier():
                loop.tracked[path] = loop.tracked.get(path, 0) + 1

    # --- statements --------------------------------------------------------------------------

    def _assign(self, node: ast.Assign, frame: Frame) -> None:
        value = self.eval(node.value, frame)
        for target in node.targets:
            path = path_of(target)
            if frame.loops:
                first = first_item_place(target)
                if first is not None and self._may_be_system_message(node.value):
                    self._record_change(frame, first, target, "given another first message", node.value, keyed=True)
            if isinstance(target, ast.Subscript):
                if path is not None:  # d["key"] = v: that key, set to that value
                    self._record_change(frame, path, target, "changed by item assignment", node.value, keyed=True)
                else:
                    self._record_change(frame, place_of(target.value), target, "changed by item assignment")
            elif path is not None:
                self._record_change(frame, path, target, "rebound", node.value)
                if frame.loops:
                    first_node = _first_element(node.value)
                    if first_node is not None and self._may_be_system_message(first_node, frame):
                        # messages = [system, *history]: a rebuilt list whose first message is new
                        self._record_change(frame, path + FIRST, target, "rebuilt with another first message", first_node, keyed=True, strict=False)
            self.bind(target, value, frame, node.value)

    def _new_each_time(self, rhs: ast.AST) -> bool:
        for sub in ast.walk(rhs):
            if isinstance(sub, ast.Call):
                path = self.callee_path(sub.func)
                if path in (("input",), ("next",)) or self.k.sinks.match(path) is not None or self.k.volatile.match(path) is not None:
                    return True
        return False

    def _may_be_system_message(self, node: ast.AST, frame: Frame | None = None) -> bool:
        """What is written as a first message may be the system prompt: not a message display or
        class of another role (``{"role": "user", ...}``, ``HumanMessage(...)``)."""
        if frame is not None and isinstance(node, (ast.Name, ast.Attribute)):
            node = self._structure(node, frame) or node
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "role":
                    return not isinstance(value, ast.Constant) or value.value in self.k.first_message_roles
            return True
        if isinstance(node, ast.Call):
            if self.k.system_message_classes.match(self.callee_path(node.func)) is not None:
                return True
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else ""
            return not (name.endswith("Message") and name not in ("SystemMessage", "DeveloperMessage", "ChatMessage"))
        if isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant):
            return node.elts[0].value in self.k.first_message_roles
        return True

    def _ann_assign(self, node: ast.AnnAssign, frame: Frame) -> None:
        value = self.eval(node.value, frame) if node.value is not None else CLEAN
        declared = self._annotation_origin(node.annotation, node.target)
        if declared is not None and not _has_unordered(value):
            value = union(value, Value(frozenset([declared]), EMPTY))
        if node.value is None and declared is None:
            return
        path = path_of(node.target)
        if path is not None and node.value is not None:
            self._record_change(frame, path, node.target, "rebound", node.value)
        self.bind(node.target, value, frame, node.value)

    def _annotation_origin(self, annotation: ast.AST | None, at: ast.AST) -> Origin | None:
        """``names: set[str]``: the annotation says the value is unordered, wherever it came from."""
        if annotation is None:
            return None
        node = annotation
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # set[str] | None
            return self._annotation_origin(node.left, at) or self._annotation_origin(node.right, at)
        if isinstance(node, ast.Subscript):
            base = node.value
            if isinstance(base, (ast.Name, ast.Attribute)) and (base.id if isinstance(base, ast.Name) else base.attr) == "Optional":
                return self._annotation_origin(node.slice, at)
            node = base
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name is None or name not in self.k.unordered_annotations:
            return None
        # set[str] says nothing certain about the elements (annotations are not checked when the
        # program runs): a sorted(...) fix of such a value is unsafe
        return Origin(UNORDERED, f"a value annotated {ast.unparse(annotation) if not isinstance(annotation, ast.Constant) else annotation.value}", span_of(at))

    def _aug_assign(self, node: ast.AugAssign, frame: Frame) -> None:
        if isinstance(node.op, ast.Add) and isinstance(node.value, ast.List):
            self.appended_lists.add(id(node.value))
        value = self.eval(node.value, frame)
        target = node.target
        path = path_of(target)
        numeric = isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float)
        stepped = numeric and isinstance(node.op, (ast.Add, ast.Sub))
        action = "incremented" if stepped else "extended" if isinstance(node.op, ast.Add) else "changed"
        if path is not None and not (action == "extended" and _has_deferred_tool(node.value, frame)):
            self._record_change(frame, path, target, action, counter=numeric)
        if isinstance(target, ast.Subscript):
            self.bind(target, value, frame)
            return
        if path is None:
            return
        current = self._read_path(path, target, frame)
        if isinstance(node.op, (ast.BitOr, ast.BitXor)):  # s |= other: an empty set gets filled
            current = filled(current)
        order = EMPTY if numeric else self._iter_order(frame)
        new = union(current, value, Value(order, EMPTY)) if order else union(current, value)
        self._write_path(path, target, new, frame)
        for loop in frame.loops:
            if isinstance(target, ast.Name):
                loop.bound.add(target.id)

    def _expr_stmt(self, node: ast.Expr, frame: Frame) -> None:
        self.eval(node.value, frame)

    def _return(self, node: ast.Return, frame: Frame) -> None:
        summary = frame.summary
        if summary is not None and isinstance(node.value, ast.Tuple) and summary.tuple_ok and not any(
            isinstance(e, ast.Starred) for e in node.value.elts
        ):
            items = [self.eval(e, frame) for e in node.value.elts]
            if summary.tuple_returns is None:
                summary.tuple_returns = items
            elif len(summary.tuple_returns) == len(items):
                summary.tuple_returns = [union(a, b) for a, b in zip(summary.tuple_returns, items)]
            else:
                summary.tuple_ok = False
            value = union(*(as_element(v) for v in items)) if items else CLEAN
        else:
            value = self.eval(node.value, frame)
            if summary is not None and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None
            ):
                summary.tuple_ok = False
                call = node.value.value if isinstance(node.value, ast.Await) else node.value
                fields = self.call_keywords.get(id(call))
                if fields is None:
                    summary.fields_ok = False
                elif summary.fields_ok:
                    if summary.field_returns is None:
                        summary.field_returns = dict(fields)
                    else:
                        for name, v in fields.items():
                            old = summary.field_returns.get(name)
                            summary.field_returns[name] = union(old, v) if old is not None else v
        if summary is not None:
            summary.returns = merge(summary.returns, value) if summary.returned else value
            summary.returned = True

    def _yield(self, node: ast.Yield | ast.YieldFrom, frame: Frame) -> Value:
        value = self.eval(node.value, frame)
        summary = frame.summary
        if summary is not None:
            if isinstance(node, ast.YieldFrom):
                produced = value
            else:
                order = self._iter_order(frame)
                produced = union(as_element(value), Value(order, EMPTY))
            summary.returns = union(summary.returns, produced)
            summary.returned = True
        return CLEAN

    def _branches(self, frame: Frame, bodies: list[list[ast.stmt]]) -> None:
        """Run each body on a copy of the names and merge: a may-analysis over branches."""
        before_names = frame.names
        before_exprs = frame.exprs
        merged: dict[str, Value] = {}
        merged_exprs: dict[str, ast.AST] = dict(before_exprs)
        for body in bodies:
            frame.names = dict(before_names)
            frame.exprs = dict(before_exprs)
            self._branch_depth += 1
            try:
                self.block(body, frame)
            finally:
                self._branch_depth -= 1
            for name, value in frame.names.items():
                old = merged.get(name)
                merged[name] = merge(old, value) if old is not None else value
            for name, expr in frame.exprs.items():
                if before_exprs.get(name) is not expr:
                    merged_exprs[name] = expr
        frame.names = merged
        frame.exprs = merged_exprs

    def _if(self, node: ast.If, frame: Frame) -> None:
        self.eval(node.test, frame)
        self._branches(frame, [node.body, node.orelse])

    def _match(self, node: Any, frame: Frame) -> None:
        self.eval(node.subject, frame)
        self._branches(frame, [case.body for case in node.cases] + [[]])

    def _try(self, node: ast.Try, frame: Frame) -> None:
        # A handler that lets the loop go on retries what failed in the body: a call followed by
        # return there is repeated when it raises (a fallback model on the next attempt).
        retried = [id(loop) for loop in frame.loops] if any(
            not h.body or _exits_after(h.body)[0] is None for h in node.handlers
        ) else []
        for key in retried:
            self._retried_loops[key] = self._retried_loops.get(key, 0) + 1
        try:
            self.block(node.body, frame)
        finally:
            for key in retried:
                self._retried_loops[key] -= 1
        bodies = [h.body for h in node.handlers] + [node.orelse]
        self._branches(frame, bodies)
        self.block(node.finalbody, frame)

    def _with(self, node: ast.With, frame: Frame) -> None:
        for item in node.items:
            value = self.eval(item.context_expr, frame)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, value, frame, item.context_expr)
        self.block(node.body, frame)

    def _delete(self, node: ast.Delete, frame: Frame) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                self._record_change(frame, place_of(target.value), target, "shrunk (del)")

    def _for(self, node: ast.For, frame: Frame) -> None:
        iterable = self.eval(node.iter, frame)
        iterable = materialized(iterable, span_of(node.iter), iterated=True)
        order = frozenset(o for o in iterable.own if o.kind == UNORDERED)
        targets = _names_in(node.target)
        loop = LoopFrame(node, targets=targets, items=frozenset() if _counts(node.iter) else targets, branch_depth=self._branch_depth)
        frame.loops.append(loop)
        frame.iter_orders.append(order)
        try:
            self.bind(node.target, element_of(iterable), frame)
            self.block(node.body, frame)
        finally:
            frame.iter_orders.pop()
            frame.loops.pop()
        self._close_loop(loop, frame)
        self.block(node.orelse, frame)

    def _while(self, node: ast.While, frame: Frame) -> None:
        self.eval(node.test, frame)
        loop = LoopFrame(node, branch_depth=self._branch_depth)
        frame.loops.append(loop)
        try:
            self.block(node.body, frame)
        finally:
            frame.loops.pop()
        self._close_loop(loop, frame)
        self.block(node.orelse, frame)

    def _close_loop(self, loop: LoopFrame, frame: Frame) -> None:
        """A sink inside the loop reads a place that the loop changes: the prefix differs between
        the loop's iterations (CL103 for tools, CL104 for system, CL106 for a cache-key setting)."""
        # The enclosing loops see what this one contained.
        for outer in frame.loops:
            outer.bound |= loop.bound
            for name, count in loop.binds.items():
                outer.binds[name] = outer.binds.get(name, 0) + count
            for name, count in loop.tracked.items():
                outer.tracked[name] = outer.tracked.get(name, 0) + count
            outer.changes.extend(loop.changes)
            if not self._final_loops.get(id(outer)):  # a return or break ends ``outer`` after this loop
                outer.uses.update(loop.uses)
            outer.history.update(loop.history)
        if not loop.uses or not loop.changes:
            return
        # what the loop rebinds, or grows in place (``parts.append(x)``): a value rebuilt from it
        # differs between iterations
        varying_names, fresh, per_item = _varying_names(loop)
        batch = not _carries_history(loop)  # no conversation goes on from one item to the next
        for change in loop.changes:
            if loop.per_item(change):
                continue
            for used, sink in loop.uses:
                if not _covers(change.path, used):
                    continue
                if (change.path.endswith(FIRST) or used.endswith(FIRST)) and change.path != used:
                    continue  # messages.append(...) leaves the first message as it was
                if change.counter and change.path.startswith(used) and change.path != used:
                    # A counter of the object (retries, steps) changed, and the sink reads the
                    # object only as a whole, through calls the analysis cannot see into
                    # (``repo.commit(coder=self)``): no evidence the count is in the prompt. A
                    # prompt that reads the counter itself is still reported.
                    continue
                if change.rhs_names is not None and sink.configures:
                    continue  # one agent per iteration is a new agent, not a change within a session
                if change.rhs_names is not None:
                    names = change.rhs_names
                    if change.entries is not None and used != change.path and used.startswith(change.path + "["):
                        # params = {"model": m, ...} read as **params for model=: only m matters
                        key = used[len(change.path) + 1 :].split("]", 1)[0].strip("'\"")
                        names = change.entries.get(key, frozenset())
                    if change.path in fresh:
                        names = names - {change.path}  # x = f(x) after x = g(...) this iteration
                    varying = _reads_any(names, varying_names - {change.path})
                    # A fixed value set each iteration before the call is the same value at every
                    # call. A setting (or one key of the request) given a fixed value after the
                    # call (``tool_choice = "auto"`` after a forced first turn) or under a
                    # condition (``if spent: tool_choice = "none"``) changes once, when the most
                    # is cached.
                    strict = sink.tier == "setting" or change.keyed
                    steady = not varying and (
                        not strict or (change.branch_depth <= loop.branch_depth and change.site[0] < sink.line)
                    )
                    if change.path not in names and (steady or (varying and all(_root(p) in per_item or p in per_item for p in varying) and batch)):
                        # built from nothing that varies, or only from the loop's own item
                        # (``system = f"Summarize {doc.title}"`` in ``for doc in docs``) in a batch:
                        # one request per item, as the same f-string written at the call is
                        continue
                self.changes.append(LoopChange(sink.tier, sink, change.site, change.path, change.action))
                break

    # --- definitions -------------------------------------------------------------------------

    def _import(self, node: ast.Import, frame: Frame) -> None:
        for alias in node.names:
            if alias.asname:
                self.imports[alias.asname] = alias.name
                self.module_aliases.add(alias.asname)
            else:
                root = alias.name.split(".")[0]
                self.imports[root] = root
                self.module_aliases.add(root)

    def _import_from(self, node: ast.ImportFrom, frame: Frame) -> None:
        module = ("." * node.level) + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            local = alias.asname or alias.name
            self.imports[local] = f"{module}.{alias.name}" if node.module else f"{module}{alias.name}"

    def _def(self, node: ast.FunctionDef, frame: Frame) -> None:
        self.func_parent[id(node)] = frame
        if frame is self.module_frame:
            self.module_funcs[node.name] = node
            self.pending.append(node)
        else:
            frame.local_funcs[node.name] = node
            frame.names.pop(node.name, None)
            self.summary_of(node)
        for decorator in node.decorator_list:
            self.eval(decorator, frame)
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            hit = self.k.decorators.match(self.callee_path(target))
            if hit is not None:
                tier, _library = hit
                if frame is self.module_frame:
                    self.pending.remove(node)
                summary = self.summary_of(node)
                sink = SinkRef(tier, f"the return value of {node.name}() (@{ast.unparse(target)})", node.lineno)
                self._reach(summary.returns, sink, None, frame)

    def _class(self, node: ast.ClassDef, frame: Frame) -> None:
        info = ClassInfo(node.name)
        known = self.classes.setdefault(node.name, info)
        info.dataclass, info.init_fields = self._init_fields(node)
        if known is not info:
            known.init_fields = None  # two classes of that name: which one a call builds is not known
        for base in node.bases:
            self.eval(base, frame)
        class_frame = Frame(frame, cls=None)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.methods[stmt.name] = stmt
                self.func_class[id(stmt)] = info
                self.func_parent[id(stmt)] = frame
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                value = self.eval(stmt.value, class_frame) if stmt.value is not None else CLEAN
                declared = self._annotation_origin(stmt.annotation, stmt.target)
                if declared is not None and not _has_unordered(value):
                    value = union(value, Value(frozenset([declared]), EMPTY))
                if value:
                    info.attrs[stmt.target.id] = value
            elif isinstance(stmt, ast.Assign):
                value = self.eval(stmt.value, class_frame)
                for t in stmt.targets:
                    if isinstance(t, ast.Name) and value:
                        info.attrs[t.id] = value
            elif isinstance(stmt, ast.ClassDef):
                self._class(stmt, class_frame)
        methods = sorted(info.methods.values(), key=lambda m: (m.name not in ("__init__", "__post_init__"), m.lineno))
        for method in methods:
            for decorator in method.decorator_list:
                self.eval(decorator, frame)
            if frame is self.module_frame:
                self.pending.append(method)
            else:
                self.summary_of(method)

    def _init_fields(self, node: ast.ClassDef) -> tuple[bool, tuple[str, ...] | None]:
        """(is a dataclass, the positional parameters of its generated __init__): the annotated
        names of the class body in order, after those of a base dataclass of the module, as
        @dataclass and typing.NamedTuple write them. None when that is not certain: a custom
        __init__/__new__, a base the analysis cannot see, init=False, a field declared inside an
        ``if``."""
        named_tuple = any(self.callee_path(b)[-1] == "NamedTuple" for b in node.bases)
        decorator = next(
            (d for d in node.decorator_list if self.callee_path(d.func if isinstance(d, ast.Call) else d)[-1] == "dataclass"), None
        )
        is_dataclass = decorator is not None and not named_tuple
        if not (is_dataclass or (named_tuple and decorator is None)):
            return is_dataclass, None
        if isinstance(decorator, ast.Call) and any(
            kw.arg is None or (kw.arg == "init" and not _is_constant(kw.value, True)) or (kw.arg == "kw_only" and not _is_constant(kw.value, False))
            for kw in decorator.keywords
        ):
            return is_dataclass, None
        fields: list[str] = []
        for base in node.bases:
            base_class = base.value if isinstance(base, ast.Subscript) else base  # Generic[T]
            name = self.callee_path(base_class)[-1]
            inherited = self.classes.get(base_class.id) if isinstance(base_class, ast.Name) else None
            if inherited is not None and inherited.dataclass and inherited.init_fields is not None and is_dataclass:
                fields.extend(f for f in inherited.init_fields if f not in fields)
            elif name not in ("NamedTuple", "Generic", "object", "ABC", "Protocol"):
                return is_dataclass, None
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in ("__init__", "__new__"):
                return is_dataclass, None
            if not isinstance(stmt, ast.AnnAssign):
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
                    isinstance(sub, ast.AnnAssign) for sub in ast.walk(stmt)
                ):
                    return is_dataclass, None
                continue
            if not isinstance(stmt.target, ast.Name):
                continue
            annotation = stmt.annotation
            if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                try:
                    annotation = ast.parse(annotation.value, mode="eval").body
                except SyntaxError:
                    return is_dataclass, None
            kind = self.callee_path(annotation.value if isinstance(annotation, ast.Subscript) else annotation)[-1]
            if kind == "ClassVar":
                continue
            if kind == "KW_ONLY":
                break  # the fields after it are keyword-only
            value = stmt.value
            if isinstance(value, ast.Call) and self.callee_path(value.func)[-1] == "field" and any(
                (kw.arg == "init" and not _is_constant(kw.value, True)) or (kw.arg == "kw_only" and not _is_constant(kw.value, False))
                for kw in value.keywords
            ):
                continue  # not a positional parameter of __init__
            if stmt.target.id not in fields:
                fields.append(stmt.target.id)
        return is_dataclass, tuple(fields)

    def summary_of(self, node: Any) -> Summary:
        key = id(node)
        summary = self.summaries.get(key)
        if summary is not None:
            return summary
        args = node.args
        params = [a.arg for a in args.posonlyargs + args.args]
        cls = self.func_class.get(key)
        is_method = cls is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        summary = Summary(node.name, params[1:] if is_method and params else params)
        self.summaries[key] = summary
        parent = self.func_parent.get(key, self.module_frame)
        frame = Frame(parent, summary, cls if is_method else None)
        all_args = args.posonlyargs + args.args + args.kwonlyargs
        for i, a in enumerate(all_args):
            if is_method and i == 0 and args.posonlyargs + args.args:
                frame.self_name = a.arg
                frame.names[a.arg] = CLEAN
                continue
            value = Value(
                frozenset([Origin(PARAM, a.arg, span_of(a))]),
                frozenset([Origin(PARAM, a.arg, span_of(a), mode="elem")]),
            )
            declared = self._annotation_origin(a.annotation, a)
            if declared is not None:
                value = union(value, Value(frozenset([declared]), EMPTY))
            frame.names[a.arg] = value
            frame.params.add(a.arg)
            ref = self.class_ref(a.annotation)
            if ref is not None:
                frame.types[a.arg] = ref
        for a in (args.vararg, args.kwarg):
            if a is not None:
                frame.names[a.arg] = CLEAN
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.eval(default, parent)
        self.block(node.body, frame)
        summary.done = True
        return summary

    # --- expressions -------------------------------------------------------------------------

    def _volatile_name(self, name: str, node: ast.AST) -> Value | None:
        """A name formatted into text that says what it holds: a per-request id (``request_id``),
        or a per-user / per-session one (``user_id``: one prefix per user, never shared)."""
        if not self._text_depth:
            return None
        kind = self.k.volatile_name_kind(name)
        if kind == "request":
            return Value(frozenset([Origin(VOLATILE, f"{name} (a per-request value)", span_of(node))]), EMPTY)
        if kind == "session":
            origin = Origin(VOLATILE, f"{name} (a per-user or per-session value)", span_of(node), granularity="session")
            return Value(frozenset([origin]), EMPTY)
        return None

    def _name(self, node: ast.Name, frame: Frame) -> Value:
        v = frame.lookup(node.id)
        if v is None and self.resolve_external_name is not None and node.id in self.imports:
            v = self._external_name(node, (self.imports[node.id],))
        tagged = self._volatile_name(node.id, node) if self.k.knows_volatile_names else None
        if tagged is not None:
            return union(v or CLEAN, tagged)
        return v if v is not None else CLEAN

    def _attribute(self, node: ast.Attribute, frame: Frame) -> Value:
        base = node.value
        if isinstance(base, ast.Name) and frame.cls is not None and base.id == frame.self_name:
            v = frame.cls.attrs.get(node.attr, CLEAN)
        else:
            path = path_of(node)
            stored = frame.lookup(path) if path is not None else None
            if stored is not None:
                v = stored
            elif isinstance(base, ast.Name) and base.id in frame.params and frame.names.get(base.id) is not None:
                site = span_of(base)
                v = Value(
                    frozenset([Origin(PARAM, base.id, site, attr=node.attr)]),
                    frozenset([Origin(PARAM, base.id, site, mode="elem", attr=node.attr)]),
                )
                v = union(v, *(Value(frozenset(o for o in frame.names[base.id].own if o.kind != PARAM), EMPTY),))
            elif isinstance(base, ast.Name) and base.id in self.imports and frame.lookup(base.id) is None:
                v = CLEAN
                if self.resolve_external_name is not None:
                    v = self._external_name(node, (self.imports[base.id], node.attr)) or CLEAN
            else:
                base_value = self.eval(base, frame)
                # an attribute of a value carries what the value carries, but is not that value
                # (except what a pathlib path's attributes are: p.parent, p.name)
                kind = self.k.path_attributes.get(node.attr) if base_value.kind == PATH else None
                v = typed(base_value, kind) if kind is not None else untyped(base_value)
        if node.attr in self.k.stable_members:
            return CLEAN
        if node.attr in self.k.date_attributes and any(o.kind == VOLATILE for o in v.own):
            return self._as_date(v, node)
        if self.k.knows_volatile_names:
            tagged = self._volatile_name(node.attr, node)
            if tagged is not None:
                return union(v, tagged)
        return v

    def _subscript(self, node: ast.Subscript, frame: Frame) -> Value:
        keyed = self._param_item(node.value, node.slice, frame)
        if keyed is not None:
            return keyed
        base = self.eval(node.value, frame)
        self.eval(node.slice, frame)
        if isinstance(node.slice, ast.Slice):
            return base
        path = path_of(node)
        if path is not None:
            stored = frame.lookup(path)
            if stored is not None:
                return stored
        entry = self._display_entry(node.value, node.slice.value, frame) if path is not None else None  # type: ignore[attr-defined]
        v = entry if entry is not None else element_of(base)
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) and self.k.knows_volatile_names:
            tagged = self._volatile_name(node.slice.value, node)
            if tagged is not None:
                return union(v, tagged)
        return v

    def _param_item(self, base: ast.AST, key: ast.AST | None, frame: Frame) -> Value | None:
        """``data["system"]`` of a parameter ``data``: what the caller put under that key."""
        if not (
            isinstance(base, ast.Name)
            and base.id in frame.params
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
            and frame.names.get(base.id) is not None
            and frame.lookup(f"{base.id}[{key.value!r}]") is None
        ):
            return None
        site = span_of(base)
        attr = f"[{key.value!r}]"
        value = Value(
            frozenset([Origin(PARAM, base.id, site, attr=attr)]),
            frozenset([Origin(PARAM, base.id, site, mode="elem", attr=attr)]),
        )
        declared = frozenset(o for o in frame.names[base.id].own if o.kind != PARAM)
        if declared:
            value = union(value, Value(declared, EMPTY))
        if self.k.knows_volatile_names:
            tagged = self._volatile_name(key.value, base)
            if tagged is not None:
                value = union(value, tagged)
        return value

    def _compare(self, node: ast.Compare, frame: Frame) -> Value:
        self.eval(node.left, frame)
        for c in node.comparators:
            self.eval(c, frame)
        return CLEAN

    def _is_set_like(self, node: ast.AST, value: Value) -> bool:
        if any(o.kind == UNORDERED for o in value.own):
            return True
        if isinstance(node, (ast.Set, ast.SetComp)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in self.k.set_view_methods:
            return True
        return False

    def _binop(self, node: ast.BinOp, frame: Frame) -> Value:
        if isinstance(node.op, ast.Add) and isinstance(node.right, ast.List) and not _empty_list(node.left):
            self.appended_lists.add(id(node.right))
        text = isinstance(node.op, (ast.Add, ast.Mod)) and (_str_expr(node.left) or _str_expr(node.right))
        if text:
            self._text_depth += 1
        try:
            left = self.eval(node.left, frame)
            right = self.eval(node.right, frame)
        finally:
            if text:
                self._text_depth -= 1
        value = union(left, right)
        kind = elements = None
        if isinstance(node.op, ast.Add) and STR in (left.kind, right.kind):
            kind = STR  # "text" + x (or a TypeError)
        elif isinstance(node.op, ast.Mod) and left.kind == STR:
            kind = STR  # "%s" % x
        elif isinstance(node.op, ast.Div) and PATH in (left.kind, right.kind):
            kind = PATH  # path / "name", "root" / path
        elif isinstance(node.op, (ast.Add, ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)):
            elements = agree(left.elements, right.elements)  # lists concatenated, set algebra
        if kind is not None or elements is not None:
            value = Value(value.own, value.inner, kind, elements)
        if (
            isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor))
            and _direct_set(node.left)
            and _direct_set(node.right)
            and _has_unordered(left)
            and _has_unordered(right)
        ):
            # set(a) | set(b): one construction site for the whole expression.
            merged = Origin(UNORDERED, "set algebra on sets", span_of(node))
            own = frozenset(o for o in value.own if o.kind != UNORDERED) | {merged}
            return Value(own, value.inner, None, value.elements)
        if isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)):
            has_origin = _has_unordered(left) or _has_unordered(right)
            if not has_origin and (self._is_set_like(node.left, left) or self._is_set_like(node.right, right)):
                op = {ast.BitOr: "|", ast.BitAnd: "&", ast.Sub: "-", ast.BitXor: "^"}[type(node.op)]
                origin = Origin(UNORDERED, f"set algebra ({op} on a set view)", span_of(node))
                value = union(value, Value(frozenset([origin]), EMPTY))
        return value

    def _dict(self, node: ast.Dict, frame: Frame) -> Value:
        parts = []
        role = None
        content: tuple[Value, ast.AST] | None = None
        stash: dict[str, tuple[Value, ast.AST]] | None = None
        for key, val in zip(node.keys, node.values):
            kv = self.eval(key, frame) if key is not None else CLEAN
            vv = self.eval(val, frame)
            if key is None:  # {**other}
                parts.append(vv)
                continue
            parts.append(as_element(kv))
            parts.append(as_element(vv))
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                name = key.value
                if name == "role" and isinstance(val, ast.Constant) and val.value in self.k.first_message_roles:
                    role = val.value
                elif name == "content":
                    content = (vv, val)
                if len(node.keys) <= _MAX_REMEMBERED_KEYS:
                    if stash is None:
                        stash = {}
                    stash[name] = (vv, val)
        if role is not None and content is not None:
            self.role_contents[id(node)] = (content[0], role)
        if stash:
            self.dict_entries[id(node)] = stash
        value = union(*parts) if parts else CLEAN
        if stash and len(stash) == len(node.keys):  # every key a string constant, none repeated
            self.keyed_displays[id(node)] = value
        return value

    def _display_entry(self, base: ast.AST, key: str, frame: Frame) -> Value | None:
        """``cfg["user_id"]`` or ``cfg.get("user_id")`` of a dict built from a display with string
        keys (``cfg = {"thread_id": ..., "user_id": ...}``, also nested: ``config["configurable"]``):
        only that key's value, while nothing the analysis can see has put other values in the dict
        (``cfg[k] = v``, ``cfg.update(x)``, ``cfg["user_id"] = v`` make it read as a whole again).
        What a called function does to the dict is not followed, as for lists and attributes."""
        display = self._unchanged_display(base, frame, 0)
        if display is None:
            return None
        entry = self.dict_entries[id(display)].get(key)
        return entry[0] if entry is not None else None

    def _unchanged_display(self, node: ast.AST, frame: Frame, depth: int) -> ast.Dict | None:
        if depth > 4:
            return None
        if isinstance(node, ast.Dict):
            return node if id(node) in self.keyed_displays else None
        path = path_of(node)
        if path is None or (isinstance(node, ast.Attribute) and frame.cls is not None and _root(path) == frame.self_name):
            return None
        if isinstance(node, ast.Subscript):  # config["configurable"]: the display under that key
            if frame.lookup(path) is not None:
                return None  # changed through this key: config["configurable"]["x"] = ...
            outer = self._unchanged_display(node.value, frame, depth + 1)
            entry = self.dict_entries[id(outer)].get(node.slice.value) if outer is not None else None  # type: ignore[attr-defined]
            return self._unchanged_display(entry[1], frame, depth + 1) if entry is not None else None
        source = frame.lookup_expr(path)
        current = frame.lookup(path)
        if source is None or current is None:
            return None
        display = self._unchanged_display(source, frame, depth + 1)
        if display is None or self.keyed_displays[id(display)] != current:
            return None
        return display

    def _sequence(self, node: ast.List | ast.Tuple, frame: Frame) -> Value:
        parts = []
        kinds: list[str | None] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                starred = self.eval(elt.value, frame)
                kinds.append(starred.elements)
                parts.append(materialized(starred, span_of(elt.value), iterated=True))
            else:
                item = self.eval(elt, frame)
                kinds.append(item.kind)
                parts.append(as_element(item))
        if isinstance(node, ast.List) and node.elts and id(node) not in self.appended_lists:
            first = node.elts[0]
            content = self.role_contents.get(id(first))
            if content is not None:
                # A message list that starts with a system message is built to be sent: its
                # first message is the system prompt wherever the list goes.
                value, role = content
                self._reach(value, SinkRef("system", f"the first message ({role}) of a message list", node.lineno), None, frame)
        if (
            isinstance(node, ast.Tuple)
            and len(node.elts) == 2
            and isinstance(node.elts[0], ast.Constant)
            and node.elts[0].value in self.k.first_message_roles
        ):
            # langchain's ("system", text) message
            self.role_contents[id(node)] = (parts[1], node.elts[0].value)
        return typed(union(*parts), None, _common_kind(kinds)) if parts else CLEAN

    def _set(self, node: ast.Set, frame: Frame) -> Value:
        values = [self.eval(e, frame) for e in node.elts]
        kinds = [v.elements if isinstance(e, ast.Starred) else v.kind for e, v in zip(node.elts, values)]
        origin = Origin(UNORDERED, "a set", span_of(node))
        return typed(union(Value(frozenset([origin]), EMPTY), *(as_element(v) for v in values)), None, _common_kind(kinds))

    def _generators(self, node: Any, frame: Frame) -> tuple[Frame, frozenset[Origin]]:
        inner = Frame(frame, frame.summary, frame.cls)
        inner.self_name = frame.self_name
        order: frozenset[Origin] = EMPTY
        for gen in node.generators:
            iterable = materialized(self.eval(gen.iter, inner), span_of(gen.iter), iterated=True)
            order = order | frozenset(o for o in iterable.own if o.kind in (UNORDERED, PARAM))
            self.bind(gen.target, element_of(iterable), inner)
            for cond in gen.ifs:
                self.eval(cond, inner)
        return inner, order

    def _comprehension(self, node: Any, frame: Frame) -> Value:
        inner, order = self._generators(node, frame)
        elements = None
        if isinstance(node, ast.DictComp):
            elt = union(as_element(self.eval(node.key, inner)), as_element(self.eval(node.value, inner)))
        else:
            item = self.eval(node.elt, inner)
            elements = item.kind
            elt = as_element(item)
        value = union(elt, Value(order, EMPTY)) if order else elt
        return typed(value, None, elements) if elements is not None else value

    def _set_comprehension(self, node: ast.SetComp, frame: Frame) -> Value:
        inner, _order = self._generators(node, frame)
        elt = self.eval(node.elt, inner)
        origin = Origin(UNORDERED, "a set comprehension", span_of(node))
        return typed(union(Value(frozenset([origin]), EMPTY), as_element(elt)), None, elt.kind)

    def _joined_str(self, node: ast.JoinedStr, frame: Frame) -> Value:
        parts = [self.eval(v, frame) for v in node.values if isinstance(v, ast.FormattedValue)]
        return typed(union(*parts), STR) if parts else STR_VALUE

    def _constant(self, node: ast.Constant, frame: Frame) -> Value:
        return STR_VALUE if isinstance(node.value, str) else CLEAN

    def _formatted_value(self, node: ast.FormattedValue, frame: Frame) -> Value:
        self._text_depth += 1
        try:
            # formatted, not iterated: f"{sorted(names)}" would print a list where a set was
            value = materialized(self.eval(node.value, frame), span_of(node.value), iterated=False)
        finally:
            self._text_depth -= 1
        spec = node.format_spec
        if spec is not None and value.own:
            text = "".join(v.value for v in spec.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if "%" in text and not any(d in text for d in self.k.time_directives):
                return self._as_date(value, node)
        return value

    def _named_expr(self, node: ast.NamedExpr, frame: Frame) -> Value:
        value = self.eval(node.value, frame)
        self.bind(node.target, value, frame, node.value)
        return value

    def _as_date(self, value: Value, node: ast.AST) -> Value:
        """A clock reduced to its date (strftime("%Y-%m-%d"), .date()): it changes once a day."""
        own = set()
        for o in value.own:
            if o.kind == VOLATILE and o.granularity == "time" and "per-request" not in o.what:
                own.add(replace(o, granularity="date", what=o.what.replace("(the clock)", "(reduced to the date)")))
            else:
                own.add(o)
        return Value(frozenset(own), value.inner)

    # --- calls -------------------------------------------------------------------------------

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

    def _call(self, node: ast.Call, frame: Frame) -> Value:
        func = node.func
        receiver = CLEAN
        method = None
        if isinstance(func, ast.Attribute):
            method = func.attr
            receiver = self.eval(func.value, frame)
        elif not isinstance(func, ast.Name):
            self.eval(func, frame)
        text = method == "format" and _str_expr(func.value)  # type: ignore[union-attr]
        if text:
            self._text_depth += 1
        try:
            positional = [self.eval(a, frame) for a in node.args]
            keywords = {kw.arg: self.eval(kw.value, frame) for kw in node.keywords}
        finally:
            if text:
                self._text_depth -= 1
        path = self.callee_path(func)
        fields = self._constructor_fields(node, func, positional, keywords)
        if fields is not None:
            self.call_keywords[id(node)] = fields
        elif _looks_like_class(path[-1]) and node.keywords and any(keywords.values()):
            # A class instantiated with keywords: its attributes of those names hold those values.
            self.call_keywords[id(node)] = {k: v for k, v in keywords.items() if k is not None}

        if self.k.system_message_classes.match(path) is not None:
            content = keywords.get("content") if "content" in keywords else (positional[0] if positional else CLEAN)
            self.role_contents[id(node)] = (content, "system")
        elif path == ("dict",) and "content" in keywords and frame.lookup("dict") is None:
            # dict(role="system", content=...): the same message as the {"role": ...} display
            role = next((kw.value.value for kw in node.keywords if kw.arg == "role" and isinstance(kw.value, ast.Constant)), None)
            if role in self.k.first_message_roles:
                self.role_contents[id(node)] = (keywords["content"], role)

        local = self._local_function(func, frame)
        if local is not None:
            return self._apply_summary(node, local, positional, keywords, frame, receiver_is_self=isinstance(func, ast.Attribute))
        if isinstance(func, ast.Attribute):
            ref = self._type_of(func.value, frame)
            if ref is not None:
                kind, name = ref
                if kind == "local":
                    method = self.classes[name].methods.get(func.attr) if name in self.classes else None
                    if method is not None:
                        return self._apply_summary(node, self.summary_of(method), positional, keywords, frame, receiver_is_self=False)
                elif self.resolve_method is not None:
                    found = self.resolve_method(name, func.attr)
                    if found is not None:
                        return self._apply_external(node, found, positional, keywords, frame)

        sink = self.k.sinks.match(path)
        if sink is not None:
            self._sink_call(node, sink, positional, keywords, frame)
            return CLEAN

        if self.k.sanitizers.match(path) is not None and not (len(path) == 1 and frame.lookup(path[0]) is not None):
            if not positional:
                return CLEAN
            result = sanitized(union(*positional))
            if self.k.keeps_elements.match(path) is not None and len(positional) == 1:
                result = typed(result, None, positional[0].elements)  # sorted(x): x's elements
            return result

        unordered = self.k.unordered.match(path)
        if unordered is not None and not (len(path) == 1 and frame.lookup(path[0]) is not None):
            if path in (("set",), ("frozenset",)) and _is_empty_set_call(node):
                if path == ("frozenset",):
                    return CLEAN  # empty and immutable: there will never be an order to lose
                # empty for now: unordered once something is put in it (values.filled)
                return Value(frozenset([Origin(UNORDERED, unordered.what, span_of(node), empty=True)]), EMPTY)
            origin = Origin(UNORDERED, unordered.what, span_of(node), sortable=unordered.sortable)
            elements = self._source_elements(unordered.elements, node, receiver, positional, isinstance(func, ast.Attribute))
            carried = union(receiver, *positional, *keywords.values())
            own = frozenset([origin])
            inner = frozenset([origin]) if unordered.nested else EMPTY
            if path in (("set",), ("frozenset",)) and positional:
                inner = inner | positional[0].inner
                own = own | frozenset(o for o in positional[0].own if o.kind != UNORDERED)
                return Value(own, inner, None, positional[0].elements if len(positional) == 1 and not node.keywords else None)
            return typed(union(Value(own, inner), element_of(carried)), None, elements)

        volatile = self.k.volatile.match(path)
        if volatile is not None and not (len(path) == 1 and frame.lookup(path[0]) is not None):
            args_value = union(*positional, *keywords.values())
            if volatile.needs_volatile_argument:
                return args_value
            granularity = volatile.granularity
            if volatile.format_argument is not None and len(node.args) > volatile.format_argument:
                fmt = node.args[volatile.format_argument]
                if isinstance(fmt, ast.Constant) and isinstance(fmt.value, str) and not any(d in fmt.value for d in self.k.time_directives):
                    granularity = "date"
            what = volatile.what if granularity == volatile.granularity else volatile.what.replace("(the clock)", "(reduced to the date)")
            return union(Value(frozenset([Origin(VOLATILE, what, span_of(node), granularity=granularity)]), EMPTY), args_value)

        if method is not None:
            handled = self._method_call(node, func, method, receiver, positional, keywords, frame)
            if handled is not None:
                return handled

        if self.k.materializers.match(path) is not None:
            iterated = self.k.sorting_changes_result.match(path) is None
            values = [materialized(v, span_of(a), iterated) for v, a in zip(positional, node.args)]
            result = union(receiver, *values, *keywords.values())
            if path[-1] in ("dumps", "dump") and any(
                kw.arg in self.k.key_sorting_keywords and isinstance(kw.value, ast.Constant) and kw.value.value is True
                for kw in node.keywords
            ):
                return sanitized(result)
            if self.k.keeps_elements.match(path) is not None and len(positional) == 1 and not node.keywords:
                return typed(result, None, positional[0].elements)  # list(x), tuple(x)
            return typed(result, self._result_kind(path, method, receiver))

        raw = self.raw_dotted(func) if self.resolve_external is not None else None
        if raw is not None and not (isinstance(func, ast.Name) and frame.lookup(func.id) is not None):
            external = self._external_call(node, raw, positional, keywords, frame)
            if external is not None:
                return external

        self._passed_sets_may_fill(node, positional, keywords, frame)
        passed = [sanitized(v) if self.k.is_membership_keyword(name) else v for name, v in keywords.items()]
        result = _through_unknown(union(receiver, *positional, *passed))
        kind = self._result_kind(path, method, receiver) if not (isinstance(func, ast.Name) and frame.lookup(func.id) is not None) else None
        return typed(result, kind) if kind is not None else result

    def _result_kind(self, path: tuple[str, ...], method: str | None, receiver: Value) -> str | None:
        """What a call returns when that is certain (for the fixes): str(x) a str, Path(x) a path,
        a str method of a str a str, a path method of a path a path."""
        if method is not None:
            if receiver.kind == STR and method in self.k.str_methods:
                return STR
            if receiver.kind == PATH:
                return self.k.path_methods.get(method)
        if self.k.str_calls.match(path) is not None:
            return STR
        if self.k.path_calls.match(path) is not None:
            return PATH
        return None

    def _source_elements(
        self, declared: str | None, node: ast.Call, receiver: Value, positional: list[Value], is_method: bool
    ) -> str | None:
        """What the elements of an unordered source's result are, for certain. ``name`` (os.listdir,
        glob.glob) gives str for a str path (or none), else file names of one type (bytes for a
        bytes path); ``path`` (Path.glob, iterdir) only on a receiver known to be a pathlib path
        (zipfile.Path or a resources Traversable has the same methods, and no order); a set
        method (a.union(b)) the elements its operands agree on."""
        if declared == NAME:
            return STR if not positional or positional[0].kind == STR else NAME
        if declared == STR:
            return STR
        if declared == PATH:
            return PATH if is_method and receiver.kind == PATH else None
        if is_method and positional and not node.keywords and receiver.elements is not None:
            return _common_kind([receiver.elements, *(v.elements for v in positional)])
        return None

    def _passed_sets_may_fill(self, node: ast.Call, positional: list[Value], keywords: dict, frame: Frame) -> None:
        """A function the analysis does not follow into may put elements into an empty set passed to
        it (``collect(found)``): the caller's set counts as filled afterwards."""
        if not any(holds_empty_set(v) for v in positional) and not any(holds_empty_set(v) for v in keywords.values()):
            return
        for arg in [*node.args, *(kw.value for kw in node.keywords)]:
            path = path_of(arg.value if isinstance(arg, ast.Starred) else arg)
            if path is None:
                continue
            current = self._read_path(path, arg, frame)
            if holds_empty_set(current):
                self._write_path(path, arg, filled(current), frame)

    def _constructor_fields(self, node: ast.Call, func: ast.AST, positional: list[Value], keywords: dict) -> dict[str, Value] | None:
        """``Setup(tool, names)`` of a dataclass or NamedTuple of the module: each field holds the
        argument given for it, by position (the field order) or by keyword. Even when every
        argument is clean, so that a function returning it in several ways keeps its fields apart."""
        ref = self.class_ref(func)
        if ref is None or ref[0] != "local":
            return None
        order = self.classes[ref[1]].init_fields
        if order is None or len(node.args) > len(order) or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        fields = dict(zip(order, positional))
        fields.update((k, v) for k, v in keywords.items() if k is not None)
        return fields

    def _method_call(
        self, node: ast.Call, func: ast.Attribute, method: str, receiver: Value, positional: list[Value], keywords: dict, frame: Frame
    ) -> Value | None:
        k = self.k
        target_path = path_of(func.value)
        if method in k.sort_methods:
            if target_path is not None:
                self._write_path(target_path, func.value, sanitized(receiver), frame)
            return CLEAN
        if (
            method in k.mutating_methods
            and _COLLECTION_ARITY.get(method, len(node.args)) == len(node.args)
            and not (isinstance(func.value, ast.Name) and func.value.id in self.module_aliases and frame.lookup(func.value.id) is None)
        ):  # os.remove(path) is a call of a module, not a list shrunk
            if target_path is not None:
                deferred = method in k.adding_methods and node.args and all(_has_deferred_tool(a, frame) for a in node.args)
                if method == "update" and not node.args and node.keywords and all(kw.arg is not None for kw in node.keywords):
                    # request.update(tools=..., tool_choice=...): those keys, set to those values
                    for kw in node.keywords:
                        key_path = f"{target_path}[{kw.arg!r}]"
                        self._record_change(frame, key_path, node, f"updated (.update({kw.arg}=...))", kw.value, keyed=True)
                        if kw.arg in k.stash_keys:
                            frame.exprs[key_path] = kw.value
                elif not deferred:
                    self._record_change(frame, target_path, node, _MUTATION_WORDS.get(method, f"changed in place (.{method}())"))
                    if method == "insert" and node.args and _is_first_index(node.args[0]) and self._may_be_system_message(node.args[1], frame):
                        self._record_change(frame, target_path + FIRST, node, "given another first message (.insert(0, ...))")
                if method in k.adding_methods:
                    added = CLEAN
                    for v, a in zip(positional, node.args):
                        if method in ("extend", "update", "extendleft"):
                            added = union(added, materialized(v, span_of(a), iterated=True))
                        else:
                            added = union(added, as_element(v))
                    added = union(added, *(as_element(v) for v in keywords.values()))
                    self._add_to(target_path, func.value, added, frame)
            if method in k.element_methods:
                return element_of(receiver)
            return CLEAN
        if method in k.stable_members:
            return CLEAN
        if method == "get" and node.args:
            keyed = self._param_item(func.value, node.args[0], frame)
            if keyed is None and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                keyed = self._display_entry(func.value, node.args[0].value, frame)
            if keyed is not None:
                return union(keyed, *positional[1:])
        if method in k.element_methods:
            return element_of(receiver)
        if method in k.sanitizer_methods:
            return sanitized(receiver)
        if method in k.format_methods:
            if any(o.kind == VOLATILE for o in receiver.own) and node.args:
                fmt = node.args[0]
                if isinstance(fmt, ast.Constant) and isinstance(fmt.value, str) and not any(d in fmt.value for d in k.time_directives):
                    return typed(self._as_date(receiver, node), STR)
            return typed(union(receiver, *positional), STR)
        if method in k.date_methods and not node.args:
            return self._as_date(receiver, node)
        return None

    def _local_function(self, func: ast.AST, frame: Frame) -> Summary | None:
        if isinstance(func, ast.Name):
            f: Frame | None = frame
            while f is not None:
                if func.id in f.local_funcs:
                    return self.summary_of(f.local_funcs[func.id])
                if func.id in f.names and f is not self.module_frame:
                    return None
                f = f.parent
            node = self.module_funcs.get(func.id)
            if node is not None:
                return self.summary_of(node)
            return None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and frame.cls is not None
            and func.value.id == frame.self_name
        ):
            method = frame.cls.methods.get(func.attr)
            if method is not None:
                return self.summary_of(method)
        return None

    def _bindings(
        self, params: list[str], node: ast.Call, positional: list[Value], keywords: dict, frame: Frame | None = None
    ) -> tuple[dict[str, Value], dict[str, ast.AST]]:
        values: dict[str, Value] = {}
        nodes: dict[str, ast.AST] = {}
        for i, (v, a) in enumerate(zip(positional, node.args)):
            if isinstance(a, ast.Starred):
                break
            if i < len(params):
                values[params[i]] = v
                nodes[params[i]] = a
        for kw in node.keywords:
            if kw.arg is not None:
                values[kw.arg] = keywords.get(kw.arg, CLEAN)
                nodes[kw.arg] = kw.value
        if frame is not None:
            for param, arg_node in list(nodes.items()):
                display = arg_node if isinstance(arg_node, ast.Dict) else self._structure(arg_node, frame) if isinstance(arg_node, ast.Name) else None
                entries = self.dict_entries.get(id(display)) if display is not None else None
                if entries:
                    for key, (entry_value, _entry_node) in entries.items():
                        values[f"{param}.[{key!r}]"] = entry_value
                arg_path = path_of(arg_node)
                if arg_path is None or not isinstance(arg_node, ast.Name):
                    continue
                prefix = arg_path + "."
                f: Frame | None = frame
                while f is not None:
                    for key, v in f.names.items():
                        if key.startswith(prefix) and "." not in key[len(prefix):]:
                            values.setdefault(f"{param}.{key[len(prefix):]}", v)
                    f = f.parent
        return values, nodes

    def _apply_summary(self, node: ast.Call, summary: Summary, positional: list[Value], keywords: dict, frame: Frame, receiver_is_self: bool) -> Value:
        self._passed_sets_may_fill(node, positional, keywords, frame)
        values, nodes = self._bindings(summary.params, node, positional, keywords, frame)
        for param, sinks in summary.param_sinks.items():
            bound = _bound_value(param, values)
            if bound is None:
                continue
            for sink, mode in sinks:
                arg = bound
                if mode == "elem":
                    arg = element_of(arg)
                elif mode == "sorted":
                    arg = sanitized(arg)
                self._reach(arg, sink, nodes.get(param), frame, arg.elements)
        for used, sink in summary.uses:
            root = _root(used)
            if root in summary.params:
                arg_node = nodes.get(root)
                arg_path = path_of(arg_node) if arg_node is not None else None
                if arg_path is not None:
                    self._use(arg_path + used[len(root):], sink, frame)
            elif root == "self":
                if receiver_is_self and frame.self_name:
                    self._use(frame.self_name + used[len(root):], sink, frame)
            else:
                self._use(used, sink, frame)
        if not summary.done:  # a recursive call: what it returns is still being worked out
            return CLEAN
        if summary.tuple_ok and summary.tuple_returns is not None:
            self.tuple_results[id(node)] = [substitute(v, values) for v in summary.tuple_returns]
        if summary.fields_ok and summary.field_returns:
            self.call_keywords[id(node)] = {k: substitute(v, values) for k, v in summary.field_returns.items()}
        return substitute(summary.returns, values)

    # --- sinks -------------------------------------------------------------------------------

    def _sink_call(self, node: ast.Call, sink: Sink, positional: list[Value], keywords: dict, frame: Frame) -> None:
        callee = ast.unparse(node.func)
        starred_kwargs = [kw.value for kw in node.keywords if kw.arg is None]
        for argument in sink.arguments:
            arg_node: ast.AST | None = None
            value = CLEAN
            how = ""
            if argument.keyword is not None:
                for kw in node.keywords:
                    if kw.arg == argument.keyword:
                        arg_node, value, how = kw.value, keywords[kw.arg], f"{kw.arg}="
                        break
            if arg_node is None and argument.position is not None and argument.position < len(node.args):
                if not any(isinstance(a, ast.Starred) for a in node.args[: argument.position + 1]):
                    arg_node = node.args[argument.position]
                    value = positional[argument.position]
                    how = f"{argument.keyword}= (argument {argument.position + 1})" if argument.keyword else f"argument {argument.position + 1}"
            if arg_node is None and argument.keyword is not None and starred_kwargs:
                for kwargs_node in starred_kwargs:
                    entry = self._dict_entry(kwargs_node, argument.keyword, frame)
                    if entry is not None:
                        value, arg_node = entry
                        how = f"{argument.keyword}= (from **{ast.unparse(kwargs_node)})"
                        kwargs_path = path_of(kwargs_node)
                        if kwargs_path is not None and not sink.configures and argument.tier in ("setting", "tools", "system"):
                            # options["tool_choice"] = ..., request.update(tools=...): that key of
                            # the dict, not the others (a new temperature is no new model)
                            self._use(
                                f"{kwargs_path}[{argument.keyword!r}]",
                                SinkRef(argument.tier, f"{how} of {callee}", node.lineno, tool_key=sink.tool_key),
                                frame,
                            )
                        break
            if arg_node is None:
                continue
            self._sink_argument(argument.tier, value, arg_node, f"{how} of {callee}", node.lineno, frame, sink.configures, sink.tool_key)

    def _sink_argument(
        self,
        tier: str,
        value: Value,
        arg_node: ast.AST,
        label: str,
        line: int,
        frame: Frame,
        configures: bool = False,
        tool_key: str | None = None,
    ) -> None:
        if tier in PREFIX_TIERS:
            elements = value.elements  # what the argument holds (what it is, re-read below, may be less certain)
            sink = SinkRef(tier, label, line, configures=configures, tool_key=tool_key)
            # instructions=fn / lambda ctx: ...: the SDK calls it for every request. A function
            # given as the tools (tools=get_weather) is a tool: what it returns is a tool result,
            # in the messages, not part of the tool definitions.
            produced = self._callable_result(arg_node, frame) if tier == "system" else None
            if produced is not None:
                value = union(value, produced)
            if isinstance(arg_node, (ast.Name, ast.Attribute)):
                self._text_depth += 1
                try:
                    value = union(value, self.eval(arg_node, frame))
                finally:
                    self._text_depth -= 1
            self._reach(value, sink, arg_node, frame, elements)
            for used in self._paths_in(arg_node):
                self._use(used, sink, frame)
        elif tier == "setting":
            if not configures:  # an agent built with other settings per iteration is a new agent
                sink = SinkRef("setting", label, line)
                for used in self._paths_in(arg_node):
                    self._use(used, sink, frame)
        elif tier == "messages":
            for used in _history_paths(arg_node):
                for loop in frame.loops:
                    loop.history[used] = None
            first = self._first_message(arg_node, frame)
            if first is not None:
                (content, role) = first
                sink = SinkRef("system", f"the first {role} message in {label}", line)
                self._reach(content, sink, None, frame)
            if frame.loops or frame.summary is not None:
                self._first_message_uses(arg_node, label, line, frame)
        elif tier == "body":
            for key, tier_of_key in sorted(self.k.body_keys.items()):
                entry = self._dict_entry(arg_node, key, frame)
                if entry is None:
                    continue
                entry_value, entry_node = entry
                self._sink_argument(tier_of_key, entry_value, entry_node, f'"{key}" in {label}', line, frame, configures, tool_key)

    def _first_message_uses(self, arg_node: ast.AST, label: str, line: int, frame: Frame) -> None:
        """The messages sent start with the system prompt (Chat-style APIs): a change of their
        first message inside the loop that repeats the call is a change of the system prompt."""
        role = "system"
        first = self._first_message(arg_node, frame)
        if first is not None:
            role = first[1]
        sink = SinkRef("system", f"the first message ({role}) of {label}", line)
        path = path_of(arg_node)
        if path is not None:
            self._use(path + FIRST, sink, frame)  # messages[0] = ..., messages[0]["content"] = ...
        first_node = _first_element(arg_node)
        if first_node is not None and self._may_be_system_message(first_node, frame):
            # [system, *rest] built at the call: what the first message is built from
            for used in self._paths_in(first_node):
                self._use(used, sink, frame)

    def _callable_result(self, node: ast.AST, frame: Frame) -> Value | None:
        """What a function passed as a prefix argument returns (dynamic instructions)."""
        if isinstance(node, ast.Lambda):
            inner = Frame(frame, frame.summary, frame.cls)
            inner.self_name = frame.self_name
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                inner.names[a.arg] = CLEAN
            return self.eval(node.body, inner)
        if isinstance(node, ast.Name) and frame.lookup(node.id) is None:
            summary = self._local_function(node, frame)
            if summary is not None and summary.done:
                return substitute(summary.returns, {})
        return None

    def _structure(self, node: ast.AST | None, frame: Frame, depth: int = 0) -> ast.AST | None:
        """Follow names to the display that built them: ``body = {...}; post(json=body)``."""
        while node is not None and depth < 4:
            if isinstance(node, (ast.Name, ast.Attribute)):
                path = path_of(node)
                node = frame.lookup_expr(path) if path is not None else None
                depth += 1
                continue
            return node
        return None

    def _dict_entry(self, node: ast.AST, key: str, frame: Frame) -> tuple[Value, ast.AST] | None:
        path = path_of(node)
        if path is not None:  # body["tools"] = tools, assigned after the display
            keyed = frame.lookup_expr(f"{path}[{key!r}]")
            if keyed is not None:
                return self.eval(keyed, frame), keyed
        target = self._structure(node, frame)
        if isinstance(target, ast.Dict):
            entries = self.dict_entries.get(id(target))
            if entries and key in entries:
                return entries[key]
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "dict":
            for kw in target.keywords:
                if kw.arg == key:
                    return self.eval(kw.value, frame), kw.value
        return None

    def _first_message(self, node: ast.AST, frame: Frame) -> tuple[Value, str] | None:
        target = self._structure(node, frame)
        while isinstance(target, ast.BinOp) and isinstance(target.op, ast.Add):
            target = self._structure(target.left, frame) if not isinstance(target.left, (ast.List, ast.Tuple)) else target.left
        if not isinstance(target, (ast.List, ast.Tuple)) or not target.elts:
            return None
        first = target.elts[0]
        if isinstance(first, (ast.Name, ast.Attribute)):
            first = self._structure(first, frame)
        if first is not None:
            return self.role_contents.get(id(first))
        return None

    def _paths_in(self, node: ast.AST) -> list[str]:
        """The places a sink argument reads (``tools``, ``self.tools``, ``state.system``)."""
        out: list[str] = []
        stack = [node]
        while stack:
            sub = stack.pop()
            path = path_of(sub)
            if path is not None:
                out.append(path)
                continue
            if isinstance(sub, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                if not isinstance(sub, ast.Lambda):
                    stack.extend(g.iter for g in sub.generators)
                continue
            if isinstance(sub, ast.Call):
                stack.extend(sub.args)
                stack.extend(kw.value for kw in sub.keywords)
                if isinstance(sub.func, ast.Attribute):
                    stack.append(sub.func.value)
                continue
            stack.extend(ast.iter_child_nodes(sub))
        return out

    def _use(self, path: str, sink: SinkRef, frame: Frame) -> None:
        final = self._final_loops
        for loop in frame.loops:
            if not final.get(id(loop)):
                loop.uses[(path, sink)] = None
        summary = frame.summary
        if summary is not None:
            root = _root(path)
            if root in frame.params or root == frame.self_name or frame.lookup(root) is None or root in self.module_frame.names:
                if root == frame.self_name and root is not None:
                    path = "self" + path[len(root):]
                summary.uses[(path, sink)] = None

    def _reach(self, value: Value, sink: SinkRef, arg_node: ast.AST | None, frame: Frame, elements: str | None = None) -> None:
        """The origins of ``value`` reach ``sink``; ``elements``: what the elements of the argument
        ``arg_node`` are (a sorted(...) around it is safe for str or paths)."""
        if not value:
            return
        arg_span = span_of(arg_node) if arg_node is not None else None
        for o in value.own | value.inner:
            if o.empty:
                continue  # an empty set: nothing in it to put out of order
            if o.kind == PARAM:
                summary = frame.summary
                if summary is not None and o.what in summary.params:
                    key = o.what if o.attr is None else f"{o.what}.{o.attr}"
                    entries = summary.param_sinks.setdefault(key, [])
                    if (sink, o.mode) not in entries:
                        entries.append((sink, o.mode))
                continue
            if o in value.own:
                self.reaches.append(Reach(o, sink, arg_span, elements if arg_span is not None else None))
            else:
                self.reaches.append(Reach(o, sink, None))

    # --- other modules of the run --------------------------------------------------------------

    def _external_call(self, node: ast.Call, path: tuple[str, ...], positional: list[Value], keywords: dict, frame: Frame) -> Value | None:
        assert self.resolve_external is not None
        found = self.resolve_external(path)
        if found is None:
            return None
        return self._apply_external(node, found, positional, keywords, frame)

    def _apply_external(self, node: ast.Call, found: "External", positional: list[Value], keywords: dict, frame: Frame) -> Value:
        qualified, data, module = found
        self._passed_sets_may_fill(node, positional, keywords, frame)
        if data.get("passes_arguments"):
            return _through_unknown(union(*positional, *keywords.values()))
        params = list(data.get("params", ()))
        values, nodes = self._bindings(params, node, positional, keywords, frame)
        for param, sinks in sorted(data.get("param_sinks", {}).items()):
            bound = _bound_value(param, values)
            if bound is None:
                continue
            for entry in sinks:
                arg = bound
                mode = entry.get("mode", "whole")
                if mode == "elem":
                    arg = element_of(arg)
                elif mode == "sorted":
                    arg = sanitized(arg)
                sink = SinkRef(entry["tier"], f"{entry['label']} (in {qualified}, line {entry['line']})", node.lineno, external=qualified)
                self._reach(arg, sink, nodes.get(param), frame, arg.elements)
                arg_node = nodes.get(param)
                arg_path = path_of(arg_node) if arg_node is not None else None
                if arg_path is not None:
                    self._use(arg_path, sink, frame)
        returns = data.get("returns")
        if not returns:
            return CLEAN
        site, via = span_of(node), f"{qualified}()"
        if "tuple_returns" in data:
            self.tuple_results[id(node)] = [substitute(_value_from_summary(item, site, via, module), values) for item in data["tuple_returns"]]
        if "field_returns" in data:
            self.call_keywords[id(node)] = {
                name: substitute(_value_from_summary(item, site, via, module), values) for name, item in data["field_returns"].items()
            }
        return substitute(_value_from_summary(returns, site, via, module), values)

    def _external_name(self, node: ast.AST, dotted: tuple[str, ...]) -> Value | None:
        assert self.resolve_external_name is not None
        found = self.resolve_external_name(dotted)
        if found is None:
            return None
        qualified, data, module = found
        return _value_from_summary(data, span_of(node), qualified, module)


# Handlers by node type, as plain functions of (analysis, node, frame). Class-level tables rather
# than per-instance dicts of bound methods: those made every ModuleAnalysis a reference cycle, so it
# and the tree it holds were freed only by the cyclic garbage collector, whose passes over the
# growing heap cost ~1 s of a 7.6 s in-process cold check of the SDK corpus (docs/benchmarks.md).
_STATEMENTS: dict[type, Callable[[ModuleAnalysis, Any, Frame], None]] = {
    ast.Assign: ModuleAnalysis._assign,
    ast.AnnAssign: ModuleAnalysis._ann_assign,
    ast.AugAssign: ModuleAnalysis._aug_assign,
    ast.Expr: ModuleAnalysis._expr_stmt,
    ast.Return: ModuleAnalysis._return,
    ast.If: ModuleAnalysis._if,
    ast.For: ModuleAnalysis._for,
    ast.AsyncFor: ModuleAnalysis._for,
    ast.While: ModuleAnalysis._while,
    ast.With: ModuleAnalysis._with,
    ast.AsyncWith: ModuleAnalysis._with,
    ast.Try: ModuleAnalysis._try,
    ast.FunctionDef: ModuleAnalysis._def,
    ast.AsyncFunctionDef: ModuleAnalysis._def,
    ast.ClassDef: ModuleAnalysis._class,
    ast.Import: ModuleAnalysis._import,
    ast.ImportFrom: ModuleAnalysis._import_from,
    ast.Delete: ModuleAnalysis._delete,
}
if hasattr(ast, "TryStar"):
    _STATEMENTS[ast.TryStar] = ModuleAnalysis._try
if hasattr(ast, "Match"):
    _STATEMENTS[ast.Match] = ModuleAnalysis._match

_EXPRESSIONS: dict[type, Callable[[ModuleAnalysis, Any, Frame], Value]] = {
    ast.Name: ModuleAnalysis._name,
    ast.Attribute: ModuleAnalysis._attribute,
    ast.Subscript: ModuleAnalysis._subscript,
    ast.Call: ModuleAnalysis._call,
    ast.BinOp: ModuleAnalysis._binop,
    ast.BoolOp: ModuleAnalysis._bool_op,
    ast.UnaryOp: ModuleAnalysis._unary_op,
    ast.Compare: ModuleAnalysis._compare,
    ast.IfExp: ModuleAnalysis._if_exp,
    ast.Dict: ModuleAnalysis._dict,
    ast.List: ModuleAnalysis._sequence,
    ast.Tuple: ModuleAnalysis._sequence,
    ast.Set: ModuleAnalysis._set,
    ast.ListComp: ModuleAnalysis._comprehension,
    ast.GeneratorExp: ModuleAnalysis._comprehension,
    ast.DictComp: ModuleAnalysis._comprehension,
    ast.SetComp: ModuleAnalysis._set_comprehension,
    ast.JoinedStr: ModuleAnalysis._joined_str,
    ast.FormattedValue: ModuleAnalysis._formatted_value,
    ast.Constant: ModuleAnalysis._constant,
    ast.Starred: ModuleAnalysis._inner,
    ast.Await: ModuleAnalysis._inner,
    ast.NamedExpr: ModuleAnalysis._named_expr,
    ast.Lambda: ModuleAnalysis._clean,
    ast.Yield: ModuleAnalysis._yield,
    ast.YieldFrom: ModuleAnalysis._yield,
    ast.Slice: ModuleAnalysis._clean,
}


def _without_params(v: Value) -> Value:
    if not any(o.kind == PARAM for o in v.own) and not any(o.kind == PARAM for o in v.inner):
        return v
    return Value(frozenset(o for o in v.own if o.kind != PARAM), frozenset(o for o in v.inner if o.kind != PARAM))


def _bound_value(param: str, values: dict[str, Value]) -> Value | None:
    """The caller's value for ``param`` or for one of its keys/attributes (``data.['system']``),
    falling back to the whole argument when that part is not known."""
    value = values.get(param)
    if value is None and "." in param:
        value = values.get(param.split(".", 1)[0])
    return value


def _through_unknown(v: Value) -> Value:
    """A value passed through a call we know nothing about: still tainted, but what it is is no
    longer known (a sorted(...) fix of the result would be unsafe), and an empty set may come back
    filled."""
    return untyped(filled(v))


# What another module's summary says through the resolvers: (qualified name of the function, its
# summary data, the dotted name of the module it is in).
External = tuple[str, Mapping[str, Any], str]

_KINDS = frozenset({STR, PATH, NAME})


def _origin_from_summary(entry: Mapping[str, Any], site: Span, via: str, module: str) -> Origin:
    if entry.get("kind") == PARAM:
        return Origin(PARAM, entry["what"], site, mode=entry.get("mode", "whole"), attr=entry.get("attr"))
    fix = entry.get("fix")
    fix_at: Span | None = None
    if isinstance(fix, list) and len(fix) == 4 and all(type(n) is int for n in fix):
        fix_at = (fix[0], fix[1], fix[2], fix[3])
    return Origin(
        entry["kind"],
        f"{entry['what']} (via {via}, line {entry.get('line', '?')})",
        site,
        sortable=bool(entry.get("sortable", True)),
        granularity=entry.get("granularity", "time"),
        # where the other module first puts the value in order: the fix goes there
        fix_at=fix_at,
        fix_safe=fix_at is not None and entry.get("fix_safe") is True,
        fix_module=(entry.get("fix_module") or module) if fix_at is not None else None,
        external=via,
        empty=bool(entry.get("empty", False)),
    )


def _value_from_summary(data: Mapping[str, Any], site: Span, via: str, module: str) -> Value:
    own = frozenset(_origin_from_summary(e, site, via, module) for e in data.get("own", ()))
    inner = frozenset(_origin_from_summary(e, site, via, module) for e in data.get("inner", ()))
    kind = data.get("kind")
    elements = data.get("elements")
    return Value(own, inner, kind if kind in _KINDS else None, elements if elements in _KINDS else None)


# (ast span) -> [line, column, end line, end column] in 1-based characters: how a summary gives
# its fix spots to other modules, which do not have its text.
Positions = Callable[[Span], list[int]]


def origin_to_data(o: Origin, positions: Positions | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": o.kind, "what": o.what}
    if o.kind == PARAM:
        data["mode"] = o.mode
        if o.attr is not None:
            data["attr"] = o.attr
        return data
    data["line"] = o.site[0]
    if not o.sortable:
        data["sortable"] = False
    if o.kind == VOLATILE:
        data["granularity"] = o.granularity
    if o.empty:
        data["empty"] = True
    if o.kind == UNORDERED and o.fix_at is not None and o.sortable:
        if o.fix_module is not None:
            data["fix"] = list(o.fix_at)
            data["fix_module"] = o.fix_module
        elif positions is not None:
            data["fix"] = positions(o.fix_at)
        else:
            return data
        data["fix_safe"] = o.fix_safe
    return data


def _data_key(d: Mapping[str, Any]) -> tuple:
    return (
        d["kind"], d["what"], d.get("line", 0), d.get("mode", ""), d.get("attr", ""), d.get("granularity", ""),
        d.get("sortable", True), d.get("empty", False),
    )


def _fix_rank(d: Mapping[str, Any]) -> tuple:
    """Among origins that merge, the one whose fix is kept: a safe fix first, then the earliest."""
    return (not d.get("fix_safe", False), "fix" not in d, d.get("fix_module", ""), d.get("fix", []))


def value_to_data(v: Value, positions: Positions | None = None) -> dict[str, Any]:
    """Plain, deterministic data (origins that differ only in columns or fix spots merge, keeping
    the first fix in a fixed order). ``positions``: see ``Positions``; without it, no fix spot of
    this module is given."""
    def table(origins: frozenset[Origin]) -> list[dict[str, Any]]:
        unique: dict[tuple, dict[str, Any]] = {}
        for d in (origin_to_data(o, positions) for o in origins):
            key = _data_key(d)
            current = unique.get(key)
            if current is None or _fix_rank(d) < _fix_rank(current):
                unique[key] = d
        return [unique[k] for k in sorted(unique)]

    data: dict[str, Any] = {"own": table(v.own), "inner": table(v.inner)}
    if v.kind is not None:
        data["kind"] = v.kind
    if v.elements is not None:
        data["elements"] = v.elements
    return data
