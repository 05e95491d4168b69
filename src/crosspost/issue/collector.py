"""Python's cyclic garbage collector paused while a whole issue's trees are built.

Parsing an issue, rendering it and linting it each hold the whole issue at once: token
streams and their copies, syntax trees, element trees. Every new container object counts
toward the next full collection, and every full collection walks everything alive,
those trees included. So the longer the issue, the more full collections and the longer
each: time grew faster than the issue. A 5,000-item issue rendered for Zhihu once, in a
fresh process, spent about 60 % of its time in nine full collections that freed
nothing, and the render's exponent (time against length) was 1.39 instead of 1.

Nothing these stages build needs the collector while they run (a tree's cycles become
garbage only when the stage returns), so they run with it paused; the first collection
after them frees those cycles in one walk of what they left.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _CollectorPause:
    """The collector off for a block (or a decorated function), back as it was after.

    Nested and concurrent blocks (renders of several channels in threads) pause it once
    and resume it when the last one ends; a process that switched the collector off
    itself keeps it off.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._resume = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        self._begin()
        try:
            yield
        finally:
            self._end()

    def for_seconds(self, seconds: float) -> threading.Timer:
        """Pause now and resume after ``seconds``, from a timer thread, as a block that
        long would (a block still open then keeps the collector paused until it ends).

        For a command's start-up: importing what ``check`` and ``render`` need allocates
        hundreds of thousands of objects and leaves almost none in cycles, yet the
        collector stops to look 70-odd times, ~10 ms of the ~250 an editor waits for
        between edits. A command done within ``seconds`` never misses it; one that runs
        longer (``serve``, the sandbox, a publish waiting on the platforms) gets it back,
        so what a long run leaves in cycles is still freed."""
        self._begin()
        timer = threading.Timer(seconds, self._end)
        timer.daemon = True
        timer.start()
        return timer

    def _begin(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._depth += 1

    def _end(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._resume:
                gc.enable()


#: ``with collector_paused(): …``, ``@collector_paused()``, or ``collector_paused.for_seconds(2)``.
collector_paused = _CollectorPause()
