"""CL307 reinjected-content: the same text (a skill body, a file) sent again later in one
session's history.

The history is re-sent with every request, so a body injected twice is paid twice in every later
prompt (as cache reads at best, as writes after any break) and crowds the context. Context
curation (docs/background/agent-patterns.md#context-curation): de-duplicate against the live history — replace the second copy with a
pointer to the first ("Body already provided earlier in this conversation"), and inject it again
only when the earlier copy is gone (compaction, /clear, an edited file).

A copy is judged by the tokens it adds to every request that carries it, from the one that sends
it again to the end of the session (the finding says how many and what they add up to): reported
from ``reinjected-min-tokens`` (``[tool.cachelint.audit]``, default 256, about 1 KB of text —
a 1.4 KB skill body loaded again is worth fixing), not from a floor in characters. Texts from
``reinjected-min-chars`` characters (default 512) are compared.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterable, Iterator

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.limits import limits_for
from cachelint.payloads.model import Block, Request, Session
from cachelint.rules.declarations import PayloadRule

CODE = "CL307"
DEFAULT_MIN_CHARS = 512
DEFAULT_MIN_TOKENS = 256
MAX_PENDING = 20  # copies held per session until it ends


def _texts(value: Any, min_chars: int) -> Iterator[str]:
    """Every string of at least ``min_chars`` characters inside a block's JSON value."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if len(node) >= min_chars:
                yield node
        elif isinstance(node, dict):
            stack.extend(node[k] for k in reversed(list(node)))
        elif isinstance(node, list):
            stack.extend(reversed(node))


def _fingerprints(blocks: Iterable[Block], min_chars: int) -> Iterator[tuple[str, str, Block]]:
    for block in blocks:
        if len(block.data) < min_chars:
            continue  # cheap skip: a block shorter than the threshold holds no long text
        for text in _texts(block.raw, min_chars):
            yield hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), text, block


def _repeats(
    earlier: Iterable[Block], new: Iterable[Block], min_chars: int, seen: dict[str, Block] | None = None
) -> list[dict[str, Any]]:
    """Long texts of ``new`` already present in ``earlier`` (or in ``seen``, the digests of an
    earlier call, which is extended in place)."""
    seen = {} if seen is None else seen
    for digest, _, block in _fingerprints(earlier, min_chars):
        seen.setdefault(digest, block)
    out = []
    for digest, text, block in _fingerprints(new, min_chars):
        first = seen.get(digest)
        if first is None:
            seen[digest] = block
            continue
        if first is block:
            continue  # the same text twice inside one block: one injection, not our case
        out.append(
            {
                "chars": len(text),
                "first": f"{first.tier}[{first.index}]",
                "again": f"{block.tier}[{block.index}]",
                "starts": text[:80],
            }
        )
    return out


def _diagnostic(req: Request, repeats: list[dict[str, Any]], ctx: CheckContext, carried: int) -> Diagnostic:
    """The finding at ``req``: its copies cost their tokens in each of the ``carried`` requests
    from it to the end of its session."""
    limits = limits_for(ctx)
    chars = sum(r["chars"] for r in repeats)
    tokens = limits.estimate_tokens(chars)
    first = repeats[0]
    more = f" (and {len(repeats) - 1} more)" if len(repeats) > 1 else ""
    return at_request(
        CODE,
        f"a {first['chars']}-character text already sent at {first['first']} is sent again at {first['again']}{more}:"
        f" ~{tokens} tokens paid again in each of the {carried} request(s) from here to the end of the session"
        f" (~{tokens * carried} in all); point to the earlier copy instead",
        req,
        details={
            "repeats": repeats,
            "estimated_tokens": tokens,
            "requests_carrying": carried,
            "estimated_tokens_in_all": tokens * carried,
            "basis": "estimate (~4 chars/token)",
        },
    )


def _min_tokens(ctx: CheckContext) -> int:
    return int(ctx.option("reinjected-min-tokens", DEFAULT_MIN_TOKENS))


def _pending(ctx: CheckContext) -> dict[str, list[tuple[Request, list[dict[str, Any]]]]]:
    """Session id -> the copies of its requests held until it closes (the run's state)."""
    return ctx.state("CL307 pending", dict)


def _seen(ctx: CheckContext) -> dict[str, tuple[Request, dict[str, Block]]]:
    """Session id -> (its latest request, the digests of its history) (the run's state)."""
    return ctx.state("CL307 seen", dict)


def _hold(req: Request, repeats: list[dict[str, Any]], ctx: CheckContext) -> list[Diagnostic]:
    """Keep a request's copies until its session ends (the finding counts the requests that
    carry them)."""
    if not _worth(repeats, ctx):
        return []
    held = _pending(ctx).setdefault(req.session or "", [])
    if len(held) < MAX_PENDING:
        held.append((req, repeats))
    return []


def _worth(repeats: list[dict[str, Any]], ctx: CheckContext) -> bool:
    """Whether the copies add ``reinjected-min-tokens`` or more to each request that carries them."""
    return limits_for(ctx).estimate_tokens(sum(r["chars"] for r in repeats)) >= _min_tokens(ctx)


def _min_chars(ctx: CheckContext) -> int:
    return int(ctx.option("reinjected-min-chars", DEFAULT_MIN_CHARS))


def check_request(req: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    """The first request of a session: a text repeated within its own history."""
    if req.index_in_session != 0:
        return []
    min_chars = _min_chars(ctx)
    repeats = _repeats(req.system, req.messages, min_chars)
    return _hold(req, repeats, ctx) if repeats else []


def _same_blocks(a: tuple[Block, ...], b: tuple[Block, ...]) -> bool:
    if len(a) != len(b):
        return False
    # consecutive requests share their Block objects: one C-level comparison in the common case
    return a == b or all(x is y or x.data == y.data for x, y in zip(a, b))


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    """Later requests: a text in the messages appended since the previous request that the
    history (or the system prompt) already holds.

    The digests of a session's history are kept between pairs (in the run's context, dropped when
    the session closes), so a long session costs one pass over each new block instead of a pass
    over the whole history per request."""
    kept = len(prev.messages)
    if len(cur.messages) <= kept:
        return []
    min_chars = _min_chars(ctx)
    state = _seen(ctx)
    key = cur.session or ""
    held = state.get(key)
    if (
        held is not None
        and held[0] is prev
        and _same_blocks(prev.system, cur.system)
        and _same_blocks(prev.messages, cur.messages[:kept])
    ):
        seen = held[1]
        repeats = _repeats((), cur.messages[kept:], min_chars, seen)
    else:
        seen = {}
        repeats = _repeats([*cur.system, *cur.messages[:kept]], cur.messages[kept:], min_chars, seen)
    state[key] = (cur, seen)
    return _hold(cur, repeats, ctx) if repeats else []


def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]:
    """The session's copies, with what each cost: its tokens in every request from the one that
    carries it to the session's last. Then forget the session's digests."""
    _seen(ctx).pop(session.id, None)
    out = []
    for req, repeats in _pending(ctx).pop(session.id, ()):
        out.append(_diagnostic(req, repeats, ctx, session.count - req.index_in_session))
    return out


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    request_first_only=True,  # check_request looks at the first request of a session only
    check_request=check_request,
    check_pair=check_pair,
    check_session=check_session,
)
