"""Loops: ``for`` and ``while`` are analysed once with their assignments merged into what was there
before. Statements inside a loop record the places they change (``_record_change``); when the
loop closes, the places that differ from one iteration to the next and reach a sink of a call the
loop repeats become ``LoopChange`` facts (CL103, CL104, CL106). Changes and uses carry the
if/match/try bodies around them: a setting given a fixed value under the ``if`` its call is under
is set on every pass that makes the call; under another condition it changes between calls."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Iterable

from cachelint.code.flow.facts import Change, LoopChange, LoopFrame, SinkRef, UseSite, span_of
from cachelint.code.flow.scopes import (
    FIRST,
    Frame,
    Scopes,
    covers,
    display_entry_names,
    names_in,
    path_root,
    read_paths,
    reads_any,
)
from cachelint.code.values import PARAM, UNORDERED, Value, element_of


def _varying_names(loop: "LoopFrame") -> tuple[set[str], set[str], set[str], set[str]]:
    """The places whose value may differ from one iteration of ``loop`` to the next; the places
    the loop first rebinds afresh each iteration (unconditionally, not from themselves); the
    varying places built only from the loop's own item (``for doc in docs``); and those built from
    it among other things.

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
            loop.reset_at[path] = first.site

    def reads(c: Change, path: str) -> frozenset[str]:
        names = c.rhs_names or frozenset()
        return names - {path} if path in fresh else names

    varying |= _carried_cycles(rebinds, reads)
    grew = True
    while grew:
        grew = False
        for path, changes in rebinds.items():
            if path in varying:
                continue
            if any(path in reads(c, path) or reads_any(reads(c, path), varying) for c in changes):
                varying.add(path)
                grew = True
        for c in keyed:
            if c.path not in varying and reads_any(c.rhs_names or (), varying):
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
                if path in names or any(path_root(p) not in per_item for p in reads_any(names, varying)):
                    ok = False
                    break
            if ok and loop.binds.get(path, 0) <= loop.tracked.get(path, 0):
                per_item.add(path)
                grew = True
    # built from the item, whatever else they read: ``params = {"node": node, "notes": notes}``
    item_fed: set[str] = set(loop.items)
    grew = True
    while grew:
        grew = False
        for path, changes in rebinds.items():
            if path not in item_fed and any(_reads_item(reads(c, path), item_fed) for c in changes):
                item_fed.add(path)
                grew = True
    return varying, fresh, per_item, item_fed


def _reads_item(names: Iterable[str], items: set[str]) -> bool:
    return any(p in items or path_root(p) in items for p in names)


def add_use(uses: dict[tuple[str, SinkRef], UseSite], key: tuple[str, SinkRef], site: UseSite) -> None:
    """Record a use made at ``site``; a use made again elsewhere (the same helper called from two
    places) keeps only the bodies both calls are in, and the earlier line."""
    known = uses.get(key)
    if known is None:
        uses[key] = site
        return
    (old, old_line), (branches, line) = known, site
    uses[key] = (old[: _shared_bodies(old, branches)], min(old_line, line))


def _shared_bodies(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """How many of the outermost bodies two statements are both in."""
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return common


def _returned_by_the_call(change: Change, site: UseSite, loop: LoopFrame) -> bool:
    """The place is rebound to what the call making the use returned, or to an attribute of it
    (``response = client.run(agent=agent)`` then ``agent = response.agent``): the state that
    request ended in."""
    line = site[1]
    if change.returned_by is not None:
        return change.returned_by == line
    if change.returned_via is None:
        return False
    return any(c.path == change.returned_via and c.action == "rebound" and c.returned_by == line for c in loop.changes)


def _carried_cycles(rebinds: dict[str, list[Change]], reads: Callable[[Change, str], frozenset[str]]) -> set[str]:
    """The places rebuilt, through other places, from their own value of the iteration before:
    ``result = agent.run(history)`` then ``history = result.messages()`` accumulates as
    ``history = f(history)`` does. A read comes from the iteration before when it is made before
    the place's first rebinding in the loop; ``a = BASE; b = a + x; a = b`` reads only values of
    the same iteration."""
    first = {path: min(c.site for c in changes) for path, changes in rebinds.items()}

    def rebound(read: str) -> str | None:
        if read in rebinds:
            return read
        root = path_root(read)
        return root if root in rebinds else None

    out: set[str] = set()
    for start in rebinds:
        seen: set[tuple[str, bool]] = set()
        stack = [(start, False)]
        while stack and start not in out:
            path, carried = stack.pop()
            for c in rebinds[path]:
                for read in reads(c, path):
                    target = rebound(read)
                    if target is None or target == path:
                        continue  # x = f(x) is varying already
                    now = carried or c.site < first[target]
                    if target == start:
                        if now:
                            out.add(start)
                        continue
                    if (target, now) not in seen:
                        seen.add((target, now))
                        stack.append((target, now))
    return out


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
        return (
            func.attr == "pop" and len(rhs.args) == 1 and isinstance(index, ast.Constant) and type(index.value) is int
        )
    return isinstance(func, ast.Name) and func.id == "next" and 1 <= len(rhs.args) <= 2


def _carries_history(loop: LoopFrame) -> bool:
    """The loop changes (appends to, extends, rebinds) what a call in it sends as its messages."""
    return any(covers(change.path, used) for change in loop.changes for used in loop.history)


def _counts(iterable: ast.AST) -> bool:
    """``range(n)``, ``itertools.count()``, ``enumerate(range(n))``: the loop counts turns or steps
    of one task rather than going over items."""
    while (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and iterable.args
    ):
        iterable = iterable.args[0]
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in ("range", "count")


def _overwritten_before_the_call(change: Change, site: UseSite, loop: LoopFrame) -> bool:
    """The place is set afresh at the top of every iteration before the call (``tool_choice =
    "auto"``), and this change comes after the call, or on a branch that continues with the next
    iteration: the value it writes is written over before any call reads it."""
    reset = loop.reset_at.get(change.path)
    if reset is None or change.site == reset or reset[0] >= site[1]:
        return False
    return change.site[0] > site[1] or change.continued == id(loop)


def _without_site(v: Value, site: tuple[int, int, int, int]) -> Value:
    return Value(frozenset(o for o in v.own if o.site != site), frozenset(o for o in v.inner if o.site != site))


class Loops(Scopes):
    """``for`` and ``while``, and the changes statements make inside loops."""

    if TYPE_CHECKING:
        # Calls, a layer above: what the module's functions called in a value build it from.
        def _called_reads(self, node: ast.AST, frame: Frame) -> set[str]: ...

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
        by_call: bool = False,
    ) -> None:
        """``rhs``: the value a rebinding (or a keyed write, ``keyed``) gives the place; changes
        without it (``x.append(...)``) always count as changes. ``by_call``: made by a function
        the loop calls."""
        if path is None or not frame.loops:
            return
        rhs_names: frozenset[str] | None = None
        entries = None
        if action == "rebound" or keyed:
            if rhs is None or _takes_next_item(rhs):
                rhs_names = frozenset()
            else:
                # system = render() with render() joining a global: the global is read too
                rhs_names = read_paths(rhs) | self._called_reads(rhs, frame)
            if action == "rebound" and rhs is not None:
                entries = display_entry_names(rhs)
        change = Change(
            path,
            span_of(node),
            action,
            rhs_names,
            counter,
            self._branch_depth,
            entries,
            keyed if strict is None else strict,
        )
        change.branches = self._branch_path
        change.by_call = by_call
        innermost = id(frame.loops[-1])
        if self._continued_loops.get(innermost):
            change.continued = innermost
        if rhs_names is not None and rhs is not None:
            change.new_each_time = self._new_each_time(rhs)
            call = rhs.value if isinstance(rhs, ast.Await) else rhs
            if action == "rebound" and isinstance(call, ast.Call):
                change.returned_by = call.lineno
            elif action == "rebound" and isinstance(rhs, ast.Attribute) and isinstance(rhs.value, ast.Name):
                change.returned_via = rhs.value.id
        final = self._final_loops
        for loop in frame.loops:
            if final.get(id(loop)):
                continue  # the loop ends after this (return, break): no later call of it sees it
            loop.changes.append(change)
            if action == "rebound" and path.isidentifier():
                loop.tracked[path] = loop.tracked.get(path, 0) + 1

    def _new_each_time(self, rhs: ast.AST) -> bool:
        for sub in ast.walk(rhs):
            if isinstance(sub, ast.Call):
                path = self.callee_path(sub.func)
                if (
                    path in (("input",), ("next",))
                    or self.k.sinks.match(path) is not None
                    or self.k.volatile.match(path) is not None
                ):
                    return True
        return False

    def _walk_sorted_in_place(self, node: ast.For) -> bool:
        """``for root, dirs, files in os.walk(p): dirs.sort()``: the walk descends into the
        directories in the order it finds them in ``dirs`` after the body has run, so sorting that
        list in place (``dirs.sort()``, ``dirs[:] = sorted(dirs)``) fixes the order of the walk. The
        file lists are still in listing order."""
        call, target = node.iter, node.target
        if not (isinstance(call, ast.Call) and isinstance(target, ast.Tuple) and len(target.elts) >= 3):
            return False
        dirs = target.elts[1]
        source = self.k.unordered.match(self.callee_path(call.func))
        if not (isinstance(dirs, ast.Name) and source is not None and source.nested):
            return False
        for stmt in node.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr in self.k.sort_methods
                    and isinstance(func.value, ast.Name)
                    and func.value.id == dirs.id
                ):
                    return True
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                t, v = stmt.targets[0], stmt.value
                if (
                    isinstance(t, ast.Subscript)
                    and isinstance(t.value, ast.Name)
                    and t.value.id == dirs.id
                    and isinstance(t.slice, ast.Slice)
                    and isinstance(v, ast.Call)
                    and self.k.sanitizers.match(self.callee_path(v.func)) is not None
                ):
                    return True
        return False

    def _for(self, node: ast.For, frame: Frame) -> None:
        iterable = self.eval(node.iter, frame)
        walk_sorted = self._walk_sorted_in_place(node)
        if walk_sorted:  # the walk's own order is fixed; what it yields (file lists) is not
            site = span_of(node.iter)
            iterable = Value(
                frozenset(o for o in iterable.own if o.site != site), iterable.inner, iterable.kind, iterable.elements
            )
        iterable = self.put_in_order(iterable, node.iter, iterated=True)
        # what decides the order of the iterations: an unordered source, or a parameter (what is
        # put in a collection in the loop comes in the order the caller's argument has)
        order = frozenset(o for o in iterable.own if o.kind == UNORDERED or (o.kind == PARAM and o.mode == "whole"))
        targets = names_in(node.target)
        loop = LoopFrame(
            node, targets=targets, items=frozenset() if _counts(node.iter) else targets, branch_depth=self._branch_depth
        )
        frame.loops.append(loop)
        frame.iter_orders.append(order)
        try:
            item = element_of(iterable)
            if walk_sorted and isinstance(node.target, ast.Tuple):
                site = span_of(node.iter)
                part = element_of(item)
                names = Value(part.own, frozenset(o for o in part.inner if o.site != site))
                for i, t in enumerate(node.target.elts):
                    # the directory path: in the walk's (now fixed) order; the lists of names: in
                    # their listing's order, names (str) with no order inside them
                    self.bind(t, _without_site(part, site) if i == 0 else names, frame)
            else:
                self.bind(node.target, item, frame)
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

    def _made_alike_every_pass(self, change: Change, site: UseSite, varying: set[str]) -> bool:
        """The change is made before the call, in the bodies the call is made in (or around them:
        ``params = {...}`` then the call, both under the same ``if``), or under conditions that
        only test places the loop does not vary (``if caching: system["cache_control"] = MARK``):
        every pass that makes a call makes the change first, or none does, so every call sees the
        same value."""
        branches, line = site
        if change.site[0] >= line:
            return False
        for body in change.branches[_shared_bodies(branches, change.branches) :]:
            test = self._branch_tests.get(body)
            if test is None or reads_any(test, varying):
                return False
        return True

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
                for use, site in loop.uses.items():
                    add_use(outer.uses, use, site)
            outer.history.update(loop.history)
        if not loop.uses or not loop.changes:
            return
        # what the loop rebinds, or grows in place (``parts.append(x)``): a value rebuilt from it
        # differs between iterations
        varying_names, fresh, per_item, item_fed = _varying_names(loop)
        batch = not _carries_history(loop)  # no conversation goes on from one item to the next
        for change in loop.changes:
            if loop.per_item(change):
                continue
            for (used, sink), site in loop.uses.items():
                if not covers(change.path, used):
                    continue
                if _overwritten_before_the_call(change, site, loop):
                    continue
                if (change.path.endswith(FIRST) or used.endswith(FIRST)) and change.path != used:
                    continue  # messages.append(...) leaves the first message as it was
                if (change.counter or change.by_call) and change.path.startswith(used) and change.path != used:
                    # A counter of the object (retries, steps) changed, or a part of it that a
                    # function the loop calls writes, and the sink reads the object only as a
                    # whole, through calls the analysis cannot see into (``repo.commit(coder=self)``):
                    # no evidence that part is in the prompt. A prompt that reads it itself is
                    # still reported.
                    continue
                if change.rhs_names is not None and sink.configures:
                    continue  # one agent per iteration is a new agent, not a change within a session
                if _returned_by_the_call(change, site, loop):
                    # ``messages = step(messages)``, step making the request: the next request
                    # sends what the last one returned, and nothing in view changes it between them
                    continue
                if change.rhs_names is not None:
                    names = change.rhs_names
                    if change.entries is not None and used != change.path and used.startswith(change.path + "["):
                        # params = {"model": m, ...} read as **params for model=: only m matters
                        key = used[len(change.path) + 1 :].split("]", 1)[0].strip("'\"")
                        names = change.entries.get(key, frozenset())
                    if change.path in fresh:
                        names = names - {change.path}  # x = f(x) after x = g(...) this iteration
                    varying = reads_any(names, varying_names - {change.path})
                    # A fixed value set before the call on every pass that makes it (at the loop's
                    # level, or under the ``if`` the call is under too) is the same value at every
                    # call. A setting (or one key of the request) given a fixed value after the
                    # call (``tool_choice = "auto"`` after a forced first turn) or under a
                    # condition the call is not under (``if spent: tool_choice = "none"``) changes
                    # once, when the most is cached.
                    # Tools count alike in a loop that carries a conversation on: ``tools = None``
                    # on the last step, or once a budget is spent, drops position 0 of the prefix
                    # for the request that has the most cached (in a batch, one request per item
                    # may choose its own tools).
                    strict = sink.tier == "setting" or change.keyed or (sink.tier == "tools" and not batch)
                    steady = not varying and (not strict or self._made_alike_every_pass(change, site, varying_names))
                    if change.path not in names and (steady or (varying and batch and _reads_item(varying, item_fed))):
                        # built from nothing that varies, or from the loop's own item
                        # (``system = f"Summarize {doc.title}"`` in ``for doc in docs``) in a batch:
                        # one request per item, as the same f-string written at the call is. What
                        # else it reads loses nothing more: the system differs per item already,
                        # and no conversation goes on from one item to the next
                        continue
                self.changes.append(
                    LoopChange(sink.tier, sink, change.site, change.path, change.action, change.by_call)
                )
                break
