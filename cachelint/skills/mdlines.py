"""The Markdown line shapes that index parsing reads (list items, table rows and separators,
links, a leading skill name), each recognised by one left-to-right scan.

They used to be regular expressions with adjacent or nested quantifiers over the same
characters (``\\s*(?:\\*\\*)?\\s*(?:...|\\s*$)``, ``\\[([^\\]]*)\\]`` tried at every ``[``), whose
backtracking made one crafted line cost quadratic or cubic time: ``- bar`` followed by 5,000
spaces and ``x`` took minutes. Each scanner here looks at every character a bounded number of
times, and returns what the expression returned (the same groups and offsets): the equivalence is
tested against the old expressions on generated lines (tests/skills/test_skill_mdlines.py).
"""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

# the opening or closing line of a fenced code block: what lies between is quoted, not Markdown
FENCE = re.compile(r"^\s*(```|~~~)")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_NAME_CHAR = _NAME_START | frozenset("_.-")
_EMPHASIS = ("**", "__", "`")
_DASHES = frozenset("-\u2013\u2014")  # -, en dash, em dash


def _skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


class ListItem(NamedTuple):
    body: str
    offset: int  # where the body starts in the line


def list_item(line: str) -> ListItem | None:
    """``- text``, ``* text``, ``+ text``, ``12. text`` or ``3) text``, with an optional task box
    (``- [x] text``): the text after the marker. What ``^(\\s*)(?:[-*+]|\\d{1,3}[.)])\\s+
    (?:\\[[ xX]\\]\\s+)?(.*)$`` matched."""
    n = len(line)
    i = _skip_space(line, 0)
    if i < n and line[i] in "-*+":
        i += 1
    else:
        digits = 0
        while i < n and digits < 4 and line[i].isdecimal():
            i += 1
            digits += 1
        if not 1 <= digits <= 3 or i >= n or line[i] not in ".)":
            return None
        i += 1
    if i >= n or not line[i].isspace():
        return None
    i = _skip_space(line, i)
    if (
        line[i : i + 1] == "["
        and line[i + 1 : i + 2] in (" ", "x", "X")
        and line[i + 2 : i + 3] == "]"
        and line[i + 3 : i + 4].isspace()
    ):
        i = _skip_space(line, i + 3)
    return ListItem(line[i:], i)


class TableRow(NamedTuple):
    body: str  # between the first and the last pipe
    offset: int


def table_row(line: str) -> TableRow | None:
    """``| a | b |``: what ``^\\s*\\|(.*)\\|\\s*$`` matched."""
    start = _skip_space(line, 0)
    end = len(line.rstrip())
    if end - start < 2 or line[start] != "|" or line[end - 1] != "|":
        return None
    return TableRow(line[start + 1 : end - 1], start + 1)


def is_table_separator(line: str) -> bool:
    """``|---|:--:|``: cells of two or more dashes, each with optional colons, between optional
    outer pipes. What ``^\\s*\\|?\\s*:?-{2,}:?\\s*(\\|\\s*:?-{2,}:?\\s*)*\\|?\\s*$`` matched."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    for cell in text.split("|"):
        cell = cell.strip()
        if cell.startswith(":"):
            cell = cell[1:]
        if cell.endswith(":"):
            cell = cell[:-1]
        if len(cell) < 2 or cell.strip("-"):
            return False
    return True


class Link(NamedTuple):
    start: int
    end: int
    label: str  # between the brackets
    target: str  # what the parentheses point at

    def text(self, source: str) -> str:
        return source[self.start : self.end]


def _target_end(text: str, i: int, scanned: list[int]) -> int:
    """Where a target starting at ``i`` ends: at the first ``)``, ``>`` or space. ``scanned``
    ([start, end] of the last scan) spares reading a run again from a later start inside it: a
    line of ``[a](`` repeated holds no stop at all, and each link tried read it to the end."""
    if scanned[0] <= i <= scanned[1]:
        return scanned[1]
    n = len(text)
    j = i
    while j < n and text[j] != ")" and text[j] != ">" and not text[j].isspace():
        j += 1
    scanned[0], scanned[1] = i, j
    return j


def _link_tail(text: str, close: int, scanned: list[int] | None = None) -> tuple[str, int] | None:
    """The ``(target "title")`` after a label's closing bracket at ``close``: (target, end)."""
    scanned = [1, 0] if scanned is None else scanned
    n = len(text)
    if text[close + 1 : close + 2] != "(":
        return None
    i = _skip_space(text, close + 2)
    start = i
    if i < n and text[i] == "<":
        i += 1
    j = _target_end(text, i, scanned)
    if j == i:
        # ``<`` was not an opening angle bracket but the target itself (``[a](<>)``)
        if i == start:
            return None
        i = start
        j = i + 1
    target = text[i:j]
    if j < n and text[j] == ">":
        j += 1
    k = _skip_space(text, j)
    if k > j and text[k : k + 1] == '"':
        quote = text.find('"', k + 1)
        if quote != -1:
            m = _skip_space(text, quote + 1)
            if text[m : m + 1] == ")":
                return target, m + 1
    if text[k : k + 1] == ")":
        return target, k + 1
    return None


def links(text: str) -> Iterator[Link]:
    """Every ``[label](target)`` / ``[label](<target> "title")``, left to right, not
    overlapping: what ``finditer`` of ``\\[([^\\]]*)\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+"[^"]*")?\\s*\\)``
    gave. Every ``[`` before one ``]`` shares what follows that ``]``: when it is no link, none of
    them starts one, and the scan goes on after it (the expression tried each again)."""
    scanned = [1, 0]
    i = text.find("[")
    while i != -1:
        close = text.find("]", i + 1)
        if close == -1:
            return
        tail = _link_tail(text, close, scanned)
        if tail is None:
            i = text.find("[", close + 1)
            continue
        target, end = tail
        yield Link(i, end, text[i + 1 : close], target)
        i = text.find("[", end)


def link_at_start(text: str) -> Link | None:
    """The link that starts ``text``, if any (``_LINK.match``)."""
    if not text.startswith("["):
        return None
    close = text.find("]", 1)
    if close == -1:
        return None
    tail = _link_tail(text, close)
    if tail is None:
        return None
    return Link(0, tail[1], text[1:close], tail[0])


def lead_name(text: str) -> str | None:
    """The skill-like name that starts an entry: ``name: …``, ``**name** — …``, ``name (…)``,
    ``` `name` ``` alone. What group 1 of ``^(?:\\*\\*|__|`)?\\s*([A-Za-z0-9][A-Za-z0-9_.-]*)
    \\s*(?:\\*\\*|__|`)?\\s*(?::|\\s[-–—]\\s|\\s*$|\\s*\\()`` was (the name is the longest run of
    name characters: a shorter one is followed by a name character, which no ending accepts)."""
    n = len(text)
    i = 0
    for mark in _EMPHASIS:
        if text.startswith(mark):
            i = len(mark)
            break
    i = _skip_space(text, i)
    if i >= n or text[i] not in _NAME_START:
        return None
    start = i
    while i < n and text[i] in _NAME_CHAR:
        i += 1
    name = text[start:i]
    j = _skip_space(text, i)
    after_mark = i  # where the spaces that may precede a dash start: after the name or its closer
    for mark in _EMPHASIS:
        if text.startswith(mark, j):
            j += len(mark)
            after_mark = j
            break
    j = _skip_space(text, j)
    if j >= n or text[j] in ":(":
        return name
    # `` - `` / `` — ``: one space (given back by the skip) before the dash, one after it
    if j > after_mark and text[j] in _DASHES and j + 1 < n and text[j + 1].isspace():
        return name
    return None


_PATH_DELIMITERS = re.compile(r"[\s`'\"()\[\]]+")


def path_tokens(text: str) -> list[str]:
    """The words (between spaces, quotes, backticks, brackets) that hold a ``/``: what ``findall``
    of ``[^\\s`'"()\\[\\]]*/[^\\s`'"()\\[\\]]*`` found, without trying every position of a long
    word that holds none."""
    return [token for token in _PATH_DELIMITERS.split(text) if "/" in token]


def mask_code_spans(text: str) -> str:
    """``text`` with its code spans (```` `...` ````, ```` ``...`` ````) blanked out, offsets kept:
    a link written inside a code span is code, not a link (CommonMark: code spans take
    precedence over links). A span opens at a run of backticks and closes at the next run of the
    same length; a run with no match is literal. One pass over the runs, whatever the line."""
    if "`" not in text:
        return text
    runs: list[tuple[int, int]] = []  # (start, length) of each run of backticks
    i, n = 0, len(text)
    while i < n:
        if text[i] == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    later: dict[int, list[int]] = {}  # run length -> indexes of the runs of that length, last first
    for k in range(len(runs) - 1, -1, -1):
        later.setdefault(runs[k][1], []).append(k)
    chars = list(text)
    k = 0
    while k < len(runs):
        start, length = runs[k]
        candidates = later[length]
        while candidates and candidates[-1] <= k:
            candidates.pop()
        if not candidates:
            k += 1
            continue
        close = candidates.pop()
        end = runs[close][0] + length
        for p in range(start, end):
            chars[p] = " "
        k = close + 1
    return "".join(chars)
