"""The audit as one self-contained HTML file: inline CSS, no script, no network, no external fonts.

Sections: a summary table (sessions, requests, hit rate, tokens, money, breaks), then per session
a timeline — one bar per request, split into tokens read / written / uncached (or an estimate
when the response carried no usage), breaks marked — and the findings of that session with the
byte diff each break carries in ``Diagnostic.details``. Everything shown is escaped: a report
holds captured prompts, and a prompt can hold ``</pre><script>``.

Input: the diagnostics and the audit's plain-data summary. The usage part of the summary (built
by ``cachelint.payloads.spend``) sits under ``summary["usage"]``; a summary that is itself such a
usage summary (has ``sessions`` with ``timeline``) works too.
"""
from __future__ import annotations

from html import escape
from typing import Any, Iterable, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.report.common import name_of, severity_of

_CSS = """
:root { color-scheme: light; --read: #2e7d32; --written: #ef6c00; --uncached: #9e9e9e; --est: #cfd8dc;
        --brk: #c62828; --ink: #1b1f23; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       color: var(--ink); background: var(--bg); margin: 0 auto; max-width: 1200px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.meta { color: var(--muted); margin: 0 0 16px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.legend span { display: inline-block; margin-right: 16px; color: var(--muted); }
.sw { display: inline-block; width: 12px; height: 12px; vertical-align: -2px; margin-right: 4px; border-radius: 2px; }
.timeline { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: var(--soft); }
.row { display: grid; grid-template-columns: 70px 1fr 300px; gap: 10px; align-items: center; min-height: 22px; }
.row .label { color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
.bar { display: flex; height: 14px; background: #fff; border: 1px solid var(--line); border-radius: 3px; overflow: hidden; }
.bar span { display: block; height: 100%; }
.bar .read { background: var(--read); } .bar .written { background: var(--written); }
.bar .uncached { background: var(--uncached); }
.bar .est { background: repeating-linear-gradient(45deg, var(--est), var(--est) 4px, #eceff1 4px, #eceff1 8px); }
.row.break .bar { border: 2px solid var(--brk); }
.row .note { font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.row.break .note { color: var(--brk); font-weight: 600; white-space: normal; }
mark { background: #fff3b0; color: inherit; }
.cost { color: var(--brk); font-weight: 600; }
.finding { border: 1px solid var(--line); border-left: 4px solid var(--uncached); border-radius: 4px; padding: 8px 12px; margin: 10px 0; }
.finding.error { border-left-color: var(--brk); } .finding.warning { border-left-color: var(--written); }
.finding .head { font-weight: 600; } .finding .where { color: var(--muted); font-size: 12px; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 4px 0;
      white-space: pre-wrap; word-break: break-all; max-height: 260px; overflow: auto; }
.diff { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.diff .before pre { background: #ffebe9; border-color: #ffcecb; } .diff .after pre { background: #dafbe1; border-color: #aceebb; }
.diff h4 { margin: 4px 0 0; font-size: 12px; color: var(--muted); }
dl.details { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0 0; }
dl.details dt { color: var(--muted); } dl.details dd { margin: 0; }
.ok { color: var(--read); font-weight: 600; } .bad { color: var(--brk); font-weight: 600; }
table.sessions tr.flag td:last-child { color: var(--brk); font-weight: 600; }
"""

# Detail keys that hold the two sides of a byte diff (the previous and the current rendering).
_BEFORE_KEYS = ("excerpt_before", "before", "previous")
_AFTER_KEYS = ("excerpt_after", "after", "current")


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:,.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return _e(value)


def _money(value: Any, currency: str) -> str:
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    unit = "$" if currency == "USD" else f"{currency} "
    return f"{sign}{unit}{abs(value):,.4f}"


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _usage_of(summary: Any) -> Mapping[str, Any]:
    usage = getattr(summary, "usage", None)
    if isinstance(usage, Mapping):
        return usage
    if not isinstance(summary, Mapping):
        return {}
    if isinstance(summary.get("sessions"), list) and any(isinstance(s, Mapping) and "timeline" in s for s in summary["sessions"]):
        return summary
    return {}


def _table(rows: Iterable[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th scope='row'>{_e(k)}</th><td class='num'>{v}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _summary_section(diagnostics: Sequence[Diagnostic], usage: Mapping[str, Any]) -> str:
    total = usage.get("total") or {}
    cur = usage.get("currency", "USD")
    rows: list[tuple[str, str]] = [("findings", _num(len(diagnostics)))]
    if total:
        tokens = total.get("tokens") or {}
        est = " (estimate)" if total.get("break_money_estimated") else ""
        rows += [
            ("sessions", _num(total.get("sessions"))),
            ("requests", _num(total.get("requests"))),
            ("requests with usage", _num(total.get("requests_with_usage"))),
            ("cache hit rate", _pct(total.get("hit_rate"))),
            ("tokens read from cache", _num(tokens.get("read"))),
            ("tokens written to cache", _num(tokens.get("written"))),
            ("tokens uncached", _num(tokens.get("uncached"))),
            ("prompt cost", _money(total.get("money"), cur)),
            ("prompt cost without any cache", _money(total.get("money_without_cache"), cur)),
            ("cache misses found (requests with a finding that cost reads)", _num(total.get("breaks"))),
            ("money the misses cost", _e(_money(total.get("break_money"), cur) + est)),
            ("provider verdicts that disagree with our diff", _num(total.get("disagreements"))),
        ]
        if total.get("ttl_saving") is not None:
            rows.append(("a 1h TTL would have saved", _money(total.get("ttl_saving"), cur)))
    counts: dict[str, int] = {}
    for d in diagnostics:
        counts[d.code] = counts.get(d.code, 0) + 1
    by_code = "".join(
        f"<tr><td><code>{_e(code)}</code></td><td>{_e(name_of(_first(diagnostics, code)))}</td><td class='num'>{n}</td></tr>"
        for code, n in sorted(counts.items())
    )
    dated = ""
    if usage.get("prices_as_of"):
        dated = f"<p class='meta'>Money at the price table dated {_e(usage['prices_as_of'])} ({_e(cur)}, per the packs in rules/packs).</p>"
    codes_table = f"<table><tr><th>code</th><th>rule</th><th>findings</th></tr>{by_code}</table>" if by_code else ""
    return f"<h2 id='summary'>Summary</h2>{dated}{_table(rows)}{codes_table}"


def _first(diagnostics: Sequence[Diagnostic], code: str) -> Diagnostic:
    return next(d for d in diagnostics if d.code == code)


def _bar(entry: Mapping[str, Any], scale: int) -> str:
    parts = []
    if entry.get("read") is None:
        est = entry.get("estimated_prompt") or 0
        width = 100.0 * est / scale if scale else 0
        parts.append(f"<span class='est' style='width:{width:.2f}%' title='~{est} tokens (estimate, no usage)'></span>")
    else:
        for key in ("read", "written", "uncached"):
            value = entry.get(key) or 0
            width = 100.0 * value / scale if scale else 0
            parts.append(f"<span class='{key}' style='width:{width:.2f}%' title='{key}: {value}'></span>")
    return f"<div class='bar'>{''.join(parts)}</div>"


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
            note = f"read {e.get('read') or 0:,} · written {e.get('written') or 0:,} · uncached {e.get('uncached') or 0:,}"
        if brk:
            note = "break " + ", ".join(brk) + " · " + note
        rows.append(
            f"<div class='row{' break' if brk else ''}'><div class='label'>#{_e(e.get('record'))}</div>"
            f"{_bar(e, scale)}<div class='note' title='{_e(note)}'>{_e(note)}</div></div>"
        )
    legend = (
        "<p class='legend'><span><i class='sw' style='background:var(--read)'></i>read from cache</span>"
        "<span><i class='sw' style='background:var(--written)'></i>written to cache</span>"
        "<span><i class='sw' style='background:var(--uncached)'></i>uncached</span>"
        "<span><i class='sw' style='background:var(--est)'></i>no usage: size estimated</span>"
        "<span><i class='sw' style='border:2px solid var(--brk)'></i>break</span></p>"
    )
    return legend + f"<div class='timeline'>{''.join(rows)}</div>"


def _session_index(sessions: Sequence[Mapping[str, Any]], by_session: Mapping[str, Sequence[Diagnostic]], currency: str) -> str:
    """One row a session, in session order, with what tells the sessions worth opening apart (a
    log of a thousand sessions is unreadable as a list of links)."""
    rows = []
    for s in sessions:
        sid = str(s.get("id"))
        path = str(s.get("path") or "")
        found = by_session.get(sid, [])
        cls = " class='flag'" if found else ""
        rows.append(
            f"<tr{cls}><td><a href='#session-{_e(sid)}'>{_e(sid)}</a></td>"
            f"<td title='{_e(path)}'>{_e(path.rsplit('/', 1)[-1])}</td>"
            f"<td class='num'>{_num(s.get('requests'))}</td><td class='num'>{_pct(s.get('hit_rate'))}</td>"
            f"<td class='num'>{_money(s.get('money'), currency)}</td>"
            f"<td class='num'>{_money(s.get('break_money'), currency) if s.get('breaks') else ''}</td>"
            f"<td class='num'>{len(found) or ''}</td></tr>"
        )
    head = "<tr><th>session</th><th>file</th><th>requests</th><th>hit rate</th><th>prompt cost</th><th>misses cost</th><th>findings</th></tr>"
    return f"<h2 id='sessions'>Sessions</h2><table class='sessions'>{head}{''.join(rows)}</table>"


def _session_table(session: Mapping[str, Any], currency: str) -> str:
    tokens = session.get("tokens") or {}
    est = " (estimate)" if session.get("break_money_estimated") else ""
    rows = [
        ("provider / model", _e(f"{session.get('provider')} / {session.get('model') or 'n/a'}")),
        ("requests (with usage)", _e(f"{session.get('requests')} ({session.get('requests_with_usage')})")),
        ("cache hit rate", _pct(session.get("hit_rate"))),
        ("tokens read / written / uncached", _e(f"{tokens.get('read', 0):,} / {tokens.get('written', 0):,} / {tokens.get('uncached', 0):,}")),
        ("prompt cost (without cache)", _e(f"{_money(session.get('money'), currency)} ({_money(session.get('money_without_cache'), currency)})")),
        ("money the misses cost", _e(_money(session.get("break_money"), currency) + est)),
    ]
    advice = session.get("ttl_advice")
    if advice:
        verdict = (
            f"{len(advice.get('pauses', []))} pauses past 5 minutes rewrote {advice.get('tokens_rewritten', 0):,} tokens;"
            f" a 1h TTL would have {'saved' if advice.get('pays') else 'cost more than it saved:'}"
            f" {_money(abs(advice['saving']) if advice.get('saving') is not None else None, currency)} ({advice.get('basis')})"
        )
        rows.append(("TTL evidence", _e(verdict)))
    return _table(rows)


def _verdicts(session: Mapping[str, Any]) -> str:
    verdicts = session.get("provider_verdicts") or []
    if not verdicts:
        return ""
    rows = []
    for v in verdicts:
        agrees = v.get("agrees")
        mark = "<span class='ok'>agree</span>" if agrees else ("<span class='bad'>disagree</span>" if agrees is False else "n/a")
        ours = v.get("our_first_tier") or ", ".join(v.get("our_settings") or []) or "prefix intact"
        rows.append(
            f"<tr><td class='num'>#{_e(v.get('record'))}</td><td><code>{_e(v.get('provider_reason'))}</code></td>"
            f"<td>{_e(ours)}</td><td>{mark}</td></tr>"
        )
    return (
        "<h3>Provider's cache diagnostics beside our diff</h3><table><tr><th>record</th><th>provider says</th>"
        f"<th>our diff says</th><th></th></tr>{''.join(rows)}</table>"
    )


def _detail_value(value: Any) -> str:
    if isinstance(value, str):
        return f"<pre>{_e(value)}</pre>" if ("\n" in value or len(value) > 80) else f"<code>{_e(value)}</code>"
    if isinstance(value, Mapping):
        inner = "".join(f"<dt>{_e(k)}</dt><dd>{_detail_value(value[k])}</dd>" for k in value)
        return f"<dl class='details'>{inner}</dl>"
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (str, int, float, bool)) or v is None for v in value):
            return _e(", ".join(str(v) for v in value))
        return "".join(f"<div>{_detail_value(v)}</div>" for v in value)
    return _e(value)


def _marked(text: str | None) -> str:
    """Escaped excerpt; the part from the divergence marker (U+27E8, set by the prefix diff) on is
    highlighted."""
    if text is None:
        return ""
    head, sep, tail = text.partition("\u27e8")
    if not sep:
        return _e(text)
    return f"{_e(head)}<mark title='first differing byte'>{_e(tail)}</mark>"


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
        )
    rest = "".join(f"<dt>{_e(k)}</dt><dd>{_detail_value(details[k])}</dd>" for k in details)
    where = f"{d.path}:{d.line}"
    if d.record is not None:
        where += f" · record {d.record}"
    if d.kind:
        where += f" · {d.kind}"
    sev = severity_of(d).value
    if cost and cost.get("money") is not None:
        where += f" · this break cost {_money(cost['money'], currency)} ({cost.get('basis')}, {cost.get('tokens'):,} tokens)"
    return (
        f"<div class='finding {sev}'><div class='head'><code>{_e(d.code)}</code> {_e(name_of(d))}: {_e(d.message)}</div>"
        f"<div class='where'>{_e(sev)} · {_e(where)}</div>{diff}"
        + (f"<dl class='details'>{rest}</dl>" if rest else "")
        + "</div>"
    )


def render_html(diagnostics: Sequence[Diagnostic], summary: Any) -> str:
    """One self-contained HTML document (readable without JavaScript)."""
    usage = _usage_of(summary)
    currency = usage.get("currency", "USD")
    sessions = [s for s in usage.get("sessions") or [] if isinstance(s, Mapping)]
    by_session: dict[str, list[Diagnostic]] = {}
    loose: list[Diagnostic] = []
    known = {str(s.get("id")) for s in sessions}
    for d in diagnostics:
        if d.session is not None and d.session in known:
            by_session.setdefault(d.session, []).append(d)
        else:
            loose.append(d)
    grouping = {s.id: s.grouping_text for s in getattr(summary, "sessions", []) if s.grouping_text}
    parts = [_summary_section(diagnostics, usage)]
    if sessions:
        parts.append(_session_index(sessions, by_session, currency))
    for s in sessions:
        sid = str(s.get("id"))
        found = by_session.get(sid, [])
        costs = {b.get("record"): b.get("cost") for b in s.get("breaks") or [] if isinstance(b, Mapping)}
        parts.append(
            f"<h2 id='session-{_e(sid)}'>Session {_e(sid)} <small class='meta'>{_e(s.get('path'))}</small></h2>"
            + (f"<p class='meta'>grouped by {_e(grouping[sid])}</p>" if sid in grouping else "")
            + _session_table(s, currency)
            + _timeline(s)
            + _verdicts(s)
            + (f"<h3>Findings ({len(found)})</h3>" + "".join(_finding(d, costs.get(d.record), currency) for d in found) if found else "<p class='ok'>No findings.</p>")
        )
    if loose:
        parts.append(f"<h2 id='other'>Other findings ({len(loose)})</h2>" + "".join(_finding(d) for d in loose))
    title = "cachelint audit report"
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{title}</title><style>{_CSS}</style></head><body>"
        f"<h1>{title}</h1><p class='meta'>{len(diagnostics)} finding(s) in {len(sessions)} session(s).</p>"
        + "".join(parts)
        + "</body></html>\n"
    )
