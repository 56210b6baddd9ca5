"""Where a list built in a function goes: returned to the caller, given to a call (which argument),
or used otherwise. Read from the syntax of the function (or of the module's top level), for the
message lists that start with a system message: one only given to a token counter is never sent,
and one returned, or given to a function that carries on a conversation with it, starts a
conversation rather than making one request."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterator

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class ListUse:
    kind: str  # "returned" | "call" | "other"
    call: ast.Call | None = None
    position: int | None = None  # the positional argument it is
    keyword: str | None = None  # or the keyword argument
    store: bool = False  # "other": the base of a target written into (``x[0]["content"] = ...``)


def walk_scope(scope: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(node, parent) for every node of ``scope``'s own body: not inside the functions, lambdas and
    classes it defines (their names are their own)."""
    body = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else []
    stack: list[tuple[ast.AST, ast.AST]] = [(stmt, scope) for stmt in body]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, _SCOPES):
            continue
        # a keyword argument's value stands in the call itself
        owner = parent if isinstance(node, ast.keyword) else node
        stack.extend((child, owner) for child in ast.iter_child_nodes(node))


def _use_at(node: ast.AST, parent: ast.AST) -> ListUse:
    if isinstance(parent, (ast.Return, ast.Yield)) and parent.value is node:
        return ListUse("returned")
    if isinstance(parent, ast.Call) and node is not parent.func:
        for i, arg in enumerate(parent.args):
            if arg is node:
                return ListUse("call", parent, position=i)
        for kw in parent.keywords:
            if kw.value is node and kw.arg is not None:
                return ListUse("call", parent, keyword=kw.arg)
    return ListUse("other")


def _written_into(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``node`` is the base of a target written into (``x[0]["content"] = ...``, ``x.a = ...``)."""
    current = node
    parent = parents.get(id(current))
    while isinstance(parent, (ast.Subscript, ast.Attribute)) and parent.value is current:
        if isinstance(parent.ctx, ast.Store):
            return True
        current, parent = parent, parents.get(id(parent))
    return False


def _empty_test(test: ast.AST) -> str | None:
    """The place ``test`` finds empty: ``not x``, ``x is None``, ``len(x) == 0``, or one of them
    joined by ``or`` (``not x or len(x) == 0``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        found = {_empty_test(v) for v in test.values}
        return found.pop() if len(found) == 1 else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _place(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.Is) and isinstance(right, ast.Constant) and right.value is None:
            return _place(left)
        if (
            isinstance(op, ast.Eq)
            and isinstance(right, ast.Constant)
            and right.value == 0
            and isinstance(left, ast.Call)
            and isinstance(left.func, ast.Name)
            and left.func.id == "len"
            and len(left.args) == 1
        ):
            return _place(left.args[0])
    return None


def _place(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def built_when_empty(scope: ast.AST, display: ast.AST, params: set[str]) -> bool:
    """``display`` is built in the body of an ``if`` that tests that a place rooted at a parameter
    (the conversation so far, ``request.history``) is empty: the function builds the first
    messages of a conversation it was given none of."""
    parents = {id(node): parent for node, parent in walk_scope(scope)}
    given = set(params)
    for stmt, _parent in walk_scope(scope):
        # history = request.conversation_history: a name for what a parameter brings
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = stmt.value
            while isinstance(value, (ast.Attribute, ast.Subscript)):
                value = value.value
            if isinstance(value, ast.Name) and value.id in params:
                given.add(stmt.targets[0].id)
    node: ast.AST = display
    while id(node) in parents:
        parent = parents[id(node)]
        if isinstance(parent, ast.If) and node in parent.body:
            place = _empty_test(parent.test)
            if place is not None and place.split(".", 1)[0] in given:
                return True
        node = parent
    return False


def scope_parents(scope: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> its parent, for the nodes of ``scope``'s own body."""
    return {id(node): parent for node, parent in walk_scope(scope)}


def list_uses(scope: ast.AST, display: ast.AST, parents: dict[int, ast.AST] | None = None) -> list[ListUse] | None:
    """The uses of ``display`` in ``scope``: where it stands, or, when a plain assignment binds it
    to a name that nothing else in the scope binds, every read of that name. None when that cannot
    be told (the display is not found in the scope's own body)."""
    if parents is None:
        parents = scope_parents(scope)
    parent = parents.get(id(display))
    if parent is None:
        return None
    if not (
        isinstance(parent, ast.Assign)
        and parent.value is display
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return [_use_at(display, parent)]
    return name_uses(scope, parent.targets[0].id, parents)


def name_uses(scope: ast.AST, name: str, parents: dict[int, ast.AST] | None = None) -> list[ListUse] | None:
    """Every read of ``name`` in ``scope``, when ``name`` is bound once there (or is a parameter
    never rebound); None otherwise (which binding a read sees is not told here)."""
    if parents is None:
        parents = scope_parents(scope)
    stores = 0
    reads: list[ast.Name] = []
    for node, _parent in walk_scope(scope):
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Load):
                reads.append(node)
            else:
                stores += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None
    is_param = isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in {
        a.arg for a in scope.args.posonlyargs + scope.args.args + scope.args.kwonlyargs
    }
    if stores + (1 if is_param else 0) != 1:
        return None
    return [
        ListUse("other", store=True) if _written_into(read, parents) else _use_at(read, parents[id(read)])
        for read in reads
    ]


# Methods that add to the end of a list: what it already holds stays as it is.
_GROWING_METHODS = frozenset({"append", "extend"})
# Methods that read a dict or a list without changing it.
_READING_METHODS = frozenset({"get", "copy", "keys", "values", "items", "count", "index"})


def only_grown_in(loop: ast.AST, name: str, reads_only: Callable[[ast.Call], bool]) -> bool:
    """Every use of the list ``name`` in ``loop`` leaves the items it already holds as they are: it
    is added to at its end (``append``, ``extend``, ``+=``), an item of it is read, or it is given
    to a call that only reads it (``reads_only``: a request, ``len``, a display). Not bound again,
    written into (``name[0] = ...``, ``name[-1]["content"] += ...``), iterated (its items could be
    changed through the loop's target) or given to any other call, which could rewrite them."""
    parents = {id(child): node for node in ast.walk(loop) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(loop):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.AugAssign) and parent.target is node:
            if isinstance(parent.op, ast.Add):
                continue  # name += [...]: added at the end
            return False
        if not isinstance(node.ctx, ast.Load):
            return False  # bound again, or deleted
        if isinstance(parent, ast.Attribute):
            called = parents.get(id(parent))
            if parent.attr in _GROWING_METHODS | _READING_METHODS and isinstance(called, ast.Call):
                if called.func is parent:
                    continue
            return False
        if isinstance(parent, ast.keyword):
            parent = parents.get(id(parent))
        if isinstance(parent, ast.Call) and node is not parent.func and reads_only(parent):
            continue
        if isinstance(parent, ast.Subscript) and parent.value is node and _item_read(node, parents):
            continue
        return False
    return True


def binds_own(function: ast.AST, name: str) -> bool:
    """``function`` has a variable ``name`` of its own (a parameter, or a name it binds and does not
    declare global or nonlocal): what it does with it is not done to the enclosing scope's."""
    args = function.args  # type: ignore[attr-defined]
    if name in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} or name in {
        a.arg for a in (args.vararg, args.kwarg) if a is not None
    }:
        return True
    if name in declared_global(function):
        return False
    return any(
        isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
        for node, _parent in walk_scope(function)
    )


def _item_read(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``node[...]...`` only reads: no target written into, no method called on what it reaches
    but one that reads."""
    current = node
    parent = parents.get(id(current))
    while isinstance(parent, (ast.Subscript, ast.Attribute)) and parent.value is current:
        if not isinstance(parent.ctx, ast.Load):
            return False
        current, parent = parent, parents.get(id(parent))
    if isinstance(current, ast.Attribute) and isinstance(parent, ast.Call) and parent.func is current:
        return current.attr in _READING_METHODS
    return True


def argument_param(definition: ast.AST, use: ListUse, is_method: bool) -> str | None:
    """The parameter of ``definition`` that the argument of ``use`` binds."""
    args = definition.args  # type: ignore[attr-defined]
    positional = [a.arg for a in args.posonlyargs + args.args]
    if is_method:
        positional = positional[1:]
    if use.position is not None:
        if any(isinstance(a, ast.Starred) for a in (use.call.args[: use.position] if use.call else [])):
            return None
        return positional[use.position] if use.position < len(positional) else None
    if use.keyword is not None and use.keyword in positional + [a.arg for a in args.kwonlyargs]:
        return use.keyword
    return None


def returned_keys(function: ast.AST) -> set[str]:
    """The string keys of the dict displays ``function`` returns (a graph node's state update)."""
    keys: set[str] = set()
    for node, _parent in walk_scope(function):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            keys.update(k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return keys


def state_write_keys(tree: ast.AST) -> frozenset[str]:
    """The keys written as ``<anything>.state["key"] = ...`` anywhere in the module (a tool's or a
    callback's write into a session state)."""
    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Attribute)
                    and target.value.attr == "state"
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    keys.add(target.slice.value)
    return frozenset(keys)


def declared_global(scope: ast.AST) -> set[str]:
    """The names ``scope`` declares ``global`` or ``nonlocal``."""
    out: set[str] = set()
    for node, _parent in walk_scope(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
    return out


def rebound_before_read(module: ast.Module, target: ast.Name) -> bool:
    """The module binds ``target``'s name again, at its top level and unconditionally, before any
    statement between the two reads it (a later cell of a notebook redefining a prompt): nothing
    ever sees the first binding."""
    line = target.lineno
    index = next(
        (i for i, stmt in enumerate(module.body) if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)), None
    )
    if index is not None and not _holds(module.body[index], target):
        return False
    if index is None or not isinstance(module.body[index], (ast.Assign, ast.AnnAssign)):
        return False
    name = target.id
    for stmt in module.body[index + 1 :]:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and not _reads(stmt.value, name):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if _reads(stmt, name):
            return False
    return False


def _holds(stmt: ast.AST, target: ast.AST) -> bool:
    return any(node is target for node in ast.walk(stmt))


def _reads(node: ast.AST | None, name: str) -> bool:
    return node is not None and any(
        isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load) for sub in ast.walk(node)
    )


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def kept_after_built(scope: ast.AST, call: ast.Call, parents: dict[int, ast.AST] | None = None) -> bool:
    """The object ``call`` builds in ``scope`` (a function) outlives one use there: it is returned
    or yielded, written into an attribute or an item (``self.agent = Agent(...)``), or, bound to
    a name, that name, from the binding to the next one, is returned, written into an attribute
    or item, read by a function the scope defines (a handler called later), read in a loop, or
    called (itself or a method of it), or given to a call (a runner that runs it), twice. One
    built inside a loop is built again on every pass, and a name bound again inside a loop after
    it is not followed. An agent so kept sends every request of its life with the prefix it was
    built with; one built, used once and dropped is built again for the next use."""
    if parents is None:
        parents = scope_parents(scope)
    if _enclosing_loop(call, parents, scope) is not None:
        return False  # built again on every pass
    node: ast.AST = call
    parent = parents.get(id(node))
    while isinstance(parent, ast.Await):
        node, parent = parent, parents.get(id(parent))
    if parent is None:
        return False
    if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom)):
        return True
    targets: list[ast.AST] = []
    binding: ast.AST = parent
    if isinstance(parent, ast.Assign) and parent.value is node:
        targets = list(parent.targets)
    elif isinstance(parent, ast.AnnAssign) and parent.value is node:
        targets = [parent.target]
    elif isinstance(parent, ast.withitem) and parent.context_expr is node and parent.optional_vars is not None:
        targets = [parent.optional_vars]
        binding = parent.optional_vars
    if any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets):
        return True
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return False
    name = targets[0].id
    start = _end_of(binding)
    # where the name is bound next: what it holds from there on is another object
    end: tuple[int, int] | None = None
    for sub, _parent in walk_scope(scope):
        if not isinstance(sub, ast.Name) or sub.id != name or isinstance(sub.ctx, ast.Load):
            continue
        at = _start_of(sub)
        if at <= start:
            continue
        if _enclosing_loop(sub, parents, scope) is not None:
            return False  # bound again inside a loop: which object a use sees depends on the pass
        if end is None or at < end:
            end = at

    def in_window(n: ast.AST) -> bool:
        at = _start_of(n)
        return at > start and (end is None or at < end)

    calls = 0
    for sub, sub_parent in walk_scope(scope):
        if isinstance(sub, _SCOPES) and not isinstance(sub, ast.ClassDef):
            if in_window(sub) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(sub)):
                return True  # a handler or callback of the scope reads it whenever it is called
            continue
        if not isinstance(sub, ast.Name) or sub.id != name or not isinstance(sub.ctx, ast.Load) or not in_window(sub):
            continue
        if isinstance(sub_parent, (ast.Return, ast.Yield, ast.YieldFrom)) or (
            isinstance(sub_parent, ast.Assign)
            and sub_parent.value is sub
            and any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in sub_parent.targets)
        ):
            return True
        if _enclosing_loop(sub, parents, scope) is not None:
            return True  # used again and again after it is built once
        if isinstance(sub_parent, ast.Call):
            calls += 1  # called, or given to a call that runs it (``Runner.run(agent, question)``)
        elif isinstance(sub_parent, ast.Attribute):
            owner = parents.get(id(sub_parent))
            if isinstance(owner, ast.Call) and owner.func is sub_parent:
                calls += 1
    return calls >= 2


def _start_of(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _end_of(node: ast.AST) -> tuple[int, int]:
    line, col = _start_of(node)
    end_line = getattr(node, "end_lineno", None)
    end_col = getattr(node, "end_col_offset", None)
    return (end_line if isinstance(end_line, int) else line, end_col if isinstance(end_col, int) else col)


def _enclosing_loop(node: ast.AST, parents: dict[int, ast.AST], scope: ast.AST) -> ast.AST | None:
    up = parents.get(id(node))
    while up is not None and up is not scope and not isinstance(up, _LOOPS):
        up = parents.get(id(up))
    return up if isinstance(up, _LOOPS) else None
