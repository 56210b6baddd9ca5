"""Causes first: findings of one rule, kind and tier across sessions are one cause with its count,
sessions and money; the text and HTML reports show the first findings of each cause in full and
count the rest; a session keeps the id its log gave it and lists its records."""

from __future__ import annotations

import json

from helpers import LONG_SYSTEM, TOOLS, anthropic, turns

from conftest import audit_records as audit_all

# every request writes and none reads: CL311 (written, never read) is true of these logs too; the
# tests look at the breaks
BREAKS = {"select": ["CL301", "CL302", "CL303", "CL304", "CL309"]}


def audit_records(tmp_path, records):
    return audit_all(tmp_path, records, config=BREAKS)


def _clocked(session: str, step: int, *, reorder: bool = False) -> dict:
    """A request of ``session`` whose cached system prompt ends with the time it was sent."""
    system = [
        {"type": "text", "text": f"{LONG_SYSTEM} Now: 2026-11-29T10:{step:02d}:0{len(session) % 10}Z"},
    ]
    system[0]["cache_control"] = {"type": "ephemeral"}
    body = anthropic(
        turns(2 * step + 1, tag=f"{session} "), system=system, tools=list(reversed(TOOLS)) if reorder else TOOLS
    )
    usage = {"input_tokens": 20, "cache_creation_input_tokens": 1500, "cache_read_input_tokens": 0, "output_tokens": 9}
    return {
        "request": body,
        "response": {"usage": usage},
        "session": session,
        "time": f"2026-11-29T10:{step:02d}:{len(session):02d}Z",
    }


def _log(sessions: int, steps: int, reorder_at: tuple[str, int] | None = None) -> list[dict]:
    names = [f"conversation-{i}" for i in range(sessions)]
    return [_clocked(name, step, reorder=(name, step) == reorder_at) for step in range(steps) for name in names]


def _full(result) -> str:
    from cachelint.report import render

    return render("full", result.diagnostics, summary=result.summary)


def test_a_clock_in_every_session_is_one_cause(tmp_path):
    result = audit_records(tmp_path, _log(sessions=5, steps=6))
    assert {d.code for d in result.diagnostics} == {"CL309"}
    (cause,) = result.summary.causes
    assert (cause.code, cause.kind, cause.tier) == ("CL309", "iso-timestamp", "system")
    assert cause.findings == len(result.diagnostics) == 25 and cause.lost == 25
    assert cause.sessions == [s.id for s in result.summary.sessions]  # every session, in their order
    total = result.summary.usage["total"]
    assert cause.money is not None and abs(cause.money - total["break_money"]) < 1e-9 and cause.money > 0
    assert cause.tokens == total["break_tokens"]


def test_causes_are_not_merged_across_rules_or_tiers(tmp_path):
    result = audit_records(tmp_path, _log(sessions=2, steps=3, reorder_at=("conversation-1", 2)))
    keys = [(c.code, c.kind, c.tier, c.findings) for c in result.summary.causes]
    assert sorted(keys) == [("CL301", "reordered", "tools", 1), ("CL309", "iso-timestamp", "system", 4)]
    # the reorder's break is priced once, for its first finding: the causes add up to the total
    money = sum(c.money or 0 for c in result.summary.causes)
    assert abs(money - result.summary.usage["total"]["break_money"]) < 1e-9


def test_full_text_shows_each_cause_once_and_three_findings_of_it(tmp_path):
    result = audit_records(tmp_path, _log(sessions=12, steps=5))
    text = _full(result)
    assert text.count("Causes (1), the costliest first:") == 1
    assert "  1. CL309 volatile-prefix-content (iso-timestamp in system): 48 findings in 12 sessions; cost $" in text
    assert sum(1 for line in text.splitlines() if " CL309 volatile-prefix-content · record " in line) == 3
    # report order is the log's: the first three findings are in the first three sessions
    assert "… 9 more sessions whose 36 findings are all of the causes above" in text
    assert text.count("… 3 more findings of the causes above in this session") == 3
    assert len(text.splitlines()) < 80
    concise = result.diagnostics and __import__("cachelint.report", fromlist=["render"]).render(
        "concise", result.diagnostics, summary=result.summary
    )
    assert sum(1 for line in concise.splitlines() if ": CL309 " in line) == 48  # concise lists every one


def test_one_finding_has_no_causes_section(tmp_path):
    result = audit_records(tmp_path, _log(sessions=1, steps=2))
    assert len(result.diagnostics) == 1 and len(result.summary.causes) == 1
    assert "Causes (" not in _full(result)


def test_counts_are_each_explained_once(tmp_path):
    text = _full(audit_records(tmp_path, _log(sessions=2, steps=3)))
    assert text.count("Prefix breaks: 4, each a request whose prefix differs") == 1
    assert text.count("Cache misses: 4, each a request that could not read") == 1


def test_sessions_keep_the_logs_id_and_list_their_records(tmp_path):
    from cachelint.report import render

    result = audit_records(tmp_path, _log(sessions=2, steps=3))
    by_key = {s.key: s for s in result.summary.sessions}
    assert set(by_key) == {"conversation-0", "conversation-1"}
    assert [r for _, r in by_key["conversation-0"].records] == [0, 2, 4]
    assert [r for _, r in by_key["conversation-1"].records] == [1, 3, 5]
    data = json.loads(render("json", result.diagnostics, summary=result.summary))
    sessions = {s["key"]: s for s in data["summary"]["sessions"]}
    assert sessions["conversation-1"]["records"] == [{"path": "log.jsonl", "record": r} for r in (1, 3, 5)]
    assert [c["code"] for c in data["summary"]["causes"]] == ["CL309"]
    assert "session conversation-0 (s1, envelope session) —" in _full(result)


def test_html_folds_the_repeats_of_a_cause(tmp_path):
    from cachelint.report.html import render_html

    result = audit_records(tmp_path, _log(sessions=12, steps=5))
    html = render_html(result.diagnostics, result.summary)
    assert html.count("<div class='finding error") == 3  # in full
    assert html.count("<div class='finding folded error") == 12  # one line a session and cause
    assert "<h2 id='causes'>Causes (1), the costliest first</h2>" in html
    assert html.count("<details class='session' id=") == 12 and html.count("' open>") == 3


def test_below_minimum_notes_are_one_per_session_and_one_cause(tmp_path):
    """A marker on a prompt below the model's minimum, in every request of five sessions: one note
    a session (CL305), one cause for the run."""
    records = []
    for step in range(4):
        for i in range(5):
            body = anthropic(turns(2 * step + 1, tag=f"s{i} "), system=[{"type": "text", "text": "Short."}])
            body["system"][0]["cache_control"] = {"type": "ephemeral"}
            records.append({"request": body, "session": f"chat-{i}"})
    result = audit_all(tmp_path, records, config={"select": ["CL305"]})
    notes = [d for d in result.diagnostics if d.kind == "below-minimum"]
    assert sorted(d.session for d in notes) == sorted(s.id for s in result.summary.sessions)
    (cause,) = [c for c in result.summary.causes if c.kind == "below-minimum"]
    assert (cause.findings, len(cause.sessions)) == (5, 5)


def test_misses_with_the_prefix_intact_are_counted_as_the_providers(tmp_path):
    system = "You review pull requests for the payments team. " * 150
    records = []
    for step, cached in enumerate((0, 1536, 0, 1536)):
        body = {"model": "gpt-5", "messages": [{"role": "system", "content": system}, *turns(2 * step + 1)]}
        usage = {"prompt_tokens": 1700 + 40 * step, "prompt_tokens_details": {"cached_tokens": cached}}
        records.append(
            {"request": body, "response": {"usage": usage}, "session": "s", "time": f"2026-11-30T10:0{step}:00Z"}
        )
    # the same log whose system prompt ticks: a miss the code caused, not the provider's
    ticked = json.loads(json.dumps(records))
    ticked[2]["request"]["messages"][0]["content"] = system + " Now: 10:02."
    ticked[3]["request"]["messages"][0]["content"] = system + " Now: 10:02."
    held = audit_all(tmp_path / "held", records, config={"select": ["CL302", "CL308", "CL309"]})
    assert [d.code for d in held.diagnostics] == ["CL308"]
    total = held.summary.usage["total"]
    assert (total["breaks"], total["provider_misses"]) == (1, 1)
    assert "Of them 1 with the prefix intact: the provider's side" in _full(held)
    broken = audit_all(tmp_path / "broken", ticked, config={"select": ["CL302", "CL308", "CL309"]})
    assert [d.code for d in broken.diagnostics] == ["CL302"]
    assert broken.summary.usage["total"]["provider_misses"] == 0
    assert "the provider's side" not in _full(broken)
