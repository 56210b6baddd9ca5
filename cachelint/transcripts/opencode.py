"""OpenCode sessions. OpenCode keeps them in its data folder (``$XDG_DATA_HOME/opencode``, by
default ``~/.local/share/opencode``), in one of two layouts; the source of both is OpenCode's own
code (anomalyco/opencode, formerly sst/opencode):

- a SQLite database, ``opencode.db`` (``packages/opencode/src/storage/db.ts``; builds of another
  release channel write ``opencode-<channel>.db``), whose tables ``session``, ``message`` and
  ``part`` (``packages/opencode/src/session/session.sql.ts``) hold each row's object in a JSON
  ``data`` column, without the ids the row's own columns carry (``id``, ``session_id``,
  ``message_id``); a session's ``parent_id`` names the session that started it as a sub-agent
  (the task tool's child session);
- before it, one pretty-printed JSON document per object under ``storage/``
  (``packages/opencode/src/storage/storage.ts``): ``session/<project id>/<session id>.json``,
  ``message/<session id>/<message id>.json``, ``part/<message id>/<part id>.json``. The move to the
  database copies them and leaves them in place (``packages/opencode/src/storage/json-migration.ts``):
  a session found in both is read once (its calls are known by their message ids).

What a call is (``packages/opencode/src/session/message-v2.ts``): an assistant message carries its
``modelID``, ``providerID``, ``agent``, ``time.created`` / ``time.completed`` and the ``tokens`` of
its last step (``input``, ``output``, ``reasoning``, ``cache.read``, ``cache.write``); each step
(one API call) also writes a ``step-finish`` part with that call's own ``tokens``. A message is
read as its ``step-finish`` parts, in id order (the order OpenCode itself reads them), or as its own
tokens when it has none. ``tokens.input`` excludes the cache: OpenCode subtracts the cached tokens
from the AI SDK's count for every provider whose count includes them (``Session.getUsage``,
``packages/opencode/src/session/index.ts``), so the three parts are disjoint as they are stored.
OpenCode marks Anthropic prompts with ``cacheControl: {type: "ephemeral"}``, which is the 5-minute
TTL (``applyCaching``, ``packages/opencode/src/provider/transform.ts``).

Events: a compaction is a user message with a ``compaction`` part (``auto``: whether OpenCode
started it) answered by an assistant message with ``summary: true``; the calls after the summary
send it instead of the history. A tool part whose ``state.time.compacted`` is set was pruned: from
then on its output is sent as ``[Old tool result content cleared]`` (``toModelMessages``), a change
of the prompt at that time.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Mapping
from urllib.parse import quote

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.cache_usage import token_count
from cachelint.payloads.formats.common import dig
from cachelint.payloads.providers.registry import content_provider, family_of
from cachelint.payloads.usage import CacheUsage
from cachelint.transcripts.model import Event, Turn, new_event

AGENT = "opencode"
# The first bytes of every SQLite database file (sqlite.org/fileformat.html, "Magic Header String").
SQLITE_HEADER = b"SQLite format 3\x00"
DATABASE_SUFFIX = "opencode.db"
# The prefixes OpenCode's ids start with (``packages/opencode/src/id/id.ts``).
SESSION_PREFIX, MESSAGE_PREFIX, PART_PREFIX = "ses_", "msg_", "prt_"
# What a part says that the audit reads: its kind, a step's tokens, a compaction's trigger, and the
# times of what ran between two steps. A tool's input and output (most of a store, and where a
# secret would sit) are never kept.
PART_TYPES = ("step-finish", "compaction", "tool", "text", "reasoning")


def matches(value: Any) -> bool:
    """Whether a parsed value is a record of an OpenCode session as the reader takes it: a
    session's info, or a message with its parts (``{"info", "parts"}``, OpenCode's ``WithParts``)."""
    if not isinstance(value, Mapping):
        return False
    ident = value.get("id")
    if isinstance(ident, str) and ident.startswith(SESSION_PREFIX):
        return "projectID" in value and isinstance(value.get("time"), Mapping)
    info = value.get("info")
    return (
        isinstance(info, Mapping)
        and isinstance(value.get("parts"), list)
        and isinstance(info.get("id"), str)
        and info["id"].startswith(MESSAGE_PREFIX)
        and info.get("role") in ("user", "assistant")
    )


def wanted(raw: bytes) -> bool:
    return True  # a store's records are read whole (``read_store``), never told from their bytes


# --- the two layouts, read into records ---------------------------------------------------------


class StoreRead:
    """What ``read_store`` made of one file: ``records`` for the reader (None: the file is no
    OpenCode store of its own, e.g. a message file, read through its session), and the CL001s."""

    def __init__(self, records: list[Any] | None, diagnostics: list[Diagnostic]) -> None:
        self.records = records
        self.diagnostics = diagnostics


def read_store(path: Path, display: str, forced: bool) -> StoreRead | None:
    """The records of an OpenCode store, or None when the file is not one (another agent's file).
    A database is told by its first bytes (when forced, or named ``*.db``); a legacy session file
    by its place in the storage tree; a message or part file of that tree is read through its
    session, so it gives no records of its own."""
    name = path.name
    if forced or name.endswith(".db"):
        try:
            with open(path, "rb") as handle:
                head = handle.read(len(SQLITE_HEADER))
        except OSError as exc:
            return StoreRead([], [unreadable(display, f"cannot read OpenCode database: {exc}")])
        if head == SQLITE_HEADER:
            return database_records(path, display)
    if name.endswith(".json"):
        # where the storage tree puts each kind: <kind>/<owner id>/<id>.json
        kind = path.parent.parent.name
        if kind == "session" and name.startswith(SESSION_PREFIX):
            return tree_records(path, display)
        if (kind, name[:4]) in (("message", MESSAGE_PREFIX), ("part", PART_PREFIX)):
            return StoreRead(None, [])
    return None


def database_records(path: Path, display: str) -> StoreRead:
    """Every session of an OpenCode database, opened read-only (a ``mode=ro`` URI: nothing is
    written, not even a journal; ``immutable`` is not asked, since OpenCode may be writing it and
    its last calls sit in the write-ahead log). A database that cannot be read, or is not
    OpenCode's, is one CL001; a row whose JSON is damaged is counted in one CL001 and the rest read."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=2.0)
    except sqlite3.Error as exc:
        return StoreRead([], [unreadable(display, f"cannot open OpenCode database: {exc}")])
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = sorted({"session", "message", "part"} - tables)
        if missing:
            return StoreRead(
                [], [unreadable(display, f"not an OpenCode database (no {', '.join(missing)} table): not read")]
            )
        sessions = connection.execute(
            "SELECT id, parent_id, version, time_created FROM session ORDER BY time_created, id"
        ).fetchall()
        messages = connection.execute("SELECT id, session_id, data FROM message ORDER BY time_created, id").fetchall()
        # the parts' JSON is cut to what the audit reads inside SQLite: a tool's output never leaves it
        kinds = ", ".join(f"'{kind}'" for kind in PART_TYPES)
        parts = connection.execute(
            "SELECT message_id, id, json_extract(data, '$.type'), json_extract(data, '$.tokens'),"
            " json_extract(data, '$.auto'), json_extract(data, '$.time'), json_extract(data, '$.state.time')"
            f" FROM part WHERE json_valid(data) AND json_extract(data, '$.type') IN ({kinds})"
            " ORDER BY message_id, id"
        ).fetchall()
    except sqlite3.Error as exc:
        return StoreRead([], [unreadable(display, f"cannot read OpenCode database: {exc}")])
    finally:
        connection.close()
    by_message: dict[str, list[dict[str, Any]]] = {}
    for message_id, ident, kind, tokens, auto, times, state_times in parts:
        part: dict[str, Any] = {"id": ident, "type": kind}
        if tokens is not None:
            part["tokens"] = _json(tokens)
        if auto is not None:
            part["auto"] = bool(auto)
        if times is not None:
            part["time"] = _json(times)
        if state_times is not None:
            part["state"] = {"time": _json(state_times)}
        by_message.setdefault(message_id, []).append(part)
    records: list[Any] = [
        {"id": ident, "projectID": None, "parentID": parent, "version": version, "time": {"created": created}}
        for ident, parent, version, created in sessions
    ]
    damaged = 0
    for ident, session, data in messages:
        info = _json(data)
        if not isinstance(info, dict):
            damaged += 1
            continue
        info.update(id=ident, sessionID=session)
        records.append({"info": info, "parts": by_message.get(ident, [])})
    found = [] if not damaged else [unreadable(display, f"{damaged} message row(s) not JSON: not read")]
    return StoreRead(records, found)


def tree_records(path: Path, display: str) -> StoreRead:
    """One session of the legacy storage tree: its info (and its ancestors', which say whose
    sub-agent it is), then its messages with their parts. A file that is not JSON (cut while
    OpenCode wrote it) is one CL001; the rest of the session is read."""
    found: list[Diagnostic] = []
    storage = path.parent.parent.parent
    shown = PurePosixPath(display).parent.parent.parent
    info = _document(path, display, found)
    if not isinstance(info, dict):
        return StoreRead([], found)
    chain = [info]
    while isinstance(chain[0].get("parentID"), str) and len(chain) < 64:
        parent = next(iter(sorted(storage.glob(f"session/*/{chain[0]['parentID']}.json"))), None)
        value = _document(parent, str(shown / "session" / parent.parent.name / parent.name), found) if parent else None
        if not isinstance(value, dict):
            break
        chain.insert(0, value)
    records: list[Any] = list(chain)
    session = str(info.get("id") or path.stem)
    messages: list[dict[str, Any]] = []
    for message_path in sorted((storage / "message" / session).glob(f"{MESSAGE_PREFIX}*.json")):
        message = _document(message_path, str(shown / "message" / session / message_path.name), found)
        if not isinstance(message, dict):
            continue
        parts = []
        for part_path in sorted((storage / "part" / message_path.stem).glob(f"{PART_PREFIX}*.json")):
            part = _document(part_path, str(shown / "part" / message_path.stem / part_path.name), found)
            if isinstance(part, dict) and part.get("type") in PART_TYPES:
                parts.append(_slim_part(part))
        message.setdefault("id", message_path.stem)
        message.setdefault("sessionID", session)
        messages.append({"info": message, "parts": parts})
    messages.sort(key=lambda m: (_number(dig(m["info"], "time", "created")) or 0, m["info"]["id"]))
    return StoreRead(records + messages, found)


def _slim_part(part: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a part the reader uses (as the database query keeps them)."""
    out: dict[str, Any] = {"id": part.get("id"), "type": part.get("type")}
    for key in ("tokens", "auto", "time"):
        if key in part:
            out[key] = part[key]
    state = part.get("state")
    if isinstance(state, Mapping) and isinstance(state.get("time"), Mapping):
        out["state"] = {"time": dict(state["time"])}
    return out


def _document(path: Path, display: str, found: list[Diagnostic]) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        found.append(unreadable(display, f"cannot read OpenCode storage file: {exc}"))
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        found.append(unreadable(display, "OpenCode storage file not valid JSON: not read"))
        return None


def _json(text: Any) -> Any:
    if not isinstance(text, (str, bytes)):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


# --- the reader ---------------------------------------------------------------------------------


class OpenCodeReader:
    """Reads an OpenCode store's records, in order (sessions first, then messages with their
    parts), into Turns and Events. A record's ``line`` is its 1-based place among the records (a
    database or a session file has no lines of its own)."""

    wanted = staticmethod(wanted)

    def __init__(self, display: str) -> None:
        self.display = display
        self.parents: dict[str, str | None] = {}
        self.versions: dict[str, str] = {}
        self.compactions: dict[str, bool] = {}  # user message id -> whether OpenCode started it
        self.pruned: dict[str, list[float]] = {}  # thread -> times tool outputs were cleared, not yet told

    def feed(self, value: Any, line: int, record: int) -> list[Turn | Event]:
        if not matches(value):
            return []
        if "info" not in value:
            ident = value["id"]
            parent = value.get("parentID")
            self.parents[ident] = parent if isinstance(parent, str) and parent else None
            if isinstance(value.get("version"), str):
                self.versions[ident] = value["version"]
            return []
        info, parts = value["info"], [p for p in value["parts"] if isinstance(p, Mapping)]
        if info.get("role") == "user":
            for part in parts:
                if part.get("type") == "compaction":
                    self.compactions[info["id"]] = part.get("auto") is True
            return []
        return self._assistant(info, parts, line, record)

    def _thread(self, session: str) -> tuple[str, str | None]:
        """(the root session, the sub-agent's session or None) of a session."""
        root, seen = session, {session}
        while (parent := self.parents.get(root)) is not None and parent not in seen:
            seen.add(parent)
            root = parent
        return root, (None if root == session else session)

    def _assistant(
        self, info: Mapping[str, Any], parts: list[Mapping[str, Any]], line: int, record: int
    ) -> list[Turn | Event]:
        session = info.get("sessionID")
        if not isinstance(session, str):
            return []
        root, subagent = self._thread(session)
        thread = root if subagent is None else f"{root}/{subagent}"
        created = _number(dig(info, "time", "created"))
        out: list[Turn | Event] = []
        model = info.get("modelID") if isinstance(info.get("modelID"), str) and info.get("modelID") else None
        family = family_of(content_provider(info.get("providerID"), model))
        kind = info.get("agent") if isinstance(info.get("agent"), str) and info.get("agent") else "task"
        # a step's request leaves when the previous step's tools and text are done
        started: float | None = created
        latest: float | None = created
        calls: list[tuple[Mapping[str, Any], float | None, int]] = []
        for part in parts:
            if part.get("type") == "step-finish" and isinstance(part.get("tokens"), Mapping):
                calls.append((part["tokens"], started, len(calls)))
                started = latest
            for when in _part_times(part):
                latest = when if latest is None else max(latest, when)
            cleared = _number(dig(part, "state", "time", "compacted"))
            if cleared is not None:
                self.pruned.setdefault(thread, []).append(cleared)
        if not calls and isinstance(info.get("tokens"), Mapping):
            calls.append((info["tokens"], created, 0))
        for tokens, sent, step in calls:
            usage = _usage(tokens, family)
            if usage.prompt <= 0:
                continue  # a step that failed before the provider answered
            time = _time(sent)
            out.extend(self._prunes(session, root, thread, line, sent))
            out.append(
                Turn(
                    agent=AGENT,
                    path=self.display,
                    line=line,
                    record=record,
                    session=root,
                    thread=thread,
                    subagent=subagent,
                    subagent_kind=kind if subagent is not None else None,
                    time=time,
                    model=model,
                    usage=usage,
                    family=family,
                    version=self.versions.get(session),
                    call=f"{info.get('id')}/{step}",
                )
            )
        if info.get("summary") is True:
            auto = self.compactions.get(str(info.get("parentID")))
            done = _number(dig(info, "time", "completed")) or created
            trigger = None if auto is None else ("auto" if auto else "manual")
            out.append(new_event("compaction", self.display, line, root, thread, _time(done), trigger=trigger))
        return out

    def _prunes(self, session: str, root: str, thread: str, line: int, before: float | None) -> list[Event]:
        """One event for the tool outputs cleared before a call (told at the first call after)."""
        pending = self.pruned.get(thread)
        if not pending or before is None:
            return []
        told = [t for t in pending if t <= before]
        if not told:
            return []
        self.pruned[thread] = [t for t in pending if t > before]
        trigger = f"prune: {len(told)} old tool result(s) cleared"
        return [new_event("compaction", self.display, line, root, thread, _time(max(told)), trigger=trigger)]


def _usage(tokens: Mapping[str, Any], family: str) -> CacheUsage:
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, Mapping) else {}
    written = token_count(cache.get("write"))
    return CacheUsage(
        provider=family,
        uncached=token_count(tokens.get("input")),
        read=token_count(cache.get("read")),
        written=written,
        written_5m=written if family == "anthropic" else 0,
        output=token_count(tokens.get("output")) + token_count(tokens.get("reasoning")),
    )


def _part_times(part: Mapping[str, Any]) -> list[float]:
    found = []
    for holder in (part.get("time"), dig(part, "state", "time")):
        if isinstance(holder, Mapping):
            for key in ("start", "end"):
                value = _number(holder.get(key))
                if value is not None:
                    found.append(value)
    return found


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _time(millis: float | None) -> datetime | None:
    """OpenCode's times are milliseconds since the epoch."""
    if millis is None:
        return None
    try:
        return datetime.fromtimestamp(millis / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
