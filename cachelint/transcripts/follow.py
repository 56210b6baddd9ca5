"""``cachelint audit --follow``: tail live session files and print each rebuild as it happens.

The files named (or the agent's default folder) are read once to know every thread's last call;
then, every ``interval`` seconds, the bytes appended since are read line by line (a line is
read once it ends with a newline, so a line the agent is still writing is left for the next
pass), and new files in the folders are read from their start. Each rebuild is one line: time,
session, thread, cause, tokens, money. The same ``TranscriptRun`` judges them as the audit does.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from cachelint.transcripts.audit import TranscriptRun
from cachelint.transcripts.model import ColdStart, Rebuild


@dataclass
class _Tail:
    path: Path
    display: str
    offset: int = 0
    partial: bytes = b""


def rebuild_line(rebuild: Rebuild) -> str:
    """The one line ``--follow`` prints for a rebuild."""
    turn = rebuild.turn
    when = turn.time.strftime("%Y-%m-%d %H:%M:%S") if turn.time else "----------- --:--:--"
    money = "n/a" if rebuild.money is None else f"${rebuild.money:,.4f}"
    minor = " (minor)" if rebuild.minor else ""
    return (
        f"{when}  {turn.session[:8]}  {turn.label}  {rebuild.cause}{minor}  {rebuild.rewritten:,} tokens  {money}"
        f"  {turn.path}:{turn.line}  {rebuild.because}"
    )


@dataclass
class Follower:
    """Tails session files. ``roots``: (absolute path, display) of the files and folders given;
    ``agent``: the log format forced (``claude-code``, ``codex``) or None to detect it."""

    run: TranscriptRun
    roots: list[tuple[Path, str]]
    agent: str | None = None
    tails: dict[Path, _Tail] = field(default_factory=dict)

    def files(self) -> list[tuple[Path, str]]:
        found = []
        for root, display in self.roots:
            if root.is_file():
                found.append((root, display))
            elif root.is_dir():
                real_root = os.path.realpath(root)
                for directory, _dirs, names in os.walk(root, followlinks=False):
                    for name in names:
                        if not name.endswith(".jsonl"):
                            continue
                        full = Path(directory) / name
                        if os.path.commonpath([real_root, os.path.realpath(full)]) != real_root:
                            continue  # a symlink out of the folder: never read
                        rel = full.relative_to(root).as_posix()
                        found.append((full, rel if display in ("", ".") else f"{display.rstrip('/')}/{rel}"))
        return sorted(found, key=lambda item: item[1])

    def start(self) -> int:
        """Read what the files hold now, silently; the number of files."""
        for path, display in self.files():
            self.tails[path] = tail = _Tail(path, display)
            self._read(tail)
        return len(self.tails)

    def poll(self) -> list[Rebuild]:
        """The rebuilds in what was appended since the last poll (and in new files)."""
        found: list[Rebuild] = []
        for path, display in self.files():
            tail = self.tails.get(path)
            if tail is None:
                tail = self.tails[path] = _Tail(path, display)
            found.extend(r for r in self._read(tail) if isinstance(r, Rebuild))
        return found

    def _read(self, tail: _Tail) -> list[Rebuild | ColdStart]:
        try:
            info = tail.path.stat()
            if not stat.S_ISREG(info.st_mode):
                return []  # a FIFO or a device named like a session file: opening it would wait forever
            size = info.st_size
            if size < tail.offset:  # rewritten from the start: read it again
                tail.offset, tail.partial = 0, b""
            if size == tail.offset:
                return []
            with open(tail.path, "rb") as handle:
                handle.seek(tail.offset)
                data = handle.read(size - tail.offset)
        except OSError:
            return []
        tail.offset += len(data)
        data = tail.partial + data
        lines = data.split(b"\n")
        tail.partial = lines.pop()
        found: list[Rebuild | ColdStart] = []
        for line in lines:
            found.extend(self.run.feed(tail.display, line + b"\n", self.agent))
        return found

    def follow(
        self, emit: Callable[[str], None], interval: float = 0.5, stop: Callable[[], bool] = lambda: False
    ) -> None:
        """Poll until ``stop()`` (or an interrupt), emitting a line a rebuild."""
        while not stop():
            for rebuild in self.poll():
                emit(rebuild_line(rebuild))
            time.sleep(interval)


def follow_roots(paths: Iterable[str], cwd: Path) -> list[tuple[Path, str]]:
    out = []
    for given in paths:
        path = Path(given).expanduser()
        out.append((path if path.is_absolute() else cwd / path, given))
    return out
