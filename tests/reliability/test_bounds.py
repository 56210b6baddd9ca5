"""Bounds that hold for every shape of input: files loaders read by name past the size limit,
f-strings, whole JSON documents, floods of tiny records."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import full_findings

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
