"""Statements: assignments (and the changes they record inside loops), returns and yields into the
function's ``Summary``, branches analysed on copies and merged, ``try``/``with``/``match``,
imports, and function and class definitions."""

from __future__ import annotations

import ast
from typing import Any

from cachelint.code import pyparse
from cachelint.code.flow.calls import Calls, has_deferred_tool
from cachelint.code.flow.expressions import is_constant
from cachelint.code.flow.facts import ClassInfo, Reach, SinkRef, span_of
from cachelint.code.flow.scopes import (
    FIRST,
    Frame,
    exits_after,
    first_element,
    first_item_place,
    has_unordered,
    is_first_index,
    path_of,
    place_of,
    plain_test_reads,
)
from cachelint.code.flow.list_uses import name_uses
from cachelint.code.flow.sinks import inside
from cachelint.code.values import CLEAN, CONVERSATION, EMPTY, Origin, Value, as_element, filled, merge, union


def _irrefutable(pattern: Any) -> bool:
    """A pattern that matches any subject: a wildcard or a capture (``_``, ``name``), or an or-pattern
    with one of them (PEP 634: irrefutable patterns)."""
    if isinstance(pattern, ast.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if isinstance(pattern, ast.MatchOr):
        return any(_irrefutable(p) for p in pattern.patterns)
    return False


class Statements(Calls):
    """The handlers of the statements other than loops."""

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
                    first_node = first_element(node.value)
                    if first_node is not None and self._may_be_system_message(first_node, frame):
                        # messages = [system, *history]: a rebuilt list whose first message is new
                        self._record_change(
                            frame,
                            path + FIRST,
                            target,
                            "rebuilt with another first message",
                            first_node,
                            keyed=True,
                            strict=False,
                        )
            if value:  # a clean value names no clock and writes no state worth reading
                self._named_target(target, value, frame, node.value)
                self._state_write(target, value, frame)
            self._first_message_written(target, node.value, value, frame)
            self.bind(target, value, frame, node.value)

    def _first_message_written(self, target: ast.AST, expr: ast.AST, value: Value, frame: Frame) -> None:
        """``history[0] = {"role": "system", ...}`` or ``history[0]["content"] = system_prompt``: the
        system prompt of the conversation in ``history`` is rewritten here. What is written reaches
        it; built from that conversation itself (its length, what its tool results hold), it
        differs from one request to the next."""
        first = first_item_place(target)
        if first is None:
            return
        conversation = first[: -len(FIRST)]
        if isinstance(target, ast.Subscript) and is_first_index(target.slice):
            message = self.role_contents.get(id(expr))
            if message is None or message[1] not in self.k.first_message_roles:
                return
            written = message[0]
        elif self._names_system_prompt(expr):
            written = value
        else:
            return  # the first message may be the user's (Anthropic-style lists): no evidence
        if self._only_counted_list(conversation, frame):
            return  # a copy only given to a token counter: no request sends it
        label = f"the system message written over the first message of {conversation}"
        sink = SinkRef("system", label, target.lineno)  # type: ignore[attr-defined]
        self._reach(written, sink, None, frame)
        if frame.loops:
            return  # a change inside a loop is the loop's (CL104)
        found = self._local_deps(frame)
        if found is None:
            return
        hit = found[1].first_read(expr, lambda path: inside(path, conversation))
        if hit is not None:
            # reported at the write: it is the change (as a loop's change is, for CL104)
            path, _chain = hit
            origin = Origin(CONVERSATION, f"{path} (the conversation whose first message it rewrites)", span_of(target))
            self.reaches.append(Reach(origin, sink, None))

    def _only_counted_list(self, name: str, frame: Frame) -> bool:
        """``name`` is a local list of the function that is only given to token counters (apart
        from the writes into it)."""
        scope = self.summary_nodes.get(id(frame.summary)) if frame.summary is not None else None
        if scope is None or not name.isidentifier() or name in frame.params:
            return False
        uses = name_uses(scope, name)
        if not uses:
            return False
        sent = [use for use in uses if not (use.kind == "other" and use.call is None and use.store)]
        return bool(sent) and all(self._never_cached(use, frame, 0) for use in sent)

    def _names_system_prompt(self, expr: ast.AST) -> bool:
        """``system_prompt``, ``self.system_message``, ``build_system_prompt()``: an expression whose
        name says it is the system prompt."""
        if isinstance(expr, ast.Call):
            expr = expr.func
        name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else None
        return name is not None and self.k.names_system_prompt(name)

    def _state_write(self, target: ast.AST, value: Value, frame: Frame) -> None:
        """``context.state["key"] = value`` on a parameter: the function writes the state it is
        given (a callback), which an instruction's {key} reads."""
        summary = frame.summary
        if (
            summary is not None
            and isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
            and isinstance(target.value, ast.Attribute)
            and target.value.attr == "state"
            and isinstance(target.value.value, ast.Name)
            and target.value.value.id in frame.params
        ):
            key = target.slice.value
            old = summary.state_writes.get(key)
            summary.state_writes[key] = union(old, value) if old is not None else value

    def _named_target(self, target: ast.AST, value: Value, frame: Frame, expr: ast.AST | None) -> None:
        """``SYSTEM_PROMPT = ...``, ``self.system_message = ...``, ``config["system_prompt"] = ...``."""
        if isinstance(target, ast.Name):
            self._named_system_prompt(target.id, value, target, frame, expr)
        elif isinstance(target, ast.Attribute):
            self._named_system_prompt(target.attr, value, target, frame, expr)
        elif (
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
        ):
            self._named_system_prompt(target.slice.value, value, target, frame, expr)

    def _ann_assign(self, node: ast.AnnAssign, frame: Frame) -> None:
        value = self.eval(node.value, frame) if node.value is not None else CLEAN
        declared = self._annotation_origin(node.annotation, node.target)
        if declared is not None and not has_unordered(value):
            value = union(value, Value(frozenset([declared]), EMPTY))
        if node.value is None and declared is None:
            return
        path = path_of(node.target)
        if path is not None and node.value is not None:
            self._record_change(frame, path, node.target, "rebound", node.value)
        self._named_target(node.target, value, frame, node.value)
        self.bind(node.target, value, frame, node.value)
        if node.value is None or self._type_of(node.target, frame) is None:
            self.record_declared_type(node.target, node.annotation, frame)

    def _aug_assign(self, node: ast.AugAssign, frame: Frame) -> None:
        if isinstance(node.op, ast.Add) and isinstance(node.value, ast.List):
            self.appended_lists.add(id(node.value))
            elts = node.value.elts
            self._note_added_messages(
                node.target, None if any(isinstance(e, ast.Starred) for e in elts) else list(elts), frame
            )
        value = self.eval(node.value, frame)
        target = node.target
        path = path_of(target)
        numeric = isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float)
        stepped = numeric and isinstance(node.op, (ast.Add, ast.Sub))
        action = "incremented" if stepped else "extended" if isinstance(node.op, ast.Add) else "changed"
        if path is not None and not (action == "extended" and has_deferred_tool(node.value, frame)):
            self._record_change(frame, path, target, action, counter=numeric)
        self._named_target(target, value, frame, node)  # the statement: += adds text
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
        call = node.value
        if isinstance(call, ast.Call) and self.k.seeding_calls:
            path = self.callee_path(call.func)
            seed = call.args[0] if call.args else call.keywords[0].value if len(call.keywords) == 1 else None
            if (
                path in self.k.seeding_calls
                and seed is not None
                and not (isinstance(seed, ast.Constant) and seed.value is None)
            ):
                self.seeded.add(".".join(path))  # random.seed(42): the module's random values are reproducible
        self.eval(node.value, frame)

    def _return(self, node: ast.Return, frame: Frame) -> None:
        summary = frame.summary
        if (
            summary is not None
            and isinstance(node.value, ast.Tuple)
            and summary.tuple_ok
            and not any(isinstance(e, ast.Starred) for e in node.value.elts)
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
            if (
                summary is not None
                and node.value is not None
                and not (isinstance(node.value, ast.Constant) and node.value.value is None)
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
            if node.value is not None:
                self._named_system_prompt(
                    summary.name, value, node, frame, node.value
                )  # return of build_system_prompt()
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

    def _branches(self, frame: Frame, bodies: list[list[ast.stmt]], test: frozenset[str] | None = None) -> None:
        """Run each body on a copy of the names and merge: a may-analysis over branches. ``test``:
        the places a plain condition choosing between the bodies reads (see ``_branch_tests``)."""
        before_names = frame.names
        before_exprs = frame.exprs
        merged: dict[str, Value] = {}
        merged_exprs: dict[str, ast.AST] = dict(before_exprs)
        for body in bodies:
            frame.names = dict(before_names)
            frame.exprs = dict(before_exprs)
            self._branch_depth += 1
            self._branch_count += 1
            outside = self._branch_path
            self._branch_path = outside + (self._branch_count,)
            self._branch_tests[self._branch_count] = test
            try:
                self.block(body, frame)
            finally:
                self._branch_depth -= 1
                self._branch_path = outside
            for name, value in frame.names.items():
                old = merged.get(name)
                # most names are the same object in every body (the value from before the
                # branches): merging it with itself would only rebuild it
                if old is None:
                    merged[name] = value
                elif old is not value:
                    merged[name] = merge(old, value)
            for name, expr in frame.exprs.items():
                if before_exprs.get(name) is not expr:
                    merged_exprs[name] = expr
        frame.names = merged
        frame.exprs = merged_exprs

    def _if(self, node: ast.If, frame: Frame) -> None:
        self.eval(node.test, frame)
        self._branches(frame, [node.body, node.orelse], plain_test_reads(node.test))

    def _match(self, node: Any, frame: Frame) -> None:
        self.eval(node.subject, frame)
        # Without an irrefutable case (``case _:``, ``case name:``, unguarded: the language runs
        # it whenever no case before it matched) the match may run no case at all.
        exhaustive = any(case.guard is None and _irrefutable(case.pattern) for case in node.cases)
        # which case runs depends on the subject (and the guards) only: when they only read places,
        # the same case runs on every pass that does not change them
        tests = [plain_test_reads(node.subject)] + [
            plain_test_reads(c.guard) for c in node.cases if c.guard is not None
        ]
        test = None if any(t is None for t in tests) else frozenset().union(*tests)  # type: ignore[arg-type]
        self._branches(frame, [case.body for case in node.cases] + ([] if exhaustive else [[]]), test)

    def _try(self, node: ast.Try, frame: Frame) -> None:
        # A handler that lets the loop go on retries what failed in the body: a call followed by
        # return there is repeated when it raises (a fallback model on the next attempt).
        retried = (
            [id(loop) for loop in frame.loops]
            if any(not h.body or exits_after(h.body)[0] in (None, "continue") for h in node.handlers)
            else []
        )
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
        positional = node.args.posonlyargs + node.args.args
        if frame is self.module_frame and positional and positional[0].annotation is not None:
            provided = self.k.providers.match(self.callee_path(positional[0].annotation))
            if provided is not None:  # instruction=provider: called for the text of every request
                tier, _library = provided
                summary = self.summary_of(node)
                annotation = ast.unparse(positional[0].annotation)
                sink = SinkRef(
                    tier,
                    f"the return value of {node.name}() (a provider, called with a {annotation} for each request)",
                    node.lineno,
                )
                self._reach(summary.returns, sink, None, frame)
            turn = self.k.per_turn_annotations.match(self.callee_path(positional[0].annotation))
            if turn is not None:
                self.register_per_turn(node, turn)

    def _class(self, node: ast.ClassDef, frame: Frame) -> None:
        info = ClassInfo(node.name)
        known = self.classes.setdefault(node.name, info)
        info.dataclass, info.init_fields = self._init_fields(node)
        if known is not info:
            known.init_fields = None  # two classes of that name: which one a call builds is not known
        for base in node.bases:
            self.eval(base, frame)
            ref = self.class_ref(base.value if isinstance(base, ast.Subscript) else base)  # Generic[T]
            if ref is not None and ref != ("local", node.name):
                info.bases.append(ref)
        class_frame = Frame(frame, cls=None)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.methods[stmt.name] = stmt
                self.func_class[id(stmt)] = info
                self.func_parent[id(stmt)] = frame
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                value = self.eval(stmt.value, class_frame) if stmt.value is not None else CLEAN
                declared = self._annotation_origin(stmt.annotation, stmt.target)
                if declared is not None and not has_unordered(value):
                    value = union(value, Value(frozenset([declared]), EMPTY))
                if value:
                    info.attrs[stmt.target.id] = value
                declared_class = self.annotated_class(stmt.annotation)
                if declared_class is not None:
                    info.attr_types[stmt.target.id] = declared_class  # llm: LLM, then self.llm
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
            (
                d
                for d in node.decorator_list
                if self.callee_path(d.func if isinstance(d, ast.Call) else d)[-1] == "dataclass"
            ),
            None,
        )
        is_dataclass = decorator is not None and not named_tuple
        if not (is_dataclass or (named_tuple and decorator is None)):
            return is_dataclass, None
        if isinstance(decorator, ast.Call) and any(
            kw.arg is None
            or (kw.arg == "init" and not is_constant(kw.value, True))
            or (kw.arg == "kw_only" and not is_constant(kw.value, False))
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
                    annotation = pyparse.parse(annotation.value, mode="eval").body
                except SyntaxError:
                    return is_dataclass, None
            kind = self.callee_path(annotation.value if isinstance(annotation, ast.Subscript) else annotation)[-1]
            if kind == "ClassVar":
                continue
            if kind == "KW_ONLY":
                break  # the fields after it are keyword-only
            value = stmt.value
            if (
                isinstance(value, ast.Call)
                and self.callee_path(value.func)[-1] == "field"
                and any(
                    (kw.arg == "init" and not is_constant(kw.value, True))
                    or (kw.arg == "kw_only" and not is_constant(kw.value, False))
                    for kw in value.keywords
                )
            ):
                continue  # not a positional parameter of __init__
            if stmt.target.id not in fields:
                fields.append(stmt.target.id)
        return is_dataclass, tuple(fields)
