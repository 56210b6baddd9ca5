"""The collector's threshold is raised for the duration of a check or an audit, in the process
and in its workers, and the caller's own setting is given back, even when the run fails."""

from __future__ import annotations

import contextlib
import gc

import pytest

from cachelint import collections_gc
from conftest import check_with_cache, write_tree


@pytest.fixture
def default_threshold():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_the_threshold_is_raised_during_the_run_only(default_threshold) -> None:
    seen = []
    with collections_gc.fewer_collections():
        seen.append(gc.get_threshold())
    assert seen == [(collections_gc.THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)
    with pytest.raises(RuntimeError), collections_gc.fewer_collections():
        raise RuntimeError("the run failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_a_caller_s_higher_threshold_is_kept(default_threshold) -> None:
    gc.set_threshold(50_000, 5, 5)
    with collections_gc.fewer_collections():
        assert gc.get_threshold() == (50_000, 5, 5)
    assert gc.get_threshold() == (50_000, 5, 5)


def test_a_check_gives_the_caller_its_setting_back(tmp_path, default_threshold, monkeypatch) -> None:
    during = []
    real = collections_gc.fewer_collections

    def spying():
        with real():
            during.append(gc.get_threshold()[0])
            yield

    import cachelint.engine.run as engine_run

    monkeypatch.setattr(engine_run, "fewer_collections", contextlib.contextmanager(spying))
    write_tree(tmp_path, {"agent.py": "import anthropic\nclient = anthropic.Anthropic()\n"})
    check_with_cache(tmp_path, no_cache=True)
    assert during == [collections_gc.THRESHOLD]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_worker_keeps_the_higher_threshold(default_threshold) -> None:
    import signal

    from cachelint.engine.workers import _worker_signals

    handler = signal.getsignal(signal.SIGTERM)
    try:
        _worker_signals()
        assert gc.get_threshold()[0] == collections_gc.THRESHOLD
    finally:
        signal.signal(signal.SIGTERM, handler)
