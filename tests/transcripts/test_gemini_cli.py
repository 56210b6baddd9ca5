"""Gemini CLI session files: calls from the tokens of model messages (each once, however often the
message is appended again), the implicit cache's reads judged against the previous prompt, causes
from the file (a model switch, a pause, a /rewind), and a miss nothing explains told apart as the
provider's possible miss (implicit caching promises no hit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from .sessions import ClaudeSession, at

from cachelint.api import audit_logs
from cachelint.cli import main
from cachelint.diagnostics import Severity
from cachelint.transcripts import claude_code, gemini_cli
from cachelint.transcripts.locations import AGENT_FORMATS, default_folder

SESSION = "3f6c2a10-9d4e-4b7a-8c21-5e0f1a2b3c4d"


class GeminiSession:
    """The lines of one Gemini CLI session file, as its chat recorder appends them."""

    def __init__(self, session: str = SESSION, kind: str = "main") -> None:
        self.session = session
        self.lines: list[dict[str, Any]] = [
            {"sessionId": session, "projectHash": "9a1f" * 16, "startTime": at(0), "lastUpdated": at(0), "kind": kind}
        ]
        self.count = 0

    def user(self, minutes: float, text: str) -> int:
        self.count += 1
        self.lines.append(
            {"id": f"u{self.count}", "timestamp": at(minutes), "type": "user", "content": [{"text": text}]}
        )
        return len(self.lines)

    def call(self, minutes: float, prompt: int, cached: int, model: str = "gemini-2.5-pro", again: bool = False) -> int:
        """A model message with the tokens of its call (``again``: appended once more when its tool
        calls finish, with the same id and tokens, as the recorder does)."""
        self.count += 1
        message = {
            "id": f"g{self.count}",
            "timestamp": at(minutes),
            "type": "gemini",
            "content": "Reading the file.",
            "toolCalls": [],
            "thoughts": [],
            "tokens": {
                "input": prompt,
                "output": 120,
                "cached": cached,
                "thoughts": 40,
                "tool": 0,
                "total": prompt + 160,
            },
            "model": model,
        }
        self.lines.append(message)
        line = len(self.lines)
        if again:
            self.lines.append(
                dict(message, toolCalls=[{"id": "t1", "name": "read_file", "args": {}, "status": "success"}])
            )
        return line

    def rewind(self, to: str) -> None:
        self.lines.append({"$rewindTo": to})

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return path


def session() -> tuple[GeminiSession, dict[str, int]]:
    s = GeminiSession()
    lines = {}
    s.user(0, "Fix the failing test.")
    lines["start"] = s.call(0.1, prompt=12_000, cached=0, again=True)
    s.user(0.3, "Go on.")
    s.call(0.4, prompt=12_600, cached=11_900)  # read what the previous call left: no rebuild
    s.user(0.6, "And the docs.")
    lines["unknown"] = s.call(0.7, prompt=13_200, cached=0)
    s.user(0.8, "Use flash.")
    lines["model-switch"] = s.call(0.9, prompt=13_800, cached=0, model="gemini-2.5-flash")
    s.user(20, "Back again.")
    lines["idle-gap"] = s.call(20.1, prompt=14_400, cached=0, model="gemini-2.5-flash")
    s.rewind("u2")
    s.user(20.5, "Try another way.")
    lines["rewind"] = s.call(20.6, prompt=12_800, cached=6_000, model="gemini-2.5-flash")
    return s, lines


def chats(root: Path) -> Path:
    return root / ".gemini" / "tmp" / ("9a1f" * 16) / "chats"


def test_gemini_cli_rebuilds_with_their_causes(tmp_path: Path) -> None:
    s, lines = session()
    path = s.write(chats(tmp_path) / "session-2026-11-30T10-00-3f6c2a10.jsonl")
    result = audit_logs([str(path)], cwd=tmp_path)
    found = [(d.line, d.kind, d.severity is Severity.INFO) for d in result.diagnostics]
    assert found == [
        (lines["unknown"], "unknown", True),
        (lines["model-switch"], "model-switch", False),
        (lines["idle-gap"], "idle-gap", False),
        (lines["rewind"], "rewind", True),
    ]
    by_line = {d.line: d for d in result.diagnostics}
    assert "automatic caching promises no hit: the miss may be the provider's" in by_line[lines["unknown"]].message
    assert "model switched from gemini-2.5-pro to gemini-2.5-flash" in by_line[lines["model-switch"]].message
    assert "conversation rewound to an earlier message (/rewind)" in by_line[lines["rewind"]].message
    part = result.summary.coding_agents
    assert part["agents"] == {"gemini-cli": 1}
    [summary] = part["sessions"]
    assert summary["agent"] == "gemini-cli" and summary["id"] == SESSION
    assert summary["turns"] == 6  # the message appended again is one call
    assert summary["threads"][0]["cold_start"]["line"] == lines["start"]


def test_a_model_message_without_content_is_read(tmp_path: Path) -> None:
    s = GeminiSession()
    s.call(0, prompt=12_000, cached=0)
    line = s.call(0.5, prompt=12_600, cached=0, model="gemini-2.5-flash")
    del s.lines[-1]["content"]
    result = audit_logs([str(s.write(chats(tmp_path) / "session-b.jsonl"))], cwd=tmp_path)
    assert [(d.line, d.kind) for d in result.diagnostics] == [(line, "model-switch")]


def test_a_shrunk_prompt_is_named_in_an_unexplained_rebuild(tmp_path: Path) -> None:
    s = GeminiSession()
    s.call(0, prompt=40_000, cached=0)
    line = s.call(0.5, prompt=9_000, cached=0)  # the history was cut; the file records nothing
    result = audit_logs([str(s.write(chats(tmp_path) / "session-a.jsonl"))], cwd=tmp_path)
    [d] = result.diagnostics
    assert d.line == line and d.kind == "unknown"
    assert "the prompt shrank from 40,000 to 9,000 tokens (history cut or summarised)" in d.message


def test_a_sub_agent_is_a_thread_of_its_parent_session(tmp_path: Path) -> None:
    main_session = GeminiSession()
    main_session.call(0, prompt=12_000, cached=0)
    main_session.call(0.2, prompt=12_500, cached=11_900)
    sub = GeminiSession(session="7b2d9e44-1111-4222-8333-444455556666", kind="subagent")
    sub.call(0.1, prompt=5_000, cached=0)
    sub.call(0.15, prompt=5_400, cached=4_900)
    folder = chats(tmp_path)
    main_session.write(folder / "session-2026-11-30T10-00-3f6c2a10.jsonl")
    sub.write(folder / SESSION / f"{sub.session}.jsonl")
    result = audit_logs([str(folder)], cwd=tmp_path)
    assert result.diagnostics == []
    [summary] = result.summary.coding_agents["sessions"]
    assert summary["id"] == SESSION
    threads = {t["id"]: t for t in summary["threads"]}
    assert set(threads) == {SESSION, f"{SESSION}/7b2d9e44"}
    assert threads[f"{SESSION}/7b2d9e44"]["cold_start"]["kind"] == "sub-agent-start"


def test_lines_are_told_apart_from_the_other_agents() -> None:
    gemini = GeminiSession()
    gemini.user(0, "hi")
    gemini.call(0.1, prompt=1_000, cached=0)
    claude = ClaudeSession()
    claude.user(0, "hi")
    claude.call(0.1, read=0, written=20_000)
    assert all(gemini_cli.matches(line) for line in gemini.lines)
    assert not any(claude_code.matches(line) for line in gemini.lines)
    assert not any(gemini_cli.matches(line) for line in claude.lines)
    # a chat completion's message or an unrelated record is not a session line
    assert not gemini_cli.matches({"id": "x", "type": "user", "content": "hi"})
    assert not gemini_cli.matches({"sessionId": "s", "messages": []})


def test_coding_agent_gemini_reads_its_folder_under_gemini_cli_home(tmp_path: Path) -> None:
    home = tmp_path / "gemini-home"
    s = GeminiSession()
    s.call(0, prompt=12_000, cached=0)
    s.call(15, prompt=12_600, cached=0)
    s.write(chats(home) / "session-2026-11-30T10-00-3f6c2a10.jsonl")
    assert default_folder("gemini", {"GEMINI_CLI_HOME": str(home)}) == home / ".gemini" / "tmp"
    assert default_folder("gemini", {"HOME": str(tmp_path)}) == tmp_path / ".gemini" / "tmp"
    result = CliRunner(env={"GEMINI_CLI_HOME": str(home)}).invoke(
        main, ["audit", "--isolated", "--coding-agent", "gemini", "--output-format", "concise"], catch_exceptions=False
    )
    assert result.exit_code == 1, result.output
    assert "CL313 main rebuilt its prefix: 12,000 cached tokens paid again (idle-gap" in result.stdout
    assert "Coding-agent sessions (Gemini CLI 1 file)" in result.stdout


def test_every_coding_agent_is_a_choice_of_the_cli() -> None:
    option = next(p for p in main.commands["audit"].params if p.name == "coding_agent")
    assert sorted(option.type.choices) == sorted(AGENT_FORMATS)


def test_an_older_session_written_as_one_json_document_is_read(tmp_path: Path) -> None:
    s, lines = session()
    records = [line for line in s.lines if "$rewindTo" not in line]
    document = dict(records[0], messages=records[1:])
    path = chats(tmp_path) / "session-2026-11-30T10-00-3f6c2a10.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = audit_logs([str(path)], cwd=tmp_path)
    assert [d.kind for d in result.diagnostics] == ["unknown", "model-switch", "idle-gap", "unknown"]
    assert [d.record for d in result.diagnostics] == [7, 9, 11, 13]  # the metadata is record 0, then the messages
    assert result.summary.coding_agents["sessions"][0]["turns"] == 6


def test_a_session_file_that_is_no_json_lines_is_one_notice(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{\n  "title": "not a session",\n  "items": [1, 2, 3]\n}\n', encoding="utf-8")
    result = CliRunner().invoke(
        main, ["audit", "--isolated", str(path), "--input-format", "gemini-cli", "--output-format", "concise"]
    )
    assert result.exit_code == 2, result.output
    assert result.stdout.count("CL001") == 1
    assert "notes.jsonl:1:1: CL001 session file not JSON lines, nor a session document cachelint reads" in result.stdout
