"""Inspect eval logs: the provider's own request of each model event, restored from Inspect's
condensed form (the message-list pool, attachments), its own cache's answers left out, samples and
model roles as sessions, and the archive's bounds."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.catalog import load_packs
from cachelint.config import load_settings
from cachelint.diagnostics import Diagnostic
from cachelint.payloads.formats.registry import read_bytes_as_log
from cachelint.payloads.model import Record
from cachelint.payloads.readers.files import ReadLimits
from cachelint.payloads.secrets import Redactor

SYSTEM = "You grade essays on a scale from 0 to 10 and explain the grade in two sentences. " * 20
SYSTEM_REF = "attachment://0f1e2d3c"


def call(messages_refs=None, messages=None, system=SYSTEM_REF, read=0, key="messages"):
    request = {"model": "claude-sonnet-4-5", "max_tokens": 64, "system": system}
    if messages is not None:
        request[key] = messages
    out = {
        "request": request,
        "response": {
            "id": "m",
            "type": "message",
            "usage": {"input_tokens": 5, "cache_read_input_tokens": read, "output_tokens": 3},
        },
    }
    if messages_refs is not None:
        out["call_refs"] = messages_refs
        out["call_key"] = key
    return out


def model_event(c, time="2026-11-29T10:00:00+00:00", **extra):
    return {"event": "model", "timestamp": time, "model": "anthropic/claude-sonnet-4-5", "call": c, **extra}


def sample(events, sid="essay-1", epoch=1, calls=(), attachments=None):
    return {
        "id": sid,
        "epoch": epoch,
        "input": "x",
        "events": events,
        "attachments": {"0f1e2d3c": SYSTEM} if attachments is None else attachments,
        "events_data": {"messages": [], "calls": list(calls)},
    }


def log(*samples) -> bytes:
    return json.dumps(
        {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": list(samples)}, indent=2
    ).encode()


def read(data: bytes, name: str = "log.json", limits: ReadLimits = ReadLimits()) -> list:
    return read_bytes_as_log(data, name, "auto", Redactor.from_packs(load_packs("payloads-secrets")), limits)


Q1 = {"role": "user", "content": "Grade essay one."}
A1 = {"role": "assistant", "content": "7: clear but short."}
Q2 = {"role": "user", "content": "And essay two?"}


def test_the_pooled_messages_and_attachments_are_restored():
    pool = [Q1, A1, Q2]
    events = [
        {"event": "sample_init", "timestamp": "2026-11-29T09:59:59+00:00"},
        model_event(call([[0, 1]])),
        model_event(call([[0, 3]], read=1200), time="2026-11-29T10:00:30+00:00"),
    ]
    records = read(log(sample(events, calls=pool)))
    assert [type(r) for r in records] == [Record, Record]
    first, second = records
    assert first.request["system"] == SYSTEM and first.request["messages"] == [Q1]
    assert second.request["messages"] == [Q1, A1, Q2]
    assert second.response["usage"]["cache_read_input_tokens"] == 1200
    assert second.time.isoformat() == "2026-11-29T10:00:30+00:00"
    assert first.fmt == "inspect" and (first.origin.record, second.origin.record) == (0, 1)
    # the list's own name (Gemini's ``contents``) is kept
    (gemini,) = read(log(sample([model_event(call([[0, 1]], key="contents"))], calls=[Q1])))
    assert gemini.request["contents"] == [Q1] and "messages" not in gemini.request


def test_calls_inspect_answered_from_its_cache_and_events_without_a_call_are_not_requests(tmp_path: Path):
    events = [
        model_event(call(messages=[Q1])),
        model_event(call(messages=[Q1]), cache="read"),
        {"event": "model", "timestamp": "2026-11-29T10:00:05+00:00", "model": "anthropic/claude-sonnet-4-5"},
        {"event": "subtask", "events": [model_event(call(messages=[Q1, A1, Q2]), time="2026-11-29T10:01:00+00:00")]},
    ]
    (tmp_path / "log.json").write_bytes(log(sample(events)))
    result = audit_logs(["."], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    assert result.summary.requests == 2  # the first call and the subtask's; the cached answer never left
    # the event without the provider's request is named, with the reason
    (notice,) = [d for d in result.diagnostics if d.code == "CL001"]
    assert "1 record(s) are Inspect model events without the provider's request" in notice.message


def test_broken_call_refs_are_a_finding_at_the_sample():
    items = read(log(sample([model_event(call("nonsense"))])))
    (problem,) = items
    assert isinstance(problem, Diagnostic) and problem.code == "CL001" and "call_refs" in problem.message


def test_samples_epochs_and_roles_are_sessions_of_their_own(tmp_path: Path):
    solver = [
        model_event(call(messages=[Q1])),
        model_event(call(messages=[Q1, A1, Q2]), time="2026-11-29T10:00:20+00:00"),
    ]
    grader = model_event(
        call(messages=[{"role": "user", "content": "Was the grade fair?"}], system="You check grades."),
        time="2026-11-29T10:00:25+00:00",
        role="grader",
    )
    (tmp_path / "log.json").write_bytes(
        log(
            sample([*solver, grader], sid="essay-1"),
            sample(list(solver), sid="essay-2"),
            sample(list(solver), sid="essay-1", epoch=2),
        )
    )
    result = audit_logs(["."], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    sessions = result.summary.sessions
    assert sorted(s.requests for s in sessions) == [1, 2, 2, 2]
    assert not [d for d in result.diagnostics if d.code.startswith("CL30")]  # no break between them


def _archive(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_the_archive_is_read_sample_by_sample_within_its_bounds():
    one = json.dumps(sample([model_event(call(messages=[Q1]))], sid="a")).encode()
    two = json.dumps(sample([model_event(call(messages=[Q1]))], sid="b")).encode()
    data = _archive(
        {
            "header.json": b"{}",
            "samples/a_epoch_1.json": one,
            "samples/b_epoch_1.json": two,
            "samples/c_epoch_1.json": b"[1]",
        }
    )
    items = read(data, "run.eval")
    assert [type(i).__name__ for i in items] == ["Record", "Record", "Diagnostic"]
    assert "is not a sample" in items[2].message
    limited = read(data, "run.eval", ReadLimits(max_record_size=len(one) - 1))
    assert all(isinstance(i, Diagnostic) and "max-record-size" in i.message for i in limited[:2])
    (bad,) = read(b"PK\x03\x04 not really a zip", "run.eval")
    assert isinstance(bad, Diagnostic) and "not a zip archive" in bad.message


def test_a_json_document_that_starts_with_version_but_is_no_inspect_log_is_read_as_before(tmp_path: Path):
    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "system": "S", "messages": [Q1]}
    envelope = {"version": 1, "request": body, "time": "2026-11-29T10:00:00Z"}
    records = read(json.dumps(envelope).encode(), "capture.json")
    assert [type(r).__name__ for r in records] == ["Record"] and records[0].request["system"] == "S"
    records = read(json.dumps([envelope, envelope]).encode(), "capture.json")
    assert [type(r).__name__ for r in records] == ["Record", "Record"]


def test_each_log_is_one_run_whose_samples_never_continue_another_files(tmp_path: Path):
    """Every run numbers its samples from 1: the same sample id in two logs is two conversations,
    however alike (here the second run's model differs: no model change to report)."""
    first = sample([model_event(call(messages=[Q1]))], sid=1)
    second = sample([model_event(call(messages=[Q1, A1, Q2]), time="2026-12-30T10:00:00+00:00")], sid=1)
    second["events"][0]["call"]["request"]["model"] = "claude-haiku-4-5"
    (tmp_path / "run-a.json").write_bytes(log(first))
    archive = _archive({"samples/1_epoch_1.json": json.dumps(second).encode()})
    (tmp_path / "run-b.eval").write_bytes(archive)
    result = audit_logs(["."], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    assert len(result.summary.sessions) == 2 and result.diagnostics == []
