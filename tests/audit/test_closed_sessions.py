"""A session's report entries are made as it closes: an audit holds the sessions still open (and
the few whose findings wait for the run's selection), not every session it read. Past a bound the
entries wait in a temporary file, masked, and every output is the same byte for byte."""

from __future__ import annotations

import gc
import json
import random
from pathlib import Path

import pytest

from cachelint.api import audit_logs
from cachelint.payloads import SessionReport, session_reports
from cachelint.payloads.model import Session
from cachelint.payloads.pipeline import AuditPipeline
from cachelint.payloads.spend import UsageTotals, ledger_for
from tests.conftest import invoke_in

URL = "https://api.anthropic.com/v1/messages"
KEY = "sk-ant-api03-" + "Q7x" * 30  # made up: the shape of an Anthropic key
WINDOW = 100


def _usage(i: int) -> dict:
    return {
        "input_tokens": 12 + i % 7,
        "cache_creation_input_tokens": 0 if i % 3 else 1100,
        "cache_read_input_tokens": 1100 if i % 3 else 0,
        "output_tokens": 9,
    }


def _line(i: int, body: dict, usage: dict | None) -> str:
    record = {"url": URL, "time": f"2026-12-01T10:{(i // 60) % 60:02d}:{i % 60:02d}Z", "request": body}
    if usage is not None:
        record["response"] = {"id": f"msg_{i}", "usage": usage}
    return json.dumps(record)


def _one_request_sessions(path: Path, n: int) -> Path:
    """``n`` agents of their own system prompt, one request each, answered with usage."""
    lines = []
    for i in range(n):
        system = [
            {"type": "text", "text": f"You are agent {i}. Answer briefly.", "cache_control": {"type": "ephemeral"}}
        ]
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 8,
            "system": system,
            "messages": [{"role": "user", "content": f"hi {i}"}],
        }
        lines.append(_line(i, body, _usage(i)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _mixed_sessions(path: Path, n: int) -> Path:
    """Sessions of one to three requests, interleaved: some break their prefix (a tool added, the
    time in the system prompt), some carry a key in their system prompt (masked), some have no usage."""
    rng = random.Random(3)
    pending: list[list[tuple[dict, dict | None]]] = []
    for i in range(n):
        system = f"You grade answers of team {i}." + (f" Key: {KEY}" if i % 5 == 0 else "")
        turns: list[tuple[dict, dict | None]] = []
        for turn in range(1 + i % 3):
            messages = [{"role": "user", "content": f"question {i}"}]
            for k in range(turn):
                messages += [{"role": "assistant", "content": f"answer {k}"}, {"role": "user", "content": f"more {k}"}]
            body: dict = {"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": messages}
            body["system"] = system + (f" Now: 2026-12-01T10:00:{turn:02d}Z" if i % 4 == 1 else "")
            if i % 3 == 2:  # a tool added after the first turn
                names = [f"t{i}", f"u{i}"][: 1 + (turn > 0)]
                body["tools"] = [
                    {"name": name, "description": "d", "input_schema": {"type": "object"}} for name in names
                ]
            turns.append((body, None if i % 7 == 0 else _usage(i + turn)))
        pending.append(turns)
    lines = []
    count = 0
    while pending:  # sessions interleaved, each in order
        turns = rng.choice(pending)
        body, usage = turns.pop(0)
        lines.append(_line(count, body, usage))
        count += 1
        if not turns:
            pending.remove(turns)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _window(root: Path, records: int) -> None:
    (root / "pyproject.toml").write_text(f"[tool.cachelint.audit]\nsession-window = {records}\n", encoding="utf-8")


def test_closed_sessions_are_not_held_until_the_end(tmp_path, monkeypatch):
    monkeypatch.setattr(session_reports, "HELD_SESSIONS", 50)
    _window(tmp_path, WINDOW)
    log = _one_request_sessions(tmp_path / "log.jsonl", 2000)
    seen: dict[str, int] = {}
    finish = AuditPipeline.finish

    def counting_finish(self, select=None):
        # after the last record, before the sessions still open are closed
        gc.collect()
        live = gc.get_objects()
        seen["waiting"] = len(self.sessions)
        seen["sessions"] = sum(1 for o in live if type(o) is Session)
        seen["reports"] = sum(1 for o in live if type(o) is SessionReport)
        seen["facts"] = len(self.ledger.facts)
        return finish(self, select)

    monkeypatch.setattr(AuditPipeline, "finish", counting_finish)
    result = audit_logs([log], cwd=tmp_path)
    # sessions close WINDOW records after their last request, checked every 256 records
    bound = WINDOW + 256
    assert seen["waiting"] <= bound and seen["sessions"] <= bound and seen["facts"] <= bound, seen
    assert seen["reports"] <= 50, seen  # the rest are in the file
    summary = result.summary
    assert len(summary.sessions) == 2000 and summary.usage["total"]["sessions"] == 2000
    assert [s.id for s in summary.sessions][-3:] == ["s1998", "s1999", "s2000"]
    assert summary.sessions[-1].usage == summary.usage["sessions"][1999]
    gc.collect()
    assert sum(1 for o in gc.get_objects() if type(o) is SessionReport) <= 50


def _outputs(root: Path, *options: str) -> dict[str, bytes]:
    out = {}
    for fmt in ("concise", "full", "json", "sarif", "github", "html"):
        to_file = ["-o", str(root / "report.html")] if fmt == "html" else []
        result = invoke_in(root, "audit", "log.jsonl", "--output-format", fmt, *options, *to_file)
        out[fmt] = (root / "report.html").read_bytes() if to_file else result.stdout_bytes
        out[fmt + " exit"] = bytes([result.exit_code])
    return out


@pytest.mark.parametrize("options", [(), ("--ignore", "CL301"), ("--select", "CL302,CL309")])
def test_outputs_are_the_same_with_the_entries_in_a_file(tmp_path, monkeypatch, options):
    _window(tmp_path, 20)  # most sessions close during the run
    _mixed_sessions(tmp_path / "log.jsonl", 120)
    monkeypatch.setattr(session_reports, "HELD_SESSIONS", 10**9)
    held = _outputs(tmp_path, *options)
    assert b"s120" in held["json"] and b"Q7x" * 5 not in held["json"]
    assert b"CL301" in held["concise"] or options
    # a break counts only where a finding that reports it is kept (the selection at the end)
    data = json.loads(held["json"])
    reported = {(f["path"], f["record"]) for f in data["findings"] if f["code"] in ("CL301", "CL302", "CL309")}
    assert data["summary"]["totals"]["breaks"] == len(reported) > 0
    for limit in (0, 7):
        monkeypatch.setattr(session_reports, "HELD_SESSIONS", limit)
        assert _outputs(tmp_path, *options) == held


def test_outputs_are_the_same_with_every_session_open_to_the_end(tmp_path, monkeypatch):
    """With a window longer than the log no session closes before the run's end: every entry is
    made there, after the selection, as before entries were made as sessions closed."""
    _mixed_sessions(tmp_path / "log.jsonl", 60)
    _window(tmp_path, 20)
    early = _outputs(tmp_path, "--ignore", "CL309")
    _window(tmp_path, 10**6)
    late = _outputs(tmp_path, "--ignore", "CL309")
    assert early == late


def test_entries_in_the_file_are_masked(tmp_path, monkeypatch):
    from cachelint.payloads.session_reports import SessionReports

    written: list[bytes] = []
    write = SessionReports._write

    def keep(self, report):
        import pickle

        written.append(pickle.dumps(report))
        return write(self, report)

    monkeypatch.setattr(SessionReports, "_write", keep)
    monkeypatch.setattr(session_reports, "HELD_SESSIONS", 0)
    _window(tmp_path, 20)
    _mixed_sessions(tmp_path / "log.jsonl", 40)
    result = audit_logs([tmp_path / "log.jsonl"], cwd=tmp_path)
    assert len(written) == len(result.summary.sessions) == 40
    excerpts = [b.before or "" for s in result.summary.sessions for b in s.break_details]
    assert any("Key: " in e and "*" in e for e in excerpts)  # an excerpt that shows where the key was
    assert not any(KEY[20:].encode() in w for w in written)


def test_the_file_is_removed_with_the_entries():
    entry = SessionReport("s1", "single", "a single request", "a.jsonl", "a.jsonl:1", None, None, 1, 0)
    reports = session_reports.SessionReports(held=0)
    reports.put(0, entry)
    assert list(reports) == [entry] and reports[-1] == entry and reports == [entry]
    file = reports._file
    assert file is not None and not file.closed
    del reports
    gc.collect()
    assert file.closed


def test_usage_totals_do_not_depend_on_the_order_entries_come_in():
    ledger = ledger_for(None)
    entries = []
    for i in range(300):
        money = None if i % 11 == 0 else 0.1 * i / 7
        entries.append(
            {
                "requests": 1 + i % 3,
                "requests_with_usage": i % 3,
                "tokens": {"read": i, "written": 2 * i, "uncached": 3},
                "money": money,
                "money_without_cache": None if money is None else money * 3.3,
                "breaks": [{"codes": ["CL301"], "cost": {"money": 0.001 * i, "tokens": i}}] if i % 13 == 0 else [],
                "break_tokens": i if i % 13 == 0 else 0,
                "break_money_estimated": i % 17 == 0,
                "disagreements": i % 2,
                **({"ttl_advice": {"pays": True, "saving": i / 3}} if i % 29 == 0 else {}),
            }
        )
    in_order = UsageTotals(frozenset({"CL308"}))
    for place, entry in enumerate(entries):
        in_order.add(place, entry)
    shuffled = UsageTotals(frozenset({"CL308"}))
    places = list(range(len(entries)))
    random.Random(5).shuffle(places)
    for place in places:
        shuffled.add(place, entries[place])
    assert json.dumps(shuffled.result()) == json.dumps(in_order.result())
    priced = [e["money"] for e in entries if e["money"] is not None]
    assert in_order.result()["money"] == round(sum(priced), 6)  # the sessions' order, not the arrival's
    assert ledger.summary()["total"] == UsageTotals().result()
    unpriced = UsageTotals()
    unpriced.add(0, {**entries[0], "money": None, "money_without_cache": None})
    assert unpriced.result()["money"] is None and unpriced.result()["money_without_cache"] is None
