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
joined here into one scanner: one ``search`` over a text finds the first place any shape matches,
instead of one pass per shape (a text without a key costs one pass of one compiled pattern).

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
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

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


@dataclass(frozen=True)
class SecretPattern:
    name: str
    regex: re.Pattern[str]
    keep: int
    min_entropy: float | None = None


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s own character frequencies (0 for an empty text)."""
    n = len(text)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


@dataclass(frozen=True)
class SecretMasker:
    patterns: tuple[SecretPattern, ...]
    # every pattern as one alternation, each in a group of its own: ``lastindex`` says which matched
    scanner: re.Pattern[str] | None = None
    # the scanner's group number of each pattern -> (pattern, the group to mask)
    groups: Mapping[int, tuple[SecretPattern, int]] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "SecretMasker":
        out = []
        for pack in packs:
            for p in pack.get("patterns", ()):
                # ASCII: a mask replaces ASCII with ASCII, so the bytes keep their length too
                entropy = p.get("min-entropy")
                out.append(
                    SecretPattern(
                        p["name"],
                        re.compile(p["regex"], re.ASCII),
                        int(p.get("keep", 0)),
                        float(entropy) if entropy is not None else None,
                    )
                )
        return cls.of(out)

    @classmethod
    def of(cls, patterns: Sequence[SecretPattern]) -> "SecretMasker":
        parts: list[str] = []
        groups: dict[int, tuple[SecretPattern, int]] = {}
        number = 1
        for p in patterns:
            parts.append(f"({_scoped_flags(p.regex.pattern)})")
            groups[number] = (p, number + 1 if p.regex.groups else number)
            number += 1 + p.regex.groups
        scanner = re.compile("|".join(parts), re.ASCII) if parts else None
        return cls(tuple(patterns), scanner, groups)

    # --- finding ----------------------------------------------------------------------------------

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """The (start, end) of each masked run of ``text`` (the kept prefix excluded)."""
        scanner = self.scanner
        if scanner is None:
            return []
        spans: list[tuple[int, int]] = []
        pos = 0
        search = scanner.search
        while True:
            m = search(text, pos)
            if m is None:
                return spans
            pattern, group = self.groups[m.lastindex or 0]
            start, end = m.span(group)
            if pattern.min_entropy is not None and shannon_entropy(text[start:end]) < pattern.min_entropy:
                # a word, not a key: the value itself may still hold a key of another shape
                pos = max(start, m.start() + 1)
                continue
            if end - start > pattern.keep:
                spans.append((start + pattern.keep, end))
            pos = max(m.end(), m.start() + 1)

    def _wrapped_spans(self, text: str) -> list[tuple[int, int]]:
        """Spans of keys that run over a line break: found in ``text`` with the breaks between key
        characters left out, mapped back to ``text`` (one span per piece between breaks)."""
        if "\n" not in text and "\r" not in text and "\\" not in text:
            return []
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
        out = []
        for start, end in self._spans("".join(pieces)):
            i = bisect.bisect_right(joined_starts, start) - 1
            while i < len(pieces) and joined_starts[i] < end:
                lo = max(start, joined_starts[i]) - joined_starts[i] + text_starts[i]
                hi = min(end, joined_starts[i] + len(pieces[i])) - joined_starts[i] + text_starts[i]
                if hi > lo:
                    out.append((lo, hi))
                i += 1
        return out

    # --- masking ----------------------------------------------------------------------------------

    def mask(self, text: str) -> str:
        """``text`` with every key-shaped string masked (the same length)."""
        spans = self._spans(text) + self._wrapped_spans(text)
        if not spans:
            return text
        chars = list(text)
        for start, end in spans:
            chars[start:end] = MASK * (end - start)
        return "".join(chars)

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

    def mask_value(self, value: Any) -> Any:
        """Strings masked inside lists, tuples, mappings (keys too) and dataclass instances (the
        audit's typed summary); other values as they are."""
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, dict):
            return {self.mask_value(k): self.mask_value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.mask_value(v) for v in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {f.name: self.mask_value(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
            return dataclasses.replace(value, **changes)
        return value

    def mask_diagnostic(self, d: Diagnostic) -> Diagnostic:
        """The finding as it may be printed or stored: message, details and path masked (a key
        can name a folder); a fix whose edits would write a key is left out of it (its text
        cannot be shown, and a masked edit would write ``*`` into the file), its description
        masked otherwise."""
        changes: dict[str, Any] = {}
        message = self.mask(d.message)
        if message != d.message:
            changes["message"] = message
        if d.details:
            details = self.mask_value(dict(d.details))
            if details != d.details:
                changes["details"] = details
        path = self.mask(d.path)
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


_GLOBAL_FLAGS = re.compile(r"\(\?([imsx]+)\)")


def _scoped_flags(source: str) -> str:
    """A pattern that opens with global flags (``(?i)key…``, as a user's pack may) as the same
    pattern with the flags scoped to it: in an alternation, global flags are an error."""
    m = _GLOBAL_FLAGS.match(source)
    return f"(?{m.group(1)}:{source[m.end():]})" if m else source


def reach(text: str, start: int, end: int) -> tuple[int, int]:
    """The window of ``text`` that masking ``text[start:end]`` reads (``SecretMasker.cut``): from
    ``_CONTEXT`` characters before the run of key characters ``start`` falls in to as far after
    the run ``end`` falls in. A caller that holds only part of a larger text (an excerpt's
    rendering) reads more when the window touches an edge of its part."""
    return max(0, _run_start(text, start) - _CONTEXT), min(len(text), _RUN.match(text, end).end() + _CONTEXT)


def _run_start(text: str, pos: int) -> int:
    """Where the run of key characters that ends at ``pos`` starts (``pos`` if none does)."""
    size = 1024
    while True:
        lo = max(0, pos - size)
        found = _RUN_REVERSED.match(text[lo:pos][::-1]).end()
        if found < pos - lo or lo == 0:
            return pos - found
        size *= 8


def mask_bytes(data: bytes) -> bytes:
    """``data`` masked with the built-in patterns, byte for byte the same length."""
    return masker().cut_bytes(data, 0, len(data))


@functools.lru_cache(maxsize=None)
def masker(pack_paths: Sequence[str] = (), folder: "CatalogFolder | None" = None) -> SecretMasker:
    """The masker of the built-in patterns and the user's packs of that kind (``folder``: where
    the catalog keeps them as JSON, ``cachelint.catalog.load_packs``)."""
    from cachelint.catalog import load_packs

    return SecretMasker.from_packs(load_packs("payloads-secret-patterns", tuple(pack_paths), folder))
