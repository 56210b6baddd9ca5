"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``, its sub-agents in
``<session>/subagents/agent-<id>.jsonl``): one event a line, with ``type`` (``user``,
``assistant``, ``system``, ``progress``, ``summary``…), ``sessionId``, ``uuid`` / ``parentUuid``,
``isSidechain``, ``agentId``, ``timestamp`` and ``version``. Claude Code writes one assistant
line per content block of a response, each with the response's ``usage`` and ``requestId``: a
call is read once, at its first line.

Threads: the main thread of a session is its lines with ``isSidechain: false``. A sub-agent's lines
carry ``isSidechain: true`` and, in versions that write one file per sub-agent, its ``agentId``
(``acompact-…`` is the agent that writes a compaction's summary); in older versions sub-agents
are written inside the session's file without an id, each starting at a line whose
``parentUuid`` is null and continued by the lines whose ``parentUuid`` points into it (two Task
agents run in parallel interleave their lines).

Events the cause of a rebuild is read from (documented by Claude Code: settings, slash commands
and hooks pages): ``system`` lines of subtype ``compact_boundary`` (``compactMetadata.trigger``
auto or manual, ``preTokens``) and ``microcompact_boundary``; the ``SessionStart`` hooks' names
(``SessionStart:resume``, ``SessionStart:clear``: the hook's matcher is how the session started);
slash commands as the user line records them (``<command-name>/model</command-name>``); an
interrupted request; edits of a memory file (CLAUDE.md) by the agent's own tools.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Mapping

from cachelint.payloads.readers.envelopes import parse_time
from cachelint.payloads.usage import read_usage
from cachelint.transcripts.model import Event, Turn, new_event

AGENT = "claude-code"
RECORD_TYPES = (
    "user",
    "assistant",
    "summary",
    "system",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
)
_COMMAND = re.compile(r"<command-name>\s*(/[\w:.-]+)\s*</command-name>")
# Files Claude Code reads into the prompt as memory (its memory page: CLAUDE.md, CLAUDE.local.md).
MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md")
_EDIT_TOOLS = ("Edit", "Write", "MultiEdit")


def matches(value: Any) -> bool:
    """Whether a parsed line is a Claude Code transcript event."""
    if not isinstance(value, Mapping):
        return False
    kind = value.get("type")
    if kind not in RECORD_TYPES:
        return False
    if kind == "summary":
        return "leafUuid" in value
    if kind == "file-history-snapshot":
        return "messageId" in value and "snapshot" in value
    return "sessionId" in value and ("uuid" in value or "message" in value or "operation" in value)


# Which lines the audit reads, decided from their first bytes before any is decoded: a tool's
# output, most of a session file, says nothing about the cache. Claude Code writes each line's
# keys in one order (``parentUuid``, ``isSidechain``, …, ``type`` before ``message`` or ``data``;
# an assistant line's ``message`` comes first and starts with its own ``"type":"message"``), so
# the first ``"type":`` of a line says what it is within a few hundred bytes. Read: every call
# (assistant), system lines (compactions), SessionStart hooks (progress), user text that starts
# with a slash command, an interrupt or a background task's notification, and every line of an
# old-style sub-agent (its calls are linked through its user lines). A line of another layout, or
# of a type this reader does not know, is decoded.
_USER_TELLS = (b"<command-name>", b"[Request interrupted", b"<task-notification>")
# What a line is, from its first bytes: not read, read, or a call's line (read unless it is another
# content block of a call already read).
SKIP, READ, CALL = 0, 1, 2
_TRUE = (b"true,", b" true")
_PROGRESS, _USER = 3, 4  # decided by what follows the type
# A line's first "type" -> what it is (an assistant line's first "type" is its message's: "message").
_KINDS = {
    b"assistant": CALL,
    b"message": CALL,
    b"system": READ,
    b"progress": _PROGRESS,
    b"user": _USER,
    b"file-history-snapshot": SKIP,
    b"queue-operation": SKIP,
    b"summary": SKIP,
    b"attachment": SKIP,
}
_HEAD = 4096


def line_kind(raw: bytes) -> int:
    """``SKIP``, ``READ`` or ``CALL``, decided from the line's first bytes before it is decoded."""
    at = raw.find(b'"isSidechain":', 0, 200)
    if at >= 0 and raw[at + 14 : at + 19] in _TRUE and raw.find(b'"agentId"', at, _HEAD) < 0:
        return READ  # an old-style sub-agent's line: its calls are linked through every one
    at = raw.find(b'"type":', 0, _HEAD)
    if at < 0:
        return READ  # not the layout Claude Code writes: decode it
    at += 8 if raw[at + 7 : at + 8] == b" " else 7
    end = raw.find(b'"', at + 1, at + 32)
    kind = _KINDS.get(raw[at + 1 : end]) if end > 0 else None
    if kind is None:
        return READ  # a type this reader does not know: decode it
    if kind == _PROGRESS:
        return READ if raw.find(b"SessionStart", at, at + 400) >= 0 else SKIP
    if kind == _USER:
        for tell in _USER_TELLS:
            if raw.find(tell, at, at + 600) >= 0:
                return READ
        return SKIP
    return kind


def wanted(raw: bytes) -> bool:
    """Whether a line can matter (decided from its first bytes, before it is decoded)."""
    return line_kind(raw) != SKIP


class ClaudeCodeReader:
    """Reads the lines of one session file, in order, into Turns and Events. ``seen_calls`` is the
    run's set of request ids: a call copied into another file (a resumed or forked session starts
    with its parent's lines) is read once."""

    def wanted(self, raw: bytes) -> bool:
        """``wanted``, and not another content block of a call already read (the request id sits
        near the end of an assistant line), unless it may edit a memory file."""
        kind = line_kind(raw)
        if kind != CALL:
            return kind == READ
        at = raw.rfind(b'"requestId":"')
        if at < 0:
            return True
        end = raw.find(b'"', at + 13)
        call = raw[at + 13 : end].decode("utf-8", "replace")
        return call not in self.seen or raw.find(b"CLAUDE") >= 0

    def __init__(self, display: str, seen_calls: set[str]) -> None:
        self.display = display
        self.seen = seen_calls
        self.stem = PurePosixPath(display).stem
        # uuid -> (session, sub-agent or None): the thread each line belongs to, for the lines of
        # sub-agents written without an id and for sessions continued from another one
        self.threads: dict[str, tuple[str, str | None]] = {}
        self.started: set[str] = set()  # threads that have a call

    def feed(self, value: Any, line: int, record: int) -> list[Turn | Event]:
        if not isinstance(value, dict):
            return []
        session = value.get("sessionId")
        session = session if isinstance(session, str) and session else self.stem
        subagent = self._subagent(value, session)
        thread = session if subagent is None else f"{session}/{subagent}"
        time = value.get("timestamp")  # parsed only for what is kept (most lines keep nothing)
        out: list[Turn | Event] = []
        parent = value.get("parentUuid")
        if subagent is None and isinstance(parent, str):
            before = self.threads.get(parent)
            if before is not None and before[0] != session and thread not in self.started:
                out.append(self._event("resume", line, session, thread, time, how=f"continues session {before[0]}"))
        uuid = value.get("uuid")
        if isinstance(uuid, str):
            self.threads[uuid] = (session, subagent)
        kind = value.get("type")
        if kind == "assistant":
            out.extend(self._assistant(value, line, record, session, thread, subagent, time))
        elif kind == "system":
            sub = value.get("subtype")
            if sub == "compact_boundary":
                meta = value.get("compactMetadata")
                meta = meta if isinstance(meta, dict) else {}
                out.append(
                    self._event(
                        "compaction",
                        line,
                        session,
                        thread,
                        time,
                        trigger=meta.get("trigger"),
                        pre_tokens=meta.get("preTokens") if isinstance(meta.get("preTokens"), int) else None,
                    )
                )
            elif sub == "microcompact_boundary":
                out.append(self._event("compaction", line, session, thread, time, trigger="micro"))
        elif kind == "user":
            out.extend(self._user(value, line, session, thread, time))
        elif kind == "progress":
            data = value.get("data")
            data = data if isinstance(data, dict) else {}
            hook = data.get("hookName")
            if data.get("hookEvent") == "SessionStart" and isinstance(hook, str):
                source = hook.partition(":")[2]
                if source == "resume":
                    out.append(self._event("resume", line, session, thread, time, how="SessionStart:resume hook"))
                elif source == "clear":
                    out.append(self._event("clear", line, session, thread, time))
        return out

    def _subagent(self, value: Mapping[str, Any], session: str) -> str | None:
        if not value.get("isSidechain"):
            return None
        agent = value.get("agentId")
        if isinstance(agent, str) and agent:
            return agent
        parent = value.get("parentUuid")
        if isinstance(parent, str) and parent in self.threads:
            found = self.threads[parent]
            if found[1] is not None:
                return found[1]
        uuid = value.get("uuid")
        return f"sidechain-{uuid}" if isinstance(uuid, str) else "sidechain"

    def _assistant(
        self,
        value: Mapping[str, Any],
        line: int,
        record: int,
        session: str,
        thread: str,
        subagent: str | None,
        time: Any,
    ) -> list[Turn | Event]:
        message = value.get("message")
        if not isinstance(message, dict):
            return []
        out: list[Turn | Event] = []
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            edited = _memory_file_edited(block)
            if edited:
                out.append(self._event("context-file-edit", line, session, thread, time, file=edited))
        model = message.get("model")
        if not isinstance(model, str) or model.startswith("<") or not isinstance(message.get("usage"), dict):
            return out  # "<synthetic>": a message Claude Code wrote itself (an error), no API call
        call = value.get("requestId") or message.get("id")
        if isinstance(call, str):
            if call in self.seen:
                return out  # another content block of a call already read
            self.seen.add(call)
        usage = read_usage(message["usage"], "anthropic")
        if usage is None:
            return out
        self.started.add(thread)
        version = value.get("version")
        out.insert(
            0,
            Turn(
                agent=AGENT,
                path=self.display,
                line=line,
                record=record,
                session=session,
                thread=thread,
                subagent=subagent,
                subagent_kind=_subagent_kind(subagent),
                time=parse_time(time),
                model=model,
                usage=usage,
                family="anthropic",
                version=version if isinstance(version, str) else None,
                call=call if isinstance(call, str) else None,
            ),
        )
        return out

    def _user(self, value: Mapping[str, Any], line: int, session: str, thread: str, time: Any) -> list[Event]:
        message = value.get("message")
        if not isinstance(message, Mapping):
            return []
        content = message.get("content")
        texts: list[str] = [content] if isinstance(content, str) else []
        if isinstance(content, list):
            texts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        out: list[Event] = []
        for text in texts:
            found = _COMMAND.search(text[:2000])
            if found:
                name = found[1]
                kind = {"/model": "model-command", "/clear": "clear"}.get(name, "command")
                out.append(self._event(kind, line, session, thread, time, name=name))
            elif text.startswith("[Request interrupted by user"):
                out.append(self._event("interrupt", line, session, thread, time))
            elif text.lstrip().startswith("<task-notification>"):
                out.append(self._event("task-notification", line, session, thread, time))
        return out

    def _event(self, kind: str, line: int, session: str, thread: str, time: Any, **detail: Any) -> Event:
        return new_event(kind, self.display, line, session, thread, parse_time(time), **detail)


def _subagent_kind(subagent: str | None) -> str | None:
    if subagent is None:
        return None
    if subagent.startswith("acompact"):
        return "compaction"  # the agent that writes a compaction's summary (its own file)
    return "task"


def _memory_file_edited(block: Any) -> str | None:
    """The memory file an Edit / Write / MultiEdit tool call of the agent changes, or None."""
    if not isinstance(block, dict) or block.get("type") != "tool_use" or block.get("name") not in _EDIT_TOOLS:
        return None
    target = block.get("input", {}).get("file_path") if isinstance(block.get("input"), dict) else None
    if isinstance(target, str) and PurePosixPath(target.replace("\\", "/")).name in MEMORY_FILES:
        return PurePosixPath(target.replace("\\", "/")).name
    return None
