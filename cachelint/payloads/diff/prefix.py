"""The prefix diff of two consecutive requests: tier by tier, bytes first; the first differing
tier and byte offset of the rendered prefix; the excerpts around it."""

from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Any, Mapping, Sequence

from cachelint.payloads.diff.common import common_prefix_blocks, common_prefix_len
from cachelint.payloads.diff.explain import (
    DROPPED_THINKING,
    DROPPED_THINKING_HINT,
    MAX_EXPLANATIONS,
    explain_block_change,
)
from cachelint.payloads.diff.setting_changes import InvalidationTable, changed_settings
from cachelint.payloads.diff.volatile import VolatilePatterns, volatile_spans
from cachelint.payloads.model import TIERS, Block, PrefixDiff, Request, TierDiff

EXCERPT_BEFORE = 40
EXCERPT_AFTER = 80


def chain_view(prev: Request) -> Request:
    """What of ``prev`` a request chained to it (``previous_response_id``) renders first: its tools
    and its ``instructions``. The rest — ``prev``'s input, system messages included, and its
    output — is the conversation held server-side, which the chained request's new input follows;
    ``instructions`` are not carried over (OpenAI's Responses API reference: "When using along
    with previous_response_id, the instructions from a previous response will not be carried over
    to the next response"), so each link sends its own and the two are compared."""
    instructions = tuple(b for b in prev.system if b.name == "instructions")
    if len(instructions) == len(prev.system) and not prev.messages:
        return prev
    from dataclasses import replace as _replace

    return _replace(prev, system=instructions, messages=(), memo={})


def prefix_diff(prev: Request, cur: Request, table: InvalidationTable, volatile: VolatilePatterns) -> PrefixDiff:
    if cur.previous_response_id:
        prev = chain_view(prev)
    tier_diffs: list[TierDiff] = []
    first_tier: str | None = None
    offset: int | None = None
    for tier in TIERS:
        if tier == "messages" and cur.previous_response_id:
            continue  # OpenAI Responses chain: the history is server-side; the input is the new turn only
        a, b = prev.tier(tier), cur.tier(tier)
        if _same_blocks(a, b):
            continue
        td = _tier_diff(tier, a, b, volatile)
        if td is None:
            continue
        if td.breaks:
            td = replace(td, offset=_first_byte_offset(prev, cur, tier, td.first_block))
            if first_tier is None:
                first_tier = tier
                offset = td.offset
        tier_diffs.append(td)
    broken_tiers = {t.tier for t in tier_diffs if t.breaks}
    setting_changes = changed_settings(prev, cur, table, broken_tiers)
    lost: set[str] = set()
    if first_tier is not None:
        lost.update(TIERS[TIERS.index(first_tier) :])
    for change in setting_changes:
        if change.confirmed:
            lost.update(change.invalidates)
    invalidated = tuple(t for t in TIERS if t in lost)
    before = after = ""
    if offset is not None:
        before = _excerpt(prev, offset)
        after = _excerpt(cur, offset)
    return PrefixDiff(
        first_tier=first_tier,
        offset=offset,
        common_bytes=offset if offset is not None else prev.prefix_length,
        tiers=tuple(tier_diffs),
        settings=tuple(setting_changes),
        invalidated=invalidated,
        excerpt_before=before,
        excerpt_after=after,
    )


def _same_blocks(a: Sequence[Block], b: Sequence[Block]) -> bool:
    if len(a) != len(b):
        return False
    if a is b or a == b:
        return True  # shared Block objects compare by identity first (C speed)
    return all(x.data is y.data or x.data == y.data for x, y in zip(a, b))


def _tier_diff(tier: str, a: Sequence[Block], b: Sequence[Block], volatile: VolatilePatterns) -> TierDiff | None:
    k = common_prefix_blocks(a, b)
    if tier == "messages" and k == len(a):
        if len(b) == len(a):
            return None
        return TierDiff(tier, "appended", k, (f"{len(b) - len(a)} message(s) appended",), ())
    if tier == "tools":
        return _tools_diff(a, b, k, volatile)
    return _sequence_diff(tier, a, b, k, volatile)


# tools: matched by name so that moves, additions and removals are named ------------------------


def _tools_diff(a: Sequence[Block], b: Sequence[Block], first: int, volatile: VolatilePatterns) -> TierDiff:
    names_a = [blk.name or f"#{blk.index}" for blk in a]
    names_b = [blk.name or f"#{blk.index}" for blk in b]
    pos_a = {n: i for i, n in enumerate(names_a)}
    pos_b = {n: i for i, n in enumerate(names_b)}
    added = [n for n in names_b if n not in pos_a]
    removed = [n for n in names_a if n not in pos_b]
    explanation: list[str] = []
    changes: list[dict[str, Any]] = []
    for n in removed:
        explanation.append(f"tool {n!r} removed (was at {pos_a[n]})")
        changes.append({"change": "removed", "tool": n, "from": pos_a[n]})
    for n in added:
        explanation.append(f"tool {n!r} added at {pos_b[n]}")
        changes.append({"change": "added", "tool": n, "to": pos_b[n]})
    common = [n for n in names_b if n in pos_a]
    order_a = [n for n in names_a if n in pos_b]
    reordered = common != order_a
    if reordered:
        stable = _stable(order_a, common)
        for n in common:
            if pos_a[n] != pos_b[n] and n not in stable:
                explanation.append(f"tool {n!r} moved from {pos_a[n]} to {pos_b[n]}")
                changes.append({"change": "moved", "tool": n, "from": pos_a[n], "to": pos_b[n]})
    edited: list[str] = []
    key_order_only = True
    for n in common:
        da, db = a[pos_a[n]].data, b[pos_b[n]].data
        if da == db:
            continue
        edited.append(n)
        what, paths = explain_block_change(a[pos_a[n]].raw, b[pos_b[n]].raw)
        if what != "key-order":
            key_order_only = False
        label = "key order only" if what == "key-order" else "definition changed"
        explanation.append(f"tool {n!r}: {label}" + (f" ({'; '.join(paths[:4])})" if paths else ""))
        changes.append({"change": what, "tool": n, "paths": paths[:MAX_EXPLANATIONS]})
    vol: tuple[Mapping[str, Any], ...] = ()
    if added or removed:
        kind = "added" if not removed else "removed" if not added else "changed"
    elif edited:
        kind = "key-order" if key_order_only and not reordered else "changed"
        if kind == "changed" and len(edited) == 1 and not reordered:
            vol = volatile_spans(a[pos_a[edited[0]]].data, b[pos_b[edited[0]]].data, volatile)
    elif reordered:
        kind = "reordered"
    else:  # duplicate names or unnamed tools: fall back to bytes
        kind = "changed"
        explanation.append(f"tool at {first} differs")
    return TierDiff("tools", kind, first, tuple(explanation[:MAX_EXPLANATIONS]), tuple(changes[:MAX_EXPLANATIONS]), vol)


def _stable(order_a: list[str], order_b: list[str]) -> set[str]:
    """The tools that did not move: those in the longest common subsequence of the two orders
    (so a tool moved to the front is reported, not the 29 others that shifted)."""
    import difflib  # only where tools moved or a block changed: kept off the start-up path

    matcher = difflib.SequenceMatcher(a=order_a, b=order_b, autojunk=False)
    stable: set[str] = set()
    for block in matcher.get_matching_blocks():
        stable.update(order_a[block.a : block.a + block.size])
    return stable


# system and messages: index by index ---------------------------------------------------------


def _sequence_diff(
    tier: str, a: Sequence[Block], b: Sequence[Block], first: int, volatile: VolatilePatterns
) -> TierDiff:
    unit = "message" if tier == "messages" else "system block"
    explanation: list[str] = []
    changes: list[dict[str, Any]] = []
    vol: tuple[Mapping[str, Any], ...] = ()
    if first >= len(b):
        kind = "removed" if tier != "messages" else "truncated"
        explanation.append(f"{len(a) - len(b)} {unit}(s) removed from {first} on")
        changes.append({"change": "removed", "index": first, "count": len(a) - len(b)})
    elif first >= len(a):
        kind = "added"
        explanation.append(f"{len(b) - len(a)} {unit}(s) added at {first}")
        changes.append({"change": "added", "index": first, "count": len(b) - len(a)})
    else:
        what, paths = explain_block_change(a[first].raw, b[first].raw)
        kind = "key-order" if what == "key-order" else "changed"
        label = "key order only" if what == "key-order" else "changed"
        role = b[first].name
        explanation.append(
            f"{unit} {first}{f' ({role})' if role and tier == 'messages' else ''} {label}"
            + (f": {'; '.join(paths[:4])}" if paths else "")
        )
        if tier == "messages" and paths and all(p.endswith(DROPPED_THINKING) for p in paths):
            explanation.append(DROPPED_THINKING_HINT)
        changes.append({"change": what, "index": first, "paths": paths[:MAX_EXPLANATIONS]})
        if what != "key-order" and tier != "messages":
            vol = volatile_spans(a[first].data, b[first].data, volatile)
        if len(a) != len(b):
            explanation.append(f"{unit} count {len(a)} -> {len(b)}")
    return TierDiff(tier, kind, first, tuple(explanation[:MAX_EXPLANATIONS]), tuple(changes[:MAX_EXPLANATIONS]), vol)


# offsets and excerpts -------------------------------------------------------------------------


def _first_byte_offset(prev: Request, cur: Request, tier: str, index: int) -> int:
    """Offset (in the current rendering) of the tier's first differing byte: the start of its first
    differing block plus the common prefix of both renderings from there on. For the first broken
    tier, both starts are equal and this is the offset of the first differing byte overall."""
    start_a = _block_start(prev, tier, index)
    start_b = _block_start(cur, tier, index)
    window = 4096
    while True:  # widen until the renderings differ or one ends: a long block may differ late
        a, b = _render_from(prev, start_a, window), _render_from(cur, start_b, window)
        same = common_prefix_len(a, b)
        if same < window or len(a) < window or len(b) < window:
            return start_b + same
        window *= 8


def _block_start(req: Request, tier: str, index: int) -> int:
    blocks = req.tier(tier)
    return blocks[index].offset if index < len(blocks) else req.tier_span(tier)[1]


def _render_from(req: Request, offset: int, length: int) -> bytes:
    """``length`` bytes of the rendered prefix starting at ``offset``. The blocks before
    ``offset`` are skipped a tier at a time, then by bisection on their offsets (in render
    order): a request of a long session has thousands of blocks, and every excerpt and offset
    of a break reads from here."""
    out: list[bytes] = []
    need = length
    for tier in TIERS:
        blocks = req.tier(tier)
        if not blocks or blocks[-1].end <= offset:
            continue
        first = max(0, bisect.bisect_right(blocks, offset, key=_block_offset) - 1)
        for block in blocks[first:]:
            if block.end <= offset:
                continue
            lo = max(0, offset - block.offset)
            piece = block.data[lo : lo + need]
            out.append(piece)
            need -= len(piece)
            if need <= 0:
                return b"".join(out)
    return b"".join(out)


def _block_offset(block: Block) -> int:
    return block.offset


def _excerpt(req: Request, offset: int) -> str:
    """The masked excerpt of ``req`` around ``offset``. Where every request breaks at the same
    place (a clock in the system prompt), the excerpt of a pair's current request is the next
    pair's previous one: kept in the request's memo, the latest offset only."""
    memo = req.memo.get("excerpt")
    if memo is not None and memo[0] == offset:
        return memo[1]
    text = _masked_excerpt(req, offset)
    req.memo["excerpt"] = (offset, text)
    return text


def _masked_excerpt(req: Request, offset: int) -> str:
    from cachelint.masking import masker, reach

    start = max(0, offset - EXCERPT_BEFORE)
    end = offset + EXCERPT_AFTER
    # masked before it is cut: the rendering read reaches past the excerpt's edges to the whole
    # value an edge falls in (a token of kilobytes after "Bearer"), and further when that value
    # reaches the edge of what was read (a first read of 512 bytes a side holds the masking's
    # reach, 256 characters past the run of key characters an edge falls in, when that run is
    # short, as JSON's are: ~1.1 KB read and decoded for every excerpt instead of ~8 KB)
    wide = 512
    while True:
        lo = max(0, start - wide)
        want = end - lo + wide
        data = _render_from(req, lo, want)
        a, b = reach(data.decode("latin-1"), start - lo, min(end - lo, len(data)))
        if (a > 0 or lo == 0) and (b < len(data) or len(data) < want):
            break
        wide *= 8
    # masking keeps the length, so the cut falls where it would have in the plain bytes
    data = masker().cut_bytes(data, start - lo, end - lo)
    head = data[: offset - start].decode("utf-8", "replace")
    tail = data[offset - start :].decode("utf-8", "replace")
    prefix = "…" if start > 0 else ""
    suffix = "…" if len(data) == offset - start + EXCERPT_AFTER else ""
    return f"{prefix}{head}⟨{tail}{suffix}"
