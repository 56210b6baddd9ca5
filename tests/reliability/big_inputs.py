"""The corpus cases too big to commit, written at test time (a few hundred ms each)."""

from __future__ import annotations

import json
from pathlib import Path

FIFTY_MB = 50 * 1024 * 1024
DEPTH = 10_000
LONG_MODULE_LINES = 100_000


def fifty_megabyte_python_line(path: Path) -> Path:
    """One statement on one 50 MB line."""
    with open(path, "wb") as handle:
        handle.write(b'x = "')
        chunk = b"a" * (1024 * 1024)
        for _ in range(50):
            handle.write(chunk)
        handle.write(b'"\n')
    return path


def fifty_megabyte_jsonl_line(path: Path, before: dict, after: dict) -> Path:
    """A good record, one 50 MB record, another good record."""
    with open(path, "wb") as handle:
        handle.write(json.dumps(before).encode() + b"\n")
        handle.write(b'{"model": "claude-sonnet-4-5", "system": "')
        chunk = b"a" * (1024 * 1024)
        for _ in range(50):
            handle.write(chunk)
        handle.write(b'", "messages": []}\n')
        handle.write(json.dumps(after).encode() + b"\n")
    return path


def long_module(path: Path) -> tuple[Path, int]:
    """A 100,000-line agent module whose unordered tools sit at its end; returns the line of
    the construction site CL101 reports."""
    head = ["import anthropic", "client = anthropic.Anthropic()", 'TOOLS = {"a": {"name": "a"}, "b": {"name": "b"}}']
    tail = ['names = {"a", "b"}', 'client.messages.create(model="m", tools=[TOOLS[n] for n in names], messages=[])']
    filler = [f"value_{i} = {i} * 2" for i in range(LONG_MODULE_LINES - len(head) - len(tail))]
    lines = head + filler + tail
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(lines) == LONG_MODULE_LINES
    return path, LONG_MODULE_LINES - 1


def nested_json(depth: int = DEPTH) -> str:
    return "[" * depth + "]" * depth


def nested_object_json(depth: int = DEPTH) -> str:
    return '{"a": ' * depth + "1" + "}" * depth
