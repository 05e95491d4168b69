"""What a ``run-due`` tick was asked to do and what it found: options, entries, the report.

Kept apart from :mod:`crosspost.schedule.tick` so that the command, notices and tests can
read a report without the machinery that makes one. The exit code precedence lives here
(most urgent first): 3 unconfirmed > 1 a channel failed > 2 bad input > 75 temporary
failure > 0. A person must look at 3, 1 and 2; 75 heals by itself on a later tick.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from crosspost.errors import EXIT_BAD_INPUT, EXIT_TEMPORARY, StorageError, run_exit_code
from crosspost.publish.words import result_word
from crosspost.schedule.scan import Scan

if TYPE_CHECKING:  # types only: a tick that finds nothing due never loads the publisher
    from crosspost.ledger.store import PostKey
    from crosspost.publish.jobs import PostResult


@dataclass(frozen=True)
class DueOptions:
    """What the cron line asked for."""

    #: Folders to scan; empty: the config's ``[schedule] issue_dirs``.
    dirs: tuple[Path, ...] = ()
    #: How late an issue may still go out unasked; None: the config's ``grace``.
    grace: timedelta | None = None
    include_missed: bool = False
    #: Edit posts in place when their issue changed after publishing.
    update: bool = False
    #: Say what would be sent; send nothing, write nothing, take no lock.
    dry_run: bool = False
    #: Block until another tick releases the lock instead of leaving quietly.
    wait: bool = False
    #: ``draft`` or ``publish``; None: the issue's, the account's, then the config's.
    mode: str | None = None


#: The kind of an entry for an issue that could not be planned for now (a remote
#: picture out of reach): exit 75, and the next tick tries it again.
TEMPORARY = "temporary"
#: The kind of a ``--dry-run`` entry for an issue still to come: its moment and what a
#: tick then would do on an account, or what stops it (never a failure: exit 0).
COMING = "upcoming"


@dataclass(frozen=True)
class DueEntry:
    """A line of the report that is not a post result: missed, problem, waiting, would."""

    kind: str
    path: Path
    message: str
    issue_id: str | None = None
    account: str | None = None
    #: Already reported for this version of the file (printed again only with -v).
    repeat: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": str(self.path),
            "issue": self.issue_id,
            "account": self.account,
            "message": self.message,
            "repeat": self.repeat,
        }


@dataclass(frozen=True)
class DueReport:
    """One tick: what was scanned, what happened to each post, what needs a person."""

    now: datetime
    files: int = 0
    upcoming: int = 0
    next_due: tuple[Path, datetime] | None = None
    #: Past-due issue files skipped because everything about them is settled.
    settled: int = 0
    results: tuple[PostResult, ...] = ()
    entries: tuple[DueEntry, ...] = ()
    #: Another tick held the lock: nothing was done.
    locked: bool = False
    #: What to say of the run holding the lock when it seems stuck (else ""): a person
    #: must stop it (exit 2), or nothing scheduled goes out again.
    stuck: str = ""
    #: (issue id, account) of results that repeat what an earlier tick reported.
    repeats: frozenset[tuple[str, str]] = frozenset()
    #: Stopped by Ctrl-C or SIGTERM: exit 130; the posts' results say where each stopped.
    interrupted: bool = False
    #: Each result's post in the words ``status`` shows, read from the ledger before the
    #: tick closed it (:func:`~crosspost.publish.words.result_words`).
    words: Mapping[PostKey, str] = field(default_factory=lambda: MappingProxyType({}))
    #: This machine's own files stopped a post, or kept the tick from saving
    #: ``run-due.json``: the tick's error line, said below the posts' lines.
    trouble: StorageError | None = None

    @classmethod
    def of_scan(
        cls, now: datetime, found: Scan, *, locked: bool = False, stuck: str = ""
    ) -> DueReport:
        """A tick that did no more than look: nothing due, or another tick had the lock."""
        return cls(now, found.files, found.upcoming, found.next_due, locked=locked, stuck=stuck)

    def of_kind(self, kind: str) -> tuple[DueEntry, ...]:
        return tuple(e for e in self.entries if e.kind == kind)

    @property
    def exit_code(self) -> int:
        """The most urgent code of what is new in this tick.

        A bad file already reported for this version of it is not new: a timer that
        marks every failed tick (systemd) would otherwise fail every 5 minutes until
        somebody fixes the file. It counts again when the file or the problem changes.
        """
        codes = {r.exit_code for r in self.results}
        if any(not e.repeat for e in self.of_kind("problem")):
            codes.add(EXIT_BAD_INPUT)
        if self.of_kind(TEMPORARY):
            codes.add(EXIT_TEMPORARY)
        if self.stuck:
            codes.add(EXIT_BAD_INPUT)
        if self.trouble is not None:
            codes.add(self.trouble.exit_code)
        return run_exit_code(codes, interrupted=self.interrupted)

    @property
    def quiet(self) -> bool:
        """Nothing a person needs to hear about (cron stays silent)."""
        return (
            not self.stuck
            and not any(self.is_news(r) for r in self.results)
            and all(e.repeat or e.kind == "waiting" for e in self.entries)
        )

    def word(self, result: PostResult) -> str:
        """How the post of ``result`` stands, in the words every command prints (``not
        sent``, never the run's ``pending``): the word the tick read from the ledger, else
        the one the result alone gives."""
        return self.words.get(result.key) or result_word(result, None)

    def is_news(self, result: PostResult) -> bool:
        """False for a post found as it was already reported (resumed, nothing changed)."""
        return (result.key.issue_id, f"{result.key.channel}:{result.key.account}") not in (
            self.repeats
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "now": self.now.isoformat(),
            "exit_code": self.exit_code,
            "interrupted": self.interrupted,
            "locked": self.locked,
            "stuck": self.stuck,
            "files": self.files,
            "upcoming": self.upcoming,
            "next_due": (
                {"path": str(self.next_due[0]), "publish_at": self.next_due[1].isoformat()}
                if self.next_due
                else None
            ),
            "settled": self.settled,
            "posts": [
                {**r.as_dict(), "state": self.word(r), "news": self.is_news(r)}
                for r in self.results
            ],
            "entries": [e.as_dict() for e in self.entries],
        }


def at(moment: datetime) -> str:
    """A moment as the report shows it (seconds, with its offset)."""
    return moment.isoformat(timespec="seconds")


def short_moment(moment: datetime) -> str:
    """``2026-11-23 09:00 +08:00``: a moment to the minute, in the zone it was written in
    (the issue's ``publish_at``), as ``status`` shows times."""
    offset = moment.strftime("%z") or "+0000"
    return f"{moment:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:5]}"


def span(delta: timedelta) -> str:
    """``2d 3h``, ``5h 10m``, ``45m``: how late, in words cron mail can show."""
    minutes = int(delta.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{days}d"] if days else []
    if hours:
        parts.append(f"{hours}h")
    if minutes and not days:
        parts.append(f"{minutes}m")
    return " ".join(parts) or "0m"
