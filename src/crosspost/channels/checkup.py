"""What ``crosspost doctor`` finds out about one account, as data.

Each platform's examination (``channels/<platform>/doctor.py``) returns a :class:`Checkup`:
facts worth showing (who the credentials log in as, the kind of account), what the
account may call (:class:`Capability`), and problems, each one line that says what to do.
The command prints it as a table or JSON and picks the exit code from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY


@dataclass(frozen=True)
class Capability:
    """Whether the account may make one kind of call, with today's use of its quota.

    ``allowed`` is None when the platform would not say (the probe itself failed)."""

    name: str
    path: str
    allowed: bool | None
    used: int | None = None
    daily_limit: int | None = None
    remain: int | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON form."""
        return {
            "allowed": self.allowed,
            "path": self.path,
            "used": self.used,
            "daily_limit": self.daily_limit,
            "remain": self.remain,
            "note": self.note,
        }


@dataclass(frozen=True)
class Checkup:
    """One account, examined without changing anything on the platform."""

    account: str
    #: (label, value) pairs in the order they are shown: "credentials", "kind", …
    facts: tuple[tuple[str, str], ...] = ()
    capabilities: tuple[Capability, ...] = ()
    #: Something is wrong for this account: one line each, saying what to do.
    problems: tuple[str, ...] = ()
    #: Worth knowing, nothing to fix (an account that may only draft, say).
    notes: tuple[str, ...] = ()
    #: The platform could not be reached, so the examination is incomplete.
    unreachable: bool = False

    @property
    def ok(self) -> bool:
        """Nothing to fix and everything examined."""
        return not self.problems and not self.unreachable

    @property
    def exit_code(self) -> int:
        """0 all good, 1 a problem to fix, 75 the platform could not be reached."""
        if self.problems and not self.unreachable:
            return EXIT_CHANNEL_FAILED
        return EXIT_TEMPORARY if self.unreachable else EXIT_OK

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON form (``crosspost doctor --json``)."""
        return {
            "account": self.account,
            "ok": self.ok,
            "reachable": not self.unreachable,
            "facts": dict(self.facts),
            "capabilities": {c.name: c.as_dict() for c in self.capabilities},
            "problems": list(self.problems),
            "notes": list(self.notes),
        }
