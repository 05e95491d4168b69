"""``crosspost publish FILE...``: every issue on every channel, exactly once."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from crosspost.commands.switches import Switches
from crosspost.commands.table import print_progress, print_table
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_OK, ConfigError

if TYPE_CHECKING:
    from crosspost.config.settings import Settings
    from crosspost.ledger.store import PostKey
    from crosspost.publish.jobs import Job, PublishOptions, PublishReport
    from crosspost.publish.runner import Publisher

Sleep = Callable[[float], None]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="issue files")
    add_targets(parser, "publish only here (repeatable): wechat, zhihu, wechat:main, …")
    parser.add_argument(
        "--update",
        action="store_true",
        help="edit changed posts in place where the platform can (not a published WeChat article)",
    )
    parser.add_argument(
        "--retry-failed", action="store_true", help="retry posts that failed permanently"
    )
    parser.add_argument(
        "--new-draft",
        action="store_true",
        help="forget the recorded draft, gone from the drafts (check 群发记录 first: an article "
        "published by hand is found and recorded, one sent by hand is not), and make a new one",
    )
    parser.add_argument(
        "--new-post",
        action="store_true",
        help="publish as a new post an issue the ledger holds under another id (the same "
        "content, or the same title from a renamed file): without it that is refused",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="render, lint and show what would be sent; send nothing",
    )
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="publish to the built-in WeChat and Zhihu emulators (no credentials needed)",
    )
    add_arguments(parser, "config", "state_dir", "mode")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")


def add_targets(parser: argparse.ArgumentParser, text: str) -> None:
    """``-c CHANNEL[:ACCOUNT]`` (repeatable): the accounts a command works on."""
    parser.add_argument(
        "-c",
        "--channel",
        action="append",
        default=[],
        dest="targets",
        metavar="CHANNEL[:ACCOUNT]",
        help=text,
    )


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args
    from crosspost.publish.jobs import PublishOptions, said_after
    from crosspost.publish.words import result_words

    settings = settings_from_args(args)
    options = PublishOptions(
        targets=tuple(args.targets),
        mode=args.mode,
        update=args.update,
        retry_failed=args.retry_failed,
        new_draft=args.new_draft,
        new_post=args.new_post,
    )
    # With --json the run's lines (a plan's hand-off, a config a platform contradicts, each
    # step) go into the JSON instead of the terminal: a script reading it misses nothing
    # an editor at a terminal would have read.
    said: list[str] = []
    progress = None if args.quiet else said.append if args.json else print_progress
    with publisher_for_run(settings, sandbox=args.sandbox, progress=progress) as publisher:
        jobs = publisher.plan(args.files, options)
        if args.dry_run:
            return _print_dry_run(publisher, jobs, options, as_json=args.json)
        report = publisher.run(jobs, options)
        words = result_words(publisher.ledger, report.results)
        settings = publisher.settings
    # This machine's own files stopped a post: raised now if nothing was sent, else said
    # below the posts' lines, which say what went out.
    after = said_after(report.results, report.trouble, report.exit_code, settings.command)
    print_report(report, words, as_json=args.json, said=said, quiet=args.quiet)
    if after is not None:
        raise after
    return report.exit_code


@contextlib.contextmanager
def accounts_for_run(
    settings: Settings, *, sandbox: bool, switches: Switches
) -> Iterator[tuple[Settings, Sleep]]:
    """The configured accounts, or with ``--sandbox`` one account per emulator; and the
    run's sleep (capped by the test switch when it is set)."""
    if not sandbox:
        yield settings, switches.sleep(time.sleep)
        return
    from crosspost.sandbox.session import sandbox_settings

    with sandbox_settings(settings.rehearsal()) as sandboxed:
        yield sandboxed, switches.sleep(sandbox_pace)


@contextlib.contextmanager
def publisher_for_run(
    settings: Settings,
    *,
    sandbox: bool,
    progress: Callable[[str], None] | None,
    make_state: bool = True,
) -> Iterator[Publisher]:
    """A publisher of the configured accounts (with ``--sandbox``, the emulators') on the
    ledger they share, its secrets hidden in what it records; what ``publish``, ``review``,
    ``approve`` and ``reconcile`` each set up the same way. ``make_state``: create the
    state dir first (a command that only settles what a ledger holds needs none)."""
    from crosspost.config.redaction import redactor_for
    from crosspost.ledger.store import Ledger
    from crosspost.publish.runner import Publisher

    switches = Switches.from_environment()
    clock = switches.clock(time.time)
    with accounts_for_run(settings, sandbox=sandbox, switches=switches) as (settings, sleep):
        redactor = redactor_for([s for a in settings.accounts for s in a.secrets])
        if make_state:
            make_state_dir(settings.state_dir)
        with Ledger.open(settings.ledger, clock=clock, redact=redactor) as ledger:
            yield Publisher(
                settings,
                ledger,
                clock=clock,
                sleep=sleep,
                progress=progress,
                checkpoint=switches.checkpoint,
            )


def make_state_dir(state_dir: Path) -> None:
    """Create the state dir, or say in one line why it cannot be (exit 2, nothing sent)."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"{state_dir}: cannot be used as the state folder ({error.strerror}); "
            "set CROSSPOST_STATE_DIR or --state-dir to a folder you can write"
        ) from None


def sandbox_pace(seconds: float) -> None:
    """The emulators answer at once: poll them without the real platforms' pauses."""
    time.sleep(min(seconds, 0.05))


def print_report(
    report: PublishReport,
    words: Mapping[PostKey, str],
    *,
    as_json: bool,
    said: Sequence[str] = (),
    quiet: bool = False,
) -> None:
    """The run's table (or JSON), each post's state in ``words``: the words ``status``
    shows (:func:`~crosspost.publish.words.result_words`, read before the ledger closed).
    A ``quiet`` run printed no progress, so what a person must do is said below the table.
    """
    if as_json:
        data = report.as_dict()
        for post, result in zip(data["posts"], report.results, strict=True):
            post["state"] = words.get(result.key, result.state)
        print(json.dumps({**data, "progress": list(said)}, ensure_ascii=False, indent=2))
        return
    rows = [
        (
            f"{r.key.channel}:{r.key.account}",
            r.key.issue_id,
            words.get(r.key, r.state),
            r.url or r.message,
        )
        for r in report.results
    ]
    print_table(_HEADER, rows)
    for result in report.results:
        # Failures, advice the editor must see (an edit that needs --update), and in a
        # quiet run what a person must do (press 发表 by hand, approve, fix a published
        # WeChat article by hand): the table's state alone ("published") would not say it.
        # Named as the progress lines name a post (account, issue): a run of several
        # files has several posts on one account.
        where = f"{result.key.channel}:{result.key.account}  {result.key.issue_id}"
        if result.exit_code != EXIT_OK or result.state == "changed":
            print(f"{where}: {result.message}", file=sys.stderr)
        elif quiet and result.asks_person:
            print(f"{where}: to do: {result.todo}", file=sys.stderr)


_HEADER = ("channel", "issue", "state", "url")


def _print_dry_run(
    publisher: Publisher, jobs: list[Job], options: PublishOptions, *, as_json: bool
) -> int:
    entries = publisher.dry_run(jobs, options)
    if as_json:
        data = [
            {
                "issue": e.job.key.issue_id,
                "channel": e.job.key.channel,
                "account": e.job.key.account,
                "mode": e.job.mode,
                "action": e.action,
                "diff": e.diff,
            }
            for e in entries
        ]
        print(json.dumps({"dry_run": True, "posts": data}, ensure_ascii=False, indent=2))
        return EXIT_OK
    for entry in entries:
        key = entry.job.key
        print(f"{key.channel}:{key.account}  {key.issue_id}  {entry.job.mode}: {entry.action}")
        if entry.diff:
            print(entry.diff.rstrip())
    print("dry run: nothing was sent")
    return EXIT_OK
