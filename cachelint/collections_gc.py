"""How often Python's cyclic garbage collector runs during a check or an audit.

Both allocate many small containers and build few reference cycles (the code checks' handler
tables are class-level, and an audit's records are plain values), yet with the default first
threshold (700 allocations) the collector runs every few hundred of them and its older
generations re-scan everything alive: ~5-8% of an audit's time, 15-20% of a cold check's
(docs/benchmarks.md). A higher first threshold for the duration of the run, restored afterwards:
a library call must not change its caller's settings."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

THRESHOLD = 20_000


def _raise_threshold() -> tuple[int, int, int]:
    """Raise the first threshold (never lower it); the thresholds as they were."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], THRESHOLD), *before[1:])
    return before


@contextmanager
def fewer_collections() -> Iterator[None]:
    before = _raise_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)


def in_worker() -> None:
    """A worker process of the pool runs nothing but the run's tasks: the higher threshold for
    its whole life (a forked worker inherits it; a spawned one starts with the default)."""
    _raise_threshold()
