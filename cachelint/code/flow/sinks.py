"""Sinks: the prefix arguments of LLM calls. A sink call's arguments are followed to the values
and places they read, yielding ``Reach`` facts (an origin reaching a sink) and the uses the loops
around the call watch; and what may be the first (system) message of a list sent as messages."""

from __future__ import annotations

import ast
import json
import re
import string
import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from cachelint.code.flow.dependencies import LocalDeps
from cachelint.code.flow.facts import Reach, SinkRef, StaticFirstMessage, Summary, UncachedPrefix, span_of
from cachelint.code.flow.list_uses import (
    ListUse,
    argument_param,
    binds_own,
    built_when_empty,
    declared_global,
    kept_after_built,
    list_uses,
    name_uses,
    only_grown_in,
    rebound_before_read,
    scope_parents,
)
from cachelint.code.flow.loops import Loops, add_use
from cachelint.code.flow.scopes import FIRST, Frame, first_element, path_of, path_root
from cachelint.code.flow.state_filters import StateFilter, StateFilterSearch, changed_attributes, changed_globals
from cachelint.code.knowledge import PREFIX_TIERS, Sink
from cachelint.code.values import (
    CLEAN,
    CONVERSATION,
    SELECTION,
    EMPTY,
    INSTANCE,
    PARAM,
    VOLATILE,
    Origin,
    Span,
    Value,
    substitute,
    union,
)

# The tier of a value bound to a name that says it is the system prompt (``SYSTEM_PROMPT = ...``,
# ``return`` of ``build_system_prompt``) where no sink is in view: read by CL105 alone, for a clock
# or uuid, and never followed into loops or summaries.
NAMED_SYSTEM = "named system"
# The tiers of the messages that are cached prefix (read by CL105 for a clock or an id): the
# blocks up to a cache_control breakpoint, and, in a request without a system prompt, the first
# message ahead of its static text (see Sinks._messages_prefix).
CACHED = "cached"
OPENING = "opening"

# {key} or {key?} in a template filled from the session state (an optional key may be absent)
_STATE_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\??\}")


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


_TEXT_METHODS = frozenset({"format", "format_map", "join"})


def _builds_text(node: ast.AST) -> bool:
    """An f-string, a concatenation or %-formatting (``prompt += part`` too), ``.format(...)``,
    ``sep.join(...)``."""
    if isinstance(node, ast.Await):
        node = node.value
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Add, ast.Mod)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TEXT_METHODS


# Characters of literal text after a clock in a one-shot prompt that make it instructions rather
# than a label ("Question:", "Time:"): about ten tokens.
_STATIC_TEXT_WORTH_CACHING = 40
# The parts of a text expression (Sinks._text_parts): literal text, text read through a name (a
# constant: the instructions, whatever their length), and a value formatted in.
_LITERAL, _NAMED, _VALUE = "literal", "named", "value"
# A %-format field ("%s", "%5.2f"): the text between them is the template's literal text.
_PERCENT_FIELD = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdrfiaxXeEgGc]")
# Calls that read a message list they are given without changing it (besides requests, token
# counters and displays): a loop that only passes its conversation to these still sends the same
# first message every time.
_READING_CALLS = frozenset(
    {("len",), ("str",), ("repr",), ("list",), ("tuple",), ("json", "dumps"), ("copy", "copy"), ("copy", "deepcopy")}
)


def _mentions(scope: ast.AST, key: str) -> bool:
    """``key`` written in ``scope``: a str constant (a dict key, a subscript) or a keyword."""
    for sub in ast.walk(scope):
        if isinstance(sub, ast.Constant) and sub.value == key:
            return True
        if isinstance(sub, ast.keyword) and sub.arg == key:
            return True
    return False


def _literal_length(node: ast.AST | None) -> int | None:
    """Characters of a literal (tool definitions written as displays of constants) as JSON."""
    if node is None:
        return None
    try:
        return len(json.dumps(ast.literal_eval(node)))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _is_text_expr(node: ast.AST | None) -> bool:
    """A str literal, an f-string, text joined with ``+`` or ``%``, or a literal's ``.format()``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _is_text_expr(node.left) or _is_text_expr(node.right)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _is_text_expr(node.func.value)
    )


def _volatile_only(v: Value) -> Value:
    """What of ``v`` changes between requests: its volatile origins (and the parameters a caller
    may fill with one)."""
    keep = frozenset(o for o in v.own | v.inner if o.kind in (VOLATILE, PARAM))
    return Value(keep, EMPTY) if keep else CLEAN


class _Conversation(NamedTuple):
    history: set[str]  # the lists given to the function that the request sends on
    new: list[ast.AST]  # the new messages it adds
    followed: list[ast.AST]  # every expression followed to find them


_COPIES = frozenset({"list", "tuple", "copy", "deepcopy"})


def _copies(node: ast.Call) -> bool:
    """``list(history)``, ``history.copy()``, ``copy.deepcopy(history)``: the same messages."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in _COPIES


def _params_only(v: Value, params: bool) -> Value:
    """The parameter origins of ``v`` (``params``), or its other origins."""
    return Value(
        frozenset(o for o in v.own if (o.kind == PARAM) == params),
        frozenset(o for o in v.inner if (o.kind == PARAM) == params),
    )


def inside(path: str, place: str) -> bool:
    """``path`` is ``place`` or a part of it."""
    return path == place or (path.startswith(place) and path[len(place)] in ".[")


def _within(site: Span, outer: Span) -> bool:
    return (outer[0], outer[1]) <= (site[0], site[1]) and (site[2], site[3]) <= (outer[2], outer[3])


class Sinks(Loops):
    """The sink calls of a module and the facts their arguments give."""

    if TYPE_CHECKING:
        # Calls, the layer above, summarises a function passed as a prompt (dynamic instructions).
        def _local_function(self, func: ast.AST, frame: Frame) -> Summary | None: ...
        def _local_function_def(self, func: ast.AST, frame: Frame) -> ast.AST | None: ...
        def summary_of(self, node: Any) -> Summary: ...
        def _called_reads(self, node: ast.AST, frame: Frame) -> set[str]: ...

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
            name = (
                node.func.attr
                if isinstance(node.func, ast.Attribute)
                else node.func.id
                if isinstance(node.func, ast.Name)
                else ""
            )
            return not (name.endswith("Message") and name not in ("SystemMessage", "DeveloperMessage", "ChatMessage"))
        if isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant):
            return node.elts[0].value in self.k.first_message_roles
        return True

    def _sink_call(self, node: ast.Call, sink: Sink, positional: list[Value], keywords: dict, frame: Frame) -> None:
        callee = ast.unparse(node.func)
        starred_kwargs = [kw.value for kw in node.keywords if kw.arg is None]
        given_tiers: set[str] = set()
        sent_messages: tuple[ast.AST, str] | None = None
        prefix_args: list[tuple[str, ast.AST, str]] = []  # (tier, node, label) of tools and system
        reached_before = len(self.reaches)
        renewed = "agent" if sink.configures and self._agent_kept(node, frame) else None
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
                    how = (
                        f"{argument.keyword}= (argument {argument.position + 1})"
                        if argument.keyword
                        else f"argument {argument.position + 1}"
                    )
            if arg_node is None and argument.keyword is not None and starred_kwargs:
                for kwargs_node in starred_kwargs:
                    entry = self._dict_entry(kwargs_node, argument.keyword, frame)
                    if entry is not None:
                        value, arg_node = entry
                        how = f"{argument.keyword}= (from **{ast.unparse(kwargs_node)})"
                        kwargs_path = path_of(kwargs_node)
                        if (
                            kwargs_path is not None
                            and not sink.configures
                            and argument.tier in ("setting", "tools", "system")
                        ):
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
            given_tiers.add(argument.tier)
            if argument.tier == "messages" and sent_messages is None:
                sent_messages = (arg_node, f"{how} of {callee}")
            elif argument.tier in PREFIX_TIERS:
                prefix_args.append((argument.tier, arg_node, f"{how} of {callee}"))
            if argument.keyword in sink.state_arguments:
                self._state_template(node, arg_node, f"{how} of {callee}", sink, frame)
            self._sink_argument(
                argument.tier,
                value,
                arg_node,
                f"{how} of {callee}",
                node.lineno,
                frame,
                sink.configures,
                sink.tool_key,
                argument.keys,
                renewed,
            )
        messages_node = sent_messages[0] if sent_messages is not None else None
        if sent_messages is not None and not sink.configures:
            self._messages_prefix(node, sent_messages[0], sent_messages[1], "system" in given_tiers, frame)
        if sink.explicit_cache is not None and (prefix_args or messages_node is not None):
            self._uncached_prefix(node, callee, sink.explicit_cache, prefix_args, messages_node, frame)
        if messages_node is not None and not sink.configures:
            # no loop in view: only a request that carries a conversation on is repeated
            reached = set() if frame.loops else self._rebuilt_per_turn(node, prefix_args, messages_node, callee, frame)
            if reached is not None:
                with_first = self._with_first_message(prefix_args, messages_node, callee, frame)
                self._selected_by_changed_state(node, with_first, frame, reached)
        if frame.loops and not sink.configures:
            self._made_before_the_loop(reached_before, messages_node, frame)

    def _agent_kept(self, call: ast.Call, frame: Frame) -> bool:
        """An agent (or bound model) built by ``call`` in a function, outside any loop of it, and
        kept there for more than one use (list_uses.kept_after_built): the prefix it was built
        with is the same for every request it makes, so a value made once for it is renewed per
        agent, not per request. Built in a loop, or used once and dropped, it is built again for
        the next use, as a request is."""
        if frame.summary is None:
            return False
        function = self.summary_nodes.get(id(frame.summary))
        return function is not None and kept_after_built(function, call)

    def _made_before_the_loop(self, start: int, messages: ast.AST | None, frame: Frame) -> None:
        """A clock or id this function reads before the loop that repeats the call reaches every
        request of the loop alike: the requests of one run of the loop share it. Where the loop
        carries on a conversation the function is given (``self.history``, a parameter), each call
        of the function (each user turn) writes it again: "call"; where the conversation starts in
        the function, once per conversation: "conversation"."""
        loop = frame.loops[0].node
        function = self.summary_nodes.get(id(frame.summary)) if frame.summary is not None else None
        if function is None:
            return
        first = function.lineno  # type: ignore[attr-defined]
        given = any(self._given(p, frame) for p in (_history_paths(messages) if messages is not None else ()))
        renewed = "call" if given else "conversation"
        for i in range(start, len(self.reaches)):
            r = self.reaches[i]
            o = r.origin
            line = o.site[0]
            if (
                o.kind != VOLATILE
                or o.granularity not in ("time", "date")
                or o.external is not None
                or r.sink.renewed is not None
                or not (first <= line < loop.lineno)  # type: ignore[attr-defined]
            ):
                continue
            self.reaches[i] = Reach(o, replace(r.sink, renewed=renewed), r.arg_span, r.arg_elements)

    def _local_deps(self, frame: Frame) -> tuple[ast.AST, LocalDeps] | None:
        """The function ``frame`` runs (or the module) and the bindings of its names."""
        scope = self.summary_nodes.get(id(frame.summary)) if frame.summary is not None else self.tree
        if scope is None:
            return None
        return scope, self._deps_of_function(scope)

    def _is_request(self, call: ast.Call) -> bool:
        """A call of a model API that takes a prompt prefix (its reply is new text, not the text it
        was sent): not a generic ``.invoke`` of anything runnable."""
        sink = self.k.sinks.match(self.callee_path(call.func))
        return sink is not None and any(a.tier in PREFIX_TIERS for a in sink.arguments)

    def _given(self, path: str, frame: Frame) -> bool:
        """``path`` is rooted at what the function is given: a parameter or its own instance."""
        root = path_root(path)
        return root in frame.params or (root == frame.self_name and root is not None)

    def _conversation_parts(self, messages: ast.AST, deps: LocalDeps, frame: Frame, before: int) -> _Conversation:
        """What the messages of a request are made of: the lists the function is given and sends
        on (``self.history``, ``state["messages"]``, a ``history`` parameter: the conversation),
        the new messages it adds (elements of the displays sent, values appended to the lists it
        sends; not the first, system message), and every expression followed to find them."""
        conversation = _Conversation(set(), [], [])
        todo: list[tuple[ast.AST, bool, int]] = [(messages, True, 0)]
        seen: set[int] = set()
        while todo and len(seen) < 64:
            node, head, depth = todo.pop()
            if isinstance(node, (ast.Await, ast.Starred)):
                node = node.value
            if id(node) in seen:
                continue
            seen.add(id(node))
            conversation.followed.append(node)
            path = path_of(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) else None
            if path is not None:
                if path == frame.self_name:
                    continue  # a method called on self (``self.build()``) is no list carried on
                # what a call with no loop around it sees: what is written before it
                added = [v for v in deps.added.get(path, ()) if getattr(v, "lineno", 0) < before]
                conversation.new.extend(added)
                if self._given(path, frame):
                    conversation.history.add(path)
                    continue
                if depth < 4:
                    todo.extend(
                        (bound, head, depth + 1)
                        for bound in deps.assigned.get(path, ())
                        if getattr(bound, "lineno", 0) < before
                    )
                continue
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                todo.append((node.left, head, depth))
                todo.append((node.right, False, depth))
            elif isinstance(node, (ast.List, ast.Tuple)):
                elements = list(node.elts)
                if head and elements and self._is_role_message(elements[0], frame):
                    elements = elements[1:]  # the system message: what the prompt is, not the turn
                for element in elements:
                    if isinstance(element, ast.Starred):
                        todo.append((element.value, False, depth))
                    else:
                        conversation.new.append(element)
            elif isinstance(node, ast.Call) and _copies(node):
                todo.extend((a, head, depth) for a in [*node.args, getattr(node.func, "value", None)] if a is not None)
            else:
                conversation.new.append(node)  # built another way (a conversion, a comprehension)
        return conversation

    def _rebuilt_per_turn(
        self, call: ast.Call, prefix_args: list[tuple[str, ast.AST, str]], messages: ast.AST, callee: str, frame: Frame
    ) -> set[str] | None:
        """A request that carries a conversation on (its messages send a list the function is given)
        whose tools or system prompt are built from that conversation, or from this turn's input
        that the same messages send (the user's message, what it retrieved), or, in a function a
        framework calls for each step, from the state keys that change per step: the prefix is
        rebuilt for every request, with no loop in view (the framework, or the caller, repeats it).
        Not a system prompt taken out of the conversation itself (a wrapper converting one message
        list into a provider's ``system`` and ``messages``: the same binding feeds both, or it
        tests a message's role). Returns the tiers reported, or None where the request carries no
        conversation on."""
        if not _history_paths(messages):
            return None  # messages built here of new ones only: no conversation to lose
        found = self._local_deps(frame)
        if found is None:
            return None
        _scope, deps = found
        before = call.lineno
        conversation = self._conversation_parts(messages, deps, frame, before)
        history = conversation.history
        if not history:
            return None  # a request of new messages only: no conversation to lose
        turn_input: set[str] = set()
        for message in conversation.new:
            turn_input.update(p for p in deps.reads(message, before) if path_root(p) in frame.params)
        turn_places = self._turn_places(frame)
        prefix_args = self._with_first_message(prefix_args, messages, callee, frame)
        carried: set[int] = {id(node) for node in conversation.followed}
        for message in conversation.new:
            carried.add(id(message))
            carried |= deps.bindings_followed(message, before)

        def from_conversation(path: str) -> bool:
            # the place itself or a part of it (``history[-1]``), not what holds it: a method of
            # ``self`` called in the prompt reads all of ``self`` as far as read_paths can tell
            return any(inside(path, p) for p in history | turn_input | turn_places)

        reached: set[str] = set()
        for tier, arg_node, label in prefix_args:
            hit = deps.first_read(arg_node, from_conversation, before)
            if hit is None:
                continue
            path, chain = hit
            if any(id(node) in carried for node in chain[1:]) or any(self._tests_a_role(node) for node in chain):
                continue  # taken out of the conversation sent: the same system part every request
            if any(inside(path, h) for h in history):
                what = f"{path} (the conversation this request carries on)"
            elif any(inside(path, t) for t in turn_places):
                what = f"{path} (the state, updated for each request)"
            else:
                what = f"{path} (this turn's input, which the same request sends in its messages)"
            origin = Origin(CONVERSATION, what, span_of(chain[-1]))
            self.reaches.append(Reach(origin, SinkRef(tier, label, call.lineno), None))
            reached.add(tier)
        return reached

    def _with_first_message(
        self, prefix_args: list[tuple[str, ast.AST, str]], messages: ast.AST, callee: str, frame: Frame
    ) -> list[tuple[str, ast.AST, str]]:
        """The prefix arguments of a request and, with Chat-style calls, the content of the first
        message of the list it sends (the system prompt)."""
        first = self._first_message_content(messages, frame)
        if first is None:
            return prefix_args
        role = self._first_message(messages, frame)
        label = f"the first message ({role[1] if role else 'system'}) of messages= of {callee}"
        return prefix_args + [("system", first, label)]

    def _selected_by_changed_state(
        self, call: ast.Call, prefix_args: list[tuple[str, ast.AST, str]], frame: Frame, reported: set[str]
    ) -> None:
        """A repeated request (in a loop, or carrying a conversation on) whose tools or system
        prompt keep only the entries a selection by changing state lets through: the skills not
        loaded yet (state_filters). Not for a tier already reported as rebuilt per request."""
        for tier, arg_node, label in prefix_args:
            if tier in reported:
                continue
            selection = self._selection_by_changed_state(arg_node, frame, None if frame.loops else call.lineno)
            if selection is not None:
                what = f"{selection.place} (changed by {selection.changed_by} at line {selection.changed_at})"
                origin = Origin(CONVERSATION, what, span_of(selection.site), mode=SELECTION, attr=selection.place)
                self.reaches.append(Reach(origin, SinkRef(tier, label, call.lineno), None))

    def _selection_by_changed_state(self, arg_node: ast.AST, frame: Frame, before: int | None) -> StateFilter | None:
        """A selection (``name not in self.loaded``) the prefix argument is built from, by an
        attribute of the instance or a global that a function changes between requests
        (state_filters)."""
        function = self.summary_nodes.get(id(frame.summary)) if frame.summary is not None else None
        methods: dict[str, ast.AST] = dict(frame.cls.methods) if frame.cls is not None else {}
        attributes: dict[str, tuple[str, int]] = {}
        if frame.cls is not None:
            cached = self.changed_attributes_cache.get(id(frame.cls))
            if cached is None:
                cached = self.changed_attributes_cache[id(frame.cls)] = changed_attributes(
                    methods, self.k.mutating_methods
                )
            attributes = cached
        if self.changed_globals_cache is None:
            self.changed_globals_cache = changed_globals(self.tree, self.module_funcs, self.k.mutating_methods)
        if not attributes and not self.changed_globals_cache:
            return None
        search = StateFilterSearch(
            methods, self.module_funcs, attributes, self.changed_globals_cache, self._deps_of_function
        )
        return search.find(arg_node, function, frame.self_name if frame.cls is not None else None, before)

    def _deps_of_function(self, function: ast.AST) -> LocalDeps:
        """The bindings of the names of ``function`` (or of the module), read once."""
        deps = self.local_deps_cache.get(id(function))
        if deps is None:
            deps = self.local_deps_cache[id(function)] = LocalDeps(function, self.k.adding_methods, self._is_request)
        return deps

    def _turn_places(self, frame: Frame) -> set[str]:
        """In a function a framework calls for each step (a graph node), the state keys that change
        from step to step, as places: ``state['notes']``."""
        node = self.summary_nodes.get(id(frame.summary)) if frame.summary is not None else None
        places = self.turn_places.get(id(node)) if node is not None else None
        return set(places) if places else set()

    def _tests_a_role(self, node: ast.AST) -> bool:
        """``m["role"] == "system"``: the expression picks messages by their role."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Compare):
                for operand in [sub.left, *sub.comparators]:
                    if isinstance(operand, ast.Constant) and operand.value in self.k.first_message_roles:
                        return True
        return False

    def _is_role_message(self, element: ast.AST, frame: Frame) -> bool:
        """A message display with a role (``{"role": "system", ...}``), written in place or bound
        to a name first (``system = {...}; [system, *history]``)."""
        if isinstance(element, (ast.Name, ast.Attribute)):
            resolved = self._structure(element, frame)
            element = resolved if resolved is not None else element
        return id(element) in self.role_contents

    def _first_message_content(self, messages: ast.AST, frame: Frame) -> ast.AST | None:
        """The node of the content of the first message of a messages argument built here
        (``[{"role": "system", "content": ...}, *history]``, ``[SystemMessage(text)] + history``)."""
        target = self._structure(messages, frame) if isinstance(messages, (ast.Name, ast.Attribute)) else messages
        element = first_element(target) if target is not None else None
        if isinstance(element, (ast.Name, ast.Attribute)):
            element = self._structure(element, frame)
        if element is None or id(element) not in self.role_contents:
            return None
        if isinstance(element, ast.Dict):
            for key, value in zip(element.keys, element.values):
                if isinstance(key, ast.Constant) and key.value == "content":
                    return value
            return None
        if isinstance(element, ast.Call):
            for kw in element.keywords:
                if kw.arg == "content":
                    return kw.value
            return element.args[0] if element.args else None
        if isinstance(element, ast.Tuple) and len(element.elts) == 2:
            return element.elts[1]
        return None

    def _uncached_prefix(
        self,
        call: ast.Call,
        callee: str,
        explicit: tuple[str, str],
        prefix_args: list[tuple[str, ast.AST, str]],
        messages: ast.AST | None,
        frame: Frame,
    ) -> None:
        """A request to a provider that caches only at a marker (``cache_control``), made more than
        once (in a function or a loop), whose tools and system are static text of a known length
        and where no marker is in view: every request reads that text at the full input price
        (CL107 weighs it against the model's minimum cacheable length). In a loop that sends the
        same first user message every time, the static prefix goes on into that message's leading
        static text (the prompt renders tools, system, then messages)."""
        marker, provider = explicit
        if any(kw.arg == marker for kw in call.keywords) or any(kw.arg is None for kw in call.keywords):
            return  # the request's own marker, or arguments out of view (**options)
        if self._marker_written is None:
            self._marker_written = {}
        written = self._marker_written.get(marker)
        if written is None:
            written = self._marker_written[marker] = _mentions(self.tree, marker)
        if written:
            return  # markers set somewhere in the module: by a display, a helper, a key written
        chars = 0
        site: Span | None = None
        label = ""
        for tier, arg_node, arg_label in prefix_args:
            length = (
                self._static_length(arg_node, frame, 0)
                if tier == "system"
                else _literal_length(
                    self._structure(arg_node, frame) if isinstance(arg_node, (ast.Name, ast.Attribute)) else arg_node
                )
            )
            if length is None:
                return  # part of the prefix is not static: whether it could be cached is out of view
            chars += length
            if tier == "system" or site is None:
                site, label = span_of(arg_node), arg_label
        first_message = (
            self._static_first_message(call, messages, f"messages= of {callee}", frame)
            if messages is not None
            else None
        )
        if site is None and first_message is not None:
            site, label = first_message.request, first_message.label  # neither tools nor system sent
        if site is None or not (chars or first_message):
            return
        model_node = next((kw.value for kw in call.keywords if kw.arg == "model"), None)
        model = self._structure(model_node, frame) if isinstance(model_node, (ast.Name, ast.Attribute)) else model_node
        name = model.value if isinstance(model, ast.Constant) and isinstance(model.value, str) else None
        once = frame is self.module_frame and not frame.loops  # one request per process (a script)
        self.uncached.append(
            UncachedPrefix(site, label, call.lineno, chars, name, marker, provider, once, first_message)
        )

    def _static_first_message(
        self, call: ast.Call, messages: ast.AST, label: str, frame: Frame
    ) -> StaticFirstMessage | None:
        """The first user message of a request the innermost loop around it repeats, where every
        request of that loop sends it alike: the list sent (a name) is a display built before the
        loop whose first item is a user message, and neither the loop nor a function the scope
        defines does more with the list than add to its end, read it and send it (one that
        rewrites the first message changes the prefix between requests: CL104's matter, not a
        prefix to cache). Read as far as its text is static; None where nothing of it is."""
        if not frame.loops or not isinstance(messages, ast.Name):
            return None
        loop = frame.loops[-1].node
        display = self._structure(messages, frame)
        if not isinstance(display, ast.List) or not display.elts or _within(span_of(display), span_of(loop)):
            return None  # a list built in the loop: each pass starts its own
        first = display.elts[0]
        message = self._structure(first, frame) if isinstance(first, ast.Name) else first
        entries = self.dict_entries.get(id(message)) if message is not None else None
        role = entries.get("role") if entries is not None else None
        if role is None or not (isinstance(role[1], ast.Constant) and role[1].value == "user"):
            return None
        text = self._message_text(message, frame)
        if text is None:
            return None
        content = entries["content"][1] if entries is not None and "content" in entries else None
        # the list, and its first message and a list of content blocks where a name holds them: what
        # could be written into (the text itself, a str, can only be bound again)
        held = {messages.id} | {n.id for n in (first, content) if isinstance(n, ast.Name) and n is not text}
        if not all(only_grown_in(loop, name, self._reads_only) for name in sorted(held)):
            return None
        if isinstance(text, ast.Name) and any(
            isinstance(n, ast.Name) and n.id == text.id and not isinstance(n.ctx, ast.Load) for n in ast.walk(loop)
        ):
            return None  # the text's name bound again in the loop: what the message holds is not read here
        # a function the scope defines may be called in the loop and write the list it shares
        scope = self.summary_nodes.get(id(frame.summary), self.tree) if frame.summary is not None else self.tree
        for function in ast.walk(scope):
            if (
                isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                and function is not scope
                and not binds_own(function, messages.id)
                and not only_grown_in(function, messages.id, self._reads_only)
            ):
                return None
        leading, _whole = self._leading_static_text(text, frame, 0)
        if not leading.strip():
            return None
        return StaticFirstMessage(len(leading), span_of(text)[0], span_of(call), label)

    def _reads_only(self, call: ast.Call) -> bool:
        """A call that reads a message list given to it without changing it: a request, a token
        count, a display, ``len`` and the like."""
        path = self.callee_path(call.func)
        return (
            path in _READING_CALLS
            or self._is_request(call)
            or self.k.token_counters.match(path) is not None
            or self.k.display_calls.match(path) is not None
        )

    def _leading_static_text(self, node: ast.AST | None, frame: Frame, depth: int) -> tuple[str, bool]:
        """The text a text expression starts with that is the same on every evaluation, and whether
        that is all of it: literals and constants up to the first part made per evaluation (an
        f-string's field, a value joined with ``+`` or ``%``, a placeholder that ``.replace`` or
        ``.format`` fills with a value). ("", False) where it starts with such a part."""
        unknown = ("", False)
        if node is None or depth > 8:
            return unknown
        if isinstance(node, (ast.Name, ast.Attribute)):
            bound = self._structure(node, frame)
            text, whole = self._leading_static_text(bound, frame, depth + 1) if bound is not None else unknown
            # as in _static_length: a name whose value carries an origin is bound to more than text
            return unknown if whole and self.eval(node, frame) else (text, whole)
        if isinstance(node, ast.Constant):
            return (node.value, True) if isinstance(node.value, str) else unknown
        if isinstance(node, ast.JoinedStr):
            text = ""
            for v in node.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    text += v.value
                    continue
                if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None:
                    part, whole = self._leading_static_text(v.value, frame, depth + 1)
                    text += part
                    if whole:
                        continue
                return text, False
            return text, True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, whole = self._leading_static_text(node.left, frame, depth + 1)
            if not whole:
                return left, False
            right, whole = self._leading_static_text(node.right, frame, depth + 1)
            return left + right, whole
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            repeated, times = (
                (node.left, node.right) if isinstance(node.right, ast.Constant) else (node.right, node.left)
            )
            part, whole = self._leading_static_text(repeated, frame, depth + 1)
            if whole and isinstance(times, ast.Constant) and type(times.value) is int:
                return part * max(times.value, 0), True
            return unknown
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            template, _whole = self._leading_static_text(node.left, frame, depth + 1)
            cut = template.replace("%%", "\0\0").find("%")  # the first field ("%%" is a literal %)
            return (template, False) if cut < 0 else (template[:cut], False)
        if (
            isinstance(node, ast.Call)
            and self.callee_path(node.func) == ("textwrap", "dedent")
            and len(node.args) == 1
            and not node.keywords
        ):
            text, whole = self._leading_static_text(node.args[0], frame, depth + 1)
            return textwrap.dedent(text), whole
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self._leading_static_call(node, node.func.attr, node.func.value, frame, depth)
        return unknown

    def _leading_static_call(
        self, node: ast.Call, method: str, base: ast.AST, frame: Frame, depth: int
    ) -> tuple[str, bool]:
        """``_leading_static_text`` of a str method's result: ``.replace``, ``.format``, the strips
        and ``.join``."""
        unknown = ("", False)
        if method == "replace" and len(node.args) == 2 and not node.keywords:
            old = node.args[0]
            if not (isinstance(old, ast.Constant) and isinstance(old.value, str) and old.value):
                return unknown
            text, whole = self._leading_static_text(base, frame, depth + 1)
            new, new_whole = self._leading_static_text(node.args[1], frame, depth + 1)
            if new_whole:
                return text.replace(old.value, new), whole
            cut = text.find(old.value)  # filled with a value from here on
            return (text, whole) if cut < 0 else (text[:cut], False)
        if method == "format":
            text, whole = self._leading_static_text(base, frame, depth + 1)
            out = ""
            try:
                for literal, field, _spec, _conversion in string.Formatter().parse(text):
                    out += literal
                    if field is not None:
                        return out, False  # what fills the field is not read
            except ValueError:  # cut inside a field: the text up to it
                return text[: max(text.find("{"), 0)], False
            return out, whole
        if method in ("strip", "lstrip", "rstrip") and not node.args:
            text, whole = self._leading_static_text(base, frame, depth + 1)
            if method != "rstrip":
                text = text.lstrip()
            return (text.rstrip(), True) if whole and method != "lstrip" else (text, whole)
        if method == "join" and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
            sep, sep_whole = self._leading_static_text(base, frame, depth + 1)
            if not sep_whole:
                return unknown
            out = ""
            for i, element in enumerate(node.args[0].elts):
                part, whole = self._leading_static_text(element, frame, depth + 1)
                out += (sep if i else "") + part
                if not whole:
                    return out, False
            return out, True
        return unknown

    def _static_length(self, node: ast.AST | None, frame: Frame, depth: int) -> int | None:
        """Characters of a text that is the same on every request (``_leading_static_text``, when
        that is all of it), or of a list of text blocks of such texts; None otherwise."""
        if node is None or depth > 8:
            return None
        if isinstance(node, (ast.Name, ast.Attribute)):
            bound = self._structure(node, frame)
            if isinstance(bound, (ast.List, ast.Tuple)):
                return self._static_length(bound, frame, depth + 1) if not self.eval(node, frame) else None
        if isinstance(node, (ast.List, ast.Tuple)):  # system=[{"type": "text", "text": ...}, ...]
            total = 0
            for block in node.elts:
                entries = self.dict_entries.get(id(block))
                # Anthropic's text blocks carry "text"; Bedrock Converse's are {"text": ...} too
                entry = entries.get("text") if entries is not None else None
                length = self._static_length(entry[1], frame, depth + 1) if entry is not None else None
                if length is None:
                    return None
                total += length
            return total
        text, whole = self._leading_static_text(node, frame, depth)
        return len(text) if whole else None

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
        keys: tuple[tuple[str, str], ...] = (),
        renewed: str | None = None,
    ) -> None:
        if tier in PREFIX_TIERS:
            elements = value.elements  # what the argument holds (what it is, re-read below, may be less certain)
            # instructions=fn / lambda ctx: ...: the SDK calls it for every request. A function
            # given as the tools (tools=get_weather) is a tool: what it returns is a tool result,
            # in the messages, not part of the tool definitions.
            produced = self._callable_result(arg_node, frame) if tier == "system" else None
            if produced is not None:
                value = union(value, produced)
                renewed = None  # made anew for each request, whatever the agent's life
            sink = SinkRef(tier, label, line, configures=configures, tool_key=tool_key, renewed=renewed)
            if isinstance(arg_node, (ast.Name, ast.Attribute)):
                self._text_depth += 1
                try:
                    value = union(value, self.eval(arg_node, frame))
                finally:
                    self._text_depth -= 1
            elif tier == "tools" and isinstance(arg_node, (ast.List, ast.Tuple)):
                value = self._tool_objects_value(arg_node, frame, value)
            self._reach(value, sink, arg_node, frame, elements)
            for used in self._paths_in(arg_node, frame):
                self._use(used, sink, frame)
            for used in sorted(self._called_reads(arg_node, frame)):
                self._use(used, sink, frame)  # system=render(), render() joining a global
        elif tier == "setting":
            if not configures:  # an agent built with other settings per iteration is a new agent
                sink = SinkRef("setting", label, line)
                for used in self._paths_in(arg_node):
                    self._use(used, sink, frame)
        elif tier == "messages":
            for used in _history_paths(arg_node):
                for loop in frame.loops:
                    loop.history[used] = None
                if frame.loops and frame.summary is not None and path_root(used) in frame.params:
                    frame.summary.grows.add(path_root(used))  # a conversation carried on in a loop
            for i, (content, role) in enumerate(self._leading_system_messages(arg_node, frame)):
                # the system messages a list starts with, in order: all of them come before the
                # conversation (``messages = []``, then ``messages.append({"role": "system", ...})``)
                where = f"the first {role} message" if i == 0 else f"a {role} message ahead of the conversation"
                sink = SinkRef("system", f"{where} in {label}", line)
                self._reach(content, sink, None, frame)
            if frame.loops or frame.summary is not None:
                self._first_message_uses(arg_node, label, line, frame)
        elif tier == "body":
            for key, tier_of_key in sorted(self.k.body_keys.items()):
                entry = self._dict_entry(arg_node, key, frame)
                if entry is None:
                    continue
                entry_value, entry_node = entry
                self._sink_argument(
                    tier_of_key,
                    entry_value,
                    entry_node,
                    f'"{key}" in {label}',
                    line,
                    frame,
                    configures,
                    tool_key,
                    renewed=renewed,
                )
        elif tier == "specs":
            # subagents=[{"name": ..., "system_prompt": ..., "tools": [...]}]: each spec is an
            # agent of its own, whose keys render its prefix
            specs = self._structure(arg_node, frame) if isinstance(arg_node, (ast.Name, ast.Attribute)) else arg_node
            if not isinstance(specs, (ast.List, ast.Tuple)):
                return
            for spec in specs.elts:
                if isinstance(spec, ast.Starred):
                    continue
                for key, tier_of_key in keys:
                    entry = self._dict_entry(spec, key, frame)
                    if entry is not None:
                        entry_value, entry_node = entry
                        self._sink_argument(
                            tier_of_key,
                            entry_value,
                            entry_node,
                            f'"{key}" of an agent spec in {label}',
                            line,
                            frame,
                            configures,
                            tool_key,
                            renewed=renewed,
                        )

    def _state_template(self, node: ast.Call, arg_node: ast.AST, label: str, sink: Sink, frame: Frame) -> None:
        """``instruction="Time: {_time}"`` with ``before_agent_callback=stamp``, where ``stamp``
        writes ``context.state["_time"]``: what it writes is in the instruction."""
        template = self._structure(arg_node, frame) if isinstance(arg_node, (ast.Name, ast.Attribute)) else arg_node
        if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
            return
        keys = set(_STATE_PLACEHOLDER.findall(template.value))
        if not keys:
            return
        callbacks = dict(sink.state_callbacks)
        for kw in node.keywords:
            if kw.arg not in callbacks or not isinstance(kw.value, ast.Name):
                continue
            summary = self._local_function(kw.value, frame)
            if summary is None or not summary.done:
                continue
            for key in sorted(keys & summary.state_writes.keys()):
                ref = SinkRef(
                    "system",
                    f"{label} through {{{key}}} (state[{key!r}], written by {kw.value.id}, {kw.arg}=)",
                    node.lineno,
                    configures=sink.configures,
                    renewed=callbacks[kw.arg] if callbacks[kw.arg] != "request" else None,
                )
                self._reach(summary.state_writes[key], ref, None, frame)

    def settle_first_messages(self, summary: Summary | None, scope: ast.AST) -> None:
        """The message lists built in ``scope`` (a function, or the module) that start with a system
        message, now that where each goes can be read: one only given to token counters is never
        sent; one returned, or given to a function that carries on a conversation with it (adds to
        it or sends it in a loop), starts a conversation, made once for it; any other is sent."""
        self._settle_named_prompts(summary, scope)
        pending = self.first_message_lists.pop(id(summary) if summary is not None else None, ())
        parents = scope_parents(scope) if pending else None
        for display, value, role, frame in pending:
            uses = list_uses(scope, display, parents)
            if uses and all(self._never_cached(use, frame, 0) for use in uses):
                continue  # a token count (what the list would cost), or a local model: no prompt cache
            label = f"the {role} message that starts the message list"
            plain = SinkRef("system", label, display.lineno)
            per_conversation = SinkRef("system", label, display.lineno, renewed="conversation")
            if any(self._carried_on(use, frame) for use in uses or ()):
                self._reach(value, per_conversation, None, frame)
            elif any(use.kind == "returned" for use in uses or ()) and built_when_empty(scope, display, frame.params):
                # the first messages of a conversation the caller had none of: what this function
                # makes is made once for that conversation; what a parameter brings, the caller
                # makes, as often as it calls
                self._reach(_params_only(value, True), plain, None, frame)
                self._reach(_params_only(value, False), per_conversation, None, frame)
            else:
                self._reach(value, plain, None, frame)

    def _callee_definition(self, use: ListUse, frame: Frame) -> tuple[ast.AST, str] | None:
        """The function of the module a list is given to, and the parameter that receives it."""
        if use.kind != "call" or use.call is None:
            return None
        definition = self._local_function_def(use.call.func, frame)
        if definition is None:
            return None
        owner = self.func_class.get(id(definition))
        is_method = owner is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod"
            for d in definition.decorator_list  # type: ignore[attr-defined]
        )
        param = argument_param(definition, use, is_method)
        return (definition, param) if param is not None else None

    def _never_cached(self, use: ListUse, frame: Frame, depth: int, shows: bool = False) -> bool:
        """The value is given to a token counter or to a local model's chat template (no request
        to a provider's prompt cache), or (``shows``) printed or logged, or to a function of the
        module that only does that with the parameter receiving it."""
        if use.kind != "call" or use.call is None:
            return False
        path = self.callee_path(use.call.func)
        if self.k.token_counters.match(path) is not None or self.k.local_models.match(path) is not None:
            return True
        if shows and self.k.display_calls.match(path) is not None:
            return True
        found = self._callee_definition(use, frame) if depth < 2 else None
        if found is None:
            return False
        definition, param = found
        inner = name_uses(definition, param)
        return bool(inner) and all(self._never_cached(u, frame, depth + 1, shows) for u in inner or ())

    def _carried_on(self, use: ListUse, frame: Frame) -> bool:
        found = self._callee_definition(use, frame)
        if found is None:
            return False
        definition, param = found
        return param in self.summary_of(definition).grows

    def _tool_objects_value(self, node: ast.List | ast.Tuple, frame: Frame, value: Value) -> Value:
        """``tools=[SearchTools(since=today), helper]``: what a display of tools carries as tool
        definitions, where it holds objects of classes the analysis does not know (see
        ``tool_objects``); ``value`` (all the display carries) unless every element is one of those
        or a name."""
        if not any(id(e) in self.tool_objects for e in node.elts):
            return value
        parts = []
        for e in node.elts:
            inner = e.value if isinstance(e, ast.Starred) else e
            if id(inner) in self.tool_objects:
                parts.append(self.tool_objects[id(inner)])
            elif isinstance(inner, (ast.Name, ast.Attribute)):
                parts.append(self.eval(inner, frame))
            else:
                return value
        return union(*parts)

    def _first_message_uses(self, arg_node: ast.AST, label: str, line: int, frame: Frame) -> None:
        """The messages sent start with the system prompt (Chat-style APIs): a change of their
        first message inside the loop that repeats the call is a change of the system prompt."""
        first = self._first_message(arg_node, frame)
        if first is not None:
            sink = SinkRef("system", f"the first message ({first[1]}) of {label}", line)
        else:
            sink = SinkRef("system", f"the first message of {label}", line, first_message=True)
        path = path_of(arg_node)
        if path is not None:
            self._use(path + FIRST, sink, frame)  # messages[0] = ..., messages[0]["content"] = ...
        first_node = first_element(arg_node)
        if first_node is not None and self._may_be_system_message(first_node, frame):
            # [system, *rest] built at the call: what the first message is built from
            for used in self._paths_in(first_node, frame):
                self._use(used, sink, frame)
            for used in sorted(self._called_reads(first_node, frame)):
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

    def _messages_prefix(
        self, call: ast.Call, messages_node: ast.AST, label: str, has_system: bool, frame: Frame
    ) -> None:
        """What of the messages is cached prefix, for the clocks and ids built into them:

        - the blocks up to a ``cache_control`` breakpoint (on a content block or a message, or the
          request's own ``cache_control=``, which marks the last block: Anthropic's automatic
          caching): the breakpoint's entry is keyed on every byte up to it, so a value made for
          this request ahead of it means the entry is written and never read. The block that
          carries the breakpoint counts only in a message list built whole for this request (no
          history): in a conversation, the newest message's entry is read by the next turn;
        - without a system prompt, the first message: the prompt starts there, so a value ahead
          of the static text that follows it keeps that text from ever being read from the cache
          (a one-shot prompt: "Today is <date>. <long instructions>")."""
        sequence = self._message_sequence(messages_node, frame)
        if not sequence and _is_text_expr(self._structure(messages_node, frame)):
            sequence = [messages_node]  # input="..." (the Responses API): one user message
        if not sequence:
            return
        whole = None not in sequence
        blocks = self._message_blocks(sequence, frame)
        if any(kw.arg == "cache_control" for kw in call.keywords) and blocks and blocks[-1] is not None:
            value, node, _marked = blocks[-1]
            blocks[-1] = (value, node, True)  # automatic caching: the last cacheable block
        first_mark = next((i for i, b in enumerate(blocks) if b is not None and b[2]), None)
        if first_mark is not None:
            mark_line = blocks[first_mark][1].lineno  # type: ignore[index, union-attr]
            sink = SinkRef(
                CACHED, f"the messages up to the cache_control breakpoint (line {mark_line}) of {label}", call.lineno
            )
            for i in range(first_mark + 1 if whole else first_mark):
                block = blocks[i]
                if block is not None:
                    self._reach(_volatile_only(block[0]), sink, None, frame)
        if has_system or self._leading_system_messages(messages_node, frame):
            return
        first = sequence[0]
        content = self._message_text(first, frame)
        if content is None:
            return
        followed = len(sequence) > 1
        ahead = self._volatile_ahead_of_text(content, frame, followed)
        if ahead:
            sink = SinkRef(
                OPENING, f"the first message of {label} (no system prompt: the prompt starts there)", call.lineno
            )
            self._reach(Value(frozenset(ahead), EMPTY), sink, None, frame)

    def _message_text(self, item: ast.AST | None, frame: Frame) -> ast.AST | None:
        """The text node of a message (its ``content`` as a string, or its first text block), or
        the item itself when it is text (``input="..."``)."""
        if item is None:
            return None
        target = self._structure(item, frame) if isinstance(item, (ast.Name, ast.Attribute)) else item
        if target is None:
            return None
        entries = self.dict_entries.get(id(target))
        if entries is None:
            return target if _is_text_expr(target) else None
        content = entries.get("content")
        if content is None:
            return None
        node = content[1]
        inner = self._structure(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else node
        if isinstance(inner, (ast.List, ast.Tuple)):
            for block in inner.elts:
                text = self.dict_entries.get(id(block), {}).get("text")
                if text is not None:
                    return text[1]
            return None
        return node

    def _message_blocks(self, sequence: list[ast.AST | None], frame: Frame) -> list[tuple[Value, ast.AST, bool] | None]:
        """The content blocks of the messages, in order: (what the block carries, the node that
        marks it, whether it carries a ``cache_control`` breakpoint); None where not known."""
        out: list[tuple[Value, ast.AST, bool] | None] = []
        for item in sequence:
            target = self._structure(item, frame) if isinstance(item, (ast.Name, ast.Attribute)) else item
            entries = self.dict_entries.get(id(target)) if target is not None else None
            if target is None or entries is None or "content" not in entries:
                out.append(None)
                continue
            value, node = entries["content"]
            marked = "cache_control" in entries
            inner = self._structure(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else node
            if isinstance(inner, (ast.List, ast.Tuple)) and inner.elts:
                for block in inner.elts:
                    block_entries = self.dict_entries.get(id(block))
                    if block_entries is None:
                        out.append(None)
                        continue
                    text = block_entries.get("text")
                    block_value = text[0] if text is not None else CLEAN
                    out.append((block_value, block, "cache_control" in block_entries))
                last = out[-1] if out else None
                if marked and last is not None:
                    out[-1] = (last[0], target, True)
            else:
                out.append((value, target, marked))
        return out

    def _volatile_ahead_of_text(self, node: ast.AST, frame: Frame, followed: bool) -> set[Origin]:
        """The volatile origins of a text expression that static text comes after (in the same
        text, or, with ``followed``, in the messages after it): what they make differ keeps that
        text from being read from the cache. Parts are read in order: the literal text and values
        of an f-string, the operands of ``+``, a constant template's ``.format()`` or ``%``
        fields; a name is followed to the text it was bound to. Static text is a named constant
        (``INSTRUCTIONS``), whatever its length, or literal text long enough to be instructions
        rather than a label (``"Question:"``)."""
        ahead: set[Origin] = set()
        pending: set[Origin] = set()
        literal_after = 0
        for part, kind in self._text_parts(node, frame, 0, False):
            if kind != _VALUE:
                if pending:
                    literal_after += len(part)
                    if kind == _NAMED or literal_after >= _STATIC_TEXT_WORTH_CACHING:
                        ahead |= pending
                        pending = set()
                        literal_after = 0
                continue
            self._text_depth += 1  # formatted into text: a name such as request_id says what it holds
            try:
                value = self.eval(part, frame)
            finally:
                self._text_depth -= 1
            volatile = {o for o in value.own | value.inner if o.kind == VOLATILE}
            if volatile:
                pending |= volatile
        if followed:
            ahead |= pending
        return ahead

    def _text_parts(self, node: ast.AST, frame: Frame, depth: int, named: bool) -> list[tuple[Any, str]]:
        """The parts of a text expression, in order: (literal text, _LITERAL or _NAMED: read
        through a name) and (expression, _VALUE)."""
        literal = _NAMED if named else _LITERAL
        if depth > 8:
            return [(node, _VALUE)]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [(node.value.strip(), literal)]
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mult)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
        ):
            return [(node.left.value.strip(), literal)]  # "rule " * 30
        if isinstance(node, ast.JoinedStr):
            out: list[tuple[Any, str]] = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    out.extend(self._text_parts(v.value, frame, depth + 1, named))
                elif isinstance(v, ast.Constant) and isinstance(v.value, str):
                    out.append((v.value.strip(), literal))
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._text_parts(node.left, frame, depth + 1, named) + self._text_parts(
                node.right, frame, depth + 1, named
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
            template = node.left.value
            args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            if isinstance(template, str) and "%(" not in template:
                pieces = _PERCENT_FIELD.split(template.replace("%%", ""))
                if len(pieces) == len(args) + 1:
                    out = [(pieces[0].strip(), literal)]
                    for arg, piece in zip(args, pieces[1:]):
                        out += self._text_parts(arg, frame, depth + 1, named) + [(piece.strip(), literal)]
                    return out
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
        ):
            return self._format_parts(node, node.func.value.value, frame, depth, named)
        if isinstance(node, (ast.Name, ast.Attribute)):
            bound = self._structure(node, frame)
            if _is_text_expr(bound) or (
                isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Mult) and _is_text_expr(bound.left)
            ):
                return self._text_parts(bound, frame, depth + 1, True)  # type: ignore[arg-type]
            if bound is None and not self.eval(node, frame):
                return [(ast.unparse(node), _NAMED)]  # a constant defined out of view (STATIC_RULES)
        return [(node, _VALUE)]

    def _format_parts(
        self, node: ast.Call, template: str, frame: Frame, depth: int, named: bool
    ) -> list[tuple[Any, str]]:
        """``"Time: {}\\n{}".format(now, RULES)``: the template's literal text and the arguments its
        fields name, in the template's order (automatic, numbered or named fields)."""
        try:
            fields = list(string.Formatter().parse(template))
        except ValueError:
            return [(node, _VALUE)]
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        out: list[tuple[Any, str]] = []
        auto = 0
        for text, name, _spec, _conversion in fields:
            out.append((text.strip(), _NAMED if named else _LITERAL))
            if name is None:
                continue
            key = re.split(r"[.\[]", name, maxsplit=1)[0]
            index: int | str
            if key == "":
                index = auto
                auto += 1
            else:
                index = int(key) if key.isdigit() else key
            arg = (
                (node.args[index] if index < len(node.args) else None)
                if isinstance(index, int)
                else keywords.get(index)
            )
            if arg is None or isinstance(arg, ast.Starred):
                return [(node, _VALUE)]
            out.extend(self._text_parts(arg, frame, depth + 1, named))
        return out

    def _message_sequence(self, node: ast.AST, frame: Frame) -> list[ast.AST | None]:
        """The messages of a list sent, in order, as far as they are known: the display that built
        it (``[first] + rest``: the first display's), then what was added to it since (None: a
        message whose place is not certain)."""
        target = self._structure(node, frame)
        rest: list[ast.AST | None] = []
        while isinstance(target, ast.BinOp) and isinstance(target.op, ast.Add):
            rest = [None]
            target = (
                self._structure(target.left, frame)
                if not isinstance(target.left, (ast.List, ast.Tuple))
                else target.left
            )
        if not isinstance(target, (ast.List, ast.Tuple)):
            return []
        items: list[ast.AST | None] = [None if isinstance(e, ast.Starred) else e for e in target.elts]
        return items + self.added_items.get(id(target), []) + rest

    def _leading_system_messages(self, node: ast.AST, frame: Frame) -> list[tuple[Value, str]]:
        """(content, role) of the system messages a list sent starts with (Chat-style APIs render
        them before the first message of another role)."""
        out: list[tuple[Value, str]] = []
        for item in self._message_sequence(node, frame):
            if isinstance(item, (ast.Name, ast.Attribute)):
                item = self._structure(item, frame)
            found = self.role_contents.get(id(item)) if item is not None else None
            if found is None:
                break
            out.append(found)
        return out

    def _note_added_messages(self, target: ast.AST, items: list[ast.AST] | None, frame: Frame) -> None:
        """``target.append(item)``, ``target.extend([...])``, ``target += [...]`` of a list built from
        a display: what was added, in order; an addition in a loop or under a condition (how many
        times, or whether, it is made is not certain), or of what is not a display, as None."""
        display = self._structure(target, frame)
        if not isinstance(display, ast.List):
            return
        added = self.added_items.setdefault(id(display), [])
        if items is None or frame.loops or self._branch_path:
            added.append(None)
        else:
            added.extend(items)

    def _first_message(self, node: ast.AST, frame: Frame) -> tuple[Value, str] | None:
        target = self._structure(node, frame)
        while isinstance(target, ast.BinOp) and isinstance(target.op, ast.Add):
            target = (
                self._structure(target.left, frame)
                if not isinstance(target.left, (ast.List, ast.Tuple))
                else target.left
            )
        if not isinstance(target, (ast.List, ast.Tuple)) or not target.elts:
            return None
        first: ast.AST | None = target.elts[0]
        if isinstance(first, (ast.Name, ast.Attribute)):
            first = self._structure(first, frame)
        if first is not None:
            return self.role_contents.get(id(first))
        return None

    def _paths_in(self, node: ast.AST, frame: Frame | None = None) -> list[str]:
        """The places a sink argument reads (``tools``, ``self.tools``, ``state.system``). With
        ``frame``, a method of the class of ``self`` called in it (``self.render()``) does not read
        all of ``self``: what it reads is what its result is built from (``_called_reads``)."""
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
                if isinstance(sub.func, ast.Attribute) and not (
                    frame is not None and self._own_method(sub.func, frame)
                ):
                    stack.append(sub.func.value)
                continue
            stack.extend(ast.iter_child_nodes(sub))
        return out

    @staticmethod
    def _own_method(func: ast.Attribute, frame: Frame) -> bool:
        """``self.name`` is a method the class of ``self`` defines."""
        own = frame.attribute_of_self(func)
        return own is not None and own[1] in own[0].methods

    def _use(self, path: str, sink: SinkRef, frame: Frame, line: int | None = None) -> None:
        """``line``: the call made here that makes the use, when the sink is in a function it
        calls (else the sink's own line)."""
        final = self._final_loops
        for loop in frame.loops:
            if not final.get(id(loop)):
                add_use(loop.uses, (path, sink), (self._branch_path, sink.line if line is None else line))
        summary = frame.summary
        if summary is not None:
            root = path_root(path)
            if (
                root in frame.params
                or root == frame.self_name
                or frame.lookup(root) is None
                or root in self.module_frame.names
            ):
                if root == frame.self_name and root is not None:
                    path = "self" + path[len(root) :]
                summary.uses[(path, sink)] = None

    def _named_system_prompt(
        self, name: str, value: Value, node: ast.AST, frame: Frame, expr: ast.AST | None = None
    ) -> None:
        """``value`` (of ``expr``, else of ``node``) is bound to ``name`` (a variable, attribute,
        keyword or the function that returns it): if the name says it holds the system prompt,
        its clocks and uuids are in one. Only what this module computes, or text another module's function returns, called in the
        bound expression of a module-level binding (``PROMPT = f"Time: {get_time()}"``, made once
        per process whatever that function does): not a per-user name (a name in a name: too
        weak), not a parameter (what a caller passes in is not followed through a name), not
        anything else another module gives (carried coarsely, a run id in a model call's result
        reaches whatever is built from it; a constant is bound, and reported, where that module
        computes it)."""
        if not value or not self.k.names_system_prompt(name):
            return
        line = node.lineno  # type: ignore[attr-defined]
        sink = SinkRef(NAMED_SYSTEM, f"{name} (a system prompt, by its name)", line)
        text_calls: set[Span] | None = None
        bound = expr if expr is not None else node
        # Text built here (an f-string, +, %, .format, .join) holds what it formats; any other
        # expression (a name, an object, a call) only what it makes itself: an id carried through
        # objects and calls (a hook's input, a session's folder) is no evidence of prompt text.
        builds_text = _builds_text(bound)
        outer = span_of(bound)
        for o in value.own | value.inner:
            if o.kind != VOLATILE or o.granularity == "session":
                continue
            if not builds_text and not _within(o.site, outer):
                continue
            if o.external is not None:
                if frame is not self.module_frame:
                    continue  # whether that function computes it on each call or returns a constant is out of view
                if text_calls is None:
                    text_calls = self._text_calls(expr if expr is not None else node)
                if o.site not in text_calls:
                    continue
            reach = Reach(o, sink, None)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                # whether anything sends the name is told once the function (or module) is read
                key = id(frame.summary) if frame.summary is not None else None
                self.named_prompts.setdefault(key, []).append((reach, node, frame))
            else:
                self.reaches.append(reach)

    def _settle_named_prompts(self, summary: Summary | None, scope: ast.AST) -> None:
        """A value bound to a system prompt's name stands for a request only if something may send
        it: not a binding rebound before anything reads it, nor one only printed or given to a
        local model's chat template."""
        for reach, node, frame in self.named_prompts.pop(id(summary) if summary is not None else None, ()):
            if not self._may_be_sent(scope, node, frame):
                continue
            self.reaches.append(reach)

    def _may_be_sent(self, scope: ast.AST, target: ast.Name, frame: Frame) -> bool:
        if isinstance(scope, ast.Module):
            if rebound_before_read(scope, target):
                return False  # the module's later binding of the name is the one anything reads
            uses = None  # a module's name may be imported by another module
        else:
            uses = name_uses(scope, target.id)
            if uses is not None and not uses and target.id not in declared_global(scope):
                return False  # a local nothing reads
        if uses is None:
            return True
        return not all(self._never_cached(use, frame, 0, shows=True) for use in uses)

    def _text_calls(self, node: ast.AST) -> set[Span]:
        """The calls in ``node`` of other modules' functions that return text (a str)."""
        out: set[Span] = set()
        if self.resolve_external is None:
            return out
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                raw = self.raw_dotted(sub.func)
                found = self.resolve_external(raw) if raw is not None else None
                if found is not None and (found[1].get("returns") or {}).get("kind") == "str":
                    out.add(span_of(sub))
        return out

    def _reach(
        self, value: Value, sink: SinkRef, arg_node: ast.AST | None, frame: Frame, elements: str | None = None
    ) -> None:
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
                if summary is not None and (
                    o.what in summary.params
                    or (o.what == INSTANCE and o.attr is not None and frame.self_name is not None)
                ):
                    key = o.what if o.attr is None else f"{o.what}.{o.attr}"
                    entries = summary.param_sinks.setdefault(key, [])
                    if (sink, o.mode) not in entries:
                        entries.append((sink, o.mode))
                continue
            if o in value.own:
                self.reaches.append(Reach(o, sink, arg_span, elements if arg_span is not None else None))
            else:
                self.reaches.append(Reach(o, sink, None))
