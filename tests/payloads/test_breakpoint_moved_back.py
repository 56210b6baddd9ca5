"""CL305 moved-back: a request that carries the previous one's prefix on with every breakpoint
before the previous request's deepest entry (the marker at the end of the conversation dropped)
reads only what its own breakpoints reach; its look-alikes (the marker following the conversation,
a shorter prompt, a broken prefix) stay quiet."""

from __future__ import annotations

import json
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.config import load_settings

SYSTEM = "You are a careful assistant for the billing team. " * 150


def text(value: str, mark: bool = False) -> dict:
    block: dict = {"type": "text", "text": value}
    if mark:
        block["cache_control"] = {"type": "ephemeral"}
    return block


def body(history: list[dict], user: str, mark_last: bool, system: str = SYSTEM) -> dict:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 256,
        "system": [text(system, True)],
        "messages": [*history, {"role": "user", "content": [text(user, mark_last)]}],
    }


def moved_back(tmp_path: Path, bodies: list[dict]) -> list[int]:
    lines = [json.dumps({"request": b, "session": "s1"}) for b in bodies]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = audit_logs(["log.jsonl"], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    return [d.record for d in result.diagnostics if d.code == "CL305" and d.kind == "moved-back"]


HISTORY = [
    {"role": "user", "content": [text("Why was I charged twice?")]},
    {"role": "assistant", "content": "Two orders were placed."},
]


def test_dropping_the_marker_from_the_end_of_the_conversation_is_reported(tmp_path: Path) -> None:
    first = body([], "Why was I charged twice?", mark_last=True)
    second = body(HISTORY, "Refund one of them", mark_last=False)
    assert moved_back(tmp_path, [first, second]) == [1]


def test_a_marker_that_follows_the_conversation_is_quiet(tmp_path: Path) -> None:
    first = body([], "Why was I charged twice?", mark_last=True)
    second = body(HISTORY, "Refund one of them", mark_last=True)
    assert moved_back(tmp_path, [first, second]) == []


def test_a_conversation_never_marked_past_its_system_prompt_is_quiet(tmp_path: Path) -> None:
    first = body([], "Why was I charged twice?", mark_last=False)
    second = body(HISTORY, "Refund one of them", mark_last=False)
    assert moved_back(tmp_path, [first, second]) == []


def test_a_broken_prefix_is_the_break_not_a_moved_marker(tmp_path: Path) -> None:
    first = body([], "Why was I charged twice?", mark_last=True)
    second = body(HISTORY, "Refund one of them", mark_last=False, system=SYSTEM + " Today is Monday.")
    assert moved_back(tmp_path, [first, second]) == []
