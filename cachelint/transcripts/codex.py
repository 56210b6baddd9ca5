"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``; ``$CODEX_HOME``
moves the folder): one ``{"timestamp", "type", "payload"}`` a line, ``type`` being
``session_meta`` (the first line: session ``id``, ``cli_version``, ``source``), ``turn_context``
(the settings of a turn: ``model``, ``effort``, ``cwd``, the ``user_instructions`` read from
AGENTS.md, ``developer_instructions``, approval and sandbox policies), ``response_item`` (the
conversation), ``event_msg`` and ``compacted`` (a compaction's replacement history). The source of
the format is Codex's own rollout recorder (openai/codex, ``codex-rs/protocol``), which its docs
point to for the session files.

Usage: ``event_msg`` of ``payload.type`` ``token_count`` carries ``info.last_token_usage`` (the
last call: ``input_tokens`` including ``cached_input_tokens``, ``output_tokens``) and
``info.total_token_usage``. Codex repeats the event with the same totals (and sends one with
``info: null`` for rate limits alone): a call is read at the first event whose totals moved.

A sub-agent's rollout says so in ``session_meta.payload.source`` (``{"subagent": …}``, with
``thread_spawn.parent_thread_id`` naming the session that spawned it).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Mapping

from cachelint.payloads.readers.envelopes import parse_time
from cachelint.payloads.usage import CacheUsage
from cachelint.transcripts.model import Event, Turn, new_event

AGENT = "codex"
RECORD_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
# turn_context fields whose text Codex renders into the prompt's instructions: a change is a change
# of the prefix (AGENTS.md is read into user_instructions)
INSTRUCTION_FIELDS = ("base_instructions", "user_instructions", "developer_instructions")
_IGNORED_SETTINGS = ("turn_id",)


def matches(value: Any) -> bool:
    """Whether a parsed line is a Codex rollout line."""
    return (
        isinstance(value, Mapping)
        and value.get("type") in RECORD_TYPES
        and isinstance(value.get("payload"), Mapping)
        and "timestamp" in value
    )


# What a rollout line the audit reads says in its first bytes (its type, its payload's type): the
# conversation's items, most of the file, are not needed and not decoded.
_TELLS = (b"token_count", b"turn_context", b"session_meta", b"compacted", b"turn_aborted")
_HEAD = 1024


def wanted(raw: bytes) -> bool:
    head = raw[:_HEAD]
    for tell in _TELLS:
        if tell in head:
            return True
    return False


class CodexReader:
    """Reads the lines of one rollout, in order, into Turns and Events."""

    wanted = staticmethod(wanted)

    def __init__(self, display: str) -> None:
        self.display = display
        stem = PurePosixPath(display).stem
        # rollout-2026-02-23T12-40-23-<uuid>: the session id ends the name (until session_meta says it)
        self.session = stem[-36:] if len(stem) >= 36 else stem
        self.subagent: str | None = None
        self.subagent_kind: str | None = None
        self.version: str | None = None
        self.model: str | None = None
        self.context: dict[str, Any] | None = None
        self.totals: Any = None
        self.turns = 0
        self.compacted = False  # a compaction was recorded since the last call

    @property
    def thread(self) -> str:
        return self.session if self.subagent is None else f"{self.session}/{self.subagent}"

    def feed(self, value: Any, line: int, record: int) -> list[Turn | Event]:
        if not matches(value):
            return []
        kind = value["type"]
        payload = value["payload"]
        time = parse_time(value.get("timestamp"))
        if kind == "session_meta":
            return self._meta(payload, line, time)
        if kind == "turn_context":
            return self._context(payload, line, time)
        if kind == "compacted" or (kind == "event_msg" and payload.get("type") == "context_compacted"):
            if self.compacted:
                return []  # the same compaction, recorded twice (the history, then the event)
            self.compacted = True
            return [self._event("compaction", line, time, trigger="auto" if kind == "event_msg" else None)]
        if kind == "event_msg" and payload.get("type") == "turn_aborted":
            return [self._event("interrupt", line, time)]
        if kind == "event_msg" and payload.get("type") == "token_count":
            return self._tokens(payload, line, record, time)
        return []

    def _meta(self, payload: Mapping[str, Any], line: int, time: Any) -> list[Turn | Event]:
        out: list[Turn | Event] = []
        if self.turns:
            out.append(self._event("resume", line, time, how="a new session_meta line: the rollout was resumed"))
        ident = payload.get("id")
        source = payload.get("source")
        forked = payload.get("forked_from_id")
        spawn = source.get("subagent", source.get("subAgent")) if isinstance(source, Mapping) else None
        if spawn is not None:
            parent = None
            label = "sub-agent"
            if isinstance(spawn, Mapping):
                detail = spawn.get("thread_spawn")
                parent = detail.get("parent_thread_id") if isinstance(detail, Mapping) else None
                label = next((str(k) for k in spawn), label)
            elif isinstance(spawn, str):
                label = spawn
            if isinstance(ident, str) and ident:
                self.subagent = ident[:8] if isinstance(parent, str) else ident
                self.subagent_kind = label
            if isinstance(parent, str) and parent:
                self.session = parent
        elif isinstance(ident, str) and ident:
            self.session = ident
        version = payload.get("cli_version")
        if isinstance(version, str):
            self.version = version
        if isinstance(forked, str) and forked and not self.turns:
            # a fork (or a resume into a new rollout) starts with its parent's history
            out.append(self._event("resume", line, time, how=f"forked from session {forked}"))
        return out

    def _context(self, payload: Mapping[str, Any], line: int, time: Any) -> list[Turn | Event]:
        current = {k: v for k, v in payload.items() if k not in _IGNORED_SETTINGS}
        model = payload.get("model")
        if isinstance(model, str):
            self.model = model
        before, self.context = self.context, current
        if before is None:
            return []
        changed = sorted(k for k in set(before) | set(current) if before.get(k) != current.get(k))
        if not changed:
            return []
        return [self._event("settings", line, time, changed=tuple(changed))]

    def _tokens(self, payload: Mapping[str, Any], line: int, record: int, time: Any) -> list[Turn | Event]:
        info = payload.get("info")
        if not isinstance(info, Mapping):
            return []  # rate limits alone
        totals = info.get("total_token_usage")
        last = info.get("last_token_usage")
        if not isinstance(last, Mapping) or totals == self.totals:
            return []  # the same call's counts, sent again
        self.totals = totals
        prompt = _count(last.get("input_tokens"))
        read = min(prompt, _count(last.get("cached_input_tokens")))
        usage = CacheUsage(
            provider="openai", uncached=prompt - read, read=read, output=_count(last.get("output_tokens"))
        )
        self.turns += 1
        self.compacted = False
        return [
            Turn(
                agent=AGENT,
                path=self.display,
                line=line,
                record=record,
                session=self.session,
                thread=self.thread,
                subagent=self.subagent,
                subagent_kind=self.subagent_kind,
                time=time,
                model=self.model,
                usage=usage,
                family="openai",
                version=self.version,
            )
        ]

    def _event(self, kind: str, line: int, time: Any, **detail: Any) -> Event:
        return new_event(kind, self.display, line, self.session, self.thread, time, **detail)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
