"""Grouping requests into sessions, as they stream by.

In order of trust:
1. an explicit key — a session header (``x-claude-code-session-id``…), the envelope's ``session``,
   the hash of ``metadata.user_id`` (rules/packs/payloads-session-keys.yaml);
2. OpenAI Responses chained by ``previous_response_id`` (the history is server-side, so the chain is
   the session);
3. inferred from history growth: a request continues the open session whose last request's
   messages are a prefix of its own (the longest such prefix wins, then the most recent session).
   A request whose history shares its first messages with a session of the same agent (same tools
   or system) but rewrote something continues it too — that is a rewritten history (CL303), not a
   new conversation. Otherwise it starts a new session. Interleaved sessions in one file come apart.
   A weak key (``prompt_cache_key``) is a tie-breaker and names sessions that continue nothing;
4. a VCR cassette or a HAR file is one recording (test recorders write one a test): its requests
   are grouped by history as above but never with requests of another file, and its sessions close
   at the end of the file.

Memory: only open sessions are held; a session untouched for ``window`` records is closed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from cachelint.payloads.diff import common_prefix_blocks
from cachelint.payloads.model import Record, Request, Session

# Formats whose files are each one recording, never continued in another file.
_RECORDINGS = ("vcr", "har")

GROUPING_TEXT = {
    "explicit": "explicit session key",
    "response-chain": "OpenAI Responses chain (previous_response_id)",
    "cassette": "one recording (cassette or HAR file), split by history",
    "history": "inferred: each request extends the history of the previous one",
    "single": "a single request",
}


@dataclass(frozen=True)
class SessionKeys:
    headers: tuple[str, ...]
    hashed_fields: tuple[str, ...]
    weak_fields: tuple[str, ...]

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "SessionKeys":
        headers: list[str] = []
        hashed: list[str] = []
        weak: list[str] = []
        for pack in packs:
            headers += [h.lower() for h in pack.get("headers", ()) if h.lower() not in headers]
            hashed += [f for f in pack.get("hashed-body-fields", ()) if f not in hashed]
            weak += [f for f in pack.get("weak-body-fields", ()) if f not in weak]
        return cls(tuple(headers), tuple(hashed), tuple(weak))

    def explicit(self, record: Record) -> tuple[str, str] | None:
        for name in self.headers:
            value = record.headers.get(name)
            if value:
                return f"header:{value}", f"header {name}"
        if record.session:
            return f"envelope:{record.session}", "envelope session"
        for path in self.hashed_fields:
            value = record.hashed_ids.get(path)
            if value:
                return f"{path}:{value}", f"{path} (hashed)"
        return None

    def weak(self, record: Record) -> tuple[str, str] | None:
        body = record.request if isinstance(record.request, dict) else {}
        for path in self.weak_fields:
            value = body.get(path)
            if isinstance(value, str) and value:
                return f"{path}:{value}", path
        return None


@dataclass
class _Open:
    session: Session
    last: Request
    scope: str  # the file for cassettes, "" otherwise
    touched: int = 0
    weak_key: str | None = None
    index_keys: tuple[Any, ...] = ()  # where it sits in the grouper's candidate indexes
    keys: list[str] = field(default_factory=list)  # explicit-key entries to forget on close
    responses: list[str] = field(default_factory=list)  # response ids to forget on close


def _candidate_keys(req: Request, scope: str) -> tuple[Any, ...]:
    """Index keys of a session whose last request is ``req``: its first message (continuations
    share it) and its agent signature (tools, system: rewrites of message 0 share it)."""
    keys: list[Any] = []
    if req.messages:
        keys.append(("first", scope, req.provider, req.messages[0].data))
    for tier in (req.tools, req.system):
        if tier:
            keys.append(("agent", scope, req.provider, len(tier), hash(tuple([b.data for b in tier]))))
    return tuple(keys)


@dataclass
class SessionGrouper:
    keys: SessionKeys
    window: int = 1000
    _open: dict[str, _Open] = field(default_factory=dict)
    _by_key: dict[str, str] = field(default_factory=dict)
    _by_response: dict[str, str] = field(default_factory=dict)
    _index: dict[Any, dict[str, None]] = field(default_factory=dict)
    _counter: int = 0
    _tick: int = 0

    def _reindex(self, entry: _Open, req: Request, keys: tuple[Any, ...] | None = None) -> None:
        sid = entry.session.id
        if entry.session.grouping in ("explicit", "response-chain"):
            keys = ()
        elif keys is None:
            keys = _candidate_keys(req, entry.scope)
        if keys == entry.index_keys:
            return  # same buckets (same first message and agent): nothing moves
        self._unindex(sid, entry.index_keys)
        entry.index_keys = keys
        for key in entry.index_keys:
            self._index.setdefault(key, {})[sid] = None

    def assign(self, req: Request, record: Record) -> tuple[Session, Request | None]:
        """The session ``req`` belongs to and the previous request of that session (or None)."""
        self._tick += 1
        scope = record.origin.path if record.fmt in _RECORDINGS else ""
        keys: tuple[Any, ...] | None = None
        explicit = self.keys.explicit(record)
        target: _Open | None = None
        grouping = "history"
        key = key_source = None
        if explicit is not None:
            key, key_source = explicit
            sid = self._by_key.get(f"{scope}|{key}")
            target = self._open.get(sid) if sid else None
            grouping = "explicit"
        elif req.previous_response_id:
            sid = self._by_response.get(req.previous_response_id)
            target = self._open.get(sid) if sid else None
            grouping = "response-chain" if target is not None else ("cassette" if scope else "history")
        else:
            weak = self.keys.weak(record)
            keys = _candidate_keys(req, scope)
            target = self._continued(req, keys, weak[0] if weak else None)
            if target is None and weak is not None:
                key, key_source = weak
            grouping = "cassette" if scope else "history"
        if target is None:
            session = self._new(req, record, grouping, key, key_source, scope)
            prev = None
        else:
            session = target.session
            if grouping == "response-chain" and session.grouping in ("history", "cassette", "single"):
                session.grouping = "response-chain"
            prev = target.last
            target.last = req
            target.touched = self._tick
            self._reindex(target, req, keys if target.scope == scope else None)
        req.session = session.id
        req.index_in_session = session.count
        session.count += 1
        session.requests.append(req)
        if req.response_id:
            self._by_response[req.response_id] = session.id
            self._open[session.id].responses.append(req.response_id)
        return session, prev

    def _new(self, req: Request, record: Record, grouping: str, key: str | None, key_source: str | None, scope: str) -> Session:
        self._counter += 1
        session = Session(
            id=f"s{self._counter}",
            grouping=grouping,
            key=key,
            key_source=key_source,
            provider=req.provider,
            model=req.model,
            path=record.origin.path,
        )
        entry = _Open(session, req, scope, self._tick)
        self._open[session.id] = entry
        if key is not None:
            self._by_key[f"{scope}|{key}"] = session.id
            entry.keys.append(f"{scope}|{key}")
            entry.weak_key = key if grouping != "explicit" else None
        self._reindex(entry, req)
        return session

    def _continued(self, req: Request, keys: tuple[Any, ...], weak_key: str | None) -> _Open | None:
        """The open session this request continues, by history. Sessions whose last request
        shares the first message are ranked first: only they can be true continuations, so when
        one is, the sessions that share only the agent's tools or system need not be looked at."""
        best: tuple[tuple[int, ...], _Open] | None = None
        sharing_first: dict[str, None] = {}
        same_agent: dict[str, None] = {}
        for key in keys:
            (sharing_first if key[0] == "first" else same_agent).update(self._index.get(key, {}))
        best = self._best(req, sharing_first, weak_key, None)
        if best is not None and best[0][0] == 2:
            return best[1]
        others = {sid: None for sid in same_agent if sid not in sharing_first}
        best = self._best(req, others, weak_key, best)
        return best[1] if best else None

    def _best(
        self, req: Request, sids: dict[str, None], weak_key: str | None, best: tuple[tuple[int, ...], _Open] | None
    ) -> tuple[tuple[int, ...], _Open] | None:
        cur = req.messages
        for sid in sorted(sids, key=lambda s: int(s[1:])):
            candidate = self._open[sid]
            prev = candidate.last.messages
            k = common_prefix_blocks(prev, cur)
            if k == len(prev) and len(prev) > 0 and len(cur) >= len(prev) and (k >= 2 or _same_agent(candidate.last, req)):
                # a true continuation (append-only). One shared message is weak evidence: another
                # agent may be handed the same task text, so it must also look like the same agent.
                rank = 2
            elif k >= 1 and len(cur) > 1 and _same_agent(candidate.last, req):
                rank = 1  # the same agent's history, rewritten somewhere (CL303)
            elif k == 0 and len(prev) >= 2 and len(cur) >= len(prev) and _same_agent(candidate.last, req) and _only_first_differs(prev, cur):
                rank = 1  # message 0 rewritten (a timestamp in the first user message), the rest intact
            else:
                continue
            score = (rank, int(weak_key is not None and candidate.weak_key == weak_key), k, candidate.touched)
            if best is None or score > best[0]:
                best = (score, candidate)
        return best

    def expired(self) -> list[Session]:
        """Sessions untouched for ``window`` records: closed and forgotten (memory stays flat)."""
        if self._tick % 256:
            return []
        limit = self._tick - self.window
        stale = [sid for sid, o in self._open.items() if o.touched < limit]
        return [self._close(sid) for sid in stale]

    def close_scope(self, scope: str) -> list[Session]:
        """Close the sessions of one cassette (a recording never continues in another file)."""
        return [self._close(sid) for sid, o in list(self._open.items()) if o.scope == scope and scope]

    def close_all(self) -> list[Session]:
        return [self._close(sid) for sid in list(self._open)]

    def _unindex(self, sid: str, keys) -> None:
        """Take a session out of the candidate buckets of ``keys`` (empty buckets are dropped)."""
        for key in keys:
            bucket = self._index.get(key)
            if bucket is not None:
                bucket.pop(sid, None)
                if not bucket:
                    del self._index[key]

    def _close(self, sid: str) -> Session:
        entry = self._open.pop(sid)
        session = entry.session
        self._unindex(sid, entry.index_keys)
        for k in entry.keys:
            if self._by_key.get(k) == sid:
                del self._by_key[k]
        for r in entry.responses:
            if self._by_response.get(r) == sid:
                del self._by_response[r]
        if session.count == 1 and session.grouping in ("history", "cassette"):
            session.grouping = "single" if session.key is None else session.grouping
        return session


def _same_agent(a: Request, b: Request) -> bool:
    """Same tools or same system prompt: the signature of one agent (crewAI cassettes hold several
    agents; an agent whose tools were reordered keeps its system prompt, and vice versa)."""
    same_tools = len(a.tools) == len(b.tools) and all(x.data == y.data for x, y in zip(a.tools, b.tools))
    same_system = len(a.system) == len(b.system) and all(x.data == y.data for x, y in zip(a.system, b.system))
    return same_tools or same_system


def _only_first_differs(prev: tuple, cur: tuple) -> bool:
    """Every message of ``prev`` after the first one is repeated in ``cur``: message 0 was edited,
    this is not another conversation of the same agent (a log that starts mid-session)."""
    rest = prev[1:]
    return bool(rest) and prev[0].name == cur[0].name and all(
        x.data is y.data or x.data == y.data for x, y in zip(rest, cur[1 : len(prev)])
    )
