"""What a value written in a function is built from, through the function's own names: every
assignment, augmented assignment, ``for`` target, ``with`` target and ``x.append(...)`` of the
function read flow-insensitively (a name may get its value from any of its bindings). Used to tell
whether the system prompt of a request is rebuilt from what the same request sends as its
conversation, and where it first reads it."""

from __future__ import annotations

import ast
from typing import Callable

from cachelint.code.flow.list_uses import walk_scope
from cachelint.code.flow.scopes import place_of, read_paths

# How far a value is followed back through the function's names.
_MAX_STEPS = 64


class LocalDeps:
    """The bindings of one function's (or the module's) own names."""

    def __init__(
        self, scope: ast.AST, adding_methods: frozenset[str], opaque: Callable[[ast.Call], bool] | None = None
    ) -> None:
        """``opaque``: calls whose result is new, made of none of their arguments (a model's reply:
        what it says is the conversation's next message, not the text the request was built from)."""
        self.opaque = opaque
        self.bindings: dict[str, list[ast.AST]] = {}
        # what is put into the list at a place (``x.append(v)``: v), apart from what is bound to it
        self.added: dict[str, list[ast.AST]] = {}
        self.assigned: dict[str, list[ast.AST]] = {}
        for node, _parent in walk_scope(scope):
            pairs: list[tuple[ast.AST, ast.AST]] = []
            if isinstance(node, ast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                pairs = [(node.target, node.value)]
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                pairs = [(node.target, node.iter)]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                pairs = [(node.optional_vars, node.context_expr)]
            elif isinstance(node, ast.NamedExpr):
                pairs = [(node.target, node.value)]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in adding_methods
                and node.args
            ):
                for place in _target_places(node.func.value):
                    self.added.setdefault(place, []).extend(node.args)
                pairs = [(node.func.value, a) for a in node.args]
            for target, value in pairs:
                for place in _target_places(target):
                    self.bindings.setdefault(place, []).append(value)
                    if not isinstance(node, ast.Call):
                        self.assigned.setdefault(place, []).append(value)

    def _bound(self, path: str, before: int | None = None) -> list[ast.AST]:
        """What may have been written into ``path`` or into what contains it (``x`` for
        ``x['k']``). Not what was written into a part of it: a method of ``self`` called reads all
        of ``self`` as far as read_paths can tell, and would read every attribute written."""
        out: list[ast.AST] = []
        for place, values in self.bindings.items():
            if path == place or (path.startswith(place) and path[len(place)] in ".["):
                out.extend(
                    v for v in values if (before is None or getattr(v, "lineno", 0) < before) and not self._opaque(v)
                )
        return out

    def _opaque(self, value: ast.AST) -> bool:
        call = value.value if isinstance(value, ast.Await) else value
        return self.opaque is not None and isinstance(call, ast.Call) and self.opaque(call)

    def first_read(
        self, expr: ast.AST, wanted: Callable[[str], bool], before: int | None = None
    ) -> tuple[str, list[ast.AST]] | None:
        """The first place ``wanted`` accepts that ``expr`` is built from, directly or through the
        function's names, with the expressions that lead there: ``expr``, the values of the
        bindings followed, and last the one that reads the place."""
        todo: list[tuple[ast.AST, list[ast.AST]]] = [(expr, [expr])]
        seen: set[int] = set()
        steps = 0
        while todo and steps < _MAX_STEPS:
            node, chain = todo.pop(0)
            if id(node) in seen:
                continue
            seen.add(id(node))
            steps += 1
            paths = sorted(read_paths(node))
            for path in paths:
                if wanted(path):
                    return path, chain
            for path in paths:
                todo.extend((bound, chain + [bound]) for bound in self._bound(path, before))
        return None

    def bindings_followed(self, expr: ast.AST, before: int | None = None) -> set[int]:
        """The ids of the binding values ``expr`` is built from, through the function's names
        (``before``: only bindings written before that line, as a call with no loop around it
        sees them)."""
        return {id(node) for node in self.sources(expr, before)}

    def sources(self, expr: ast.AST, before: int | None = None) -> list[ast.AST]:
        """The binding values ``expr`` is built from, through the function's names, in the order
        they are reached."""
        out: list[ast.AST] = []
        seen: set[int] = set()
        todo: list[ast.AST] = [expr]
        while todo and len(out) < _MAX_STEPS:
            node = todo.pop(0)
            for path in sorted(read_paths(node)):
                for bound in self._bound(path, before):
                    if id(bound) not in seen:
                        seen.add(id(bound))
                        out.append(bound)
                        todo.append(bound)
        return out

    def reads(self, expr: ast.AST, before: int | None = None) -> set[str]:
        """Every place ``expr`` is built from, through the function's names."""
        out: set[str] = set()
        todo: list[ast.AST] = [expr]
        seen: set[int] = set()
        while todo and len(seen) < _MAX_STEPS:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            for path in read_paths(node):
                out.add(path)
                todo.extend(self._bound(path, before))
        return out


def _target_places(target: ast.AST) -> list[str]:
    """The places an assignment target binds or writes into (``x``, ``self.history``,
    ``state['notes']``; ``x`` for ``x[i]``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_places(e)]
    if isinstance(target, ast.Starred):
        return _target_places(target.value)
    place = place_of(target)
    return [place] if place is not None else []
