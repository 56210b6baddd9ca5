"""Masking key-shaped strings in what cachelint prints and stores.

The readers drop credentials from headers, URLs and known body fields (``payloads/secrets.py``),
but a key pasted into prompt *content* (a system prompt, a tool description, a message) is data
the audit compares, and its excerpts and explanations quote it; a code or skill finding quoting a
source line, a YAML key or a file name could too. Every finding is masked on its way out
(``engine.finalize``, which every run and the API go through: message, details, path, fix), the
results cache stores findings masked, ``check --diff`` masks both texts before it compares them,
and an excerpt is cut from a masked window (``SecretMasker.cut``) that reaches past its edges to
the whole value an edge falls in: a 2 KB token after ``Bearer`` is recognised whole, however
little of it the excerpt shows.

A mask keeps the pattern's ``keep`` first characters (``sk-ant-``, ``AKIA``: what kind of key it
was) and turns each later one into ``*``: the text keeps its length in characters and in bytes (the
patterns match ASCII only), so a byte offset, a column and the ``⟨`` divergence marker of an
excerpt still point at the same place. The shapes are data (rules/packs/payloads-secret-patterns.yaml),
compiled once per run; each declares the literals it needs (``keywords``, as gitleaks' rules do),
and only the patterns whose keywords a text holds run on it; a text with no run of key characters
long enough to be a key (most of what an audit prints) costs one pass of one pattern.

A key wrapped over lines (``sk-or-v1-3f8a…`` then the rest on the next line, or a PEM body) is
found in a second view of the text where a line break between two key characters, raw or escaped
as in JSON (``\\n``), is left out; what is found there is masked in the text itself, line breaks
kept.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from cachelint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cachelint.catalog import CatalogFolder

MASK = "*"

# The characters a key is made of (base64, base64url, hex, the separators of prefixed keys): an
# excerpt's edge inside a run of them is inside a value, and the window masked around the excerpt
# reaches to both ends of that run.
_KEY_CHARS = "A-Za-z0-9+/=_.~-"
# A line break, raw or escaped as JSON writes it, and the indentation after it.
_LINE_BREAK = r"(?:\r\n|\r|\n|\\r\\n|\\n|\\r)[ \t]*"
# a line break between two key characters: where a wrapped key continues
_JOIN = re.compile(rf"(?<=[{_KEY_CHARS}]){_LINE_BREAK}(?=[{_KEY_CHARS}])")
_RUN = re.compile(rf"(?:[{_KEY_CHARS}]|{_LINE_BREAK}(?=[{_KEY_CHARS}]))*")
# the same run read backwards (the text reversed): breaks first, as ``\n`` reversed is ``n\``
_RUN_REVERSED = re.compile(rf"(?:[ \t]*(?:\n\r|\r|\n|n\\r\\|n\\|r\\)(?=[{_KEY_CHARS}])|[{_KEY_CHARS}])*")
# How far before (and after) the run an edge falls in the window still reaches: the credential
# word of a pattern with context (``Bearer ``, ``aws_secret_access_key = ``, ``postgres://user:``)
# stands within this distance of its value.
_CONTEXT = 256
_MASKED_RUN = re.compile(re.escape(MASK) + "+")
# What every key of the built-in shapes holds: a run of 15 key characters (the shortest, a Slack
# token, is 15 long; the others 16 or more; a PEM body's lines are 64), or the ``://`` before a
# URL's password (which may be one character). Their keywords are looked for only in a text that
# holds one: one scan for it costs less than the keywords' substring tests (interleaved on an
# excerpt's kilobyte here: ~26 µs against ~470 µs), and most texts a finding carries (ids, names,
# tiers) hold none. A user's pattern is not bound by it (its keys may be shorter).
_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_.~-]{15}|://")


@dataclass(frozen=True)
class SecretPattern:
    name: str
    source: str  # the regular expression, compiled with re.ASCII on first use (``regex``)
    keep: int
    min_entropy: float | None = None
    # lower-case literals one of which every match contains: the pattern runs only on a text that
    # holds one (none: it runs on every text)
    keywords: tuple[str, ...] = ()
    # a built-in shape: each match holds a run of 15 key characters or a ``://`` (``_CANDIDATE``)
    screened: bool = False

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        # ASCII: a mask replaces ASCII with ASCII, so the bytes keep their length too
        return re.compile(self.source, re.ASCII)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The (start, end) of each run of ``text`` this pattern masks (its kept prefix left out)."""
        out = []
        for m in self.regex.finditer(text):
            start, end = m.span(1) if self.regex.groups else m.span()
            if self.min_entropy is not None and shannon_entropy(text[start:end]) < self.min_entropy:
                continue  # a word, not a key
            if end - start > self.keep:
                out.append((start + self.keep, end))
        return out


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s own character frequencies (0 for an empty text)."""
    n = len(text)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


@dataclass(frozen=True)
class SecretMasker:
    patterns: tuple[SecretPattern, ...]
    # keyword -> the indexes of the screened patterns that declare it, and of the others
    screened_keywords: Mapping[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    open_keywords: Mapping[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    # the patterns that declare no keyword: they run on every text
    unfiltered: tuple[int, ...] = ()

    @classmethod
    def from_packs(cls, packs: Sequence[Mapping[str, Any]], screened_packs: int = 0) -> "SecretMasker":
        """The masker of ``packs``' patterns; those of the first ``screened_packs`` packs (the
        built-in ones) are screened by ``_CANDIDATE``."""
        out = []
        for number, pack in enumerate(packs):
            for p in pack.get("patterns", ()):
                entropy = p.get("min-entropy")
                pattern = SecretPattern(
                    p["name"],
                    p["regex"],
                    int(p.get("keep", 0)),
                    float(entropy) if entropy is not None else None,
                    tuple(sorted(k.lower() for k in p.get("keywords", ()))),
                    number < screened_packs,
                )
                if not pattern.screened:
                    # a user's pattern that does not compile fails here, where the packs are
                    # read; the built-in ones (tested) are compiled when a text first needs one:
                    # most runs mask texts that hold the keywords of a few of them
                    pattern.regex  # noqa: B018
                out.append(pattern)
        return cls.of(out)

    @classmethod
    def of(cls, patterns: Sequence[SecretPattern]) -> "SecretMasker":
        screened: dict[str, list[int]] = {}
        open_: dict[str, list[int]] = {}
        for i, p in enumerate(patterns):
            for k in p.keywords:
                (screened if p.screened else open_).setdefault(k, []).append(i)
        return cls(
            tuple(patterns),
            {k: tuple(v) for k, v in sorted(screened.items())},
            {k: tuple(v) for k, v in sorted(open_.items())},
            tuple(i for i, p in enumerate(patterns) if not p.keywords),
        )

    def _selected(self, text: str) -> list[SecretPattern]:
        """The patterns ``text`` holds a keyword of (and those without keywords), in pack order;
        the built-in shapes only when ``text`` passes ``_CANDIDATE``."""
        chosen = list(self.unfiltered)
        keywords = [self.open_keywords]
        if self.screened_keywords and _CANDIDATE.search(text) is not None:
            keywords.append(self.screened_keywords)
        lowered = text.lower()
        for table in keywords:
            for word, indexes in table.items():
                if word in lowered:
                    chosen.extend(indexes)
        return [self.patterns[i] for i in sorted(set(chosen))]

    # --- masking ----------------------------------------------------------------------------------

    def mask(self, text: str) -> str:
        """``text`` with every key-shaped string masked (the same length)."""
        masked = self._mask_pass(text)
        if "\n" in text or "\r" in text or "\\" in text:
            # from the text as it was: a first half long enough to be masked on its own would
            # no longer join the second
            masked = _masked(masked, self._wrapped_spans(text))
        return masked

    def _mask_pass(self, text: str) -> str:
        """One pass of each pattern whose keywords ``text`` holds, in the pack's order, each over
        the text the ones before it masked (a key that ``api_key=`` announces keeps the prefix
        its own shape shows)."""
        for pattern in self._selected(text):
            text = _masked(text, pattern.spans(text))
        return text

    def _wrapped_spans(self, text: str) -> list[tuple[int, int]]:
        """Keys that run over a line break: masked in a view of ``text`` with the breaks between
        key characters left out; the spans of ``text`` masked there (breaks left out of them)."""
        joined_starts: list[int] = []  # where each piece starts in the joined text
        text_starts: list[int] = []  # and in ``text``
        pieces: list[str] = []
        last = length = 0
        for m in _JOIN.finditer(text):
            joined_starts.append(length)
            text_starts.append(last)
            pieces.append(text[last : m.start()])
            length += m.start() - last
            last = m.end()
        if not pieces:
            return []
        joined_starts.append(length)
        text_starts.append(last)
        pieces.append(text[last:])
        joined = "".join(pieces)
        masked = self._mask_pass(joined)
        spans: list[tuple[int, int]] = []
        if masked == joined:
            return spans
        for run in _MASKED_RUN.finditer(masked):
            start, end = run.span()
            i = bisect.bisect_right(joined_starts, start) - 1
            while i < len(pieces) and joined_starts[i] < end:
                lo = max(start, joined_starts[i]) - joined_starts[i] + text_starts[i]
                hi = min(end, joined_starts[i] + len(pieces[i])) - joined_starts[i] + text_starts[i]
                spans.append((lo, hi))
                i += 1
        return spans

    def cut(self, text: str, start: int, end: int) -> str:
        """``text[start:end]`` masked as in the whole text: the window masked reaches past each
        edge to the ends of the run of key characters it falls in (over wrapped lines too), and
        ``_CONTEXT`` characters further for the words that announce a value. Linear in the
        window, not in ``text``: what an excerpt costs, whatever the size of the request."""
        start, end = max(0, start), min(len(text), end)
        if start >= end:
            return ""
        lo, hi = reach(text, start, end)
        return self.mask(text[lo:hi])[start - lo : end - lo]

    def cut_bytes(self, data: bytes, start: int, end: int) -> bytes:
        """``data[start:end]`` masked as ``cut`` masks a text, byte for byte (each byte read as
        one character: the patterns are ASCII, and a mask never splits a character's bytes)."""
        return self.cut(data.decode("latin-1"), start, end).encode("latin-1")

    def mask_value(self, value: Any, memo: dict[str, str] | None = None) -> Any:
        """Strings masked inside lists, tuples, mappings (keys too) and dataclass instances (the
        audit's typed summary); other values as they are. ``memo``: the texts already masked in
        this run (the same keys, tiers and paths recur in every finding)."""
        if memo is None:
            memo = {}
        # A container none of whose strings changes is returned itself, not copied: the masked
        # summary of a run of many sessions would otherwise hold every session twice (and a
        # mapping reached twice, such as a session's usage, twice more).
        if isinstance(value, str):
            masked = memo.get(value)
            if masked is None:
                masked = memo[value] = self.mask(value)
            return value if masked == value else masked
        if isinstance(value, dict):
            pairs = [(k, v, self.mask_value(k, memo), self.mask_value(v, memo)) for k, v in value.items()]
            if all(mk is k and mv is v for k, v, mk, mv in pairs):
                return value
            return {mk: mv for _, _, mk, mv in pairs}
        if isinstance(value, (list, tuple)):
            items = [self.mask_value(v, memo) for v in value]
            if all(m is v for m, v in zip(items, value)):
                return value
            return type(value)(items)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                if f.init:
                    old = getattr(value, f.name)
                    new = self.mask_value(old, memo)
                    if new is not old:
                        changes[f.name] = new
            return dataclasses.replace(value, **changes) if changes else value
        return value

    def mask_diagnostic(self, d: Diagnostic, memo: dict[str, str] | None = None) -> Diagnostic:
        """The finding as it may be printed or stored: message, details and path masked (a key
        can name a folder); a fix whose edits would write a key is left out of it (its text
        cannot be shown, and a masked edit would write ``*`` into the file), its description
        masked otherwise."""
        memo = {} if memo is None else memo
        changes: dict[str, Any] = {}
        message = self.mask(d.message)
        if message != d.message:
            changes["message"] = message
        if d.details:
            details = self.mask_value(dict(d.details), memo)
            if details != d.details:
                changes["details"] = details
        path = self.mask_value(d.path, memo)
        if path != d.path:
            changes["path"] = path
        if d.fix is not None:
            if any(self.mask(e.content) != e.content or self.mask(e.path or "") != (e.path or "") for e in d.fix.edits):
                changes["fix"] = None
            else:
                description = self.mask(d.fix.description)
                if description != d.fix.description:
                    changes["fix"] = dataclasses.replace(d.fix, description=description)
        return d.with_changes(**changes) if changes else d


def _masked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with each (start, end) span turned into ``*``."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = MASK * (end - start)
    return "".join(chars)


def reach(text: str, start: int, end: int) -> tuple[int, int]:
    """The window of ``text`` that masking ``text[start:end]`` reads (``SecretMasker.cut``): from
    ``_CONTEXT`` characters before the run of key characters ``start`` falls in to as far after
    the run ``end`` falls in. A caller that holds only part of a larger text (an excerpt's
    rendering) reads more when the window touches an edge of its part."""
    return max(0, _run_start(text, start) - _CONTEXT), min(len(text), end + _run_length(_RUN, text, end) + _CONTEXT)


def _run_length(run: re.Pattern[str], text: str, pos: int) -> int:
    m = run.match(text, pos)  # the runs match the empty text too: never None
    return m.end() - pos if m is not None else 0


def _run_start(text: str, pos: int) -> int:
    """Where the run of key characters that ends at ``pos`` starts (``pos`` if none does)."""
    size = 1024
    while True:
        lo = max(0, pos - size)
        found = _run_length(_RUN_REVERSED, text[lo:pos][::-1], 0)
        if found < pos - lo or lo == 0:
            return pos - found
        size *= 8


@functools.lru_cache(maxsize=None)
def masker(pack_paths: Sequence[str] = (), folder: "CatalogFolder | None" = None) -> SecretMasker:
    """The masker of the built-in patterns and the user's packs of that kind (``folder``: where
    the catalog keeps them as JSON, ``cachelint.catalog.load_packs``)."""
    from cachelint.catalog import load_packs

    built_in = load_packs("payloads-secret-patterns", (), folder)
    every = load_packs("payloads-secret-patterns", tuple(pack_paths), folder)  # the built-in ones first
    return SecretMasker.from_packs(every, screened_packs=len(built_in))
