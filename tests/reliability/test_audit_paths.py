"""An audit's results do not depend on how its paths are named: their order, ``./`` or a
trailing slash, a folder named twice, a file reached by two names."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import GOOD_LOG, run_cli

RECORDS = GOOD_LOG.splitlines()  # two requests: the second reorders the first's tools (CL301)


def _logs(root: Path) -> Path:
    logs = root / "logs"
    logs.mkdir()
    # sessions run across files: which breaks are found depends on the order the files are read in
    (logs / "b.jsonl").write_bytes(RECORDS[0] + b"\n")
    (logs / "a.jsonl").write_bytes(RECORDS[1] + b"\n" + RECORDS[0] + b"\n")
    (logs / "c.jsonl").write_bytes(GOOD_LOG)
    return logs


def _audit(root: Path, *paths: str) -> dict:
    code, out = run_cli(root, ["audit", "--isolated", "--jobs", "1", "--output-format", "json", *paths])
    assert code in (0, 1), out
    return json.loads(out)


def _answer(data: dict) -> tuple:
    findings = [(d["code"], d["path"], d["line"], d.get("record"), d["message"]) for d in data["findings"]]
    return findings, data["summary"]["requests"], data["summary"]["sessions"]


def test_the_order_of_the_files_given_does_not_change_the_findings(tmp_path):
    _logs(tmp_path)
    forward = _audit(tmp_path, "logs/a.jsonl", "logs/b.jsonl", "logs/c.jsonl")
    backward = _audit(tmp_path, "logs/c.jsonl", "logs/b.jsonl", "logs/a.jsonl")
    assert _answer(forward) == _answer(backward) == _answer(_audit(tmp_path, "logs"))


def test_a_folder_named_twice_is_audited_once(tmp_path):
    logs = _logs(tmp_path)
    once = _answer(_audit(tmp_path, "logs"))
    assert once[1] == 5
    for spelling in (["logs", "./logs"], ["./logs/", "logs"], [str(logs), "logs"], ["logs", "logs/a.jsonl"]):
        assert _answer(_audit(tmp_path, *spelling)) == once, spelling


def test_a_file_reached_through_a_link_is_audited_once(tmp_path):
    logs = _logs(tmp_path)
    (logs / "z-link.jsonl").symlink_to(logs / "c.jsonl")
    data = _audit(tmp_path, "logs")
    assert data["summary"]["requests"] == 5
    assert all(d["path"] != "logs/z-link.jsonl" for d in data["findings"])


def test_missing_paths_are_told_once_in_one_order(tmp_path):
    _logs(tmp_path)
    first = _audit(tmp_path, "nope.jsonl", "logs", "./nope.jsonl", "gone")
    second = _audit(tmp_path, "gone", "logs", "nope.jsonl")
    assert _answer(first) == _answer(second)
    assert [(d["code"], d["path"]) for d in first["findings"] if d["code"] == "CL001"] == [
        ("CL001", "gone"),
        ("CL001", "nope.jsonl"),
    ]
