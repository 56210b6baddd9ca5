"""A progress bar on stderr for long audits — only when stderr is a terminal.

The audit reads its logs as streams; the bar measures bytes against the sizes of all files (the one
total known up front): the files done plus how far the reader is in the current one, and shows the
running count of records. It redraws at most
``min_interval`` seconds apart, writes nothing at all when disabled or not on a TTY (CI logs and
pipes stay clean), and clears its line when it closes so that the report starts on a clean line.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


class Progress:
    def __init__(
        self,
        total_bytes: int = 0,
        files: int = 0,
        *,
        stream: TextIO | None = None,
        enabled: bool = True,
        width: int = 30,
        min_interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(enabled and callable(isatty) and isatty())
        self.total_bytes = max(0, total_bytes)
        self.files = files
        self.width = width
        self.min_interval = min_interval
        self.clock = clock
        self.done_bytes = 0
        self.file_bytes = 0  # bytes read so far in the current file
        self.done_files = 0
        self.records = 0
        self._last = float("-inf")
        self._drawn = 0

    def line(self) -> str:
        """The text of the bar as it stands (also what tests look at)."""
        done = self.done_bytes + self.file_bytes
        fraction = (
            done / self.total_bytes if self.total_bytes else (self.done_files / self.files if self.files else 0.0)
        )
        fraction = min(1.0, max(0.0, fraction))
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        current = min(self.done_files + 1, self.files) if self.files else self.done_files
        return f"cachelint audit [{bar}] {fraction:4.0%} · file {current}/{self.files} · {self.records:,} records"

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        text = self.line()
        pad = " " * max(0, self._drawn - len(text))
        self.stream.write("\r" + text + pad)
        self.stream.flush()
        self._drawn = len(text)

    def records_seen(self, records: int, file_bytes: int | None = None) -> None:
        """Called for every record (cheap: redraws are throttled); ``file_bytes``: how far the
        reader is in the current file."""
        self.records = records
        if file_bytes is not None:
            self.file_bytes = max(0, file_bytes)
        self._draw()

    def file_done(self, size: int) -> None:
        self.done_files += 1
        self.done_bytes += max(0, size)
        self.file_bytes = 0
        self._draw(force=True)

    def close(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def file_size(path: object) -> int:
    try:
        from pathlib import Path

        return Path(str(path)).stat().st_size
    except OSError:
        return 0
