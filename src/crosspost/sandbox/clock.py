"""A clock and a sleep that tests (and the sandbox's control endpoint) move by hand.

Token lifetimes, quotas per minute and per day, publish jobs and latency faults all run
on an injected clock; with :class:`ManualClock` a test that "waits" two hours returns at
once, and every sleep it asked for is on record.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class ManualClock:
    """``clock()`` reads the time, ``clock.sleep(s)`` records ``s`` and advances by it."""

    def __init__(self, start: float = 1_790_000_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        #: Every duration passed to :meth:`sleep`, in order.
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        """The current time, in seconds since the epoch."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward (never back) and return the new time."""
        with self._lock:
            self._now += max(0.0, seconds)
            return self._now

    def step(self, seconds: float) -> float:
        """Set the clock ``seconds`` forward or back at once, as NTP does to a clock that
        was wrong (a negative step: the clock goes back); return the new time."""
        with self._lock:
            self._now += seconds
            return self._now

    def sleep(self, seconds: float) -> None:
        """What a test passes where code would call ``time.sleep``."""
        self.sleeps.append(seconds)
        self.advance(seconds)


class OffsetClock:
    """Any clock (the real one by default) that the control endpoint can push forward,
    so a rehearsal against ``crosspost sandbox`` can skip a token's two hours."""

    def __init__(self, base: Callable[[], float] = time.time) -> None:
        self._base = base
        self._offset = 0.0

    def __call__(self) -> float:
        """The base clock's time plus every advance so far."""
        return self._base() + self._offset

    def advance(self, seconds: float) -> float:
        """Move time forward (never back) and return the new time."""
        self._offset += max(0.0, seconds)
        return self()
