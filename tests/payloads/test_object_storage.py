"""Logs in object storage (s3://, through fsspec and s3fs): a local S3 (moto's server mode, on
loopback) holding a Hive-partitioned day of logs, audited in one process and on a Dask
LocalCluster of two workers, against the audit of the same files on disk; bad objects each give
one message and the rest of the audit goes on."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from cachelint.api import audit_logs
from cachelint.payloads import AuditOptions
from cachelint.payloads.readers.storage import TimeWindow, is_remote
from cachelint.report import render

SAMPLES = Path(__file__).parent / "format_samples"
BUCKET = "agent-logs"


def test_remote_paths_are_told_from_local_ones():
    assert is_remote("s3://bucket/prefix/") and is_remote("gs://b/x.jsonl") and is_remote("az://c/x")
    assert not is_remote("logs/s3:/x.jsonl") and not is_remote("file:///tmp/x") and not is_remote("./x")


def test_time_window_keeps_the_partitions_it_overlaps():
    window = TimeWindow.parse("2026-12-01T06:00", "2026-12-01T08:30Z")
    day = "b/year=2026/month=12/day=01"
    assert not window.keeps(f"{day}/hour=05/x.json")
    assert window.keeps(f"{day}/hour=06/x.json") and window.keeps(f"{day}/hour=08/x.json")
    assert not window.keeps(f"{day}/hour=09/x.json")
    assert window.keeps(f"{day}/x.json") and window.keeps("b/year=2026/month=12/x.json")
    assert not window.keeps("b/year=2026/month=11/x.json") and not window.keeps("b/year=2025/x.json")
    assert window.keeps("b/no-partition/x.json") and window.keeps("b/year=2026/month=13/x.json")


def _anthropic_log(n: int) -> bytes:
    system = "You are a build agent. Today is 2026-12-01."
    lines, history = [], []
    for i in range(n):
        history = [*history, {"role": "user", "content": f"step {i}"}]
        body = {"model": "claude-sonnet-4-5", "max_tokens": 64, "system": system, "messages": history}
        if i == n - 2:
            body["system"] = system.replace("2026-12-01", "2026-12-02")  # a date that ticks: a break
        lines.append(json.dumps({"url": "https://api.anthropic.com/v1/messages", "request": body}))
        history = [*history, {"role": "assistant", "content": f"done {i}"}]
    return ("\n".join(lines) + "\n").encode()


def _day() -> dict[str, bytes]:
    """key -> bytes of a day of logs, as the exporters lay them out (gzip where they compress)."""
    otel = (SAMPLES / "otel-genai-collector" / "timestamp" / "otel-genai-collector.jsonl").read_bytes()
    litellm = (SAMPLES / "litellm" / "timestamp" / "litellm.jsonl").read_bytes()
    return {
        "otel/year=2026/month=12/day=01/hour=09/traces_0001.jsonl.gz": gzip.compress(otel),
        "litellm/year=2026/month=12/day=01/hour=10/litellm.jsonl": litellm,
        "agent/year=2026/month=12/day=01/hour=11/requests.jsonl.gz": gzip.compress(_anthropic_log(6)),
        "agent/year=2026/month=12/day=01/hour=12/requests.jsonl": _anthropic_log(5),
        "agent/year=2026/month=12/day=02/hour=00/requests.jsonl": _anthropic_log(4),  # the next day
    }


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A local S3 on loopback holding the day; the environment the SDKs read points at it."""
    pytest.importorskip("s3fs")
    server_module = pytest.importorskip("moto.server")
    mp = pytest.MonkeyPatch()
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing-secret-never-shown",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        mp.setenv(name, value)
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    mp.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
    import fsspec

    fsspec.config.conf.pop("s3", None)
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    fs.mkdir(BUCKET)
    local = tmp_path_factory.mktemp("day")
    for key, data in _day().items():
        fs.pipe(f"{BUCKET}/{key}", data)
        (local / key).parent.mkdir(parents=True, exist_ok=True)
        (local / key).write_bytes(data)
    fs.invalidate_cache()
    yield fs, local
    server.stop()
    mp.undo()


def _json(paths, root: Path, **options) -> str:
    result = audit_logs(paths, options=AuditOptions(progress=False, **options), cwd=root)
    return render("json", result.diagnostics, summary=result.summary)


def _without_fingerprints(text: str) -> str:
    found = json.loads(text)
    for finding in found["findings"]:
        finding.pop("fingerprint", None)
    return json.dumps(found, indent=1)


def test_a_day_in_s3_is_audited_as_the_same_files_on_disk(s3, tmp_path):
    _fs, local = s3
    window = {"since": "2026-12-01", "until": "2026-12-01T23:59"}
    remote = _json([f"s3://{BUCKET}/"], tmp_path, jobs=1, **window)
    shutil.rmtree(local / "agent" / "year=2026" / "month=12" / "day=02", ignore_errors=True)
    on_disk = _json([str(local)], tmp_path, jobs=1, **window)  # the window applies to the requests' times too
    # the same findings, sessions and money; a fingerprint hashes the path a finding names
    assert _without_fingerprints(remote) == _without_fingerprints(on_disk.replace(str(local), f"s3://{BUCKET}"))
    summary = json.loads(remote)["summary"]
    assert summary["files"] == 4 and summary["requests"] > 10
    assert set(summary["formats"]) >= {"jsonl", "litellm"}
    assert "testing-secret-never-shown" not in remote


def test_dask_workers_read_the_objects_and_give_the_local_findings(s3, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from cachelint.payloads import parallel

    planned: list = []
    feed = parallel.ParallelFeed.__init__

    def spied(self, tasks, engine, config):
        planned.extend(t for found in tasks.values() for t in found)
        feed(self, tasks, engine, config)

    monkeypatch.setattr(parallel.ParallelFeed, "__init__", spied)
    paths = [f"s3://{BUCKET}/agent/", f"s3://{BUCKET}/otel/**/*.jsonl.gz", f"s3://{BUCKET}/litellm/"]
    local = _json(paths, tmp_path, jobs=1)
    dask = _json(paths, tmp_path, jobs=2, engine="dask", chunk_size=512)
    assert dask == local
    assert json.loads(local)["summary"]["files"] == 5
    # every task names the object, read from the storage by its worker: a gzip object whole, a
    # plain one by byte ranges (lines cut at a range's edge belong to the range they start in)
    assert planned and all(t.path.startswith(f"s3://{BUCKET}/") for t in planned)
    plain = [t for t in planned if t.path.endswith("hour=12/requests.jsonl")]
    assert len(plain) > 1 and not any(t.whole for t in plain)
    assert [t.whole for t in planned if t.path.endswith(".gz")] == [True]  # the OTel object is another format


def test_bad_objects_each_say_why_and_the_rest_is_audited(s3, tmp_path):
    fs, _local = s3
    fs.pipe(f"{BUCKET}/bad/truncated.jsonl.gz", gzip.compress(_anthropic_log(5))[:-40])
    fs.pipe(f"{BUCKET}/bad/notes.jsonl", b"Meeting notes, not a log.\nSecond line.\n")
    fs.invalidate_cache()
    out = _json(["s3://no-such-bucket-here/", f"s3://{BUCKET}/bad/", f"s3://{BUCKET}/agent/"], tmp_path, jobs=1)
    found = json.loads(out)
    messages = {(d["path"], d["message"]) for d in found["findings"] if d["code"].startswith("CL0")}
    paths = {path for path, _ in messages}
    assert "s3://no-such-bucket-here/" in paths
    assert any("no such bucket" in m for p, m in messages if p == "s3://no-such-bucket-here/")
    by_path = dict(messages)
    assert "truncated or corrupt gzip" in by_path[f"s3://{BUCKET}/bad/truncated.jsonl.gz"]
    assert "not a request log" in by_path[f"s3://{BUCKET}/bad/notes.jsonl"]
    assert found["summary"]["requests"] >= 15  # the agent's three files all read
    assert "testing-secret-never-shown" not in out


class _RefusingFileSystem:
    """A file system whose every call is refused, as S3 refuses a key without the permission
    (s3fs raises PermissionError with the service's message, which may quote the key id)."""

    def invalidate_cache(self, path=None):
        pass

    def __getattr__(self, name):
        def refuse(*args, **kwargs):
            raise PermissionError("AccessDenied for AKIAEXAMPLEKEYID12345 on arn:aws:s3:::private")

        return refuse


def test_no_permission_is_one_message_without_the_credentials(monkeypatch, tmp_path):
    from cachelint.payloads.readers import storage

    log = tmp_path / "local.jsonl"
    log.write_bytes(_anthropic_log(3))
    monkeypatch.setattr(storage, "file_system", lambda url: (_RefusingFileSystem(), url.partition("://")[2]))
    out = _json(["s3://private/logs/", str(log)], tmp_path, jobs=1)
    found = json.loads(out)
    refused = [d for d in found["findings"] if d["path"] == "s3://private/logs/"]
    assert len(refused) == 1 and "permission denied" in refused[0]["message"]
    assert found["summary"]["requests"] == 3  # the local log is audited
    assert "AKIAEXAMPLEKEYID12345" not in out


def test_a_key_never_leads_out_of_the_staging_folder(tmp_path, monkeypatch):
    from cachelint.payloads.readers import storage

    class Objects:
        def open(self, path, mode):
            import io

            return io.BytesIO(path.encode())

    monkeypatch.setattr(storage, "file_system", lambda url: (Objects(), url.partition("://")[2]))
    staging = storage.Staging(tmp_path / "stage")
    first = staging.fetch("s3://bucket/../../escape.jsonl")
    second = staging.fetch("s3://bucket/escape.jsonl")
    assert isinstance(first, Path) and isinstance(second, Path) and first != second
    for found in (first, second):
        assert found.resolve().is_relative_to((tmp_path / "stage").resolve())
    assert first.read_bytes() == b"bucket/../../escape.jsonl"
    assert not (tmp_path / "escape.jsonl").exists()
