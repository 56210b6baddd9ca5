"""A time bound on a block of work: SIGALRM raises ``TimeLimitExceeded`` inside it.

Used for the analysis of one Python file (``analysis-timeout``, in the worker processes) and for
the skill checks of one tree (``[skills] tree-timeout``, in the main process). Only the main thread
can receive the signal: elsewhere (an embedding application's thread) the block runs unbounded.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


class TimeLimitExceeded(Exception):
    pass


def _on_alarm(signum, frame):  # pragma: no cover - exercised through the timeout tests
    raise TimeLimitExceeded()


# clock -> (signal, interval timer): wall-clock time (what a user waits), or the CPU time of this
# process (what an input costs, whatever the machine's load)
_CLOCKS = {"wall": ("SIGALRM", "ITIMER_REAL"), "cpu": ("SIGPROF", "ITIMER_PROF")}


@contextlib.contextmanager
def deadline(seconds: float, clock: str = "wall") -> Iterator[None]:
    """Raise TimeLimitExceeded in the block after ``seconds`` of ``clock`` time (``wall``:
    SIGALRM; ``cpu``: SIGPROF, this process's CPU time). Main thread only. The two clocks use
    their own timers, so a CPU bound around a block that sets a wall one inside stays armed."""
    signame, timername = _CLOCKS[clock]
    use_alarm = hasattr(signal, signame) and threading.current_thread() is threading.main_thread() and seconds > 0
    old = None
    if use_alarm:
        signum, timer = getattr(signal, signame), getattr(signal, timername)
        old = signal.signal(signum, _on_alarm)
        signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        if use_alarm:
            signal.setitimer(timer, 0)
            if old is not None:
                signal.signal(signum, old)
