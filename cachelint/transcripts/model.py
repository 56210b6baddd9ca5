"""The nouns of a coding-agent session audit: what the transcript readers produce and what the
rebuild finder makes of it.

Data flow::

    session file ─► reader (claude_code, codex) ─► Turn (one API call) | Event (a compaction, a
    model command, a resume…) ─► RebuildFinder, per thread ─► ColdStart | Rebuild (with its cause)

A *thread* is one conversation whose every call extends the prompt of the previous one: the main
thread of a session, or one of its sub-agents (a Task agent, Claude Code's compaction agent, a
Codex sub-agent). A thread's id is ``<session>`` for the main thread, ``<session>/<sub-agent>``
for a sub-agent. Everything here is plain data; provider facts stay in the dated packs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from cachelint.payloads.usage import CacheUsage

# The causes a rebuild is given, in the order the finder tries them (``rebuilds.cause_of``): the
# first for which the transcript holds the evidence wins; the others found are kept as evidence.
CAUSES = (
    "compaction",  # the agent replaced the history with a summary
    "rewind",  # the user took the conversation back to an earlier message (Gemini CLI's /rewind)
    "model-switch",  # caches are per model
    "idle-gap",  # the pause outlived the TTL of what the previous call cached
    "agent-updated",  # the agent restarted in another version: its system prompt and tools differ
    "resume",  # the session was resumed in a new process, which renders the history again
    "context-changed",  # the instructions the agent puts in the prompt changed (AGENTS.md, developer text)
    "unknown",  # the transcript shows nothing that explains it
)

# What a thread's first call is: nothing of its prefix was cached before, so nothing was rebuilt.
COLD_STARTS = ("session-start", "sub-agent-start", "compaction-agent-start", "resumed-session", "after-clear")


@dataclass(frozen=True, slots=True)
class Turn:
    """One API call of a coding agent, as its transcript records it (once, however many lines
    the agent wrote for it). ``line``: the 1-based line of its first record; ``record``: that
    record's 0-based index in the file. ``thread``: ``<session>`` or ``<session>/<sub-agent>``.
    ``subagent_kind``: ``task``, ``compaction`` or another label for a sub-agent, None on the main
    thread. ``family``: the provider family whose cache rules apply (``anthropic``, ``openai``)."""

    agent: str
    path: str
    line: int
    record: int
    session: str
    thread: str
    subagent: str | None
    subagent_kind: str | None
    time: datetime | None
    model: str | None
    usage: CacheUsage
    family: str
    version: str | None = None
    call: str | None = None  # the API call's id (Claude Code's requestId): a call copied into two files is one

    @property
    def label(self) -> str:
        """The thread as a person reads it: ``main`` or ``sub-agent a881341 (task)``."""
        if self.subagent is None:
            return "main"
        return f"sub-agent {self.subagent}" + (f" ({self.subagent_kind})" if self.subagent_kind else "")


@dataclass(frozen=True, slots=True)
class Event:
    """Something the transcript records between calls that can change the prompt or its cache:
    ``kind`` is one of ``compaction``, ``rewind``, ``model-command``, ``resume``, ``clear``, ``interrupt``,
    ``settings`` (Codex's turn context changed), ``context-file-edit``, ``command``,
    ``task-notification`` (Claude Code added a background task's result as a user message).
    ``thread``: the thread it belongs to (a session-wide event belongs to the main thread).
    ``detail``: what the record says (JSON-light)."""

    kind: str
    path: str
    line: int
    session: str
    thread: str
    time: datetime | None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        d = self.detail
        if self.kind == "compaction":
            trigger = d.get("trigger")
            before = d.get("pre_tokens")
            return "compaction" + (f" ({trigger})" if trigger else "") + (f" at {before:,} tokens" if before else "")
        if self.kind == "settings":
            return "settings changed: " + ", ".join(f"{k}" for k in sorted(d.get("changed", ())))
        if self.kind == "context-file-edit":
            return f"context file edited: {d.get('file')}"
        if self.kind in ("command", "model-command"):
            return f"command {d.get('name')}"
        if self.kind == "resume":
            return "session resumed" + (f" ({d.get('how')})" if d.get("how") else "")
        if self.kind == "rewind":
            return "conversation rewound to an earlier message (/rewind)"
        if self.kind == "clear":
            return "history cleared (/clear)"
        if self.kind == "interrupt":
            return "request interrupted by the user"
        if self.kind == "task-notification":
            return "a background task's notification added to the conversation"
        return self.kind


def new_event(
    kind: str, path: str, line: int, session: str, thread: str, time: datetime | None, **detail: Any
) -> Event:
    """An Event whose detail keeps only what the record said (no None values)."""
    return Event(
        kind=kind,
        path=path,
        line=line,
        session=session,
        thread=thread,
        time=time,
        detail={k: v for k, v in detail.items() if v is not None},
    )


@dataclass(frozen=True, slots=True)
class ColdStart:
    """A thread's first call: what it wrote is its own prefix, not a rebuild."""

    turn: Turn
    kind: str  # one of COLD_STARTS
    written: int
    money: float | None  # what the write cost at the write rates (None: no price for the model)


@dataclass(frozen=True, slots=True)
class Rebuild:
    """A call that paid again for tokens the previous call of its thread had cached.

    ``lost``: tokens of the previous call's cached prefix this call did not read; ``rewritten``:
    those it paid for again (written or billed as input); ``kept``: what it did read. ``gap``:
    seconds since the previous call. ``ttl``: the TTL class of what the previous call cached
    (``5m``, ``1h``, ``in_memory``). ``cause`` is one of ``CAUSES``; ``because`` says why in
    words; ``evidence``: every event and fact found between the two calls. ``money``: what the
    rebuild cost beyond reading the same tokens (None: no price for the model). ``minor``: fewer
    tokens than the model's minimum cacheable prompt were rewritten (counted, not reported as a
    finding). ``provider_may_miss``: the provider documents its caching as best effort (Gemini's
    implicit caching), so a rebuild nothing explains may be its miss, not the agent's."""

    turn: Turn
    previous: Turn
    lost: int
    rewritten: int
    kept: int
    gap: float | None
    ttl: str | None
    cause: str
    because: str
    evidence: tuple[str, ...]
    money: float | None
    currency: str
    minor: bool
    provider_may_miss: bool = False
