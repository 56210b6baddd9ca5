"""Where each coding agent keeps its session files by default (what ``cachelint audit
--coding-agent NAME`` reads when no path is given). Nothing else is read: only the folder the
agent's own documentation names, and only its session files.

- Claude Code: ``~/.claude/projects`` (its settings page: transcripts are kept there for
  ``cleanupPeriodDays``); ``CLAUDE_CONFIG_DIR`` moves the whole ``~/.claude`` folder.
- Codex CLI: ``~/.codex/sessions`` (rollouts by date); ``CODEX_HOME`` moves ``~/.codex``.
- Gemini CLI: ``~/.gemini/tmp`` (its session-management page: ``~/.gemini/tmp/<project_hash>/chats/``,
  one folder a project, read whole); ``GEMINI_CLI_HOME`` stands for the home folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

# --coding-agent NAME -> the log format of its session files
AGENT_FORMATS = {"claude": "claude-code", "codex": "codex", "gemini": "gemini-cli"}
# a session-file format -> the agent's name as a person reads it
AGENT_TITLES = {"claude-code": "Claude Code", "codex": "Codex CLI", "gemini-cli": "Gemini CLI"}


def default_folder(agent: str, environ: Mapping[str, str] | None = None) -> Path:
    """The folder of an agent's session files for the current user (a key of ``AGENT_FORMATS``)."""
    env = os.environ if environ is None else environ
    if agent == "claude":
        base = env.get("CLAUDE_CONFIG_DIR")
        return (Path(base).expanduser() if base else Path(env.get("HOME") or Path.home()) / ".claude") / "projects"
    if agent == "codex":
        base = env.get("CODEX_HOME")
        return (Path(base).expanduser() if base else Path(env.get("HOME") or Path.home()) / ".codex") / "sessions"
    if agent == "gemini":
        base = env.get("GEMINI_CLI_HOME")
        return (Path(base).expanduser() if base else Path(env.get("HOME") or Path.home())) / ".gemini" / "tmp"
    raise ValueError(f"unknown coding agent {agent!r} ({', '.join(AGENT_FORMATS)})")
