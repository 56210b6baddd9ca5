"""The audit in text: the causes first (findings that share a rule, a kind and a tier, across
sessions: one line each with its count, sessions and money), then one block a session (how it was
grouped, its tokens and money) with the detail of its findings: the byte diff at the break and
what the break cost; findings outside any session (unreadable inputs, run-wide checks) come first.
The detail shows the first ``DETAIL_PER_CAUSE`` findings of each cause; the others are counted
where they are (a log whose every request carries the time is one cause, not a wall of repeats;
``--output-format concise`` lists every finding in one line, ``json`` in full).

``concise`` keeps one line per finding and ends with the audit's headline and totals.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.payloads import LOG_SUFFIXES, AuditSummary, BreakDetail, Cause, SessionReport
from cachelint.payloads.causes import cause_key
from cachelint.report.coding_agents import render_text as render_coding_agents, thread_ids
from cachelint.report.common import RenderOptions, name_of, severity_of
from cachelint.report.text import Style, finding_line, fix_or_help, format_detail

# The text outputs list every session where something happened (a finding, a break, a provider
# verdict, TTL advice) and at most this many of the others: an audit of a thousand quiet sessions
# is not a thousand lines. The HTML report lists every session.
QUIET_SESSIONS_SHOWN = 10

# Findings of one cause shown in full; the rest are counted in their sessions. Three show that a
# cause repeats and how it varies (the timestamp that ticks) without a screen of copies each.
DETAIL_PER_CAUSE = 3

# The length of a cause's example message in its one line.
CAUSE_MESSAGE_CHARS = 200

# The two counts of an audit, each in one line (the headline and the totals use both words).
PREFIX_BREAKS_MEAN = (
    "a request whose prefix differs from the previous request of its session before the prefix's end,"
    " by its bytes or by a setting of the cache key"
)
CACHE_MISSES_MEAN = (
    "a request that could not read what the previous request of its session left in the cache: a prefix"
    " break that lost cached tokens, an expired cache, a read the provider did not make"
)

# Where an excerpt shows the divergence, once per report.
MARKER_LEGEND = "⟨ marks the first byte that differs from the previous request"

# Details the session layout shows in its own words (the message says the tier and the byte).
_SHOWN_APART = (
    "before",
    "after",
    "excerpt_before",
    "excerpt_after",
    "explanation",
    "changes",
    "invalidated",
    "tier",
    "first_tier",
    "byte_offset",
)


def sessions_to_show(sessions: Sequence[Any], eventful: Callable[[Any], Any]) -> tuple[list[Any], int]:
    """The sessions a text report lists, in order (every one ``eventful(session)`` is true for, and
    the first ``QUIET_SESSIONS_SHOWN`` of the others), and how many quiet ones it leaves out."""
    shown, quiet = [], 0
    for session in sessions:
        if not eventful(session):
            quiet += 1
            if quiet > QUIET_SESSIONS_SHOWN:
                continue
        shown.append(session)
    return shown, max(0, quiet - QUIET_SESSIONS_SHOWN)


def money(value: float | None, currency: str = "USD") -> str:
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    return f"{sign}{'$' if currency == 'USD' else currency + ' '}{abs(value):,.4f}"


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def misses_cost(usage_part: Mapping[str, Any], currency: str) -> str:
    """What the cache misses of a session (or of the run) cost, in words that explain a zero or a
    missing figure: "3 cache misses found cost $0.0316 (usage)", "… cost $0.0000: no cached
    tokens were lost (…)", "… cost n/a: no price for the model"."""
    count = (
        len(usage_part["breaks"]) if isinstance(usage_part.get("breaks"), list) else int(usage_part.get("breaks") or 0)
    )
    if not count:
        return "no cache miss found"
    head = f"{_n(count, 'cache miss', 'cache misses')} found"
    value = usage_part.get("break_money")
    tokens = usage_part.get("break_tokens")
    estimated = " (estimate, ~4 characters a token)" if usage_part.get("break_money_estimated") else ""
    if value is None:
        return f"{head}; their cost is n/a: the price table has no price for the model (add one with a prices pack)"
    if not tokens:
        return (
            f"{head} cost {money(value, currency)}: no cached tokens were lost (what the previous request"
            " left in the cache was below the model's minimum cacheable length, or the model caches nothing)"
        )
    return f"{head} cost {money(value, currency)} ({tokens:,} cached tokens paid again){estimated}"


def _hit(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.1%}"


def _usage_lines(u: Mapping[str, Any], currency: str, indent: str) -> list[str]:
    lines = []
    t = u["tokens"]
    if u["requests_with_usage"]:
        lines.append(
            f"{indent}hit rate {_hit(u['hit_rate'])}; tokens read {t['read']:,}, written {t['written']:,}, uncached {t['uncached']:,};"
            f" cost {money(u['money'], currency)} (without cache {money(u['money_without_cache'], currency)})"
        )
    else:
        lines.append(
            f"{indent}no usage in the responses; ~{u['estimated_prompt_tokens_without_usage']:,} prompt tokens (estimate)"
        )
    if u["breaks"]:
        codes = ", ".join(sorted({c for b in u["breaks"] for c in b.get("codes", ())}))
        lines.append(f"{indent}{misses_cost(u, currency).replace(' found', f' found ({codes})', 1)}")
    for v in u["provider_verdicts"]:
        if v["provider_reason"] is None:
            continue  # inconclusive: the provider's comparison was still running
        ours = v["our_first_tier"] or ", ".join(v["our_settings"]) or "prefix intact"
        verdict = {True: "they agree", False: "they disagree", None: "no tier to compare"}[v["agrees"]]
        lines.append(
            f"{indent}record {v['record']}: provider says {v['provider_reason']}, our diff says {ours}: {verdict}"
        )
    advice = u.get("ttl_advice")
    if advice and advice.get("pays"):
        lines.append(
            f"{indent}{len(advice['pauses'])} pauses past 5 minutes each rewrote the prefix"
            f" ({advice['tokens_rewritten']:,} tokens): a 1h TTL would have saved"
            f" {money(advice['saving'], currency)} ({advice['basis']})"
        )
    return lines


def _one_line(text: str) -> str:
    return text.replace("\n", "\\n").replace("\r", "\\r")


class _Legend:
    """Says what ⟨ means the first time an excerpt shows it."""

    def __init__(self) -> None:
        self.said = False

    def lines(self, before: str | None, after: str | None, indent: str) -> list[str]:
        out = []
        if before is not None:
            out.append(f"{indent}before: {_one_line(before)}")
        if after is not None:
            out.append(f"{indent}after:  {_one_line(after)}")
        if not self.said and any(x and "⟨" in x for x in (before, after)):
            out.append(f"{indent}        ({MARKER_LEGEND})")
            self.said = True
        return out


def _finding_block(
    d: Diagnostic, options: RenderOptions, legend: _Legend, cost: Mapping[str, Any] | None, currency: str
) -> str:
    style = Style(options.color)
    facts = [severity_of(d).value, f"{d.code} {name_of(d)}"]
    if d.record is not None:
        facts.append(f"record {d.record}")
    if d.kind:
        facts.append(f"kind {d.kind}")
    lines = [finding_line(d, options), "    " + " · ".join(facts)]
    details = d.details or {}
    if "byte_offset" in details and "byte" not in d.message:
        lines.append(
            f"    at byte {details['byte_offset']} of the prefix ({details.get('first_tier') or details.get('tier')})"
        )
    explanation = details.get("explanation")
    if isinstance(explanation, str):
        lines.append(f"    {_one_line(explanation)}")
    elif isinstance(explanation, (list, tuple)):
        lines.extend(f"    {_one_line(str(x))}" for x in explanation[:6])
    before = details.get("before", details.get("excerpt_before"))
    after = details.get("after", details.get("excerpt_after"))
    lines.extend(
        legend.lines(before if isinstance(before, str) else None, after if isinstance(after, str) else None, "    ")
    )
    invalidated = details.get("invalidated")
    if invalidated:
        lines.append(f"    invalidates {', '.join(str(x) for x in invalidated)}")
    if cost:
        basis = cost.get("basis") or ""
        tokens = cost.get("tokens") or 0
        paid = f"{tokens:,} cached tokens paid again" if tokens else "no cached tokens lost"
        lines.append(f"    {style('this break cost', 'bold')} {money(cost.get('money'), currency)} ({paid}; {basis})")
    for key in details:
        if key not in _SHOWN_APART:
            lines.extend(format_detail(key, details[key]))
    lines.append(fix_or_help(d, options, indent="    "))
    return "\n".join(lines)


def _break_block(b: BreakDetail, legend: _Legend) -> str:
    where = f"at byte {b.offset} ({b.first_tier})" if b.offset is not None else "settings only"
    lines = [f"  break {b.location} {where}; invalidates {', '.join(b.invalidated)}"]
    lines.extend(f"    {text}" for text in b.explanation[:6])
    lines.extend(f"    setting {text}" for text in b.settings)
    lines.extend(legend.lines(b.before, b.after, "    "))
    return "\n".join(lines)


def headline(summary: AuditSummary) -> str:
    """One line: what was read, how many requests and sessions, how many breaks."""
    formats = ", ".join(summary.formats) if summary.formats else "none"
    line = (
        f"Audit of {_n(summary.files, 'file')} ({formats}): {_n(summary.requests, 'LLM request')} in"
        f" {_n(len(summary.sessions), 'session')}, {_n(summary.breaks, 'prefix break')}"
    )
    extra = []
    if summary.skipped_non_llm:
        extra.append(
            f"{_n(summary.skipped_non_llm, 'record')} that {'is' if summary.skipped_non_llm == 1 else 'are'} not an LLM call skipped"
        )
    if summary.failed:
        extra.append(f"{_n(summary.failed, 'request')} answered with an HTTP error left out")
    return line + ("; " + "; ".join(extra) if extra else "") + "."


def unread_line(summary: AuditSummary) -> str | None:
    if not summary.unread:
        return None
    total = sum(summary.unread.values())
    shapes = ", ".join(f"{shape} ({n:,})" for shape, n in summary.unread.items())
    return (
        f"Not read: {_n(total, 'record')} {'looks' if total == 1 else 'look'} like LLM calls in a shape this audit did"
        f" not read: {shapes} (see docs/audit.md)."
    )


def fidelity_lines(summary: AuditSummary) -> list[str]:
    """What the requests read from logs that keep less than the wire bytes could not be judged on."""
    lines = []
    for fidelity, entry in summary.fidelity.items():
        what = "judged from content, not bytes" if fidelity == "content" else "judged from usage only"
        lines.append(
            f"{_n(entry['requests'], 'request')} {what} ({', '.join(entry['formats'])}): {entry['not_judged']};"
            f" not checked: {', '.join(entry['checks_not_run']) or 'nothing'}."
        )
    return lines


def window_line(summary: AuditSummary) -> str | None:
    """What --since / --until left out: the requests outside the window, and those kept because
    they carry no time."""
    window = summary.time_window
    if window is None:
        return None
    since, until = window.get("since"), window.get("until")
    ends = f"from {since or 'the start'} to {until or 'the end'} (UTC)"
    line = f"Time window {ends}: {_n(window['outside'], 'request')} outside it left out"
    if window["untimed"]:
        line += f"; {_n(window['untimed'], 'request')} without a time kept (they cannot be placed)"
    return line + "."


def untimed_line(summary: AuditSummary) -> str | None:
    untimed = summary.untimed_files
    if not untimed:
        return None
    names = ", ".join(untimed[:3]) + (f" and {len(untimed) - 3} more" if len(untimed) > 3 else "")
    return (
        f"TTL checks (CL306, the TTL advice) could not run on {_n(len(untimed), 'file')} whose requests carry no time:"
        f" {names}; name the time field with --time-field NAME."
    )


def total_line(summary: AuditSummary) -> str | None:
    usage = summary.usage
    if not usage or not usage.get("sessions"):
        return None
    t = usage["total"]
    cur = usage.get("currency", "USD")
    return (
        f"Total: {_n(t['sessions'], 'session')}, {_n(t['requests'], 'request')}, hit rate {_hit(t['hit_rate'])},"
        f" cost {money(t['money'], cur)} (without cache {money(t['money_without_cache'], cur)};"
        f" prices as of {usage.get('prices_as_of') or 'n/a'}); {misses_cost(t, cur)}."
    )


def _eventful(session: SessionReport, found: Mapping[str, Sequence[Diagnostic]]) -> bool:
    u = session.usage or {}
    return bool(
        found.get(session.id) or session.breaks or u.get("breaks") or u.get("ttl_advice") or u.get("provider_verdicts")
    )


def counts_lines(summary: AuditSummary) -> list[str]:
    """What "prefix breaks" and "cache misses" count, with their numbers, one line each."""
    lines = []
    total = (summary.usage or {}).get("total") or {}
    misses = int(total.get("breaks") or 0)
    if summary.breaks:
        lines.append(f"Prefix breaks: {summary.breaks:,}, each {PREFIX_BREAKS_MEAN}.")
    if misses:
        provider = int(total.get("provider_misses") or 0)
        side = (
            f" Of them {provider:,} with the prefix intact: the provider's side (routing, eviction, a key's rate), not the code's."
            if provider
            else ""
        )
        lines.append(f"Cache misses: {misses:,}, each {CACHE_MISSES_MEAN}.{side}")
    return lines


def _cause_what(c: Cause) -> str:
    parts = [p for p in (c.kind, f"in {c.tier}" if c.tier else None) if p]
    return " ".join(parts)


def _short(text: str, limit: int) -> str:
    text = _one_line(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cause_lines(causes: Sequence[Cause], currency: str, options: RenderOptions) -> list[str]:
    """The causes, the costliest first: one line each with its count, sessions and money, then its
    first finding and where to read the fix."""
    if not causes:
        return []
    style = Style(options.color)
    lines = [style(f"Causes ({len(causes):,}), the costliest first:", "bold")]
    for i, c in enumerate(causes, 1):
        what = _cause_what(c)
        sessions = f" in {_n(len(c.sessions), 'session')}" if c.sessions else ""
        lost = ""
        if c.lost < c.findings:
            lost = f" ({c.findings - c.lost:,} lost nothing cached)"
        cost = ""
        if c.money is not None and (c.money or c.tokens):
            cost = f"; cost {money(c.money, currency)} ({c.tokens:,} cached tokens paid again)"
        elif c.unpriced:
            cost = "; cost unknown: the price table has no price for the model"
        name = name_of(Diagnostic(c.code, c.message, c.example))
        lines.append(
            f"  {i}. {c.code} {name}{f' ({what})' if what else ''}: {_n(c.findings, 'finding')}{sessions}{lost}{cost}"
        )
        lines.append(f"     first at {c.example}: {_short(c.message, CAUSE_MESSAGE_CHARS)}")
        lines.append(f"     fix: `cachelint rule {c.code}`")
    return lines


def detailed_findings(diagnostics: Sequence[Diagnostic], per_cause: int = DETAIL_PER_CAUSE) -> set[int]:
    """The ``id`` of each finding shown in full: every one outside a session (an unreadable
    input: each is about its own file), then the first ``per_cause`` of each cause, in order."""
    seen: dict[tuple[str, str, str], int] = {}
    shown = set()
    for d in diagnostics:
        if d.session is None:
            shown.add(id(d))
            continue
        key = cause_key(d)
        if seen.get(key, 0) < per_cause:
            seen[key] = seen.get(key, 0) + 1
            shown.add(id(d))
    return shown


def render_audit_full(
    diagnostics: Sequence[Diagnostic], summary: AuditSummary, options: RenderOptions = RenderOptions()
) -> str:
    style = Style(options.color)
    legend = _Legend()
    currency = (summary.usage or {}).get("currency", "USD")
    known = {s.id for s in summary.sessions}
    agent_threads = thread_ids(summary.coding_agents)
    by_session: dict[str, list[Diagnostic]] = {}
    loose: list[Diagnostic] = []
    for d in diagnostics:
        if d.session is not None and d.session in agent_threads:
            continue  # shown in its coding-agent thread below
        if d.session is not None and d.session in known:
            by_session.setdefault(d.session, []).append(d)
        else:
            loose.append(d)
    out = [headline(summary)]
    out.extend(counts_lines(summary))
    unread = unread_line(summary)
    if unread:
        out.append(unread)
    out.extend(fidelity_lines(summary))
    window = window_line(summary)
    if window:
        out.append(window)
    causes = cause_lines(summary.causes, currency, options) if len(diagnostics) > 1 else []
    if causes:
        out.append("")
        out.extend(causes)
    detailed = detailed_findings(diagnostics)
    for d in loose:
        if id(d) in detailed:
            out.append("")
            out.append(_finding_block(d, options, legend, None, currency))
    folded_loose = sum(1 for d in loose if id(d) not in detailed)
    if folded_loose:
        out.append("")
        out.append(f"… {_n(folded_loose, 'more finding')} outside a session, of the causes above")
    shown, hidden = sessions_to_show(summary.sessions, lambda s: _eventful(s, by_session))
    folded_sessions = folded_findings = 0
    for s in shown:
        found = by_session.get(s.id, [])
        in_full = [d for d in found if id(d) in detailed]
        if found and not in_full:
            folded_sessions += 1  # every finding of it is of a cause shown above
            folded_findings += len(found)
            continue
        model = f" {s.model}" if s.model else ""
        host = f" at {s.host}" if s.host else ""
        out.append("")
        out.append(
            style(f"session {s.label}", "bold")
            + f" — {s.provider}{host}{model}, {_n(s.requests, 'request')}, {_n(s.breaks, 'prefix break')}, {_n(len(found), 'finding')}"
        )
        out.append(f"  from {s.first}; grouped by {s.grouping_text}")
        if s.started:
            after = f" (did not continue {s.started_after})" if s.started_after else ""
            out.append(f"  new session: {s.started}{after}")
        costs: dict[int, Any] = {}
        if s.usage:
            out.extend(_usage_lines(s.usage, currency, "  "))
            costs = {b.get("record"): b.get("cost") for b in s.usage.get("breaks") or []}
        with_finding = {(d.path, d.record) for d in found}
        for b in s.break_details:
            if (b.path, b.record) not in with_finding:
                out.append(_break_block(b, legend))  # a break no reported finding describes
        for d in in_full:
            out.append("")
            out.append(
                _finding_block(d, options, legend, costs.get(d.record) if d.record is not None else None, currency)
            )
        rest = len(found) - len(in_full)
        if rest:
            out.append("")
            out.append(f"  … {_n(rest, 'more finding')} of the causes above in this session")
        if s.breaks > len(s.break_details) and not found:
            out.append(f"  … {_n(s.breaks - len(s.break_details), 'more break')}")
    if folded_sessions:
        out.append("")
        out.append(
            f"… {_n(folded_sessions, 'more session')} whose {_n(folded_findings, 'finding')} are all of the causes above"
            " (--output-format concise lists each finding in one line, json in full; the HTML report shows every session)"
        )
    if hidden:
        out.append("")
        out.append(f"… {_n(hidden, 'more session')} without a finding or a break (the HTML report lists every session)")
    if summary.coding_agents:
        out.append("")
        out.extend(render_coding_agents(summary.coding_agents, diagnostics, full=True))
    untimed = untimed_line(summary)
    if untimed:
        out.append("")
        out.append(untimed)
    total = total_line(summary)
    if total:
        out.append("")
        out.append(total)
    return "\n".join(out) + "\n"


def render_audit_concise(
    diagnostics: Sequence[Diagnostic], summary: AuditSummary, options: RenderOptions = RenderOptions()
) -> str:
    lines = [finding_line(d, options) for d in diagnostics]
    lines.append(headline(summary))
    lines.extend(counts_lines(summary))
    unread = unread_line(summary)
    if unread:
        lines.append(unread)
    lines.extend(fidelity_lines(summary))
    window = window_line(summary)
    if window:
        lines.append(window)
    if summary.coding_agents:
        lines.extend(render_coding_agents(summary.coding_agents, diagnostics, full=False))
    total = total_line(summary)
    if total:
        lines.append(total)
    return "\n".join(lines) + "\n"


def render_usage(usage: Mapping[str, Any]) -> str:
    """A usage summary alone (``cachelint.payloads.spend``): its eventful sessions (at most
    ``QUIET_SESSIONS_SHOWN`` quiet ones), then the total."""
    if not usage or not usage.get("sessions"):
        return ""
    cur = usage.get("currency", "USD")
    lines = [f"Usage and money (prices as of {usage.get('prices_as_of') or 'n/a'}):"]
    shown, hidden = sessions_to_show(
        usage["sessions"], lambda s: s["breaks"] or s.get("ttl_advice") or s["provider_verdicts"]
    )
    for s in shown:
        lines.append(
            f"  session {s['id']} ({_n(s['requests'], 'request')}, {s['provider']}, {s['model'] or 'model n/a'}):"
        )
        lines.extend(_usage_lines(s, cur, "    "))
    if hidden:
        lines.append(f"  … {_n(hidden, 'more session')} without a cache miss found")
    t = usage["total"]
    lines.append(
        f"  total: {_n(t['sessions'], 'session')}, {_n(t['requests'], 'request')}, hit rate {_hit(t['hit_rate'])},"
        f" cost {money(t['money'], cur)}, {misses_cost(t, cur)}"
    )
    return "\n".join(lines) + "\n"


def nothing_read_message(summary: AuditSummary) -> str:
    """The error of an audit that read no LLM request from any input (exit 2): what it did read."""
    n = summary.files
    formats = ", ".join(f"{fmt} ({count})" if count > 1 else fmt for fmt, count in summary.formats.items()) or "none"
    parts = [f"formats read: {formats}"]
    if summary.skipped_non_llm:
        parts.append(
            f"{summary.skipped_non_llm:,} record{'s' if summary.skipped_non_llm != 1 else ''} that {'are' if summary.skipped_non_llm != 1 else 'is'} not an LLM call"
        )
    if summary.unread:
        total = sum(summary.unread.values())
        shapes = ", ".join(f"{shape} ({count:,})" for shape, count in summary.unread.items())
        parts.append(f"{total:,} record{'s' if total != 1 else ''} like LLM calls that were not read: {shapes}")
    if summary.files_without_records:
        k = summary.files_without_records
        parts.append(f"{k} file{'s' if k != 1 else ''} without a record (see above)")
    if n == 0:
        parts = [f"no file named {', '.join(f'*{s}' for s in LOG_SUFFIXES)} (or .gz) found"]
    return f"no LLM requests found in {n} file{'s' if n != 1 else ''} ({'; '.join(parts)}; see docs/audit.md)"
