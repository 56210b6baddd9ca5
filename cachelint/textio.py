"""Reading input files as text, the same way for every part: size limit, BOM, invalid UTF-8,
binary files, unreadable files. Every failure is a CL001 diagnostic with a location, never an
exception."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from cachelint.diagnostics import Diagnostic, unreadable

BOM = "\ufeff"


@dataclass(frozen=True)
class SourceText:
    text: str
    size: int
    had_bom: bool
    newline: str  # "\r\n" when the file uses CRLF, else "\n"


# str.splitlines also splits at these; Python's tokenizer (and so ast's line numbers, and LibCST's)
# does not: a form feed (which PEP 8 allows between sections) or a U+2028 in a string is not a line
# break to Python.
_NOT_PYTHON_LINE_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_PYTHON_LINE_BREAK = re.compile("\r\n|\r|\n")


def python_lines(text: str) -> list[str]:
    """The lines of Python source as the tokenizer counts them (``\n``, ``\r\n``, ``\r``), without
    their ends; like ``str.splitlines`` for text without other separators (the fast common case)."""
    if _NOT_PYTHON_LINE_BREAKS.search(text) is None:
        return text.splitlines()
    lines = _PYTHON_LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_col_of_offset(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters, best effort) of a byte offset."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def decode(data: bytes, display: str) -> SourceText | Diagnostic:
    offset = data.find(b"\x00")
    if offset != -1:
        line, col = line_col_of_offset(data, offset)
        return unreadable(display, "binary file: contains a NUL byte", line=line, column=col)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = line_col_of_offset(data, exc.start)
        return unreadable(
            display,
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded",
            line=line,
            column=col,
        )
    had_bom = text.startswith(BOM)
    if had_bom:
        text = text[1:]
    newline = "\r\n" if "\r\n" in text[:65536] else "\n"
    return SourceText(text=text, size=len(data), had_bom=had_bom, newline=newline)


def identity(path: Path) -> tuple[int, int] | None:
    """(mtime_ns, size) of a file, or None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def read_bytes(path: Path, display: str, max_size: int) -> bytes | Diagnostic:
    try:
        if path.is_dir():
            return unreadable(display, "is a directory, expected a file")
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # opening a FIFO would wait forever for a writer
            return unreadable(display, "not a regular file (a FIFO, socket or device); not read")
        size = st.st_size
        if size > max_size:
            return unreadable(
                display,
                f"file is {size} bytes, over the size limit of {max_size} bytes (max-file-size)",
            )
        with open(path, "rb") as handle:
            return handle.read()
    except PermissionError:
        return unreadable(display, "cannot read file: permission denied")
    except OSError as exc:
        return unreadable(display, f"cannot read file: {exc.strerror or exc}")


def read_text(path: Path, display: str, max_size: int) -> SourceText | Diagnostic:
    data = read_bytes(path, display, max_size)
    if isinstance(data, Diagnostic):
        return data
    return decode(data, display)


@dataclass(frozen=True)
class FileReader:
    """How a run reads its inputs: from disk, except the paths it was given bytes for
    (``cachelint check -``: an editor's unsaved buffer, checked as the file it names, with that
    file's configuration and neighbours). Handed to every part that reads an input of the run."""

    provided: Mapping[str, bytes] = field(default_factory=dict)

    def provided_bytes(self, path: Path) -> bytes | None:
        """The bytes given for ``path`` in place of the file's, if any."""
        return self.provided.get(str(path)) if self.provided else None

    def identity(self, path: Path) -> tuple[int, int] | None:
        """(mtime_ns, size) of a file, or None when it cannot be stat'ed; bytes provided for a
        path have no time and their own size."""
        provided = self.provided_bytes(path)
        return identity(path) if provided is None else (0, len(provided))

    def read_bytes(self, path: Path, display: str, max_size: int) -> bytes | Diagnostic:
        provided = self.provided_bytes(path)
        if provided is None:
            return read_bytes(path, display, max_size)
        if len(provided) > max_size:
            return unreadable(
                display, f"input is {len(provided)} bytes, over the size limit of {max_size} bytes (max-file-size)"
            )
        return provided

    def read_text(self, path: Path, display: str, max_size: int) -> SourceText | Diagnostic:
        data = self.read_bytes(path, display, max_size)
        if isinstance(data, Diagnostic):
            return data
        return decode(data, display)


DISK = FileReader()  # every input from its file
