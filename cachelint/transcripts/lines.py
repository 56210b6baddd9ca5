"""Session files as JSON lines: the values, their line numbers and a CL001 for a line that is not
JSON, so that one damaged line (a session file cut while the agent was writing it) never stops the
audit of the others."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.jsonio import loads
from cachelint.payloads.readers.files import open_log

# The longest line read (32 MiB): a tool result a user pasted can be large, a line beyond this is
# no transcript record (the audit's max-record-size, docs/audit.md).
MAX_LINE = 32 * 1024 * 1024


@contextmanager
def open_session_file(path: Path) -> Iterator[IO[bytes]]:
    """The file's bytes, inflated when it is gzip-compressed (an archived session); a FIFO or a
    device is refused (``payloads.readers.files.open_log``: reading one would wait forever)."""
    stream, raw = open_log(path)
    try:
        yield stream
    finally:
        stream.close()
        raw.close()


class LineDecoder:
    """Decodes the lines of one file as they come (whole files, or lines appended later while
    following it): a value per line with its 1-based line and 0-based record index."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.line = 0
        self.record = 0

    def decode(
        self, raw: bytes, wanted: Callable[[bytes], bool] | None = None
    ) -> tuple[int, int, Any] | Diagnostic | None:
        """(line, record, value) of one line, a CL001 when it is not JSON, None when blank or
        when ``wanted`` says from its bytes that the reader has no use for it (it is counted, not
        decoded: most of a session file is tool output no cache question needs)."""
        self.line += 1
        if not raw or raw.isspace():  # isspace stops at the first other byte: no copy of a long line
            return None
        record = self.record
        self.record += 1
        if wanted is not None and not wanted(raw.lstrip() if raw[:1].isspace() else raw):
            return None
        return decode_value(raw, self.display, self.line, record)


def decode_value(raw: bytes, display: str, line: int, record: int) -> tuple[int, int, Any] | Diagnostic:
    """(line, record, value) of one non-blank line, or its CL001."""
    if len(raw) > MAX_LINE:
        return unreadable(display, f"line longer than {MAX_LINE:,} bytes: not read", line=line, record=record)
    try:
        return line, record, loads(raw)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "not valid JSON"
        return unreadable(display, f"session file line {reason}: not read", line=line, record=record)
