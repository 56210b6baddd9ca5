"""The structural explanation of a changed block: key order only, or the paths whose values
changed, as a reader writes them (``content[0].text: '…' -> '…'``), without DeepDiff for the
common changes (strings rewritten, list items added or removed)."""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from cachelint.payloads.diff.common import common_prefix_len, common_suffix_len
from cachelint.payloads.jsonio import dumps

MAX_EXPLANATIONS = 12


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
        ops = difflib.SequenceMatcher(
            None, [dumps(x) for x in old], [dumps(x) for x in new], autojunk=False
        ).get_opcodes()
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
DROPPED_THINKING = ("(thinking) removed", "(redacted_thinking) removed")
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
                lines.append(
                    f"{path}: {type(change.get('old_value')).__name__} -> {type(change.get('new_value')).__name__}"
                )
            else:
                lines.append(f"{path} {report.replace('_', ' ')}")
    return lines[:MAX_EXPLANATIONS]


def _short(value: Any, limit: int = 60) -> str:
    from cachelint.masking import masker

    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return masker().mask(text)
    # masked as a whole value, then cut: a cut could leave a key too short to recognise
    return masker().cut(text, 0, limit - 1) + "…"


def _text_change(old: str, new: str, context: int = 24) -> str:
    """The changed part of two strings with a little context: '…is 2026-11-28.' -> '…is 2026-11-29.'."""
    from cachelint.masking import masker

    start = common_prefix_len(old, new)
    end = min(common_suffix_len(old, new), min(len(old), len(new)) - start)
    lo = max(0, start - context)

    def cut(text: str) -> str:
        # the piece masked as in the whole text (see _short), reading only around its edges
        piece = masker().cut(text, lo, len(text) - end + min(end, context))
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
