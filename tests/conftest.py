"""Shared fixtures: build small trees and logs on disk and run cachelint's API on them."""

from __future__ import annotations

import importlib.util
import json
import os
import sysconfig
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"  # third-party files the tests read (tests/data/README.md)


def links_to_installed_packages(target: Path) -> Path:
    """A folder of links to everything installed for the running interpreter but cachelint (its
    files, its dist-info and an editable install's finder), to put on PYTHONPATH."""
    target.mkdir()
    for site in sorted({Path(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")}):
        for entry in sorted(site.iterdir()) if site.is_dir() else ():
            name = entry.name.lower().lstrip("_")
            if (
                name.endswith(".pth")
                or name.startswith("cachelint")
                or (name.startswith("editable") and "cachelint" in name)
            ):
                continue
            if not (target / entry.name).exists():
                (target / entry.name).symlink_to(entry)
    return target


def offline_pip_env(base: Path) -> dict[str, str]:
    """The environment for a `pip install .` of this repository without a network, as pre-commit
    and the GitHub Action's install step run it: pip's index off, no isolated build (hatchling, the
    build backend, comes from the test extras), and the dependencies taken from the interpreter
    running the tests, on PYTHONPATH, without cachelint itself (the package installed is the one
    built from the repository)."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.fail(
            "hatchling is missing: install the test extras (pip install '.[test]'); it builds cachelint offline"
        )
    env = {key: value for key, value in os.environ.items() if not key.startswith("VIRTUAL_ENV")}
    env.update(
        {
            "PYTHONPATH": str(links_to_installed_packages(base / "site")),
            "PIP_NO_INDEX": "1",
            # pip reads a negative flag's variable inverted: 0 means --no-build-isolation
            "PIP_NO_BUILD_ISOLATION": "0",
        }
    )
    return env


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


def invoke_in(root: Path, *args: str):
    """The command line run in ``root`` (click's runner, in this process: monkeypatches apply)."""
    from click.testing import CliRunner

    from cachelint.cli import main

    old = os.getcwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def forget_rule_memos() -> None:
    """The registry's and the audit's memos of the rules' declarations (a test replaces one)."""
    import cachelint.payloads.hooks as hooks
    import cachelint.rules as rules

    rules._enabled.cache_clear()
    for name in dir(hooks):
        memo = getattr(hooks, name)
        if hasattr(memo, "cache_clear"):
            memo.cache_clear()


@pytest.fixture
def fresh_rule_memos():
    """Declarations a test replaces are forgotten before and after it."""
    forget_rule_memos()
    yield
    forget_rule_memos()
