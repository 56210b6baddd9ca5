"""The knowledge the code checks read, compiled from the packs (``rules/packs/code-*.yaml`` plus the
user's ``packs``) and the ``[tool.cachelint.code]`` options into lookup tables.

Nothing here knows a library by name: every sink, source, sanitizer and volatile call is data.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Generic, Iterable, Mapping, Sequence, TypeVar

from cachelint.code.prefilter import SinkPrefilter, SinkToken, build_sink_prefilter

T = TypeVar("T")

TIERS = ("tools", "system", "messages", "body")
# The tiers of the cached prefix that the checks report on (messages count through their first
# system message, body through its keys).
PREFIX_TIERS = ("tools", "system")


class CallTable(Generic[T]):
    """Dotted call patterns -> data. ``a.b.c`` matches exactly; ``*.b.c`` matches any callee that ends
    with ``.b.c`` after at least one more segment; ``a.*`` matches any attribute of ``a``. The first
    pattern added wins among equals; exact beats suffix beats prefix, longer suffixes beat shorter."""

    def __init__(self) -> None:
        self._exact: dict[tuple[str, ...], T] = {}
        self._suffix: dict[str, list[tuple[tuple[str, ...], T]]] = {}
        self._prefix: dict[str, list[tuple[tuple[str, ...], T]]] = {}

    def add(self, pattern: str, value: T) -> None:
        parts = tuple(pattern.split("."))
        if parts[0] == "*":
            suffix = parts[1:]
            bucket = self._suffix.setdefault(suffix[-1], [])
            if all(s != suffix for s, _ in bucket):
                bucket.append((suffix, value))
                bucket.sort(key=lambda item: -len(item[0]))
        elif parts[-1] == "*":
            prefix = parts[:-1]
            bucket = self._prefix.setdefault(prefix[0], [])
            if all(p != prefix for p, _ in bucket):
                bucket.append((prefix, value))
                bucket.sort(key=lambda item: -len(item[0]))
        else:
            self._exact.setdefault(parts, value)

    def match(self, path: tuple[str, ...]) -> T | None:
        if not path:
            return None
        hit = self._exact.get(path)
        if hit is not None:
            return hit
        for suffix, value in self._suffix.get(path[-1], ()):
            n = len(suffix)
            if len(path) > n and path[-n:] == suffix:
                return value
        for prefix, value in self._prefix.get(path[0], ()):
            n = len(prefix)
            if len(path) > n and path[:n] == prefix:
                return value
        return None

    def keys(self) -> tuple[set[str], set[str]]:
        """(last segments, first segments) a callee must have for some pattern to match it: the
        last of exact and ``*.`` patterns, the first of ``a.*`` ones."""
        return {p[-1] for p in self._exact} | set(self._suffix), set(self._prefix)

    def tokens(self) -> list[tuple[str, bool, T]]:
        """(name, called, value) for every pattern: the name a matching callee ends with, and
        whether the text must show it called (exact and ``*.`` patterns) or only as a word (``a.*``,
        whose callee ends with any attribute of ``a``)."""
        out = [(p[-1], True, v) for p, v in self._exact.items()]
        out += [(s[-1], True, v) for bucket in self._suffix.values() for s, v in bucket]
        out += [(p[-1], False, v) for bucket in self._prefix.values() for p, v in bucket]
        return out

    def last_segments(self) -> set[str]:
        """Identifiers a source text must contain for any pattern to match (the prefilter)."""
        out = {p[-1] for p in self._exact}
        out.update(self._suffix)
        out.update(p[-1] for bucket in self._prefix.values() for p, _ in bucket)
        return out


# Name patterns come from packs and the configuration (any regular expression): they are matched
# only against names of at most this length, so that no pattern meets an identifier of megabytes.
MAX_MATCHED_NAME = 256


@dataclass(frozen=True)
class SinkArgument:
    tier: str  # tools | system | messages | body | specs
    keyword: str | None
    position: int | None
    # specs: a list of agent specs (dicts), each key of which renders in a tier of its own agent
    keys: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Sink:
    library: str
    arguments: tuple[SinkArgument, ...]
    configures: bool = False  # builds an agent / bound model rather than sending one request
    tool_key: str | None = None  # sort key for this SDK's tools, used by fixes
    # {key} placeholders of these (str) arguments are filled from the session state, which the
    # functions given as these callbacks write (``callback_context.state["key"] = ...``): each
    # callback with how often it runs ("request": before each model call, "run": each agent run)
    state_arguments: tuple[str, ...] = ()
    state_callbacks: tuple[tuple[str, str], ...] = ()
    # the provider caches only at an explicit marker: (the marker's key, the provider whose
    # minimum cacheable lengths apply), e.g. ("cache_control", "anthropic")
    explicit_cache: tuple[str, str] | None = None


@dataclass(frozen=True)
class PerTurn:
    """A function a framework calls once per request (or step) with the conversation's state (the
    ``per_turn`` entries of the code-sinks pack)."""

    library: str
    state: int = 0  # the parameter holding the state
    whole: bool = False  # every read of it is the turn's state
    state_attribute: str | None = None  # ctx.state: the whole state
    conversation_keys: frozenset[str] = frozenset()  # keys holding the conversation itself
    updates: str | None = None  # "returned_keys" | "state_writes": how changing keys are written
    returns: str | None = None  # the tier the return value renders in
    position: int | None = None  # of the registering call: the argument that is the function
    keyword: str | None = None


@dataclass(frozen=True)
class UnorderedCall:
    what: str
    elements: str | None = None  # "str" | "name" | "path" | None (unknown): see the code-order pack
    nested: bool = False
    sortable: bool = True


@dataclass(frozen=True)
class VolatileCall:
    what: str
    granularity: str  # "time" | "date" | "process"
    format_argument: int | None = None
    needs_volatile_argument: bool = False
    # the call that seeds this generator's global state (random.seed): once the module seeds it,
    # its values are the same, in the same order, in every process
    seeded_by: str | None = None
    # positions of arguments that decide (see the code-volatile pack): a time given to read instead
    # of the clock, a seed, the value hashed, the list shuffled in place
    time_argument: int | None = None
    seed_argument: int | None = None
    text_argument: int | None = None
    reorders_argument: int | None = None


@dataclass
class Knowledge:
    sinks: CallTable[Sink] = field(default_factory=CallTable)
    decorators: CallTable[tuple[str, str]] = field(default_factory=CallTable)  # -> (tier, library)
    # the class of a provider function's first parameter -> (tier, library)
    providers: CallTable[tuple[str, str]] = field(default_factory=CallTable)
    # functions called once per request with the conversation's state: by the class of their
    # first parameter, or by the call that registers them
    per_turn_annotations: CallTable[PerTurn] = field(default_factory=CallTable)
    per_turn_calls: CallTable[PerTurn] = field(default_factory=CallTable)
    body_keys: dict[str, str] = field(default_factory=dict)
    first_message_roles: frozenset[str] = frozenset()
    system_message_classes: CallTable[bool] = field(default_factory=CallTable)
    # calls that count the tokens of messages without sending them (code-sinks pack)
    token_counters: CallTable[bool] = field(default_factory=CallTable)
    # calls that format messages for a model run locally, with no prompt cache between calls
    local_models: CallTable[bool] = field(default_factory=CallTable)
    # calls that show a value (print, log) without sending it anywhere
    display_calls: CallTable[bool] = field(default_factory=CallTable)
    unordered: CallTable[UnorderedCall] = field(default_factory=CallTable)
    unordered_annotations: frozenset[str] = frozenset()
    set_view_methods: frozenset[str] = frozenset()
    sanitizers: CallTable[bool] = field(default_factory=CallTable)
    sanitizer_methods: frozenset[str] = frozenset()
    element_methods: frozenset[str] = frozenset()
    materializers: CallTable[bool] = field(default_factory=CallTable)
    # What values are, for the fixes (values.py): a sorted(...) is safe only around str or paths.
    sorting_changes_result: CallTable[bool] = field(default_factory=CallTable)
    keeps_elements: CallTable[bool] = field(default_factory=CallTable)
    str_calls: CallTable[bool] = field(default_factory=CallTable)
    path_calls: CallTable[bool] = field(default_factory=CallTable)
    str_methods: frozenset[str] = frozenset()
    # methods whose result is made from their receiver even when the analysis does not know what
    # the receiver is (the str methods, a mapping's views and copies, a template rendered)
    receiver_methods: frozenset[str] = frozenset()
    path_methods: dict[str, str] = field(default_factory=dict)  # method of a path -> kind of its result
    path_attributes: dict[str, str] = field(default_factory=dict)  # attribute of a path -> its kind
    key_sorting_keywords: frozenset[str] = frozenset()
    sort_methods: frozenset[str] = frozenset()
    mutating_methods: frozenset[str] = frozenset()
    adding_methods: frozenset[str] = frozenset()
    volatile: CallTable[VolatileCall] = field(default_factory=CallTable)
    seeding_calls: set[tuple[str, ...]] = field(default_factory=set)  # random.seed: see VolatileCall.seeded_by
    format_methods: frozenset[str] = frozenset()
    reordering_methods: frozenset[str] = frozenset()  # rng.shuffle(x): x in a random order
    date_methods: frozenset[str] = frozenset()
    date_attributes: frozenset[str] = frozenset()
    stable_members: frozenset[str] = frozenset()
    time_directives: tuple[str, ...] = ()
    volatile_name_re: re.Pattern[str] | None = None  # names of per-request values (request_id)
    session_name_re: re.Pattern[str] | None = None  # names of per-user / per-session values (user_id)
    # names that hold the system prompt (code-volatile pack): stems and what may follow one
    system_prompt_stems: tuple[str, ...] = ()
    system_prompt_rest_re: re.Pattern[str] | None = None
    system_prompt_flags: frozenset[str] = frozenset()
    membership_keyword_re: re.Pattern[str] | None = None
    lookup_keyword_re: re.Pattern[str] | None = None  # keywords that pass an id to look something up
    tool_definition_keywords: frozenset[str] = frozenset()  # of a tool object's constructor: name=, description=...
    prefilter: SinkPrefilter | None = None
    # Keys of dict displays worth remembering: sink keywords (for **kwargs) and raw body keys.
    stash_keys: frozenset[str] = frozenset()
    # names_system_prompt's answers by name (a memo of a pure function of the packs)
    _names_system_prompt: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)
    # the segments a callee needs for any call table of a call's own handling to match it
    _call_keys: tuple[frozenset[str], frozenset[str]] | None = field(default=None, repr=False, compare=False)

    def may_name_a_known_call(self, path: tuple[str, ...]) -> bool:
        """Some table of calls (sinks, sources, sanitizers, volatile calls, what calls return...)
        could match ``path``: most calls of a program match none, and this one test spares ten."""
        if self._call_keys is None:
            lasts: set[str] = set()
            firsts: set[str] = set()
            for table in (
                self.sinks,
                self.system_message_classes,
                self.sanitizers,
                self.keeps_elements,
                self.unordered,
                self.volatile,
                self.materializers,
                self.sorting_changes_result,
                self.str_calls,
                self.path_calls,
            ):
                last, first = table.keys()
                lasts |= last
                firsts |= first
            self._call_keys = (frozenset(lasts), frozenset(firsts))
        last_segments, first_segments = self._call_keys
        return bool(path) and (path[-1] in last_segments or path[0] in first_segments)

    def is_membership_keyword(self, name: str | None) -> bool:
        return (
            name is not None
            and len(name) <= MAX_MATCHED_NAME
            and self.membership_keyword_re is not None
            and self.membership_keyword_re.fullmatch(name) is not None
        )

    def is_tool_definition_keyword(self, name: str | None) -> bool:
        return name is None or name in self.tool_definition_keywords

    def is_lookup_keyword(self, name: str | None) -> bool:
        return (
            name is not None
            and len(name) <= MAX_MATCHED_NAME
            and self.lookup_keyword_re is not None
            and self.lookup_keyword_re.fullmatch(name) is not None
        )

    @property
    def knows_volatile_names(self) -> bool:
        return self.volatile_name_re is not None or self.session_name_re is not None

    def names_system_prompt(self, name: str) -> bool:
        """``SYSTEM_PROMPT``, ``system_message_content``, ``build_system_prompt``: the name says its
        value is (or is returned as) a system prompt. Asked for every keyword and assignment of a
        run: the answers are kept by name (names repeat)."""
        known = self._names_system_prompt.get(name)
        if known is None:
            known = self._names_system_prompt[name] = self._says_system_prompt(name)
        return known

    def _says_system_prompt(self, name: str) -> bool:
        if not self.system_prompt_stems or self.system_prompt_rest_re is None or len(name) > MAX_MATCHED_NAME:
            return False
        lowered = name.lower().lstrip("_")
        if lowered.split("_", 1)[0] in self.system_prompt_flags and "_" in lowered:
            return False
        normal = lowered.replace("_", "")
        for stem in self.system_prompt_stems:
            at = normal.rfind(stem)
            if at >= 0 and self.system_prompt_rest_re.fullmatch(normal, at + len(stem)) is not None:
                return True
        return False

    def may_name_system_prompt(self, text: str) -> bool:
        """The prefilter's test for ``names_system_prompt``: the text contains a stem."""
        if not self.system_prompt_stems:
            return False
        normal = text.lower().replace("_", "")
        return any(stem in normal for stem in self.system_prompt_stems)

    def volatile_name_kind(self, name: str) -> str | None:
        """``request`` for a per-request id's name, ``session`` for a per-user or per-session id's."""
        if len(name) > MAX_MATCHED_NAME:
            return None
        if self.volatile_name_re is not None and self.volatile_name_re.fullmatch(name) is not None:
            return "request"
        if self.session_name_re is not None and self.session_name_re.fullmatch(name) is not None:
            return "session"
        return None


def _arguments(entries: Iterable[Mapping[str, Any]]) -> tuple[SinkArgument, ...]:
    return tuple(
        SinkArgument(e["tier"], e.get("keyword"), e.get("position"), tuple(sorted(e.get("keys", {}).items())))
        for e in entries
    )


def _config_sink_arguments(entry: Mapping[str, Any]) -> tuple[SinkArgument, ...]:
    """``{call = "myapp.llm.ask", tools = "tools", system = 1}``: a tier names a keyword (str), a
    0-based position (int), or both as a two-item list."""
    out = []
    for tier in TIERS:
        if tier not in entry:
            continue
        spec = entry[tier]
        items = spec if isinstance(spec, list) else [spec]
        keyword = next((i for i in items if isinstance(i, str)), None)
        position = next((i for i in items if isinstance(i, int) and not isinstance(i, bool)), None)
        out.append(SinkArgument(tier, keyword, position))
    return tuple(out)


def build_knowledge(
    sink_packs: Sequence[Mapping[str, Any]],
    order_packs: Sequence[Mapping[str, Any]],
    volatile_packs: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any],
) -> Knowledge:
    k = Knowledge()
    # The user's own wrappers first: a configured sink wins over a built-in pattern.
    for entry in options.get("sinks", ()):
        calls = entry["call"] if isinstance(entry["call"], list) else [entry["call"]]
        sink = Sink("configured", _config_sink_arguments(entry))
        for call in calls:
            k.sinks.add(call, sink)
    body_keys: dict[str, str] = {}
    roles: set[str] = set()
    for pack in sink_packs:
        body_keys.update(pack.get("body_keys", {}))
        roles.update(pack.get("first_message_roles", ()))
        for pattern in pack.get("system_message_classes", ()):
            k.system_message_classes.add(pattern, True)
        for pattern in pack.get("token_counters", ()):
            k.token_counters.add(pattern, True)
        for pattern in pack.get("local_models", ()):
            k.local_models.add(pattern, True)
        for pattern in pack.get("display_calls", ()):
            k.display_calls.add(pattern, True)
        for entry in pack.get("sinks", ()):
            sink = Sink(
                entry.get("library", "?"),
                _arguments(entry["arguments"]),
                bool(entry.get("configures", False)),
                entry.get("tool_key"),
                tuple(entry.get("state_templates", {}).get("arguments", ())),
                tuple(sorted(entry.get("state_templates", {}).get("callbacks", {}).items())),
                (entry["explicit_cache"]["marker"], entry["explicit_cache"]["provider"])
                if "explicit_cache" in entry
                else None,
            )
            for call in entry["calls"]:
                k.sinks.add(call, sink)
        for entry in pack.get("decorators", ()):
            k.decorators.add(entry["decorator"], (entry["tier"], entry.get("library", "?")))
        for entry in pack.get("providers", ()):
            k.providers.add(entry["annotation"], (entry["tier"], entry.get("library", "?")))
        for entry in pack.get("per_turn", ()):
            turn = PerTurn(
                entry["library"],
                int(entry.get("state", 0)),
                bool(entry.get("whole", False)),
                entry.get("state_attribute"),
                frozenset(entry.get("conversation_keys", ())),
                entry.get("updates"),
                entry.get("returns"),
                entry.get("position"),
                entry.get("keyword"),
            )
            if "annotation" in entry:
                k.per_turn_annotations.add(entry["annotation"], turn)
            if "call" in entry:
                k.per_turn_calls.add(entry["call"], turn)
    k.body_keys = body_keys
    k.first_message_roles = frozenset(roles)

    def names(packs: Sequence[Mapping[str, Any]], key: str) -> frozenset[str]:
        return frozenset(n for p in packs for n in p.get(key, ()))

    for pack in order_packs:
        for entry in pack.get("unordered_calls", ()):
            k.unordered.add(
                entry["call"],
                UnorderedCall(
                    what=entry["what"],
                    elements=entry.get("elements"),
                    nested=bool(entry.get("nested", False)),
                    sortable=bool(entry.get("sortable", True)),
                ),
            )
        for pattern in pack.get("sanitizers", ()):
            k.sanitizers.add(pattern, True)
        for pattern in pack.get("materializers", ()):
            k.materializers.add(pattern, True)
        kinds = pack.get("value_kinds", {})
        for key, table in (
            ("sorting_changes_result", k.sorting_changes_result),
            ("keeps_elements", k.keeps_elements),
            ("str_calls", k.str_calls),
            ("path_calls", k.path_calls),
        ):
            for pattern in kinds.get(key, ()):
                table.add(pattern, True)
        k.path_methods.update(kinds.get("path_methods", {}))
        k.path_attributes.update(kinds.get("path_attributes", {}))
    k.unordered_annotations = names(order_packs, "unordered_annotations")
    k.set_view_methods = names(order_packs, "set_view_methods")
    k.sanitizer_methods = names(order_packs, "sanitizer_methods")
    k.element_methods = names(order_packs, "element_methods")
    k.key_sorting_keywords = names(order_packs, "key_sorting_keywords")
    k.sort_methods = names(order_packs, "sort_methods")
    k.mutating_methods = names(order_packs, "mutating_methods")
    k.adding_methods = names(order_packs, "adding_methods")
    k.str_methods = frozenset(n for p in order_packs for n in p.get("value_kinds", {}).get("str_methods", ()))
    k.receiver_methods = names(order_packs, "receiver_methods") | k.str_methods | k.set_view_methods
    membership = [p for pack in order_packs for p in pack.get("membership_keywords", ())]
    if membership:
        k.membership_keyword_re = re.compile("|".join(f"(?:{p})" for p in membership), re.IGNORECASE)

    for pack in volatile_packs:
        for entry in pack.get("volatile_calls", ()):
            k.volatile.add(
                entry["call"],
                VolatileCall(
                    what=entry["what"],
                    granularity=entry["granularity"],
                    format_argument=entry.get("format_argument"),
                    needs_volatile_argument=bool(entry.get("needs_volatile_argument", False)),
                    seeded_by=entry.get("seeded_by"),
                    time_argument=entry.get("time_argument"),
                    seed_argument=entry.get("seed_argument"),
                    text_argument=entry.get("text_argument"),
                    reorders_argument=entry.get("reorders_argument"),
                ),
            )
            if entry.get("seeded_by"):
                k.seeding_calls.add(tuple(entry["seeded_by"].split(".")))
    k.format_methods = names(volatile_packs, "format_methods")
    k.reordering_methods = names(volatile_packs, "reordering_methods")
    k.date_methods = names(volatile_packs, "date_methods")
    k.date_attributes = names(volatile_packs, "date_attributes")
    k.stable_members = names(volatile_packs, "stable_members")
    k.time_directives = tuple(sorted(names(volatile_packs, "time_directives")))
    patterns = [p for pack in volatile_packs for p in pack.get("volatile_names", ())]
    patterns += list(options.get("volatile-names", ()))
    if patterns:
        k.volatile_name_re = re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
    k.tool_definition_keywords = names(volatile_packs, "tool_definition_keywords")
    lookup = [p for pack in volatile_packs for p in pack.get("lookup_keywords", ())]
    if lookup:
        k.lookup_keyword_re = re.compile("|".join(f"(?:{p})" for p in lookup), re.IGNORECASE)
    session_patterns = [p for pack in volatile_packs for p in pack.get("per_session_names", ())]
    if session_patterns:
        k.session_name_re = re.compile("|".join(f"(?:{p})" for p in session_patterns), re.IGNORECASE)
    k.system_prompt_stems = tuple(sorted(names(volatile_packs, "system_prompt_stems")))
    k.system_prompt_flags = names(volatile_packs, "system_prompt_flags")
    rests = [pack["system_prompt_rest"] for pack in volatile_packs if "system_prompt_rest" in pack]
    if rests:
        k.system_prompt_rest_re = re.compile("|".join(f"(?:{p})" for p in rests))
    k.stash_keys = (
        frozenset(body_keys)
        | frozenset(
            a.keyword
            for pack in sink_packs
            for e in pack.get("sinks", ())
            for a in _arguments(e["arguments"])
            if a.keyword
        )
        | frozenset(a.keyword for e in options.get("sinks", ()) for a in _config_sink_arguments(e) if a.keyword)
    )
    k.prefilter = _sink_prefilter(k)
    return k


def _sink_prefilter(k: Knowledge) -> SinkPrefilter:
    body_words = frozenset(key for key, tier in k.body_keys.items() if tier in PREFIX_TIERS)
    tokens = []
    for name, called, sink in k.sinks.tokens():
        words: set[str] = set()
        positional = False
        for argument in sink.arguments:
            if argument.tier in PREFIX_TIERS or argument.tier == "setting":
                positional = positional or (argument.tier in PREFIX_TIERS and argument.position is not None)
                if argument.keyword:
                    words.add(argument.keyword)
            elif argument.tier == "body":
                words.update(body_words)
            elif argument.tier == "specs":
                words.update(key for key, tier in argument.keys if tier in PREFIX_TIERS)
            elif argument.tier == "messages" and sink.explicit_cache is not None and argument.keyword:
                # a provider that caches only at a marker: the first message of a request repeated
                # in a loop can carry its static prefix on (CL107) with no tools or system sent
                words.add(argument.keyword)
        tokens.append(SinkToken(name, called, frozenset(words), positional))
    return build_sink_prefilter(
        tokens,
        decorators=k.decorators.last_segments(),
        message_roles=k.first_message_roles,
        system_classes=[(name, called) for name, called, _ in k.system_message_classes.tokens()],
        provider_types=k.providers.last_segments(),
    )


@functools.lru_cache(maxsize=8)
def _cached(pack_paths: tuple[str, ...], options_json: str, folder: Any = None) -> Knowledge:
    from cachelint.catalog import load_packs

    return build_knowledge(
        load_packs("code-sinks", pack_paths, folder),
        load_packs("code-order", pack_paths, folder),
        load_packs("code-volatile", pack_paths, folder),
        json.loads(options_json),
    )


def knowledge_for(settings: Any) -> Knowledge:
    """The compiled knowledge for these settings (cached per worker process)."""
    options = dict(settings.section("code")) if settings is not None else {}
    paths = tuple(settings.pack_paths()) if settings is not None else ()
    folder = settings.catalog_folder if settings is not None else None
    return _cached(paths, json.dumps(options, sort_keys=True), folder)


@functools.lru_cache(maxsize=1)
def setting_losses() -> Mapping[str, str]:
    """What a change of each cache-key setting loses, by the request parameter it is passed as
    (``tool_choice``, ``text``…): the words (``loses``) of the audit's dated invalidation table, the
    built-in ``payloads-invalidation`` packs, from the first provider that words the setting. One
    table of what invalidates what, read by the audit and the code checks alike."""
    return _setting_words("loses")


def setting_cache_keeping_changes() -> Mapping[str, str]:
    """How a provider lets each cache-key setting change mid-conversation without losing the
    cached prefix (``keep_cache`` of the same table: an effort-only system message, a
    ``configuration_update`` input item), by the request parameter it is passed as."""
    return _setting_words("keep_cache")


def _setting_words(field_name: str) -> Mapping[str, str]:
    from cachelint.catalog import load_packs

    out: dict[str, str] = {}
    for pack in load_packs("payloads-invalidation"):
        for settings in (pack.get("providers") or {}).values():
            for name, row in settings.items():
                if isinstance(row.get(field_name), str):
                    out.setdefault(row.get("parameter", name), row[field_name])
    return out
