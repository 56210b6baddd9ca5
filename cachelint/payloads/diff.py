"""The prefix diff of two consecutive requests of a session.

Bytes first: tiers are compared as tuples of canonical block bytes (cheap: identical blocks of
consecutive requests are usually the very same bytes object). Only a tier that differs is decoded and
explained structurally (deepdiff), so the work is proportional to what changed.

The first differing tier and the byte offset of the first differing byte in the rendered prefix
(tools, then system, then messages; offset 0 = first byte of the first tool) locate the break; a
changed cache-affecting setting invalidates tiers per the dated table in
rules/packs/payloads-invalidation.yaml.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

from cachelint.payloads.jsonio import dumps
from cachelint.payloads.model import TIERS, Block, PrefixDiff, Request, SettingChange, TierDiff

EXCERPT_BEFORE = 40
EXCERPT_AFTER = 80
MAX_EXPLANATIONS = 12


@dataclass(frozen=True)
class InvalidationTable:
    """provider -> setting -> {invalidates, derived-from, default, confirmed, reported-by, source}
    (merged packs)."""

    providers: Mapping[str, Mapping[str, Mapping[str, Any]]]
    _sorted: dict[str, tuple[tuple[str, Mapping[str, Any]], ...]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "InvalidationTable":
        merged: dict[str, dict[str, Mapping[str, Any]]] = {}
        for pack in packs:
            for provider, table in pack.get("providers", {}).items():
                merged.setdefault(provider, {}).update(table)
        return cls(merged)

    def settings_for(self, provider: str) -> Mapping[str, Mapping[str, Any]]:
        return self.providers.get(provider, {})

    def sorted_settings(self, provider: str) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        """(name, row) of a provider's settings in name order, sorted once per run."""
        if provider not in self._sorted:
            self._sorted[provider] = tuple(sorted(self.settings_for(provider).items()))
        return self._sorted[provider]


@dataclass(frozen=True)
class VolatilePatterns:
    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "VolatilePatterns":
        out: list[tuple[str, re.Pattern[str]]] = []
        for pack in packs:
            out += [(p["name"], re.compile(f"(?:{p['regex']})")) for p in pack.get("patterns", ())]
        return cls(tuple(out))

    def classify(self, fragment: str) -> str | None:
        for name, pattern in self.patterns:
            if pattern.fullmatch(fragment):
                return name
        return None


# --- the diff ---------------------------------------------------------------------------------


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
    setting_changes = _setting_changes(prev, cur, table, broken_tiers)
    lost: set[str] = set()
    if first_tier is not None:
        lost.update(TIERS[TIERS.index(first_tier):])
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


def common_prefix_blocks(a: Sequence[Block], b: Sequence[Block]) -> int:
    """How many leading blocks two tiers share (consecutive requests share Block objects, so the
    whole-tuple comparison usually answers at C speed)."""
    if len(a) <= len(b) and tuple(a) == tuple(b[: len(a)]):
        return len(a)
    n = 0
    for x, y in zip(a, b):
        if x.data is not y.data and x.data != y.data:
            break
        n += 1
    return n


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


def _sequence_diff(tier: str, a: Sequence[Block], b: Sequence[Block], first: int, volatile: VolatilePatterns) -> TierDiff:
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
        explanation.append(f"{unit} {first}{f' ({role})' if role and tier == 'messages' else ''} {label}" + (f": {'; '.join(paths[:4])}" if paths else ""))
        if tier == "messages" and paths and all(p.endswith(_DROPPED_THINKING) for p in paths):
            explanation.append(DROPPED_THINKING_HINT)
        changes.append({"change": what, "index": first, "paths": paths[:MAX_EXPLANATIONS]})
        if what != "key-order" and tier != "messages":
            vol = volatile_spans(a[first].data, b[first].data, volatile)
        if len(a) != len(b):
            explanation.append(f"{unit} count {len(a)} -> {len(b)}")
    return TierDiff(tier, kind, first, tuple(explanation[:MAX_EXPLANATIONS]), tuple(changes[:MAX_EXPLANATIONS]), vol)


def explain_block_change(before: Any, after: Any) -> tuple[str, list[str]]:
    """("key-order", [paths whose key order differs]) when the blocks are equal once keys are
    sorted, else ("changed", [deepdiff lines]) — the structural explanation of a changed block."""
    if _sorted_json(before) == _sorted_json(after):
        return "key-order", [readable_path(p) for p in _key_order_paths(before, after, "root")]
    flat = flat_text_changes(before, after)
    if flat is None:
        flat = list_item_changes(before, after)
    if flat is None:
        flat = deepdiff_lines(before, after)
    return "changed", [readable_path(line) for line in flat]


def list_item_changes(before: Any, after: Any) -> list[str] | None:
    """``content[0] (thinking) removed``: two objects with the same keys in the same order whose
    only differing values are lists that gained or lost whole items (a content block dropped, a
    tool result inserted). DeepDiff compares lists position by position and would report every
    later item as changed. None for any other kind of change."""
    if type(before) is not dict or type(after) is not dict or list(before) != list(after):
        return None
    import difflib

    lines: list[str] = []
    for key, old in before.items():
        new = after[key]
        if dumps(old) == dumps(new):
            continue
        if type(old) is not list or type(new) is not list or not _SIMPLE_KEY.match(key):
            return None
        ops = difflib.SequenceMatcher(None, [dumps(x) for x in old], [dumps(x) for x in new], autojunk=False).get_opcodes()
        for tag, i1, i2, j1, j2 in ops:
            if tag == "delete":
                lines += [f"{key}[{i}] ({_item_label(old[i])}) removed" for i in range(i1, i2)]
            elif tag == "insert":
                lines += [f"{key}[{j}] ({_item_label(new[j])}) added" for j in range(j1, j2)]
            elif tag != "equal":
                return None  # items replaced: DeepDiff says what changed inside them
    return lines[:MAX_EXPLANATIONS] or None


def _item_label(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("type", "role"):
            if isinstance(item.get(key), str):
                return item[key]
        return "object"
    return type(item).__name__


# A client that drops the thinking blocks of earlier assistant turns rewrites the history from
# there on; the API strips them itself where the model requires it (docs/background/prefix-and-invalidation.md#anthropic).
_DROPPED_THINKING = ("(thinking) removed", "(redacted_thinking) removed")
DROPPED_THINKING_HINT = (
    "the client dropped the thinking block(s) of an earlier assistant turn: send them back as they came "
    "(the API strips them itself where the model requires it)"
)


_PATH_STEP = re.compile(r"\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[0-9]+)\]")


def readable_path(line: str) -> str:
    """DeepDiff's ``root['content'][0]['text']: …`` as a reader writes it: ``content[0].text: …``
    (the whole block is ``(block)``). Only the leading path of the line is rewritten."""
    if not line.startswith("root"):
        return line
    pos, steps = 4, []
    while True:
        m = _PATH_STEP.match(line, pos)
        if m is None:
            break
        token = m.group(1)
        if token.isdigit():
            steps.append(f"[{token}]")
        else:
            key = token[1:-1]
            steps.append(("." if steps else "") + key if _SIMPLE_KEY.match(key) else f"[{token}]")
        pos = m.end()
    return ("".join(steps) or "(block)") + line[pos:]


_SIMPLE_KEY = re.compile(r"[A-Za-z0-9_]+\Z")  # a key DeepDiff writes as root['key']


def flat_text_changes(before: Any, after: Any) -> list[str] | None:
    """The lines ``deepdiff_lines`` gives, without DeepDiff (milliseconds a block), for the most
    common change: two objects with the same keys in the same order where only string values
    differ (a rewritten system prompt, a tool description with a date in it). None otherwise."""
    if type(before) is not dict or type(after) is not dict or list(before) != list(after):
        return None
    changed: list[tuple[str, str, str]] = []
    for key, old in before.items():
        new = after[key]
        if type(old) is str and type(new) is str:
            if old != new:
                if not _SIMPLE_KEY.match(key):
                    return None
                changed.append((f"root[{key!r}]", old, new))
        elif _sorted_json(old) != _sorted_json(new):  # JSON text tells 1, 1.0 and true apart
            return None  # another kind of change: DeepDiff explains it
    if not changed:
        return None
    return [f"{path}: {_text_change(old, new)}" for path, old, new in sorted(changed)][:MAX_EXPLANATIONS]


def deepdiff_lines(before: Any, after: Any) -> list[str]:
    """DeepDiff's report of two decoded blocks as sorted lines (``path: old -> new``)."""
    from deepdiff import DeepDiff

    try:
        dd = DeepDiff(before, after, verbose_level=1, max_diffs=200)
    except (RecursionError, ValueError, TypeError):
        return []
    lines: list[str] = []
    for report in sorted(dd):
        entries = dd[report]
        items = sorted(entries) if not isinstance(entries, Mapping) else sorted(entries)
        for path in items:
            if report == "values_changed":
                change = entries[path]
                old, new = change.get("old_value"), change.get("new_value")
                if isinstance(old, str) and isinstance(new, str):
                    lines.append(f"{path}: {_text_change(old, new)}")
                else:
                    lines.append(f"{path}: {_short(old)} -> {_short(new)}")
            elif report == "type_changes":
                change = entries[path]
                lines.append(f"{path}: {type(change.get('old_value')).__name__} -> {type(change.get('new_value')).__name__}")
            else:
                lines.append(f"{path} {report.replace('_', ' ')}")
    return lines[:MAX_EXPLANATIONS]


def _short(value: Any, limit: int = 60) -> str:
    from cachelint.masking import masker

    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    text = masker().mask(text)  # before the cut, which could leave a key too short to recognise
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text_change(old: str, new: str, context: int = 24) -> str:
    """The changed part of two strings with a little context: '…is 2026-11-28.' -> '…is 2026-11-29.'."""
    from cachelint.masking import masker

    old, new = masker().mask(old), masker().mask(new)  # before the cuts (see _short)
    start = _common_prefix_len(old, new)
    end = min(_common_prefix_len(old[::-1], new[::-1]), min(len(old), len(new)) - start)
    lo = max(0, start - context)

    def cut(text: str) -> str:
        piece = text[lo : len(text) - end + min(end, context)]
        return ("…" if lo else "") + piece + ("…" if end > context else "")

    return f"{_short(cut(old), 90)} -> {_short(cut(new), 90)} (from character {start})"


def _sorted_json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _key_order_paths(a: Any, b: Any, path: str) -> list[str]:
    out: list[str] = []
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            out.append(f"{path}: keys {list(a)[:6]} -> {list(b)[:6]}")
        for k in a:
            if k in b:
                out += _key_order_paths(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            out += _key_order_paths(x, y, f"{path}[{i}]")
    return out[:MAX_EXPLANATIONS]


# volatile spans (CL309) ---------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9_.:+\-/]")


def volatile_spans(before: bytes, after: bytes, patterns: VolatilePatterns) -> tuple[Mapping[str, Any], ...]:
    """Each changed span of the two blocks, widened to whole tokens and merged where they touch;
    returned only when every span looks volatile on both sides (so "Today is 2026-11-28" ->
    "2026-11-29" is volatile, a rewritten paragraph is not)."""
    a = before.decode("utf-8", "replace")
    b = after.decode("utf-8", "replace")
    # trim the common head and tail first: the matcher is quadratic, the changed middle is short
    head = _common_prefix_len(a, b)
    tail = min(_common_prefix_len(a[::-1], b[::-1]), min(len(a), len(b)) - head)
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if len(mid_a) > 2000 or len(mid_b) > 2000:
        return ()  # a large rewrite is content, not a value that ticks
    import difflib  # only where tools moved or a block changed: kept off the start-up path

    matcher = difflib.SequenceMatcher(a=mid_a, b=mid_b, autojunk=False)
    merged: list[list[int]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        i1, i2 = _widen(a, i1, i2)
        j1, j2 = _widen(b, j1, j2)
        if merged and (i1 <= merged[-1][1] or j1 <= merged[-1][3]):
            last = merged[-1]
            last[0], last[1] = min(last[0], i1), max(last[1], i2)
            last[2], last[3] = min(last[2], j1), max(last[3], j2)
        else:
            merged.append([i1, i2, j1, j2])
        if len(merged) > 8:
            return ()
    spans = []
    for i1, i2, j1, j2 in merged:
        old, new = a[i1:i2], b[j1:j2]
        name = _classify_pair(old, new, patterns)
        if name is None:
            return ()
        spans.append({"pattern": name, "before": _masked_head(old, 80), "after": _masked_head(new, 80)})
    return _dedupe(spans)


def _masked_head(text: str, limit: int) -> str:
    from cachelint.masking import masker

    return masker().mask(text)[:limit]


def _dedupe(spans: list[dict[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    out: list[dict[str, Any]] = []
    for s in spans:
        if s not in out:
            out.append(s)
    return tuple(out)


# A value that ticks (a date, an id, a counter) is short; the patterns (packs' and users' regular
# expressions) never see a longer token, whatever they would make of it.
MAX_VOLATILE_TOKEN = 256


def _classify_pair(old: str, new: str, patterns: VolatilePatterns) -> str | None:
    old_s, new_s = old.strip("\"' ,.;()[]{}"), new.strip("\"' ,.;()[]{}")
    if not old_s or not new_s or len(old_s) > MAX_VOLATILE_TOKEN or len(new_s) > MAX_VOLATILE_TOKEN:
        return None
    a, b = patterns.classify(old_s), patterns.classify(new_s)
    if a is not None and a == b:
        return a
    return None


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and _WORD.match(text[start - 1]):
        start -= 1
    while end < len(text) and _WORD.match(text[end]):
        end += 1
    # JSON escapes and trailing punctuation are not part of a value
    while end > start and text[end - 1] in ".:-/+":
        end -= 1
    while start < end and text[start] in ".:-/+":
        start += 1
    return start, end


# settings ------------------------------------------------------------------------------------


def _setting_changes(prev: Request, cur: Request, table: InvalidationTable, broken_tiers: set[str]) -> list[SettingChange]:
    if prev.settings == cur.settings and prev.provider == cur.provider:
        return []  # the common case, one C-level comparison: nothing can differ once normalised
    out: list[SettingChange] = []
    for name, row in table.sorted_settings(cur.provider):
        before = _normalise_setting(prev.settings.get(name), row)
        after = _normalise_setting(cur.settings.get(name), row)
        if before == after:
            continue
        derived = row.get("derived-from")
        if derived and derived in broken_tiers:
            continue  # the tier diff already says it (e.g. a web_search tool added)
        tiers = tuple(t for t in TIERS if t in row["invalidates"])
        out.append(SettingChange(name, before, after, tiers, row.get("confirmed", True) is not False))
    return out


def _normalise_setting(value: Any, row: Mapping[str, Any]) -> Any:
    if value is None or value is False and "default" not in row:
        return None
    if "default" in row and value == row["default"]:
        return None
    return value


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
        same = _common_prefix_len(a, b)
        if same < window or len(a) < window or len(b) < window:
            return start_b + same
        window *= 8


def _block_start(req: Request, tier: str, index: int) -> int:
    blocks = req.tier(tier)
    return blocks[index].offset if index < len(blocks) else req.tier_span(tier)[1]


def _render_from(req: Request, offset: int, length: int) -> bytes:
    """``length`` bytes of the rendered prefix starting at ``offset``."""
    out: list[bytes] = []
    need = length
    for tier in TIERS:
        for block in req.tier(tier):
            if block.end <= offset:
                continue
            lo = max(0, offset - block.offset)
            piece = block.data[lo : lo + need]
            out.append(piece)
            need -= len(piece)
            if need <= 0:
                return b"".join(out)
    return b"".join(out)


def _common_prefix_len(a, b) -> int:
    """Length of the common prefix of two strings or two byte strings: one comparison when one
    is a prefix of the other, else a binary search on slice equality (memcmp), never a Python
    loop over characters."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo

# How far past an excerpt's edges the request is read and masked first: a key that the edge cuts
# is recognised whole (a key is a few hundred characters at most).
_SECRET_CONTEXT = 512


def _excerpt(req: Request, offset: int) -> str:
    from cachelint.masking import mask_bytes

    start = max(0, offset - EXCERPT_BEFORE)
    wide = max(0, start - _SECRET_CONTEXT)
    # masking keeps the length, so the cut below falls where it would have in the plain bytes
    data = mask_bytes(_render_from(req, wide, offset - wide + EXCERPT_AFTER + _SECRET_CONTEXT))
    data = data[start - wide : offset - wide + EXCERPT_AFTER]
    head = data[: offset - start].decode("utf-8", "replace")
    tail = data[offset - start :].decode("utf-8", "replace")
    prefix = "…" if start > 0 else ""
    suffix = "…" if len(data) == offset - start + EXCERPT_AFTER else ""
    return f"{prefix}{head}⟨{tail}{suffix}"
