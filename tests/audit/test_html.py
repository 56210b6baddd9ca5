"""The HTML report: self-contained, escaped, with the summary, a timeline per session and the byte
diff of each break; rendered in headless Chromium (skipped locally without it, a failure in CI)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cachelint.diagnostics import Diagnostic
from cachelint.payloads import AuditSummary, SessionReport
from cachelint.payloads.spend import ledger_for
from cachelint.report.html import render_html

from .conftest import CC, a_usage, anthropic, assistant, at, make_requests, sys_block, text, user
from conftest import HANG_GUARD

EVIL = "</pre><script>alert('x')</script><img src=x onerror=alert(1)>"


def _summary_and_diagnostics():
    records = []
    for i in range(4):
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i} {EVIL}", CC)]
        usage = [a_usage(5, 0, 1600), a_usage(5, 1600, 40), a_usage(8, 0, 1700), a_usage(5, 1700, 30)][i]
        records.append(
            {"request": anthropic(sys_block(text(6000, "policy")), msgs), "response": usage, "time": at(i * 30)}
        )
    reqs = make_requests(records)
    quiet = make_requests(
        [{"request": anthropic(sys_block("Another agent."), [user("hello", CC)]), "response": a_usage(5, 0, 20)}],
        session="s2",
    )
    ledger = ledger_for(None)
    prev = None
    for req in reqs:
        ledger.add(req, prev)
        prev = req
    ledger.add(quiet[0])
    diagnostics = [
        Diagnostic(
            code="CL302",
            message=f"system changed {EVIL}",
            path="log.jsonl",
            line=3,
            record=2,
            session="s1",
            details={
                "offset": 1234,
                "excerpt_before": f"You are {EVIL} v1",
                "excerpt_after": "You are v2",
                "tier": "system",
            },
        ),
        Diagnostic(
            code="CL305",
            message="the breakpoint caches too little",
            path="log.jsonl",
            line=1,
            record=0,
            session="s1",
            details={"first_tier": "system", "cached_end": 321, "tokens_basis": "usage (proportional)"},
        ),
        Diagnostic(code="CL001", message="record 9 is not JSON", path="other.jsonl", line=9),
    ]
    usage = ledger.summary(diagnostics)
    sessions = [
        SessionReport(
            "s1",
            "history",
            "inferred: each request extends the history of the previous one",
            "log.jsonl",
            "log.jsonl:1",
            "anthropic",
            "claude-sonnet-4-5",
            4,
            1,
        ),
        SessionReport("s2", "history", "inferred", "log.jsonl", "log.jsonl:5", "anthropic", "claude-sonnet-4-5", 1, 0),
    ]
    for session, entry in zip(sessions, usage["sessions"]):
        session.usage = entry
    summary = AuditSummary(files=2, requests=5, sessions=sessions, usage=usage)
    return diagnostics, summary


def test_report_content_and_escaping():
    diagnostics, summary = _summary_and_diagnostics()
    html = render_html(diagnostics, summary)
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html and "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")
    assert "&lt;/pre&gt;&lt;script&gt;" in html
    # self-contained: no external resource of any kind
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:|//)", html)
    assert "@import" not in html and "url(" not in html
    # summary, timeline (one bar per request), the break marked, the byte diff
    assert "cache hit rate" in html and "money the misses cost" in html
    assert html.count("<div class='row") == 5
    assert html.count("<div class='row break'>") == 1
    assert "previous request at byte 1234" in html and "You are v2" in html
    assert "Findings outside a session (1)" in html and "record 9 is not JSON" in html
    # the break's money, exact from usage: 1640 tokens lost, paid at 3.75 instead of read at 0.30
    assert "this break cost $0.0057</span> (usage, 1,640 tokens)" in html


def test_clean_sessions_are_folded_and_sessions_with_findings_open():
    diagnostics, summary = _summary_and_diagnostics()
    html = render_html(diagnostics, summary)
    assert "<details class='session' id='session-s1' open>" in html
    clean = html[html.index("<details class='clean'>") :]
    assert clean.startswith("<details class='clean'><summary>1 session without findings</summary>")
    assert "<details class='session' id='session-s2'>" in clean  # folded, inside the clean group
    # the line that folds a session says what tells it apart
    (line,) = re.findall(r"<details class='session' id='session-s1' open><summary>.*?</summary>", html)
    assert "4 requests" in line and "2 findings" in line and "$" in line


def test_a_large_log_shows_its_first_clean_sessions_and_counts_the_rest(monkeypatch):
    import cachelint.report.html as html_report

    monkeypatch.setattr(html_report, "CLEAN_SESSIONS_SHOWN", 3)
    diagnostics, summary = _summary_and_diagnostics()
    extra = [
        SessionReport(f"s{i}", "history", "inferred", "log.jsonl", f"log.jsonl:{i}", "anthropic", "m", 1, 0)
        for i in range(3, 9)
    ]
    summary.sessions = [*summary.sessions, *extra]
    html = render_html(diagnostics, summary)
    assert "Sessions (8)" in html and "findings in 8 sessions;" in html
    assert "<details class='session' id='session-s1' open>" in html  # every session with a finding
    clean = html[html.index("<details class='clean'>") :]
    assert clean.startswith("<details class='clean'><summary>7 sessions without findings</summary>")
    assert "The first 3 shown; the 4 others are in the JSON report" in clean
    shown = re.findall(r"id='session-(s\d+)'", clean)
    assert shown == ["s2", "s3", "s4"]  # the first ones, in the log's order


def test_filters_by_severity_and_rule_without_a_script():
    diagnostics, summary = _summary_and_diagnostics()
    html = render_html(diagnostics, summary)
    for box in ("show-error", "show-warning", "show-CL001", "show-CL302", "show-CL305"):
        assert f"<input type='checkbox' id='{box}' checked>" in html
    assert "body:has(#show-CL302:not(:checked)) .finding.r-CL302 { display: none; }" in html
    assert "body:has(#show-warning:not(:checked)) .finding.warning { display: none; }" in html
    assert "<div class='finding error r-CL302'>" in html


def test_details_have_human_labels_and_the_footer_no_repository_path():
    diagnostics, summary = _summary_and_diagnostics()
    html = render_html(diagnostics, summary)
    labels = re.findall(r"<dt>(.*?)</dt>", html)
    for internal in ("first_tier", "cached_end", "tokens_basis"):
        assert internal not in labels
    assert {"first tier that differs", "end of the cached prefix (byte)", "tokens counted from"} <= set(labels)
    assert "rules/packs" not in html and "<footer>" in html


def test_misses_that_cost_nothing_say_why():
    from cachelint.report.audit_text import misses_cost

    total = {"breaks": 10, "break_money": 0.0, "break_tokens": 0, "break_money_estimated": False}
    said = misses_cost(total, "USD")
    assert said.startswith("10 cache misses found cost $0.0000: no cached tokens were lost")
    assert "minimum cacheable length" in said
    unpriced = misses_cost({**total, "break_money": None}, "USD")
    assert "n/a" in unpriced and "no price for the model" in unpriced
    assert misses_cost({"breaks": 0}, "USD") == "no cache miss found"


def test_report_without_usage_still_renders():
    html = render_html([Diagnostic(code="CL001", message="bad", path="x.jsonl")], AuditSummary())
    assert "Findings outside a session (1)" in html and "</html>" in html


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def _browser_or_skip() -> str:
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required in CI (.ci/run installs Debian's chromium package)")
        pytest.skip("chromium not installed")
    return browser


def _headless(browser: str, tmp_path: Path, size: str) -> list[str]:
    return [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / ('profile-' + size)}",
        f"--window-size={size}",
    ]


def _measured(browser: str, tmp_path: Path, html: str, size: str, probe: str) -> str:
    """What ``probe`` (a JavaScript expression) gives on the page laid out at ``size``. The
    report itself runs no script (its CSP forbids one): the probe runs in a page that holds a
    copy without that policy in a frame of that size (a headless window is never narrower than
    500 px; a frame is, and its media queries follow it)."""
    from html import escape

    width, height = size.split(",")
    inner = re.sub(r"<meta http-equiv='Content-Security-Policy'[^>]*>", "", html)
    page = tmp_path / f"probe-{width}.html"
    page.write_text(
        "<!DOCTYPE html><html><body style='margin:0'>"
        f"<iframe style='border:0' width='{width}' height='{height}' srcdoc=\"{escape(inner, quote=True)}\"></iframe>"
        "<script>const f = document.querySelector('iframe');"
        f" f.addEventListener('load', () => {{ document.title = 'R=' + f.contentWindow.eval({probe!r}); }});</script>"
        "</body></html>",
        encoding="utf-8",
    )
    dom = subprocess.run(
        _headless(browser, tmp_path, "1280,900") + ["--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r"<title>R=(.*?)</title>", dom.stdout)
    assert found, dom.stdout[-500:]
    return found.group(1)


def test_report_renders_in_headless_chromium(tmp_path):
    browser = _browser_or_skip()
    diagnostics, summary = _summary_and_diagnostics()
    html = render_html(diagnostics, summary)
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    dom = subprocess.run(
        _headless(browser, tmp_path, "1280,900") + ["--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "cachelint audit report" in dom.stdout
    assert "session s1" in dom.stdout and "You are v2" in dom.stdout
    assert "<script" not in dom.stdout  # the escaped prompt stayed text in the parsed DOM
    keep = os.environ.get("CACHELINT_KEEP_SCREENSHOT")
    for size in ("1280,900", "390,844"):
        shot = tmp_path / f"report-{size.replace(',', 'x')}.png"
        run = subprocess.run(
            _headless(browser, tmp_path, size) + [f"--screenshot={shot}", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert shot.is_file() and shot.stat().st_size > 10_000
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / shot.name)
        # nothing wider than the window: a phone scrolls down, never sideways
        widths = _measured(browser, tmp_path, html, size, "document.documentElement.scrollWidth + ' ' + innerWidth")
        scrolled, window = (int(w) for w in widths.split())
        assert window == int(size.split(",")[0]) and scrolled <= window, widths


def test_filters_hide_findings_in_headless_chromium(tmp_path):
    browser = _browser_or_skip()
    diagnostics, summary = _summary_and_diagnostics()
    html = render_html(diagnostics, summary)
    shown = "[...document.querySelectorAll('.finding')].filter(e => getComputedStyle(e).display !== 'none').length"
    assert _measured(browser, tmp_path, html, "1280,900", shown) == "3"
    without_cl302 = html.replace("id='show-CL302' checked", "id='show-CL302'")
    assert _measured(browser, tmp_path, without_cl302, "1280,900", shown) == "2"
    without_warnings = html.replace("id='show-warning' checked", "id='show-warning'")
    assert _measured(browser, tmp_path, without_warnings, "1280,900", shown) == "2"  # CL305 is a warning
    # a folded session keeps its findings out of the page's height until it is opened
    closed = "document.querySelector('#session-s2').open"
    assert _measured(browser, tmp_path, html, "1280,900", closed) == "false"


def test_cli_writes_the_html_report(tmp_path):
    import json

    from click.testing import CliRunner

    from cachelint.cli import main

    log = tmp_path / "run.jsonl"
    bodies = []
    for i in range(3):
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i}", CC)]
        system = "You are v1. " + text(6000, "policy") if i < 2 else "You are v2. " + text(6000, "policy")
        bodies.append(
            {
                "request": anthropic(sys_block(system), msgs),
                "response": a_usage(5, 1600 if i == 1 else 0, 1600),
                "time": at(i * 20),
            }
        )
    log.write_text("".join(json.dumps(b) + "\n" for b in bodies), encoding="utf-8")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["audit", str(log), "--isolated", "--output-format", "html", "-o", str(out)])
    assert result.exit_code == 1, result.output  # findings
    html = out.read_text(encoding="utf-8")
    assert "CL302" in html and "session s1" in html and html.count("<div class='row") == 3
    assert "this break cost $" in html
    assert CliRunner().invoke(main, ["audit", str(log), "--isolated", "--output-format", "html"]).exit_code == 2
