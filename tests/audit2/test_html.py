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
from cachelint.payloads import AuditSummary
from cachelint.payloads.spend import ledger_for
from cachelint.report.html import render_html

from .conftest import CC, a_usage, anthropic, assistant, at, make_requests, sys_block, text, user

EVIL = "</pre><script>alert('x')</script><img src=x onerror=alert(1)>"


def _summary_and_diagnostics():
    records = []
    for i in range(4):
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i} {EVIL}", CC)]
        usage = [a_usage(5, 0, 1600), a_usage(5, 1600, 40), a_usage(8, 0, 1700), a_usage(5, 1700, 30)][i]
        records.append({"request": anthropic(sys_block(text(6000, "policy")), msgs), "response": usage, "time": at(i * 30)})
    reqs = make_requests(records)
    ledger = ledger_for(None)
    prev = None
    for req in reqs:
        ledger.add(req, prev)
        prev = req
    diagnostics = [
        Diagnostic(
            code="CL302",
            message=f"system changed {EVIL}",
            path="log.jsonl",
            line=3,
            record=2,
            session="s1",
            details={"offset": 1234, "excerpt_before": f"You are {EVIL} v1", "excerpt_after": "You are v2", "tier": "system"},
        ),
        Diagnostic(code="CL001", message="record 9 is not JSON", path="other.jsonl", line=9),
    ]
    summary = AuditSummary(files=2, requests=len(reqs), usage=ledger.summary(diagnostics))
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
    assert html.count("<div class='row") == 4
    assert html.count("<div class='row break'>") == 1
    assert "previous request at byte 1234" in html and "You are v2" in html
    assert "Other findings (1)" in html and "record 9 is not JSON" in html
    # the break's money, exact from usage: 1640 tokens lost, paid at 3.75 instead of read at 0.30
    assert "this break cost $0.0057 (usage, 1,640 tokens)" in html
    # the index of sessions: one row each, what tells them apart, the sessions with findings flagged
    (row,) = re.findall(r"<tr class='flag'>.*?</tr>", html)
    assert "href='#session-s1'" in row and ">4</td>" in row and "$0.0057" in row and ">1</td>" in row


def test_report_without_usage_still_renders():
    html = render_html([Diagnostic(code="CL001", message="bad", path="x.jsonl")], {})
    assert "Other findings (1)" in html and "</html>" in html


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def test_report_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required in CI (.ci/run installs Debian's chromium package)")
        pytest.skip("chromium not installed")
    diagnostics, summary = _summary_and_diagnostics()
    page = tmp_path / "report.html"
    page.write_text(render_html(diagnostics, summary), encoding="utf-8")
    shot = tmp_path / "report.png"
    common = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000",
    ]
    dom = subprocess.run(common + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "cachelint audit report" in dom.stdout
    assert "Session s1" in dom.stdout and "You are v2" in dom.stdout
    assert "<script" not in dom.stdout  # the escaped prompt stayed text in the parsed DOM
    shot_run = subprocess.run(common + [f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot_run.returncode == 0, shot_run.stderr[-2000:]
    assert shot.is_file() and shot.stat().st_size > 10_000
    keep = os.environ.get("CACHELINT_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


def test_cli_writes_the_html_report(tmp_path):
    import json

    from click.testing import CliRunner

    from cachelint.cli import main

    log = tmp_path / "run.jsonl"
    bodies = []
    for i in range(3):
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i}", CC)]
        system = "You are v1. " + text(6000, "policy") if i < 2 else "You are v2. " + text(6000, "policy")
        bodies.append({"request": anthropic(sys_block(system), msgs), "response": a_usage(5, 1600 if i == 1 else 0, 1600), "time": at(i * 20)})
    log.write_text("".join(json.dumps(b) + "\n" for b in bodies), encoding="utf-8")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["audit", str(log), "--isolated", "--output-format", "html", "-o", str(out)])
    assert result.exit_code == 1, result.output  # findings
    html = out.read_text(encoding="utf-8")
    assert "CL302" in html and "Session s1" in html and html.count("<div class='row") == 3
    assert "this break cost $" in html
    assert CliRunner().invoke(main, ["audit", str(log), "--isolated", "--output-format", "html"]).exit_code == 2
