"""Gemini CLI session files (``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.jsonl``; a
sub-agent's in ``chats/<parent session id>/<session id>.jsonl``; ``GEMINI_CLI_HOME`` moves the
home folder): one JSON value a line, appended as the session goes. The source of the format is
Gemini CLI's chat recorder (google-gemini/gemini-cli, ``packages/core/src/services/
chatRecordingService.ts`` and ``chatRecordingTypes.ts``); its session-management page names the
folder.

- The first line is the session's metadata: ``sessionId``, ``projectHash``, ``startTime``,
  ``lastUpdated``, ``kind`` (``main`` or ``subagent``).
- A message: ``id``, ``timestamp``, ``type`` (``user``, ``gemini``, ``info``, ``warning``,
  ``error``), ``content``; a ``gemini`` message carries the ``model`` and the ``tokens`` of the
  API call that produced it: ``input`` (the response's ``promptTokenCount``, which includes the
  cached part), ``cached`` (``cachedContentTokenCount``), ``output``, ``thoughts``, ``tool``.
  A message updated later (its tool calls' results, its tokens) is appended again with the same
  ``id``: a call is read once, at the first line of its id that carries tokens.
- Before it wrote JSON lines, Gemini CLI wrote the whole session as one JSON document
  (``session-*.json``: the metadata with a ``messages`` list), converted on resume; such a file is
  read as its metadata, then its messages (``document_records``).
- ``{"$rewindTo": id}``: the user rewound the conversation to that message (``/rewind``): what
  followed it is no longer in the prompt. ``{"$set": {...}}``: metadata updates.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Mapping

from cachelint.payloads.readers.envelopes import parse_time
from cachelint.payloads.cache_usage import token_count
from cachelint.payloads.usage import CacheUsage
from cachelint.transcripts.model import Event, Turn, new_event

AGENT = "gemini-cli"
MESSAGE_TYPES = ("user", "gemini", "info", "warning", "error")


def matches(value: Any) -> bool:
    """Whether a parsed line is a Gemini CLI session line (its metadata or a message)."""
    if not isinstance(value, Mapping):
        return False
    if "projectHash" in value and isinstance(value.get("sessionId"), str):
        return True
    return (
        value.get("type") in MESSAGE_TYPES
        and isinstance(value.get("id"), str)
        and "timestamp" in value
        and "content" in value
        and "message" not in value  # Claude Code's lines carry their message in "message"
    )


def document_records(value: Any) -> list[Any]:
    """The records of a session written as one JSON document: its metadata, then its messages."""
    if not isinstance(value, Mapping):
        return []
    messages = value.get("messages")
    meta = {k: v for k, v in value.items() if k != "messages"}
    return [meta, *(messages if isinstance(messages, list) else [])]


# What a session line the audit reads says in its first bytes: a message's text and tool results,
# most of the file, are not needed and not decoded unless the line may hold tokens.
_TELLS = (b'"tokens"', b'"projectHash"', b'"$rewindTo"')


def wanted(raw: bytes) -> bool:
    # the tokens of a gemini message come after its content, which can be long: look at the whole line
    for tell in _TELLS:
        if tell in raw:
            return True
    return False


class GeminiCliReader:
    """Reads the lines of one session file, in order, into Turns and Events."""

    wanted = staticmethod(wanted)

    def __init__(self, display: str) -> None:
        self.display = display
        path = PurePosixPath(display)
        self.session = path.stem
        # a sub-agent's file sits in a folder named after its parent session
        self.parent_folder = path.parent.name if path.parent.name != "chats" else None
        self.subagent: str | None = None
        self.seen: set[str] = set()  # message ids whose call was read

    @property
    def thread(self) -> str:
        return self.session if self.subagent is None else f"{self.session}/{self.subagent}"

    def feed(self, value: Any, line: int, record: int) -> list[Turn | Event]:
        if not isinstance(value, Mapping):
            return []
        if "projectHash" in value and isinstance(value.get("sessionId"), str):
            self._meta(value)
            return []
        rewind = value.get("$rewindTo")
        if isinstance(rewind, str):
            return [self._event("rewind", line, None, to=rewind)]
        if value.get("type") != "gemini":
            return []
        # in a file already known to be a session, a model message needs no content (one with
        # only tool calls may be written without it)
        tokens = value.get("tokens")
        ident = value.get("id")
        if not isinstance(ident, str) or not isinstance(tokens, Mapping) or ident in self.seen:
            return []
        self.seen.add(ident)
        prompt = token_count(tokens.get("input"))
        read = min(prompt, token_count(tokens.get("cached")))
        output = token_count(tokens.get("output")) + token_count(tokens.get("thoughts"))
        model = value.get("model")
        return [
            Turn(
                agent=AGENT,
                path=self.display,
                line=line,
                record=record,
                session=self.session,
                thread=self.thread,
                subagent=self.subagent,
                subagent_kind="sub-agent" if self.subagent is not None else None,
                time=parse_time(value.get("timestamp")),
                model=model if isinstance(model, str) and model else None,
                usage=CacheUsage(provider="gemini", uncached=prompt - read, read=read, output=output),
                family="gemini",
            )
        ]

    def _meta(self, value: Mapping[str, Any]) -> None:
        ident = value["sessionId"]
        if value.get("kind") == "subagent" and self.parent_folder:
            self.session = self.parent_folder
            self.subagent = ident[:8] if ident else self.subagent
        elif ident:
            self.session = ident

    def _event(self, kind: str, line: int, time: Any, **detail: Any) -> Event:
        return new_event(kind, self.display, line, self.session, self.thread, time, **detail)
