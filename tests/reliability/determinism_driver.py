"""Runs one cachelint command in every output format, in this process, with the file system's
directory listings put in a chosen order; prints {format: output} as JSON.

    python determinism_driver.py ORDER COMMAND [ARGS...]

ORDER is ``sorted``, ``reversed`` or ``shuffled``: every os.scandir / os.listdir answer (and so
os.walk, pathlib and glob) comes back in that order, as a different file system would give it.
Run under different PYTHONHASHSEED values by the caller (test_determinism.py).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from pathlib import Path

ORDER = sys.argv[1]
_shuffle = random.Random(20261129)
_real_scandir = os.scandir
_real_listdir = os.listdir


def _arrange(items: list, key) -> list:
    items = sorted(items, key=key)
    if ORDER == "reversed":
        items.reverse()
    elif ORDER == "shuffled":
        _shuffle.shuffle(items)
    return items


class _Listing:
    """What os.scandir returns: an iterator that is also a context manager."""

    def __init__(self, entries: list) -> None:
        self._entries = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._entries)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._entries = iter(())


def scandir(path="."):
    with _real_scandir(path) as it:
        entries = list(it)
    return _Listing(_arrange(entries, key=lambda e: e.name))


def listdir(path="."):
    return _arrange(_real_listdir(path), key=lambda n: n)


os.scandir = scandir  # type: ignore[assignment]
os.listdir = listdir  # type: ignore[assignment]

from click.testing import CliRunner

from cachelint.cli import main

command, *args = sys.argv[2:]
formats = ["concise", "full", "json", "sarif", "github"] + (["html"] if command == "audit" else [])
outputs = {}
for fmt in formats:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "out"
        result = CliRunner().invoke(
            main, [command, "--output-format", fmt, "-o", str(target), *args], catch_exceptions=False
        )
        if result.exit_code not in (0, 1):
            sys.exit(f"{command} {fmt}: exit {result.exit_code}: {result.output}")
        outputs[fmt] = target.read_text(encoding="utf-8")
json.dump({"exit": result.exit_code, "outputs": outputs}, sys.stdout)
