"""--since / --until on the times of the requests (not only on object storage's time partitions):
a request outside the window takes no part in the audit, one without a time is kept, both are
counted in the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import LONG_SYSTEM, anthropic, turns

from cachelint.api import audit_logs
from cachelint.cli import main
from cachelint.payloads import AuditOptions


def _line(body: dict, time: str | None) -> str:
    record: dict = {"request": body, "response": {"usage": {"input_tokens": 10, "output_tokens": 5}}}
    if time is not None:
        record["time"] = time
    return json.dumps(record)


def _log(tmp_path: Path, times: list[str | None], clock_from: int | None = None) -> Path:
    """One growing conversation, a request a time; from request ``clock_from`` on the system
    prompt carries the request's time (each of those requests breaks the cache)."""
    lines = []
    for i, when in enumerate(times):
        system = LONG_SYSTEM if clock_from is None or i < clock_from else f"{LONG_SYSTEM} Now: {when}"
        lines.append(_line(anthropic(turns(2 * i + 1), system=system), when))
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _audit(path: Path, **window):
    return audit_logs([str(path)], options=AuditOptions(progress=False, jobs=1, **window), cwd=path.parent)


TIMES = [f"2026-12-01T{h:02d}:00:00Z" for h in (8, 9, 10, 11, 12, 13)]


def test_requests_outside_the_window_are_left_out_and_counted(tmp_path):
    log = _log(tmp_path, TIMES, clock_from=1)  # requests 1-5 each break the cache
    everything = _audit(log)
    assert everything.summary.requests == 6 and everything.summary.breaks == 5
    assert everything.summary.time_window is None

    kept = _audit(log, since="2026-12-01T10:00", until="2026-12-01T12:00Z")
    assert kept.summary.requests == 3  # 10:00, 11:00, 12:00: both ends included
    assert kept.summary.records == 6  # every record was read
    assert kept.summary.time_window == {
        "since": "2026-12-01T10:00:00",
        "until": "2026-12-01T12:00:00",
        "outside": 3,
        "untimed": 0,
    }
    # the window's first request starts the session: it is compared with nothing before it
    assert kept.summary.breaks == 2
    assert sorted(d.record for d in kept.diagnostics if d.code == "CL309") == [3, 4]  # 0-based records


def test_a_time_with_a_zone_is_placed_in_utc(tmp_path):
    log = _log(tmp_path, ["2026-12-01T12:30:00+02:00", "2026-12-01T11:30:00Z"])  # 10:30 and 11:30 UTC
    result = _audit(log, since="2026-12-01T11:00")
    assert result.summary.requests == 1
    assert result.summary.time_window["outside"] == 1


def test_a_date_alone_as_until_keeps_its_whole_day(tmp_path):
    log = _log(tmp_path, ["2026-11-30T23:59:59Z", "2026-12-01T23:59:00Z", "2026-12-02T00:00:00Z"])
    result = _audit(log, since="2026-12-01", until="2026-12-01")
    assert result.summary.requests == 1
    assert result.summary.time_window["outside"] == 2
    assert result.summary.time_window["until"] == "2026-12-01T23:59:59.999999"


def test_requests_without_a_time_are_kept_and_counted(tmp_path):
    log = _log(tmp_path, [None, "2026-12-01T08:00:00Z", None])
    result = _audit(log, since="2026-12-01T09:00")
    assert result.summary.requests == 2
    assert result.summary.time_window["untimed"] == 2
    assert result.summary.time_window["outside"] == 1


@pytest.mark.parametrize("output", ["full", "concise"])
def test_the_text_reports_say_what_the_window_left_out(tmp_path, output):
    log = _log(tmp_path, [*TIMES[:2], None])
    run = CliRunner().invoke(
        main, ["audit", str(log), "--isolated", "--since", "2026-12-01T09:00", "--output-format", output]
    )
    assert run.exit_code in (0, 1), run.output
    assert (
        "Time window from 2026-12-01T09:00:00 to the end (UTC): 1 request outside it left out;"
        " 1 request without a time kept (they cannot be placed)." in run.output
    )
    plain = CliRunner().invoke(main, ["audit", str(log), "--isolated", "--output-format", output])
    assert "Time window" not in plain.output


def test_the_json_report_carries_the_window_only_when_one_is_given(tmp_path):
    log = _log(tmp_path, TIMES[:3])
    given = CliRunner().invoke(
        main, ["audit", str(log), "--isolated", "--until", "2026-12-01T08:30", "--output-format", "json"]
    )
    summary = json.loads(given.output)["summary"]
    assert summary["time_window"] == {"since": None, "until": "2026-12-01T08:30:00", "outside": 2, "untimed": 0}
    assert summary["requests"] == 1
    plain = CliRunner().invoke(main, ["audit", str(log), "--isolated", "--output-format", "json"])
    assert "time_window" not in json.loads(plain.output)["summary"]
