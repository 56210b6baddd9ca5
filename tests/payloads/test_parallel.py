"""The audit on several processes (cachelint.payloads.parallel) gives the serial audit's output, byte
for byte, in every output format, whatever the number of workers and the size of the ranges: on
the catalog's CL3xx examples, interleaved sessions, sessions crossing files, and damaged lines
(CRLF, truncated, NUL, invalid UTF-8, BOMs, blank lines, a gzipped log, the line limit)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from cachelint.api import audit_logs
from cachelint.catalog import load_catalog
from cachelint.config import load_settings
from cachelint.payloads import AuditOptions
from cachelint.payloads import parallel
from cachelint.report import AUDIT_FORMATS, render
from conftest import REPO
from gen_anthropic_log import generate

CORPUS = REPO / "tests" / "reliability" / "corpus" / "audit"


def _catalog_lines() -> list[bytes]:
    lines = []
    for doc in sorted(load_catalog().values(), key=lambda d: d.code):
        if doc.scope != "payloads" or not doc.stable:
            continue
        for kind in ("bad", "good"):
            for example in doc.example_inputs(kind):
                lines += [json.dumps(record, ensure_ascii=False).encode("utf-8") for record in example]
                lines.append(b"")  # a blank line between examples
    return lines


def _generated(requests: int, per_session: int, seed: int) -> list[bytes]:
    import io

    out = io.StringIO()
    generate(requests, per_session, 6, seed, out, 300)
    lines = []
    for i, line in enumerate(out.getvalue().splitlines()):
        if i % 9 == 5:  # a break now and then: the tools reordered, the system prompt edited
            record = json.loads(line)
            body = record.get("request", record)
            body["tools"] = body["tools"][::-1]
            if i % 2:
                body["system"] = f"Edited system prompt {i}."
            line = json.dumps(record)
        lines.append(line.encode("utf-8"))
    return lines


def _interleaved(lines: list[bytes], per_session: int) -> list[bytes]:
    sessions = [lines[i : i + per_session] for i in range(0, len(lines), per_session)]
    return [s[i] for i in range(per_session) for s in sessions if i < len(s)]


def _damaged(lines: list[bytes]) -> bytes:
    """The catalog's lines with damage spread through them."""
    out = [b"\xef\xbb\xbf" + lines[0] + b"\n"]  # a BOM on line 1: stripped
    for i, line in enumerate(lines[1:], 1):
        if i % 11 == 0:
            out.append(line + b"\r\n")  # CRLF
        elif i % 17 == 0:
            out.append(line[: len(line) // 2] + b"\n")  # truncated
        elif i % 19 == 0:
            out.append(line.replace(b'"', b'"\x00', 1) + b"\n")  # a NUL byte
        elif i % 23 == 0:
            out.append(line.replace(b"e", b"\xff\xfe", 1) + b"\n")  # invalid UTF-8
        elif i % 29 == 0:
            out.append(b"\xef\xbb\xbf" + line + b"\n")  # a BOM mid-file: not stripped
        elif i % 31 == 0:
            out.append(b"   \t\n" + line + b"\n")  # a blank line of spaces
        else:
            out.append(line + b"\n")
    out.append(b'{"not": "an llm call"}\n')
    out.append(
        json.dumps(
            {"request": json.loads(lines[0]), "response": {"error": {"message": "overloaded"}}, "status": 529}
        ).encode()
        + b"\n"
    )
    out.append(lines[1][:40])  # the last line: truncated, no newline
    return b"".join(out)


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("logs")
    catalog = _catalog_lines()
    (root / "catalog.jsonl").write_bytes(b"\n".join(catalog) + b"\n")
    (root / "damaged.jsonl").write_bytes(_damaged([line for line in catalog if line]))
    mixed = _interleaved(_generated(60, 12, 3), 12)
    (root / "interleaved.jsonl").write_bytes(b"\n".join(mixed) + b"\n")
    days = root / "days"
    days.mkdir()
    crossing = _interleaved(_generated(48, 16, 5), 16)
    for name, (a, b) in zip(("d1.jsonl", "d2.jsonl", "d3.jsonl"), ((0, 13), (13, 30), (30, 48))):
        (days / name).write_bytes(b"\n".join(crossing[a:b]) + b"\n")
    (root / "zipped.jsonl.gz").write_bytes(gzip.compress(b"\n".join(mixed[:20]) + b"\n"))
    for path in sorted(CORPUS.glob("*.jsonl*")):
        (root / f"corpus-{path.name}").write_bytes(path.read_bytes())
    return root


SETS = {
    "catalog": ["catalog.jsonl"],
    "damaged": [
        "damaged.jsonl",
        "corpus-bom.jsonl",
        "corpus-crlf.jsonl",
        "corpus-invalid_utf8.jsonl",
        "corpus-nul_bytes.jsonl",
        "corpus-truncated_line.jsonl",
        "corpus-truncated.jsonl.gz",
        "corpus-good_flagged.jsonl",
    ],
    "interleaved": ["interleaved.jsonl", "zipped.jsonl.gz"],
    "days": ["days"],
}


def _outputs(root: Path, paths: list[str], config: dict | None = None, **options) -> dict[str, str]:
    settings = load_settings(root, isolated=True, overrides=dict(config or {}))
    result = audit_logs(paths, settings=settings, options=AuditOptions(**options), cwd=root)
    out = {fmt: render(fmt, result.diagnostics, summary=result.summary) for fmt in AUDIT_FORMATS}
    out["summary"] = json.dumps(result.summary.to_dict(), sort_keys=True, default=str)
    return out


class _Inline:
    """The local engine's contract, run in this process: many range sizes stay cheap to test."""

    def __init__(self, jobs, config):
        self.jobs, self.config = jobs, config

    def results(self, tasks):
        return (parallel.map_chunk(self.config, t) for t in tasks)

    def close(self):
        pass


def _total(root: Path, paths: list[str]) -> int:
    return sum(
        p.stat().st_size
        for name in paths
        for p in ([root / name] if (root / name).is_file() else (root / name).rglob("*"))
    )


@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize("jobs,chunk", [(2, 1024), (3, 1024), (3, 7000), (2, "whole")])
def test_worker_processes_give_the_serial_output(logs, name, jobs, chunk):
    paths = SETS[name]
    serial = _outputs(logs, paths, jobs=1)
    size = _total(logs, paths) if chunk == "whole" else chunk
    assert _outputs(logs, paths, jobs=jobs, chunk_size=size) == serial
    assert "CL3" in serial["concise"] or name == "damaged"


@pytest.mark.parametrize("name", sorted(SETS))
@hsettings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_range_size_gives_the_serial_output(logs, name, data, monkeypatch):
    paths = SETS[name]
    total = _total(logs, paths)
    # ranges of a few lines up to the whole log (a range of a few bytes is a range of no line,
    # or of one line started before it: the 1 KiB cases above and these cover both)
    chunk = data.draw(st.one_of(st.integers(256, 4096), st.integers(256, total)), label="chunk")
    monkeypatch.setattr(parallel, "_LocalEngine", _Inline)
    if name not in _SERIAL:
        _SERIAL[name] = _outputs(logs, paths, jobs=1)
    assert _outputs(logs, paths, jobs=2, chunk_size=chunk) == _SERIAL[name]


_SERIAL: dict[str, dict[str, str]] = {}


def test_ranges_of_a_few_bytes_give_the_serial_output(logs, monkeypatch):
    """Ranges shorter than a line: most hold no line start, some begin inside a long line."""
    monkeypatch.setattr(parallel, "_LocalEngine", _Inline)
    paths = ["damaged.jsonl", "corpus-bom.jsonl", "corpus-crlf.jsonl"]
    serial = _outputs(logs, paths, jobs=1)
    for chunk in (1, 7, 100):
        assert _outputs(logs, paths, jobs=2, chunk_size=chunk) == serial


def test_a_one_line_shift_is_caught(logs, monkeypatch):
    """The comparison above sees a range numbered one line off."""
    paths = SETS["interleaved"]
    serial = _outputs(logs, paths, jobs=1)
    apply = parallel._apply
    monkeypatch.setattr(parallel, "_LocalEngine", _Inline)
    monkeypatch.setattr(parallel, "_apply", lambda run, facts, shift, base: apply(run, facts, shift + 1, base))
    assert _outputs(logs, paths, jobs=2, chunk_size=4096) != serial


@pytest.mark.parametrize("chunk", [1024, 5000])
def test_the_line_limit_falls_inside_a_range(logs, chunk, monkeypatch):
    config = {"audit": {"max-records": 23}}
    serial = _outputs(logs, ["interleaved.jsonl", "catalog.jsonl"], config, jobs=1)
    assert "max-records" in serial["concise"]
    monkeypatch.setattr(parallel, "_LocalEngine", _Inline)
    assert _outputs(logs, ["interleaved.jsonl", "catalog.jsonl"], config, jobs=2, chunk_size=chunk) == serial


def test_a_log_smaller_than_a_range_starts_no_pool(logs, monkeypatch):
    def no_pool(*args):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(parallel, "_LocalEngine", no_pool)
    _outputs(logs, ["catalog.jsonl"], jobs=4)  # 32 MiB ranges: one process
    with pytest.raises(AssertionError):
        _outputs(logs, ["catalog.jsonl"], jobs=4, chunk_size=1024)


def test_the_command_line_jobs_give_the_same_bytes(logs):
    def cli(*args):
        done = subprocess.run(
            [sys.executable, "-m", "cachelint", "audit", "--isolated", *args, "catalog.jsonl", "days"],
            cwd=logs,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 1, done.stderr
        return done.stdout

    for fmt in ("full", "json"):
        assert cli("--jobs", "2", "--chunk-size", "2048", "--output-format", fmt) == cli(
            "--jobs", "1", "--output-format", fmt
        )


def test_config_sets_jobs_and_chunk_size(logs, monkeypatch):
    seen = []

    class Spy(_Inline):
        def __init__(self, jobs, config):
            seen.append(jobs)
            super().__init__(jobs, config)

    monkeypatch.setattr(parallel, "_LocalEngine", Spy)
    config = {"audit": {"jobs": 3, "chunk-size": 2048}}
    assert _outputs(logs, ["interleaved.jsonl"], config) == _outputs(logs, ["interleaved.jsonl"], jobs=1)
    assert seen == [3]


def test_dask_on_a_local_cluster_of_two_workers_gives_the_local_findings(logs):
    pytest.importorskip("distributed")
    paths = ["catalog.jsonl", "damaged.jsonl", "interleaved.jsonl", "days", "zipped.jsonl.gz"]
    local = _outputs(logs, paths, jobs=2, chunk_size=4096)
    assert _outputs(logs, paths, jobs=2, chunk_size=4096, engine="dask") == local
    assert local == _outputs(logs, paths, jobs=1)
