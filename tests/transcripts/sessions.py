"""Session files written the way Claude Code and Codex CLI write them (from their documented
formats: Claude Code's transcript lines with ``sessionId``, ``uuid`` / ``parentUuid``,
``isSidechain``, ``agentId``, the API response's ``usage`` on assistant lines, ``compact_boundary``
system lines and SessionStart hook progress; Codex's ``{"timestamp", "type", "payload"}`` rollout
lines with ``token_count`` events), and a small counter of rebuilds written apart from cachelint's,
to check it against."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable

T0 = datetime(2026, 11, 30, 10, 0, 0, tzinfo=timezone.utc)


def at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


class ClaudeSession:
    """The lines of one Claude Code session file, built turn by turn."""

    def __init__(self, session: str = "5e55a0b1-0000-4000-8000-000000000001", version: str = "2.1.0") -> None:
        self.session = session
        self.version = version
        self.lines: list[dict[str, Any]] = []
        self.parent: dict[str | None, str | None] = {None: None}  # thread -> last uuid
        self.count = 0

    def _base(self, minutes: float, thread: str | None, agent: str | None = None, **extra: Any) -> dict[str, Any]:
        self.count += 1
        uuid = f"{self.session}-{self.count:04d}"
        line = {
            "parentUuid": self.parent.get(thread),
            "isSidechain": thread is not None,
            "userType": "external",
            "cwd": "/srv/project",
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
            "uuid": uuid,
            "timestamp": at(minutes),
            **extra,
        }
        if agent is not None:
            line["agentId"] = agent
        self.parent[thread] = uuid
        self.lines.append(line)
        return line

    def user(self, minutes: float, text: str, thread: str | None = None, agent: str | None = None) -> None:
        self._base(minutes, thread, agent, type="user", message={"role": "user", "content": text})

    def sidechain_root(self, minutes: float, thread: str, text: str = "Search the tests.") -> None:
        """The first line of an old-style sub-agent (no agentId): its parentUuid is null."""
        self.parent[thread] = None
        self.user(minutes, text, thread)

    def call(
        self,
        minutes: float,
        read: int,
        written: int,
        *,
        model: str = "claude-sonnet-4-5",
        uncached: int = 3,
        ttl: str = "5m",
        thread: str | None = None,
        agent: str | None = None,
        blocks: int = 2,
    ) -> int:
        """One API call, written as Claude Code does: a line per content block, same usage. Returns
        the line number of its first line."""
        split = {
            "ephemeral_5m_input_tokens": written if ttl == "5m" else 0,
            "ephemeral_1h_input_tokens": written if ttl == "1h" else 0,
        }
        usage = {
            "input_tokens": uncached,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
            "output_tokens": 30,
            "cache_creation": split,
            "service_tier": "standard",
        }
        request = f"req_{self.session}_{len(self.lines):05d}"
        first = len(self.lines) + 1
        for i in range(blocks):
            content = (
                [{"type": "text", "text": "Working on it."}]
                if i == 0
                else [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{len(self.lines)}",
                        "name": "Read",
                        "input": {"file_path": "src/retry.py"},
                    }
                ]
            )
            self._base(
                minutes,
                thread,
                agent,
                type="assistant",
                requestId=request,
                message={
                    "id": f"msg_{request}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "usage": usage,
                },
            )
        return first

    def compact(self, minutes: float, trigger: str = "auto", pre: int = 160_000) -> None:
        line = self._base(
            minutes,
            None,
            type="system",
            subtype="compact_boundary",
            content="Conversation compacted",
            compactMetadata={"trigger": trigger, "preTokens": pre},
        )
        line["parentUuid"] = None

    def hook(self, minutes: float, name: str) -> None:
        self._base(
            minutes,
            None,
            type="progress",
            data={"type": "hook_progress", "hookEvent": name.partition(":")[0], "hookName": name, "command": "notify"},
        )

    def write(self, path: Path, compact: bool = True) -> Path:
        """The lines as Claude Code writes them (JSON without spaces), or with spaces (``compact``
        False: another writer's layout, which the reader must read too)."""
        separators = (",", ":") if compact else (", ", ": ")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "".join(json.dumps(line, separators=separators) + "\n" for line in self.lines), encoding="utf-8"
        )
        return path


class CodexRollout:
    """The lines of one Codex CLI rollout."""

    def __init__(self, session: str = "019a0000-0000-7000-8000-000000000001", source: Any = "cli") -> None:
        self.session = session
        self.lines: list[dict[str, Any]] = []
        self.total = 0
        self.line(
            0,
            "session_meta",
            {
                "id": session,
                "timestamp": at(0),
                "cwd": "/srv/project",
                "originator": "codex_cli_rs",
                "cli_version": "0.60.0",
                "source": source,
                "model_provider": "openai",
            },
        )
        self.context: dict[str, Any] = {}

    def line(self, minutes: float, kind: str, payload: dict[str, Any]) -> int:
        self.lines.append({"timestamp": at(minutes), "type": kind, "payload": payload})
        return len(self.lines)

    def turn_context(self, minutes: float, **settings: Any) -> None:
        self.context = {
            "cwd": "/srv/project",
            "approval_policy": "on-request",
            "model": "gpt-5-codex",
            "effort": "medium",
            "user_instructions": "Use ruff.",
            **self.context,
            **settings,
        }
        self.line(minutes, "turn_context", {"turn_id": f"t{len(self.lines)}", **self.context})

    def call(self, minutes: float, prompt: int, cached: int, repeat: bool = True) -> int:
        """A call's token_count event (sent twice, as Codex does), then a rate-limit-only one."""
        self.total += prompt
        last = {
            "input_tokens": prompt,
            "cached_input_tokens": cached,
            "output_tokens": 200,
            "reasoning_output_tokens": 64,
            "total_tokens": prompt + 200,
        }
        info = {
            "total_token_usage": {
                "input_tokens": self.total,
                "cached_input_tokens": 0,
                "output_tokens": 0,
                "total_tokens": self.total,
            },
            "last_token_usage": last,
            "model_context_window": 272000,
        }
        first = self.line(minutes, "event_msg", {"type": "token_count", "info": info, "rate_limits": None})
        if repeat:
            self.line(minutes, "event_msg", {"type": "token_count", "info": info, "rate_limits": None})
        self.line(
            minutes,
            "event_msg",
            {"type": "token_count", "info": None, "rate_limits": {"primary": {"used_percent": 3.0}}},
        )
        return first

    def compacted(self, minutes: float) -> None:
        self.line(
            minutes,
            "compacted",
            {
                "message": "",
                "replacement_history": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "summary"}]}
                ],
            },
        )
        self.line(minutes, "event_msg", {"type": "context_compacted"})

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return path


# --- an independent count of rebuilds ------------------------------------------------------------


def count_rebuilds(files: Iterable[Path]) -> set[tuple[str, int]]:
    """(file, line) of every call that did not read all that the previous call of its thread had
    cached and paid again for the rest: a separate, deliberately plain reading of the usage fields
    (Anthropic: read < previous read + written, and something written or uncached now; OpenAI:
    a previous prompt of 1,024 tokens or more, a read short of it by 128 or more, something
    uncached now)."""
    found: set[tuple[str, int]] = set()
    for path in files:
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
        numbered = list(enumerate(lines, 1))
        if lines and isinstance(lines[0], dict) and "payload" in lines[0] and "timestamp" in lines[0]:
            found |= _codex(path, numbered)
        else:
            found |= _claude(path, numbered)
    return found


def _claude(path: Path, numbered: list[tuple[int, Any]]) -> set[tuple[str, int]]:
    owner: dict[str, str] = {}
    last: dict[str, tuple[int, int]] = {}
    seen: set[str] = set()
    out = set()
    for number, line in numbered:
        if not isinstance(line, dict):
            continue
        if line.get("isSidechain"):
            key = line.get("agentId") or owner.get(line.get("parentUuid") or "", "side:" + str(line.get("uuid")))
        else:
            key = "main:" + str(line.get("sessionId"))
        if line.get("uuid"):
            owner[line["uuid"]] = key
        message = line.get("message")
        if (
            line.get("type") != "assistant"
            or not isinstance(message, dict)
            or not isinstance(message.get("usage"), dict)
        ):
            continue
        if str(message.get("model", "")).startswith("<"):
            continue
        request = line.get("requestId") or message.get("id")
        if request in seen:
            continue
        seen.add(request)
        usage = message["usage"]
        read = usage.get("cache_read_input_tokens") or 0
        written = usage.get("cache_creation_input_tokens") or 0
        uncached = usage.get("input_tokens") or 0
        if key in last and read < sum(last[key]) and written + uncached > 0:
            out.add((str(path), number))
        last[key] = (read, written)
    return out


def _codex(path: Path, numbered: list[tuple[int, Any]]) -> set[tuple[str, int]]:
    out = set()
    previous = None
    totals = None
    for number, line in numbered:
        payload = line.get("payload") or {}
        if line.get("type") != "event_msg" or payload.get("type") != "token_count" or not payload.get("info"):
            continue
        if payload["info"].get("total_token_usage") == totals:
            continue
        totals = payload["info"].get("total_token_usage")
        last = payload["info"]["last_token_usage"]
        prompt, cached = last["input_tokens"], last["cached_input_tokens"]
        if previous is not None and previous >= 1024 and previous - cached >= 128 and prompt - cached > 0:
            out.add((str(path), number))
        previous = prompt
    return out
