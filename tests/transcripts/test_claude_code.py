"""Claude Code session files: threads per session and sub-agent, rebuilds told from cold starts,
and the cause of each rebuild read from the file."""

from __future__ import annotations

from pathlib import Path

from .sessions import ClaudeSession, count_rebuilds

from cachelint.api import audit_logs
from cachelint.transcripts.model import CAUSES

SONNET, OPUS = "claude-sonnet-4-5", "claude-opus-4-5"


def five_rebuilds() -> tuple[ClaudeSession, dict[str, int]]:
    """An idle gap past the 5-minute TTL, two model switches, a partial read and a compaction,
    with two sub-agents beside the main thread."""
    s = ClaudeSession()
    lines = {}
    s.user(0, "Find where the retry delay is computed.")
    lines["start"] = s.call(0.1, read=0, written=20_000)
    s.user(0.5, "Make it exponential.")
    s.call(0.6, read=20_000, written=500)
    s.sidechain_root(1, "task-1")
    lines["sub"] = s.call(1.1, read=0, written=12_000, thread="task-1")
    s.call(1.3, read=12_000, written=300, thread="task-1")
    s.user(8.5, "Add a test for the cap.")  # 7.9 minutes after the main thread's last call
    lines["idle-gap"] = s.call(8.5, read=0, written=20_600)
    s.user(
        9,
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>",
    )
    lines["model-switch"] = s.call(9.1, read=0, written=21_100, model=OPUS)
    s.user(9.5, "Go on.")
    s.call(9.6, read=21_100, written=300, model=OPUS)
    s.user(10, "Go on.")
    lines["unknown"] = s.call(10.1, read=8_000, written=13_500, model=OPUS)
    s.user(10.5, "<command-name>/model</command-name>\n<command-args>sonnet</command-args>")
    lines["model-switch-2"] = s.call(10.6, read=0, written=21_800)
    s.compact(11)
    s.user(11, "This session is being continued from a previous conversation (summary).")
    lines["compaction"] = s.call(11.1, read=8_000, written=3_000)
    s.call(11.5, read=11_000, written=200)
    return s, lines


def test_five_rebuilds_each_with_its_cause_and_sub_agents_apart(tmp_path: Path) -> None:
    session, lines = five_rebuilds()
    path = session.write(tmp_path / "projects" / "-srv-project" / f"{session.session}.jsonl")
    result = audit_logs([str(path)], cwd=tmp_path)
    found = [(d.code, d.line, d.kind) for d in result.diagnostics]
    assert found == [
        ("CL313", lines["idle-gap"], "idle-gap"),
        ("CL313", lines["model-switch"], "model-switch"),
        ("CL313", lines["unknown"], "unknown"),
        ("CL313", lines["model-switch-2"], "model-switch"),
        ("CL313", lines["compaction"], "compaction"),
    ]
    assert {(str(path), line) for _c, line, _k in found} == count_rebuilds([path])
    by_line = {d.line: d for d in result.diagnostics}
    assert "7m54s since the previous call, longer than the 5-minute TTL" in by_line[lines["idle-gap"]].message
    assert "from claude-sonnet-4-5 to claude-opus-4-5" in by_line[lines["model-switch"]].message
    assert "command /model" in " ".join(by_line[lines["model-switch"]].details["evidence"])
    assert "the read stopped at 8,000 tokens" in by_line[lines["unknown"]].message
    assert "compaction (auto) at 160,000 tokens" in by_line[lines["compaction"]].message
    assert by_line[lines["compaction"]].severity is not None and by_line[lines["compaction"]].severity.value == "info"
    part = result.summary.coding_agents
    threads = {t["id"]: t for t in part["sessions"][0]["threads"]}
    main = threads[session.session]
    [sub] = [t for t in threads.values() if t["subagent"] is not None]
    assert sub["subagent"].startswith("sidechain-") and sub["kind"] == "task"
    assert main["cold_start"]["kind"] == "session-start" and main["cold_start"]["line"] == lines["start"]
    assert (
        sub["cold_start"]["kind"] == "sub-agent-start" and sub["rebuilds"]["count"] == 0
    )  # its first call is no rebuild
    assert sub["turns"] == 2 and main["turns"] == 9
    assert main["rebuilds"]["by_cause"] == {"compaction": 1, "model-switch": 2, "idle-gap": 1, "unknown": 1}
    assert set(part["causes"]) <= set(CAUSES) and part["causes"]["model-switch"]["rebuilds"] == 2
    # money per cause at the dated prices: the idle gap rewrote 20,500 tokens at the 5-minute write rate
    idle = part["causes"]["idle-gap"]
    assert idle["tokens"] == 20_500 and idle["money"] == round(20_500 * (3.75 - 0.30) / 1e6, 6)


def test_the_main_thread_waiting_on_a_sub_agent_names_it(tmp_path: Path) -> None:
    s = ClaudeSession()
    s.call(0, read=0, written=20_000)
    s.user(0.2, "Run the tests in a sub-agent.")
    s.call(0.3, read=20_000, written=400)
    sub = ClaudeSession(session=s.session)
    sub.user(1, "Run the test suite.", thread="x", agent="a1b2c3d")
    sub.call(1.1, read=0, written=9_000, thread="x", agent="a1b2c3d")
    sub.call(6, read=9_000, written=200, thread="x", agent="a1b2c3d")
    line = s.call(7, read=0, written=20_500)
    main_path = s.write(tmp_path / "p" / f"{s.session}.jsonl")
    sub_path = sub.write(tmp_path / "p" / s.session / "subagents" / "agent-a1b2c3d.jsonl")
    result = audit_logs(["p"], cwd=tmp_path)
    [finding] = result.diagnostics
    assert (finding.path, finding.line, finding.kind) == ("p/" + main_path.name, line, "idle-gap")
    assert "the thread waited on a1b2c3d" in finding.message
    threads = result.summary.coding_agents["sessions"][0]["threads"]
    assert [t["subagent"] for t in threads] == [None, "a1b2c3d"]
    assert (
        threads[1]["cold_start"]["kind"] == "sub-agent-start"
        and threads[1]["path"] == "p/" + sub_path.relative_to(tmp_path / "p").as_posix()
    )


def test_one_hour_writes_survive_a_twenty_minute_pause_and_not_ninety(tmp_path: Path) -> None:
    s = ClaudeSession()
    s.call(0, read=0, written=30_000, ttl="1h")
    s.call(20, read=30_000, written=500, ttl="1h")  # 20 minutes: the 1-hour entry is read
    line = s.call(110, read=0, written=30_600, ttl="1h")  # 90 minutes
    path = s.write(tmp_path / "s.jsonl")
    [finding] = audit_logs([str(path)], cwd=tmp_path).diagnostics
    assert finding.line == line and finding.kind == "idle-gap" and "1-hour TTL" in finding.message


def test_restart_in_another_version_and_resume_are_causes_when_the_pause_is_short(tmp_path: Path) -> None:
    s = ClaudeSession()
    s.call(0, read=0, written=30_000)
    s.version = "2.1.1"
    updated = s.call(1, read=0, written=30_100)
    s.hook(1.5, "SessionStart:resume")
    s.user(1.6, "continue")
    resumed = s.call(2, read=5_000, written=25_300)
    path = s.write(tmp_path / "s.jsonl")
    found = [(d.line, d.kind) for d in audit_logs([str(path)], cwd=tmp_path).diagnostics]
    assert found == [(updated, "agent-updated"), (resumed, "resume")]


def test_a_session_started_by_resume_or_clear_is_a_cold_start_of_that_kind(tmp_path: Path) -> None:
    resumed = ClaudeSession(session="5e55a0b1-0000-4000-8000-000000000002")
    resumed.hook(0, "SessionStart:resume")
    resumed.call(0.1, read=0, written=40_000)
    cleared = ClaudeSession(session="5e55a0b1-0000-4000-8000-000000000003")
    cleared.hook(0, "SessionStart:clear")
    cleared.call(0.1, read=0, written=9_000)
    resumed.write(tmp_path / "a.jsonl")
    cleared.write(tmp_path / "b.jsonl")
    result = audit_logs([str(tmp_path)], cwd=tmp_path)
    assert result.diagnostics == []
    assert result.summary.coding_agents["cold_starts"] == {
        "resumed-session": {"count": 1, "tokens": 40_000, "money": round(40_000 * 3.75 / 1e6, 6)},
        "after-clear": {"count": 1, "tokens": 9_000, "money": round(9_000 * 3.75 / 1e6, 6)},
    }


def test_parallel_sub_agents_written_in_one_file_are_apart(tmp_path: Path) -> None:
    """Old versions wrote sub-agents into the session's file without an id; two running at once
    interleave. Each starts at a line whose parentUuid is null: two cold starts, no rebuild."""
    s = ClaudeSession()
    s.call(0, read=0, written=20_000)
    s.sidechain_root(1, "a")
    s.sidechain_root(1, "b")
    s.call(1.1, read=0, written=11_000, thread="a")
    s.call(1.1, read=0, written=11_005, thread="b")
    s.call(1.3, read=11_000, written=300, thread="a")
    s.call(1.3, read=11_005, written=300, thread="b")
    for compact in (True, False):  # as Claude Code writes JSON, and with spaces
        path = s.write(tmp_path / f"s{compact}.jsonl", compact)
        result = audit_logs([str(path)], cwd=tmp_path)
        assert result.diagnostics == [] and count_rebuilds([path]) == set()
        assert result.summary.coding_agents["cold_starts"]["sub-agent-start"]["count"] == 2
        threads = result.summary.coding_agents["sessions"][0]["threads"]
        assert [t["turns"] for t in threads] == [1, 2, 2]  # each call's second content block on its own line


def test_a_healthy_session_and_look_alikes_raise_nothing(tmp_path: Path) -> None:
    """Reads that grow, a read shrinking by nothing the previous call cached, a long pause that
    still read (the provider kept the entry), a synthetic error message and a call split in lines."""
    s = ClaudeSession()
    s.call(0, read=0, written=20_000, blocks=3)
    s.call(0.5, read=20_000, written=400)
    s.call(30, read=20_400, written=100)  # a long pause, and yet read: no rebuild, whatever the clock says
    s.lines.append(
        {
            **s.lines[-1],
            "requestId": "synthetic",
            "uuid": "x",
            "message": {**s.lines[-1]["message"], "model": "<synthetic>"},
        }
    )
    s.call(31, read=20_500, written=0, uncached=40)
    path = s.write(tmp_path / "s.jsonl")
    result = audit_logs([str(path)], cwd=tmp_path)
    assert result.diagnostics == []
    assert result.summary.coding_agents["total"]["turns"] == 4


def test_a_small_rebuild_is_counted_not_reported(tmp_path: Path) -> None:
    s = ClaudeSession()
    s.call(0, read=0, written=20_000)
    line = s.call(0.5, read=19_700, written=700)  # 300 tokens lost: under the model's 1,024-token minimum
    path = s.write(tmp_path / "s.jsonl")
    result = audit_logs([str(path)], cwd=tmp_path)
    assert result.diagnostics == []
    thread = result.summary.coding_agents["sessions"][0]["threads"][0]
    assert thread["minor_rebuilds"] == {"count": 1, "tokens": 300, "money": round(300 * (3.75 - 0.3) / 1e6, 6)}
    assert count_rebuilds([path]) == {(str(path), line)}


def test_a_damaged_line_is_one_cl001_and_the_rest_is_read(tmp_path: Path) -> None:
    s, lines = five_rebuilds()
    path = s.write(tmp_path / "s.jsonl")
    text = path.read_text().splitlines()
    text.insert(3, '{"type": "assistant", "sessionId": ')
    path.write_text("\n".join(text) + "\n")
    result = audit_logs([str(path)], cwd=tmp_path)
    assert [(d.code, d.line) for d in result.diagnostics if d.code == "CL001"] == [("CL001", 4)]
    assert len([d for d in result.diagnostics if d.code == "CL313"]) == 5
