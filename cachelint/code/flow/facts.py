"""The data the order-flow analysis produces and works on: sink references, the facts the rules
read (``Reach``, ``LoopChange``), function summaries, class information, recorded changes and the
loops they happen in. Plain dataclasses, no behaviour beyond small predicates."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from cachelint.code.values import CLEAN, Origin, Span, Value


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
    # how often what reaches it is made anew when that is not each request: "run" (a callback
    # before each run of the agent, one user turn), "conversation" (the first message of a
    # conversation this code starts and hands on)
    renewed: str | None = None
    # the first message of a conversation whose role is not known to be the system's (the user's
    # first message of an Anthropic-style list): what changes there rewrites the prefix from that
    # message on, not from the system prompt
    first_message: bool = False


@dataclass(frozen=True)
class Reach:
    origin: Origin
    sink: SinkRef
    arg_span: Span | None  # the sink argument, when the origin is in the argument's own order
    arg_elements: str | None = None  # what the argument's elements are, when known (values.py)


@dataclass(frozen=True)
class StaticFirstMessage:
    """The first user message of a request repeated in a loop, where every request of the loop
    sends it alike (the list is built before the loop, which only adds to its end), read as far as
    its text is static. The prompt renders tools, then system, then messages (Anthropic's prompt
    caching documentation), and a marker may sit on a content block of a user message: with no
    system prompt to end it (or a static one), the static prefix goes on into this text."""

    chars: int  # characters of its leading static text (up to its first part made per run)
    line: int  # its content: where a breakpoint would go
    request: Span  # the request the loop repeats
    label: str  # "messages= of client.messages.create"


@dataclass(frozen=True)
class UncachedPrefix:
    """A call to a provider that caches only at an explicit marker, with static text in its prefix
    and no marker in view (CL107)."""

    site: Span  # the system (or tools) argument, or the request when it sends neither
    label: str  # "system= of client.messages.create"
    line: int  # the call
    chars: int  # characters of static text: the system prompt and literal tools (0: neither sent)
    model: str | None  # the model= given as a constant
    marker: str  # the key that would set a breakpoint: cache_control, cachePoint
    provider: str  # whose minimum cacheable lengths apply (payloads-limits)
    once: bool = False  # made at module level, outside loops: once per process
    first_message: StaticFirstMessage | None = None  # where the static prefix goes on into it


@dataclass(frozen=True)
class LoopChange:
    tier: str
    sink: SinkRef
    site: Span
    path: str
    action: str
    by_call: bool = False  # the change is made by a function the loop calls (Change.by_call)


@dataclass
class Summary:
    name: str
    params: list[str]
    returns: Value = CLEAN
    returned: bool = False  # a return or yield was seen: ``returns`` holds what it gives
    # parameter -> [(sink, mode)]: the parameter's value (transformed by mode) reaches the sink
    param_sinks: dict[str, list[tuple[SinkRef, str]]] = field(default_factory=dict)
    # attribute of the instance -> (parameter, mode) stored in it (``self.tools = tools``): with
    # the sinks other methods send ``self.tools`` to (``param_sinks["self.tools"]``), a call of
    # this method (the constructor) sends the parameter there
    param_attrs: dict[str, dict[tuple[str, str], None]] = field(default_factory=dict)
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
    # parameter.state["key"] = value: what the function writes into a session state it is given
    # (an ADK callback), by key
    state_writes: dict[str, Value] = field(default_factory=dict)
    # parameters holding a conversation the function carries on: a list it adds to, or sends as the
    # messages, inside a loop (``call(messages)`` appending each reply): a message list given to it
    # is the start of a conversation, not one request
    grows: set[str] = field(default_factory=set)
    done: bool = False


@dataclass
class ClassInfo:
    name: str
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    attrs: dict[str, Value] = field(default_factory=dict)
    attr_types: dict[str, "ClassRef"] = field(default_factory=dict)
    # attributes bound to a callee (``self.create = client.messages.create``): a call of one is a
    # call of that callee
    attr_exprs: dict[str, ast.AST] = field(default_factory=dict)
    # The positional parameters of the __init__ that @dataclass or NamedTuple writes, in order
    # (the fields a call's positional arguments go to); None when they cannot be known.
    init_fields: tuple[str, ...] | None = None
    dataclass: bool = False
    # the classes it derives from that the analysis can name (of this module or imported), in order
    bases: list["ClassRef"] = field(default_factory=list)


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
    # a rebinding to what a call returns (``messages = step(messages)``): the line of that call
    returned_by: int | None = None
    # a rebinding to an attribute of a name (``agent = response.agent``): that name
    returned_via: str | None = None
    # the if/match/try bodies around it (numbered, outermost first; as LoopFrame.uses)
    branches: tuple[int, ...] = ()
    # the innermost loop's iteration certainly continues with the next one after it (a continue
    # follows): the calls after it in that iteration are skipped
    continued: int | None = None  # id of that loop's LoopFrame
    # made by a function of the module (or a method of the instance) the loop calls, not by a
    # statement of the loop itself
    by_call: bool = False


# Where the calls making one use are: the if/match/try bodies (numbered, outermost first) that
# every one of them is in, and the line of the first (the call itself, or the call of the function
# that makes it). A change made in those bodies before that line is made on every pass that
# reaches the calls.
UseSite = tuple[tuple[int, ...], int]


@dataclass
class LoopFrame:
    node: ast.AST
    bound: set[str] = field(default_factory=set)
    changes: list[Change] = field(default_factory=list)
    # an ordered set, as Summary.uses; each use with where the calls making it are in this loop
    uses: dict[tuple[str, SinkRef], "UseSite"] = field(default_factory=dict)
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
    # places rebound at the top level of the loop, unconditionally and not from themselves: where
    # each is first set afresh in an iteration
    reset_at: dict[str, "Span"] = field(default_factory=dict)

    def per_item(self, change: "Change") -> bool:
        """A rebinding of this loop's own target (``path = f"{root}/{path}"``): still a value of
        the current item, new each iteration — one request per item, not a change."""
        return change.rhs_names is not None and change.path in self.targets


# What another module's summary says through the resolvers: (qualified name of the function, its
# summary data, the dotted name of the module it is in).
External = tuple[str, Mapping[str, Any], str]


# (ast span) -> [line, column, end line, end column] in 1-based characters: how a summary gives
# its fix spots to other modules, which do not have its text.
Positions = Callable[[Span], list[int]]
