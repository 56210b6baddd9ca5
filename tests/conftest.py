"""Shared fixtures: build small trees and logs on disk and run cachelint's API on them."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"  # third-party files the tests read (tests/data/README.md)


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def check_tree(root: Path, paths=(".",), config: Mapping[str, Any] | None = None, **options):
    """Run ``check`` on ``root`` in isolation (no config file lookup, no cache)."""
    from cachelint.api import check_paths
    from cachelint.config import load_settings
    from cachelint.engine import CheckOptions

    settings = load_settings(root, isolated=True, overrides=dict(config or {}))
    options.setdefault("no_cache", True)
    return check_paths(paths, settings=settings, options=CheckOptions(**options), cwd=root)


def check_with_cache(root: Path, paths=(".",), config: Mapping[str, Any] | None = None, **options):
    """Run ``check`` on ``root`` in isolation, with the result cache on and one process."""
    from cachelint.api import check_paths
    from cachelint.config import load_settings
    from cachelint.engine import CheckOptions

    settings = load_settings(root, isolated=True, overrides=dict(config or {}))
    options.setdefault("jobs", 1)
    return check_paths(paths, settings=settings, options=CheckOptions(**options), cwd=root)


@pytest.fixture
def frozen_code_stamp(monkeypatch):
    """The cache key includes the stamp of cachelint's own source files; pin it, so that an edit
    elsewhere in the checkout during a test cannot turn a warm run cold."""
    monkeypatch.setattr("cachelint.config._code_stamp", lambda: "pinned-for-tests")


def audit_records(tmp_path: Path, records: Iterable[Any], config: Mapping[str, Any] | None = None, name="log.jsonl"):
    from cachelint.api import audit_logs
    from cachelint.config import load_settings

    log = write_jsonl(tmp_path / name, records)
    settings = load_settings(tmp_path, isolated=True, overrides=dict(config or {}))
    return audit_logs([log.name], settings=settings, cwd=tmp_path)


@pytest.fixture
def tree(tmp_path):
    def make(files: Mapping[str, str | bytes]) -> Path:
        return write_tree(tmp_path, files)

    return make


@pytest.fixture(autouse=True)
def _hash_seed_independent(monkeypatch):
    # The CLI must not depend on the caller's environment for its output.
    monkeypatch.delenv("CACHELINT_OUTPUT_FORMAT", raising=False)
    monkeypatch.delenv("CACHELINT_NO_CACHE", raising=False)
    yield
