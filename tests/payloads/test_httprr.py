"""Go httprr recordings: the record framing (``N1 N2`` then the two wire messages), the request
line's two forms, chunked and gzip bodies, the bounds, and what a broken file says."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.catalog import load_packs
from cachelint.config import load_settings
from cachelint.diagnostics import Diagnostic
from cachelint.payloads.formats.registry import read_bytes_as_log, sniff_format
from cachelint.payloads.model import Record
from cachelint.payloads.readers.files import ReadLimits
from cachelint.payloads.secrets import Redactor

KEY = "sk-proj-" + "Zq8" * 16  # made up: the shape of an OpenAI project key
SYSTEM = "You answer questions about the ACME product catalogue. " * 4


def body(*turns: str, system: str = SYSTEM) -> dict:
    messages = [{"role": "system", "content": system}]
    for i, text in enumerate(turns):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    return {"model": "gpt-4o", "messages": messages}


def request(value: dict | None, origin_form: bool = False, method: str = "POST") -> bytes:
    data = json.dumps(value, separators=(",", ":")).encode() if value is not None else b""
    target = "/v1/chat/completions" if origin_form else "https://api.openai.com/v1/chat/completions"
    head = (
        f"{method} {target} HTTP/1.1\r\nHost: api.openai.com\r\nUser-Agent: Go-http-client/1.1\r\n"
        f"Authorization: Bearer {KEY}\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    return head.encode() + data


def response(cached: int, date: str, encoding: str = "", chunked: bool = False) -> bytes:
    usage = {"prompt_tokens": 2000, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": cached}}
    data = json.dumps({"id": "c", "object": "chat.completion", "choices": [], "usage": usage}).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: {date}\r\n"
    if encoding == "gzip":
        data = gzip.compress(data)
    if encoding:
        head += f"Content-Encoding: {encoding}\r\n"
    if chunked:
        half = len(data) // 2
        chunks = f"{half:x}\r\n".encode() + data[:half] + b"\r\n" + f"{len(data) - half:x};ext=1\r\n".encode()
        return (head + "Transfer-Encoding: chunked\r\n\r\n").encode() + chunks + data[half:] + b"\r\n0\r\n\r\n"
    return (head + f"Content-Length: {len(data)}\r\n\r\n").encode() + data


def recording(*pairs: tuple[bytes, bytes]) -> bytes:
    out = b"httprr trace v1\n"
    for req, resp in pairs:
        out += f"{len(req)} {len(resp)}\n".encode() + req + resp
    return out


def read(data: bytes, name: str = "TestAgent.httprr", limits: ReadLimits = ReadLimits()) -> list:
    return read_bytes_as_log(data, name, "auto", Redactor.from_packs(load_packs("payloads-secrets")), limits)


DATE1, DATE2 = "Sun, 29 Nov 2026 10:00:00 GMT", "Sun, 29 Nov 2026 10:00:40 GMT"


def test_records_are_read_with_url_time_usage_and_lines():
    data = recording(
        (request(body("hi")), response(0, DATE1, encoding="gzip")),
        (request(body("hi", "hello", "more"), origin_form=True), response(1900, DATE2, chunked=True)),
    )
    records = read(data)
    assert all(isinstance(r, Record) for r in records), records
    first, second = records
    assert first.url == second.url == "https://api.openai.com/v1/chat/completions"
    assert first.method == "POST" and first.fmt == "httprr" and first.status == 200
    assert first.time.isoformat() == "2026-11-29T10:00:00+00:00"
    assert first.response["usage"]["prompt_tokens"] == 2000  # gzip undone
    assert second.response["usage"]["prompt_tokens_details"]["cached_tokens"] == 1900  # chunks joined
    assert first.origin.line == 2
    assert all("authorization" not in r.headers or KEY not in r.headers["authorization"] for r in records)


def test_the_size_line_of_each_record_is_its_line():
    pairs = [(request(body("hi")), response(0, DATE1)), (request(body("hi", "a", "b")), response(0, DATE2))]
    data = recording(*pairs)
    second_size_line = f"{len(pairs[1][0])} {len(pairs[1][1])}\n".encode()
    expected = data[: data.index(second_size_line, 20)].count(b"\n") + 1
    assert [r.origin.line for r in read(data)] == [2, expected]


def test_a_file_is_told_by_its_first_line_whatever_its_name(tmp_path: Path):
    path = tmp_path / "recording.txt"
    path.write_bytes(recording((request(body("hi")), response(0, DATE1))))
    assert sniff_format(path, path.name, "auto") == "httprr"
    gz = tmp_path / "TestAgent.httprr.gz"
    gz.write_bytes(gzip.compress(recording((request(body("hi")), response(0, DATE1)))))
    assert sniff_format(gz, gz.name, "auto") == "httprr"


def test_a_corrupt_size_line_keeps_the_records_before_it():
    good = recording((request(body("hi")), response(0, DATE1)))
    items = read(good + b"12 x\nGARBAGE")
    assert isinstance(items[0], Record)
    (problem,) = items[1:]
    assert isinstance(problem, Diagnostic) and problem.code == "CL001" and problem.record == 1
    assert "a record must start with a line `N1 N2`" in problem.message


def test_a_recording_cut_inside_a_record_says_so():
    data = recording((request(body("hi")), response(0, DATE1)), (request(body("x")), response(0, DATE2)))
    items = read(data[:-40])
    assert isinstance(items[0], Record)
    assert isinstance(items[1], Diagnostic) and "cut short inside a record" in items[1].message


def test_not_an_httprr_file_forced_as_one():
    items = read_bytes_as_log(b'{"a": 1}\n', "x.jsonl", "httprr", Redactor.from_packs(load_packs("payloads-secrets")))
    assert [d.code for d in items] == ["CL001"] and "its first line is not `httprr trace v1`" in items[0].message


def test_a_record_over_max_record_size_is_skipped_and_the_next_one_read_at_its_line():
    big = body("x" * 5000)
    pairs = [(request(big), response(0, DATE1)), (request(body("hi")), response(0, DATE2))]
    data = recording(*pairs)
    items = read(data, limits=ReadLimits(max_record_size=4000))
    assert isinstance(items[0], Diagnostic) and "over max-record-size" in items[0].message
    assert isinstance(items[1], Record) and items[1].origin.record == 1
    second_size_line = f"{len(pairs[1][0])} {len(pairs[1][1])}\n".encode()
    assert items[1].origin.line == data[: data.index(second_size_line, 20)].count(b"\n") + 1


def test_max_records_bounds_a_file():
    pair = (request(body("hi")), response(0, DATE1))
    items = read(recording(*[pair] * 5), limits=ReadLimits(max_records=3))
    assert [type(i).__name__ for i in items] == ["Record"] * 3 + ["Diagnostic"]
    assert "max-records" in items[-1].message


def test_an_undecodable_response_keeps_the_request():
    items = read(recording((request(body("hi")), response(0, DATE1, encoding="br"))))
    (record,) = items
    assert isinstance(record, Record) and record.request["model"] == "gpt-4o" and record.response is None


def _audit(folder: Path):
    return audit_logs(["."], settings=load_settings(folder, isolated=True), cwd=folder)


def test_each_file_is_one_recording_and_no_key_is_printed(tmp_path: Path):
    from cachelint.report import render

    # the same conversation recorded by two tests: two sessions, never one continued
    for name in ("TestA.httprr", "TestB.httprr"):
        (tmp_path / name).write_bytes(
            recording(
                (request(body("hi")), response(0, DATE1)),
                (request(body("hi", "hello", "more")), response(1900, DATE2)),
            )
        )
    # a GET of a model list in the same recording is no LLM call
    (tmp_path / "TestModels.httprr").write_bytes(recording((request(None, method="GET"), response(0, DATE1))))
    result = _audit(tmp_path)
    summary = result.summary
    assert summary.requests == 4 and summary.skipped_non_llm == 1
    assert len(summary.sessions) == 2 and all(s.requests == 2 for s in summary.sessions)
    assert {s.grouping for s in summary.sessions} == {"cassette"}
    for fmt in ("full", "json", "sarif"):
        assert KEY[8:] not in render(fmt, result.diagnostics, summary=summary)


def test_header_lines_end_at_lf_as_go_reads_them():
    """A scrubber that rewrote a header with a bare LF (``User-Agent: x\\n``) leaves a request Go's
    textproto reader still replays: read as such (here a GET: no LLM call), never as unreadable."""
    get = b"GET https://serpapi.com/search?q=go HTTP/1.1\r\nHost: serpapi.com\r\nUser-Agent: rr\n\r\n"
    post = request(body("hi")).replace(b"User-Agent: Go-http-client/1.1\r\n", b"User-Agent: rr\n")
    items = read(recording((get, response(0, DATE1)), (post, response(0, DATE2))))
    assert all(isinstance(i, Record) for i in items), items
    assert items[0].request is None and items[0].method == "GET"
    assert items[1].request["model"] == "gpt-4o" and items[1].headers["user-agent"] == "rr"
    # a message with no empty line is all headers: a body-less request, not an error
    assert isinstance(read(recording((b"GET https://x.test/ HTTP/1.1\r\nHost: x.test", response(0, DATE1))))[0], Record)
