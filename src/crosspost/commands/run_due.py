"""``crosspost run-due [DIR ...]``: publish every issue whose ``publish_at`` has come (cron).

Cron mails whatever a job prints, so this command is silent when there is nothing new:
one line per post published, changed or failed (and a "to do" line when a person must
act, such as an edit WeChat cannot take), per issue missed or skipped as a draft, per file
with bad input or a misspelt ``publish_at``, and for no account to send with (each once
per version of the file and of the settings that shape the tick, not of the config file's
bytes: see :func:`~crosspost.schedule.state.settings_digest`; ``-v`` repeats them and adds
progress). Each post is named in the words ``status`` shows. Exit codes follow
DESIGN.md with the precedence in :mod:`crosspost.schedule.tick`; a tick that finds another
one running exits 0 without a word. See ``contrib/`` for crontab, systemd and CI examples.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from crosspost.commands.switches import Switches
from crosspost.commands.table import format_rows, print_progress
from crosspost.config.counts import counted
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_OK, CrosspostError, UsageError
from crosspost.schedule.report import TEMPORARY

if TYPE_CHECKING:
    from collections.abc import Iterator

    from crosspost.config.redaction import Redactor
    from crosspost.config.settings import Settings
    from crosspost.schedule.report import DueOptions, DueReport
    from crosspost.schedule.scan import Scan

Say = Callable[[str], None]
#: Report entries about a file, not a post: bad input (exit 2), a ``draft: true`` skipped
#: and a ``publish_at`` misspelt (exit 0), each said once per version of the file; an
#: issue that could not be planned for now (exit 75), said on each tick that tries it.
FILE_NOTES = ("problem", "skipped", "unscheduled", TEMPORARY)

#: Log file rotation: five files of 1 MiB keep months of ticks.
LOG_BYTES = 1 << 20
LOG_BACKUPS = 5


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dirs",
        nargs="*",
        type=Path,
        metavar="DIR",
        help="folders of issue files (default: [schedule] issue_dirs in the config)",
    )
    parser.add_argument(
        "--now",
        metavar="ISO-8601",
        help="pretend it is this moment (with a timezone), for rehearsals and tests",
    )
    parser.add_argument(
        "--include-missed",
        action="store_true",
        help="also publish issues whose time passed longer ago than the grace",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="edit changed posts in place where the platform can (not a published WeChat article)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would be sent; send nothing"
    )
    parser.add_argument(
        "--wait", action="store_true", help="wait for a running tick instead of leaving"
    )
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="publish to the built-in WeChat and Zhihu emulators (a rehearsal)",
    )
    add_arguments(parser, "config", "state_dir", "grace", "log_file", "mode")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="progress, and repeat known reports"
    )


def run(args: argparse.Namespace) -> int:
    import time

    from crosspost.config.redaction import redactor_for
    from crosspost.config.settings import settings_from_args

    switches = Switches.from_environment()
    clock = switches.clock(_clock(args.now) if args.now else time.time)
    settings = settings_from_args(args)
    if args.sandbox:  # the rehearsal's own ledger, lock and run-due.json: never the real ones
        settings = settings.rehearsal()
    # One redactor for the tick: the log file, the ledger and the adapters share it, so a
    # token fetched mid-run is hidden everywhere, not only in the HTTP policy's messages.
    secrets = [s for a in settings.accounts for s in a.secrets]
    redactor = redactor_for(secrets, settings.notify_urls)
    with _logger(settings, redactor, verbose=args.verbose and not args.json) as log:
        try:
            return _tick(args, settings, clock, switches, log, redactor)
        except CrosspostError as error:
            _record(f"error: {error}")  # the log file tells the whole story of every tick
            raise


def _tick(
    args: argparse.Namespace,
    settings: Settings,
    clock: Callable[[], float],
    switches: Switches,
    log: Say,
    redactor: Redactor,
) -> int:
    from crosspost.schedule.report import DueOptions, DueReport
    from crosspost.schedule.scan import look

    options = DueOptions(
        dirs=tuple(args.dirs),
        include_missed=args.include_missed,
        update=args.update,
        dry_run=args.dry_run,
        wait=args.wait,
        mode=args.mode,
    )
    # Most ticks find nothing due: they look, and never load the publisher.
    now = datetime.fromtimestamp(clock(), tz=UTC)
    found = look(options.dirs or settings.issue_dirs, now, rehearsal=settings.rehearsing)
    if found.idle and not (options.dry_run and found.later):
        report = DueReport.of_scan(now, found)
    else:
        report = _publish_due(args, settings, options, found, clock, switches, log, redactor)
    from crosspost.publish.jobs import said_after

    # This machine's own files stopped a post, or the tick's state file: before anything
    # was sent, the one line of any such trouble; after, below what went out.
    after = said_after(report.results, report.trouble, report.exit_code, settings.command)
    report = dataclasses.replace(report, trouble=after)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
    else:
        print_report(report, verbose=args.verbose)
    if not args.dry_run and not report.locked:
        _notify(settings, report)
    if after is not None:
        raise after
    return report.exit_code


def _publish_due(
    args: argparse.Namespace,
    settings: Settings,
    options: DueOptions,
    found: Scan,
    clock: Callable[[], float],
    switches: Switches,
    log: Say,
    redactor: Redactor,
) -> DueReport:
    """The rest of the tick, with the accounts and pauses ``--sandbox`` and the switches ask for."""
    import time

    from crosspost.commands.publish import sandbox_pace
    from crosspost.schedule.tick import Accounts, run_due

    accounts: Accounts | None = None
    sleep: Callable[[float], None] = time.sleep
    if args.sandbox:  # the emulators start inside the tick, once it holds the lock
        from crosspost.sandbox.session import sandbox_settings

        accounts, sleep = sandbox_settings, sandbox_pace
    return run_due(
        settings,
        options,
        clock=clock,
        sleep=switches.sleep(sleep),
        progress=log,
        redactor=redactor,
        checkpoint=switches.checkpoint,
        accounts=accounts,
        found=found,
    )


def _clock(text: str) -> Callable[[], float]:
    """The run's clock: starts at ``--now`` and moves on as real time does."""
    import time

    try:
        start = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--now {text!r} is not a date and time; write e.g. 2026-11-23T09:00:00+08:00"
        ) from None
    if start.utcoffset() is None:
        raise UsageError(f"--now {text!r} has no timezone; add one, e.g. +08:00 or Z")
    origin, began = start.timestamp(), time.monotonic()
    return lambda: origin + (time.monotonic() - began)


@contextlib.contextmanager
def _logger(settings: Settings, redactor: Redactor, *, verbose: bool) -> Iterator[Say]:
    """Progress goes to the log file (if set, rotated, redacted) and, with -v, to stderr."""
    import logging

    logger = logging.getLogger("crosspost")
    handler: logging.Handler | None = None
    if settings.log_file is not None:
        from logging.handlers import RotatingFileHandler

        from crosspost.config.redaction import RedactingFilter

        settings.log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(
            settings.log_file, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
        )
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        handler.addFilter(RedactingFilter(redactor))
        logger.addHandler(handler)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)

    def say(line: str) -> None:
        logger.info(line)
        if verbose:
            print_progress(line)

    try:
        yield say
    finally:
        if handler is not None:
            logger.removeHandler(handler)
            handler.close()


def _record(line: str) -> None:
    """A line for the log file only (the terminal gets it from print)."""
    import logging

    logging.getLogger("crosspost.run_due").info(line)


def print_report(report: DueReport, *, verbose: bool) -> None:
    """One line per thing a person should know; nothing at all when nothing is new.

    The lines are one table, each column as wide as its widest cell in this tick: a state
    word such as ``sending, or waiting for confirmation`` or a long account name widens
    its column instead of pushing its own line out of step with the others.
    """
    if report.locked:
        if report.stuck:
            line = f"problem  {report.stuck}"
            _record(line)
            print(line, file=sys.stderr)
        return
    # Each row with the stream it is printed on: None for the log file only (not news).
    rows: list[tuple[tuple[str, ...], TextIO | None]] = []
    for result in report.results:
        where = f"{result.key.channel}:{result.key.account}"
        news = report.is_news(result) or verbose  # a resumed post found done is not news
        # A post held for approval is one fact, and its to-do line says it with what to
        # do: a 'waiting' line beside it would say it twice.
        if not (result.state == "waiting" and result.asks_person):
            # A changed post's line says what can be done (--update, or why not): its URL
            # was said when it was published.
            shows_url = result.exit_code == EXIT_OK and result.url and result.state != "changed"
            detail = result.url if shows_url else result.message
            word = report.word(result)  # the words status shows: 'not sent', never 'pending'
            stream = sys.stdout if result.exit_code == EXIT_OK else sys.stderr
            rows.append(
                ((word, where, result.key.issue_id, detail or ""), stream if news else None)
            )
        if news and result.asks_person:
            rows.append((("to do", where, result.key.issue_id, result.todo), sys.stdout))
    for entry in report.entries:
        shown = not (entry.repeat or entry.kind == "waiting") or verbose
        failing = entry.kind in ("problem", TEMPORARY)
        stream = (sys.stderr if failing else sys.stdout) if shown else None
        if entry.kind in FILE_NOTES:  # the message names the file (and line) itself
            rows.append(((entry.kind, entry.message), stream))
        else:
            cells = (entry.kind, entry.account or "", entry.issue_id or "", entry.message)
            rows.append((cells, stream))
    # Aligned among the lines printed, which are what a person reads; the log file's
    # other lines among themselves.
    said = iter(format_rows([cells for cells, stream in rows if stream is not None]))
    kept = iter(format_rows([cells for cells, stream in rows if stream is None]))
    for _, stream in rows:
        line = next(kept if stream is None else said)
        _record(line)
        if stream is not None:
            # Each line at once: into one pipe (cron's mail), a buffered stdout put every
            # published line below the failures and the error, out of the table's order.
            print(line, file=stream, flush=True)
    summary = (
        f"run-due at {report.now.isoformat(timespec='seconds')}: "
        f"{counted(report.files, 'file')}, {report.upcoming} scheduled later, "
        f"{report.settled} settled"
    )
    if report.next_due:
        summary += f"; next: {report.next_due[0]} at {report.next_due[1].isoformat()}"
    _record(summary)
    if verbose:
        print(summary, file=sys.stderr)


def _notify(settings: Settings, report: DueReport) -> None:
    if not settings.notify_urls:
        return
    from crosspost.schedule.notify import run_notice, send

    notice = run_notice(report, on_success=settings.notify_on_success)
    if notice is None:
        return
    secrets = [s for a in settings.accounts for s in a.secrets]
    for warning in send(notice, settings.notify_urls, secrets=secrets):
        _record(warning)
        print(f"crosspost: warning: {warning}", file=sys.stderr)
