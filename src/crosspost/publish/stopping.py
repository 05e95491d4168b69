"""Stopping a run at the next step boundary, when a person or the system asks.

Ctrl-C (or a SIGTERM from systemd, a container or ``kill``) reaches the main thread
only; the posts run in worker threads and would otherwise carry on through every step,
their draft, their publication or their mass send, after the operator was told the run
was interrupted. So the main thread only raises the flag here, and each post looks at it
before anything new goes out: before an irreversible call's intent is written, and
between polls. A call already out is let finish and is recorded as usual, so nothing is
left in doubt that need not be; the post ends "interrupted" with exit 75 in its row, and
the next run picks it up where it stopped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from crosspost.errors import Interrupted

Sleep = Callable[[float], None]

#: What a post was about to do, in the words of its line: only what is true at that
#: boundary, since ``status`` shows the same post beside it (a post stopped before its
#: draft is filled in has a draft, and says so).
FILL_DRAFT = "fill"
UPDATE_DRAFT = "update-draft"
_NEXT = {
    "draft": "making its draft",
    FILL_DRAFT: "filling in its draft",
    UPDATE_DRAFT: "updating its draft",
    "publish": "publishing",
    "broadcast": "the mass send",
    "poll": "asking how its publication went",
    "hand-off": "handing its draft over",
    "update": "updating the published post",
    "next": "its next call",
}


class RunStop:
    """The run's one stop flag: raised once by the main thread, read by every post."""

    def __init__(self) -> None:
        self._asked = threading.Event()

    def ask(self) -> None:
        """Stop every post at its next boundary (calls already out are let finish)."""
        self._asked.set()

    @property
    def asked(self) -> bool:
        return self._asked.is_set()

    def check(self, step: str) -> None:
        """Raise :class:`Interrupted` if the run was asked to stop before ``step``."""
        if self._asked.is_set():
            doing = _NEXT.get(step, step)
            raise Interrupted(
                f"interrupted before {doing}: nothing more was sent; run again to finish"
            )

    def pausing(self, sleep: Sleep) -> Sleep:
        """``sleep``, except that a pause between polls or retries is where a post asked
        to stop does so: a pause does not start while the run is stopping, and a real
        one (``time.sleep``: WeChat's minute before a mass send is sent again, two
        minutes before a lost draft is looked for) ends as soon as the stop is asked.
        The post then raises :class:`Interrupted` instead of going on early: asking the
        platform before its pause is over could find nothing where something was made.
        A pause injected by a test (any other function) runs as it is."""

        def pause(seconds: float) -> None:
            self.check("next")
            if sleep is time.sleep:
                self._asked.wait(seconds)
            else:
                sleep(seconds)
            self.check("next")

        return pause
