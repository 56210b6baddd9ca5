"""Decoding a JSONL record without decoding the bytes it repeats from a recent record.

Agents resend their whole prompt on every turn: the tools (98% of consecutive requests send them
byte for byte), the system prompt and the history, to which a turn appends one or two messages.
Decoding every line in full costs as much as ``orjson.loads`` of the whole log before any work is
done (the audit's speed target in docs/benchmarks.md is that floor). So the JSONL reader keeps, for a few
recent records, where the body's ``tools`` / ``functions`` / ``system`` values and the elements of
its history array (``messages``, Responses ``input``) sit in the line, and what the provider
adapter built from them (a ``BuildTrace``). A new line is compared with those bytes at C speed
(``bytes.startswith`` on a memoryview: a memcmp, no copy), and only the rest is decoded: the line
with the repeated values cut out, typically the new messages, the response and a few settings.

Correctness comes first, and rests on one fact: equal bytes decode to equal values, and the
adapter builds blocks from values, so the block replayed for a repeated value is the block a fresh
build would give. A raw mismatch never means a break; it only means "decode this part" (a cache
marker that moved forward changes the raw bytes of the message it left, and that message is then
decoded and its marker stripped as before). Anything unexpected (a value that does not end where
it should, a repeated key, a trace of another provider) falls back to decoding the line in full.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cachelint.payloads.jsonio import dumps, loads
from cachelint.payloads.trace import BuildTrace, KnownBlock, KnownRun

# Body keys whose whole value is reused (tools lists, the system value) and keys of history arrays
# whose elements are reused one by one; what the adapters record in a BuildTrace.
RUN_KEYS = ("tools", "functions", "system")
HISTORY_KEYS = ("messages", "input")
# Where a request body sits in a JSONL record: a bare body, an envelope, an HTTP-shaped envelope,
# an OpenAI Batch input line (cachelint.payloads.readers.records_from_value decides which).
BODY_PATHS = ((), ("request",), ("request", "body"), ("body",))

_WS = re.compile(rb"[ \t\r\n]*")
_WS_BYTES = frozenset(b" \t\r\n")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_SCALAR = re.compile(rb"-?[0-9][0-9eE.+-]*|true|false|null")
_TRAILING = "unexpected content after document"  # orjson's message for a value followed by more
_FIRST_WINDOW = 4096  # bytes ``value_end`` first gives orjson (a message, a system prompt)


class _NoReuse(Exception):
    """The line does not have the expected shape: decode it in full."""


@dataclass
class LineIndex:
    """Where the reusable values of one line's body sit, and what was built from them.

    ``runs``: body key -> (start, end) of its value in ``raw``; ``elements``: (start, end) of every
    element of the ``history_key`` array; ``trace``: filled by the adapter when the record is
    turned into a request (an index whose trace stayed empty is never used)."""

    raw: bytes
    path: tuple[str, ...]
    runs: dict[str, tuple[int, int]]
    history_key: str | None
    elements: list[tuple[int, int]]
    # where the history's first element starts, and the body's member names before the history
    # (a line that repeats the bytes up to there has the same members, checked when indexed)
    history_first: int | None = None
    keys_before: frozenset[str] = frozenset()
    trace: BuildTrace = field(default_factory=BuildTrace)
    # where the body object starts: a log format's record may hold fields of its own before it
    # (an id, a time), which differ from line to line while the body repeats
    body_start: int = 0
    view: memoryview = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.view = memoryview(self.raw)

    def usable_history(self) -> bool:
        t = self.trace
        return (
            t.provider is not None
            and self.history_key is not None
            and t.history_key == self.history_key
            and len(t.history) == len(self.elements)
        )


@dataclass
class Decoded:
    """A line decoded with reuse: the record's JSON value (the body holds KnownRun / KnownBlock
    where bytes were reused), and the line's own index (its trace is filled later)."""

    value: Any
    index: LineIndex
    reused_bytes: int


class LineReuse:
    """The recent lines of one JSONL file whose bytes a new line may repeat.

    ``keep`` lines at most (several sessions may interleave in one log), within ``budget`` bytes
    of raw lines, so memory stays bounded whatever the log's length.

    The common case costs a few memcmps: the line repeats a recent line's bytes up to the first
    element of the history (envelope, settings, tools, system: one comparison), then the first k
    history elements (a binary search on whole runs of elements). Otherwise the body's members are
    scanned one by one and each tools / system / history value is compared on its own."""

    def __init__(
        self, keep: int = 8, budget: int = 64 * 1024 * 1024, body_paths: tuple[tuple[str, ...], ...] = ()
    ) -> None:
        self.keep = keep
        self.budget = budget
        # where a log format's records hold the body (``request_body``…), besides BODY_PATHS
        self.body_paths = BODY_PATHS + tuple(p for p in body_paths if p not in BODY_PATHS)
        self._recent: list[LineIndex] = []  # most recent first
        self._bytes = 0
        self.reused = 0  # lines decoded with reuse (for benchmarks and tests)
        self.reused_bytes = 0

    # -- decoding -------------------------------------------------------------------------------

    def decode(self, raw: bytes) -> Decoded | None:
        """The line decoded with the bytes it repeats cut out, or None when nothing recent can be
        reused (or the line is not shaped as expected): the caller then decodes it in full."""
        candidates = [c for c in self._recent if c.trace.provider is not None]
        if not candidates:
            return None
        try:
            return self._decode(raw, candidates)
        except (_NoReuse, ValueError, RecursionError, IndexError, KeyError, TypeError):
            return None

    def _decode(self, raw: bytes, candidates: list[LineIndex]) -> Decoded | None:
        # Among the recent lines whose bytes the line repeats up to the history (same envelope,
        # settings, tools and system: typically every line of the same agent), the one whose
        # history it repeats furthest: with sessions interleaved, its own previous request.
        best: tuple[int, LineIndex, _Layout] | None = None
        starts: dict[tuple[str, ...], int | None] = {}
        for candidate in candidates:
            first = candidate.history_first
            if first is None:
                continue
            layout: _Layout | None = None
            if raw.startswith(candidate.view[:first]):
                layout = _Layout.shifted(candidate, 0)
            else:
                # the same body after record fields of other lengths (a log format's id, time)
                cut = candidate.body_start
                start: int | None = 0
                if cut:
                    if candidate.path not in starts:
                        starts[candidate.path] = _body_start(raw, candidate.path)
                    start = starts[candidate.path]
                    if start is not None and raw.startswith(candidate.view[cut:first], start):
                        layout = _Layout.shifted(candidate, start - cut)
                if layout is None and start is not None:
                    # the same bytes but for a tools or system value of its own (a clock in the
                    # system prompt): the history found without scanning the body
                    layout = _changed_runs(raw, candidate, start, cut)
                if layout is None:
                    continue
            k = _common_elements(raw, layout.first, candidate) if candidate.usable_history() else 0
            if best is None or k > best[0]:
                best = (k, candidate, layout)
            if k >= len(candidate.elements) - 1:
                break  # the line continues this one: good enough, stop comparing
        if best is not None:
            return self._decode_same_prefix(raw, best[1], best[0], best[2])
        return self._decode_scanned(raw, candidates)

    def _decode_same_prefix(self, raw: bytes, candidate: LineIndex, k: int, layout: "_Layout") -> Decoded | None:
        """The line repeats ``candidate`` up to its history's first element (the same envelope,
        the same body members before the history, the same tools and system bytes but for the
        values ``layout`` says changed), then its first ``k`` history elements. ``layout``: where
        the candidate's runs and history sit in the line (record fields of another length
        before the body, a system value of another length, move them)."""
        assert candidate.history_first is not None
        first = layout.first
        delta = first - candidate.history_first  # how far the history (and what follows) moved
        view = memoryview(raw)
        after = first
        if k:
            pos = _ws(raw, candidate.elements[k - 1][1] + delta)
            sep = raw[pos : pos + 1]
            if sep == b",":
                after = _ws(raw, pos + 1)
            elif sep == b"]":
                after = pos
            else:
                raise _NoReuse("expected ',' or ']' after the repeated history")
        unmarked = _unmarked(raw, after, candidate, k) if k else None
        moved_from = after
        if unmarked is not None:
            after = unmarked[1]
        known_runs = candidate.trace.runs
        cuts = [(s, e, b"null", key) for key, (s, e) in layout.runs.items() if e <= first and key in known_runs]
        if not cuts and not k:
            return None
        pieces: list[Any] = []
        at = 0
        for start, end, replacement, _ in cuts:  # runs sit before the history, in order
            pieces += (view[at:start], replacement)
            at = end
        pieces += (view[at:first], view[after:])
        value = loads(b"".join(pieces))
        path = candidate.path
        body = follow_path(value, path)
        if not isinstance(body, dict):
            raise _NoReuse("no body at the expected place")
        runs = {key: (s, e) for s, e, _, key in cuts}
        runs.update(layout.fresh)
        for _, _, _, key in cuts:
            if body.get(key, False) is not None:
                raise _NoReuse(f"{key} is not where it was cut")
            body[key] = known_runs[key]
        history_key = candidate.history_key
        rest = body.get(history_key)
        if not isinstance(rest, list):
            raise _NoReuse("no history array")
        ascii_only = raw[after:].isascii()  # only the bytes from ``after`` on are scanned below
        elements = [(s + delta, e + delta) for s, e in candidate.elements[:k]] if delta else candidate.elements[:k]
        if unmarked is not None:
            elements.append((moved_from, unmarked[2]))
        end = _element_spans(raw, view, after, rest, ascii_only, elements)
        seen = set(candidate.keys_before)
        seen.add(history_key)  # type: ignore[arg-type]
        body_end = _members_after(raw, view, end, body, ascii_only, seen, runs)
        for name in path:  # a repeated envelope key would make the decoded record use the last one
            if raw.find(b'"' + name.encode() + b'"', body_end) >= 0:
                raise _NoReuse(f"{name!r} appears after the body")
        if unmarked is not None:
            rest.insert(0, unmarked[0])
        if k:
            body[history_key] = candidate.trace.history[:k] + rest
        index = LineIndex(
            raw,
            path,
            runs,
            history_key,
            elements,
            first,
            candidate.keys_before,
            body_start=layout.body_start,
        )
        if k:
            index.trace.reuse_from = (candidate.trace, k)
        reused = sum(e - s for s, e, _, _ in cuts) + after - first
        self.reused += 1
        self.reused_bytes += reused
        return Decoded(value, index, reused)

    def _decode_scanned(self, raw: bytes, candidates: list[LineIndex]) -> Decoded | None:
        path = candidates[0].path
        candidates = [c for c in candidates if c.path == path]
        view = memoryview(raw)
        ascii_only = raw.isascii()
        body_start = _locate(raw, view, path, ascii_only)
        scan = _scan_body(raw, view, body_start, ascii_only, candidates, None)
        if not scan.reused_runs and not scan.reused_elements:
            return None
        cuts = [(s, e, b"null") for s, e, _ in scan.reused_runs]
        if scan.history_cut is not None:
            cuts.append((*scan.history_cut, b""))
        cuts.sort()
        pieces: list[bytes | memoryview] = []
        at = 0
        for start, end, replacement in cuts:
            pieces.append(view[at:start])
            pieces.append(replacement)
            at = end
        pieces.append(view[at:])
        value = loads(b"".join(pieces))
        body = follow_path(value, path)
        if not isinstance(body, dict):
            raise _NoReuse("no body at the expected place")
        for start, end, known in scan.reused_runs:
            key = scan.run_keys[(start, end)]
            if body.get(key, False) is not None:
                raise _NoReuse(f"{key} is not where it was cut")
            body[key] = known
        if scan.reused_elements:
            rest = body.get(scan.history_key)
            if not isinstance(rest, list) or len(rest) != len(scan.elements) - len(scan.reused_elements):
                raise _NoReuse("the history array does not hold the elements scanned")
            body[scan.history_key] = scan.reused_elements + rest
        index = LineIndex(
            raw,
            path,
            scan.runs,
            scan.history_key,
            scan.elements,
            scan.history_first,
            scan.keys_before,
            body_start=body_start,
        )
        if scan.history_source is not None:
            index.trace.reuse_from = (scan.history_source.trace, len(scan.reused_elements))
        reused = sum(e - s for s, e, _ in scan.reused_runs)
        if scan.history_cut is not None:
            reused += scan.history_cut[1] - scan.history_cut[0]
        self.reused += 1
        self.reused_bytes += reused
        return Decoded(value, index, reused)

    # -- remembering ----------------------------------------------------------------------------

    def index(self, raw: bytes, value: Any, body: Any) -> LineIndex | None:
        """The index of a line decoded in full (``value``), whose request body is ``body`` (the
        very object inside ``value``), or None when the body is not in a known place."""
        path = next((p for p in self.body_paths if follow_path(value, p) is body), None)
        if path is None or not isinstance(body, dict):
            return None
        try:
            view = memoryview(raw)
            ascii_only = raw.isascii()
            start = _locate(raw, view, path, ascii_only)
            scan = _scan_body(raw, view, start, ascii_only, [], body)
        except (_NoReuse, ValueError, RecursionError, IndexError):
            return None
        return LineIndex(
            raw,
            path,
            scan.runs,
            scan.history_key,
            scan.elements,
            scan.history_first,
            scan.keys_before,
            body_start=start,
        )

    def remember(self, index: LineIndex) -> None:
        self._recent.insert(0, index)
        self._bytes += len(index.raw)
        while len(self._recent) > self.keep or (self._bytes > self.budget and len(self._recent) > 1):
            self._bytes -= len(self._recent.pop().raw)


@dataclass(frozen=True)
class _Layout:
    """Where a candidate line's parts sit in a new line that repeats it up to its history:
    ``runs``: body key -> (start, end) of each candidate run the line repeats byte for byte;
    ``fresh``: the same for the run values the line has of its own (decoded, not reused);
    ``first``: where the history's first element starts; ``body_start``: where the body does."""

    runs: dict[str, tuple[int, int]]
    fresh: dict[str, tuple[int, int]]
    first: int
    body_start: int

    @classmethod
    def shifted(cls, candidate: LineIndex, delta: int) -> "_Layout":
        """Every part of the candidate ``delta`` bytes further on (record fields of another length
        before the body)."""
        assert candidate.history_first is not None
        runs = {key: (s + delta, e + delta) for key, (s, e) in candidate.runs.items()}
        return cls(runs, {}, candidate.history_first + delta, candidate.body_start + delta)


def _changed_runs(raw: bytes, candidate: LineIndex, start: int, cut: int) -> _Layout | None:
    """The layout of a line that repeats ``candidate`` from ``cut`` (at ``start`` in the line) up
    to its history but for some tools / system values: the bytes between the run values are
    compared as they are, a run value equal to the candidate's is reused, another one is
    measured (``value_end``: bounded by the value's own length) and decoded. None when the bytes
    between differ (another member, other settings) or the candidate has no run there."""
    first = candidate.history_first
    spans = sorted((s, e, key) for key, (s, e) in candidate.runs.items() if cut <= s and e <= (first or 0))
    if first is None or not spans:
        return None
    view = candidate.view
    runs: dict[str, tuple[int, int]] = {}
    fresh: dict[str, tuple[int, int]] = {}
    at, pos = cut, start  # in the candidate, in the line
    line_view: memoryview | None = None
    for s, e, key in spans:
        if not raw.startswith(view[at:s], pos):
            return None
        pos += s - at
        if raw.startswith(view[s:e], pos):
            runs[key] = (pos, pos + e - s)
            pos += e - s
        else:
            if raw[pos : pos + 1] not in (b"[", b"{", b'"'):
                return None
            if line_view is None:
                line_view = memoryview(raw)
            try:
                end = value_end(raw, line_view, pos, raw.isascii())
            except _NoReuse:
                return None
            fresh[key] = (pos, end)
            pos = end
        at = e
    if not fresh or not raw.startswith(view[at:first], pos):
        return None
    return _Layout(runs, fresh, pos + first - at, start)


# --- scanning the raw bytes -----------------------------------------------------------------------


def _body_start(raw: bytes, path: tuple[str, ...]) -> int | None:
    """Where the body object at ``path`` starts in a line, or None when it cannot be found."""
    try:
        return _locate(raw, memoryview(raw), path, raw.isascii())
    except (_NoReuse, ValueError, RecursionError, IndexError):
        return None


def follow_path(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _ws(raw: bytes, pos: int) -> int:
    if pos < len(raw) and raw[pos] not in _WS_BYTES:
        return pos  # compact JSON: no whitespace to skip, no regex call
    return _WS.match(raw, pos).end()  # type: ignore[union-attr]


def _key(raw: bytes, pos: int) -> tuple[str, int]:
    """The member name starting at ``pos`` and the position of its value."""
    match = _STRING.match(raw, pos)
    if match is None:
        raise _NoReuse("expected a member name")
    token = match.group()
    name = token[1:-1].decode("utf-8") if b"\\" not in token else loads(token)
    pos = _ws(raw, match.end())
    if raw[pos : pos + 1] != b":":
        raise _NoReuse("expected ':'")
    return name, _ws(raw, pos + 1)


def value_end(raw: bytes, view: memoryview, pos: int, ascii_only: bool) -> int:
    """Where the JSON value starting at ``pos`` ends (its trailing whitespace may be included).

    Strings and scalars by a regular expression; objects and arrays by letting orjson parse the
    value and report where the content after it starts (C speed; orjson counts characters, so a
    non-ASCII line needs the count turned into bytes)."""
    first = raw[pos : pos + 1]
    if first == b'"':
        return _string_end(raw, pos)
    if first not in (b"{", b"["):
        match = _SCALAR.match(raw, pos)
        if match is None:
            raise _NoReuse("not a JSON value")
        return match.end()
    import orjson

    # orjson reads the whole buffer it is given: parsed from ``pos`` to the end of the line, every
    # value of a line scanned member by member cost the rest of the line (quadratic in its
    # members; most of a decode where the system prompt changes on every request). A value
    # starting with "{" or "[" ends at its own closing bracket, so a window that holds it gives
    # the same answer: windows that grow eightfold read at most ~8/7 of the smallest one that
    # does. A window cut inside the value (or inside a UTF-8 sequence) fails otherwise, and is
    # widened; only the whole rest of the line is an answer for those failures.
    window = _FIRST_WINDOW
    while True:
        whole = pos + window >= len(raw)
        try:
            orjson.loads(view[pos:] if whole else view[pos : pos + window])
        except orjson.JSONDecodeError as exc:
            if str(exc).startswith(_TRAILING):
                chars = exc.pos
                break
            if whole:
                raise _NoReuse(str(exc)) from None
            window *= 8
        else:
            return len(raw) if whole else pos + window
    if ascii_only:
        return pos + chars
    text = bytes(view[pos : pos + 4 * chars]).decode("utf-8", "ignore")
    return pos + len(text[:chars].encode("utf-8"))


def _string_end(raw: bytes, pos: int) -> int:
    """Where the JSON string starting at ``pos`` ends: the first quote after it that an even run
    of backslashes precedes. ``bytes.find`` jumps from quote to quote at C speed, where a regular
    expression stepped through every character (a system prompt sent as one string of kilobytes
    cost ~0.1 ms a line). The string is not validated here: the bytes it spans are decoded."""
    at = pos + 1
    while True:
        quote = raw.find(b'"', at)
        if quote < 0:
            raise _NoReuse("unterminated string")
        escapes = quote
        while escapes > at and raw[escapes - 1] == 0x5C:  # backslash
            escapes -= 1
        if (quote - escapes) % 2 == 0:
            return quote + 1
        at = quote + 1


def _end_of(raw: bytes, view: memoryview, pos: int, ascii_only: bool, decoded: Any, has_decoded: bool) -> int:
    """``value_end``, first trying the compact serialisation of the decoded value (one memcmp
    when the producer wrote compact JSON, as most capture tools do)."""
    if has_decoded and raw[pos : pos + 1] in (b"{", b"["):
        try:
            data = dumps(decoded)
        except (TypeError, ValueError):
            data = b""
        if data and raw.startswith(data, pos):
            return pos + len(data)
    return value_end(raw, view, pos, ascii_only)


def _locate(raw: bytes, view: memoryview, path: tuple[str, ...], ascii_only: bool) -> int:
    """The position of the body object in the line."""
    pos = _ws(raw, 0)
    for name in path:
        if raw[pos : pos + 1] != b"{":
            raise _NoReuse("expected an object")
        # a repeated key would make the decoded record use the last one: take no chances
        if raw.count(b'"' + name.encode() + b'"') != 1:
            raise _NoReuse(f"{name!r} appears more than once")
        pos = _ws(raw, pos + 1)
        while True:
            key, start = _key(raw, pos)
            if key == name:
                pos = start
                break
            pos = _ws(raw, value_end(raw, view, start, ascii_only))
            if raw[pos : pos + 1] != b",":
                raise _NoReuse(f"no {name!r} member")
            pos = _ws(raw, pos + 1)
    if raw[pos : pos + 1] != b"{":
        raise _NoReuse("the body is not an object")
    return pos


@dataclass
class _Scan:
    runs: dict[str, tuple[int, int]] = field(default_factory=dict)
    run_keys: dict[tuple[int, int], str] = field(default_factory=dict)
    reused_runs: list[tuple[int, int, KnownRun]] = field(default_factory=list)
    history_key: str | None = None
    elements: list[tuple[int, int]] = field(default_factory=list)
    reused_elements: list[KnownBlock] = field(default_factory=list)
    history_cut: tuple[int, int] | None = None
    history_source: LineIndex | None = None
    history_first: int | None = None
    keys_before: frozenset[str] = frozenset()


def _scan_body(
    raw: bytes, view: memoryview, pos: int, ascii_only: bool, candidates: list[LineIndex], decoded: dict | None
) -> _Scan:
    """Every member of the body object at ``pos``: spans of the reusable values, and which of
    them repeat a candidate's bytes. ``decoded``: the body decoded in full (indexing a line read
    in full), or None (decoding with reuse)."""
    scan = _Scan()
    seen: set[str] = set()
    pos = _ws(raw, pos + 1)
    if raw[pos : pos + 1] == b"}":
        return scan
    while True:
        key, start = _key(raw, pos)
        if key in seen:
            raise _NoReuse(f"member {key!r} repeated")
        seen.add(key)
        has = decoded is not None and key in decoded
        value = decoded.get(key) if decoded is not None else None
        if key in HISTORY_KEYS and raw[start : start + 1] == b"[" and scan.history_key is None:
            scan.keys_before = frozenset(seen - {key})
            end = _scan_history(
                raw, view, start, ascii_only, candidates, key, value if has and isinstance(value, list) else None, scan
            )
        elif key in RUN_KEYS and raw[start : start + 1] in (b"[", b"{", b'"'):
            end = -1
            for candidate in candidates:
                span = candidate.runs.get(key)
                known = candidate.trace.runs.get(key)
                if span is not None and known is not None and raw.startswith(candidate.view[span[0] : span[1]], start):
                    end = start + span[1] - span[0]
                    scan.reused_runs.append((start, end, known))
                    break
            if end < 0:
                end = _end_of(raw, view, start, ascii_only, value, has)
            scan.runs[key] = (start, end)
            scan.run_keys[(start, end)] = key
        else:
            end = _end_of(raw, view, start, ascii_only, value, has)
        pos = _ws(raw, end)
        sep = raw[pos : pos + 1]
        if sep == b"}":
            return scan
        if sep != b",":
            raise _NoReuse("expected ',' or '}' in the body")
        pos = _ws(raw, pos + 1)


def _scan_history(
    raw: bytes,
    view: memoryview,
    start: int,
    ascii_only: bool,
    candidates: list[LineIndex],
    key: str,
    decoded: list | None,
    scan: _Scan,
) -> int:
    """The history array at ``start``: the longest run of leading elements that repeats a
    candidate's (found by binary search on whole runs of bytes: a few memcmps), then the spans of
    the others. Returns the end of the array."""
    scan.history_key = key
    first = _ws(raw, start + 1)
    if raw[first : first + 1] == b"]":
        return first + 1
    scan.history_first = first
    best: tuple[int, LineIndex] | None = None
    for candidate in candidates:
        if candidate.history_key != key or not candidate.usable_history():
            continue
        k = _common_elements(raw, first, candidate)
        if k and (best is None or k > best[0]):
            best = (k, candidate)
    pos = first
    count = 0
    if best is not None:
        k, candidate = best
        shift = first - candidate.elements[0][0]
        scan.elements = [(s + shift, e + shift) for s, e in candidate.elements[:k]]
        scan.reused_elements = candidate.trace.history[:k]
        scan.history_source = candidate
        pos = scan.elements[-1][1]
        count = k
    while True:
        pos = _ws(raw, pos)
        sep = raw[pos : pos + 1]
        if count and sep == b"]":
            break
        if count:
            if sep != b",":
                raise _NoReuse("expected ',' or ']' in the history")
            pos = _ws(raw, pos + 1)
        if best is not None and count == best[0]:
            scan.history_cut = (first, pos)  # the reused elements and the separator after them
        item = decoded[count] if decoded is not None and count < len(decoded) else None
        end = _end_of(raw, view, pos, ascii_only, item, decoded is not None and count < len(decoded))
        scan.elements.append((pos, end))
        count += 1
        pos = end
    if best is not None and scan.history_cut is None:
        scan.history_cut = (first, pos)  # every element reused: the array decodes as []
    return pos + 1


def _unmarked(raw: bytes, pos: int, candidate: LineIndex, k: int) -> tuple[KnownBlock, int, int] | None:
    """The message at ``pos`` when it is the candidate's k-th message with its cache marker gone:
    the marker moved forward, and the line now sends the message exactly as its canonical bytes
    (markers stripped). Then it decodes to the value those bytes were made from, whose block is
    the same bytes with no breakpoint: (that KnownBlock, position after it and its separator, end
    of the message), or None. Anthropic bodies only, whose markers are ``cache_control`` keys."""
    if k >= len(candidate.elements) or candidate.trace.provider != "anthropic" or raw[pos : pos + 1] != b"{":
        return None
    known = candidate.trace.history[k]
    block, positions, marks, images, citations = known.entry[:5]
    if not marks or not raw.startswith(block.data, pos):
        return None
    start, end = candidate.elements[k]
    if candidate.raw.find(b'"cachePoint"', start, end) >= 0:
        return None  # stripping a cachePoint part would change what detection sees in the message
    end = pos + len(block.data)
    after = _ws(raw, end)
    sep = raw[after : after + 1]
    if sep == b",":
        after = _ws(raw, after + 1)
    elif sep != b"]":
        return None
    entry = (block, positions, (), images, citations, 0)
    return KnownBlock(entry, known.variant, known.role, known.anthropic_content, known.converse_content), after, end


def _element_spans(
    raw: bytes, view: memoryview, pos: int, items: list, ascii_only: bool, spans: list[tuple[int, int]]
) -> int:
    """Append the spans of the decoded ``items``, which follow one another from ``pos`` (after
    the reused elements and their separator), to ``spans``; return the end of the array. Each
    span is found by comparing the item's compact serialisation with the bytes (one memcmp when
    the producer wrote compact JSON), else by ``value_end``."""
    for i, item in enumerate(items):
        if i:
            pos = _ws(raw, pos)
            if raw[pos : pos + 1] != b",":
                raise _NoReuse("expected ',' between history elements")
            pos = _ws(raw, pos + 1)
        end = _end_of(raw, view, pos, ascii_only, item, True)
        spans.append((pos, end))
        pos = end
    pos = _ws(raw, pos)
    if raw[pos : pos + 1] != b"]":
        raise _NoReuse("the history array holds more than was decoded")
    return pos + 1


def _members_after(
    raw: bytes,
    view: memoryview,
    pos: int,
    body: dict,
    ascii_only: bool,
    seen: set[str],
    runs: dict[str, tuple[int, int]],
) -> int:
    """The body members after the history (their run spans, for the next line), checking that no
    name repeats; returns the end of the body."""
    while True:
        pos = _ws(raw, pos)
        sep = raw[pos : pos + 1]
        if sep == b"}":
            return pos + 1
        if sep != b",":
            raise _NoReuse("expected ',' or '}' in the body")
        key, start = _key(raw, _ws(raw, pos + 1))
        if key in seen:
            raise _NoReuse(f"member {key!r} repeated")
        seen.add(key)
        pos = _end_of(raw, view, start, ascii_only, body.get(key), key in body)
        if key in RUN_KEYS and raw[start : start + 1] in (b"[", b"{", b'"'):
            runs[key] = (start, pos)


def _common_elements(raw: bytes, first: int, candidate: LineIndex) -> int:
    """How many leading elements of the candidate's history the line repeats at ``first``, byte
    for byte (separators included)."""
    elements = candidate.elements
    base = elements[0][0]
    view = candidate.view

    def repeats(k: int) -> bool:
        return raw.startswith(view[base : elements[k - 1][1]], first)

    n = len(elements)
    if n == 1:
        return 1 if repeats(1) else 0
    if repeats(n - 1):
        # The common case: the line repeats the whole history but maybe the last element (the
        # cache marker moved off it). Whether it repeats that one too needs only its own bytes
        # (and the separator before it) compared, not the whole history a second time: on a
        # real agent's 200 KB lines that halves the bytes compared.
        tail_start, tail_end = elements[n - 2][1], elements[n - 1][1]
        return n if raw.startswith(view[tail_start:tail_end], first + tail_start - base) else n - 1
    low, high = 0, n - 2  # repeats(low) holds (vacuously for 0); find the largest
    while low < high:
        mid = (low + high + 1) // 2
        if repeats(mid):
            low = mid
        else:
            high = mid - 1
    return low
