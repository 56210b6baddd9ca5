"""Where each coding agent keeps its session files by default (what ``cachelint audit
--coding-agent NAME`` reads when no path is given). Nothing else is read: only the folder the
agent's own documentation names, and only its session files.

- Claude Code: ``~/.claude/projects`` (its settings page: transcripts are kept there for
  ``cleanupPeriodDays``); ``CLAUDE_CONFIG_DIR`` moves the whole ``~/.claude`` folder.
- Codex CLI: ``~/.codex/sessions`` (rollouts by date); ``CODEX_HOME`` moves ``~/.codex``.
- Gemini CLI: ``~/.gemini/tmp`` (its session-management page: ``~/.gemini/tmp/<project_hash>/chats/``,
  one folder a project, read whole); ``GEMINI_CLI_HOME`` stands for the home folder.
- OpenCode: its data folder, ``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode``: the
  ``xdg-basedir`` data folder in its ``packages/opencode/src/global/index.ts``). Only its session
  stores in it are read (``session_paths``): the databases ``opencode*.db`` and the legacy
  ``storage/session`` tree, never the rest of the folder (it holds the user's ``auth.json``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

# --coding-agent NAME -> the log format of its session files
AGENT_FORMATS = {"claude": "claude-code", "codex": "codex", "gemini": "gemini-cli", "opencode": "opencode"}
# a session-file format -> the agent's name as a person reads it
AGENT_TITLES = {"claude-code": "Claude Code", "codex": "Codex CLI", "gemini-cli": "Gemini CLI", "opencode": "OpenCode"}


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
    if agent == "opencode":
        base = env.get("XDG_DATA_HOME")
        data = Path(base).expanduser() if base else Path(env.get("HOME") or Path.home()) / ".local" / "share"
        return data / "opencode"
    raise ValueError(f"unknown coding agent {agent!r} ({', '.join(AGENT_FORMATS)})")


def session_paths(agent: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """What ``--coding-agent NAME`` reads when no path is given: the agent's folder, or for OpenCode,
    whose folder holds more than sessions, its session stores in it (those that exist)."""
    folder = default_folder(agent, environ)
    if agent != "opencode":
        return [folder] if folder.is_dir() else []
    stores = sorted(folder.glob("opencode*.db")) if folder.is_dir() else []
    tree = folder / "storage" / "session"
    return [path for path in stores if path.is_file()] + ([tree] if tree.is_dir() else [])
