"""OpenCode sessions, in both of OpenCode's layouts (its SQLite database and the older tree of JSON
files): each step of an assistant message is a call, its tokens judged against the previous call
of its thread; a child session is a sub-agent thread of its parent; causes from the store (a pause,
a model switch, a compaction, tool outputs pruned); a damaged store is one notice and the rest is read."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from .sessions import T0

from cachelint.api import audit_logs
from cachelint.cli import main
from cachelint.transcripts import opencode
from cachelint.transcripts.locations import default_folder, session_paths

MAIN, CHILD = "ses_7f3a20c1dffeAbCdEfGhIjKlMn", "ses_7f3a1e55aaffQrStUvWxYzAbCd"
SECRET = "sk-ant-api03-" + "Q" * 40  # a key a tool printed: never in the audit's output


def ms(minutes: float) -> int:
    return int((T0 + timedelta(minutes=minutes)).timestamp() * 1000)


class OpenCodeStore:
    """Sessions, messages and parts as OpenCode stores them (message-v2.ts shapes), written as its
    database (session.sql.ts columns) or as its legacy storage tree (storage.ts paths)."""

    def __init__(self) -> None:
        self.sessions: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.parts: list[dict[str, Any]] = []
        self.count = 0

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count:012x}AbCdEfGhIjKlMn"

    def session(self, ident: str, parent: str | None = None) -> None:
        info = {"id": ident, "projectID": "prj1", "version": "1.2.3", "title": "t", "time": {"created": ms(0)}}
        if parent:
            info["parentID"] = parent
        self.sessions.append(info)

    def user(self, session: str, minutes: float, compaction: bool | None = None) -> str:
        ident = self._id("msg_")
        self.messages.append(
            {"id": ident, "sessionID": session, "role": "user", "time": {"created": ms(minutes)}, "agent": "build"}
        )
        self._part(ident, session, {"type": "text", "text": "go on"})
        if compaction is not None:
            self._part(ident, session, {"type": "compaction", "auto": compaction})
        return ident

    def call(
        self,
        session: str,
        minutes: float,
        steps: list[tuple[int, int, int]],
        model: str = "claude-sonnet-4-5",
        agent: str = "build",
        summary: bool = False,
        pruned_at: float | None = None,
    ) -> str:
        """An assistant message whose steps had (uncached, read, written) prompts; a tool ran one
        minute after each step but the last (its output holds a secret)."""
        ident = self._id("msg_")

        def tokens(uncached: int, read: int, written: int) -> dict[str, Any]:
            return {"input": uncached, "output": 200, "reasoning": 0, "cache": {"read": read, "write": written}}

        info: dict[str, Any] = {
            "id": ident,
            "sessionID": session,
            "role": "assistant",
            "time": {"created": ms(minutes), "completed": ms(minutes + len(steps) * 0.1)},
            "parentID": self.messages[-1]["id"] if self.messages else "msg_x",
            "modelID": model,
            "providerID": "anthropic",
            "mode": agent,
            "agent": agent,
            "path": {"cwd": "/w", "root": "/w"},
            "cost": 0.01,
            "tokens": tokens(*steps[-1]),
        }
        if summary:
            info["summary"] = True
        self.messages.append(info)
        for index, step in enumerate(steps):
            self._part(ident, session, {"type": "step-start"})
            if index < len(steps) - 1:
                state: dict[str, Any] = {
                    "status": "completed",
                    "input": {"command": "env"},
                    "output": f"ANTHROPIC_API_KEY={SECRET}",
                    "title": "env",
                    "metadata": {},
                    "time": {"start": ms(minutes + index), "end": ms(minutes + index + 1)},
                }
                self._part(ident, session, {"type": "tool", "callID": f"c{index}", "tool": "bash", "state": state})
            self._part(ident, session, {"type": "step-finish", "reason": "stop", "cost": 0.01, "tokens": tokens(*step)})
        if pruned_at is not None:
            state = {
                "status": "completed",
                "input": {},
                "output": f"token {SECRET}",
                "title": "read",
                "metadata": {},
                "time": {"start": ms(minutes), "end": ms(minutes), "compacted": ms(pruned_at)},
            }
            self._part(ident, session, {"type": "tool", "callID": "old", "tool": "read", "state": state})
        return ident

    def _part(self, message: str, session: str, data: dict[str, Any]) -> None:
        self.parts.append({"id": self._id("prt_"), "messageID": message, "sessionID": session, **data})

    # --- the two layouts -------------------------------------------------------------------

    def database(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path)
        db.executescript(
            "CREATE TABLE project (id TEXT PRIMARY KEY);"
            "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,"
            " slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,"
            " time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);"
            "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,"
            " time_updated INTEGER NOT NULL, data TEXT NOT NULL);"
            "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,"
            " time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);"
        )
        for s in self.sessions:
            created = s["time"]["created"]
            db.execute(
                "INSERT INTO session VALUES (?, ?, NULL, ?, 's', '/w', ?, ?, ?, ?)",
                (s["id"], s["projectID"], s.get("parentID"), s["title"], s["version"], created, created),
            )
        for m in self.messages:
            data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
            created = m["time"]["created"]
            db.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (m["id"], m["sessionID"], created, created, json.dumps(data)),
            )
        for p in self.parts:
            data = {k: v for k, v in p.items() if k not in ("id", "messageID", "sessionID")}
            db.execute(
                "INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)",
                (p["id"], p["messageID"], p["sessionID"], json.dumps(data)),
            )
        db.commit()
        db.close()
        return path

    def tree(self, storage: Path) -> Path:
        def write(path: Path, value: Any) -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value, indent=2), encoding="utf-8")

        for s in self.sessions:
            write(storage / "session" / s["projectID"] / f"{s['id']}.json", s)
        for m in self.messages:
            write(storage / "message" / m["sessionID"] / f"{m['id']}.json", m)
        for p in self.parts:
            write(storage / "part" / p["messageID"] / f"{p['id']}.json", p)
        return storage


def story() -> tuple[OpenCodeStore, dict[str, list[tuple[int, int, int]]]]:
    """A main session with a sub-agent; the calls of each thread, in order, as (uncached, read, written)."""
    s = OpenCodeStore()
    s.session(MAIN)
    s.session(CHILD, parent=MAIN)
    calls: dict[str, list[tuple[int, int, int]]] = {MAIN: [], CHILD: []}

    def call(session: str, minutes: float, steps: list[tuple[int, int, int]], **kw: Any) -> None:
        s.call(session, minutes, steps, **kw)
        calls[session].extend(steps)

    s.user(MAIN, 0)
    call(MAIN, 0, [(3_000, 0, 20_000), (10, 20_000, 600)])  # a cold start, then a read
    call(CHILD, 2, [(50, 0, 9_000), (20, 9_000, 300)], model="claude-haiku-4-5", agent="explore")
    s.user(MAIN, 10)
    call(MAIN, 10, [(10, 0, 20_700)], pruned_at=13.2)  # idle-gap: 9 minutes since the last step
    call(MAIN, 10.5, [(10, 0, 21_000)], model="claude-opus-4-1")  # model-switch
    s.user(MAIN, 12, compaction=True)
    call(MAIN, 12, [(10, 21_000, 400)], model="claude-opus-4-1", agent="compaction", summary=True)
    call(MAIN, 13, [(10, 0, 8_000)], model="claude-opus-4-1")  # after the summary: compaction
    call(MAIN, 13.5, [(10, 3_000, 6_000)], model="claude-opus-4-1")  # tool outputs pruned at 13.2
    call(MAIN, 14, [(10, 9_000, 100)], model="claude-opus-4-1")
    return s, calls


def rebuilt(calls: list[tuple[int, int, int]]) -> int:
    """Counted here from the tokens alone: a call that did not read all its predecessor cached."""
    return sum(
        1
        for (_u0, r0, w0), (u1, r1, w1) in zip(calls, calls[1:])
        if r0 + w0 - r1 > 0 and min(r0 + w0 - r1, u1 + w1) > 0
    )


EXPECTED = ["idle-gap", "model-switch", "compaction", "compaction"]


def check(result: Any, calls: dict[str, list[tuple[int, int, int]]]) -> None:
    kinds = [d.kind for d in result.diagnostics if d.code == "CL313"]
    assert len(kinds) == rebuilt(calls[MAIN]) + rebuilt(calls[CHILD]) == 4
    assert kinds == EXPECTED
    messages = [d.message for d in result.diagnostics]
    assert any("idle-gap" in m and "longer than the 5-minute TTL" in m for m in messages)
    assert any("model switched from claude-sonnet-4-5 to claude-opus-4-1" in m for m in messages)
    assert any("compaction (auto)" in m for m in messages)
    assert any("compaction (prune: 1 old tool result(s) cleared)" in m for m in messages)
    part = result.summary.coding_agents
    [summary] = part["sessions"]
    assert summary["agent"] == "opencode" and summary["id"] == MAIN
    assert summary["turns"] == len(calls[MAIN]) + len(calls[CHILD]) == 10
    threads = {t["id"]: t for t in summary["threads"]}
    assert set(threads) == {MAIN, f"{MAIN}/{CHILD}"}
    child = threads[f"{MAIN}/{CHILD}"]
    assert child["kind"] == "explore" and child["cold_start"]["kind"] == "sub-agent-start"
    assert child["tokens"] == {"read": 9_000, "written": 9_300, "uncached": 70, "prompt": 18_370}
    assert threads[MAIN]["cold_start"]["kind"] == "session-start"
    assert threads[MAIN]["cold_start"]["tokens"] == 20_000


def test_the_database_is_read_per_step_with_causes(tmp_path: Path) -> None:
    s, calls = story()
    db = s.database(tmp_path / "data" / "opencode" / "opencode.db")
    before = db.read_bytes()
    result = audit_logs([str(db)], cwd=tmp_path)
    check(result, calls)
    assert result.summary.coding_agents["agents"] == {"opencode": 1}
    assert db.read_bytes() == before  # opened read-only
    assert not Path(f"{db}-journal").exists() and not Path(f"{db}-wal").exists()


def test_the_legacy_storage_tree_is_read_alike(tmp_path: Path) -> None:
    s, calls = story()
    storage = s.tree(tmp_path / "opencode" / "storage")
    result = audit_logs([str(storage)], cwd=tmp_path)
    check(result, calls)
    # the two session files are read; message and part files are read through them
    assert result.summary.coding_agents["agents"] == {"opencode": 2}


def test_a_session_in_both_layouts_is_read_once(tmp_path: Path) -> None:
    s, calls = story()
    data = tmp_path / "opencode"
    s.database(data / "opencode.db")
    s.tree(data / "storage")
    result = audit_logs([str(data / "opencode.db"), str(data / "storage" / "session")], cwd=tmp_path)
    assert [d.kind for d in result.diagnostics if d.code == "CL313"] == EXPECTED
    assert result.summary.coding_agents["sessions"][0]["turns"] == 10


def test_coding_agent_opencode_reads_only_its_stores(tmp_path: Path) -> None:
    s, _calls = story()
    data = tmp_path / "xdg" / "opencode"
    s.database(data / "opencode.db")
    (data / "auth.json").write_text(json.dumps({"anthropic": {"type": "api", "key": SECRET}}), encoding="utf-8")
    assert default_folder("opencode", {"XDG_DATA_HOME": str(tmp_path / "xdg")}) == data
    assert default_folder("opencode", {"HOME": str(tmp_path)}) == tmp_path / ".local" / "share" / "opencode"
    assert session_paths("opencode", {"XDG_DATA_HOME": str(tmp_path / "xdg")}) == [data / "opencode.db"]
    result = CliRunner(env={"XDG_DATA_HOME": str(tmp_path / "xdg")}).invoke(
        main,
        ["audit", "--isolated", "--coding-agent", "opencode", "--output-format", "concise"],
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    assert result.stdout.count(": CL313 ") == 4
    assert "Coding-agent sessions (OpenCode 1 file)" in result.stdout
    assert "auth.json" not in result.output
    assert SECRET not in result.output


def test_secrets_in_tool_output_never_reach_any_report(tmp_path: Path) -> None:
    s, _calls = story()
    db = s.database(tmp_path / "opencode.db")
    for fmt in ("full", "json"):
        result = CliRunner().invoke(main, ["audit", "--isolated", str(db), "--output-format", fmt])
        assert result.exit_code == 1, result.output
        assert SECRET not in result.output and "QQQQQQQQ" not in result.output


def test_a_damaged_database_is_one_notice_and_the_other_files_are_read(tmp_path: Path) -> None:
    s, _calls = story()
    good = s.database(tmp_path / "a" / "opencode.db")
    broken = tmp_path / "b" / "opencode.db"
    broken.parent.mkdir()
    broken.write_bytes(opencode.SQLITE_HEADER + b"\x00" * 200)  # a header, then nothing of a database
    result = CliRunner().invoke(main, ["audit", "--isolated", str(good), str(broken), "--output-format", "concise"])
    assert result.stdout.count(": CL001 ") == 1, result.output
    assert "b/opencode.db:1:1: CL001 cannot read OpenCode database" in result.stdout
    assert result.stdout.count(": CL313 ") == 4


def test_a_damaged_row_is_counted_and_the_rest_read(tmp_path: Path) -> None:
    s, _calls = story()
    db = s.database(tmp_path / "opencode.db")
    connection = sqlite3.connect(db)
    connection.execute(
        "INSERT INTO message VALUES ('msg_ffffffffffffAbCdEfGhIjKlMn', ?, ?, ?, '{\"role\": \"assis')",
        (MAIN, ms(30), ms(30)),
    )
    connection.commit()
    connection.close()
    result = audit_logs([str(db)], cwd=tmp_path)
    notices = [d for d in result.diagnostics if d.code == "CL001"]
    assert [d.message for d in notices] == ["1 message row(s) not JSON: not read"]
    assert [d.kind for d in result.diagnostics if d.code == "CL313"] == EXPECTED


def test_another_database_is_not_taken_for_opencodes(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE notes (id TEXT)")
    connection.commit()
    connection.close()
    result = audit_logs([str(path)], cwd=tmp_path)
    [notice] = result.diagnostics
    assert notice.code == "CL001"
    assert notice.message == "not an OpenCode database (no message, part, session table): not read"


def test_a_truncated_storage_file_is_one_notice_and_the_session_is_read(tmp_path: Path) -> None:
    s, calls = story()
    storage = s.tree(tmp_path / "storage")
    last = sorted((storage / "message" / MAIN).glob("msg_*.json"))[-1]
    last.write_text(last.read_text(encoding="utf-8")[:40], encoding="utf-8")  # cut while OpenCode wrote it
    result = audit_logs([str(storage / "session")], cwd=tmp_path)
    notices = [d for d in result.diagnostics if d.code == "CL001"]
    assert [(Path(d.path).name, d.message) for d in notices] == [
        (last.name, "OpenCode storage file not valid JSON: not read")
    ]
    assert [d.kind for d in result.diagnostics if d.code == "CL313"] == EXPECTED
    assert result.summary.coding_agents["sessions"][0]["turns"] == 9  # the cut message's call is lost


def test_records_are_told_apart_from_the_other_agents() -> None:
    s, _calls = story()
    assert all(opencode.matches(info) for info in s.sessions)
    assert not opencode.matches(s.messages[0])  # a message is read with its parts
    assert opencode.matches({"info": s.messages[1], "parts": []})
    assert not opencode.matches({"sessionId": "x", "type": "user", "uuid": "u"})
    assert not opencode.matches({"id": "ses_x", "messages": []})


def test_follow_says_it_does_not_read_opencode_stores(tmp_path: Path) -> None:
    s, _calls = story()
    db = s.database(tmp_path / "opencode.db")
    result = CliRunner().invoke(main, ["audit", "--isolated", "--coding-agent", "opencode", "--follow", str(db)])
    assert result.exit_code == 2
    assert "--follow does not read OpenCode's session stores" in result.output
