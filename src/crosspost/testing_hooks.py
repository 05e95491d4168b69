"""A crash switch for the crash-resume tests, and nothing else.

The tests prove that a run killed at any step boundary is finished by the next run
without a second post. To kill a real publishing process at an exact boundary, they
start it with ``CROSSPOST_CRASH_AT=<checkpoint>``; :func:`checkpoint` then sends the
process SIGKILL, the way a power cut or the OOM killer would. Without the variable it
does nothing.
"""

from __future__ import annotations

import os
import signal

CRASH_VARIABLE = "CROSSPOST_CRASH_AT"


def checkpoint(name: str) -> None:
    """Die here, abruptly, when the crash switch names this checkpoint."""
    if os.environ.get(CRASH_VARIABLE) == name:
        os.kill(os.getpid(), signal.SIGKILL)
