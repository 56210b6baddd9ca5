"""The usage and money summary: hand-computed hit rates, money, break costs, provider verdicts and
the evidence-based 1h TTL advice (docs/background/agent-patterns.md#choosing-the-ttl-by-evidence)."""

from __future__ import annotations

import pytest

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.spend import ledger_for, summarize_usage
from cachelint.report.audit_text import render_usage as render_usage_text
from cachelint.payloads.model import Session

from .conftest import CC, a_usage, anthropic, assistant, at, make_requests, sys_block, text, user

BIG = text(6000, "policy")


def _session(usages, gaps, marker=CC):
    records = []
    t = 0.0
    for i, usage in enumerate(usages):
        t += gaps[i]
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i}", marker)]
        rec = {"request": anthropic(sys_block(BIG, marker), msgs), "time": at(t)}
        if usage is not None:
            rec["response"] = usage
        records.append(rec)
    return make_requests(records)


def _summary(reqs, diagnostics=()):
    return summarize_usage([Session(id="s1", grouping="history", requests=reqs, count=len(reqs))], list(diagnostics))


def test_totals_hit_rate_and_money():
    reqs = _session(
        [a_usage(5, 0, 1600), a_usage(5, 1600, 40), a_usage(8, 0, 1700), a_usage(5, 1700, 30)], [0, 30, 30, 30]
    )
    s = _summary(reqs)
    one = s["sessions"][0]
    assert one["tokens"] == {"read": 3300, "written": 3370, "uncached": 23, "prompt": 6693}
    assert one["hit_rate"] == pytest.approx(0.4931)
    # Sonnet 4.5: 23*3 + 3300*0.30 + 3370*3.75 = 69 + 990 + 12637.5 = 13696.5 per million
    assert one["money"] == pytest.approx(0.0136965, abs=1e-6)
    assert one["money_without_cache"] == pytest.approx(6693 * 3 / 1e6)
    assert s["total"]["hit_rate"] == one["hit_rate"] and s["prices_as_of"] == "2026-11-29"
    assert [e["read"] for e in one["timeline"]] == [0, 1600, 0, 1700]


def test_break_cost_exact_from_usage():
    reqs = _session([a_usage(5, 0, 1600), a_usage(5, 1600, 40), a_usage(8, 0, 1700)], [0, 30, 30])
    brk = Diagnostic(code="CL302", message="system changed", path="log.jsonl", line=3, record=2, session="s1")
    s = _summary(reqs, [brk])
    [entry] = s["sessions"][0]["breaks"]
    # expected read 1600 + 40 = 1640, read 0; written 1700 covers it at 3.75 instead of 0.30
    assert entry["cost"] == {
        "tokens": 1640,
        "money": pytest.approx(1640 * 3.45 / 1e6),
        "currency": "USD",
        "basis": "usage",
    }
    assert s["total"]["break_money"] == pytest.approx(0.005658)
    assert not s["total"]["break_money_estimated"]


def test_break_cost_estimated_without_usage():
    reqs = _session([None, None], [0, 30])
    brk = Diagnostic(code="CL306", message="expired", path="log.jsonl", line=2, record=1, session="s1")
    s = _summary(reqs, [brk])
    cost = s["sessions"][0]["breaks"][0]["cost"]
    assert cost["basis"].startswith("estimate")
    # the previous request cached up to the end of its marked message: bytes / 4 tokens, all lost
    end = reqs[0].messages[-1].end
    assert cost["tokens"] == round(end / 4)
    assert s["sessions"][0]["estimated_prompt_tokens_without_usage"] > 0
    assert "(estimate)" in render_usage_text(s)


def test_ttl_advice_when_pauses_rewrite_twice():
    usages = [a_usage(10, 0, 10000), a_usage(10, 0, 10050), a_usage(10, 0, 10100)]
    s = _summary(_session(usages, [0, 600, 600]))
    advice = s["sessions"][0]["ttl_advice"]
    assert advice["tokens_rewritten"] == 20050 and advice["basis"] == "usage"
    # now: 20050 rewritten at 3.75; with 1h: read at 0.30, the other 10100 written at 6.00 not 3.75
    assert advice["saving"] == pytest.approx((20050 * 3.75 - 20050 * 0.30 - 10100 * 2.25) / 1e6, abs=1e-6)
    assert advice["pays"] is True
    assert "a 1h TTL would have saved $0.0464" in render_usage_text(s)
    assert s["total"]["ttl_saving"] == pytest.approx(advice["saving"])


def test_no_ttl_advice_for_one_pause_or_short_gaps_or_1h_markers():
    one_pause = [a_usage(10, 0, 10000), a_usage(10, 0, 10050), a_usage(10, 10050, 50)]
    assert "ttl_advice" not in _summary(_session(one_pause, [0, 600, 30]))["sessions"][0]
    quick = [a_usage(10, 0, 10000), a_usage(10, 10000, 50), a_usage(10, 10050, 50)]
    assert "ttl_advice" not in _summary(_session(quick, [0, 60, 60]))["sessions"][0]
    hour = [a_usage(10, 0, 10000), a_usage(10, 0, 10050), a_usage(10, 0, 10100)]
    assert (
        "ttl_advice"
        not in _summary(_session(hour, [0, 600, 600], marker={"type": "ephemeral", "ttl": "1h"}))["sessions"][0]
    )


def test_provider_verdict_beside_our_diff():
    usages = [
        a_usage(5, 0, 1600),
        dict(
            a_usage(5, 0, 1640),
            diagnostics={"cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 1600}},
        ),
    ]
    reqs = _session(usages, [0, 30])
    ledger = ledger_for(None)
    ledger.add(reqs[0])
    ledger.add(reqs[1], reqs[0])  # no PrefixDiff: our side names no tier
    s = ledger.summary()
    [verdict] = s["sessions"][0]["provider_verdicts"]
    assert verdict["provider_reason"] == "tools_changed" and verdict["agrees"] is False
    assert s["total"]["disagreements"] == 1
    assert "provider says tools_changed, our diff says prefix intact: they disagree" in render_usage_text(s)


def test_unknown_model_has_no_money_but_tokens():
    reqs = _session([a_usage(5, 0, 1600)], [0])
    reqs[0].model = "some-private-model"
    one = _summary(reqs)["sessions"][0]
    assert one["money"] is None and one["requests_unpriced"] == 1 and one["tokens"]["written"] == 1600


def test_the_timeline_is_built_only_when_asked(tmp_path, monkeypatch):
    """One entry per request is what the HTML report draws; the CLI's other outputs do without it,
    so a long log's memory does not grow with it."""
    import json

    from click.testing import CliRunner

    from cachelint.api import audit_logs
    from cachelint.cli import main
    from cachelint.config import load_settings
    from cachelint.payloads import AuditOptions

    records = [
        {"request": anthropic(sys_block(BIG, CC), [user("q0", CC)]), "time": at(0), "response": a_usage(10, 0, 2000)}
    ]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    settings = load_settings(tmp_path, isolated=True)
    with_timeline = audit_logs(["log.jsonl"], settings, AuditOptions(), tmp_path).summary.usage["sessions"][0]
    without = audit_logs(["log.jsonl"], settings, AuditOptions(timeline=False), tmp_path).summary.usage["sessions"][0]
    assert len(with_timeline["timeline"]) == 1 and "timeline" not in without
    assert {k: v for k, v in with_timeline.items() if k != "timeline"} == without
    monkeypatch.chdir(tmp_path)
    CliRunner().invoke(main, ["audit", "log.jsonl", "--isolated", "--output-format", "html", "-o", "report.html"])
    assert "class='row" in (tmp_path / "report.html").read_text(encoding="utf-8")  # one bar per request
