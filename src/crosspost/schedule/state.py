"""The scheduler's own memory: one run at a time, and what it already settled or reported.

**The lock.** ``<state_dir>/run-due.lock`` is taken with :mod:`filelock`, which on Linux and
macOS uses ``flock(2)``: the lock belongs to the open file, and the kernel closes every
file of a process that dies, however it dies (an exception, ``kill -9``, the OOM killer, a
power cut ends the whole machine anyway). So a stale lock cannot outlive its holder: the
lock *file* may stay on disk, but nobody holds it, and the next tick takes it at once.
There is no PID file to clean up and no timeout to guess. Only a hung (not dead) run
keeps the lock; the next ticks then exit quietly until it ends or is killed. With a
shared PostgreSQL ledger (``ledger_url``) the lock is the ledger's session-level advisory
lock instead, so the ticks of every host take turns; the server releases it when the
holder's connection ends, dead or alive, just as the kernel releases an ``flock``.

**The state file.** ``<state_dir>/run-due.json`` remembers, per issue file and account,
the outcome the scheduler need not act on again while the file is unchanged: published,
drafted, changed after publishing (waits for ``--update``), failed for good (waits for an
edit or a change of the settings that shape the posts: :func:`settings_digest`), missed
(waits for ``--include-missed``), bad input it already reported, and notes said once
that are no failure (a draft skipped). It is what makes a tick over a year of published
issues cheap (no rendering) and keeps cron from mailing the same line every minute. It is
written atomically, only under the lock; losing it costs one slower tick and one
repeated report, never a second post (the ledger decides that).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from crosspost.config.files import write_atomic
from crosspost.config.settings import Settings
from crosspost.errors import StorageError

if TYPE_CHECKING:
    from crosspost.ledger.postgres import AdvisoryLock

LOCK_NAME = "run-due.lock"
STATE_NAME = "run-due.json"
STATE_VERSION = 1

#: Outcomes that need no action from the next tick while nothing changes.
DONE, CHANGED, FAILED, MISSED, PROBLEM = "done", "changed", "failed", "missed", "problem"


#: Who holds the lock, and since when: ``{"pid", "host", "since"}``, beside the lock.
HOLDER_NAME = "run-due.holder"
#: A tick that holds the lock longer than this is stuck (a process stopped or hung): the
#: ticks it keeps out say so instead of leaving quietly. A tick that publishes waits at
#: most minutes (every request has a deadline; WeChat's polls a few minutes).
STUCK_AFTER = timedelta(hours=2)


@dataclass(frozen=True)
class Holder:
    """The run that holds the lock, as it wrote itself down when it took it."""

    pid: int
    host: str
    since: float

    @classmethod
    def read(cls, state_dir: Path) -> Holder | None:
        """The holder written beside the lock; None if none is (or it cannot be read)."""
        try:
            data = json.loads((state_dir / HOLDER_NAME).read_text(encoding="utf-8"))
            return cls(int(data["pid"]), str(data["host"]), float(data["since"]))
        except (OSError, ValueError, TypeError, KeyError):
            return None


@contextlib.contextmanager
def run_lock(
    state_dir: Path,
    *,
    wait: bool,
    ledger_url: str | None = None,
    clock: Callable[[], float] = time.time,
) -> Iterator[bool]:
    """Hold ``<state_dir>/run-due.lock`` for the block; yields False when another run has it.

    ``wait`` blocks until the other run ends instead of giving up at once. With
    ``ledger_url`` (a shared ledger) the lock is the ledger's advisory lock (see above).
    The holder writes itself down beside the lock (:class:`Holder`), so a tick kept out
    can tell a run that is stuck from one at work.
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    lock: FileLock | AdvisoryLock
    if ledger_url is not None:
        from crosspost.ledger.postgres import AdvisoryLock  # the driver only when used

        lock = AdvisoryLock(ledger_url, LOCK_NAME, timeout=-1 if wait else 0)
    else:
        lock = FileLock(str(state_dir / LOCK_NAME), timeout=-1 if wait else 0)
    try:
        lock.acquire()
    except Timeout:
        yield False
        return
    holder = state_dir / HOLDER_NAME
    try:
        mine = {"pid": os.getpid(), "host": socket.gethostname(), "since": clock()}
        # A note for others, read leniently: the run goes on without it (a state dir that
        # takes no new file is this run's to report, where it writes what it must).
        with contextlib.suppress(OSError, StorageError):
            write_atomic(holder, json.dumps(mine), durable=False)
        yield True
    finally:
        with contextlib.suppress(OSError):
            holder.unlink()
        lock.release()


class SchedulerState:
    """``run-due.json``: per issue path, the fingerprint and each account's settled outcome."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self._files: dict[str, dict[str, Any]] = data

    @classmethod
    def load(cls, state_dir: Path) -> SchedulerState:
        """The saved state; an unreadable or foreign file is treated as empty (see above)."""
        path = state_dir / STATE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path, {})
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            return cls(path, {})
        files = data.get("files")
        return cls(path, files if isinstance(files, dict) else {})

    def outcome(self, path: Path, fingerprint: str, account: str) -> str | None:
        """What was settled for this account and this exact version of the file, if anything."""
        entry = self._files.get(str(path))
        if not entry or entry.get("fingerprint") != fingerprint:
            return None
        value = entry.get("accounts", {}).get(account)
        return str(value) if value else None

    def last(self, path: Path, account: str) -> tuple[str, str] | None:
        """(fingerprint, outcome) last settled for the account, whatever version of the file
        (an account a tick left out, for want of its credentials, keeps what it had)."""
        entry = self._files.get(str(path))
        if not entry:
            return None
        value = entry.get("accounts", {}).get(account) or entry.get("earlier", {}).get(account)
        return (str(entry["fingerprint"]), str(value)) if value else None

    def complete(self, path: Path, fingerprint: str) -> dict[str, str] | None:
        """Every account's outcome when all of them were settled for this version, else None."""
        entry = self._files.get(str(path))
        if not entry or entry.get("fingerprint") != fingerprint or not entry.get("complete"):
            return None
        return {str(k): str(v) for k, v in entry.get("accounts", {}).items()}

    def mark(
        self,
        path: Path,
        fingerprint: str,
        *,
        complete: bool,
        problem: str = "",
        pictures: str = "",
        issue_id: str | None = None,
        note: tuple[str, str] | None = None,
    ) -> None:
        """Say whether every account of this version is settled (and the problem, if any).

        A problem stays with this version of the file until an edit (a new fingerprint,
        hence a fresh entry), or a change to the pictures it names (``pictures``, their
        digest then) makes the tick look again and settle it otherwise. So does a
        ``note``, (kind, message): a line said once per version that is no failure (a
        ``draft: true`` skipped).
        """
        self.settle(path, fingerprint, "", None)
        entry = self._files[str(path)]
        entry["complete"] = complete
        if issue_id:
            entry["issue"] = issue_id
        if problem:
            entry["problem"] = problem
            entry["pictures"] = pictures
        else:
            entry.pop("problem", None)
            entry.pop("pictures", None)
        if note:
            entry["note"] = list(note)

    def issue_id(self, path: Path) -> str | None:
        entry = self._files.get(str(path))
        return str(entry["issue"]) if entry and entry.get("issue") else None

    def problem(self, path: Path, fingerprint: str) -> str | None:
        """The bad-input message already reported for this version of the file."""
        entry = self._files.get(str(path))
        if entry and entry.get("fingerprint") == fingerprint and entry.get("problem"):
            return str(entry["problem"])
        return None

    def told(self, path: Path, account: str) -> str | None:
        """What was said of the account's post of the file that settles nothing (a post
        the ledger lost), whatever the version: said once, looked at on every tick."""
        entry = self._files.get(str(path))
        told = entry.get("told", {}).get(account) if entry else None
        return str(told) if told else None

    def tell(self, path: Path, account: str, message: str | None) -> None:
        """Remember :meth:`told` (None: forget it, as the post is known again; a file the
        state does not know yet is not noted)."""
        entry = self._files.get(str(path))
        if entry is None:
            return
        if message is not None:
            entry.setdefault("told", {})[account] = message
        elif account in entry.get("told", {}):
            del entry["told"][account]

    def pictures(self, path: Path) -> str:
        """The digest of the pictures the file named when its problem was said."""
        entry = self._files.get(str(path))
        return str(entry.get("pictures", "")) if entry else ""

    def note(self, path: Path, fingerprint: str) -> tuple[str, str] | None:
        """The (kind, message) already said for this version of the file, if any."""
        entry = self._files.get(str(path))
        if not entry or entry.get("fingerprint") != fingerprint:
            return None
        note = entry.get("note")
        if isinstance(note, list) and len(note) == 2:
            return str(note[0]), str(note[1])
        return None

    def settle(self, path: Path, fingerprint: str, account: str, outcome: str | None) -> None:
        """Remember (or with None, forget) an account's outcome for this version of the file."""
        entry = self._files.get(str(path))
        if not entry or entry.get("fingerprint") != fingerprint:
            # A new version starts with no outcome, but what each account had is kept
            # apart: a tick that leaves an account out (its credentials missing) must
            # not make the next one announce that account's old posts as news.
            earlier = {**entry.get("earlier", {}), **entry.get("accounts", {})} if entry else {}
            entry = {"fingerprint": fingerprint, "accounts": {}, "earlier": earlier}
            if told := (self._files.get(str(path)) or {}).get("told"):
                entry["told"] = told  # whatever the version (see told)
            self._files[str(path)] = entry
        if outcome is None:
            entry["accounts"].pop(account, None)
        else:
            entry["accounts"][account] = outcome

    def keep_only(self, paths: set[str]) -> None:
        """Drop files that are gone or no longer scheduled, so the file does not grow forever."""
        for stale in set(self._files) - paths:
            del self._files[stale]

    def save(self) -> None:
        """Write atomically: a crash leaves the old file or the new one, never half of one."""
        body = {"version": STATE_VERSION, "files": self._files}
        write_atomic(self.path, json.dumps(body, ensure_ascii=False, indent=1))


def fingerprint(file_digest: str, context: str) -> str:
    return hashlib.sha256(f"{file_digest}|{context}".encode()).hexdigest()[:24]


def settings_digest(settings: Settings, mode: str | None, grace: timedelta | None = None) -> str:
    """The part of every fingerprint that is not the issue file: the resolved settings
    that change what a tick would do or say about a file, wherever each came from.

    A permanent failure is retried, a settled post looked at again and a known problem
    said again when the issue file *or these* change: the modes (the run's ``--mode``,
    the general one, each account's), the theme and template folders, the grace (flag,
    environment or file alike), the image settings, the limits, the shared ledger, and
    each account's server, kind, options, limits and which credentials it has. What
    changes none of them (a comment, ``timeout``, the log file, notices) is no new
    version: the next tick stays silent and exits 0.

    An account enters by its limits and :meth:`Account.fingerprint
    <crosspost.config.accounts.Account.fingerprint>` (its server, kind, options and
    credentials), the digest the ledger already keeps with every permanent failure (so a
    fixed AppSecret, or one gone, counts as a change, as it does for the publisher): a
    hash of it, mixed with everything else, is all ``run-due.json`` holds, and no secret
    can be read back from it.
    """
    material = {
        "asked_mode": mode,
        "mode": settings.mode,
        "theme": settings.theme,
        "template_dirs": settings.template_dirs,
        "grace": grace if grace is not None else settings.grace,
        "image_folders": settings.image_folders,
        "private_image_hosts": settings.private_image_hosts,
        "limits": settings.limits,
        # A SQLite ledger is this state dir's own, as run-due.json is: only a shared one
        # can change under the same state file. Its password is not part of it.
        "ledger": settings.ledger_shown if settings.ledger_url else None,
        "accounts": {a.key: [a.fingerprint(), a.limits] for a in settings.accounts},
    }
    text = json.dumps(_plain(material), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    """``value`` as JSON that is the same in every process: sets sorted (their order
    follows string hashing, which changes between runs), durations in seconds."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, timedelta):
        return value.total_seconds()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
