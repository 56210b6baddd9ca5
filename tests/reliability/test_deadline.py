"""The per-file and per-tree deadline holds even when its first alarm lands where an exception
cannot propagate (a garbage-collector callback, a ``__del__``)."""

from __future__ import annotations

import gc
import signal
import time

import pytest

from cachelint.deadline import TimeLimitExceeded, deadline

pytestmark = [
    pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timers on this platform"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


def _busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_an_alarm_swallowed_in_a_gc_callback_fires_again():
    swallowed = []

    def slow_callback(phase, info):
        if phase == "start" and not swallowed:
            swallowed.append(True)
            _busy(0.5)  # the alarm lands here: Python reports it as unraisable and drops it

    gc.callbacks.append(slow_callback)
    started = time.monotonic()
    try:
        with pytest.raises(TimeLimitExceeded):
            with deadline(0.1):
                gc.collect()
                _busy(5)
    finally:
        gc.callbacks.remove(slow_callback)
    assert swallowed and time.monotonic() - started < 2


def test_the_timer_is_disarmed_after_the_block():
    with pytest.raises(TimeLimitExceeded):
        with deadline(0.05):
            _busy(5)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    _busy(0.3)  # no repeat arrives once the block is left


def test_a_block_that_ends_in_time_is_not_interrupted():
    with deadline(5):
        _busy(0.05)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
