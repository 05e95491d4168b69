"""Switches for tests that drive crosspost as a real process, and nothing else.

The crash-resume tests prove that a run killed at any step boundary is finished by the
next run without a second post. To kill a real publishing process at an exact boundary,
they start it with ``CROSSPOST_CRASH_AT=<checkpoint>``; :func:`checkpoint` then sends the
process SIGKILL, the way a power cut or the OOM killer would.

A subprocess cannot be handed a fake ``sleep`` or clock, so ``CROSSPOST_MAX_SLEEP=<seconds>``
caps every pause the publisher takes between polls (:func:`paced`): against the sandbox a
publication is ready at once, and a test should not wait the real platform's seconds. And
``CROSSPOST_CLOCK_OFFSET=<seconds>`` moves the publisher's clock forward (:func:`shifted`),
so a test can run "ten minutes later" (when WeChat can say whether a submit happened)
after moving the sandbox's clock by as much.

Without the variables nothing changes.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

CRASH_VARIABLE = "CROSSPOST_CRASH_AT"
MAX_SLEEP_VARIABLE = "CROSSPOST_MAX_SLEEP"
CLOCK_OFFSET_VARIABLE = "CROSSPOST_CLOCK_OFFSET"

#: Where a run can be killed: the boundaries around the two irreversible calls and the poll.
CHECKPOINTS = ("before-draft", "after-draft", "before-publish", "after-publish", "before-poll")


def checkpoint(name: str) -> None:
    """Die here, abruptly, when the crash switch names this checkpoint."""
    if os.environ.get(CRASH_VARIABLE) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def paced(sleep: Callable[[float], None]) -> Callable[[float], None]:
    """``sleep``, or ``sleep`` capped at ``CROSSPOST_MAX_SLEEP`` seconds when that is set."""
    cap = _seconds(MAX_SLEEP_VARIABLE)
    if cap is None:
        return sleep
    return lambda seconds: sleep(min(seconds, max(0.0, cap)))


def shifted(clock: Callable[[], float]) -> Callable[[], float]:
    """``clock``, or ``clock`` plus ``CROSSPOST_CLOCK_OFFSET`` seconds when that is set."""
    offset = _seconds(CLOCK_OFFSET_VARIABLE)
    if offset is None:
        return clock
    return lambda: clock() + offset


def _seconds(variable: str) -> float | None:
    raw = os.environ.get(variable, "").strip()
    try:
        return float(raw) if raw else None
    except ValueError:
        return None  # a misspelt test switch changes nothing
