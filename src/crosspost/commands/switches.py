"""Test switches: the one place where crosspost reads test-only settings from the environment.

Tests that drive crosspost as a real process cannot hand it a fake clock, sleep or crash
point, so they set environment variables instead; the commands read them here, once, and
inject what they make into the publisher and the scheduler like any other clock or sleep.
Nothing below the commands reads these variables.

* ``CROSSPOST_CRASH_AT=<checkpoint>`` kills the process with SIGKILL at that checkpoint of
  a post (:data:`~crosspost.publish.machine.CHECKPOINTS`), the way a power cut or the OOM
  killer would: the crash-resume tests prove the next run finishes without a second post.
  ``<checkpoint>*<n>`` waits there until ``n`` posts (one per channel thread) have reached
  it, then dies: the kill lands at a defined point of every post, never wherever another
  thread happens to be (a create still in flight, which nobody can settle for minutes).
* ``CROSSPOST_MAX_SLEEP=<seconds>`` caps every pause between polls: against the sandbox a
  publication is ready at once, and a test should not wait the real platform's seconds.
* ``CROSSPOST_CLOCK_OFFSET=<seconds>`` moves the clock forward, so a test can run "ten
  minutes later" (when WeChat can say whether a submit happened) after moving the
  sandbox's clock by as much.

Without the variables nothing changes; a misspelt number changes nothing either.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

CRASH_VARIABLE = "CROSSPOST_CRASH_AT"
MAX_SLEEP_VARIABLE = "CROSSPOST_MAX_SLEEP"
CLOCK_OFFSET_VARIABLE = "CROSSPOST_CLOCK_OFFSET"

#: How long a post waits at a shared crash point for the others before dying alone (a
#: post that failed earlier never arrives; the process dies all the same).
GATHER_SECONDS = 30.0

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclass(frozen=True)
class Switches:
    """The test switches a process was started with; every field None when none were."""

    crash_at: str | None = None
    max_sleep: float | None = None
    clock_offset: float | None = None
    #: With ``<checkpoint>*<n>``: the posts that must reach the crash point before the kill.
    gathering: threading.Barrier | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Switches:
        """Read the three variables (from ``os.environ`` unless ``environ`` is given)."""
        env = os.environ if environ is None else environ
        crash_at, _, posts = env.get(CRASH_VARIABLE, "").strip().partition("*")
        return cls(
            crash_at=crash_at or None,
            max_sleep=_seconds(env.get(MAX_SLEEP_VARIABLE, "")),
            clock_offset=_seconds(env.get(CLOCK_OFFSET_VARIABLE, "")),
            gathering=threading.Barrier(int(posts)) if posts.isdigit() and int(posts) > 1 else None,
        )

    def clock(self, clock: Clock) -> Clock:
        """``clock``, moved forward by the offset when one is set."""
        offset = self.clock_offset
        if offset is None:
            return clock
        return lambda: clock() + offset

    def sleep(self, sleep: Sleep) -> Sleep:
        """``sleep``, never longer than the cap when one is set."""
        cap = self.max_sleep
        if cap is None:
            return sleep
        return lambda seconds: sleep(min(seconds, max(0.0, cap)))

    def checkpoint(self, name: str) -> None:
        """Die here, abruptly, when the crash switch names this checkpoint."""
        if self.crash_at != name:
            return
        if self.gathering is not None:
            with contextlib.suppress(threading.BrokenBarrierError):
                self.gathering.wait(GATHER_SECONDS)
        os.kill(os.getpid(), signal.SIGKILL)


def _seconds(raw: str) -> float | None:
    try:
        return float(raw) if raw.strip() else None
    except ValueError:
        return None
