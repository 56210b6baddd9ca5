"""Codex CLI rollouts: calls from token_count events (each once), the automatic cache's reads
judged against the previous prompt, causes from the turn context and compaction records."""

from __future__ import annotations

from pathlib import Path

from .sessions import CodexRollout, count_rebuilds

from cachelint.api import audit_logs


def rollout() -> tuple[CodexRollout, dict[str, int]]:
    r = CodexRollout()
    lines = {}
    r.turn_context(0)
    lines["start"] = r.call(0.2, prompt=20_000, cached=0)
    r.turn_context(0.3)
    r.call(0.4, prompt=21_000, cached=19_968)
    r.turn_context(12)
    lines["idle-gap"] = r.call(12.1, prompt=22_000, cached=0)  # 11.7 minutes: past in-memory retention
    r.turn_context(12.3, user_instructions="Use ruff. Run the whole suite before a commit.")
    lines["context-changed"] = r.call(12.4, prompt=23_000, cached=3_000)
    r.turn_context(12.6, model="gpt-5.1-codex")
    lines["model-switch"] = r.call(12.7, prompt=23_500, cached=0)
    r.compacted(13)
    lines["compaction"] = r.call(13.1, prompt=9_000, cached=3_000)
    r.call(13.3, prompt=9_500, cached=8_960)  # 40 short: under the 128-token step, no rebuild
    lines["minor"] = r.call(13.5, prompt=10_000, cached=9_300)  # 200 short: a rebuild under the minimum
    return r, lines


def test_codex_rebuilds_with_their_causes(tmp_path: Path) -> None:
    r, lines = rollout()
    path = r.write(tmp_path / "sessions" / "2026" / "11" / "30" / f"rollout-2026-11-30T10-00-00-{r.session}.jsonl")
    result = audit_logs([str(path)], cwd=tmp_path)
    found = [(d.line, d.kind) for d in result.diagnostics]
    assert found == [
        (lines["idle-gap"], "idle-gap"),
        (lines["context-changed"], "context-changed"),
        (lines["model-switch"], "model-switch"),
        (lines["compaction"], "compaction"),
    ]
    assert {(str(path), line) for line, _ in found} | {(str(path), lines["minor"])} == count_rebuilds([path])
    by_line = {d.line: d for d in result.diagnostics}
    assert "in-memory (5-10 minutes) TTL" in by_line[lines["idle-gap"]].message
    assert "user_instructions" in by_line[lines["context-changed"]].message
    part = result.summary.coding_agents
    [session] = part["sessions"]
    assert session["agent"] == "codex" and session["id"] == r.session
    assert session["turns"] == 8  # each call once: repeated and rate-limit-only token_count events skipped
    assert session["threads"][0]["minor_rebuilds"]["count"] == 1
    assert session["threads"][0]["cold_start"] == {
        "kind": "session-start",
        "line": lines["start"],
        "tokens": 20_000,
        "read": 0,
        "money": round(20_000 * 1.25 / 1e6, 6),
    }
    # money: OpenAI bills no write, a rebuilt token costs input minus cached input
    assert part["causes"]["idle-gap"] == {
        "rebuilds": 1,
        "minor": 0,
        "tokens": 21_000,
        "money": round(21_000 * (1.25 - 0.125) / 1e6, 6),
    }


def test_a_codex_sub_agent_is_a_thread_of_its_parent_session(tmp_path: Path) -> None:
    parent = CodexRollout()
    parent.turn_context(0)
    parent.call(0.1, prompt=20_000, cached=0)
    child = CodexRollout(
        session="019a0000-0000-7000-8000-0000000000c1",
        source={"subagent": {"thread_spawn": {"parent_thread_id": parent.session, "depth": 1}}},
    )
    child.turn_context(0.5)
    child.call(0.6, prompt=15_000, cached=0)
    child.call(0.7, prompt=15_600, cached=14_976)
    parent.write(tmp_path / "a.jsonl")
    child.write(tmp_path / "b.jsonl")
    result = audit_logs([str(tmp_path)], cwd=tmp_path)
    assert result.diagnostics == []
    [session] = result.summary.coding_agents["sessions"]
    assert [(t["subagent"], t["kind"], t["cold_start"]["kind"]) for t in session["threads"]] == [
        (None, "main", "session-start"),
        ("019a0000", "thread_spawn", "sub-agent-start"),
    ]


def test_a_forked_rollout_starts_as_a_resumed_session(tmp_path: Path) -> None:
    r = CodexRollout()
    r.lines[0]["payload"]["forked_from_id"] = "019a0000-0000-7000-8000-0000000000aa"
    r.turn_context(0)
    r.call(0.1, prompt=30_000, cached=0)
    result = audit_logs([str(r.write(tmp_path / "f.jsonl"))], cwd=tmp_path)
    assert result.diagnostics == []
    assert result.summary.coding_agents["cold_starts"] == {
        "resumed-session": {"count": 1, "tokens": 30_000, "money": round(30_000 * 1.25 / 1e6, 6)}
    }
