"""The command line: parse arguments, hand over to one command, turn errors into exit codes.

Each command lives in ``crosspost.commands.<name>`` and provides two functions:
``configure(parser)`` adds its arguments, ``run(args) -> int`` calls the library and
prints the result. Command modules import their heavy dependencies inside ``run`` so
that ``crosspost --help`` and ``--version`` start instantly (cron pays for every start).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType, ModuleType
from typing import Any, NoReturn, TextIO

from crosspost import __version__
from crosspost.commands.parser import CommandParser, refused
from crosspost.config.advice import command_line, repeating
from crosspost.errors import (
    EXIT_BAD_INPUT,
    EXIT_CHANNEL_FAILED,
    EXIT_PIPE_CLOSED,
    CrosspostError,
    StorageError,
    UsageError,
)
from crosspost.issue.collector import collector_paused

# (command name, module under crosspost.commands, one-line help). The order is the
# order `crosspost --help` lists them in: the editor's day, from writing to cron.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("check", "check", "lint issue files against every channel's limits"),
    ("render", "render", "write each channel's output files for an issue"),
    ("preview", "preview", "write one HTML page showing the issue as each channel will"),
    ("serve", "serve", "a live preview and the week's schedule in the browser, for editors"),
    ("review", "review", "send an issue's WeChat draft to reviewers' phones (no followers)"),
    ("approve", "approve", "approve an issue as it is now, for accounts with require_approval"),
    ("publish", "publish", "send issues to every channel, exactly once (drafts unless --mode)"),
    ("status", "status", "show every post the ledger knows: state, URL, when"),
    ("urls", "urls", "print an issue's published URLs, one per line"),
    ("reconcile", "reconcile", "ask the platforms what happened to unconfirmed posts"),
    ("ledger", "ledger", "copy the ledger into PostgreSQL, or export it as JSON Lines"),
    ("import", "import_", "turn a plain-text digest or a saved article page into an issue"),
    ("doctor", "doctor", "check each account: credentials, IP, what it may publish or send"),
    ("sandbox", "sandbox", "run local WeChat and Zhihu emulators for tests and rehearsals"),
    ("run-due", "run_due", "send every issue whose publish_at has come (for cron)"),
)


def _command_module(module: str) -> ModuleType:
    return importlib.import_module(f"crosspost.commands.{module}")


def build_parser(only: str | None = None, *, alone: bool = False) -> argparse.ArgumentParser:
    """The whole command line; with ``only`` (a command's name, or ``""`` for none), only
    that command's own options are filled in. Each command's module is imported to learn
    its options, and a run needs just its own: ``check`` need not load what ``publish``
    imports. With ``alone`` too, the other commands are not added at all: a line that
    begins with the command's name never reaches them (only the top level's ``--help``
    lists them), and their fourteen empty parsers cost ``check`` ~3 ms. Every parser in
    it is a :class:`CommandParser`: a usage error is one line (argparse makes each
    command's parser of the class of the parser that holds it)."""
    parser = CommandParser(
        prog="crosspost",
        description="Publish one newsletter issue to WeChat and Zhihu, exactly once.",
    )
    parser.add_argument("--version", action="version", version=f"crosspost {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, summary in COMMANDS:
        if alone and name != only:
            continue
        sub = commands.add_parser(name, help=summary, description=summary)
        if only is None or only == name:
            _command_module(module).configure(sub)
        sub.set_defaults(_module=module)
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first word, as the top level has options only
    (``--version``, ``--help``) and none of them takes a value. None when it names none."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in {name for name, _, _ in COMMANDS} else None


def run() -> NoReturn:
    """The ``crosspost`` program (and ``python -m crosspost``): :func:`main`, then exit.

    Before the interpreter shuts down, every object is moved out of the garbage
    collector's sight (:func:`gc.freeze`): its last collections would otherwise walk
    everything the command imported, a fifth of what ``check`` costs, only to find the
    process ending anyway. Modules are still cleared, buffers flushed and ``atexit``
    handlers run; what is skipped is freeing reference cycles, which a crash-safe
    command never relies on (it must survive being killed at any moment).
    """
    # Start-up without the cyclic collector (see collector_paused.for_seconds): ~10 ms of
    # a `check`; any command still running after the grace has it back.
    collector_paused.for_seconds(COLLECTOR_GRACE_SECONDS)
    code = main()
    gc.freeze()
    sys.exit(code)


#: How long a command runs before the cyclic garbage collector is switched back on.
COLLECTOR_GRACE_SECONDS = 2.0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit code (see DESIGN.md: 0, 1, 2, 3 or 75)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    _never_without_streams()
    _never_unprintable()
    # No command (``--help``, ``--version``, a typo): no command's options are needed.
    # A top-level option before the command (``-h check``) still lists every command.
    command = _command_named(argv)
    if command is None and (unknown := _misspelt_command(argv)) is not None:
        return _report(unknown, EXIT_BAD_INPUT)
    parser = build_parser(only=command or "", alone=command is not None and argv[0] == command)
    try:
        args, extras = parser.parse_known_args(argv)
    except UsageError as error:  # argparse's refusal, in one line (CommandParser)
        return _report(str(error), error.exit_code)
    if extras:
        return _unknown_words(_own_parser(parser, args.command), args.command, extras)
    if not getattr(args, "_module", None):
        # No command at all (a crontab line that lost it): one line, not the whole help.
        line = refused("crosspost", "crosspost needs a command, e.g. 'crosspost check FILE'")
        return _report(line, EXIT_BAD_INPUT)
    with repeating(vars(args)):
        return _run(args, argv)


def _run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run the command ``args`` names and return its exit code; every error it may meet
    is one line on stderr."""
    _warnings.start_run()
    try:
        with _sigterm_as_interrupt():
            code = int(_command_module(args._module).run(args))
        # Flush here, inside the try: a reader that went away (``| head``) shows up now.
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _pipe_closed()
    except CrosspostError as error:
        return _report(str(error), error.exit_code)
    except OSError as error:
        # Our own writers say which file and what to do (StorageError); anything else the
        # machine refuses (a state dir removed mid-run, a lock file on a read-only disk) is
        # still the machine's trouble, not a bug, and gets one line too.
        problem = StorageError.from_os_error(error)
        return _report(str(problem), problem.exit_code)
    except KeyboardInterrupt:
        return _report("interrupted", 130, prefix="crosspost: ")
    except Exception as error:  # a bug: one line for the person, the traceback in a file
        from crosspost.config.crash import bug_report

        line = bug_report(f"'{args.command}'", argv, error)
        if args.command in _SENDING:
            status = command_line("status", rehearsal=bool(getattr(args, "sandbox", False)))
            line += f"; what it had sent is in the ledger ('{status}' shows it)"
        return _report(line, EXIT_CHANNEL_FAILED)


def _own_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (the one argparse's subcommands hold), else the top's."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def _misspelt_command(argv: Sequence[str]) -> str | None:
    """The line for a first word that is no command's name: near one (``publsh``), with
    the name meant, else that it is none (not argparse's list of all fifteen); None when
    there is no such word. A first word that is a file (``crosspost status.md``) is an
    issue with its command left out, not a misspelt command: the line says to name one."""
    if any(word in ("-h", "--help") for word in argv):
        return None
    word = next((word for word in argv if not word.startswith("-")), None)
    if word is None:  # --version, no words at all: argparse's own answer
        return None
    if os.path.isfile(word):
        return (
            f"'{word}' is a file, not a crosspost command; name the command first, e.g. "
            f"'{command_line('check', word, rehearsal=False)}' ('crosspost --help' lists "
            "them; nothing was run)"
        )
    import difflib  # only for a word that is not a command: not on every start

    names = [name for name, _, _ in COMMANDS]
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    meant = f"; did you mean '{close[0]}'?" if close else ""
    return (
        f"'{word}' is not a crosspost command{meant} ('crosspost --help' lists them; "
        "nothing was run)"
    )


def _unknown_words(parser: argparse.ArgumentParser, command: str | None, extras: list[str]) -> int:
    """Words the command does not take (``--sandox``, a second issue id), each option with
    the one of the command's options it is nearest, in one line (no usage block: the
    line says where the command's options are listed)."""
    import difflib  # only for a word that is not right: not on every start

    options = [word for action in parser._actions for word in action.option_strings]
    named = []
    for word in extras:
        written = word.split("=", 1)[0]
        close = (
            difflib.get_close_matches(written, options, n=1, cutoff=0.6)
            if written.startswith("-")
            else []
        )
        named.append(f"'{word}' (did you mean '{close[0]}'?)" if close else f"'{word}'")
    what = "these words" if len(extras) > 1 else "this word"
    name = f"crosspost {command}" if command else "crosspost"
    return _report(
        refused(name, f"{name} does not take {what}: {', '.join(named)}"), EXIT_BAD_INPUT
    )


#: Commands that may have sent something before an internal error stopped them.
_SENDING = frozenset({"publish", "run-due", "review", "reconcile"})


def _never_without_streams() -> None:
    """A command started with its output closed (``crosspost run-due >&-`` in a crontab,
    a supervisor that closes what it does not read) writes into ``/dev/null`` instead.

    Python then has no ``sys.stdout`` (or ``sys.stderr``) at all, and the run, which did
    its work, ended on ``None.flush()`` and said it was a crosspost bug (exit 1). The
    closed descriptor is filled too, so no file the run opens (a lock, a log, the token
    cache) takes number 1 or 2 and receives what another library prints there."""
    for number, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(number)
        except OSError:
            empty = os.open(os.devnull, os.O_WRONLY)
            if empty != number:
                os.dup2(empty, number)
                os.close(empty)
        # The process's own stream for its life, as Python's would have been: no block.
        setattr(sys, name, open(number, "w", encoding="utf-8", closefd=False))  # noqa: SIM115


def _never_unprintable() -> None:
    """A terminal or a mail that cannot show Chinese (``PYTHONIOENCODING=ascii``, an old
    locale) gets ``\\u`` escapes for it instead of a UnicodeEncodeError traceback."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (systemd stopping a timer's unit, ``kill``, a container's shutdown) and
    SIGHUP (the terminal or ssh session a run was started from went away, its shell
    killed) stop a command as Ctrl-C does: a publish stops each post at its next step and
    says where, a tick records what it did. Without this, either ended the process on the
    spot, silent, with a call out and unrecorded: the next run found the post
    unconfirmed (exit 3) and Zhihu kept a draft nobody could list. A SIGHUP ignored from
    the start (``nohup``) stays ignored. Only the main thread may set a handler; a
    command run from another (a test) keeps what it has."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers: dict[int, Callable[[int, FrameType | None], Any]] = {
        signal.SIGTERM: signal.default_int_handler
    }
    hangup = getattr(signal, "SIGHUP", None)  # POSIX
    if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN:
        handlers[hangup] = _hung_up
    before = {number: signal.signal(number, handler) for number, handler in handlers.items()}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def _hung_up(number: int, frame: FrameType | None) -> NoReturn:
    """SIGHUP: a terminal the output goes to is gone, and writing there would fail (EIO),
    so what the run still says goes to /dev/null (the ledger keeps it: ``status``); a
    pipe or a file (cron's mail, a log) still gets it. Then stop as Ctrl-C does."""
    from crosspost.commands.table import silence

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            if stream.isatty():
                silence(stream)
    raise KeyboardInterrupt


class _OncePerRun(logging.Handler):
    """crosspost's warnings on stderr, each text once per run.

    The same fact can be logged by several posts, threads or retries of one run (a
    platform that "cannot list drafts" says so for every reconcile); a person needs it
    once. Writes to whatever ``sys.stderr`` is at the time (tests swap it), and a closed
    stderr never stops a run.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter("crosspost: warning: %(message)s"))
        self._seen: set[str] = set()
        self._guard = threading.Lock()

    def start_run(self) -> None:
        """Forget the warnings already shown; install on the ``crosspost`` logger once."""
        with self._guard:
            self._seen.clear()
        logger = logging.getLogger("crosspost")
        if self not in logger.handlers:
            logger.addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record)
        with self._guard:
            if line in self._seen:
                return
            self._seen.add(line)
        try:
            print(line, file=sys.stderr, flush=True)
        except BrokenPipeError:
            _pipe_closed(0, sys.stderr)


_warnings = _OncePerRun()


def _report(message: str, code: int, *, prefix: str = "crosspost: error: ") -> int:
    """Print one line on stderr and return ``code``; a closed stderr cannot stop that.
    What the command printed on stdout goes first: into one pipe (cron's mail), a
    buffered stdout otherwise came after the error that is said below its lines."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _pipe_closed(code)
    except (OSError, ValueError):
        pass  # the error line matters more than what could not be written before it
    try:
        print(f"{prefix}{message}", file=sys.stderr)
    except BrokenPipeError:
        return _pipe_closed(code, sys.stderr)
    return code


def _pipe_closed(code: int = EXIT_PIPE_CLOSED, stream: TextIO | None = None) -> int:
    """The reader of our output went away (``crosspost status | head -5``): silence that
    stream and exit quietly. Whatever the command had done is in the ledger."""
    from crosspost.commands.table import silence

    silence(stream or sys.stdout)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
