"""Grouping requests into sessions, as they stream by: one session is the conversation of one agent.

In order of trust:

1. an explicit session key — a session header (``x-claude-code-session-id``…), the envelope's
   session field (``session``, ``session_id``, ``conversation_id``, ``thread_id``…), the hash of
   ``metadata.user_id`` (rules/packs/payloads-session-keys.yaml). A key holds one conversation,
   sometimes of several agents (a subagent, a side call under the same id): its requests are never
   grouped with another key's, and within it each agent's conversation is its own session;
2. OpenAI Responses chains: a request with ``previous_response_id`` continues the session of that
   response; when the response is not in the log, the open Responses session with the same
   ``prompt_cache_key``, instructions and tools;
3. inferred from history: a request continues the open session whose last request's messages are
   a prefix of its own, when nothing says it is another agent (below); or, for the same agent, a
   history rewritten somewhere (CL303). Otherwise it starts a new session. Interleaved sessions in
   one file come apart;
4. a VCR cassette, a HAR file or a nock recording is one recording: its requests are grouped as above but never with
   requests of another file, and its sessions close at the end of the file.

What says a request is another agent's (``agent_evidence``): its system prompt, and its tools when
one of the two requests has no system prompt. An equal tier is the same agent, a mostly equal one
the same agent edited (a date in it); two unlike system prompts are two agents (a round-robin
team's critic, a handoff's target), even handed the same history; a tier present in one request
and absent from the other is weaker evidence (a call made without the tools); two requests with
neither say nothing. A request that
replays the previous request's response (its tool call ids, its text: ``Request.response_marks``)
continues that conversation whatever its tools.

What splits a history that grows: the other agent's tiers; a request that repeats a history and
changes only its last message (independent predictions that share a few-shot prompt); a pause
longer than the longest cache lifetime the provider gives the previous request's entries
(``longest_lifetime``: a re-recording appended to a cassette days later), unless a key says the
two are one session or the response read the cache (the evidence beats the clock). A side call
(``Request.side_call``: a compaction) is a session of its own. A weak key (``prompt_cache_key``,
a trace id) is evidence, not a scope: it breaks ties, bridges pauses and links Responses chains.

Every session records why it started (``Session.started``): the reason its first request did not
continue the nearest open session, for the summary.

Memory: only open sessions are held; a session untouched for ``window`` records is closed.
"""

from __future__ import annotations

import itertools

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Iterable, Mapping, NamedTuple

from cachelint.payloads.formats.registry import recording_formats
from cachelint.payloads.diff import (
    common_prefix_blocks,
    common_prefix_len,
    common_suffix_len,
    oldest_dropped,
    volatile_spans,
)
from cachelint.payloads.model import Block, Record, Request, Session, duration_text, seconds_between
from cachelint.payloads.providers import TEXT_MARK
from cachelint.payloads.usage import usage_of

_DATA = attrgetter("data")


def _session_number(sid: str) -> int:
    return int(sid[1:])  # "s12": sessions in the order they started


GROUPING_TEXT = {
    "explicit": "explicit session key",
    "response-chain": "OpenAI Responses chain (previous_response_id)",
    "cassette": "one recording (cassette or HAR file), split by history",
    "history": "inferred: each request extends the history of the previous one",
    "single": "a single request",
    "side-call": "a call beside the conversation",
}

# Envelope fields whose ids group weakly: a run or a trace may hold several conversations.
# a trace id, and an Inspect sample (cachelint.payloads.formats.inspect_log): each may hold several
# conversations (a team of agents, a scorer beside the solver)
_WEAK_ENVELOPE_FIELDS = frozenset(("trace_id", "traceId", "sample"))

# agent_evidence: the same agent (a tier equal), the same agent edited (a tier mostly equal), no
# evidence, weakly another (a tier sent by one request only), clearly another (tiers unlike)
SAME, CLOSE, NONE, WEAK, OTHER = 3, 2, 1, 0, -1


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
        # asked of every record, and most carry none of the keys: a set test before the look-ups
        if record.headers and not record.headers.keys().isdisjoint(self.headers):
            for name in self.headers:
                value = record.headers.get(name)
                if value:
                    return f"header:{value}", f"header {name}"
        if record.session and record.session_field not in _WEAK_ENVELOPE_FIELDS:
            return f"envelope:{record.session}", f"envelope {record.session_field or 'session'}"
        if record.hashed_ids:
            for path in self.hashed_fields:
                value = record.hashed_ids.get(path)
                if value:
                    return f"{path}:{value}", f"{path} (hashed)"
        return None

    def weak(self, record: Record) -> tuple[str, str] | None:
        body = record.request
        if isinstance(body, dict) and not body.keys().isdisjoint(self.weak_fields):
            for path in self.weak_fields:
                value = body.get(path)
                if isinstance(value, str) and value:
                    return f"{path}:{value}", path
        if record.session and record.session_field in _WEAK_ENVELOPE_FIELDS:
            return f"envelope:{record.session}", f"envelope {record.session_field}"
        return None


def agent_evidence(a: Request, b: Request) -> int:
    """What the system prompts and tools of two requests say about their agent. The system prompt
    is the agent's identity (a router and the agent it hands off to may share a tool): when both
    requests send one, it decides — ``SAME`` (equal), ``CLOSE`` (mostly equal: a date that ticks,
    a paragraph appended; or rewritten while the very same tools are sent) or ``OTHER`` (unlike).
    Otherwise the tools decide the same way, and a tier sent by one request only is ``WEAK`` (a
    call made without them); two requests with neither say nothing (``NONE``)."""
    found = NONE
    for x, y in ((a.system, b.system), (a.tools, b.tools)):
        if x and y:
            if _same_tier(x, y):
                return SAME
            if _close_tiers(x, y):
                return CLOSE
            if x is a.system and a.tools and _same_tier(a.tools, b.tools):
                return CLOSE  # the system prompt rewritten, the very same tools: one agent edited
            return OTHER
        if x or y:
            found = WEAK
    if not a.system and b.system and not _same_tier(a.tools, b.tools):
        # a system prompt of its own where the earlier request had none, and other tools: the
        # agent a handoff passes the conversation to (a call made without its tools and
        # instructions drops them, it does not bring new ones)
        return OTHER
    return found


def _same_tier(x: tuple[Block, ...], y: tuple[Block, ...]) -> bool:
    return len(x) == len(y) and (x == y or all(p.data is q.data or p.data == q.data for p, q in zip(x, y)))


# Two versions of one agent's tier share most of their bytes (a timestamp rewritten, a tool added
# to a list, a paragraph appended); two agents' system prompts share a template at most.
_CLOSE_SHARE = 0.5


def _close_tiers(x: tuple[Block, ...], y: tuple[Block, ...]) -> bool:
    """Whether two tiers share, as a common head and tail, at least half of the longer one's
    bytes, or the whole of the shorter one (text inserted: a list of artifacts appended)."""
    a, b = b"".join(blk.data for blk in x), b"".join(blk.data for blk in y)
    head = common_prefix_len(a, b)
    tail = min(common_suffix_len(a, b), min(len(a), len(b)) - head)
    shared = head + tail
    return shared >= _CLOSE_SHARE * max(len(a), len(b)) or shared >= min(len(a), len(b)) - 2


def replays_response(prev: Request, cur: Request, start: int) -> bool:
    """Whether ``cur``'s messages from ``start`` on repeat something of ``prev``'s response (a tool
    call id, the start of its text): ``cur`` carries that response on."""
    if not prev.response_marks:
        return False
    for block in cur.messages[start:]:
        data = block.data
        for mark in prev.response_marks:
            if mark.startswith(TEXT_MARK):
                if block.name in _ASSISTANT_ROLES and mark[len(TEXT_MARK) :] in data:
                    return True
            elif mark in data:
                return True
    return False


_ASSISTANT_ROLES = frozenset(("assistant", "model", "message"))


@dataclass
class _Open:
    session: Session
    last: Request
    scope: str  # the file for recordings, "" otherwise
    touched: int = 0
    key: str | None = None  # the explicit key's scope entry ("{scope}|{key}"), when grouped by one
    weak_key: str | None = None
    index_keys: tuple[Any, ...] = ()  # where it sits in the grouper's candidate indexes
    responses: list[str] = field(default_factory=list)  # response ids to forget on close


def _candidate_keys(req: Request, scope: str) -> tuple[Any, ...]:
    """Index keys of a session whose last request is ``req``: its first message (continuations
    share it), its agent signature (tools, system: rewrites of message 0 share it) and its second
    message (a rewrite of message 0 keeps the rest: ``_only_first_differs``)."""
    keys: list[Any] = []
    if req.messages:
        keys.append(("first", scope, req.provider, req.messages[0].data))
    for tier in (req.tools, req.system):
        if tier:
            keys.append(("agent", scope, req.provider, len(tier), hash(tuple(map(_DATA, tier)))))
    if len(req.messages) >= 2:
        keys.append(("second", scope, req.provider, req.messages[1].data))
    return tuple(keys)


# How many of an agent's most recently touched open sessions a request whose first and second
# messages match none is compared with (a sliding window of history continues one of them).
_RECENT_OF_AGENT = 4

# The prints of a tier for ``may_be_one_agent``: its bytes [E - 16, E) and the same from its end,
# for E = 16, 32, 64… while 4 * E fits in the tier. Two tiers that are close (``_close_tiers``)
# share at least half of the shorter one's m bytes as a common head and tail, so a head or a tail
# of m / 4 bytes: their last window with 4 * E <= m is equal at the head or at the tail. Windows
# further in than the first bytes skip what every tier starts with (``{"type":"text","text":"``).
_WINDOW = 16
_PRINT_MEMO = "sessions:agent print"


def _tier_print(tier: tuple[Block, ...]) -> tuple[tuple[bytes, ...], tuple[bytes, ...]] | None:
    """A tier's windows from its start and from its end (None: no tier)."""
    if not tier:
        return None
    data = b"".join(blk.data for blk in tier)
    heads: list[bytes] = []
    tails: list[bytes] = []
    end = _WINDOW
    while 4 * end <= len(data):
        heads.append(data[end - _WINDOW : end])
        tails.append(data[len(data) - end : len(data) - end + _WINDOW])
        end *= 2
    return tuple(heads), tuple(tails)


def _agent_print(req: Request) -> tuple[Any, Any]:
    found = req.memo.get(_PRINT_MEMO)
    if found is None:
        found = req.memo[_PRINT_MEMO] = (_tier_print(req.system), _tier_print(req.tools))
    return found


def _may_be_close(p: tuple[tuple[bytes, ...], ...], q: tuple[tuple[bytes, ...], ...]) -> bool:
    """False only when two tiers are neither equal nor close (``_close_tiers``)."""
    k = min(len(p[0]), len(q[0])) - 1
    return k < 0 or p[0][k] == q[0][k] or p[1][k] == q[1][k]


def may_be_one_agent(a: Request, b: Request) -> bool:
    """False only when ``agent_evidence(a, b)`` is ``OTHER``, from the tiers' prints: every branch
    of ``agent_evidence`` that does not give ``OTHER``, with "equal or close" widened to
    ``_may_be_close``. A session this rules out cannot be continued by ``b`` (``_judge``)."""
    (sa, ta), (sb, tb) = _agent_print(a), _agent_print(b)
    if sa is not None and sb is not None:
        return _may_be_close(sa, sb) or (ta is not None and tb is not None and _may_be_close(ta, tb))
    if ta is not None and tb is not None:
        return _may_be_close(ta, tb)
    if sa is None and sb is not None:
        return ta is None and tb is None
    return True


class _Verdict(NamedTuple):  # a tuple: one is made for every candidate of every request
    """How a request relates to an open session's last request: ``rank`` > 0 continues it (4: it
    replays its response, 3: its history grows, 2: it repeats the same messages, 1: the same
    agent's history rewritten); otherwise ``reason`` says why not."""

    rank: int
    shared: int = 0
    reason: str | None = None
    repeat: bool = False  # the same messages sent again


_RESTART = "its messages do not carry on the history of the open session's last request (a conversation started again)"
_SIBLINGS = (
    "one of several independent requests that share this history and differ in their last message"
    " (predictions over one few-shot prompt), not a retry"
)


_REJECT = _Verdict(-1)
_HANDOFF = "another agent: its system prompt (or tools) are unlike those of the request whose messages it shares"


@dataclass
class SessionGrouper:
    keys: SessionKeys
    window: int = 1000
    # the longest a request's cache entries can live, in seconds, or None (``longest_lifetime``)
    lifetime: Any = None
    # the values that tick (``diff.VolatilePatterns``): a system prompt whose only changes are
    # such values is the same agent's, the same messages sent again under it one conversation
    volatile: Any = None
    _open: dict[str, _Open] = field(default_factory=dict)
    _by_key: dict[str, dict[str, None]] = field(default_factory=dict)
    _by_response: dict[str, str] = field(default_factory=dict)
    _index: dict[Any, dict[str, None]] = field(default_factory=dict)
    _counter: int = 0
    _tick: int = 0

    def _reindex(self, entry: _Open, req: Request, keys: tuple[Any, ...] | None = None) -> None:
        sid = entry.session.id
        if (
            entry.key is not None
            or entry.session.grouping in ("response-chain", "side-call")
            or req.previous_response_id
        ):
            keys = ()  # found by their key or their response ids, not by history
        elif keys is None:
            keys = _candidate_keys(req, entry.scope)
        # each bucket keeps its sessions in the order they were last touched (a session moves to
        # its end): the most recent session a request does not continue is found from the end
        self._unindex(sid, entry.index_keys)
        entry.index_keys = keys
        for key in entry.index_keys:
            self._index.setdefault(key, {})[sid] = None

    def assign(self, req: Request, record: Record) -> tuple[Session, Request | None]:
        """The session ``req`` belongs to and the previous request of that session (or None)."""
        self._tick += 1
        scope = record.origin.path if record.fmt in recording_formats() else ""
        keys: tuple[Any, ...] | None = None
        explicit = self.keys.explicit(record)
        weak = self.keys.weak(record)
        weak_key = weak[0] if weak else None
        target: _Open | None = None
        why: tuple[str, str | None] = ("", None)
        grouping = "cassette" if scope else "history"
        key = key_source = None
        if req.side_call is not None:
            grouping = "side-call"
            why = (f"a {req.side_call} call, made beside the conversation", None)
        elif explicit is not None:
            key, key_source = explicit
            grouping = "explicit"
            target, why = self._in_key(req, f"{scope}|{key}", weak_key)
        elif req.previous_response_id:
            target, why = self._chained(req, scope, weak_key)
            if target is not None:
                grouping = "response-chain"
        else:
            keys = _candidate_keys(req, scope)
            target, why = self._continued(req, keys, weak_key)
        if target is None and explicit is None and weak is not None:
            key, key_source = weak
        if target is None:
            session = self._new(req, record, grouping, key, key_source, scope, explicit is not None, weak_key)
            session.started, session.started_after = why
            prev = None
        else:
            session = target.session
            if grouping == "response-chain" and session.grouping in ("history", "cassette", "single"):
                session.grouping = "response-chain"
            prev = target.last
            target.last = req
            target.touched = self._tick
            if weak_key is not None and target.weak_key is None:
                target.weak_key = weak_key
            self._reindex(target, req, keys if target.scope == scope else None)
        req.session = session.id
        req.index_in_session = session.count
        session.count += 1
        session.requests.append(req)
        if req.response_id:
            self._by_response[req.response_id] = session.id
            self._open[session.id].responses.append(req.response_id)
        return session, prev

    def _new(
        self,
        req: Request,
        record: Record,
        grouping: str,
        key: str | None,
        key_source: str | None,
        scope: str,
        explicit: bool,
        weak_key: str | None,
    ) -> Session:
        self._counter += 1
        session = Session(
            id=f"s{self._counter}",
            grouping=grouping,
            key=key,
            key_source=key_source,
            provider=req.provider,
            model=req.model,
            path=record.origin.path,
            host=req.host,
        )
        entry = _Open(session, req, scope, self._tick, weak_key=weak_key)
        self._open[session.id] = entry
        if explicit and key is not None:
            entry.key = f"{scope}|{key}"
            self._by_key.setdefault(entry.key, {})[session.id] = None
        self._reindex(entry, req)
        return session

    # --- the three ways in ------------------------------------------------------------------

    def _in_key(
        self, req: Request, scope_key: str, weak_key: str | None
    ) -> tuple[_Open | None, tuple[str, str | None]]:
        """The session of the same key (and agent) the request continues: by history first, then
        the same agent whatever its history (a key is one conversation: a compaction that replaced
        the history is still it), then, when the key holds one session and nothing says another
        agent, that one."""
        sids = list(self._by_key.get(scope_key, {}))
        if not sids:
            return None, ("", None)
        best = self._best(req, {sid: None for sid in sids}, weak_key, None, timed=False)
        if best is not None:
            return best[1], ("", None)
        fallback: tuple[tuple[int, ...], _Open] | None = None
        for sid in sids:
            entry = self._open[sid]
            evidence = agent_evidence(entry.last, req)
            if evidence in (SAME, CLOSE) or (evidence == NONE and len(sids) == 1):
                score = (evidence, entry.touched)
                if fallback is None or score > fallback[0]:
                    fallback = (score, entry)
        if fallback is not None:
            return fallback[1], ("", None)
        last = self._open[sids[-1]].last
        return None, (
            "another agent under the same session key: its tools and system prompt differ",
            last.origin.describe(),
        )

    def _chained(self, req: Request, scope: str, weak_key: str | None) -> tuple[_Open | None, tuple[str, str | None]]:
        """The session of the response a chained Responses request names; when that response is
        not in the log, the open Responses session of the same prompt_cache_key, instructions and
        tools (the most recent)."""
        sid = self._by_response.get(req.previous_response_id or "")
        if sid is not None and sid in self._open:
            entry = self._open[sid]
            if agent_evidence(entry.last, req) == OTHER:
                # a handoff: another agent carries the conversation on (the server prepends the
                # chain's items), judged as on Chat Completions, where it is handed the history
                return None, (_HANDOFF, entry.last.origin.describe())
            return entry, ("", None)
        found: _Open | None = None
        for entry in self._open.values():
            last = entry.last
            if entry.scope != scope or last.provider != req.provider or last.side_call is not None:
                continue
            if (last.settings.get("prompt_cache_key") or None) != (req.settings.get("prompt_cache_key") or None):
                continue
            instructions = tuple(b for b in last.system if b.name == "instructions")
            if (
                not (req.tools or req.system)
                or not _same_tier(last.tools, req.tools)
                or not _same_tier(instructions, req.system)
            ):
                continue
            if found is None or entry.touched > found.touched:
                found = entry
        if found is not None:
            return found, ("", None)
        return None, ("chained (previous_response_id) to a response the log does not hold", None)

    def _continued(
        self, req: Request, keys: tuple[Any, ...], weak_key: str | None
    ) -> tuple[_Open | None, tuple[str, str | None]]:
        """The open session this request continues, by history. Sessions whose last request
        shares the first message are ranked first: only they can be true continuations, so when
        one is, the sessions that share only the agent's tools or system need not be looked at.

        Only the sessions that can be continued are judged: of those sharing the first message,
        the ones ``may_be_one_agent`` does not rule out; of the others (same agent), the ones
        that share the second message (message 0 rewritten, the rest intact is the only way to
        continue a history whose first message differs). Of the sessions ruled out, the most
        recent is judged for the reason a new session starts (``max(rejected)``): the index's
        buckets are in the order sessions were last touched."""
        sharing_first: dict[str, None] = {}
        same_agent: list[dict[str, None]] = []  # the buckets of its tools and of its system prompt
        second: dict[str, None] = {}
        for key in keys:
            bucket = self._index.get(key)
            if bucket is None:
                continue
            if key[0] == "first":
                sharing_first = bucket
            elif key[0] == "agent":
                same_agent.append(bucket)
            else:
                second = bucket
        rejected: list[tuple[int, str, str]] = []
        viable = {sid: None for sid in sharing_first if may_be_one_agent(self._open[sid].last, req)}
        best = self._best(req, viable, weak_key, None, rejected=rejected)
        if best is not None and best[0][0] >= 2:
            return best[1], ("", None)
        others = {
            sid: None for sid in second if sid not in sharing_first and any(sid in bucket for bucket in same_agent)
        }
        # a history whose oldest turns were dropped (a sliding window) shares neither its first
        # nor its second message with the session it continues: the same agent's most recently
        # touched sessions are judged too, a bounded number whatever the log's length
        for bucket in same_agent:
            for sid in itertools.islice(reversed(bucket), _RECENT_OF_AGENT):  # no copy of the bucket
                if sid not in sharing_first:
                    others[sid] = None
        best = self._best(req, others, weak_key, best, rejected=rejected)
        if best is not None:
            return best[1], ("", None)
        judged = viable.keys() | others.keys()
        for bucket in (sharing_first, *same_agent):
            self._latest_rejection(req, bucket, judged, weak_key, rejected)
        if rejected:
            _, reason, where = max(rejected)  # the most recent session it did not continue
            return None, (reason, where)
        return None, ("", None)

    def _latest_rejection(
        self,
        req: Request,
        bucket: dict[str, None],
        judged: Any,
        weak_key: str | None,
        rejected: list[tuple[int, str, str]],
    ) -> None:
        """Judge the most recently touched session of ``bucket`` not ``judged`` yet that gives a
        reason (all of them are rejected), and add it to ``rejected``."""
        touched = max(rejected)[0] if rejected else -1
        for sid in reversed(bucket):
            candidate = self._open[sid]
            if candidate.touched <= touched:
                return  # in touched order: none after it can be the most recent rejection
            if sid in judged:
                continue
            verdict = self._judge(candidate.last, req, not (weak_key is not None and candidate.weak_key == weak_key))
            if verdict.reason:
                rejected.append((candidate.touched, verdict.reason, candidate.last.origin.describe()))
                return

    def _best(
        self,
        req: Request,
        sids: dict[str, None],
        weak_key: str | None,
        best: tuple[tuple[int, ...], _Open] | None,
        timed: bool = True,
        rejected: list[tuple[int, str, str]] | None = None,
    ) -> tuple[tuple[int, ...], _Open] | None:
        for sid in sorted(sids, key=_session_number) if len(sids) > 1 else sids:
            candidate = self._open[sid]
            same_key = weak_key is not None and candidate.weak_key == weak_key
            verdict = self._judge(candidate.last, req, timed and not same_key)
            if verdict.rank < 0:
                if rejected is not None and verdict.reason:
                    rejected.append((candidate.touched, verdict.reason, candidate.last.origin.describe()))
                continue
            if verdict.repeat and self._has_sibling(req, candidate):
                if rejected is not None:
                    rejected.append((candidate.touched, _SIBLINGS, candidate.last.origin.describe()))
                continue
            score = (verdict.rank, int(same_key), verdict.shared, candidate.touched)
            if best is None or score > best[0]:
                best = (score, candidate)
        return best

    def _has_sibling(self, req: Request, candidate: _Open) -> bool:
        """Whether another open session's last request shares ``req``'s history but its last
        message: ``req`` repeating ``candidate``'s last request is then one of a set of
        independent requests over one prompt (a few-shot evaluation), not a retry."""
        msgs = req.messages
        if len(msgs) < 2:
            return False
        # siblings share message 0, so they are in its bucket; the check is rare (a repeat), the
        # bucket small: no index of every history's head is kept for it
        last = msgs[-1].data
        for sid in self._index.get(("first", candidate.scope, req.provider, msgs[0].data), {}):
            other = self._open.get(sid)
            if other is None or other is candidate:
                continue
            theirs = other.last.messages
            if (
                len(theirs) == len(msgs)
                and theirs[-1].data != last
                and common_prefix_blocks(theirs, msgs) == len(msgs) - 1
            ):
                return True
        return False

    def _judge(self, last: Request, cur: Request, timed: bool) -> _Verdict:
        """Whether ``cur`` continues the session whose last request is ``last``."""
        if last.side_call is not None or last.provider != cur.provider or last.host != cur.host:
            # the host is part of a conversation's identity: a provider's cache is its own, and a
            # gateway or another server of the same API (Groq, Ollama, OpenRouter) keeps another
            return _REJECT
        prev, msgs = last.messages, cur.messages
        k = common_prefix_blocks(prev, msgs)
        if timed:
            pause = self._too_long(last, cur, k == len(prev) and len(msgs) > len(prev))
            if pause is not None:
                return _Verdict(-1, k, pause)
        if k == 0 and (len(prev) < 2 or len(msgs) < len(prev)):
            # nothing shared, and not message 0 rewritten in a history that goes on: whatever the
            # agents, another conversation (the verdict the branches below give); most candidates
            # of a session's first request end here, so the agent evidence is not asked for
            return _Verdict(-1, k, _RESTART)
        evidence = agent_evidence(last, cur)
        if k == len(prev) and prev and len(msgs) >= len(prev):
            grows = len(msgs) > len(prev)
            if evidence == OTHER:
                # another agent, even when it is handed the whole history (a handoff, a team's
                # next speaker): each agent's conversation is its own session
                return _Verdict(-1, k, _HANDOFF)
            if replays_response(last, cur, k):
                return _Verdict(4, k)
            if grows:
                if evidence != WEAK or k >= 2:
                    return _Verdict(3, k)
                return _Verdict(
                    -1,
                    k,
                    "it shares only the opening message with a request of other tools or system prompt (a side call)",
                )
            if (
                evidence == SAME
                or (evidence == NONE and last.model == cur.model)
                or (evidence == CLOSE and self._ticked(last.system, cur.system))
            ):
                # the same request sent again (a retry, a setting changed), or the same messages
                # sent again under the same system prompt but for a value that ticks (a clock in
                # it); another wording of it is another configuration (a prompt experiment's variant)
                return _Verdict(2, k, repeat=True)
            return _Verdict(
                -1,
                k,
                "it repeats the messages of a request of other tools or system prompt (another configuration, a side call)",
            )
        if k and k == len(prev) - 1 == len(msgs) - 1:
            return _Verdict(
                -1,
                k,
                "an independent request: it repeats the history of the previous one and changes only its last message",
            )
        if k and _other_reply(prev, msgs, k):
            return _Verdict(
                -1,
                k,
                "another conversation that opened alike: its reply to the shared opening differs (two users who"
                " both said the same first words), not a history rewritten",
            )
        if (
            evidence == NONE
            and k >= 1
            and (len(msgs) > len(prev) or (len(msgs) == len(prev) and msgs[-1].data == prev[-1].data))
        ):
            return _Verdict(1, k)  # a history without tools or system, rewritten in its middle (CL303)
        if evidence not in (SAME, CLOSE):
            if evidence == OTHER and k:
                return _Verdict(-1, k, _HANDOFF)
            return _Verdict(-1, k, _RESTART)
        if k >= 1 and len(msgs) > 1:
            return _Verdict(1, k)  # the same agent's history, rewritten somewhere (CL303)
        if k == 0 and len(prev) >= 2 and len(msgs) >= len(prev) and _only_first_differs(prev, msgs):
            return _Verdict(1, k)  # message 0 rewritten (a timestamp in the first user message), the rest intact
        if k == 0 and oldest_dropped(prev, msgs):
            return _Verdict(1, k)  # the oldest turns dropped, the rest carried on (a sliding window)
        return _Verdict(-1, k, _RESTART)

    def _ticked(self, x: tuple[Block, ...], y: tuple[Block, ...]) -> bool:
        """Whether two system tiers of as many blocks differ only in values that tick (a time, a
        date, an id: every changed span volatile)."""
        if self.volatile is None or len(x) != len(y):
            return False
        changed = [(a.data, b.data) for a, b in zip(x, y) if a.data != b.data]
        return bool(changed) and all(volatile_spans(a, b, self.volatile) for a, b in changed)

    def _too_long(self, last: Request, cur: Request, extends: bool) -> str | None:
        """Why the pause since ``last`` ends its session, or None: it outlived every cache entry
        ``last`` could have left, unless ``cur`` extends ``last``'s history and its response read
        the cache (the log's clock is wrong, not the session; a request that only repeats
        another may read a cache a later run warmed)."""
        if self.lifetime is None:
            return None
        gap = seconds_between(last, cur)
        if gap is None:
            return None
        longest = self.lifetime(last)
        if longest is None or gap <= longest:
            return None
        usage = usage_of(cur) if extends else None
        if usage is not None and usage.read > 0:
            return None  # the cache was read: the clock of the log is wrong, not the session
        return (
            f"{duration_text(gap)} after the previous request, longer than the longest cache lifetime of"
            f" {last.provider} for it ({duration_text(longest)}): another run"
        )

    # --- closing ----------------------------------------------------------------------------

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
        if entry.key is not None:
            bucket = self._by_key.get(entry.key)
            if bucket is not None:
                bucket.pop(sid, None)
                if not bucket:
                    del self._by_key[entry.key]
        for r in entry.responses:
            if self._by_response.get(r) == sid:
                del self._by_response[r]
        if session.count == 1 and session.grouping in ("history", "cassette"):
            session.grouping = "single" if session.key is None else session.grouping
        return session


def longest_lifetime(limits: Any) -> Any:
    """A function giving, for a request, the longest its cache entries can live in seconds (None
    when the provider is unknown): the provider's longest default lifetime (``longest_ttl`` in
    rules/packs/payloads-limits.yaml: Anthropic's and Bedrock's 1-hour TTL, OpenAI's in-memory
    retention of at most an hour, Gemini's hour), or longer when the request asks for it (OpenAI's
    ``prompt_cache_retention: "24h"``, a marker's TTL)."""
    memo: dict[tuple[Any, ...], int | None] = {}
    own = f"longest_lifetime:{id(memo)}"  # this function's answer in the request's own memo

    def lifetime(req: Request) -> int | None:
        if own in req.memo:
            return req.memo[own]  # asked again for every request that follows it
        req.memo[own] = found = _lifetime(req)
        return found

    def _lifetime(req: Request) -> int | None:
        retention = req.settings.get("prompt_cache_retention")
        ttls = tuple(sorted({bp.ttl for bp in req.breakpoints}))
        key = (req.provider, retention if isinstance(retention, str) else None, ttls)
        if key in memo:
            return memo[key]
        provider = limits.provider(req.provider)
        found: int | None = None
        if provider is not None:
            asked = [
                provider.ttl_seconds(t)
                for t in (*ttls, *([retention.replace("-", "_")] if isinstance(retention, str) else []))
            ]
            candidates = [s for s in (provider.longest_ttl, *asked) if s]
            found = max(candidates) if candidates else None
        memo[key] = found
        return found

    return lifetime


_THINKING_PARTS = frozenset(("thinking", "redacted_thinking", "reasoning"))


def _reply(block: Block) -> Any:
    """An assistant message's reply without its thinking (which the API strips from older turns):
    its text and tool calls; None for another role or a block that is not a message object."""
    if block.name not in _ASSISTANT_ROLES:
        return None
    message = block.raw
    if not isinstance(message, dict):
        return None
    content = message.get("content", message.get("parts"))
    if isinstance(content, list):
        return [p for p in content if not (isinstance(p, dict) and p.get("type") in _THINKING_PARTS)]
    return content


def _other_reply(prev: tuple, cur: tuple, k: int) -> bool:
    """The two histories share their first ``k`` messages and then hold two different replies of
    the model to them (not one reply edited: its thinking stripped leaves the reply as it was):
    two conversations that opened with the same words, each answered on its own. A reply edited
    within one conversation keeps what followed it (the next question is sent again after it)."""
    if k != 1 or k >= len(prev) or k >= len(cur):
        return False
    mine, theirs = _reply(prev[k]), _reply(cur[k])
    if mine is None or theirs is None or mine == theirs:
        return False
    later = {b.data for b in cur[k + 1 :]}
    return not any(b.data in later for b in prev[k + 1 :])


def _only_first_differs(prev: tuple, cur: tuple) -> bool:
    """Every message of ``prev`` after the first one is repeated in ``cur``: message 0 was edited,
    this is not another conversation of the same agent (a log that starts mid-session)."""
    rest = prev[1:]
    return (
        bool(rest)
        and prev[0].name == cur[0].name
        and all(x.data is y.data or x.data == y.data for x, y in zip(rest, cur[1 : len(prev)]))
    )
