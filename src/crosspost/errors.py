"""The one exception tree.

Every error a person can cause or must act on is a :class:`CrosspostError`. Its
message is one line that says what went wrong and what to do next; its
``exit_code`` is the one DESIGN.md promises to cron and scripts. The CLI catches
this base class; anything else is a bug, which it reports in one line naming a file
that keeps the traceback (a person never gets the traceback itself).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

EXIT_OK = 0
EXIT_CHANNEL_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_UNCONFIRMED = 3
EXIT_TEMPORARY = 75
#: The run was stopped by Ctrl-C or SIGTERM: what a shell reports for SIGINT (128 + 2).
EXIT_INTERRUPTED = 130
#: The reader of our output went away (``crosspost status | head``): what a shell reports
#: for a program stopped by SIGPIPE (128 + 13), without the traceback.
EXIT_PIPE_CLOSED = 141


#: The most urgent first, when a run's posts ended differently: 3 (reconcile) > 1 (a
#: channel failed) > 2 (bad input) > 75 (try later); 0 when none of them.
EXIT_PRECEDENCE = (EXIT_UNCONFIRMED, EXIT_CHANNEL_FAILED, EXIT_BAD_INPUT, EXIT_TEMPORARY)


def run_exit_code(codes: Iterable[int], *, interrupted: bool = False) -> int:
    """The exit code of a run whose posts ended with ``codes``: the most urgent of them,
    or 130 when the run was stopped (Ctrl-C, SIGTERM) unless a post is left unconfirmed,
    which is to be reconciled first."""
    found = set(codes)
    if interrupted and EXIT_UNCONFIRMED not in found:
        return EXIT_INTERRUPTED
    return next((code for code in EXIT_PRECEDENCE if code in found), EXIT_OK)


class CrosspostWarning(UserWarning):
    """A warning of our own; the test suite turns these into errors."""


class CrosspostError(Exception):
    """Base of every error crosspost reports to a person."""

    exit_code = EXIT_CHANNEL_FAILED


# --- bad input or usage: nothing was sent (exit 2) ---------------------------------


class UsageError(CrosspostError):
    """The command line, a file or the configuration is wrong; nothing was sent."""

    exit_code = EXIT_BAD_INPUT


class IssueError(UsageError):
    """An issue document is wrong. Names the file and, when known, the line."""

    def __init__(self, path: Path | str, problem: str, line: int | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line else str(self.path)
        super().__init__(f"{where}: {problem}")


class ConfigError(UsageError):
    """The configuration or environment is wrong (missing credential, unknown account)."""


def _pip_install(extra: str | None) -> str:
    """The command that installs crosspost (with ``extra``) from its checkout: it is on no
    package index (README, "Install"), so every message that says to install or upgrade
    it names this command, from here, the day that changes too."""
    return ".venv/bin/pip install " + (f"'.[{extra}]'" if extra else ".")


def install_extra(extra: str) -> str:
    """What to do when an optional extra (``postgres``, ``notify``, ``browser``) is not
    installed, in the words of a message."""
    return f"install the {extra} extra in crosspost's checkout: {_pip_install(extra)}"


def upgrade(extra: str | None = None) -> str:
    """What to do when a ledger was written by a newer crosspost (with ``extra``: the one
    that ledger needs), in the words of a message."""
    return f"upgrade crosspost (in its checkout: git pull, then {_pip_install(extra)})"


def did_you_mean(written: str, known: Iterable[str]) -> str | None:
    """ "did you mean 'x'?" for the known name closest to a mistyped one (a config key, a
    limit, a channel option), or None when none is close: one cutoff for every message."""
    import difflib  # only for a mistyped name: every command reads the config

    close = difflib.get_close_matches(written, sorted(known), n=1, cutoff=0.75)
    return f"did you mean '{close[0]}'?" if close else None


# --- trouble with this machine's own files (state dir, ledger) -------------------------

#: errno values that pass once a person frees space or another process lets go: exit 75.
_TEMPORARY_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EAGAIN, errno.EBUSY})


class StorageError(CrosspostError):
    """A file crosspost keeps (the ledger, the token cache, a lock) cannot be used.

    Not a bug, so never a traceback: a full disk or a lock held elsewhere passes and is
    worth running again (exit 75); a read-only or missing folder is the setup to fix
    (exit 2). The writers are atomic, so either way nothing was half-written.
    """

    def __init__(self, message: str, *, temporary: bool, problem: str = "", fix: str = "") -> None:
        self.temporary = temporary
        self.exit_code = EXIT_TEMPORARY if temporary else EXIT_BAD_INPUT
        #: Which file and what is wrong with it, without the advice (default: the message).
        self.problem = problem or message
        #: What a person does to this machine about it ("free some space there"): the
        #: advice once a run had sent something before the trouble (:meth:`after_sending`).
        self.fix = fix or ("free some space" if temporary else "fix the state dir")
        super().__init__(message)

    def after_sending(self, reconcile: Iterable[str], exit_code: int) -> StorageError:
        """This trouble as said after the lines of a run that sent something before it:
        never "nothing was sent", nor advice to move the state dir (its ledger holds what
        went out). ``reconcile``: the commands that settle the posts left unconfirmed (a
        call went out, and the ledger could not record how it ended); ``exit_code``: the
        run's, which the posts decide as much as this trouble."""
        commands = " and ".join(f"'{command}'" for command in dict.fromkeys(reconcile))
        if commands:
            said = (
                f"{self.problem}; {self.fix}, then run {commands}: the ledger could not "
                "record how the unconfirmed posts above ended"
            )
        else:
            said = (
                f"{self.problem}; {self.fix}, then run again: what this run sent before "
                "it is recorded (the lines above)"
            )
        error = StorageError(said, temporary=self.temporary, problem=self.problem, fix=self.fix)
        error.exit_code = exit_code
        return error

    @classmethod
    def from_os_error(
        cls,
        error: OSError,
        path: Path | str | None = None,
        what: str = "a state file",
        elsewhere: str = "",
    ) -> StorageError:
        """One line for an OSError on one of our own files: which file, why, what to do.
        ``elsewhere`` is the advice for a place that cannot take the file at all (a file
        the operator named, not the state dir), instead of the state dir's."""
        where = error.filename if error.filename is not None else (path or "a file")
        reason = error.strerror or type(error).__name__
        whose = ""
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            advice = "free some space there and run again; nothing was half-written"
            fix = "free some space there"
        elif error.errno in _TEMPORARY_ERRNOS:
            advice = "another process holds it; run again later"
            fix = "let the process that holds it finish"
        elif elsewhere:
            advice = fix = elsewhere
        elif (
            error.errno in (errno.EACCES, errno.EPERM)
            and (error.filename is not None or path is not None)
            and (foreign := someone_elses((where, Path(where).parent)))
        ):
            # A folder this user may write, holding a file it may not: "make the folder
            # writable" would send the person to the wrong place.
            whose, advice = f"; {foreign[0]}", foreign[1]
            fix = foreign[1]
        elif error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            advice = (
                "make the folder writable for this user, or point CROSSPOST_STATE_DIR / "
                "--state-dir at one that is"
            )
            fix = "make the folder writable for this user"
        elif error.errno == errno.ENOENT:
            advice = "its folder vanished while crosspost ran; check the state dir and run again"
            fix = "put the state dir back"
        else:
            advice = "check the disk and the folder's permissions, then run again"
            fix = "check the disk and the folder's permissions"
        problem = f"{where}: cannot write {what} ({reason}){whose}"
        return cls(
            f"{problem}; {advice}",
            temporary=error.errno in _TEMPORARY_ERRNOS,
            problem=problem,
            fix=fix,
        )


#: Names that mark a state dir, looked for in the folders above a file of ours.
_STATE_MARKS = ("ledger.sqlite3", "run-due.lock", "run-due.json")


def someone_elses(paths: Iterable[Path | str]) -> tuple[str, str] | None:
    """``(problem, fix)`` when one of ``paths`` (the file crosspost could not use, then
    what goes with it) is another user's and this one may not write it, else None.

    A ``sudo crosspost`` run, once, leaves root's files (a lock, the ledger's ``-wal``)
    in a state dir that stays this user's: the folder is writable, each of those files
    is not, and the fix is to give them back. The advice names the whole state dir
    (the folder above holding the ledger or run-due's files), as such a run leaves
    several files behind. Only inside a state dir: a folder above it that is root's
    (a home folder) is the setup's, which the caller's own advice covers.
    """
    me = getattr(os, "geteuid", None)  # POSIX; elsewhere the OS's own words stand
    if me is None:
        return None
    for path in map(Path, paths):
        try:
            found = path.stat()
        except OSError:
            continue
        if found.st_uid == me() or _writable(found, me()):
            continue
        folder = path if path.is_dir() else path.parent
        state = next((f for f in (folder, *folder.parents[:2]) if _is_state_dir(f)), None)
        if state is None:  # not in a state dir (a home folder that is root's): not ours to say
            return None
        owner, user = _user_name(found.st_uid), _user_name(me())
        return (
            f"{path.name} belongs to {owner}, not to {user} who runs crosspost now: a run "
            f"as {owner} ('sudo crosspost') left it",
            f"give the state dir back to {user} (sudo chown -R {user} '{state}')",
        )
    return None


def _writable(found: os.stat_result, uid: int) -> bool:
    """Whether the user ``uid`` (with this process's groups) may write what ``found``
    describes, by its permission bits (root may write anything)."""
    if uid == 0:
        return True
    if found.st_uid == uid:
        return bool(found.st_mode & stat.S_IWUSR)
    if found.st_gid in {os.getegid(), *os.getgroups()}:
        return bool(found.st_mode & stat.S_IWGRP)
    return bool(found.st_mode & stat.S_IWOTH)


def _is_state_dir(folder: Path) -> bool:
    return any((folder / name).exists() for name in _STATE_MARKS)


def _user_name(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)  # chown takes the number as well


# --- trouble on a platform --------------------------------------------------------


class ChannelError(CrosspostError):
    """A platform refused or failed a call.

    ``channel`` names the platform, ``code`` the platform's own error code (WeChat
    errcode, Zhihu error code or HTTP status) when there is one.
    """

    exit_code = EXIT_CHANNEL_FAILED

    def __init__(self, message: str, *, channel: str = "", code: int | str | None = None) -> None:
        self.channel = channel
        self.code = code
        super().__init__(message)


class TransientError(ChannelError):
    """Network trouble or a platform hiccup; running again later is safe."""

    exit_code = EXIT_TEMPORARY


class RateLimitedError(TransientError):
    """The platform asks us to slow down; ``retry_after`` is in seconds when known."""

    def __init__(
        self,
        message: str,
        *,
        channel: str = "",
        code: int | str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, channel=channel, code=code)
        self.retry_after = retry_after


class Interrupted(TransientError):
    """The run was asked to stop (Ctrl-C, SIGTERM) and this post stopped at a step
    boundary: nothing more was sent, and running again finishes it."""


class AuthError(ChannelError):
    """Credentials were refused or expired (after the one allowed refresh)."""


class PermanentError(ChannelError):
    """The platform said no for a reason retrying cannot fix; the message says what to do."""


class UnconfirmedError(ChannelError):
    """A call that creates or publishes something may or may not have taken effect.

    Never retried: the next step is to reconcile (ask the platform what happened).
    ``problem`` is what went wrong without the doubt and the advice ("Zhihu draft
    creation for zhihu:main: HTTP 503 after sending"): once reconciling has answered the
    doubt, a line says that answer instead (by default, the whole message).
    """

    exit_code = EXIT_UNCONFIRMED

    def __init__(
        self, message: str, *, channel: str = "", code: int | str | None = None, problem: str = ""
    ) -> None:
        super().__init__(message, channel=channel, code=code)
        self.problem = problem or message
