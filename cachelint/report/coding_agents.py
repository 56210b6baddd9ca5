"""The coding-agent part of an audit (``AuditSummary.coding_agents``) in text and HTML: the run's
rebuilds by cause, its cold starts, its hit rate by hour, then one block a session with each thread
(the main thread, each sub-agent), its rebuilds (the CL313 findings) and the TTL and keep-alive
arithmetic. Findings are rendered where their thread is: ``thread_ids`` tells a reporter which
findings belong here."""

from __future__ import annotations

from html import escape
from typing import Any, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.transcripts.locations import AGENT_TITLES

HOURS_SHOWN = 24  # the text report's hit rate by hour: the last this many hours with calls
QUIET_SESSIONS_SHOWN = 10


def thread_ids(part: Mapping[str, Any] | None) -> set[str]:
    """Every thread id of the coding-agent sessions (the ``session`` of their findings)."""
    if not part:
        return set()
    return {str(t["id"]) for s in part.get("sessions", ()) for t in s.get("threads", ())}


def _money(value: float | None, currency: str = "USD") -> str:
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    return f"{sign}{'$' if currency == 'USD' else currency + ' '}{abs(value):,.4f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def headline(part: Mapping[str, Any]) -> str:
    t = part["total"]
    cur = part.get("currency", "USD")
    agents = ", ".join(f"{AGENT_TITLES.get(a, a)} {_n(n, 'file')}" for a, n in part.get("agents", {}).items())
    minor = f" (and {_n(t['minor_rebuilds'], 'minor rebuild')})" if t.get("minor_rebuilds") else ""
    return (
        f"Coding-agent sessions ({agents}): {_n(t['sessions'], 'session')}, {_n(t['threads'], 'thread')},"
        f" {_n(t['turns'], 'call')}; hit rate {_pct(t['hit_rate'])}; cost {_money(t['money'], cur)}"
        f" (without cache {_money(t['money_without_cache'], cur)}); {_n(t['rebuilds'], 'prefix rebuild')}{minor}"
        f" cost {_money(t['rebuild_money'], cur)} (prices as of {part.get('prices_as_of') or 'n/a'})."
    )


def overview_lines(part: Mapping[str, Any]) -> list[str]:
    """The run's rebuilds by cause, cold starts and hit rate by hour."""
    cur = part.get("currency", "USD")
    lines = []
    causes = part.get("causes") or {}
    if causes:
        lines.append(
            "  rebuilds by cause: "
            + "; ".join(
                f"{cause} {c['rebuilds']:,}"
                + (f" (+{c['minor']:,} minor)" if c.get("minor") else "")
                + f", {c['tokens']:,} tokens, {_money(c['money'], cur)}"
                for cause, c in causes.items()
            )
        )
    colds = part.get("cold_starts") or {}
    if colds:
        lines.append(
            "  cold starts (a thread's first call, not rebuilds): "
            + "; ".join(
                f"{k} {c['count']:,}, {c['tokens']:,} tokens, {_money(c['money'], cur)}" for k, c in colds.items()
            )
        )
    hours = part.get("hit_rate_by_hour") or []
    if hours:
        shown = hours[-HOURS_SHOWN:]
        more = f" (last {len(shown)} of {len(hours)} hours)" if len(hours) > len(shown) else ""
        cut = 5 if shown[0]["hour"][:4] == shown[-1]["hour"][:4] else 0  # the year, when it is one
        lines.append(
            f"  hit rate by hour (UTC){more}: " + ", ".join(f"{h['hour'][cut:]}h {_pct(h['hit_rate'])}" for h in shown)
        )
    return lines


def _eventful(session: Mapping[str, Any]) -> bool:
    return bool(session["rebuilds"] or session.get("advice"))


def session_lines(part: Mapping[str, Any], findings: Mapping[str, Sequence[Diagnostic]], full: bool) -> list[str]:
    """One block a session: its threads, their rebuilds and advice (``full``: with the evidence)."""
    cur = part.get("currency", "USD")
    out: list[str] = []
    quiet = 0
    for s in part.get("sessions", ()):
        if not _eventful(s):
            quiet += 1
            if quiet > QUIET_SESSIONS_SHOWN:
                continue
        out.append("")
        out.append(
            f"{AGENT_TITLES.get(s['agent'], s['agent'])} session {s['id']} — {_n(s['turns'], 'call')} in"
            f" {_n(len(s['threads']), 'thread')}, {_n(s['rebuilds'], 'prefix rebuild')}"
            f" ({_money(s['rebuild_money'], cur)}); hit rate {_pct(s['hit_rate'])}; cost {_money(s['money'], cur)}"
        )
        out.append(f"  from {s['first']}")
        for t in s["threads"]:
            out.extend(_thread_lines(t, findings.get(str(t["id"]), ()), cur, full))
    if quiet > QUIET_SESSIONS_SHOWN:
        out.append("")
        out.append(
            f"… {_n(quiet - QUIET_SESSIONS_SHOWN, 'more session')} without a rebuild (the JSON and HTML reports list every one)"
        )
    return out


def _thread_lines(t: Mapping[str, Any], found: Sequence[Diagnostic], cur: str, full: bool) -> list[str]:
    name = "main thread" if t["subagent"] is None else f"sub-agent {t['subagent']} ({t['kind']})"
    models = ", ".join(t["models"]) or "model n/a"
    lines = [
        f"  {name} ({models}): {_n(t['turns'], 'call')}, hit rate {_pct(t['hit_rate'])}, cost {_money(t['money'], cur)};"
        f" read {t['tokens']['read']:,}, written {t['tokens']['written']:,}, uncached {t['tokens']['uncached']:,}"
    ]
    cold = t.get("cold_start")
    if cold:
        lines.append(
            f"    cold start ({cold['kind']}) at line {cold['line']}: {cold['tokens']:,} tokens written"
            + (f", {cold['read']:,} read" if cold.get("read") else "")
            + f", {_money(cold['money'], cur)}"
        )
    for d in sorted(found, key=lambda d: d.line):
        r = d.details or {}
        when = str(r.get("time") or "")[11:19] or "--:--:--"
        lines.append(
            f"    line {d.line} {when} {d.kind}: {r.get('tokens_rewritten', 0):,} tokens paid again,"
            f" {_money(r.get('money'), cur)} — {r.get('because', '')}"
        )
        if full and r.get("evidence"):
            lines.append(f"      between the calls: {'; '.join(r['evidence'])}")
    minor = t.get("minor_rebuilds") or {}
    if minor.get("count"):
        lines.append(
            f"    {_n(minor['count'], 'minor rebuild')} under the model's minimum cacheable prompt:"
            f" {minor['tokens']:,} tokens, {_money(minor['money'], cur)}"
        )
    advice = t.get("advice") or {}
    ttl = advice.get("ttl_1h")
    if ttl:
        verdict = "pays" if ttl["pays"] else "does not pay"
        lines.append(f"    1-hour TTL ({ttl['basis']}): {verdict}: {ttl['arithmetic']}")
    keep = advice.get("keepalive")
    if keep:
        verdict = "would pay" if keep["pays"] else "would not pay"
        lines.append(f"    keep-alive pings {verdict}: {keep['arithmetic']}")
    return lines


def render_text(part: Mapping[str, Any], diagnostics: Sequence[Diagnostic], full: bool = True) -> list[str]:
    """The coding-agent section of the text report."""
    ids = thread_ids(part)
    by_thread: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        if d.session in ids:
            by_thread.setdefault(str(d.session), []).append(d)
    lines = [headline(part), *overview_lines(part)]
    if full:
        lines.extend(session_lines(part, by_thread, full))
    return lines


# --- HTML ------------------------------------------------------------------------------------------


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def render_html(part: Mapping[str, Any], diagnostics: Sequence[Diagnostic]) -> str:
    """The coding-agent section of the HTML report: the overview, then a table a session."""
    ids = thread_ids(part)
    by_thread: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        if d.session in ids:
            by_thread.setdefault(str(d.session), []).append(d)
    cur = part.get("currency", "USD")
    rows = []
    for s in part.get("sessions", ()):
        for t in s["threads"]:
            name = "main" if t["subagent"] is None else f"sub-agent {t['subagent']} ({t['kind']})"
            rebuilds = "".join(
                f"<li>{_e(d.path)}:{d.line} · <b>{_e(d.kind)}</b> · {(d.details or {}).get('tokens_rewritten', 0):,} tokens"
                f" · {_e(_money((d.details or {}).get('money'), cur))} — {_e((d.details or {}).get('because'))}</li>"
                for d in sorted(by_thread.get(str(t["id"]), ()), key=lambda d: (d.path, d.line))
            )
            advice = t.get("advice") or {}
            notes = "".join(
                f"<li>{_e(label)}: {_e(a['arithmetic'])}</li>"
                for label, a in (("1-hour TTL", advice.get("ttl_1h")), ("keep-alive", advice.get("keepalive")))
                if a
            )
            cold = t.get("cold_start")
            calls = _calls_table(t.get("timeline") or ())
            rows.append(
                "<tr>"
                f"<td>{_e(AGENT_TITLES.get(s['agent'], s['agent']))}</td><td><code>{_e(s['id'])}</code></td>"
                f"<td>{_e(name)}</td><td>{t['turns']:,}</td><td>{_e(_pct(t['hit_rate']))}</td>"
                f"<td>{_e(_money(t['money'], cur))}</td>"
                f"<td>{_e(cold['kind']) if cold else ''}</td>"
                f"<td><ul>{rebuilds}{notes}</ul>{calls}</td></tr>"
            )
    overview = "".join(f"<li>{_e(line.strip())}</li>" for line in overview_lines(part))
    return (
        f"<h2 id='coding-agents'>Coding-agent sessions</h2><p class='meta'>{_e(headline(part))}</p><ul>{overview}</ul>"
        "<table class='agents'><thead><tr><th>agent</th><th>session</th><th>thread</th><th>calls</th><th>hit rate</th>"
        "<th>cost</th><th>cold start</th><th>rebuilds and advice</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _calls_table(timeline: Sequence[Mapping[str, Any]]) -> str:
    """Each call of a thread: its line, time, model, tokens read, written and uncached, and what
    it was (a cold start, a rebuild and its cause), folded."""
    if not timeline:
        return ""
    rows = "".join(
        f"<tr><td>{c['line']}</td><td>{_e((c.get('time') or '')[:19])}</td><td>{_e(c.get('model'))}</td>"
        f"<td>{c['read']:,}</td><td>{c['written']:,}</td><td>{c['uncached']:,}</td>"
        f"<td>{_e(c.get('rebuild') or c.get('cold_start') or '')}</td></tr>"
        for c in timeline
    )
    return (
        f"<details><summary>{len(timeline):,} calls</summary><table class='calls'><thead><tr><th>line</th><th>time</th>"
        "<th>model</th><th>read</th><th>written</th><th>uncached</th><th></th></tr></thead>"
        f"<tbody>{rows}</tbody></table></details>"
    )
