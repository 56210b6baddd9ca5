"""Volatile spans (CL309): the changed spans of a block whose every span is a value that ticks (a
date, an id, a counter), by the patterns of the ``payloads-volatile`` packs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from cachelint.payloads.diff.common import common_prefix_len, common_suffix_len


@dataclass(frozen=True)
class VolatilePatterns:
    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "VolatilePatterns":
        out: list[tuple[str, re.Pattern[str]]] = []
        for pack in packs:
            out += [(p["name"], re.compile(f"(?:{p['regex']})")) for p in pack.get("patterns", ())]
        return cls(tuple(out))

    def classify(self, fragment: str) -> str | None:
        for name, pattern in self.patterns:
            if pattern.fullmatch(fragment):
                return name
        return None


_WORD_RUN = re.compile(r"[A-Za-z0-9_.:+\-/]*")


def volatile_spans(before: bytes, after: bytes, patterns: VolatilePatterns) -> tuple[Mapping[str, Any], ...]:
    """Each changed span of the two blocks, widened to whole tokens and merged where they touch;
    returned only when every span looks volatile on both sides (so "Today is 2026-11-28" ->
    "2026-11-29" is volatile, a rewritten paragraph is not)."""
    a = before.decode("utf-8", "replace")
    b = after.decode("utf-8", "replace")
    # trim the common head and tail first: the matcher is quadratic, the changed middle is short
    head = common_prefix_len(a, b)
    tail = min(common_suffix_len(a, b), min(len(a), len(b)) - head)
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if len(mid_a) > 2000 or len(mid_b) > 2000:
        return ()  # a large rewrite is content, not a value that ticks
    import difflib  # only where tools moved or a block changed: kept off the start-up path

    matcher = difflib.SequenceMatcher(a=mid_a, b=mid_b, autojunk=False)
    merged: list[list[int]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        i1, i2 = _widen(a, i1, i2)
        j1, j2 = _widen(b, j1, j2)
        if merged and (i1 <= merged[-1][1] or j1 <= merged[-1][3]):
            last = merged[-1]
            last[0], last[1] = min(last[0], i1), max(last[1], i2)
            last[2], last[3] = min(last[2], j1), max(last[3], j2)
        else:
            merged.append([i1, i2, j1, j2])
        if len(merged) > 8:
            return ()
    spans = []
    for i1, i2, j1, j2 in merged:
        old, new = a[i1:i2], b[j1:j2]
        found = _classify_pair(old, new, patterns)
        if found is None:
            return ()
        name, old, new = found
        spans.append({"pattern": name, "before": _masked_head(old, 80), "after": _masked_head(new, 80)})
    return _dedupe(spans)


def _masked_head(text: str, limit: int) -> str:
    from cachelint.masking import masker

    return masker().cut(text, 0, limit)


def _dedupe(spans: list[dict[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    out: list[dict[str, Any]] = []
    for s in spans:
        if s not in out:
            out.append(s)
    return tuple(out)


# A value that ticks (a date, an id, a counter) is short; the patterns (packs' and users' regular
# expressions) never see a longer token, whatever they would make of it.
MAX_VOLATILE_TOKEN = 256


def _classify_pair(old: str, new: str, patterns: VolatilePatterns) -> tuple[str, str, str] | None:
    """(the pattern's name, the value before, after) when both sides are one volatile value."""
    old_s, new_s = old.strip("\"' ,.;()[]{}"), new.strip("\"' ,.;()[]{}")
    if not old_s or not new_s:
        return None
    if len(old_s) <= MAX_VOLATILE_TOKEN and len(new_s) <= MAX_VOLATILE_TOKEN:
        a, b = patterns.classify(old_s), patterns.classify(new_s)
        if a is not None and a == b:
            return a, old, new
    return _classify_glued(old_s, new_s, patterns)


# A value glued to the text around it (a template that writes ``{now}`` against a word, with no
# space) is a token of which only the value changed. It is looked for inside the token only where
# it is long enough not to be chance (a date, a timestamp, a UUID: 10 characters or more), never a
# digit inside a word ("gpt-4" -> "gpt-5" is content, not a counter that ticks).
MIN_GLUED_VALUE = 10
_GLUED_WINDOW = 64


def _classify_glued(old: str, new: str, patterns: VolatilePatterns) -> tuple[str, str, str] | None:
    head = common_prefix_len(old, new)
    tail = min(common_suffix_len(old, new), min(len(old), len(new)) - head)
    if len(old) - head - tail > MAX_VOLATILE_TOKEN or len(new) - head - tail > MAX_VOLATILE_TOKEN:
        return None
    # the changed middle with a window of the token on each side: the value lies there
    start = max(0, head - _GLUED_WINDOW)
    a = old[start : len(old) - tail + _GLUED_WINDOW]
    b = new[start : len(new) - tail + _GLUED_WINDOW]
    a_end, b_end = len(old) - tail - start, len(new) - tail - start
    for name, pattern in patterns.patterns:
        found_a = _covering(pattern, a, head - start, a_end)
        found_b = _covering(pattern, b, head - start, b_end)
        if found_a is None or found_b is None:
            continue
        if a[: found_a[0]] == b[: found_b[0]] and a[found_a[1] :] == b[found_b[1] :]:
            return name, a[found_a[0] : found_a[1]], b[found_b[0] : found_b[1]]
    return None


def _covering(pattern: re.Pattern[str], text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of a match of ``pattern`` in ``text`` that covers ``[start, end)`` and is long
    enough to be a value glued to its neighbours, or None."""
    for m in pattern.finditer(text):
        if m.start() <= start and m.end() >= end and m.end() - m.start() >= MIN_GLUED_VALUE:
            return m.span()
        if m.start() > start:
            break
    return None


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    # whole runs of token characters matched at once (a match per character cost more than the
    # rest of the pair's diff where every request breaks); backwards on the reversed text before
    # ``start``, read in growing windows
    end = _WORD_RUN.match(text, end).end()  # type: ignore[union-attr]
    size = 64
    while start > 0:
        lo = max(0, start - size)
        run = _WORD_RUN.match(text[lo:start][::-1]).end()  # type: ignore[union-attr]
        if run < start - lo or lo == 0:
            start -= run
            break
        size *= 8
    # JSON escapes and trailing punctuation are not part of a value
    while end > start and text[end - 1] in ".:-/+":
        end -= 1
    while start < end and text[start] in ".:-/+":
        start += 1
    return start, end
