"""Calls and summaries: what a call returns (knowledge tables, a local function's ``Summary``,
another module's summary data, a method of a known class), what it does to its receiver
(``list.append``), and ``summary_of``, which analyses a function once with its parameters as
symbolic origins."""

from __future__ import annotations

import ast
from typing import Any, Mapping

from cachelint.code.flow.expressions import Expressions, common_kind, is_str_expr
from cachelint.code.flow.facts import ClassInfo, External, SinkRef, Summary, span_of
from cachelint.code.flow.scopes import (
    FIRST,
    Frame,
    is_abstract_stub,
    is_first_index,
    looks_like_class,
    parsed_annotation,
    path_of,
    local_names,
    path_root,
    result_reads,
)
from cachelint.code.flow.summary_data import value_from_summary
from cachelint.code.flow.loops import add_use
from cachelint.code.flow.list_uses import returned_keys, state_write_keys
from cachelint.code.flow.state_filters import first_param, module_names, state_changes
from cachelint.code.knowledge import PREFIX_TIERS, PerTurn, Sink
from cachelint.code.values import (
    CLEAN,
    CONVERSATION,
    EMPTY,
    INSTANCE,
    NAME,
    OBJECT,
    PARAM,
    PATH,
    STR,
    UNORDERED,
    VOLATILE,
    Origin,
    Value,
    as_element,
    element_of,
    filled,
    holds_empty_set,
    instance_attribute,
    sanitized,
    substitute,
    typed,
    union,
)

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


def has_deferred_tool(node: ast.AST, frame: Frame) -> bool:
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
            kw.arg == "defer_loading" and isinstance(kw.value, ast.Constant) and kw.value.value is True
            for kw in sub.keywords
        ):
            return True
    return False


def _has_deferred_literal(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Dict):
            for k, v in zip(sub.keys, sub.values):
                if (
                    isinstance(k, ast.Constant)
                    and k.value == "defer_loading"
                    and isinstance(v, ast.Constant)
                    and v.value is True
                ):
                    return True
    return False


# Positional arguments of the list/set/deque methods of those names: ``db.insert(rows)`` (one
# argument) is a database call, not ``list.insert(index, item)``, and does not put ``rows`` in
# ``db``.
_COLLECTION_ARITY = {"insert": 2, "append": 1, "appendleft": 1, "extend": 1, "extendleft": 1, "remove": 1, "discard": 1}


def _is_empty_set_call(node: ast.Call) -> bool:
    """``set()``, ``frozenset()``, ``set([])``: a set with nothing in it."""
    if node.keywords or len(node.args) > 1:
        return False
    if not node.args:
        return True
    arg = node.args[0]
    return (isinstance(arg, (ast.List, ast.Tuple, ast.Set)) and not arg.elts) or (
        isinstance(arg, ast.Dict) and not arg.keys
    )


def _given(node: ast.Call, position: int | None) -> bool:
    """The call has a positional argument at ``position`` that is not the constant None."""
    if position is None or len(node.args) <= position:
        return False
    if any(isinstance(a, ast.Starred) for a in node.args[: position + 1]):
        return False
    arg = node.args[position]
    return not (isinstance(arg, ast.Constant) and arg.value is None)


def _is_text(positional: list[Value], position: int) -> bool:
    """The argument at ``position`` is known to be a str (or a collection of str: a tuple of str
    hashes as its items do)."""
    if len(positional) <= position:
        return False
    arg = positional[position]
    return arg.kind == STR or (arg.kind is None and arg.elements == STR)


def _seeded(node: ast.Call, position: int | None) -> bool:
    """``random.Random(42)``, ``default_rng(seed=0)``: a generator made with a seed (not ``None``)
    gives the same values in the same order in every process; what its seed carries, it carries."""
    if position is None or any(isinstance(a, ast.Starred) for a in node.args[: position + 1]):
        return False
    seed = node.args[position] if position < len(node.args) else None
    if seed is None:
        seed = next((kw.value for kw in node.keywords if kw.arg in ("seed", "x")), None)
    return seed is not None and not (isinstance(seed, ast.Constant) and seed.value is None)


def _bound_value(param: str, values: dict[str, Value]) -> Value | None:
    """The caller's value for ``param`` or for one of its keys/attributes (``data.['system']``),
    falling back to the whole argument when that part is not known."""
    value = values.get(param)
    if value is None and "." in param:
        value = values.get(param.split(".", 1)[0])
    return value


def _through_unknown(v: Value) -> Value:
    """A value passed through a call we know nothing about: still tainted, but what it is is no
    longer known (a sorted(...) fix of the result would be unsafe: it is an ``OBJECT``), and an
    empty set may come back filled."""
    return typed(filled(v), OBJECT) if v else CLEAN


def _without_volatile(v: Value) -> Value:
    if not any(o.kind == VOLATILE for o in v.own) and not any(o.kind == VOLATILE for o in v.inner):
        return v
    return Value(frozenset(o for o in v.own if o.kind != VOLATILE), frozenset(o for o in v.inner if o.kind != VOLATILE))


def _in_mode(v: Value, mode: str) -> Value:
    """What of an argument reaches a sink that receives it in ``mode`` (see Summary.param_sinks)."""
    if mode == "elem":
        return element_of(v)
    if mode == "sorted":
        return sanitized(v)
    return v


def _composed_mode(stored: str, sent: str) -> str | None:
    """A parameter stored in an attribute in ``stored`` mode, the attribute sent in ``sent`` mode:
    how the parameter reaches the sink (None: an element of an element, not followed)."""
    if stored == "sorted" or sent == "sorted":
        return "sorted"
    if stored == "whole":
        return sent
    if sent == "whole":
        return stored
    return None


def _external_sink(entry: Mapping[str, Any], qualified: str, line: int) -> SinkRef:
    """A sink of another module's summary, as called at ``line`` of this one."""
    return SinkRef(
        entry["tier"],
        f"{entry['label']} in {qualified} (line {entry['line']})",
        line,
        external=qualified,
        renewed=entry.get("renewed"),
    )


def _annotation_text(annotation: ast.AST | None) -> str:
    """An annotation as written (a string one without its quotes)."""
    if isinstance(annotation, ast.Constant):
        return str(annotation.value)
    return ast.unparse(annotation) if annotation is not None else ""


class Calls(Expressions):
    """Calls: what they return and do, and the summaries of the functions they call."""

    def _annotation_origin(self, annotation: ast.AST | None, at: ast.AST) -> Origin | None:
        """``names: set[str]``: the annotation says the value is unordered, wherever it came from."""
        node = parsed_annotation(annotation)
        if node is None:
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # set[str] | None
            return self._annotation_origin(node.left, at) or self._annotation_origin(node.right, at)
        if isinstance(node, ast.Subscript):
            base = node.value
            if (
                isinstance(base, (ast.Name, ast.Attribute))
                and (base.id if isinstance(base, ast.Name) else base.attr) == "Optional"
            ):
                return self._annotation_origin(node.slice, at)
            node = base
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name is None or name not in self.k.unordered_annotations:
            return None
        # set[str] says nothing certain about the elements (annotations are not checked when the
        # program runs): a sorted(...) fix of such a value is unsafe
        return Origin(
            UNORDERED,
            f"a value annotated {_annotation_text(annotation)}",
            span_of(at),
        )

    def summary_of(self, node: Any) -> Summary:
        key = id(node)
        summary = self.summaries.get(key)
        if summary is not None:
            return summary
        cls = self.func_class.get(key)
        is_method = cls is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        params = [a.arg for a in node.args.posonlyargs + node.args.args]
        summary = Summary(node.name, params[1:] if is_method and params else params)
        self.summaries[key] = summary
        self._analyse_function(node, summary, cls if is_method else None)
        return summary

    def _analyse_function(
        self, node: Any, summary: Summary, cls: ClassInfo | None, turn_state: tuple[int, Origin] | None = None
    ) -> None:
        """Run the function's body with its parameters as symbolic origins (``turn_state``: the
        parameter at that position also holds the conversation's state)."""
        self.summary_nodes[id(summary)] = node
        args = node.args
        parent = self.func_parent.get(id(node), self.module_frame)
        frame = Frame(parent, summary, cls)
        all_args = args.posonlyargs + args.args + args.kwonlyargs
        position = 0
        for i, a in enumerate(all_args):
            if cls is not None and i == 0 and args.posonlyargs + args.args:
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
            if turn_state is not None and turn_state[0] == position:
                value = union(value, Value(frozenset([turn_state[1]]), EMPTY))
            position += 1
            frame.names[a.arg] = value
            frame.params.add(a.arg)
            ref = self.annotated_class(a.annotation)
            if ref is not None:
                frame.types[a.arg] = ref
        for a in (args.vararg, args.kwarg):
            if a is not None:
                frame.names[a.arg] = CLEAN
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.eval(default, parent)
        self.block(node.body, frame)
        summary.done = True
        self.settle_first_messages(summary, node)

    def register_per_turn(self, definition: ast.AST, turn: PerTurn) -> None:
        """A function the framework calls once per request with the conversation's state."""
        if all(existing is not definition for existing, _turn in self.per_turn_functions):
            self.per_turn_functions.append((definition, turn))

    def per_turn_passes(self) -> None:
        """Each function a framework calls once per request, run again with its state parameter as
        the conversation's state (a ``CONVERSATION`` origin): what it builds from that state into
        a prefix changes from one request to the next. Only those findings are kept (and what
        reaches its return value, when the framework renders that in a tier): the rest was found
        when the function was first analysed."""
        for definition, turn in list(self.per_turn_functions):
            node: Any = definition
            params = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
            if turn.state >= len(params):
                continue
            name = params[turn.state]
            site = span_of((node.args.posonlyargs + node.args.args + node.args.kwonlyargs)[turn.state])
            if turn.returns is None:
                # a function whose return value is no prompt (a graph node): what it sends is
                # rebuilt per step where its request carries the conversation on and reads the
                # keys that change per step (Sinks._rebuilt_per_turn)
                keys = self._changing_keys(turn)
                self.turn_places[id(node)] = frozenset([name] if turn.whole else [f"{name}[{k!r}]" for k in keys])
                reaches, changes = len(self.reaches), len(self.changes)
                self._analyse_function(node, Summary(node.name, params), None)
                found = self.reaches[reaches:]
                del self.reaches[reaches:]
                del self.changes[changes:]
                self.reaches.extend(r for r in found if r.origin.kind == CONVERSATION)
                continue
            filtered = not turn.whole
            origin = Origin(
                CONVERSATION,
                f"{name} (the state {turn.library} passes in for each request)",
                site,
                mode="state" if filtered else "whole",
            )
            if filtered:
                self.turn_state_keys[site] = (name, self._changing_keys(turn), turn.state_attribute)
            reaches, changes = len(self.reaches), len(self.changes)
            summary = Summary(node.name, [p for p in params if p not in ("self", "cls")])
            self._analyse_function(node, summary, None, (turn.state, origin))
            label = None
            if turn.returns is not None:
                label = f"the return value of {node.name}() ({turn.library} renders it for each request)"
                self._reach(summary.returns, SinkRef(turn.returns, label, node.lineno), None, self.module_frame)
            found = self.reaches[reaches:]
            del self.reaches[reaches:]
            del self.changes[changes:]
            self.reaches.extend(r for r in found if r.origin.kind == CONVERSATION or r.sink.label == label)

    def _changing_keys(self, turn: PerTurn) -> frozenset[str]:
        """The keys of the state that change from one request to the next: those holding the
        conversation, and those the module writes (``updates``)."""
        keys = set(turn.conversation_keys)
        if turn.updates == "returned_keys":
            # the same for every function of a library, while no function is added: kept (a
            # module of hundreds of graph nodes asks it for each of them)
            memo_key = (turn.library, len(self.per_turn_functions))
            returned = self.returned_keys_memo.get(memo_key)
            if returned is None:
                found: set[str] = set()
                for definition, other in self.per_turn_functions:
                    if other.library == turn.library:
                        found.update(returned_keys(definition))
                returned = self.returned_keys_memo[memo_key] = frozenset(found)
            keys.update(returned)
        elif turn.updates == "state_writes":
            if self.state_write_keys is None:
                self.state_write_keys = state_write_keys(self.tree)
            keys.update(self.state_write_keys)
        return frozenset(keys)

    def _call(self, node: ast.Call, frame: Frame) -> Value:
        func = node.func
        receiver = CLEAN
        method = None
        if isinstance(func, ast.Attribute):
            method = func.attr
            receiver = self.eval(func.value, frame)
        elif not isinstance(func, ast.Name):
            self.eval(func, frame)
        if method in ("append", "extend", "insert"):
            # messages.extend([{"role": "system", ...}]): a list added to another is not a message
            # list of its own (what its first item is to the list it joins, the place says)
            self.appended_lists.update(id(a) for a in node.args if isinstance(a, ast.List))
        text = method == "format" and isinstance(func, ast.Attribute) and is_str_expr(func.value)
        if text:
            self._text_depth += 1
        try:
            positional = [self.eval(a, frame) for a in node.args]
            keywords = {kw.arg: self.eval(kw.value, frame) for kw in node.keywords}
        finally:
            if text:
                self._text_depth -= 1
        if frame.loops:
            self._configured_object_uses(node, frame)
        for kw in node.keywords:
            if kw.arg is not None:
                self._named_system_prompt(
                    kw.arg, keywords[kw.arg], kw.value, frame, kw.value
                )  # Agent(system_prompt=...)
        path = self.callee_path(func)
        known = self.k.may_name_a_known_call(path)  # else no table below matches it
        turn = self.k.per_turn_calls.match(path)
        if turn is not None:
            self._registers_per_turn(node, turn, frame)
        fields = self._constructor_fields(node, func, positional, keywords)
        if fields is not None:
            self.call_keywords[id(node)] = fields
        elif looks_like_class(path[-1]) and node.keywords and any(keywords.values()):
            # A class instantiated with keywords: its attributes of those names hold those values.
            self.call_keywords[id(node)] = {k: v for k, v in keywords.items() if k is not None}

        if known and self.k.system_message_classes.match(path) is not None:
            content = keywords["content"] if "content" in keywords else (positional[0] if positional else CLEAN)
            self.role_contents[id(node)] = (content, "system")
        elif path == ("dict",) and "content" in keywords and frame.lookup("dict") is None:
            # dict(role="system", content=...): the same message as the {"role": ...} display
            role = next(
                (kw.value.value for kw in node.keywords if kw.arg == "role" and isinstance(kw.value, ast.Constant)),
                None,
            )
            if role in self.k.first_message_roles:
                self.role_contents[id(node)] = (keywords["content"], role)

        local = self._local_function(func, frame)
        if local is not None:
            if frame.loops and self.loop_changes_wanted:
                self._state_changed_by_call(node, func, frame)
            return self._apply_summary(
                node, local, positional, keywords, frame, receiver_is_self=isinstance(func, ast.Attribute)
            )
        if isinstance(func, ast.Attribute):
            inherited = None
            owner = frame.attribute_of_self(func)
            if owner is not None:
                inherited = self._inherited_method(*owner)  # self.method() of a base class
            ref = self._type_of(func.value, frame) if inherited is None else None
            if inherited is not None:
                found = inherited[1]
                if isinstance(found, tuple):
                    return self._apply_external(node, found, positional, keywords, frame, receiver_is_self=True)
                return self._apply_summary(
                    node, self.summary_of(found), positional, keywords, frame, receiver_is_self=True
                )
            if ref is not None:
                kind, name = ref
                if kind == "local":
                    info = self.classes.get(name)
                    defined = self._class_method(info, func.attr) if info is not None else None
                    if defined is not None:
                        if isinstance(defined, tuple):
                            return self._apply_external(node, defined, positional, keywords, frame)
                        return self._apply_summary(
                            node, self.summary_of(defined), positional, keywords, frame, receiver_is_self=False
                        )
                    method = None  # a method the class does not define: no list or set method either
                elif self.resolve_method is not None:
                    found_ext = self.resolve_method(name, func.attr)
                    if found_ext is not None:
                        return self._apply_external(node, found_ext, positional, keywords, frame)

        sink = self.k.sinks.match(path) if known else None
        if sink is None:
            sink = self._aliased_sink(func, frame)
        if sink is not None:
            self._sink_call(node, sink, positional, keywords, frame)
            return CLEAN
        self._constructor_call(node, func, positional, keywords, frame)

        if (
            known
            and self.k.sanitizers.match(path) is not None
            and not (len(path) == 1 and frame.lookup(path[0]) is not None)
        ):
            if not positional:
                return CLEAN
            result = sanitized(union(*positional))
            if self.k.keeps_elements.match(path) is not None and len(positional) == 1:
                result = typed(result, None, positional[0].elements)  # sorted(x): x's elements
            return result

        # time = datetime.now(); time.strftime(fmt): a method of a value held in a name that
        # shadows a module, not the module's function (only "*." patterns can match it)
        table_path = ("?", *path[1:]) if self._shadows_a_module(func, frame) else path
        unordered = self.k.unordered.match(table_path) if known else None
        if unordered is None and isinstance(func, ast.Attribute):
            # client = MultiServerMCPClient(...); client.get_tools(): a method of an imported
            # class, named by the class in the pack
            ref = self._type_of(func.value, frame)
            if ref is not None and ref[0] == "ext":
                unordered = self.k.unordered.match((*ref[1].lstrip(".").split("."), func.attr))
        if unordered is not None and not (len(path) == 1 and frame.lookup(path[0]) is not None):
            if path in (("set",), ("frozenset",)) and _is_empty_set_call(node):
                if path == ("frozenset",):
                    return CLEAN  # empty and immutable: there will never be an order to lose
                # empty for now: unordered once something is put in it (values.filled)
                return Value(frozenset([Origin(UNORDERED, unordered.what, span_of(node), empty=True)]), EMPTY)
            origin = Origin(UNORDERED, unordered.what, span_of(node), sortable=unordered.sortable)
            elements = self._source_elements(
                unordered.elements, node, receiver, positional, isinstance(func, ast.Attribute)
            )
            carried = union(receiver, *positional, *keywords.values())
            own = frozenset([origin])
            inner = frozenset([origin]) if unordered.nested else EMPTY
            if path in (("set",), ("frozenset",)) and positional:
                inner = inner | positional[0].inner
                own = own | frozenset(o for o in positional[0].own if o.kind != UNORDERED)
                return Value(
                    own, inner, None, positional[0].elements if len(positional) == 1 and not node.keywords else None
                )
            return typed(union(Value(own, inner), element_of(carried)), None, elements)

        volatile = self.k.volatile.match(table_path) if known else None
        if volatile is not None and not (len(path) == 1 and frame.lookup(path[0]) is not None):
            args_value = union(*positional, *keywords.values())
            if (
                volatile.needs_volatile_argument
                or (volatile.seeded_by is not None and volatile.seeded_by in self.seeded)
                or _given(node, volatile.time_argument)  # time.ctime(0): that time, not the clock
                or _seeded(node, volatile.seed_argument)  # random.Random(0): the same values in every process
                or (volatile.text_argument is not None and not _is_text(positional, volatile.text_argument))
            ):
                return args_value
            granularity = volatile.granularity
            if volatile.reorders_argument is not None:
                # random.shuffle(tools): the list is in a random order from here on
                self._reorder(node, volatile.reorders_argument, Origin(VOLATILE, volatile.what, span_of(node)), frame)
                return CLEAN
            if volatile.format_argument is not None and len(node.args) > volatile.format_argument:
                fmt = node.args[volatile.format_argument]
                if (
                    isinstance(fmt, ast.Constant)
                    and isinstance(fmt.value, str)
                    and not any(d in fmt.value for d in self.k.time_directives)
                ):
                    granularity = "date"
            what = (
                volatile.what
                if granularity == volatile.granularity
                else volatile.what.replace("(the clock)", "(reduced to the date)")
            )
            return union(
                Value(frozenset([Origin(VOLATILE, what, span_of(node), granularity=granularity)]), EMPTY), args_value
            )

        if method is not None and isinstance(func, ast.Attribute):
            handled = self._method_call(node, func, method, receiver, positional, keywords, frame)
            if handled is not None:
                return handled

        if known and self.k.materializers.match(path) is not None:
            iterated = self.k.sorting_changes_result.match(path) is None
            values = [self.put_in_order(v, a, iterated) for v, a in zip(positional, node.args)]
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
        fills_text = path[-1] in self.k.receiver_methods  # template.format(user_id=...): into the text
        passed = [
            sanitized(v) if self.k.is_membership_keyword(name) else v
            for name, v in keywords.items()
            if fills_text or not self.k.is_lookup_keyword(name)
        ]
        carried = receiver
        if isinstance(func, ast.Attribute) and receiver.kind == OBJECT and func.attr not in self.k.receiver_methods:
            # fs = FileSystem(root=run_dir); fs.tools(): a method the analysis does not know, of an
            # object an unknown call made, answers from the object's class and state; what the
            # object was made from (a root folder, a session id) is no evidence of its result
            carried = CLEAN
        result = _through_unknown(union(carried, *positional, *passed))
        if (
            looks_like_class(path[-1])
            and node.keywords
            and any(o.kind == VOLATILE for v in keywords.values() for o in v.own)
        ):
            # ExaTools(start_date=today): a toolkit's definitions come from its class; a date or an
            # id given to configure its calls is not in them (name=, description=... may be)
            defining = [
                v if self.k.is_tool_definition_keyword(name) else _without_volatile(v) for name, v in keywords.items()
            ]
            self.tool_objects[id(node)] = _through_unknown(union(carried, *positional, *defining))
        result_kind = (
            self._result_kind(path, method, receiver)
            if not (isinstance(func, ast.Name) and frame.lookup(func.id) is not None)
            else None
        )
        return typed(result, result_kind) if result_kind is not None else result

    def _shadows_a_module(self, func: ast.AST, frame: Frame) -> bool:
        """``time.strftime(...)`` where ``time`` is a variable of the program (not imported): the
        call is a method of its value."""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        # an import binds no value in a frame: a value bound to the name shadows the module
        return root is not func and isinstance(root, ast.Name) and frame.lookup(root.id) is not None

    def _registers_per_turn(self, node: ast.Call, turn: PerTurn, frame: Frame) -> None:
        """``builder.add_node("agent", agent)``: the function given is called once per step."""
        given = next((kw.value for kw in node.keywords if kw.arg == turn.keyword and turn.keyword), None)
        if given is None and turn.position is not None and turn.position < len(node.args):
            given = node.args[turn.position]
        if given is None and turn.position == 1 and len(node.args) == 1:
            given = node.args[0]  # add_node(agent): the name is the function's
        definition = self._local_function_def(given, frame) if given is not None else None
        if definition is not None and self.func_class.get(id(definition)) is None:
            self.register_per_turn(definition, turn)

    def _constructor_call(
        self, node: ast.Call, func: ast.AST, positional: list[Value], keywords: dict, frame: Frame
    ) -> None:
        """``Agent(tools=tools)`` of a class whose constructor stores ``tools`` on the instance, and
        one of whose methods sends it to a sink: the call is a sink for that argument. Not for an
        element of the argument (``Middleware(specs=[{"tools": ..., "middleware": ...}])``): the
        keys of dicts in a list are not kept apart, and what one key holds would seem to reach
        the sink that reads another."""
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if last is None or not (last in self.classes or looks_like_class(last)):
            return  # most calls: not of a class
        if isinstance(func, ast.Name) and frame.lookup(func.id) is not None:
            return
        ref = self.class_ref(func)
        if ref is None:
            return
        kind, name = ref
        if kind == "local":
            info = self.classes.get(name)
            found = self._constructor_sinks(info) if info is not None else None
            if found is None:
                return
            params, sinks = found
            values, nodes = self._bindings(params, node, positional, keywords, frame)
            for param, entries in sinks.items():
                bound = _bound_value(param, values)
                if bound is None:
                    continue
                for sink, mode in entries:
                    if mode != "elem":
                        arg = _in_mode(bound, mode)
                        self._reach(arg, sink, nodes.get(param), frame, arg.elements)
            return
        if self.resolve_method is not None:
            external = self.resolve_method(name, "__init__")
            if external is None or external[1].get("passes_arguments"):
                return
            qualified, data, module = external
            sinks_data = {
                param: [e for e in entries if e.get("mode", "whole") != "elem"]
                for param, entries in data.get("param_sinks", {}).items()
            }
            if any(sinks_data.values()):
                self._apply_external(
                    node,
                    (qualified, {**data, "param_sinks": sinks_data, "returns": None}, module),
                    positional,
                    keywords,
                    frame,
                )

    def _constructor_sinks(self, info: ClassInfo) -> tuple[list[str], dict[str, list[tuple[SinkRef, str]]]] | None:
        """(the constructor's parameters, parameter -> the sinks it reaches): its own, and through
        the attributes it stores them in (``self.tools = tools``), those other methods send those
        attributes to (this class's, its bases', of this module or another of the run)."""
        key = id(info)
        if key in self.constructor_sinks:
            return self.constructor_sinks[key]
        self.constructor_sinks[key] = None  # a constructor call inside the class's own methods
        init = self._class_method(info, "__init__")
        if init is None:
            return None
        out: dict[str, list[tuple[SinkRef, str]]] = {}
        if isinstance(init, tuple):
            qualified, data, _module = init
            qualified = data.get("defined_in", qualified)
            params = list(data.get("params", ()))
            for param, entries in sorted(data.get("param_sinks", {}).items()):
                if not param.startswith(INSTANCE + "."):
                    out[param] = [(_external_sink(e, qualified, e["line"]), e.get("mode", "whole")) for e in entries]
            attrs = {a: [(p, m) for p, m in pairs] for a, pairs in data.get("param_attrs", {}).items()}
        else:
            summary = self.summary_of(init)
            params = list(summary.params)
            for param, sinks in summary.param_sinks.items():
                if not param.startswith(INSTANCE + "."):
                    out[param] = list(sinks)
            attrs = {a: list(pairs) for a, pairs in summary.param_attrs.items()}
        if attrs:
            instance = self._instance_sinks(info)
            for attr, pairs in sorted(attrs.items()):
                for sink, sink_mode in instance.get(attr, ()):
                    for param, stored_mode in pairs:
                        mode = _composed_mode(stored_mode, sink_mode)
                        entries = out.setdefault(param, [])
                        if mode is not None and (sink, mode) not in entries:
                            entries.append((sink, mode))
        result = (params, {p: e for p, e in out.items() if e}) if any(out.values()) else None
        done = isinstance(init, tuple) or self.summary_of(init).done
        if done:
            self.constructor_sinks[key] = result
        else:
            del self.constructor_sinks[key]
        return result

    def _instance_sinks(self, info: ClassInfo, depth: int = 0) -> dict[str, list[tuple[SinkRef, str]]]:
        """Attribute -> the sinks a method of the class (its own or a base's) sends it to."""
        out: dict[str, list[tuple[SinkRef, str]]] = {}
        if depth > 8:
            return out

        def add(attr: str, sink: SinkRef, mode: str) -> None:
            entries = out.setdefault(attr, [])
            if (sink, mode) not in entries:
                entries.append((sink, mode))

        for method in info.methods.values():
            for param, sinks in self.summary_of(method).param_sinks.items():
                if param.startswith(INSTANCE + "."):
                    for sink, mode in sinks:
                        add(param[len(INSTANCE) + 1 :], sink, mode)
        for kind, name in info.bases:
            if kind == "local":
                base = self.classes.get(name)
                if base is not None and base is not info:
                    for attr, entries in self._instance_sinks(base, depth + 1).items():
                        for sink, mode in entries:
                            add(attr, sink, mode)
            elif self.resolve_class is not None:
                found = self.resolve_class(name)
                if found is None:
                    continue
                qualified_class, data, _module = found
                for method_name, entry in sorted(data.get("methods", {}).items()):
                    qualified = entry.get("defined_in", f"{qualified_class}.{method_name}")
                    for param, sinks_data in sorted(entry.get("param_sinks", {}).items()):
                        if param.startswith(INSTANCE + "."):
                            for e in sinks_data:
                                add(
                                    param[len(INSTANCE) + 1 :],
                                    _external_sink(e, qualified, e["line"]),
                                    e.get("mode", "whole"),
                                )
        return out

    def _class_method(self, info: ClassInfo, method: str, depth: int = 0) -> "ast.AST | External | None":
        """The method a call on an instance of the class runs: its own, else the first base's
        that has one (a base of this module: its definition; an imported one: its summary)."""
        defined = info.methods.get(method)
        if defined is not None:
            if is_abstract_stub(defined):
                override = self.overriding_method(info, method)
                if override is not None:
                    return override
            return defined
        inherited = self._inherited_method(info, method, depth)
        return inherited[1] if inherited is not None else None

    def overriding_method(self, info: ClassInfo, method: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The override of an abstract ``method`` of ``info`` by a subclass of this module (the
        first in the source that defines it without being abstract itself): a call through an
        instance declared of the base runs a subclass's method."""
        found = [
            sub.methods[method]
            for sub in self.classes.values()
            if sub is not info
            and ("local", info.name) in sub.bases
            and method in sub.methods
            and not is_abstract_stub(sub.methods[method])
        ]
        return min(found, key=lambda m: m.lineno) if found else None

    def _inherited_method(
        self, info: ClassInfo, method: str, depth: int = 0
    ) -> "tuple[str, ast.AST | External] | None":
        """A method the class does not define but a base does (depth-first, as the bases are
        listed; a cycle or a deep chain stops the search)."""
        if depth > 8 or method in info.methods:
            return None
        for kind, name in info.bases:
            if kind == "local":
                base = self.classes.get(name)
                if base is None or base is info:
                    continue
                found = base.methods.get(method)
                if found is not None:
                    return ("local", found)
                deeper = self._inherited_method(base, method, depth + 1)
                if deeper is not None:
                    return deeper
            elif self.resolve_method is not None:
                external = self.resolve_method(name, method)
                if external is not None and not external[1].get("passes_arguments"):
                    return ("ext", external)
        return None

    def _aliased_sink(self, func: ast.AST, frame: Frame) -> Sink | None:
        """``create = client.chat.completions.create`` (or ``self.create = ...``), then
        ``create(tools=...)``: the name holds the sink itself, not what it returns."""
        source: ast.AST | None = None
        if isinstance(func, ast.Name):
            source = frame.lookup_expr(func.id)
        elif (own := frame.attribute_of_self(func)) is not None:
            cls, attr = own
            source = cls.attr_exprs.get(attr)
        if isinstance(source, (ast.Name, ast.Attribute)):
            return self.k.sinks.match(self.callee_path(source))
        return self._sink_through_alternatives(func, frame)

    def _sink_through_alternatives(self, func: ast.AST, frame: Frame) -> Sink | None:
        """``llm = wrap(litellm) if traced else litellm``, then ``llm.completion(...)``: a name
        bound to a conditional expression (or ``a or b``) holds one of its operands, so on the
        branch where it is the SDK's module or client, the call is that SDK call (the language's
        semantics: the expression evaluates to one operand)."""
        root = func
        rest: list[str] = []
        while isinstance(root, ast.Attribute):
            rest.append(root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or not rest:
            return None
        source = frame.lookup_expr(root.id)
        if isinstance(source, ast.IfExp):
            operands: list[ast.AST] = [source.body, source.orelse]
        elif isinstance(source, ast.BoolOp) and isinstance(source.op, ast.Or):
            operands = list(source.values)
        else:
            return None
        for operand in operands:
            if isinstance(operand, (ast.Name, ast.Attribute)):
                sink = self.k.sinks.match((*self.callee_path(operand), *reversed(rest)))
                if sink is not None:
                    return sink
        return None

    def _configured_object_uses(self, node: ast.Call, frame: Frame) -> None:
        """A call in a loop on, or given, an object that a configuring call built (``agent =
        Agent(instructions=...)``, ``config = GenerateContentConfig(...)``): every request it makes
        sends the object's fields of that call's prefix arguments, so a write of one in the loop
        (``agent.instructions = ...``) changes the prefix of the next request."""
        places = [node.func.value] if isinstance(node.func, ast.Attribute) else []
        places += [a for a in node.args if not isinstance(a, ast.Starred)] + [
            kw.value for kw in node.keywords if kw.arg is not None
        ]
        for place in places:
            if not isinstance(place, ast.Name):
                continue
            built = frame.lookup_expr(place.id)
            if isinstance(built, ast.Await):
                built = built.value
            if not isinstance(built, ast.Call):
                continue
            sink = self.k.sinks.match(self.callee_path(built.func))
            if sink is None or not sink.configures:
                continue
            # a loop that builds the object anew each iteration makes a new agent, not a change
            loops = [
                loop
                for loop in frame.loops
                if not self._final_loops.get(id(loop))
                and not (loop.node.lineno <= built.lineno <= (loop.node.end_lineno or loop.node.lineno))  # type: ignore[attr-defined]
            ]
            if not loops:
                continue
            for argument in sink.arguments:
                if argument.tier in PREFIX_TIERS and argument.keyword is not None:
                    label = f"{argument.keyword}= of {ast.unparse(built.func)} (the {place.id} built at line {built.lineno})"
                    ref = SinkRef(argument.tier, label, node.lineno, tool_key=sink.tool_key)
                    for loop in loops:
                        add_use(loop.uses, (f"{place.id}.{argument.keyword}", ref), (self._branch_path, node.lineno))

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
            return common_kind([receiver.elements, *(v.elements for v in positional)])
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

    def _constructor_fields(
        self, node: ast.Call, func: ast.AST, positional: list[Value], keywords: dict
    ) -> dict[str, Value] | None:
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

    def _reorder(self, node: ast.Call, position: int, origin: Origin, frame: Frame) -> None:
        """The argument at ``position`` is put in a random order in place: the place it names
        carries ``origin`` (volatile: another order on every call) from here on."""
        if len(node.args) <= position:
            return
        arg = node.args[position]
        path = path_of(arg)
        if path is None:
            return
        current = self._read_path(path, arg, frame)
        self._write_path(path, arg, union(current, Value(frozenset([origin]), EMPTY)), frame)

    def _method_call(
        self,
        node: ast.Call,
        func: ast.Attribute,
        method: str,
        receiver: Value,
        positional: list[Value],
        keywords: dict,
        frame: Frame,
    ) -> Value | None:
        k = self.k
        target_path = path_of(func.value)
        if method in k.reordering_methods and node.args and any(o.kind == VOLATILE for o in receiver.own):
            # rng.shuffle(tools) of a generator that is not seeded: a random order from here on
            for o in sorted(receiver.own, key=lambda o: o.site):
                if o.kind == VOLATILE:
                    self._reorder(
                        node, 0, Origin(VOLATILE, f"{o.what} (.{method}(): a random order)", span_of(node)), frame
                    )
                    break
            return CLEAN
        if method in k.sort_methods:
            if target_path is not None:
                self._write_path(target_path, func.value, sanitized(receiver), frame)
            return CLEAN
        if (
            method in k.mutating_methods
            and _COLLECTION_ARITY.get(method, len(node.args)) == len(node.args)
            and not (
                isinstance(func.value, ast.Name)
                and func.value.id in self.module_aliases
                and frame.lookup(func.value.id) is None
            )
        ):  # os.remove(path) is a call of a module, not a list shrunk
            if target_path is not None:
                deferred = (
                    method in k.adding_methods and node.args and all(has_deferred_tool(a, frame) for a in node.args)
                )
                if (
                    method == "update"
                    and not node.args
                    and node.keywords
                    and all(kw.arg is not None for kw in node.keywords)
                ):
                    # request.update(tools=..., tool_choice=...): those keys, set to those values
                    for kw in node.keywords:
                        key_path = f"{target_path}[{kw.arg!r}]"
                        self._record_change(
                            frame, key_path, node, f"updated (.update({kw.arg}=...))", kw.value, keyed=True
                        )
                        if kw.arg in k.stash_keys:
                            frame.exprs[key_path] = kw.value
                elif not deferred:
                    self._record_change(
                        frame, target_path, node, _MUTATION_WORDS.get(method, f"changed in place (.{method}())")
                    )
                    if (
                        frame.loops
                        and frame.summary is not None
                        and method in k.adding_methods
                        and path_root(target_path) in frame.params
                    ):
                        frame.summary.grows.add(path_root(target_path))  # a conversation carried on
                    if (
                        method == "insert"
                        and node.args
                        and is_first_index(node.args[0])
                        and self._may_be_system_message(node.args[1], frame)
                    ):
                        self._record_change(
                            frame, target_path + FIRST, node, "given another first message (.insert(0, ...))"
                        )
                if method in ("append", "extend"):
                    item = node.args[0] if len(node.args) == 1 else None
                    if method == "append":
                        self._note_added_messages(func.value, [item] if item is not None else None, frame)
                    else:
                        elts = item.elts if isinstance(item, (ast.List, ast.Tuple)) else None
                        self._note_added_messages(
                            func.value,
                            [e for e in elts if not isinstance(e, ast.Starred)]
                            if elts is not None and not any(isinstance(e, ast.Starred) for e in elts)
                            else None,
                            frame,
                        )
                if method in k.adding_methods:
                    added = CLEAN
                    for v, a in zip(positional, node.args):
                        if method in ("extend", "update", "extendleft"):
                            added = union(added, self.put_in_order(v, a, iterated=True))
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
                if keyed is None:
                    keyed = self.turn_key(element_of(receiver), node.args[0].value)
            if keyed is not None:
                return union(keyed, *positional[1:])
        if method in k.element_methods:
            return element_of(receiver)
        if method in k.sanitizer_methods:
            return sanitized(receiver)
        if method in k.format_methods:
            if any(o.kind == VOLATILE for o in receiver.own) and node.args:
                fmt = node.args[0]
                if (
                    isinstance(fmt, ast.Constant)
                    and isinstance(fmt.value, str)
                    and not any(d in fmt.value for d in k.time_directives)
                ):
                    return typed(self._as_date(receiver, node), STR)
            return typed(union(receiver, *positional), STR)
        if method in k.date_methods and not node.args:
            return self._as_date(receiver, node)
        return None

    def _local_function(self, func: ast.AST, frame: Frame) -> Summary | None:
        node = self._local_function_def(func, frame)
        return self.summary_of(node) if node is not None else None

    def _local_function_def(self, func: ast.AST, frame: Frame) -> ast.AST | None:
        """The definition a call of ``func`` runs: a function of this module or of the enclosing
        function, or a method of the class of ``self``."""
        if isinstance(func, ast.Name):
            f: Frame | None = frame
            while f is not None:
                if func.id in f.local_funcs:
                    return f.local_funcs[func.id]
                if func.id in f.names and f is not self.module_frame:
                    return None
                f = f.parent
            return self.module_funcs.get(func.id)
        own = frame.attribute_of_self(func)
        if own is not None:
            cls, attr = own
            return cls.methods.get(attr)
        return None

    def _state_changed_by_call(self, node: ast.Call, func: ast.AST, frame: Frame) -> None:
        """A function of the module (or a method of ``self``) called inside a loop changes, each
        time it runs, the module globals and the attributes of ``self`` it writes (itself or
        through the functions and methods of ``self`` it calls): for the loop, they change at the
        call, as a write in the loop's own body would (``add_files(paths)`` appending to the global
        list a prompt is rebuilt from before the next request)."""
        definition = self._local_function_def(func, frame)
        if definition is None:
            return
        own = frame.attribute_of_self(func)
        on_self = own is not None
        for kind, name, by, line in self._state_written_by(definition, own[0].methods if own is not None else None):
            if kind == "global":
                if self._global_at(path_root(name), frame):
                    self._record_change(frame, name, node, f"changed by {by}() (line {line})", by_call=True)
            elif on_self and frame.self_name is not None:
                self._record_change(
                    frame, f"{frame.self_name}.{name}", node, f"changed by {by}() (line {line})", by_call=True
                )

    def _state_written_by(
        self, definition: ast.AST, methods: Mapping[str, ast.AST] | None
    ) -> tuple[tuple[str, str, str, int], ...]:
        """What running ``definition`` changes outside itself and leaves changed: ("global", the
        place written, function, line) and, for a method (``methods``: those of its class),
        ("attribute", the place after ``self.``, method, line), through the module functions and
        the methods of its own instance it calls."""
        cached = self.state_written_cache.get(id(definition))
        if cached is not None:
            return cached
        if self.module_globals is None:
            self.module_globals = module_names(self.tree)
        out: dict[tuple[str, str], tuple[str, int]] = {}
        seen: set[int] = set()
        # (a function to read, the methods of its class when it runs as a method of the instance)
        todo: list[tuple[ast.AST, Mapping[str, ast.AST] | None]] = [(definition, methods)]
        while todo:
            function, own_methods = todo.pop()
            if id(function) in seen or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            seen.add(id(function))
            changes = state_changes(
                function, self.module_globals, self.module_funcs, self.k.mutating_methods, own_methods is not None
            )
            for kind, place, line in changes:
                out.setdefault((kind, place), (function.name, line))
            self_name = first_param(function) if own_methods is not None else None
            for sub in ast.walk(function):
                if not isinstance(sub, ast.Call):
                    continue
                if isinstance(sub.func, ast.Name) and sub.func.id in self.module_funcs:
                    todo.append((self.module_funcs[sub.func.id], None))
                elif (
                    own_methods is not None
                    and self_name is not None
                    and isinstance(sub.func, ast.Attribute)
                    and isinstance(sub.func.value, ast.Name)
                    and sub.func.value.id == self_name
                    and sub.func.attr in own_methods
                ):
                    todo.append((own_methods[sub.func.attr], own_methods))
        result = tuple(sorted((kind, place, by, line) for (kind, place), (by, line) in out.items()))
        self.state_written_cache[id(definition)] = result
        return result

    def _called_reads(self, node: ast.AST, frame: Frame) -> set[str]:
        """The module globals and attributes of ``self`` that the functions of this module called in
        ``node`` build their results from (``system=render()`` with ``render`` joining a global
        the loop fills), through the functions and methods of ``self`` they call in turn: places
        the value of ``node`` reads besides those written in it."""
        out: set[str] = set()
        seen: set[int] = set()
        # (call, made in the caller's frame, the class of self where it is made, self's name there,
        # what self is to the caller)
        todo: list[tuple[ast.Call, bool, Any, str | None, str | None]] = [
            (c, True, frame.cls, frame.self_name, frame.self_name) for c in ast.walk(node) if isinstance(c, ast.Call)
        ]
        while todo and len(seen) < 16:
            call, here, cls, self_there, self_here = todo.pop()
            func = call.func
            if here:
                definition = self._local_function_def(func, frame)
            elif isinstance(func, ast.Name):
                definition = self.module_funcs.get(func.id)
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and cls is not None
                and func.value.id == self_there
            ):
                definition = cls.methods.get(func.attr)
            else:
                definition = None
            if definition is None or id(definition) in seen:
                continue
            seen.add(id(definition))
            on_self = isinstance(func, ast.Attribute)  # self.method(): the same object
            owner = self.func_class.get(id(definition))
            is_method = owner is not None and not any(
                isinstance(d, ast.Name) and d.id == "staticmethod"
                for d in definition.decorator_list  # type: ignore[attr-defined]
            )
            reads = self.result_reads_cache.get(id(definition))
            if reads is None:
                reads = result_reads(definition, self.k.adding_methods, is_method)
                self.result_reads_cache[id(definition)] = reads
            paths, calls = reads
            args = definition.args  # type: ignore[attr-defined]
            positional = args.posonlyargs + args.args
            self_param = positional[0].arg if is_method and positional else None
            mapped = self_here if on_self else None
            for path in paths:
                root = path_root(path)
                if self_param is not None and root == self_param:
                    if mapped is not None:
                        out.add(mapped + path[len(root) :])
                elif (
                    root in self.module_frame.names and root not in self.module_aliases and self._global_at(root, frame)
                ):
                    out.add(path)
            todo.extend((c, False, owner if is_method else None, self_param, mapped) for c in calls)
        return out

    def _global_at(self, name: str, frame: Frame) -> bool:
        """``name`` read in ``frame`` is the module's global of that name: no function around it
        binds it (``tools[k] = v`` writes into the global, ``tools = {}`` makes a local)."""
        f: Frame | None = frame
        while f is not None and f is not self.module_frame:
            if name in f.params or name in f.local_funcs:
                return False
            if f.summary is not None:
                node = self.summary_nodes.get(id(f.summary))
                if node is not None:
                    names = self.local_names_cache.get(id(node))
                    if names is None:
                        names = self.local_names_cache[id(node)] = local_names(node)
                    if name in names:
                        return False
            f = f.parent
        return True

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
                display = (
                    arg_node
                    if isinstance(arg_node, ast.Dict)
                    else self._structure(arg_node, frame)
                    if isinstance(arg_node, ast.Name)
                    else None
                )
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
                        if key.startswith(prefix) and "." not in key[len(prefix) :]:
                            values.setdefault(f"{param}.{key[len(prefix) :]}", v)
                    f = f.parent
        return values, nodes

    def _apply_summary(
        self,
        node: ast.Call,
        summary: Summary,
        positional: list[Value],
        keywords: dict,
        frame: Frame,
        receiver_is_self: bool,
    ) -> Value:
        self._passed_sets_may_fill(node, positional, keywords, frame)
        values, nodes = self._bindings(summary.params, node, positional, keywords, frame)
        for param, sinks in summary.param_sinks.items():
            bound = _bound_value(param, values)
            if bound is None and receiver_is_self:
                bound = self._own_attribute(param, node, frame)
            if bound is None:
                continue
            for sink, mode in sinks:
                arg = _in_mode(bound, mode)
                self._reach(arg, sink, nodes.get(param), frame, arg.elements)
        for used, sink in summary.uses:
            root = path_root(used)
            if root in summary.params:
                arg_node = nodes.get(root)
                arg_path = path_of(arg_node) if arg_node is not None else None
                if arg_path is not None:
                    self._use(arg_path + used[len(root) :], sink, frame, node.lineno)
                elif arg_node is not None and used == root:
                    # f(step + 1): the parameter as a whole is built from the places the
                    # argument reads
                    for read in self._paths_in(arg_node):
                        self._use(read, sink, frame, node.lineno)
            elif root == "self":
                if receiver_is_self and frame.self_name:
                    self._use(frame.self_name + used[len(root) :], sink, frame, node.lineno)
            else:
                self._use(used, sink, frame, node.lineno)
        if not summary.done:  # a recursive call: what it returns is still being worked out
            return CLEAN
        if summary.tuple_ok and summary.tuple_returns is not None:
            self.tuple_results[id(node)] = [substitute(v, values) for v in summary.tuple_returns]
        if summary.fields_ok and summary.field_returns:
            self.call_keywords[id(node)] = {k: substitute(v, values) for k, v in summary.field_returns.items()}
        return substitute(summary.returns, values)

    def _external_call(
        self, node: ast.Call, path: tuple[str, ...], positional: list[Value], keywords: dict, frame: Frame
    ) -> Value | None:
        assert self.resolve_external is not None
        found = self.resolve_external(path)
        if found is None:
            return None
        return self._apply_external(node, found, positional, keywords, frame)

    def _own_attribute(self, param: str, node: ast.AST, frame: Frame) -> Value | None:
        """``self.method()`` whose summary sends ``self.tools`` to a sink: the caller, a method of
        the same instance, sends its own ``self.tools`` there (what is in it already reached the
        sink inside the callee; what another method stores there is the caller's to tell)."""
        if not param.startswith(INSTANCE + ".") or frame.self_name is None or frame.summary is None:
            return None
        attr = param[len(INSTANCE) + 1 :]
        return instance_attribute(span_of(node), attr)

    def _apply_external(
        self,
        node: ast.Call,
        found: "External",
        positional: list[Value],
        keywords: dict,
        frame: Frame,
        receiver_is_self: bool = False,
    ) -> Value:
        qualified, data, module = found
        # an inherited method: its sink lines and fix spots are its base's module's
        qualified, module = data.get("defined_in", qualified), data.get("defined_module", module)
        if data.get("overridden_by"):
            # an abstract method: what runs is the override of a subclass of the same module
            class_path, method = qualified.rsplit(".", 1)
            qualified = f"{class_path.rsplit('.', 1)[0]}.{data['overridden_by']}.{method}"
        self._passed_sets_may_fill(node, positional, keywords, frame)
        if data.get("passes_arguments"):
            return _through_unknown(union(*positional, *keywords.values()))
        params = list(data.get("params", ()))
        values, nodes = self._bindings(params, node, positional, keywords, frame)
        for param, sinks in sorted(data.get("param_sinks", {}).items()):
            bound = _bound_value(param, values)
            if bound is None and receiver_is_self:
                bound = self._own_attribute(param, node, frame)
            if bound is None:
                continue
            for entry in sinks:
                arg = _in_mode(bound, entry.get("mode", "whole"))
                sink = _external_sink(entry, qualified, node.lineno)
                self._reach(arg, sink, nodes.get(param), frame, arg.elements)
                arg_node = nodes.get(param)
                arg_path = path_of(arg_node) if arg_node is not None else None
                if arg_path is not None:
                    self._use(arg_path, sink, frame)
        for param, settings in sorted(data.get("param_settings", {}).items()):
            arg_node = nodes.get(param)
            if arg_node is None:
                continue
            for entry in settings:
                # what the argument is built from is the setting that function sends
                sink = SinkRef(
                    "setting",
                    f"{entry['label']} in {qualified} (line {entry['line']})",
                    node.lineno,
                    external=qualified,
                )
                for read in self._paths_in(arg_node):
                    self._use(read, sink, frame)
        returns = data.get("returns")
        if not returns:
            return CLEAN
        site, via = span_of(node), f"{qualified}()"
        if "tuple_returns" in data:
            self.tuple_results[id(node)] = [
                substitute(value_from_summary(item, site, via, module), values) for item in data["tuple_returns"]
            ]
        if "field_returns" in data:
            self.call_keywords[id(node)] = {
                name: substitute(value_from_summary(item, site, via, module), values)
                for name, item in data["field_returns"].items()
            }
        return substitute(value_from_summary(returns, site, via, module), values)
