"""Real session files, read where they are: folders of Claude Code transcripts and Codex rollouts
that public tools keep as test data (not copied here). Run with
``CACHELINT_TRANSCRIPT_CORPUS=dir[:dir…] python -m pytest tests/transcripts -k corpus``.

On every file: no CL003, every rebuild the usage fields show (counted apart, ``count_rebuilds``)
is found, and each has one of the documented causes or ``unknown``; the session files written
here from the formats (``sessions.py``) go through the same check in every run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from .sessions import ClaudeSession, CodexRollout, count_rebuilds

from cachelint.transcripts.audit import new_run
from cachelint.transcripts.model import CAUSES, Rebuild

CORPUS = [Path(p) for p in os.environ.get("CACHELINT_TRANSCRIPT_CORPUS", "").split(os.pathsep) if p]


def session_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl") if p.is_file())


def judged(files: list[Path]) -> tuple[set[tuple[str, int]], list[Rebuild], list]:
    run = new_run(None)
    found = run.read_files((p, str(p), None) for p in files)
    rebuilds = [r for r in found if isinstance(r, Rebuild)]
    return {(r.turn.path, r.turn.line) for r in rebuilds}, rebuilds, run.diagnostics


def check(files: list[Path]) -> int:
    lines, rebuilds, diagnostics = judged(files)
    assert not [d for d in diagnostics if d.code == "CL003"]
    assert lines == count_rebuilds(files)
    assert all(r.cause in CAUSES and r.because for r in rebuilds)
    return len(rebuilds)


def test_the_sessions_written_here_pass_the_independent_count(tmp_path: Path) -> None:
    s = ClaudeSession()
    s.call(0, read=0, written=20_000)
    s.call(9, read=0, written=20_100)
    s.call(9.5, read=15_000, written=5_500, model="claude-opus-4-5")
    r = CodexRollout()
    r.turn_context(0)
    r.call(0.1, prompt=20_000, cached=0)
    r.call(0.2, prompt=20_500, cached=10_000)
    files = [s.write(tmp_path / "a.jsonl"), r.write(tmp_path / "b.jsonl")]
    assert check(files) == 3


@pytest.mark.skipif(not CORPUS, reason="set CACHELINT_TRANSCRIPT_CORPUS to folders of real session files")
@pytest.mark.parametrize("root", CORPUS, ids=str)
def test_corpus_every_rebuild_is_found_with_a_cause(root: Path) -> None:
    files = session_files(root)
    assert files, root
    for path in files:  # each file alone: its threads, its rebuilds
        check([path])
    check(files)  # and a folder as the audit reads it: a session's files together


def test_worker_processes_read_the_same_as_one(tmp_path: Path) -> None:
    """Parsing in worker processes (a large run) gives the same findings and summary as one."""
    files = []
    for n in range(4):
        s = ClaudeSession(session=f"5e55a0b1-0000-4000-8000-00000000010{n}")
        s.call(0, read=0, written=20_000)
        s.call(9, read=0, written=20_100)
        s.call(9.5, read=15_000, written=5_500, model="claude-opus-4-5")
        files.append(s.write(tmp_path / f"{n}.jsonl"))
    results = []
    for jobs in (1, 2):
        run = new_run(None)
        run.read_files(((p, p.name, None) for p in files), jobs=jobs, threshold=0)
        results.append(([d.to_dict() for d in run.diagnostics], run.summary(), run.records))
    assert results[0] == results[1] and len(results[0][0]) == 8


def everything_decoded(files: list[Path], monkeypatch: pytest.MonkeyPatch) -> tuple[list, dict]:
    """The findings and summary with every line decoded (the readers' byte tests turned off)."""
    from cachelint.transcripts import claude_code, codex

    with monkeypatch.context() as patch:
        patch.setattr(claude_code, "wanted", lambda raw: True)
        patch.setattr(claude_code.ClaudeCodeReader, "wanted", lambda self, raw: True)
        patch.setattr(codex.CodexReader, "wanted", staticmethod(lambda raw: True))
        run = new_run(None)
        run.read_files((p, str(p), None) for p in files)
        return [d.to_dict() for d in run.diagnostics], run.summary()


def lines_skipped_by_bytes_change_nothing(files: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    run = new_run(None)
    run.read_files((p, str(p), None) for p in files)
    assert ([d.to_dict() for d in run.diagnostics], run.summary()) == everything_decoded(files, monkeypatch)


def test_lines_skipped_from_their_bytes_change_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = ClaudeSession()
    s.sidechain_root(0, "a")
    s.call(0.1, read=0, written=11_000, thread="a", blocks=3)
    s.call(0.3, read=11_000, written=300, thread="a", blocks=3)
    s.user(1, "<command-name>/model</command-name>")
    s.call(1.1, read=0, written=20_000, blocks=3)
    s.compact(2)
    s.call(2.1, read=3_000, written=2_000)
    files = [s.write(tmp_path / "a.jsonl"), s.write(tmp_path / "b.jsonl", compact=False)]
    lines_skipped_by_bytes_change_nothing(files, monkeypatch)


@pytest.mark.skipif(not CORPUS, reason="set CACHELINT_TRANSCRIPT_CORPUS to folders of real session files")
@pytest.mark.parametrize("root", CORPUS, ids=str)
def test_corpus_lines_skipped_from_their_bytes_change_nothing(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines_skipped_by_bytes_change_nothing(session_files(root), monkeypatch)
