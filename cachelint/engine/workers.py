"""The worker pool of the Python run: this process or a pool started at most once per run, fed
task by task (``Workers``); how it is started (``start_method``) and what its workers inherit."""

from __future__ import annotations

import collections
import os
import queue
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Sequence

from cachelint import collections_gc
from cachelint.config import Settings
from cachelint.deadline import deadline

if TYPE_CHECKING:
    from multiprocessing.pool import Pool


def _worker_signals() -> None:
    """Pool workers take SIGTERM's default action: the pool stops them with it (``abort``), and
    a forked worker would otherwise inherit the command line's handler, which turns the signal
    into an exception meant for the main process. The collector's threshold of the run, which
    a spawned worker does not inherit, for its whole life."""
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    collections_gc.in_worker()


def start_method() -> str:
    """fork: workers inherit the imported checks and loaded knowledge (no re-import, pages shared
    copy-on-write). Not from a process with other threads running (the API called inside a threaded
    host: a lock another thread holds stays locked in the child forever; Python 3.12+ warns):
    forkserver then, and spawn where fork is unavailable or unsafe (macOS, Windows)."""
    if not sys.platform.startswith("linux"):
        return "spawn"
    return "fork" if _threads() == 1 else "forkserver"


def _threads() -> int:
    """Threads of this process as the system counts them: also those started below ``threading``
    (``_thread.start_new_thread``, C libraries), which ``threading.active_count()`` misses."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


class Workers:
    """Runs per-file work in this process or in a pool of workers (started at most once per run,
    see ``start_method``), task by task as tasks become ready (``submit``, ``next_result``)."""

    def __init__(self, jobs: int | None) -> None:
        self.jobs = jobs or os.cpu_count() or 1
        self._pool: Pool | None = None
        self._pooled = False  # submit() sends tasks to the pool
        self._in_flight = 0
        self._finished: "collections.deque[tuple[Any, Any]]" = collections.deque()
        self._arrived: "queue.SimpleQueue[tuple[Any, Any, BaseException | None]]" = queue.SimpleQueue()

    # Tasks one at a time, for work whose tasks become known as earlier ones finish (a summary
    # waits for the summaries of the modules it imports): ``use_pool`` once, then ``submit`` and
    # ``next_result``. In this process, ``submit`` runs the task at once.

    def use_pool(self, prepare: Callable[[], None] | None = None) -> None:
        if self.jobs <= 1:
            return
        if self._pool is None and prepare is not None:
            prepare()
        self._start()
        self._pooled = True

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def window(self) -> int:
        """Batches to keep sent to the pool: enough that no worker waits for the next one, few
        enough that a task that becomes ready (a summary others wait for) goes out soon."""
        return 2 * self.jobs + 2 if self._pooled else 1

    def batch_size(self, ready: int) -> int:
        """Tasks per message to the pool: up to 8 while many are ready, one at a time near the
        end so that the workers finish together. One message per task cost the parent process
        ~0.3 s more CPU on a cold run of the SDK corpus (1,187 tasks: 0.75-0.85 s against
        0.5 s with batches of 8, which is what the two rounds of ``map`` cost before)."""
        if not self._pooled:
            return 1
        return max(1, min(8, ready // (self.jobs * 4)))

    def submit(self, func: Callable, key: Any, task: Any) -> None:
        self._in_flight += 1
        if not self._pooled:
            self._finished.append((key, func(task)))
            return
        arrived = self._arrived
        self._start().apply_async(
            func,
            (task,),
            callback=lambda value: arrived.put((key, value, None)),
            error_callback=lambda exc: arrived.put((key, None, exc)),
        )

    def next_result(self) -> tuple[Any, Any]:
        """(key, result) of a finished task; waits for one when none has finished yet."""
        if self._finished:
            self._in_flight -= 1
            return self._finished.popleft()
        while True:
            try:  # with a timeout: a plain wait would not let Ctrl-C through on every platform
                key, value, exc = self._arrived.get(timeout=0.5)
                break
            except queue.Empty:
                continue
        self._in_flight -= 1
        if exc is not None:
            raise exc
        return key, value

    def _start(self):
        if self._pool is None:
            import multiprocessing

            self._pool = multiprocessing.get_context(start_method()).Pool(self.jobs, initializer=_worker_signals)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def abort(self) -> None:
        """Stop the workers now (Ctrl-C, an error): joining busy workers could wait forever."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def map_in_pool(work: Callable[[list[Any]], list[Any]], items: Sequence[Any], jobs: int | None) -> list[Any]:
    """``work`` over ``items`` in a pool of workers, in batches (``work`` takes a batch and returns
    one result per item): the results in the order of ``items``, None for the items of a batch
    whose worker died."""
    workers = Workers(jobs)
    out: list[Any] = [None] * len(items)
    try:
        workers.use_pool()
        size = max(1, min(16, len(items) // (workers.jobs * 4)))
        for start in range(0, len(items), size):
            workers.submit(work, start, list(items[start : start + size]))
        while workers.in_flight:
            start, results = workers.next_result()
            out[start : start + len(results)] = results
    except BaseException:
        workers.abort()
        raise
    workers.close()
    return out


def prepare_checks(settings: Settings) -> Callable[[], None]:
    """Runs in this process before the pool forks: import the checks and let them load their
    knowledge (packs: YAML, schemas) on an empty module, so that the forked workers inherit both
    instead of each paying for them (~0.3 s a worker here)."""

    def prepare() -> None:
        from cachelint.code import check_module

        try:
            with deadline(settings.analysis_timeout):
                check_module("__cachelint_prepare__.py", "", settings)
        except Exception:
            pass  # any real problem shows again, per file, as CL001

    return prepare
