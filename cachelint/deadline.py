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


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TimeLimitExceeded in the block after ``seconds`` (SIGALRM, main thread only)."""
    use_alarm = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread() and seconds > 0
    old = None
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if old is not None:
                signal.signal(signal.SIGALRM, old)
