"""CL301 names a tool order that flaps between two orders (A→B→A), and only that."""

from __future__ import annotations

from helpers import TOOLS, anthropic, turns

from conftest import audit_records

A = TOOLS
B = [TOOLS[1], TOOLS[0], *TOOLS[2:]]
C = [TOOLS[2], TOOLS[0], TOOLS[1], TOOLS[3]]


def _kinds(tmp_path, orders, sessions=None):
    records = []
    for i, tools in enumerate(orders):
        body = anthropic(turns(2 * i + 1), tools=tools)
        records.append({"request": body, **({"session": sessions[i]} if sessions else {})})
    result = audit_records(tmp_path, records, config={"select": ["CL301"]})
    return [(d.record, d.kind) for d in result.diagnostics]


def test_back_and_forth_is_flapping_every_time_after_the_first(tmp_path):
    assert _kinds(tmp_path, [A, B, A, B]) == [(1, "reordered"), (2, "flapping"), (3, "flapping")]


def test_a_third_order_is_not_flapping(tmp_path):
    assert _kinds(tmp_path, [A, B, C]) == [(1, "reordered"), (2, "reordered")]


def test_a_quiet_stretch_between_the_reorders_still_flaps(tmp_path):
    assert _kinds(tmp_path, [A, B, B, B, A]) == [(1, "reordered"), (4, "flapping")]


def test_reorders_in_two_sessions_are_not_one_flap(tmp_path):
    """One session goes A→B, another B→A: each is a reorder of its own session."""
    kinds = _kinds(tmp_path, [A, B, B, A], sessions=["one", "one", "two", "two"])
    assert kinds == [(1, "reordered"), (3, "reordered")]
