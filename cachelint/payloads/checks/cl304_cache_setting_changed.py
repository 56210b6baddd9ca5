"""CL304 cache-setting-changed: a setting that is part of the cache key changed between two
consecutive requests (model, tool_choice, thinking, effort, web search, citations, speed, images,
response_format, prompt_cache_key…). Which tiers each change loses is dated data:
rules/packs/payloads-invalidation.yaml (reference/cache_facts.md §1.8, §2).

A setting whose row names another rule (``reported-by``: ``prompt_cache_key`` is CL312's
cache-key churn) is left to that rule, so that one change gives one finding; it still counts as a
break in the diff and the summary."""
from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.checks import CheckContext
from cachelint.payloads.checks._breaks import break_finding, first_lost_byte, lost_text, show
from cachelint.payloads.model import Request

PAIR_NEEDS_CHANGE = True  # reads diff.settings only: skipped on quiet pairs (checks/__init__.py)


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    if diff is None or not diff.settings:
        return ()
    rows = {}
    for pack in ctx.packs("payloads-invalidation"):
        rows.update(pack.get("providers", {}).get(cur.provider, {}))
    out = []
    for change in diff.settings:
        row = rows.get(change.name, {})
        if row.get("reported-by", "CL304") != "CL304":
            continue
        source = row.get("source", "")
        message = (
            f"{change.name} changed from {show(change.before)} to {show(change.after)}: "
            f"invalidates {lost_text(change.invalidates)} without a byte of them changing"
        )
        details = {
            "setting": change.name,
            "before": show(change.before, 400),
            "after": show(change.after, 400),
            "invalidated": list(change.invalidates),
            "source": source,
        }
        first = first_lost_byte(prev, diff, change.invalidates)  # or earlier, where bytes changed too
        out.append(break_finding("CL304", message, prev, cur, ctx, first, kind=change.name, details=details))
    return out
