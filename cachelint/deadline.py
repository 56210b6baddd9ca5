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


# clock -> (signal, interval timer): wall-clock time (what a user waits), or the CPU time of this
# process (what an input costs, whatever the machine's load)
_CLOCKS = {"wall": ("SIGALRM", "ITIMER_REAL"), "cpu": ("SIGPROF", "ITIMER_PROF")}


# Once expired, the timer fires again at this interval until the block ends. A signal handler's
# exception raised while the interpreter runs a garbage-collector callback or a ``__del__`` is
# reported as "unraisable" and dropped, and the block then ran on unbounded; the next alarm
# raises it again where it can propagate.
REPEAT_SECONDS = 0.05


@contextlib.contextmanager
def deadline(seconds: float, clock: str = "wall") -> Iterator[None]:
    """Raise TimeLimitExceeded in the block after ``seconds`` of ``clock`` time (``wall``:
    SIGALRM; ``cpu``: SIGPROF, this process's CPU time), and every ``REPEAT_SECONDS`` after that
    until it leaves the block (one raised where it cannot propagate is lost). Main thread only.
    The two clocks use their own timers, so a CPU bound around a block that sets a wall one
    inside stays armed. Python runs the handler between bytecodes: a single call into C code (the
    parser) is bounded by the checks before it, not by this."""
    signame, timername = _CLOCKS[clock]
    use_alarm = hasattr(signal, signame) and threading.current_thread() is threading.main_thread() and seconds > 0
    old = None
    # Whether the handler still raises: cleared by the first statement of ``finally``, before any
    # call (CPython runs signal handlers at calls and backward jumps only), so that a repeat that
    # arrives while the exception is on its way out cannot stop the timer from being disarmed.
    armed = [True]

    def on_alarm(signum, frame):  # pragma: no cover - exercised through the timeout tests
        if armed[0]:
            raise TimeLimitExceeded()

    if use_alarm:
        signum, timer = getattr(signal, signame), getattr(signal, timername)
        old = signal.signal(signum, on_alarm)
        signal.setitimer(timer, seconds, REPEAT_SECONDS)
    try:
        yield
    finally:
        armed[0] = False
        if use_alarm:
            signal.setitimer(timer, 0)
            if old is not None:
                signal.signal(signum, old)
