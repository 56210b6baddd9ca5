"""The audit as one self-contained HTML file: inline CSS, no script, no network, no external fonts.

Layout, for a report of many sessions: the summary (hit rate, money, what the cache misses cost,
findings by rule), filters by severity and rule (checkboxes and CSS ``:has()``, no script), then
one collapsible section a session — open when it has findings, the clean ones folded together
under one line. An open session shows its figures, a timeline — one bar per request, split into
tokens read / written / uncached (or an estimate when the response carried no usage), breaks
marked — and its findings with the byte diff each break carries in ``Diagnostic.details``.
Everything shown is escaped: a report holds captured prompts, and a prompt can hold
``</pre><script>``.

Input: the diagnostics and the audit's ``AuditSummary`` (its ``usage`` built by
``cachelint.payloads.spend``).
"""

from __future__ import annotations

import re
from html import escape
from typing import Any, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.causes import cause_key
from cachelint.report.coding_agents import render_html as render_coding_agents, thread_ids
from cachelint.report.audit_text import (
    CACHE_MISSES_MEAN,
    PREFIX_BREAKS_MEAN,
    detailed_findings,
    misses_cost,
    money,
)
from cachelint.report.common import name_of, severity_of

_CSS = """
:root { color-scheme: light; --read: #2e7d32; --written: #ef6c00; --uncached: #9e9e9e; --est: #cfd8dc;
        --brk: #c62828; --ink: #1b1f23; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa; --info: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       color: var(--ink); background: var(--bg); margin: 0 auto; max-width: 1200px; padding: 20px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
p.meta, .meta { color: var(--muted); }
p.meta { margin: 0 0 12px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 10px; margin: 8px 0 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: var(--soft); }
.card .k { color: var(--muted); font-size: 12px; } .card .v { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .x { color: var(--muted); font-size: 12px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid var(--line); padding: 3px 9px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.filters { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; margin: 8px 0 12px; }
.filters label { display: inline-block; margin: 2px 14px 2px 0; white-space: nowrap; cursor: pointer; }
.filters .group { display: inline-block; margin-right: 12px; color: var(--muted); font-size: 12px; }
details.session { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details.session > summary { cursor: pointer; padding: 6px 10px; display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
details.session[open] > summary { border-bottom: 1px solid var(--line); background: var(--soft); }
details.session > .body { padding: 4px 12px 10px; }
summary .sid { font-weight: 600; white-space: nowrap; } summary .file { overflow-wrap: anywhere; flex: 1 1 240px; }
summary .figs { color: var(--muted); font-variant-numeric: tabular-nums; } summary .count { color: var(--brk); font-weight: 600; }
details.clean { margin: 10px 0; } details.clean > summary { cursor: pointer; font-weight: 600; padding: 6px 0; }
p.facts { margin: 6px 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.legend span { display: inline-block; margin-right: 14px; color: var(--muted); font-size: 12px; }
.sw { display: inline-block; width: 12px; height: 12px; vertical-align: -2px; margin-right: 4px; border-radius: 2px; }
.timeline { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; background: var(--soft); margin: 6px 0; }
.row { display: grid; grid-template-columns: 60px minmax(0, 1fr) minmax(0, 300px); gap: 10px; align-items: center; min-height: 22px; }
.row > b { font-weight: normal; color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
.bar { display: flex; height: 14px; background: #fff; border: 1px solid var(--line); border-radius: 3px; overflow: hidden; }
.bar i { display: block; height: 100%; }
.bar .r { background: var(--read); } .bar .w { background: var(--written); }
.bar .u { background: var(--uncached); }
.bar .e { background: repeating-linear-gradient(45deg, var(--est), var(--est) 4px, #eceff1 4px, #eceff1 8px); }
.row.break .bar { border: 2px solid var(--brk); }
.row > small { font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.row.break > small { color: var(--brk); font-weight: 600; white-space: normal; }
mark { background: #fff3b0; color: inherit; }
.finding { border: 1px solid var(--line); border-left: 4px solid var(--info); border-radius: 4px; padding: 8px 12px; margin: 10px 0; }
.finding.error { border-left-color: var(--brk); } .finding.warning { border-left-color: var(--written); }
.finding .head { font-weight: 600; overflow-wrap: anywhere; } .finding .where { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.finding .cost { color: var(--brk); font-weight: 600; }
.finding.folded { padding: 2px 10px; margin: 2px 0; font-size: 12px; overflow-wrap: anywhere; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 4px 0;
      white-space: pre-wrap; word-break: break-all; max-height: 260px; overflow: auto; }
.diff { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 8px; }
.diff .before pre { background: #ffebe9; border-color: #ffcecb; } .diff .after pre { background: #dafbe1; border-color: #aceebb; }
.diff h4 { margin: 4px 0 0; font-size: 12px; color: var(--muted); }
.diff + .meta { font-size: 12px; margin: 0; }
dl.details { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 6px 0 0; }
dl.details dt { color: var(--muted); } dl.details dd { margin: 0; overflow-wrap: anywhere; }
.ok { color: var(--read); font-weight: 600; } .bad { color: var(--brk); font-weight: 600; }
footer { margin-top: 24px; border-top: 1px solid var(--line); padding-top: 8px; color: var(--muted); font-size: 12px; }
@media (max-width: 640px) {
  body { padding: 12px; }
  .row { grid-template-columns: 44px minmax(0, 1fr); }
  .row > small { grid-column: 1 / -1; margin: -2px 0 4px; }
  .diff { grid-template-columns: minmax(0, 1fr); }
  dl.details { grid-template-columns: minmax(0, 1fr); } dl.details dd { margin-bottom: 4px; }
}
"""

# Detail keys that hold the two sides of a byte diff (the previous and the current rendering).
_BEFORE_KEYS = ("excerpt_before", "before", "previous")
_AFTER_KEYS = ("excerpt_after", "after", "current")

# Details the diff and the message already show (its header names the byte; "what changed" says
# in words what "changes" lists as data).
_SAID_BY_THE_DIFF = ("tier", "first_tier", "byte_offset", "offset", "changes")

# What the details the checks attach mean, in words (the keys are the JSON output's).
DETAIL_LABELS = {
    "tier": "tier",
    "first_tier": "first tier that differs",
    "byte_offset": "first differing byte",
    "offset": "first differing byte",
    "explanation": "what changed",
    "changes": "changes",
    "invalidated": "tiers invalidated",
    "cached_end": "end of the cached prefix (byte)",
    "cached_lost": "cached tokens lost",
    "gap_seconds": "seconds since the previous request",
    "tokens": "tokens",
    "tokens_basis": "tokens counted from",
    "tokens_written": "tokens written to the cache",
    "tokens_uncached": "tokens uncached",
    "block": "block",
    "minimum": "minimum cacheable tokens",
    "source": "source",
    "breakpoints": "breakpoints",
    "limit": "limit",
    "expected_read": "tokens expected from the cache",
    "read": "tokens read from the cache",
    "written": "tokens written to the cache",
    "missed": "tokens not read",
    "previous_record": "previous request (record)",
    "hint": "hint",
    "volatile": "volatile values",
    "confirmed": "effect on the cache documented",
    "records": "records",
    "automatic_ttl": "automatic breakpoint TTL",
    "explicit_ttl": "explicit breakpoint TTL",
    "ttl": "TTL",
    "ttl_seconds": "TTL (seconds)",
    "provider_reason": "provider's reason",
    "estimated_tokens": "tokens (estimate)",
    "shared_tokens": "tokens shared",
    "requests_in_window": "requests in the window",
    "limit_per_minute": "limit per minute",
    "lookback_blocks": "blocks looked back",
    "first_message": "first message",
    "previous_entries": "previous entries",
    "key": "key",
    "setting": "setting",
    "model": "model",
    "repeats": "repeated text",
    "chars": "characters",
    "starts": "starts with",
}


def label(key: str) -> str:
    return DETAIL_LABELS.get(key, key.replace("_", " "))


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return _e(value)


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def _slug(code: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", code)


def _usage_of(summary: Any) -> Mapping[str, Any]:
    usage = getattr(summary, "usage", None)
    if isinstance(usage, Mapping):
        return usage
    return {}


def _card(key: str, value: str, extra: str = "") -> str:
    return (
        f"<div class='card'><div class='k'>{_e(key)}</div><div class='v'>{value}</div>"
        + (f"<div class='x'>{extra}</div>" if extra else "")
        + "</div>"
    )


def _summary_section(diagnostics: Sequence[Diagnostic], summary: Any, usage: Mapping[str, Any]) -> str:
    total = usage.get("total") or {}
    cur = usage.get("currency", "USD")
    cards = []
    if total:
        tokens = total.get("tokens") or {}
        cards.append(
            _card(
                "cache hit rate",
                _pct(total.get("hit_rate")),
                f"{_num(tokens.get('read'))} of {_num(tokens.get('prompt'))} prompt tokens read from the cache",
            )
        )
        cards.append(
            _card(
                "prompt cost",
                _e(money(total.get("money"), cur)),
                f"{_e(money(total.get('money_without_cache'), cur))} without any cache",
            )
        )
        cards.append(
            _card("money the misses cost", _e(money(total.get("break_money"), cur)), _e(misses_cost(total, cur)))
        )
        if total.get("ttl_saving") is not None:
            cards.append(_card("a 1h TTL would have saved", _e(money(total.get("ttl_saving"), cur))))
    by_sev: dict[str, int] = {}
    for d in diagnostics:
        by_sev[severity_of(d).value] = by_sev.get(severity_of(d).value, 0) + 1
    cards.append(
        _card(
            "findings",
            _num(len(diagnostics)),
            ", ".join(_plural(n, sev) for sev, n in sorted(by_sev.items())) or "none",
        )
    )
    rows: list[tuple[str, str]] = []
    if total:
        tokens = total.get("tokens") or {}
        rows = [
            ("sessions", _num(total.get("sessions"))),
            (
                "requests (with usage in the response)",
                f"{_num(total.get('requests'))} ({_num(total.get('requests_with_usage'))})",
            ),
            (
                "tokens read from the cache / written to it / uncached",
                f"{_num(tokens.get('read'))} / {_num(tokens.get('written'))} / {_num(tokens.get('uncached'))}",
            ),
            ("provider cache verdicts that disagree with our diff", _num(total.get("disagreements"))),
        ]
    breaks = getattr(summary, "breaks", 0)
    if breaks:
        rows.append((f"prefix breaks: each {PREFIX_BREAKS_MEAN}", _num(breaks)))
    if total.get("breaks"):
        rows.append((f"cache misses: each {CACHE_MISSES_MEAN}", _num(total.get("breaks"))))
        if total.get("provider_misses"):
            rows.append(
                (
                    "of them, with the prefix intact: the provider's side (routing, eviction, a key's rate)",
                    _num(total.get("provider_misses")),
                )
            )
    skipped = getattr(summary, "skipped_non_llm", 0)
    failed = getattr(summary, "failed", 0)
    if skipped:
        rows.append(("records that are not LLM calls (skipped)", _num(skipped)))
    if failed:
        rows.append(("requests answered with an HTTP error (left out)", _num(failed)))
    unread = getattr(summary, "unread", {}) or {}
    for shape, n in unread.items():
        rows.append((f"not read: {shape}", _num(n)))
    if getattr(summary, "baselined", 0):
        rows.append(("findings accepted in the baseline (not shown)", _num(summary.baselined)))
    table = (
        "<div class='scroll'><table>"
        + "".join(f"<tr><th scope='row'>{_e(k)}</th><td class='num'>{v}</td></tr>" for k, v in rows)
        + "</table></div>"
        if rows
        else ""
    )
    return f"<h2 id='summary'>Summary</h2><div class='cards'>{''.join(cards)}</div>{table}"


def _filters(diagnostics: Sequence[Diagnostic]) -> tuple[str, str]:
    """Checkboxes that hide findings by severity and by rule, and the CSS that makes them work
    (``:has()``: no script, which the report's Content-Security-Policy forbids)."""
    if not diagnostics:
        return "", ""
    sev_counts: dict[str, int] = {}
    rule_counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for d in diagnostics:
        sev_counts[severity_of(d).value] = sev_counts.get(severity_of(d).value, 0) + 1
        rule_counts[d.code] = rule_counts.get(d.code, 0) + 1
        names[d.code] = name_of(d)
    boxes = ["<span class='group'>severity</span>"]
    css = []
    for sev in ("error", "warning", "info"):
        if sev in sev_counts:
            boxes.append(f"<label><input type='checkbox' id='show-{sev}' checked> {sev} ({sev_counts[sev]:,})</label>")
            css.append(f"body:has(#show-{sev}:not(:checked)) .finding.{sev} {{ display: none; }}")
    boxes.append("<br><span class='group'>rule</span>")
    for code in sorted(rule_counts):
        slug = _slug(code)
        boxes.append(
            f"<label><input type='checkbox' id='show-{slug}' checked> <code>{_e(code)}</code> {_e(names[code])} ({rule_counts[code]:,})</label>"
        )
        css.append(f"body:has(#show-{slug}:not(:checked)) .finding.r-{slug} {{ display: none; }}")
    html = "<div class='filters' role='group' aria-label='show findings'>" + "".join(boxes) + "</div>"
    return html, "\n".join(css)


def _bar(entry: Mapping[str, Any], scale: int) -> str:
    parts = []
    if entry.get("read") is None:
        est = entry.get("estimated_prompt") or 0
        width = 100.0 * est / scale if scale else 0
        parts.append(f"<i class='e' style='width:{width:.1f}%'></i>")
    else:
        # the figures are in the row's note: a title per span would double a report of 10,000
        # requests (about 460 bytes a row with them and the longer markup, 200 without)
        for key in ("read", "written", "uncached"):
            value = entry.get(key) or 0
            width = 100.0 * value / scale if scale else 0
            parts.append(f"<i class='{key[0]}' style='width:{width:.1f}%'></i>")
    return f"<div class='bar'>{''.join(parts)}</div>"


_LEGEND = (
    "<p class='legend'><span><i class='sw' style='background:var(--read)'></i>read from the cache</span>"
    "<span><i class='sw' style='background:var(--written)'></i>written to the cache</span>"
    "<span><i class='sw' style='background:var(--uncached)'></i>uncached</span>"
    "<span><i class='sw' style='background:var(--est)'></i>no usage: size estimated</span>"
    "<span><i class='sw' style='border:2px solid var(--brk)'></i>a finding that cost cache reads</span></p>"
)


def _timeline(session: Mapping[str, Any]) -> str:
    entries = session.get("timeline") or []
    if not entries:
        return ""

    def size(e: Mapping[str, Any]) -> int:
        if e.get("read") is None:
            return int(e.get("estimated_prompt") or 0)
        return int((e.get("read") or 0) + (e.get("written") or 0) + (e.get("uncached") or 0))

    scale = max((size(e) for e in entries), default=0) or 1
    rows = []
    for e in entries:
        brk = e.get("break") or []
        if e.get("read") is None:
            note = f"~{size(e):,} tokens (estimate)"
        else:
            note = (
                f"read {e.get('read') or 0:,} · written {e.get('written') or 0:,} · uncached {e.get('uncached') or 0:,}"
            )
        if brk:
            note = ", ".join(brk) + " · " + note
        rows.append(
            f"<div class='row{' break' if brk else ''}'><b>#{_e(e.get('record'))}</b>"
            f"{_bar(e, scale)}<small>{_e(note)}</small></div>"
        )
    return f"<div class='timeline' title='requests in order (#record)'>{''.join(rows)}</div>"


def _session_stats(session: Any, usage: Mapping[str, Any] | None, currency: str) -> str:
    """Two or three lines of the session's figures (a table a session made a report of fifty
    sessions tens of thousands of pixels tall)."""
    facts = [f"{session.provider} / {session.model or 'model n/a'}"]
    lines = []
    if usage:
        tokens = usage.get("tokens") or {}
        facts += [
            f"{_plural(int(usage.get('requests') or 0), 'request')} ({usage.get('requests_with_usage')} with usage)",
            f"hit rate {_pct(usage.get('hit_rate'))}",
            f"tokens read / written / uncached {tokens.get('read', 0):,} / {tokens.get('written', 0):,} / {tokens.get('uncached', 0):,}",
            f"prompt cost {money(usage.get('money'), currency)} (without cache {money(usage.get('money_without_cache'), currency)})",
        ]
        if usage.get("breaks"):
            lines.append(misses_cost(usage, currency))
        advice = usage.get("ttl_advice")
        if advice:
            lines.append(
                f"TTL evidence: {len(advice.get('pauses', []))} pauses past 5 minutes rewrote {advice.get('tokens_rewritten', 0):,} tokens;"
                f" a 1h TTL would have {'saved' if advice.get('pays') else 'cost more than it saved:'}"
                f" {money(abs(advice['saving']) if advice.get('saving') is not None else None, currency)} ({advice.get('basis')})"
            )
    else:
        facts.append(_plural(session.requests, "request"))
    if session.breaks:
        facts.append(_plural(session.breaks, "prefix break"))
    origin = f"first request {session.first} · grouped by {session.grouping_text}"
    return "<p class='facts'>" + "<br>".join(_e(x) for x in [" · ".join(facts), *lines, origin]) + "</p>"


def _verdicts(usage: Mapping[str, Any] | None) -> str:
    verdicts = (usage or {}).get("provider_verdicts") or []
    if not verdicts:
        return ""
    rows = []
    for v in verdicts:
        agrees = v.get("agrees")
        mark = (
            "<span class='ok'>agree</span>"
            if agrees
            else ("<span class='bad'>disagree</span>" if agrees is False else "n/a")
        )
        ours = v.get("our_first_tier") or ", ".join(v.get("our_settings") or []) or "prefix intact"
        rows.append(
            f"<tr><td class='num'>#{_e(v.get('record'))}</td><td><code>{_e(v.get('provider_reason'))}</code></td>"
            f"<td>{_e(ours)}</td><td>{mark}</td></tr>"
        )
    return (
        "<h3>The provider's cache diagnostics beside our diff</h3><div class='scroll'><table><tr><th>record</th><th>provider says</th>"
        f"<th>our diff says</th><th></th></tr>{''.join(rows)}</table></div>"
    )


def _detail_value(value: Any) -> str:
    if isinstance(value, str):
        return f"<pre>{_e(value)}</pre>" if ("\n" in value or len(value) > 80) else f"<code>{_e(value)}</code>"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        inner = "".join(f"<dt>{_e(label(str(k)))}</dt><dd>{_detail_value(value[k])}</dd>" for k in value)
        return f"<dl class='details'>{inner}</dl>"
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (str, int, float, bool)) or v is None for v in value):
            return _e(", ".join(str(v) for v in value))
        return "".join(f"<div>{_detail_value(v)}</div>" for v in value)
    return _num(value)


def _marked(text: str | None) -> str:
    """Escaped excerpt; the part from the divergence marker (U+27E8, set by the prefix diff) on is
    highlighted."""
    if text is None:
        return ""
    head, sep, tail = text.partition("\u27e8")
    if not sep:
        return _e(text)
    return f"{_e(head)}<mark title='first byte that differs'>{_e(tail)}</mark>"


def _finding(d: Diagnostic, cost: Mapping[str, Any] | None = None, currency: str = "USD") -> str:
    details = dict(d.details or {})
    before = next((details.pop(k) for k in _BEFORE_KEYS if isinstance(details.get(k), str)), None)
    after = next((details.pop(k) for k in _AFTER_KEYS if isinstance(details.get(k), str)), None)
    diff = ""
    if before is not None or after is not None:
        offset = details.get("byte_offset", details.get("offset"))
        where = f" at byte {_e(offset)}" if offset is not None else ""
        diff = (
            f"<div class='diff'><div class='before'><h4>previous request{where}</h4><pre>{_marked(before)}</pre></div>"
            f"<div class='after'><h4>this request</h4><pre>{_marked(after)}</pre></div></div>"
            "<p class='meta'>Highlighted from the first byte that differs from the previous request.</p>"
        )
        for key in _SAID_BY_THE_DIFF:
            details.pop(key, None)
    rest = "".join(f"<dt>{_e(label(k))}</dt><dd>{_detail_value(details[k])}</dd>" for k in details)
    where = f"{d.path}:{d.line}"
    if d.record is not None:
        where += f" · record {d.record}"
    if d.kind:
        where += f" · {d.kind}"
    sev = severity_of(d).value
    paid = ""
    if cost and cost.get("money") is not None:
        tokens = cost.get("tokens") or 0
        lost = f"{tokens:,} tokens" if tokens else "no cached tokens lost"
        paid = f" · <span class='cost'>this break cost {_e(money(cost['money'], currency))}</span> ({_e(cost.get('basis'))}, {lost})"
    help_line = (
        f"<div class='where'>How to fix it: <code>cachelint rule {_e(d.code)}</code></div>" if d.fix is None else ""
    )
    return (
        f"<div class='finding {sev} r-{_slug(d.code)}'><div class='head'><code>{_e(d.code)}</code> {_e(name_of(d))}: {_e(d.message)}</div>"
        f"<div class='where'>{_e(sev)} · {_e(where)}{paid}</div>{diff}"
        + (f"<dl class='details'>{rest}</dl>" if rest else "")
        + help_line
        + "</div>"
    )


def _causes_section(summary: Any, currency: str) -> str:
    """The causes, the costliest first: a table row each (rule, kind and tier, findings, sessions,
    money, its first finding)."""
    causes = list(getattr(summary, "causes", []) or [])
    if not causes:
        return ""
    rows = []
    for i, c in enumerate(causes, 1):
        what = " ".join(x for x in (c.kind, f"in {c.tier}" if c.tier else None) if x)
        if c.money is not None:
            cost = _e(money(c.money, currency))
        else:
            cost = "unknown (no price for the model)" if c.unpriced else ""
        first = f"#session-{c.sessions[0]}" if c.sessions else ""
        example = f"<a href='{_e(first)}'>{_e(c.example)}</a>" if first else _e(c.example)
        lost = f" ({c.findings - c.lost:,} lost nothing cached)" if c.lost < c.findings else ""
        rows.append(
            f"<tr id='cause-{i}'><td class='num'>{i}</td><td><code>{_e(c.code)}</code> {_e(name_of(Diagnostic(c.code, c.message, c.example)))}"
            f"<div class='meta'>{_e(what)}</div></td><td class='num'>{c.findings:,}{_e(lost)}</td>"
            f"<td class='num'>{len(c.sessions):,}</td><td class='num'>{cost}</td>"
            f"<td>{example}: {_e(c.message[:300])}</td></tr>"
        )
    return (
        f"<h2 id='causes'>Causes ({len(causes):,}), the costliest first</h2>"
        "<p class='meta'>Findings of one rule, kind and tier are one cause whatever the session: fix it once. Each"
        " session below shows the first findings of each cause in full, the others in one line.</p>"
        "<div class='scroll'><table><tr><th>#</th><th>rule</th><th>findings</th><th>sessions</th><th>cost</th>"
        "<th>first finding</th></tr>" + "".join(rows) + "</table></div>"
    )


def _folded(found: Sequence[Diagnostic]) -> str:
    """Findings of causes already shown in full, one line a cause: its rule and the records."""
    by_cause: dict[tuple[str, str, str], list[Diagnostic]] = {}
    for d in found:
        by_cause.setdefault(cause_key(d), []).append(d)
    lines = []
    for (code, kind, tier), ds in by_cause.items():
        sev = severity_of(ds[0]).value
        what = " ".join(x for x in (kind, f"in {tier}" if tier else None) if x)
        where = ", ".join(f"{d.path}:{d.line}" if d.record is None else f"#{d.record}" for d in ds)
        lines.append(
            f"<div class='finding folded {sev} r-{_slug(code)}'>{len(ds):,} more <code>{_e(code)}</code>"
            f" {_e(name_of(ds[0]))}{f' ({_e(what)})' if what else ''} at {_e(where)}</div>"
        )
    return "".join(lines)


def _session_block(
    session: Any,
    found: Sequence[Diagnostic],
    usage: Mapping[str, Any] | None,
    currency: str,
    detailed: set[int] | None = None,
) -> str:
    sid = str(session.id)
    shown_id = str(getattr(session, "label", sid))
    path = str(session.path or "")
    costs = {b.get("record"): b.get("cost") for b in (usage or {}).get("breaks") or [] if isinstance(b, Mapping)}
    figures = [_plural(session.requests, "request")]
    if usage:
        figures.append(f"hit rate {_pct(usage.get('hit_rate'))}")
        figures.append(money(usage.get("money"), currency))
    count = (
        f"<span class='count'>{_plural(len(found), 'finding')}</span>"
        if found
        else "<span class='ok'>no finding</span>"
    )
    summary_line = (
        f"<summary><span class='sid'>session {_e(shown_id)}</span><span class='file' title='{_e(path)}'>{_e(path.rsplit('/', 1)[-1])}</span>"
        f"<span class='figs'>{_e(' · '.join(figures))}</span>{count}</summary>"
    )
    body = (
        _session_stats(session, usage, currency)
        + _timeline(usage or {})
        + _verdicts(usage)
        + (
            f"<h3>Findings ({len(found)})</h3>"
            + "".join(
                _finding(d, costs.get(d.record), currency) for d in found if detailed is None or id(d) in detailed
            )
            + _folded([d for d in found if detailed is not None and id(d) not in detailed])
            if found
            else ""
        )
    )
    # open when it shows a finding in full: a thousand sessions of one cause open at once is a
    # page that takes seconds to lay out
    flagged = " open" if any(detailed is None or id(d) in detailed for d in found) else ""
    return f"<details class='session' id='session-{_e(sid)}'{flagged}>{summary_line}<div class='body'>{body}</div></details>"


# Sessions without findings shown one by one: past this many the page lists the first ones and
# counts the rest (a browser lays out a page of a million sessions in minutes, if at all, and the
# report would hold them all in memory); the JSON report has every session.
CLEAN_SESSIONS_SHOWN = 1000


def _sessions_shown(summary: Any, diagnostics: Sequence[Diagnostic], agent_threads) -> tuple[list, list, int]:
    """The sessions with findings (all of them), the first ``CLEAN_SESSIONS_SHOWN`` without, and
    how many sessions there are, read in one pass over the summary's sessions."""
    wanted = {d.session for d in diagnostics if d.session is not None and d.session not in agent_threads}
    flagged: list[Any] = []
    clean: list[Any] = []
    total = 0
    for s in getattr(summary, "sessions", []) or []:
        total += 1
        if str(s.id) in wanted:
            flagged.append(s)
        elif len(clean) < CLEAN_SESSIONS_SHOWN:
            clean.append(s)
    return flagged, clean, total


def render_html(diagnostics: Sequence[Diagnostic], summary: Any) -> str:
    """One self-contained HTML document (no script: readable with JavaScript off)."""
    usage = _usage_of(summary)
    currency = usage.get("currency", "USD")
    agents = getattr(summary, "coding_agents", None)
    agent_threads = thread_ids(agents)
    flagged, clean, total = _sessions_shown(summary, diagnostics, agent_threads)
    known = {str(s.id) for s in flagged}
    shown = known | {str(s.id) for s in clean}
    # one pass over the usage entries (a log's million sessions are read back from a file, never
    # held), keeping those of the sessions shown
    usage_by_id = {
        str(u.get("id")): u for u in usage.get("sessions") or [] if isinstance(u, Mapping) and str(u.get("id")) in shown
    }
    by_session: dict[str, list[Diagnostic]] = {}
    loose: list[Diagnostic] = []
    for d in diagnostics:
        if d.session is not None and d.session in agent_threads:
            continue  # in the coding-agent section
        if d.session is not None and d.session in known:
            by_session.setdefault(d.session, []).append(d)
        else:
            loose.append(d)
    filters, filter_css = _filters(diagnostics)
    detailed = detailed_findings(diagnostics)
    parts = [_summary_section(diagnostics, summary, usage)]
    if len(diagnostics) > 1:
        parts.append(_causes_section(summary, currency))
    parts.append(filters)
    if loose:
        parts.append(
            f"<h2 id='other'>Findings outside a session ({len(loose)})</h2>"
            + "".join(_finding(d) for d in loose if id(d) in detailed)
            + _folded([d for d in loose if id(d) not in detailed])
        )
    if total:
        parts.append(
            f"<h2 id='sessions'>Sessions ({total:,})</h2>"
            f"<p class='meta'>{_plural(len(flagged), 'session')} with findings, open below; each line opens or closes its"
            " session. In a session, one bar a request (#record, in order):</p>" + _LEGEND
        )
    for s in flagged:
        parts.append(_session_block(s, by_session[str(s.id)], usage_by_id.get(str(s.id)), currency, detailed))
    if clean:
        inner = "".join(_session_block(s, [], usage_by_id.get(str(s.id)), currency) for s in clean)
        without = total - len(flagged)
        more = (
            f"<p class='meta'>The first {len(clean):,} shown; the {without - len(clean):,} others are in the JSON"
            " report (<code>--output-format json</code>).</p>"
            if without > len(clean)
            else ""
        )
        parts.append(
            f"<details class='clean'><summary>{_plural(without, 'session')} without findings</summary>{more}{inner}</details>"
        )
    if agents:
        parts.append(render_coding_agents(agents, diagnostics))
    footer = ""
    if usage.get("prices_as_of"):
        footer = (
            f"<footer>Money at cachelint's price table of {_e(usage['prices_as_of'])} ({_e(currency)} per million tokens,"
            " as the providers list them); a break's cost is what the tokens it lost were paid again minus what reading them"
            " would have cost. Your own prices: a prices pack in the <code>packs</code> setting.</footer>"
        )
    files = getattr(summary, "files", 0)
    requests = getattr(summary, "requests", 0)
    title = "cachelint audit report"
    head = (
        f"{_plural(len(diagnostics), 'finding')} in {_plural(total, 'session')};"
        f" {_plural(requests, 'LLM request')} read from {_plural(files, 'file')}."
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{title}</title><style>{_CSS}{filter_css}</style></head><body>"
        f"<h1>{title}</h1><p class='meta'>{_e(head)}</p>" + "".join(parts) + footer + "</body></html>\n"
    )
