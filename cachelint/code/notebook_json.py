"""Positions in a notebook's JSON text: where each code cell's ``source`` value is (the fixer
rewrites only those strings), and where a cell's line and column are in the file (the reports
that address the file itself, SARIF and CI annotations, point at them: ``NotebookPositions``)."""

from __future__ import annotations

import json

# A tiny scanner over the notebook's JSON text: where each code cell's "source" value is.
_WHITESPACE = " \t\n\r"


_DECODER = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def _value_end(text: str, i: int) -> int:
    _, end = _DECODER.raw_decode(text, i)
    return end


def _object_members(text: str, i: int):
    """(key, start of value, end of value) of the object starting at ``text[i] == "{"``."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # public, but not in typeshed

    if text[i] != "{":
        raise ValueError("not an object")
    i = _skip(text, i + 1)
    if text[i] == "}":
        return
    while True:
        if text[i] != '"':
            raise ValueError("not a key")
        key, i = scanstring(text, i + 1)
        i = _skip(text, i)
        if text[i] != ":":
            raise ValueError("no colon")
        start = _skip(text, i + 1)
        end = _value_end(text, start)
        yield key, start, end
        i = _skip(text, end)
        if text[i] == "}":
            return
        if text[i] != ",":
            raise ValueError("no comma")
        i = _skip(text, i + 1)


def array_items(text: str, i: int) -> list[tuple[int, int]]:
    if text[i] != "[":
        raise ValueError("not an array")
    out: list[tuple[int, int]] = []
    i = _skip(text, i + 1)
    if text[i] == "]":
        return out
    while True:
        end = _value_end(text, i)
        out.append((i, end))
        i = _skip(text, end)
        if text[i] == "]":
            return out
        if text[i] != ",":
            raise ValueError("no comma")
        i = _skip(text, i + 1)


def source_spans(text: str) -> dict[int, tuple[int, int]]:
    """(start, end) of the "source" value of each cell (1-based index) in the notebook's text
    (the last one, as json.loads keeps the last of repeated keys)."""
    start = _skip(text, 0)
    out: dict[int, tuple[int, int]] = {}
    for key, value_start, _value_stop in _object_members(text, start):
        if key != "cells":
            continue
        out = {}
        for index, (cell_start, _cell_end) in enumerate(array_items(text, value_start), start=1):
            if text[cell_start] != "{":
                continue
            for cell_key, a, b in _object_members(text, cell_start):
                if cell_key == "source":
                    out[index] = (a, b)
    return out


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}


class NotebookPositions:
    """Maps (code cell, line, column) of a notebook's cells, as the code checks report them
    (1-based; columns in characters), to (line, column) of the notebook's JSON text, 1-based:
    the cell's source is read out of its JSON strings (an array of strings, or one string) with
    their escapes, each character remembered at its offset in the file."""

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.spans = source_spans(text)
        except (ValueError, IndexError):
            self.spans = {}
        self._offsets: dict[int, list[int]] = {}
        self._line_starts: list[int] | None = None

    def _cell_offsets(self, cell: int) -> list[int]:
        """Offset in the file of each character of the cell's source (and one past the end)."""
        found = self._offsets.get(cell)
        if found is not None:
            return found
        out: list[int] = []
        span = self.spans.get(cell)
        if span is not None:
            start, _end = span
            strings = array_items(self.text, start) if self.text[start] == "[" else [span]
            for a, b in strings:
                out.extend(self._string_offsets(a, b))
            if strings:
                out.append(strings[-1][1] - 1)
        self._offsets[cell] = out
        return out

    def _string_offsets(self, a: int, b: int) -> list[int]:
        text = self.text
        out: list[int] = []
        i = a + 1  # after the opening quote
        end = b - 1  # the closing quote
        while i < end:
            if text[i] == "\\":
                out.append(i)
                if text[i + 1] == "u":
                    code = int(text[i + 2 : i + 6], 16)
                    i += 6
                    if 0xD800 <= code < 0xDC00 and text.startswith("\\u", i):
                        i += 6  # a surrogate pair: one character
                    continue
                i += 2
                continue
            out.append(i)
            i += 1
        return out

    def _line_col(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]
        import bisect

        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def position(self, cell: int, line: int, column: int) -> tuple[int, int] | None:
        """The file's (line, column) of the cell's ``line``, ``column``; None when unknown."""
        offsets = self._cell_offsets(cell)
        if not offsets:
            return None
        source_line = 1
        for index, offset in enumerate(offsets[:-1]):
            if source_line == line:
                at = min(index + column - 1, len(offsets) - 1)
                return self._line_col(offsets[at])
            if self._char_at(offset) == "\n":
                source_line += 1
        return self._line_col(offsets[-1]) if source_line == line else None

    def _char_at(self, offset: int) -> str:
        c = self.text[offset]
        if c != "\\":
            return c
        return _ESCAPES.get(self.text[offset + 1], "")
