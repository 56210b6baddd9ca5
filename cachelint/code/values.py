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

What a value *is* matters for the fixes only: ``sorted(x)`` changes nothing but the order when every
element of ``x`` is a str, or every one a path of one flavour, and may raise TypeError otherwise (a
list of dicts). So a ``Value`` also carries its ``kind`` ("str", "path", or "name": a file name from
one directory listing, str or bytes as the path given) and the kind of its ``elements``, when they are
known for certain; ``None`` is unknown. What a call the analysis does not know returns is an
``OBJECT``: its own unknown methods do not give back what it was made from (calls.py). ``union`` (a
value built from others: a dict display) forgets both; ``merge`` (a value that is one of several: branches, loop
iterations, ``a or b``) keeps what all of them agree on. An origin records, where it is first put in
order (``fix_at``), whether a sorted(...) there is safe: the elements of the value at that spot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, NamedTuple

UNORDERED = "unordered"
VOLATILE = "volatile"
# The conversation's own state (the history a request carries on, this turn's input, the state a
# framework hands a per-turn function): a value built from it differs from one request to the next.
CONVERSATION = "conversation"
# The mode of a conversation origin that is a selection by state the program changes between the
# requests of a conversation (``n not in self.loaded``): the prefix lists only what it lets through.
SELECTION = "selection"
PARAM = "param"
# The parameter name under which a method sees the attributes of its own instance (``self.tools``
# is ``Origin(PARAM, INSTANCE, attr="tools")``, whatever the first parameter is called): the sinks
# they reach make the methods that store a parameter there sinks for it (the constructor).
INSTANCE = "self"

# A source position in ast terms: (line, col_offset in UTF-8 bytes, end_line, end_col_offset).
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Origin:
    """Where order or volatility enters: the construction site that a finding is reported at."""

    kind: str  # unordered | volatile | param
    what: str  # "os.listdir()", "a set display", "datetime.now() (the clock)"; param: its name
    site: Span
    sortable: bool = True  # unordered: can sorted(...) be applied to the source's sequence
    granularity: str = "time"  # volatile: "time" | "date"
    # unordered: where the value is first put in order (the fix wraps it in sorted), and whether
    # that is safe: the spot iterates the value (a loop, list(), join: not str() or an f-string,
    # where sorted would change the text) and its elements are all str or all paths. In this
    # module's ast positions, or, with ``fix_module``, in the (line, 1-based character column)
    # positions of that module's text (an origin that another module's function returns).
    fix_at: Span | None = None
    fix_safe: bool = False
    fix_module: str | None = None
    mode: str = "whole"  # param: "whole" | "elem" | "sorted"
    attr: str | None = (
        None  # param: the value of this attribute of the parameter (args.tools); selection: the place tested
    )
    external: str | None = None  # from another module's summary: "pkg.mod.func"
    empty: bool = False  # unordered: an empty set() nothing has been put in yet

    def with_fix_at(self, span: Span, safe: bool) -> "Origin":
        return replace(self, fix_at=span, fix_safe=safe)


# Kinds of values whose collections sort without error and without any change but the order.
STR = "str"
PATH = "path"  # a pathlib path of the platform's flavour (Path, PurePath): paths of one flavour compare
NAME = "name"  # a file name of one listing: str, or bytes when the path given was bytes
# What a call the analysis does not know returns (an object of a third-party class, a toolkit, an
# ORM row): its own unknown methods answer from the object's state, not with what it was made from.
OBJECT = "object"
# A dict (a display, a comprehension): dicts do not compare, so sorted() of dicts raises TypeError
# whatever they hold; a plain sorted(...) fix is never offered around them.
DICT = "dict"
SORTABLE_KINDS = frozenset({STR, PATH, NAME})


class Value(NamedTuple):
    own: frozenset[Origin]
    inner: frozenset[Origin]
    kind: str | None = None  # what the value is, when known for certain (STR, PATH, NAME)
    elements: str | None = None  # the kind of every element of this collection, when known

    def __bool__(self) -> bool:
        return bool(self.own) or bool(self.inner)

    def all(self) -> frozenset[Origin]:
        return self.own | self.inner


EMPTY: frozenset[Origin] = frozenset()
CLEAN = Value(EMPTY, EMPTY)
STR_VALUE = Value(EMPTY, EMPTY, STR)


def typed(v: Value, kind: str | None = None, elements: str | None = None) -> Value:
    """``v`` as a value of this kind (or holding elements of this kind)."""
    if v.kind == kind and v.elements == elements:
        return v
    return Value(v.own, v.inner, kind, elements)


def untyped(v: Value) -> Value:
    return v if v.kind is None and v.elements is None else Value(v.own, v.inner)


def agree(a: str | None, b: str | None) -> str | None:
    """The kind two values have in common. Two listings may differ (one of bytes): NAME never
    survives a merge."""
    return a if a == b and a != NAME else None


def value_of(own: Iterable[Origin] = (), inner: Iterable[Origin] = ()) -> Value:
    return Value(frozenset(own), frozenset(inner))


def instance_attribute(site: Span, attr: str) -> Value:
    """``self.<attr>`` as the instance's other methods may have set it: the attribute, whole and by
    element, as a parameter of the method (see ``INSTANCE``)."""
    return Value(
        frozenset([Origin(PARAM, INSTANCE, site, attr=attr)]),
        frozenset([Origin(PARAM, INSTANCE, site, mode="elem", attr=attr)]),
    )


def union(*values: Value) -> Value:
    """A value built from ``values``: their origins, no kind."""
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


def merge(*values: Value) -> Value:
    """A value that is one of ``values`` (branches, iterations, ``a or b``): their origins, and
    the kind they all agree on."""
    v = union(*values)
    kind, elements = values[0].kind, values[0].elements
    for other in values[1:]:
        if kind is None and elements is None:
            break
        kind, elements = agree(kind, other.kind), agree(elements, other.elements)
    if len(values) == 1:
        kind, elements = values[0].kind, values[0].elements
    return typed(v, kind, elements) if kind is not None or elements is not None else v


def _keeps_through_elements(o: Origin) -> bool:
    return o.kind != UNORDERED


def element_of(v: Value) -> Value:
    """An element of ``v`` (iteration, indexing): its order is whatever the elements carried."""
    if not v:
        return CLEAN if v.elements is None else Value(EMPTY, EMPTY, v.elements)
    own = set(v.inner)
    for o in v.own:
        if o.kind == PARAM:
            own.add(replace(o, mode="elem") if o.mode != "elem" else o)
        elif _keeps_through_elements(o):
            own.add(o)
    return Value(frozenset(own), v.inner, v.elements)


def sanitized(v: Value) -> Value:
    """``sorted(v)`` and order-free reductions: the value's own order no longer matters (what the
    result is, the caller says: sorted keeps the elements, len gives a number)."""
    if not v.own:
        return untyped(v)
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


def materialized(v: Value, span: Span, iterated: bool = True) -> Value:
    """``v`` is put in a fixed order here: remember the spot so that the fix can wrap it in
    sorted(...). ``iterated``: the spot only iterates ``v`` (a loop, list(), join), so a sorted(...)
    there is safe when ``v``'s elements sort (str, paths); formatting it (str(), an f-string) would
    print a list instead. An empty set iterated gives nothing: its order is no longer carried."""
    if not any(o.kind == UNORDERED and (o.fix_at is None or o.empty) for o in v.own):
        return v
    if v.elements == DICT:
        return v  # sorted() of dicts raises: no fix here (the call may sort them by a key)
    safe = iterated and v.elements in SORTABLE_KINDS
    own = frozenset(
        o.with_fix_at(span, safe) if o.kind == UNORDERED and o.fix_at is None else o for o in v.own if not o.empty
    )
    return Value(own, v.inner, v.kind, v.elements)


def substitute(v: Value, bindings: dict[str, Value]) -> Value:
    """Replace the parameter origins of a function's result by the caller's argument values. What
    the result is does not depend on them (a parameter's kind is never known inside its function)."""
    if not v:
        return v
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
    return Value(frozenset(own), frozenset(inner), v.kind, v.elements)


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
