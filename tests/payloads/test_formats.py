"""The log formats of observability tools, gateways, batch files, provider logs and Claude Code
transcripts (cachelint/payloads/formats/).

The samples under format_samples/ are written by benchmarks/log_formats.py from each format's
public specification: a 3-request conversation whose third request has a new timestamp in the
system prompt (``timestamp``), its twin whose third request reorders the tools (``tools``, for the
formats that keep the request's bytes) and, for Claude Code, a pause longer than the cache's TTL
(``gap``)."""

from __future__ import annotations

import gzip
import io
import json
import shutil
from pathlib import Path

import pytest

from cachelint.api import audit_logs
from cachelint.config import load_settings
from cachelint.payloads import AuditOptions, formats
from cachelint.report.audit_text import render_audit_full
from cachelint.payloads.formats.stream import JsonStream, StreamError
from cachelint.payloads.formats.registry import sniff_format

SAMPLES = Path(__file__).parent / "format_samples"
# sample folder -> the reader's format name (benchmarks/log_formats.py WRITERS)
FORMAT_OF = {
    "helicone": "helicone",
    "helicone-json": "helicone",
    "bedrock-invocation": "bedrock-invocation",
    "bedrock-invocation-s3": "bedrock-invocation",
    "anthropic-batch": "anthropic-batch",
    "anthropic-batch-create": "anthropic-batch",
    "openai-batch": "openai-batch",
    "litellm": "litellm",
    "litellm-raw": "litellm",
    "langsmith": "langsmith",
    "langsmith-langchain": "langsmith",
    "openinference": "openinference",
    "otel-genai": "otel-genai",
    "otel-genai-collector": "otel-genai",
    "openllmetry": "openllmetry",
    "vercel-ai": "vercel-ai",
    "vercel-ai-zipkin": "vercel-ai",
    "vercel-ai-jaeger": "vercel-ai",
    "langfuse": "langfuse",
    "claude-code": "claude-code",
    "zhar": "zhar",
    "vcr-ruby": "vcr",
    "go-vcr": "vcr",
    "vcrpy-aiohttp": "vcr",
    "nock": "nock",
    "httprr": "httprr",
    "inspect": "inspect",
    "inspect-archive": "inspect-archive",
    "polly-har": "har",
}
CONTENT_LEVEL = (
    "langsmith-langchain",
    "otel-genai",
    "otel-genai-collector",
    "openllmetry",
    "langfuse",
    "vercel-ai",
    "vercel-ai-zipkin",
    "vercel-ai-jaeger",
)


def audit(folder: Path, input_format: str = "auto"):
    cwd = folder.resolve()
    return audit_logs(
        ["."], settings=load_settings(cwd, isolated=True), options=AuditOptions(input_format=input_format), cwd=cwd
    )


def samples(twist: str) -> list[str]:
    return sorted(p.parent.name for p in SAMPLES.glob(f"*/{twist}"))


def test_every_format_has_samples_and_every_module_is_named() -> None:
    assert sorted({*FORMAT_OF}) == sorted(p.name for p in SAMPLES.iterdir())
    assert set(formats.names()) == set(formats.NAMES)
    assert set(FORMAT_OF.values()) <= set(formats.NAMES)


@pytest.mark.parametrize("sample", [s for s in samples("timestamp") if s != "claude-code"])
@pytest.mark.parametrize("input_format", ["auto", "forced"])
def test_a_new_timestamp_in_the_system_prompt_is_found_on_the_third_request(sample: str, input_format: str) -> None:
    result = audit(SAMPLES / sample / "timestamp", FORMAT_OF[sample] if input_format == "forced" else "auto")
    found = [(d.code, d.record, d.kind) for d in result.diagnostics]
    assert found == [("CL309", 2, "iso-timestamp")], found
    assert result.summary.requests == 3
    finding = result.diagnostics[0]
    if sample in CONTENT_LEVEL:
        assert "judged from content" in finding.message and finding.details["fidelity"] == "content"
        notes = result.summary.fidelity["content"]
        assert notes["requests"] == 3 and "CL305" in notes["checks_not_run"] and "CL310" in notes["checks_not_run"]
        assert "judged from content, not bytes" in render_audit_full(result.diagnostics, result.summary)
    else:
        assert "judged from content" not in finding.message and not result.summary.fidelity


@pytest.mark.parametrize("sample", samples("tools"))
@pytest.mark.parametrize("input_format", ["auto", "forced"])
def test_a_tools_reorder_is_cl301_in_every_format_that_keeps_the_bytes(sample: str, input_format: str) -> None:
    result = audit(SAMPLES / sample / "tools", FORMAT_OF[sample] if input_format == "forced" else "auto")
    assert [(d.code, d.record, d.kind) for d in result.diagnostics] == [("CL301", 2, "reordered")]


@pytest.mark.parametrize("sample", sorted(FORMAT_OF))
def test_every_sample_file_is_detected_as_its_format(sample: str) -> None:
    for path in sorted((SAMPLES / sample).rglob("*")):
        if path.is_file():
            name = sniff_format(path, path.name, "auto")
            side = "result" in path.name or "output" in path.name
            # OTLP files are detected as OTLP; each span is then read by the convention it follows
            expected = (
                {FORMAT_OF[sample], "otlp"}
                if FORMAT_OF[sample] in ("otel-genai", "openllmetry", "openinference", "vercel-ai")
                else {FORMAT_OF[sample]}
            )
            assert name in expected or (side and name.startswith(FORMAT_OF[sample])), (path, name)


def test_claude_code_transcripts_are_audited_as_coding_agent_sessions() -> None:
    """A Claude Code transcript is no request log: its calls go to the coding-agent audit, which
    judges each call against the previous call of its thread and names the cause of a rebuild."""
    gap = audit(SAMPLES / "claude-code" / "gap")
    assert [(d.code, d.line, d.kind) for d in gap.diagnostics] == [("CL313", 8, "idle-gap")]  # 8 minutes, 5-minute TTL
    stamp = audit(SAMPLES / "claude-code" / "timestamp")
    assert [(d.code, d.kind) for d in stamp.diagnostics] == [("CL313", "unknown")]  # 50 s later, nothing read
    assert stamp.summary.requests == 3  # six lines for three calls: each call's content blocks read once
    assert stamp.summary.coding_agents["total"]["turns"] == 3
    assert not stamp.summary.fidelity  # no request was read at usage level: the transcript is not a request log


def test_batch_usage_joins_the_requests_by_custom_id_and_results_alone_are_reported(tmp_path: Path) -> None:
    joined = audit(SAMPLES / "openai-batch" / "timestamp")
    assert joined.summary.usage["total"]["requests_with_usage"] == 3
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(SAMPLES / "openai-batch" / "timestamp" / "batch-output.jsonl", alone)
    result = audit(alone)
    assert [d.code for d in result.diagnostics] == ["CL001"]
    assert "3 OpenAI Batch output line(s) joined to no request" in result.diagnostics[0].message
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    shutil.copy(SAMPLES / "openai-batch" / "timestamp" / "batch-input.jsonl", inputs)
    assert [d.code for d in audit(inputs).diagnostics] == ["CL309"]  # the requests still audited, without usage
    anthropic = audit(SAMPLES / "anthropic-batch-create" / "timestamp")
    assert anthropic.summary.usage["total"]["requests_with_usage"] == 3


def test_records_that_look_like_llm_logs_in_a_shape_not_read_are_one_cl001_per_file(tmp_path: Path) -> None:
    (tmp_path / "h.jsonl").write_bytes((SAMPLES / "helicone" / "timestamp" / "helicone.jsonl").read_bytes())
    result = audit(tmp_path, "jsonl")  # forced to the generic reader: bare bodies, no provider told
    assert [d.code for d in result.diagnostics] == ["CL001"]
    assert "3 record(s) are Helicone export records but were not read as such" in result.diagnostics[0].message
    assert "--input-format helicone" in result.diagnostics[0].message
    (tmp_path / "h.jsonl").unlink()
    lines = [{"messages": [{"role": "user", "content": f"q{i}"}]} for i in range(4)]
    (tmp_path / "chat.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "span.jsonl").write_text(json.dumps({"name": "x", "gen_ai.operation.name": "chat"}) + "\n")
    result = audit(tmp_path)
    messages = sorted((d.path, d.message) for d in result.diagnostics)
    assert [p for p, _ in messages] == ["chat.jsonl", "span.jsonl"]
    assert messages[0][1].startswith("4 record(s) look like a chat request (they carry 'messages')")
    assert "gen_ai.* attributes" in messages[1][1]


def test_a_bedrock_body_delivered_to_s3_is_one_cl001_with_the_count(tmp_path: Path) -> None:
    lines = (SAMPLES / "bedrock-invocation" / "timestamp" / "bedrock-invocation.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    for r in records:
        del r["input"]["inputBodyJson"]
        r["input"]["inputBodyS3Path"] = "s3://logs/AWSLogs/123456789012/BedrockModelInvocationLogs/data/input.json.gz"
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = audit(tmp_path)
    assert [(d.code, d.line) for d in result.diagnostics] == [("CL001", 1)]
    assert result.diagnostics[0].message.startswith(
        "3 record(s) are Bedrock invocation logs whose request body was delivered to S3"
    )


def test_otel_spans_without_content_are_read_for_their_usage(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "otel-genai" / "timestamp" / "otel-genai.otlp.json").read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"] = [
            a
            for a in span["attributes"]
            if a["key"] not in ("gen_ai.system_instructions", "gen_ai.input.messages", "gen_ai.tool.definitions")
        ]
    (tmp_path / "spans.json").write_text(json.dumps(doc))
    result = audit(tmp_path)
    assert result.summary.requests == 3 and result.summary.fidelity["usage"]["requests"] == 3
    assert [d.code for d in result.diagnostics] == ["CL308"]  # the third call wrote instead of reading


def test_spans_are_put_back_in_start_time_order_and_grouped_by_conversation(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "otel-genai" / "timestamp" / "otel-genai.otlp.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    other = json.loads(json.dumps(spans))
    for span in other:  # another conversation, interleaved, ending first
        for a in span["attributes"]:
            if a["key"] == "gen_ai.conversation.id":
                a["value"]["stringValue"] = "another"
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = [spans[2], other[0], spans[0], other[2], spans[1], other[1]]
    (tmp_path / "spans.json").write_text(json.dumps(doc))
    result = audit(tmp_path)
    assert [d.code for d in result.diagnostics] == ["CL309", "CL309"]
    assert [s.requests for s in result.summary.sessions] == [3, 3]


def test_litellm_tools_in_model_parameters_are_the_tools_tier() -> None:
    from cachelint.payloads.formats import litellm
    from cachelint.payloads.model import Origin
    from cachelint.payloads.providers import ProviderRules, to_request
    from cachelint.catalog import load_packs
    from cachelint.payloads.secrets import Redactor

    line = json.loads((SAMPLES / "litellm" / "tools" / "litellm.jsonl").read_text().splitlines()[0])
    ctx = formats.ReadContext("l.jsonl", Redactor.from_packs(load_packs("payloads-secrets")), None, formats.Joins())
    (record,) = list(litellm.records(line, Origin("l.jsonl"), ctx, ()))
    req = to_request(record, ProviderRules.from_packs(load_packs("payloads-providers")))
    assert req is not None and req.provider == "anthropic"
    assert [b.name for b in req.tools] == ["read_file", "search", "edit_file"]
    assert len(req.system) == 1 and len(req.breakpoints) == 2  # the system text and the last tool's marker


def test_a_gzipped_s3_delivery_and_a_truncated_one(tmp_path: Path) -> None:
    data = gzip.decompress(
        (SAMPLES / "bedrock-invocation-s3" / "timestamp" / "20261129T1000Z_bedrock.json.gz").read_bytes()
    )
    (tmp_path / "cut.json.gz").write_bytes(gzip.compress(data)[:-40])
    result = audit(tmp_path)
    assert "CL001" in [d.code for d in result.diagnostics]


def test_a_zhar_that_is_not_zlib_is_cl001(tmp_path: Path) -> None:
    (tmp_path / "flows.zhar").write_bytes(b"not zlib at all")
    result = audit(tmp_path)
    assert [d.code for d in result.diagnostics] == ["CL001"] and "zhar" in result.diagnostics[0].message


# --- the streaming JSON reader -------------------------------------------------------------------


def stream(data: bytes, limit: int = 1 << 20) -> JsonStream:
    return JsonStream(io.BytesIO(data), limit, chunk=7)  # a tiny chunk: every value crosses a window edge


def test_json_stream_yields_the_records_at_a_path_with_their_lines_and_context() -> None:
    data = b'{"meta": {"n": 2},\n "data": [\n  {"a": "x\\u00e9\xc3\xa9"},\n  {"b": [1, 2, {"c": null}]}\n], "after": 1}'
    got = list(stream(data).items(("data", "*")))
    assert [(v, line) for v, line, _ in got] == [({"a": "x\u00e9\u00e9"}, 3), ({"b": [1, 2, {"c": None}]}, 4)]
    assert got[0][2] == ({"meta": {"n": 2}},)
    nested = (
        b'{"resourceSpans": [{"resource": {"k": 1}, "scopeSpans": [{"scope": {}, "spans": [{"s": 1}, {"s": 2}]}]}]}'
    )
    assert [v for v, _, _ in stream(nested).items(("resourceSpans", "*", "scopeSpans", "*", "spans", "*"))] == [
        {"s": 1},
        {"s": 2},
    ]
    assert [v for v, _, _ in stream(b'{"a": 1}\n{"a": 2}\n').items((), sequence=True)] == [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize(
    "data",
    [b'[{"a": 1}, {"a": ', b'[{"a": 1} {"a": 2}]', b'{"data": 5}', b'[{"a": tru}]', b"[1, 2] trailing"],
)
def test_json_stream_reports_where_a_document_breaks(data: bytes) -> None:
    with pytest.raises(StreamError) as raised:
        list(stream(data).items(("data", "*") if data.startswith(b"{") else ("*",)))
    assert raised.value.line >= 1


def test_json_stream_refuses_a_record_over_the_limit() -> None:
    data = b'[{"a": "' + b"x" * 5000 + b'"}]'
    with pytest.raises(StreamError, match="max-record-size"):
        list(JsonStream(io.BytesIO(data), 1000).items(("*",)))


def test_secrets_in_format_records_never_reach_the_output(tmp_path: Path) -> None:
    from cachelint.report import AUDIT_FORMATS, render

    secret = "sk-ant-api03-SECRETSECRETSECRET"
    raw = [
        json.loads(x) for x in (SAMPLES / "litellm-raw" / "timestamp" / "litellm-raw.jsonl").read_text().splitlines()
    ]
    for r in raw:
        r["raw_request_typed_dict"]["raw_request_headers"]["x-api-key"] = secret
        r["raw_request_typed_dict"]["raw_request_api_base"] += f"?key={secret}"
        r["raw_request_typed_dict"]["raw_request_body"]["api_key"] = secret
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "litellm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw))
    helicone = [json.loads(x) for x in (SAMPLES / "helicone" / "timestamp" / "helicone.jsonl").read_text().splitlines()]
    for r in helicone:
        r["target_url"] += f"?api_key={secret}"
    (tmp_path / "b" / "helicone.jsonl").write_text("".join(json.dumps(r) + "\n" for r in helicone))
    for folder in ("a", "b"):
        result = audit(tmp_path / folder)
        assert [d.code for d in result.diagnostics] == ["CL309"]
        for fmt in AUDIT_FORMATS:
            assert secret not in render(fmt, result.diagnostics, summary=result.summary)
        assert secret not in json.dumps(result.summary, default=str)


def test_the_cli_takes_every_format_name(tmp_path: Path) -> None:
    import subprocess
    import sys

    sample = SAMPLES / "helicone" / "timestamp" / "helicone.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cachelint",
            "audit",
            "--isolated",
            "--input-format",
            "helicone",
            "--output-format",
            "concise",
            str(sample),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1 and "CL309" in done.stdout, done.stderr
    wrong = subprocess.run(
        [sys.executable, "-m", "cachelint", "audit", "--input-format", "nosuchformat", str(sample)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert wrong.returncode == 2
    listed = subprocess.run(
        [sys.executable, "-m", "cachelint", "audit", "--help"], capture_output=True, text=True, cwd=tmp_path
    ).stdout
    assert all(name in listed for name in formats.NAMES)


def test_reuse_of_a_body_after_record_fields_of_other_lengths_gives_the_findings_of_full_decoding(
    tmp_path: Path,
) -> None:
    from cachelint.payloads.readers import ReadLimits
    from cachelint.payloads.reuse import LineReuse
    from cachelint.catalog import load_packs
    from cachelint.payloads.secrets import Redactor
    from cachelint.payloads.providers import ProviderRules, to_request
    from helpers import audit_outcome

    lines = [json.loads(x) for x in (SAMPLES / "helicone" / "tools" / "helicone.jsonl").read_text().splitlines()]
    out = []
    for copy in range(4):  # four conversations, request ids of four lengths before the body
        for n, line in enumerate(lines):
            out.append(
                {
                    **line,
                    "request_id": "r" * (1 + copy * 7 + n),
                    "request_properties": {"Helicone-Session-Id": f"s{copy}"},
                }
            )
    log = tmp_path / "helicone.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in out))
    with_reuse = audit_outcome([log], tmp_path, AuditOptions(incremental=True, timeline=False))
    without = audit_outcome([log], tmp_path, AuditOptions(incremental=False, timeline=False))
    assert with_reuse == without
    assert [f[0] for f in with_reuse[0]] == ["CL301"] * 4
    # and the bytes were reused: every line after the first of a conversation
    fmt = formats.get("helicone")
    reuse = LineReuse(body_paths=fmt.body_paths)
    ctx = formats.ReadContext(
        "helicone.jsonl", Redactor.from_packs(load_packs("payloads-secrets")), ReadLimits(), formats.Joins()
    )
    rules = ProviderRules.from_packs(load_packs("payloads-providers"))
    with open(log, "rb") as handle:
        for item in formats.read_records(fmt, handle, "jsonl", ctx, reuse):
            to_request(item, rules)
    assert reuse.reused >= 8


@pytest.mark.parametrize(
    "sample", ["langfuse", "langsmith-langchain", "otel-genai", "otel-genai-collector", "openllmetry", "langsmith"]
)
def test_replaying_a_content_level_history_gives_the_findings_of_building_it_again(sample: str) -> None:
    from helpers import audit_outcome

    folder = (SAMPLES / sample / "timestamp").resolve()
    files = sorted(folder.iterdir())
    fast = audit_outcome(files, folder, AuditOptions(incremental=True, timeline=False))
    slow = audit_outcome(files, folder, AuditOptions(incremental=False, timeline=False))
    assert fast == slow
    assert [f[0] for f in fast[0]] == ["CL309"]


def test_a_rewritten_message_in_a_replayed_history_is_still_cl303(tmp_path: Path) -> None:
    from helpers import audit_outcome

    doc = json.loads((SAMPLES / "otel-genai" / "timestamp" / "otel-genai.otlp.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in spans:
        for a in span["attributes"]:
            if a["key"] == "gen_ai.system_instructions":
                a["value"]["stringValue"] = json.dumps([{"type": "text", "content": "A fixed system prompt."}])
    third = next(a for a in spans[2]["attributes"] if a["key"] == "gen_ai.input.messages")
    messages = json.loads(third["value"]["stringValue"])
    messages[0]["parts"][0]["content"] = "Find where the retry delay is computed, please."
    third["value"]["stringValue"] = json.dumps(messages)
    (tmp_path / "spans.json").write_text(json.dumps(doc))
    fast = audit_outcome([tmp_path / "spans.json"], tmp_path, AuditOptions(incremental=True, timeline=False))
    slow = audit_outcome([tmp_path / "spans.json"], tmp_path, AuditOptions(incremental=False, timeline=False))
    assert fast == slow
    assert [f[0] for f in fast[0]] == ["CL303"]


def test_a_control_character_in_a_member_of_a_streamed_document_is_cl001(tmp_path: Path) -> None:
    import zlib

    (tmp_path / "flows.zhar").write_bytes(zlib.compress(b'{"log":{"":"\x00"'))  # found by the zhar fuzz target
    result = audit(tmp_path)
    assert [d.code for d in result.diagnostics] == ["CL001"] and "not a valid JSON string" in result.diagnostics[
        0
    ].message


def test_json_stream_reads_the_same_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    from cachelint.payloads.formats import stream as stream_module

    data = b'{"meta": 1, "data": [\n{"a": "\xc3\xa9"},\n{"b": [1, {"c": 2}]}, {"d": 3}\n]}'
    with_orjson = [v for v, _, _ in stream(data).items(("data", "*"))]
    monkeypatch.setattr(stream_module, "orjson", None)
    assert (
        [v for v, _, _ in stream(data).items(("data", "*"))]
        == with_orjson
        == [{"a": "\u00e9"}, {"b": [1, {"c": 2}]}, {"d": 3}]
    )
    with pytest.raises(StreamError):
        list(stream(b'[{"a": 1}, {"a": tru}]').items(("*",)))


WIRE_TEXT_BODIES = ("openinference", "zhar", "bedrock-invocation", "bedrock-invocation-s3")


def reread_count(path: Path) -> int:
    """Records of a file read with reuse whose body came with reused parts (each built in turn,
    as the audit does)."""
    from cachelint.catalog import load_packs
    from cachelint.payloads.model import Record
    from cachelint.payloads.providers import ProviderRules, to_request
    from cachelint.payloads.formats.registry import read_log
    from cachelint.payloads.secrets import Redactor

    rules = ProviderRules.from_packs(load_packs("payloads-providers"))
    count = 0
    for item in read_log(path, path.name, "auto", Redactor.from_packs(load_packs("payloads-secrets")), reuse=True):
        if isinstance(item, Record):
            count += item.reread is not None
            to_request(item, rules)
    return count


@pytest.mark.parametrize("sample", WIRE_TEXT_BODIES)
@pytest.mark.parametrize("twist", ["timestamp", "tools"])
def test_a_body_held_as_text_is_reused_and_gives_the_findings_of_full_decoding(sample: str, twist: str) -> None:
    from helpers import audit_outcome

    folder = (SAMPLES / sample / twist).resolve()
    files = sorted(folder.iterdir())
    fast = audit_outcome(files, folder, AuditOptions(incremental=True, timeline=False))
    slow = audit_outcome(files, folder, AuditOptions(incremental=False, timeline=False))
    assert fast == slow
    assert reread_count(files[0]) >= 1


def test_reused_bodies_of_spans_out_of_order_and_their_full_decoding(tmp_path: Path) -> None:
    from helpers import audit_outcome

    doc = json.loads((SAMPLES / "openinference" / "tools" / "openinference.otlp.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    out = []
    for copy in range(3):  # three conversations, their spans written newest first
        for span in reversed(spans):
            span = json.loads(json.dumps(span))
            span["startTimeUnixNano"] = str(int(span["startTimeUnixNano"]) + copy * 10**9)
            for a in span["attributes"]:
                if a["key"] == "session.id":
                    a["value"]["stringValue"] = f"s{copy}"
            out.append(span)
    spans[:] = out
    (tmp_path / "spans.json").write_text(json.dumps(doc))
    fast = audit_outcome([tmp_path / "spans.json"], tmp_path, AuditOptions(incremental=True, timeline=False))
    slow = audit_outcome([tmp_path / "spans.json"], tmp_path, AuditOptions(incremental=False, timeline=False))
    assert fast == slow
    assert reread_count(tmp_path / "spans.json") >= 4
    # the fallback of a reused body (a replayed part that does not fit): the body decoded in full,
    # which builds the same request
    from cachelint.catalog import load_packs
    from cachelint.payloads.model import Record
    from cachelint.payloads.providers import ProviderRules, to_request
    from cachelint.payloads.formats.registry import read_log
    from cachelint.payloads.secrets import Redactor

    rules = ProviderRules.from_packs(load_packs("payloads-providers"))
    texts = {
        json.loads(next(a["value"]["stringValue"] for a in s["attributes"] if a["key"] == "input.value"))["messages"][
            -1
        ]["content"][0]["text"]
        for s in out
    }
    rebuilt = 0
    for item in read_log(
        tmp_path / "spans.json", "spans.json", "auto", Redactor.from_packs(load_packs("payloads-secrets")), reuse=True
    ):
        assert isinstance(item, Record)
        fast_request = to_request(item, rules)
        if item.reread is not None:
            full = item.reread()
            assert full.reread is None and full.request["messages"][-1]["content"][0]["text"] in texts
            again = to_request(full, rules)
            assert [b.data for b in again.messages] == [b.data for b in fast_request.messages]
            assert [b.data for b in again.tools] == [b.data for b in fast_request.tools]
            rebuilt += 1
    assert rebuilt >= 4


def test_a_zhar_body_reused_as_its_entry_leaves_the_window_falls_back_to_its_text() -> None:
    from cachelint.catalog import load_packs
    from cachelint.payloads.model import Record
    from cachelint.payloads.providers import ProviderRules, to_request
    from cachelint.payloads.formats.registry import read_log
    from cachelint.payloads.secrets import Redactor

    rules = ProviderRules.from_packs(load_packs("payloads-providers"))
    path = SAMPLES / "zhar" / "tools" / "flows.zhar"
    rebuilt = 0
    for item in read_log(path, "flows.zhar", "auto", Redactor.from_packs(load_packs("payloads-secrets")), reuse=True):
        assert isinstance(item, Record)
        fast = to_request(item, rules)
        if item.reread is not None:
            full = item.reread()
            assert isinstance(full, Record) and full.reread is None and isinstance(full.request["messages"][0], dict)
            again = to_request(full, rules)
            for tier in ("tools", "system", "messages"):
                assert [b.data for b in getattr(again, tier)] == [b.data for b in getattr(fast, tier)]
            rebuilt += 1
    assert rebuilt >= 1
