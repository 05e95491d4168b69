"""Noticing that an issue was saved: the files' modification times, polled.

Polling a handful of ``stat`` calls a few times a second costs nothing and works the
same on every system, network folders and editors that save by renaming included,
which file-system notification APIs do not all manage. The clock and the pause are
injected, so a test runs the loop without waiting.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

#: Seconds between two looks. A save shows in the browser within this plus one render,
#: well inside the second an editor will wait.
POLL_INTERVAL = 0.2
#: Seconds a browser's question "anything new?" is held open before it is answered "no".
HOLD_SECONDS = 20.0


def fingerprint(paths: Iterable[Path]) -> str:
    """A short text that changes whenever one of the files is written, created or removed."""
    digest = hashlib.sha256()
    for path in paths:
        try:
            info = os.stat(path)
            stamp = f"{path}\0{info.st_mtime_ns}\0{info.st_size}\n"
        except OSError:
            stamp = f"{path}\0missing\n"
        digest.update(stamp.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Watcher:
    """Waits for a change in a set of files, looking every ``interval`` seconds."""

    interval: float = POLL_INTERVAL
    hold: float = HOLD_SECONDS
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep

    def wait(self, paths: Callable[[], Iterable[Path]], since: str) -> str:
        """The fingerprint of ``paths()`` once it differs from ``since``, or after ``hold``
        seconds (the same fingerprint: nothing changed). ``paths`` is asked again on every
        look, so a file the issue starts to use is watched from then on."""
        deadline = self.clock() + self.hold
        while True:
            now = fingerprint(paths())
            if now != since or self.clock() >= deadline:
                return now
            self.sleep(self.interval)
