"""Readers: every input format, streamed with its origin; bad input becomes CL001 and the run goes on."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest
import yaml

from helpers import anthropic, turns

from cachelint.catalog import load_packs
from cachelint.diagnostics import Diagnostic
from cachelint.payloads.model import Record
from cachelint.payloads.formats.registry import detect_format, read_bytes_as_log, read_log
from cachelint.payloads.readers import ReadLimits, iter_log_files
from cachelint.payloads.secrets import Redactor

REDACTOR = Redactor.from_packs(load_packs("payloads-secrets"))


def read(path: Path, fmt: str = "auto", **limits) -> list:
    return list(read_log(path, path.name, fmt, REDACTOR, ReadLimits(**limits) if limits else ReadLimits()))


def records(items) -> list[Record]:
    return [i for i in items if isinstance(i, Record)]


def problems(items) -> list[Diagnostic]:
    return [i for i in items if isinstance(i, Diagnostic)]


def har_entry(
    body: dict | None,
    started: str,
    url: str = "https://api.anthropic.com/v1/messages",
    response: str | None = None,
    **extra,
) -> dict:
    entry = {
        "startedDateTime": started,
        "time": 812,
        "request": {
            "method": "POST",
            "url": url,
            "httpVersion": "HTTP/2",
            "cookies": [],
            "headers": [
                {"name": "content-type", "value": "application/json"},
                {"name": "anthropic-version", "value": "2023-06-01"},
            ],
            "queryString": [],
            "headersSize": -1,
            "bodySize": -1,
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/2",
            "cookies": [],
            "headers": [{"name": "content-type", "value": "application/json"}],
            "content": {
                "size": 0,
                "mimeType": "application/json",
                **({"text": response} if response is not None else {}),
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 1, "wait": 800, "receive": 11},
    }
    if body is not None:
        entry["request"]["postData"] = {"mimeType": "application/json", "text": json.dumps(body)}
    entry.update(extra)
    return entry


def har(entries: list) -> str:
    return json.dumps(
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}}, indent=2
    )


# --- JSONL ------------------------------------------------------------------------------------


def test_jsonl_bare_bodies_with_lines_and_record_indexes(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(
        "\n".join(json.dumps(anthropic(turns(n))) for n in (1, 3)) + "\n\n" + json.dumps(anthropic(turns(5))) + "\n"
    )
    got = records(read(log))
    assert [(r.origin.line, r.origin.record) for r in got] == [(1, 0), (2, 1), (4, 2)]
    assert all(r.fmt == "jsonl" and r.request["model"] == "claude-sonnet-4-5" for r in got)


def test_jsonl_envelope_fields(tmp_path):
    env = {
        "request": anthropic(turns(1)),
        "response": {"id": "msg_01", "usage": {"input_tokens": 10, "cache_read_input_tokens": 0}},
        "time": "2026-11-29T10:00:00Z",
        "session": "run-7",
        "url": "https://api.anthropic.com/v1/messages",
        "headers": {"Anthropic-Version": "2023-06-01"},
    }
    (tmp_path / "e.jsonl").write_text(json.dumps(env) + "\n")
    (rec,) = records(read(tmp_path / "e.jsonl"))
    assert rec.session == "run-7" and rec.url.endswith("/v1/messages")
    assert rec.time.isoformat() == "2026-11-29T10:00:00+00:00"
    assert rec.response["id"] == "msg_01" and rec.headers == {"anthropic-version": "2023-06-01"}


def test_jsonl_envelope_with_sse_response(tmp_path):
    sse = (
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_9","model":"claude-sonnet-4-5",'
        '"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200}}}\n\n'
        'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":42}}\n\n'
    )
    (tmp_path / "s.jsonl").write_text(json.dumps({"request": anthropic(turns(1)), "response": sse}) + "\n")
    (rec,) = records(read(tmp_path / "s.jsonl"))
    assert rec.response["id"] == "msg_9"
    assert rec.response["usage"] == {
        "input_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1200,
        "output_tokens": 42,
    }


def test_openai_batch_input_lines(tmp_path):
    line = {
        "custom_id": "req-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]},
    }
    (tmp_path / "batch.jsonl").write_text(json.dumps(line) + "\n")
    (rec,) = records(read(tmp_path / "batch.jsonl"))
    assert rec.url == "/v1/chat/completions" and rec.request["model"] == "gpt-4.1-mini"


def test_truncated_jsonl_line_is_cl001_and_reading_goes_on(tmp_path):
    good = json.dumps(anthropic(turns(1)))
    (tmp_path / "t.jsonl").write_text(good + "\n" + good[: len(good) // 2] + "\n" + good + "\n")
    items = read(tmp_path / "t.jsonl")
    (bad,) = problems(items)
    assert (bad.code, bad.line, bad.record) == ("CL001", 2, 1)
    assert "truncated JSON" in bad.message
    assert [r.origin.line for r in records(items)] == [1, 3]


def test_crlf_and_bom(tmp_path):
    body = json.dumps(anthropic(turns(1)))
    (tmp_path / "w.jsonl").write_bytes(b"\xef\xbb\xbf" + body.encode() + b"\r\n" + body.encode() + b"\r\n")
    assert len(records(read(tmp_path / "w.jsonl"))) == 2


def test_json_nested_ten_thousand_levels_is_cl001(tmp_path):
    (tmp_path / "deep.jsonl").write_text("[" * 10000 + "]" * 10000 + "\n" + json.dumps(anthropic(turns(1))) + "\n")
    items = read(tmp_path / "deep.jsonl")
    (bad,) = problems(items)
    assert bad.line == 1 and bad.code == "CL001"
    assert len(records(items)) == 1


def test_line_over_the_record_limit_is_cl001_without_holding_it(tmp_path):
    body = json.dumps(anthropic(turns(1)))
    (tmp_path / "big.jsonl").write_text(body + "\n" + '{"x": "' + "a" * 5000 + '"}\n' + body + "\n")
    items = read(tmp_path / "big.jsonl", max_record_size=2048)
    (bad,) = problems(items)
    assert bad.line == 2 and "max-record-size" in bad.message
    assert [r.origin.line for r in records(items)] == [1, 3]


def test_fifty_megabyte_single_line_is_cl001(tmp_path):
    body = json.dumps(anthropic(turns(1)))
    with open(tmp_path / "huge.jsonl", "w") as handle:
        handle.write('{"pad": "' + "x" * (50 * 1024 * 1024) + '"}\n')
        handle.write(body + "\n")
    items = read(tmp_path / "huge.jsonl")
    (bad,) = problems(items)
    assert bad.line == 1 and "over 33554432 bytes" in bad.message
    assert len(records(items)) == 1


def test_non_object_record_is_cl001(tmp_path):
    (tmp_path / "n.jsonl").write_text('[1, 2]\n"text"\n')
    assert [p.line for p in problems(read(tmp_path / "n.jsonl"))] == [1, 2]


def test_invalid_utf8_and_nul_bytes(tmp_path):
    body = json.dumps(anthropic(turns(1))).encode()
    (tmp_path / "u.jsonl").write_bytes(b'{"a": "\xff\xfe"}\n' + b"\x00\x00\n" + body + b"\n")
    items = read(tmp_path / "u.jsonl")
    assert [p.line for p in problems(items)] == [1, 2]
    assert len(records(items)) == 1


# --- gzip and directories ----------------------------------------------------------------------


def test_gzip_jsonl_is_streamed(tmp_path):
    data = "".join(json.dumps(anthropic(turns(n))) + "\n" for n in (1, 3, 5)).encode()
    (tmp_path / "log.jsonl.gz").write_bytes(gzip.compress(data))
    assert [r.origin.line for r in records(read(tmp_path / "log.jsonl.gz"))] == [1, 2, 3]


def test_truncated_gzip_is_cl001_after_the_records_it_could_read(tmp_path):
    data = "".join(json.dumps(anthropic(turns(n))) + "\n" for n in range(1, 40, 2)).encode()
    packed = gzip.compress(data)
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[: len(packed) * 2 // 3])
    items = read(tmp_path / "cut.jsonl.gz")
    (bad,) = problems(items)
    assert "truncated or corrupt gzip" in bad.message
    assert 0 < len(records(items)) < 20


def test_gzip_har_by_magic_bytes(tmp_path):
    doc = har([har_entry(anthropic(turns(1)), "2026-11-29T10:00:00.000Z")])
    (tmp_path / "s.har.gz").write_bytes(gzip.compress(doc.encode()))
    (rec,) = records(read(tmp_path / "s.har.gz"))
    assert rec.fmt == "har"


def test_directories_are_walked_recursively_in_sorted_order(tmp_path):
    for rel in ("b/2.jsonl", "a/z.jsonl", "a/sub/1.jsonl", "notes.txt", "c.har"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    found = [item[1] for item in iter_log_files(["."], tmp_path)]
    assert found == ["a/sub/1.jsonl", "a/z.jsonl", "b/2.jsonl", "c.har"]
    (missing,) = list(iter_log_files(["nope.jsonl"], tmp_path))
    assert missing.code == "CL001"


# --- JSON, HAR, cassettes ------------------------------------------------------------------------


def test_json_list_items_have_lines(tmp_path):
    doc = json.dumps([anthropic(turns(1)), anthropic(turns(3))], indent=1)
    (tmp_path / "l.json").write_text(doc)
    got = records(read(tmp_path / "l.json"))
    lines = doc.splitlines()
    assert [r.origin.record for r in got] == [0, 1]
    assert all(lines[r.origin.line - 1].strip() == "{" for r in got)
    assert got[0].origin.line < got[1].origin.line


def test_har_bodies_sse_base64_and_time_order(tmp_path):
    sse = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_2","usage":{"cache_read_input_tokens":7}}}\n\n'
    entries = [
        har_entry(anthropic(turns(3)), "2026-11-29T10:00:05.000Z", response=base64.b64encode(sse.encode()).decode()),
        har_entry(
            anthropic(turns(1)),
            "2026-11-29T10:00:00.000Z",
            response=json.dumps({"id": "msg_1", "usage": {"input_tokens": 3}}),
        ),
        har_entry(None, "2026-11-29T09:59:00.000Z", url="https://example.com/favicon.ico"),
    ]
    entries[0]["response"]["content"].update(encoding="base64", mimeType="text/event-stream")
    entries[2]["request"]["method"] = "GET"
    (tmp_path / "s.har").write_text(har(entries))
    got = records(read(tmp_path / "s.har"))
    assert [r.origin.entry for r in got] == [2, 1, 0]  # sorted by startedDateTime
    assert got[1].response["id"] == "msg_1" and got[2].response["usage"] == {"cache_read_input_tokens": 7}
    assert got[0].request is None
    text = (tmp_path / "s.har").read_text().splitlines()
    assert all('"startedDateTime"' in text[r.origin.line - 1] for r in got)


def test_har_with_missing_fields_is_cl001_per_entry(tmp_path):
    entries = [
        har_entry(anthropic(turns(1)), "2026-11-29T10:00:00Z"),
        {"startedDateTime": "2026-11-29T10:00:01Z"},
        "junk",
    ]
    (tmp_path / "m.har").write_text(har(entries))
    items = read(tmp_path / "m.har")
    assert sorted(p.message for p in problems(items)) == [
        "HAR entry 1 has no request object",
        "HAR entry 2 has no request object",
    ]
    assert len(records(items)) == 1
    (tmp_path / "empty.har").write_text('{"log": {}}')
    (bad,) = read(tmp_path / "empty.har")
    assert bad.message == "HAR file has no log.entries list"


def test_vcr_cassette_with_string_and_parsed_bodies(tmp_path):
    cassette = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.anthropic.com/v1/messages",
                    "body": json.dumps(anthropic(turns(1))),
                    "headers": {"x-api-key": ["sk-ant-secret"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Date": ["Sun, 29 Nov 2026 10:00:00 GMT"]},
                    "body": {"string": json.dumps({"id": "msg_1"})},
                },
            },
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.anthropic.com/v1/messages",
                    "body": anthropic(turns(3)),
                    "headers": {},
                },
                "response": {"status": {"code": 200}, "headers": {}, "body": {"id": "msg_2"}},
            },
        ],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cassette, sort_keys=False))
    got = records(read(tmp_path / "c.yaml"))
    assert [r.origin.entry for r in got] == [0, 1] and got[0].fmt == "vcr"
    assert got[0].headers == {} and got[0].time.isoformat() == "2026-11-29T10:00:00+00:00"
    assert got[0].response == {"id": "msg_1"} and got[1].response == {"id": "msg_2"}
    assert got[1].request["messages"][2]["content"] == "message 2 from the user"


def test_cassette_of_parallel_request_and_response_lists(tmp_path):
    """vcrpy's in-memory shape, written as it is by some persisters (langchain-aws's .yaml.gz):
    the n-th response answers the n-th request; gzipped responses as sent on the wire are read."""
    usage = {"input_tokens": 9000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 3}
    cassette = {
        "requests": [
            {
                "method": "POST",
                "uri": "https://api.anthropic.com/v1/messages",
                "body": json.dumps(anthropic(turns(1))).encode(),
                "headers": {},
            },
            {
                "method": "POST",
                "uri": "https://api.anthropic.com/v1/messages",
                "body": json.dumps(anthropic(turns(3))),
                "headers": {},
            },
        ],
        "responses": [
            {
                "status": {"code": 200},
                "headers": {"Content-Encoding": ["gzip"]},
                "body": {"string": gzip.compress(json.dumps({"id": "m1", "usage": usage}).encode())},
            },
            {"status": {"code": 200}, "headers": {}, "body": {"string": json.dumps({"id": "m2"})}},
        ],
    }
    text = yaml.safe_dump(cassette, sort_keys=False)
    assert text.startswith("requests:")
    (tmp_path / "c.yaml.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "plain").write_text(text)  # no telling name: found by its first bytes
    for name in ("c.yaml.gz", "plain"):
        items = read(tmp_path / name)
        assert problems(items) == []
        got = records(items)
        starts = [
            n
            for n, line in enumerate(text.split("\n")[: text.split("\n").index("responses:")], start=1)
            if line.startswith("- ")
        ]
        assert [(r.origin.entry, r.origin.line) for r in got] == [(0, starts[0]), (1, starts[1])] and starts[0] == 2
        assert got[0].response["usage"] == usage and got[1].response == {"id": "m2"}


def test_a_gzip_log_leaves_no_file_open(tmp_path):
    """A GzipFile given a file object does not close it: the reader closes both."""
    import gc
    import warnings

    (tmp_path / "log.jsonl.gz").write_bytes(gzip.compress((json.dumps(anthropic(turns(1))) + "\n").encode()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        assert len(records(read(tmp_path / "log.jsonl.gz"))) == 1
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_cassette_of_local_model_token_streams_is_skipped(tmp_path):
    """mlx_lm's recordings (a mapping of prompt hashes to token streams, no HTTP exchange): not an
    unreadable cassette, just nothing sent to a provider."""
    (tmp_path / "mlx.yaml").write_text(
        "interactions:\n  0a8d:\n  - finish_reason: null\n    prompt_tokens: 20\n    text: Hello\n  9f3c:\n  - text: Hi\n"
    )
    items = read(tmp_path / "mlx.yaml")
    assert problems(items) == [] and [r.request for r in records(items)] == [None, None]


def test_a_gzip_bomb_in_a_cassette_body_is_not_read(tmp_path):
    bomb = gzip.compress(b" " * (80 * 1024 * 1024))
    cassette = {
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.anthropic.com/v1/messages",
                    "body": json.dumps(anthropic(turns(1))),
                    "headers": {},
                },
                "response": {"status": {"code": 200}, "headers": {}, "body": {"string": bomb}},
            }
        ]
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cassette, sort_keys=False))
    (got,) = records(read(tmp_path / "c.yaml"))
    assert got.response is None  # over 64 MB inflated: left unread, the request is still audited


def test_yaml_alias_bomb_is_refused(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\ninteractions: [*c]\n"
    (tmp_path / "bomb.yaml").write_text(bomb)
    (bad,) = read(tmp_path / "bomb.yaml")
    assert bad.code == "CL001" and "aliases" in bad.message and bad.line == 2


def test_real_cassettes_read_without_problems():
    fixtures = Path(__file__).parent / "fixtures"
    total = 0
    for path in sorted(fixtures.glob("*.yaml")):
        items = read(path)
        assert not problems(items), path.name
        total += len(items)
    assert total == 47


@pytest.mark.parametrize(
    "name, head, expected",
    [
        ("x.jsonl", b"{}", "jsonl"),
        ("x.har", b"{}", "har"),
        ("x.yml", b"", "vcr"),
        ("x.log", b'{"a": 1}\n{"a": 2}\n', "jsonl"),
        ("x.json", b'{\n  "log": {}\n}', "json"),
        ("x.txt", b"[{}]", "json"),
        ("x", b"interactions:\n- request: {}", "vcr"),
    ],
)
def test_format_detection(name, head, expected):
    assert detect_format(name, head) == expected


def test_in_memory_reading_matches_files():
    data = (json.dumps(anthropic(turns(1))) + "\n").encode()
    assert len(records(read_bytes_as_log(data, "mem.jsonl", "auto", REDACTOR))) == 1
    assert len(records(read_bytes_as_log(gzip.compress(data), "mem.jsonl.gz", "auto", REDACTOR))) == 1


def test_jsonl_with_a_long_first_line_and_no_telling_suffix(tmp_path):
    big = anthropic(turns(1), system="x" * 200_000)
    (tmp_path / "capture.log").write_text(json.dumps(big) + "\n" + json.dumps(anthropic(turns(3))) + "\n")
    got = read(tmp_path / "capture.log")
    assert [r.origin.line for r in records(got)] == [1, 2] and not problems(got)


def test_lines_of_matches_counts_each_newline_once():
    """Line numbers of interactions, counted incrementally (a count from the start per match was
    quadratic on large cassettes), equal the direct count."""
    import random
    import re

    from cachelint.payloads.readers import lines_of

    rng = random.Random(3)
    for _ in range(300):
        data = b"".join(
            rng.choice([b"\n", b"- request:\n", b"x", b"  - a\n", b"-\t"]) for _ in range(rng.randint(0, 60))
        )
        for pattern in (rb"^-\s", rb"^\s*-\s+request:"):
            direct = [data.count(b"\n", 0, m.start()) + 1 for m in re.finditer(pattern, data, re.MULTILINE)]
            assert lines_of(data, pattern) == direct
