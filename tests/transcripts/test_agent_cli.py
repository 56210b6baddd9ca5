"""`cachelint audit --coding-agent claude|codex` and `--follow`, as a user runs them: the agent's
own folder (under a HOME of the test's), every report format, keys pasted into a session never
printed, and a session file appended to while it is followed."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from .sessions import ClaudeSession, CodexRollout

from cachelint.cli import main
from cachelint.catalog import load_schema

KEY = "sk-ant-api03-Zx9qL2mN8vB4cR7tY1uI0oP3aS6dF5gH2jK4lQ8wE1rT7yU3iO9pA0sDplanted"


def audit(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(main, ["audit", "--isolated", *args], catch_exceptions=False)


def claude_home(home: Path) -> ClaudeSession:
    s = ClaudeSession()
    s.user(0, "Read the config.")
    s.call(0.1, read=0, written=20_000)
    s.user(9, "Go on.")
    s.call(9.1, read=0, written=20_400)
    s.write(home / ".claude" / "projects" / "-srv-project" / f"{s.session}.jsonl")
    return s


def test_coding_agent_claude_reads_the_default_folder_and_nothing_else(isolated_home: Path, tmp_path: Path) -> None:
    claude_home(isolated_home)
    outside = ClaudeSession(session="5e55a0b1-0000-4000-8000-0000000000ff")
    outside.call(0, read=0, written=20_000)
    outside.call(20, read=0, written=20_000)
    outside_file = outside.write(tmp_path / "elsewhere" / "other.jsonl")
    os.symlink(outside_file, isolated_home / ".claude" / "projects" / "-srv-project" / "linked.jsonl")
    (isolated_home / "stray.jsonl").write_text(outside_file.read_text())
    result = audit("--coding-agent", "claude", "--output-format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    jsonschema.validate(data, load_schema("output.schema.json"))
    part = data["summary"]["coding_agents"]
    assert part["agents"] == {"claude-code": 1} and part["total"]["sessions"] == 1
    assert [f["kind"] for f in data["findings"]] == ["idle-gap"]
    assert all("other" not in f["path"] and "linked" not in f["path"] for f in data["findings"])


def test_the_agents_folder_variables_move_the_default(tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    claude_home(tmp_path / "unused")  # under another HOME: not read
    s = ClaudeSession()
    s.call(0, read=0, written=20_000)
    s.write(config / "projects" / "p" / "s.jsonl")
    result = audit("--coding-agent", "claude", "--output-format", "json", env={"CLAUDE_CONFIG_DIR": str(config)})
    assert result.exit_code == 0 and json.loads(result.stdout)["summary"]["coding_agents"]["total"]["turns"] == 1
    codex_home = tmp_path / "codex-home"
    r = CodexRollout()
    r.turn_context(0)
    r.call(0.1, prompt=20_000, cached=0)
    r.call(15, prompt=21_000, cached=0)
    r.write(codex_home / "sessions" / "2026" / "11" / "30" / f"rollout-2026-11-30T10-00-00-{r.session}.jsonl")
    result = audit("--coding-agent", "codex", "--output-format", "concise", env={"CODEX_HOME": str(codex_home)})
    assert result.exit_code == 1
    assert "CL313 main rebuilt its prefix: 20,000 cached tokens paid again (idle-gap" in result.stdout
    assert "Coding-agent sessions (Codex CLI 1 file): 1 session, 1 thread, 2 calls" in result.stdout


def test_no_default_folder_is_a_usage_error(isolated_home: Path) -> None:
    result = audit("--coding-agent", "codex")
    assert result.exit_code == 2
    assert f"no codex session files: {isolated_home}/.codex/sessions is not a folder" in result.stderr
    assert audit().exit_code == 2


@pytest.mark.parametrize("fmt", ["concise", "full", "json", "json-lines", "sarif", "github", "gitlab", "junit", "html"])
def test_a_key_pasted_in_a_session_is_never_printed(tmp_path: Path, fmt: str) -> None:
    s = ClaudeSession(version=f"2.1.0-{KEY}")
    s.user(0, f"my key is {KEY}")
    s.call(0.1, read=0, written=20_000)
    s.lines.append(
        {
            **s.lines[-1],
            "type": "user",
            "uuid": "r1",
            "requestId": None,
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "content": f"export ANTHROPIC_API_KEY={KEY}"}],
            },
        }
    )
    s.user(0.2, f"<command-name>/model</command-name>\n<command-args>{KEY}</command-args>")
    s.version = "2.1.1"
    s.call(0.5, read=0, written=20_300)  # another version: the finding quotes both
    path = s.write(tmp_path / "s.jsonl")
    args = ["--output-format", fmt, str(path)]
    if fmt == "html":
        args += ["-o", str(tmp_path / "r.html")]
    result = audit(*args)
    assert result.exit_code == 1, result.output
    printed = result.output + (Path(tmp_path / "r.html").read_text() if fmt == "html" else "")
    assert "agent-updated" in printed or fmt in ("sarif", "github", "gitlab", "junit", "json-lines")
    assert KEY not in printed and KEY[20:40] not in printed


def test_follow_prints_each_rebuild_of_a_file_appended_to(tmp_path: Path, isolated_home: Path) -> None:
    s = ClaudeSession()
    s.user(0, "Start.")
    s.call(0.1, read=0, written=20_000)
    s.call(0.5, read=20_000, written=300)
    path = s.write(isolated_home / ".claude" / "projects" / "p" / f"{s.session}.jsonl")
    env = {**os.environ, "HOME": str(isolated_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cachelint", "audit", "--isolated", "--coding-agent", "claude", "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
        # Ctrl-C as a terminal sends it: a test runner's worker may ignore SIGINT, and a child
        # inherits an ignored signal (Python then installs no KeyboardInterrupt for it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert "following 1 session file(s)" in _line(proc.stderr)  # what was there is read, not printed
        before = len(s.lines)
        s.user(12, "Back after lunch.")
        line = s.call(12.1, read=0, written=20_500)  # 11.6 minutes after: past the 5-minute TTL
        with path.open("a", encoding="utf-8") as handle:
            for item in s.lines[before:]:
                text = json.dumps(item) + "\n"
                handle.write(text[:10])  # a line written in two pieces is read once whole
                handle.flush()
                handle.write(text[10:])
                handle.flush()
        printed = _line(proc.stdout)
        assert f"{s.session[:8]}  main  idle-gap  20,300 tokens  $0.0700  " in printed
        assert f"{s.session}.jsonl:{line}" in printed and printed.startswith("2026-11-30 10:12:06")
    finally:
        proc.send_signal(signal.SIGINT)
        out, _err = proc.communicate(timeout=120)  # a hang detector: a loaded machine only waits longer
    assert proc.returncode == 0 and out == b""  # nothing else printed


def _line(stream, timeout: float = 60.0) -> str:
    """The next line of a child's stream, waiting at most ``timeout`` seconds (no timing assertion:
    a slow machine only waits longer)."""
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no line within {timeout} s: {data!r}"
        ready, _, _ = select.select([stream], [], [], left)
        if ready:
            chunk = os.read(stream.fileno(), 1)
            assert chunk, f"stream closed: {data!r}"
            data += chunk
    return data.decode("utf-8")


def test_the_html_report_lists_each_thread_its_rebuilds_and_its_calls(isolated_home: Path, tmp_path: Path) -> None:
    claude_home(isolated_home)
    result = audit("--coding-agent", "claude", "--output-format", "html", "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 1
    page = (tmp_path / "r.html").read_text()
    assert "<h2 id='coding-agents'>Coding-agent sessions</h2>" in page
    assert "<b>idle-gap</b> · 20,000 tokens" in page and "2 calls</summary>" in page
    assert "<td>20,000</td><td>3</td><td>session-start</td>" in page  # written, uncached, what the call was
