"""Expressions: one handler per node type (names, attributes, subscripts, operators, displays,
comprehensions, f-strings), each giving the ``Value`` the expression carries: unordered or
volatile origins, and what its elements are."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any

from cachelint.code.flow.facts import span_of
from cachelint.code.flow.scopes import (
    MAX_REMEMBERED_KEYS,
    Frame,
    has_unordered,
    path_of,
    path_root,
)
from cachelint.code.flow.sinks import Sinks
from cachelint.code.flow.summary_data import value_from_summary
from cachelint.code.values import (
    CLEAN,
    CONVERSATION,
    DICT,
    EMPTY,
    PARAM,
    PATH,
    STR,
    STR_VALUE,
    UNORDERED,
    VOLATILE,
    Origin,
    Value,
    agree,
    as_element,
    element_of,
    instance_attribute,
    merge,
    typed,
    union,
    untyped,
)


def _direct_set(node: ast.AST) -> bool:
    return isinstance(node, (ast.Set, ast.SetComp)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset")
    )


def _empty_list(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple)) and not node.elts


def is_constant(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def is_str_expr(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr)


def common_kind(kinds: list[str | None]) -> str | None:
    """The kind every element has (one listing's file names count as one kind, two do not)."""
    if not kinds:
        return None
    kind = kinds[0]
    for other in kinds[1:]:
        kind = agree(kind, other)
    return kind


class Expressions(Sinks):
    """The value of each kind of expression."""

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

    def _volatile_name(self, name: str, node: ast.AST, v: Value) -> Value:
        """``v``, read through a name formatted into text that says what it holds: a per-request id
        (``request_id``), or a per-user / per-session one (``user_id``: one prefix per user, never
        shared). When ``v`` already carries a clock or a uuid, that is the one defect, worded by what
        the name says it is (``user_id = uuid4().hex``: a per-user value), not a second finding."""
        if not self._text_depth or not self.k.knows_volatile_names:
            return v
        kind = self.k.volatile_name_kind(name)
        if kind is None:
            return v
        if any(o.kind == VOLATILE for o in v.own):
            if kind != "session":
                return v
            own = frozenset(
                replace(o, granularity="session", what=f"{o.what} as {name} (a per-user or per-session value)")
                if o.kind == VOLATILE and o.granularity == "time" and o.external is None
                else o
                for o in v.own
            )
            return Value(own, v.inner, v.kind, v.elements)
        if kind == "request":
            origin = Origin(VOLATILE, f"{name} (a per-request value)", span_of(node))
        else:
            origin = Origin(VOLATILE, f"{name} (a per-user or per-session value)", span_of(node), granularity="session")
        return union(v, Value(frozenset([origin]), EMPTY))

    def turn_key(self, v: Value, key: str, attribute: bool = False) -> Value:
        """One key (or attribute) of a framework's per-request state: the whole state stays the
        whole state (``ctx.state``); a key that holds the conversation or that the module writes
        changes from one request to the next; any other key is taken as set once for the session."""
        if not self.turn_state_keys or not any(o.kind == CONVERSATION and o.mode == "state" for o in v.own | v.inner):
            return v

        def keyed(o: Origin) -> Origin | None:
            if o.kind != CONVERSATION or o.mode != "state":
                return o
            name, keys, whole = self.turn_state_keys.get(o.site, ("", frozenset(), None))
            if attribute and key == whole:
                return o
            if key in keys:
                return replace(o, mode="whole", what=f"{name}[{key!r}] (the state, updated for each request)")
            return None

        own = frozenset(k for k in map(keyed, v.own) if k is not None)
        inner = frozenset(k for k in map(keyed, v.inner) if k is not None)
        return Value(own, inner, v.kind, v.elements)

    def _name(self, node: ast.Name, frame: Frame) -> Value:
        v = frame.lookup(node.id)
        if v is None and self.resolve_external_name is not None and node.id in self.imports:
            v = self._external_name(node, (self.imports[node.id],))
        return self._volatile_name(node.id, node, v if v is not None else CLEAN)

    def _attribute(self, node: ast.Attribute, frame: Frame) -> Value:
        base = node.value
        own = frame.attribute_of_self(node)
        if own is not None:
            v = own[0].attrs.get(node.attr, CLEAN)
            if frame.summary is not None:
                # the attribute as the other methods may have set it (see INSTANCE); what it is stays
                v = typed(union(v, instance_attribute(span_of(base), node.attr)), v.kind, v.elements)
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
        v = self.turn_key(v, node.attr, attribute=True)
        return self._volatile_name(node.attr, node, v)

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
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return self._volatile_name(node.slice.value, node, self.turn_key(v, node.slice.value))
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
            value = union(value, self.turn_key(Value(declared, EMPTY), key.value))
        return self._volatile_name(key.value, base, value)

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
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in self.k.set_view_methods
        ):
            return True
        return False

    def _binop(self, node: ast.BinOp, frame: Frame) -> Value:
        if isinstance(node.op, ast.Add) and isinstance(node.right, ast.List) and not _empty_list(node.left):
            self.appended_lists.add(id(node.right))
        text = isinstance(node.op, (ast.Add, ast.Mod)) and (is_str_expr(node.left) or is_str_expr(node.right))
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
            and has_unordered(left)
            and has_unordered(right)
        ):
            # set(a) | set(b): one construction site for the whole expression.
            merged = Origin(UNORDERED, "set algebra on sets", span_of(node))
            own = frozenset(o for o in value.own if o.kind != UNORDERED) | {merged}
            return Value(own, value.inner, None, value.elements)
        if isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)):
            has_origin = has_unordered(left) or has_unordered(right)
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
                self._named_system_prompt(name, vv, val, frame, val)
                if name == "role" and isinstance(val, ast.Constant) and val.value in self.k.first_message_roles:
                    role = val.value
                elif name == "content":
                    content = (vv, val)
                if len(node.keys) <= MAX_REMEMBERED_KEYS:
                    if stash is None:
                        stash = {}
                    stash[name] = (vv, val)
        if role is not None and content is not None:
            self.role_contents[id(node)] = (content[0], role)
        if stash:
            self.dict_entries[id(node)] = stash
        value = typed(union(*parts) if parts else CLEAN, DICT)
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
        if path is None or (
            isinstance(node, ast.Attribute) and frame.cls is not None and path_root(path) == frame.self_name
        ):
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
                parts.append(self.put_in_order(starred, elt.value, iterated=True))
            else:
                item = self.eval(elt, frame)
                kinds.append(item.kind)
                parts.append(as_element(item))
        if isinstance(node, ast.List) and node.elts and id(node) not in self.appended_lists:
            first = node.elts[0]
            content = self.role_contents.get(id(first))
            if content is not None:
                # A message list that starts with a system message is built to be sent: its
                # first message is the system prompt wherever the list goes (where that is, is
                # settled once the function is analysed).
                value, role = content
                key = id(frame.summary) if frame.summary is not None else None
                self.first_message_lists.setdefault(key, []).append((node, value, role, frame))
        if (
            isinstance(node, ast.Tuple)
            and len(node.elts) == 2
            and isinstance(node.elts[0], ast.Constant)
            and node.elts[0].value in self.k.first_message_roles
        ):
            # langchain's ("system", text) message
            self.role_contents[id(node)] = (parts[1], node.elts[0].value)
        return typed(union(*parts), None, common_kind(kinds)) if parts else CLEAN

    def _set(self, node: ast.Set, frame: Frame) -> Value:
        values = [self.eval(e, frame) for e in node.elts]
        kinds = [v.elements if isinstance(e, ast.Starred) else v.kind for e, v in zip(node.elts, values)]
        origin = Origin(UNORDERED, "a set", span_of(node))
        return typed(
            union(Value(frozenset([origin]), EMPTY), *(as_element(v) for v in values)), None, common_kind(kinds)
        )

    def _generators(self, node: Any, frame: Frame) -> tuple[Frame, frozenset[Origin]]:
        inner = Frame(frame, frame.summary, frame.cls)
        inner.self_name = frame.self_name
        order: frozenset[Origin] = EMPTY
        for gen in node.generators:
            iterable = self.put_in_order(self.eval(gen.iter, inner), gen.iter, iterated=True)
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
            value = union(elt, Value(order, EMPTY)) if order else elt
            return typed(value, DICT)
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
            value = self.put_in_order(self.eval(node.value, frame), node.value, iterated=False)
        finally:
            self._text_depth -= 1
        spec = node.format_spec
        if isinstance(spec, ast.JoinedStr) and value.own:
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

    def _external_name(self, node: ast.AST, dotted: tuple[str, ...]) -> Value | None:
        assert self.resolve_external_name is not None
        found = self.resolve_external_name(dotted)
        if found is None:
            return None
        qualified, data, module = found
        return value_from_summary(data, span_of(node), qualified, module)
