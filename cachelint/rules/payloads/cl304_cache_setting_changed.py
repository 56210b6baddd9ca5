"""CL304 cache-setting-changed: a setting that is part of the cache key changed between two
consecutive requests (model, tool_choice, thinking, effort, web search, citations, speed, images,
response_format, prompt_cache_key…). Which tiers each change loses is dated data:
rules/packs/payloads-invalidation.yaml (docs/background/prefix-and-invalidation.md#anthropic, docs/background/prefix-and-invalidation.md#openai).

A setting whose row names another rule (``reported-by``: ``prompt_cache_key`` is CL312's
cache-key churn) is left to that rule, so that one change gives one finding; it still counts as a
break in the diff and the summary.

A setting whose effect on the cache is undocumented (``confirmed: false``: the set of
``anthropic-beta`` headers, ``context_management``, ``output_format``, which Anthropic's cache
diagnostics list as prompt-affecting, docs/background/usage-and-pricing.md#cache-diagnostics) is reported as information: it is not a
break, and CL308 names it as the likely cause when the response then reads less than expected."""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.payloads.context import CheckContext, at_request
from cachelint.payloads.breaks import break_finding, first_lost_byte, lost_text, show
from cachelint.payloads.model import Request
from cachelint.rules.declarations import PayloadRule

CODE = "CL304"


def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]:
    diff = ctx.diff
    if diff is None or not diff.settings:
        return ()
    rows = ctx.setting_rows(cur.provider)
    out = []
    for change in diff.settings:
        row = rows.get(change.name, {})
        if row.get("reported-by", CODE) != CODE:
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
        if not change.confirmed:
            details["confirmed"] = False
            # the unconfirmed rows of Anthropic's API are those its cache diagnostics list; another
            # provider's (OpenAI's reasoning effort) are undocumented, full stop
            why = (
                "Anthropic's cache diagnostics count it as prompt-affecting, but its"
                if cur.provider == "anthropic"
                else "its"
            )
            message = (
                f"{change.name} changed from {show(change.before)} to {show(change.after)}: {why} effect on the"
                f" cache is not documented; it may invalidate {lost_text(change.invalidates)} (not counted as a"
                " break: this response's cache reads tell, and CL308 names this change when they fall short)"
            )
            out.append(at_request(CODE, message, cur, kind=change.name, details=details, severity=Severity.INFO))
            continue
        first = first_lost_byte(prev, diff, change.invalidates)  # or earlier, where bytes changed too
        out.append(break_finding(CODE, message, prev, cur, ctx, first, kind=change.name, details=details))
    return out


RULE = PayloadRule(
    CODE,
    fidelity="content",  # judges the prompt's content: runs on content-level logs too
    pair_needs_change=True,  # reads diff.settings only: skipped on quiet pairs
    reports_prefix_break=True,
    reports_lost_cache=True,
    check_pair=check_pair,
)
