"""The abstract values of the order-flow analysis.

A ``Value`` is what the analysis knows about a Python value: the ``Origin``s that make its own order
or bytes non-deterministic (``own``) and those hidden in its elements (``inner``: a list of sets, a
dict whose values were built from a directory listing). Iterating or indexing a value exposes its
``inner`` origins; ``sorted`` removes the unordered ones from ``own``. Volatile origins (clocks,
uuids) survive everything: any value that contains a timestamp is volatile.

An empty ``set()`` is an unordered origin marked ``empty``: it has no order to lose, so it reaches
no finding, until something may have been put in it (``add``, ``update``, ``|=``, being stored in a
container or passed to a function): then it is ``filled``, an unordered set like any other.

Inside a function, a parameter is a symbolic ``Origin`` (kind ``param``) that the caller replaces
with the argument's value: that is how a function's summary works without re-analysing its body.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, NamedTuple

UNORDERED = "unordered"
VOLATILE = "volatile"
PARAM = "param"

# A source position in ast terms: (line, col_offset in UTF-8 bytes, end_line, end_col_offset).
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Origin:
    """Where order or volatility enters: the construction site that a finding is reported at."""

    kind: str  # unordered | volatile | param
    what: str  # "os.listdir()", "a set display", "datetime.now() (the clock)"; param: its name
    site: Span
    elements: str | None = None  # unordered: "str" | "path" when the elements are known
    sortable: bool = True  # unordered: can sorted(...) be applied to the source's sequence
    granularity: str = "time"  # volatile: "time" | "date"
    fix_at: Span | None = None  # unordered: where the value is first put in order (wrap in sorted)
    mode: str = "whole"  # param: "whole" | "elem" | "sorted"
    attr: str | None = None  # param: the value of this attribute of the parameter (args.tools)
    external: str | None = None  # from another module's summary: "pkg.mod.func"
    empty: bool = False  # unordered: an empty set() nothing has been put in yet

    def with_fix_at(self, span: Span) -> "Origin":
        return replace(self, fix_at=span)


class Value(NamedTuple):
    own: frozenset[Origin]
    inner: frozenset[Origin]

    def __bool__(self) -> bool:
        return bool(self.own) or bool(self.inner)

    def all(self) -> frozenset[Origin]:
        return self.own | self.inner


EMPTY: frozenset[Origin] = frozenset()
CLEAN = Value(EMPTY, EMPTY)


def value_of(own: Iterable[Origin] = (), inner: Iterable[Origin] = ()) -> Value:
    return Value(frozenset(own), frozenset(inner))


def union(*values: Value) -> Value:
    own: frozenset[Origin] = EMPTY
    inner: frozenset[Origin] = EMPTY
    for v in values:
        if v.own:
            own = own | v.own if own else v.own
        if v.inner:
            inner = inner | v.inner if inner else v.inner
    if not own and not inner:
        return CLEAN
    return Value(own, inner)


def _keeps_through_elements(o: Origin) -> bool:
    return o.kind != UNORDERED


def element_of(v: Value) -> Value:
    """An element of ``v`` (iteration, indexing): its order is whatever the elements carried."""
    if not v:
        return CLEAN
    own = set(v.inner)
    for o in v.own:
        if o.kind == PARAM:
            own.add(replace(o, mode="elem") if o.mode != "elem" else o)
        elif _keeps_through_elements(o):
            own.add(o)
    return Value(frozenset(own), v.inner)


def sanitized(v: Value) -> Value:
    """``sorted(v)`` and order-free reductions: the value's own order no longer matters."""
    if not v.own:
        return v
    own = set()
    for o in v.own:
        if o.kind == PARAM:
            own.add(replace(o, mode="sorted") if o.mode == "whole" else o)
        elif o.kind != UNORDERED:
            own.add(o)
    return Value(frozenset(own), v.inner)


def holds_empty_set(v: Value) -> bool:
    return any(o.empty for o in v.own) or any(o.empty for o in v.inner)


def filled(v: Value) -> Value:
    """Something may have been put into the empty sets ``v`` holds: they are unordered now."""
    if not holds_empty_set(v):
        return v
    return Value(
        frozenset(replace(o, empty=False) if o.empty else o for o in v.own),
        frozenset(replace(o, empty=False) if o.empty else o for o in v.inner),
    )


def as_element(v: Value) -> Value:
    """``v`` placed inside a container: everything it carries becomes the container's inner part;
    volatility (and what a parameter might carry) also shows in the container's own bytes. An empty
    set stored in a container can be filled there (``groups.setdefault(k, set()).add(x)``) where
    the analysis does not follow it: it counts as filled."""
    if not v:
        return CLEAN
    carried = filled(v).all()
    return Value(frozenset(o for o in carried if o.kind != UNORDERED), carried)


def materialized(v: Value, span: Span) -> Value:
    """``v`` is put in a fixed order here (iterated, list(), join): remember the spot so that the fix
    can wrap it in sorted(...). An empty set iterated gives nothing: its order is no longer carried."""
    if not any(o.kind == UNORDERED and (o.fix_at is None or o.empty) for o in v.own):
        return v
    own = frozenset(o.with_fix_at(span) if o.kind == UNORDERED and o.fix_at is None else o for o in v.own if not o.empty)
    return Value(own, v.inner)


def substitute(v: Value, bindings: dict[str, Value]) -> Value:
    """Replace the parameter origins of a function's result by the caller's argument values."""
    if not v:
        return CLEAN
    if not any(o.kind == PARAM for o in v.own) and not any(o.kind == PARAM for o in v.inner):
        return v
    own: set[Origin] = set()
    inner: set[Origin] = set()
    for o in v.own:
        if o.kind != PARAM:
            own.add(o)
            continue
        arg = _param_value(o, bindings)
        own.update(arg.own)
        inner.update(arg.inner)
    for o in v.inner:
        if o.kind != PARAM:
            inner.add(o)
            continue
        arg = _param_value(o, bindings)
        inner.update(arg.own)
        inner.update(arg.inner)
    return Value(frozenset(own), frozenset(inner))


def _param_value(o: Origin, bindings: dict[str, Value]) -> Value:
    arg = bindings.get(f"{o.what}.{o.attr}") if o.attr is not None else None
    if arg is None:
        arg = bindings.get(o.what, CLEAN)
    if o.mode == "elem":
        return element_of(arg)
    if o.mode == "sorted":
        return sanitized(arg)
    return arg


def real_origins(origins: Iterable[Origin]) -> list[Origin]:
    return [o for o in origins if o.kind != PARAM]
