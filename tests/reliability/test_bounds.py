"""Bounds that hold for every shape of input: files loaders read by name past the size limit,
f-strings, whole JSON documents, floods of tiny records."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from .helpers import full_findings, run_cli
from .test_limits import peak_rss_mb

SKILL = "---\nname: notes\ndescription: Drafts release notes from merged pull requests.\n---\nbody\n"
LIMIT = 4096  # max-file-size for these tests: the same code path as the default 8 MiB


def _tree(root: Path) -> None:
    (root / "skills" / "notes").mkdir(parents=True)
    (root / "skills" / "notes" / "SKILL.md").write_text(SKILL, encoding="utf-8")


def _cl001(root: Path, *paths: str) -> list[tuple[str, str]]:
    found = full_findings(root, "check", paths or (".",), "--config", f"max-file-size={LIMIT}")
    return [(d["path"], d["message"]) for d in found if d["code"] == "CL001"]


def test_an_agents_md_over_the_size_limit_is_a_cl001(tmp_path):
    _tree(tmp_path)
    (tmp_path / "AGENTS.md").write_text("- notes: Drafts release notes.\n" + "prose\n" * 1000, encoding="utf-8")
    expected = [("AGENTS.md", f"file is 6031 bytes, over the size limit of {LIMIT} bytes (max-file-size)")]
    assert _cl001(tmp_path) == expected
    assert _cl001(tmp_path, "AGENTS.md") == expected


def test_a_marketplace_over_the_size_limit_is_a_cl001(tmp_path):
    _tree(tmp_path)
    (tmp_path / ".claude-plugin").mkdir()
    manifest = {
        "name": "m",
        "owner": {"name": "o"},
        "plugins": [{"name": "p", "source": "./", "description": "x" * 5000}],
    }
    (tmp_path / ".claude-plugin" / "marketplace.json").write_text(json.dumps(manifest), encoding="utf-8")
    [(path, message)] = _cl001(tmp_path)
    assert path == ".claude-plugin/marketplace.json" and "over the size limit" in message


def test_a_large_document_no_loader_reads_by_name_stays_quiet(tmp_path):
    _tree(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("- notes: Drafts release notes.\n" + "prose\n" * 1000)
    assert _cl001(tmp_path) == []


# --- f-strings ---------------------------------------------------------------------------------


def test_an_fstring_counts_its_replacement_fields_in_the_node_bound():
    from cachelint.code.program import count_tokens

    assert count_tokens('x = f"{a}{b}"', 100) == 4 + 2 * 3
    assert count_tokens('x = rf"{a}" + F"{b}"', 100) == 7 + 2 * 3
    # look-alikes: not an f-string, doubled braces, a name that ends where a string starts
    assert count_tokens('x = "{a}{b}"', 100) == 3
    assert count_tokens('x = b"{a}" + rb"{b}"', 100) == 7
    assert count_tokens('x = f"{{a}}"', 100) == 4
    assert count_tokens('x = elf"{a}"', 100) == 4


def _fstring_module(fields: int, prefix: str = "f") -> str:
    return f'import anthropic\nc = anthropic.Anthropic()\nx = {prefix}"' + "{a}" * fields + '"\n'


def test_a_file_of_fstring_fields_past_the_node_bound_is_a_cl001_before_it_is_parsed(tmp_path):
    (tmp_path / "fields.py").write_text(_fstring_module(1000), encoding="utf-8")
    (tmp_path / "plain.py").write_text(_fstring_module(1000, prefix=""), encoding="utf-8")
    found = full_findings(tmp_path, "check", (".",), "--config", "max-syntax-nodes=2000")
    assert [(d["code"], d["path"]) for d in found] == [("CL001", "fields.py")]
    assert "more than 2000 tokens" in found[0]["message"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="f-strings parse in linear time from Python 3.12 (PEP 701)")
def test_an_fstring_the_parser_would_take_longer_than_the_deadline_on_is_refused_at_once(tmp_path):
    # 60,000 fields in 180 KB: about 2.7 s to parse on 3.11, more than the 1 s deadline
    (tmp_path / "slow.py").write_text(_fstring_module(60_000), encoding="utf-8")
    (tmp_path / "fast.py").write_text(_fstring_module(200), encoding="utf-8")
    started = time.process_time()
    found = full_findings(tmp_path, "check", (".",), "--jobs", "1", "--config", "analysis-timeout=1")
    assert time.process_time() - started < 2  # refused before it is parsed
    refused = [(d["code"], d["path"], d["line"]) for d in found if "f-strings" in d["message"]]
    assert refused == [("CL001", "slow.py", 3)]
    assert "60000 replacement fields, line 3" in found[-1]["message"]


# --- whole documents and floods of empty records -------------------------------------------------


def _gzip_document(path: Path, copies: int) -> None:
    import gzip

    record = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "x" * 20_000}]}
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("[" + ",".join(json.dumps(record) for _ in range(copies)) + "]")


def _audit_findings(root: Path, *args: str) -> list[dict]:
    """The findings of an audit that may read no request at all (exit 2: nothing to audit)."""
    code, out = run_cli(root, ["audit", "--isolated", "--jobs", "1", "--output-format", "json", *args])
    assert code in (1, 2), out
    return json.loads(out)["findings"]


def test_a_gzip_json_document_is_held_to_the_gzip_ratio(tmp_path):
    _gzip_document(tmp_path / "bomb.json.gz", 200)  # 4 MB from a few KB
    found = _audit_findings(tmp_path, "bomb.json.gz")
    [problem] = [d for d in found if d["code"] == "CL001"]
    assert problem["path"] == "bomb.json.gz"
    assert "expands more than 100 times" in problem["message"] and "max-gzip-ratio" in problem["message"]


def test_a_gzip_json_document_within_the_ratio_is_read(tmp_path):
    _gzip_document(tmp_path / "fine.json.gz", 5)
    code, out = run_cli(
        tmp_path,
        ["audit", "--isolated", "--output-format", "json", "--config", "audit.max-gzip-ratio=1000", "fine.json.gz"],
    )
    assert json.loads(out)["summary"]["requests"] == 5


def test_a_whole_json_document_over_the_document_size_is_a_cl001(tmp_path):
    # an object (one envelope) is parsed whole: bounded as a whole
    record = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "x" * 12000}]}
    (tmp_path / "big.json").write_text(json.dumps({"request": record}), encoding="utf-8")
    found = _audit_findings(tmp_path, "big.json", "--config", "audit.max-document-size=8192")
    assert [(d["code"], d["path"]) for d in found] == [("CL001", "big.json")]
    assert "over 8192 bytes (max-document-size)" in found[0]["message"]


def test_a_json_list_is_streamed_item_by_item_past_the_document_size(tmp_path):
    # a list is read one item at a time (memory: a window and one item), so the document's size
    # does not bound it; each item is held to max-record-size and the items to max-records
    record = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "x" * 4000}]}
    (tmp_path / "big.json").write_text("\ufeff[\n" + ",\n".join([json.dumps(record)] * 5) + "\n]", encoding="utf-8")
    code, out = run_cli(
        tmp_path,
        ["audit", "--isolated", "--output-format", "json", "--config", "audit.max-document-size=8192", "big.json"],
    )
    assert json.loads(out)["summary"]["requests"] == 5 and json.loads(out)["findings"] == []
    found = _audit_findings(tmp_path, "big.json", "--config", "audit.max-records=3")
    assert [(d["code"], d["line"], d.get("record")) for d in found] == [("CL001", 5, 3)]
    assert "more than 3 items (max-records)" in found[0]["message"]
    found = _audit_findings(tmp_path, "big.json", "--config", "audit.max-record-size=1024")
    assert [(d["code"], d["line"], d.get("record")) for d in found] == [("CL001", 2, 0)]
    assert "max-record-size" in found[0]["message"]


def test_a_json_list_cut_short_gives_its_items_then_a_cl001(tmp_path):
    record = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "q"}]}
    text = "[\n" + ",\n".join([json.dumps(record)] * 3) + "\n]"
    (tmp_path / "cut.json").write_text(text[: -len(json.dumps(record)) // 2 - 3], encoding="utf-8")
    code, out = run_cli(tmp_path, ["audit", "--isolated", "--output-format", "json", "cut.json"])
    report = json.loads(out)
    assert report["summary"]["requests"] == 2
    assert [(d["code"], d["line"], d.get("record")) for d in report["findings"]] == [("CL001", 4, 2)]


@pytest.mark.slow
def test_a_large_json_list_peaks_at_a_fraction_of_its_size(tmp_path):
    # 96 MB in 96 items of 1 MB: parsed whole it peaked at about 3.5 times its size (over 330 MB)
    record = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x" * (1 << 20)}],
    }
    with open(tmp_path / "big.json", "w", encoding="utf-8") as handle:
        handle.write("[" + ",".join(json.dumps(record) for _ in range(96)) + "]")
    code, peak = peak_rss_mb(tmp_path, "audit", "--isolated", "--jobs", "1", "big.json")
    assert code == 0 and peak < 160, peak


@pytest.mark.slow
def test_a_flood_of_empty_records_is_linear_and_fast(tmp_path):
    # 100,000 here (1M in benchmarks/bench_bounds.py): about 0.6 s of CPU here, 3.6 s before
    (tmp_path / "empties.jsonl").write_text("{}\n" * 100_000, encoding="utf-8")
    started = time.process_time()
    code, out = run_cli(tmp_path, ["audit", "--isolated", "--jobs", "1", "empties.jsonl"])
    assert code == 2 and time.process_time() - started < 2.0
