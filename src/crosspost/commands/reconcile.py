"""``crosspost reconcile ISSUE_ID``: ask the platforms what happened to unconfirmed posts.

``crosspost reconcile --adopt ISSUE``: look on every account for an article of the issue
the ledger does not know (a lost state dir, a second machine) and record it, so the next
``publish`` does not make it twice. ISSUE is the issue's file (or an id the ledger knows).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from crosspost.commands.publish import print_report, publisher_for_run
from crosspost.commands.table import print_progress
from crosspost.config.sources import add_arguments
from crosspost.errors import UsageError

if TYPE_CHECKING:
    from crosspost.config.settings import Settings
    from crosspost.ledger.store import Ledger


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "issue_id", metavar="ISSUE_ID", help="the issue's id: its 'id:', else its file name"
    )
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="find the issue's articles already on the platforms and record them in the "
        "ledger (ISSUE_ID may be the issue's file)",
    )
    parser.add_argument("--sandbox", action="store_true", help="ask the built-in emulators")
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args
    from crosspost.publish.words import result_words

    settings = settings_from_args(args)
    if args.adopt:
        return _adopt(args, settings)
    # A rehearsal's posts are in its own ledger (the one publisher_for_run opens).
    ledger_of_run = settings.rehearsal() if args.sandbox else settings
    if not ledger_of_run.ledger_exists:
        raise UsageError(f"no ledger at {ledger_of_run.ledger_shown}; nothing was published yet")
    with publisher_for_run(
        settings, sandbox=args.sandbox, progress=print_progress, make_state=False
    ) as publisher:
        report = publisher.reconcile(args.issue_id)
        words = result_words(publisher.ledger, report.results)
    print_report(report, words, as_json=args.json)
    return report.exit_code


def _adopt(args: argparse.Namespace, settings: Settings) -> int:
    from crosspost.publish.jobs import PublishOptions
    from crosspost.publish.words import result_words

    with publisher_for_run(
        settings, sandbox=args.sandbox, progress=print_progress, make_state=False
    ) as publisher:
        path = _issue_file(args.issue_id, publisher.ledger)
        report = publisher.adopt([path], PublishOptions())
        words = result_words(publisher.ledger, report.results)
    print_report(report, words, as_json=args.json)
    return report.exit_code


def _issue_file(issue: str, ledger: Ledger) -> Path:
    """The issue's file: ``issue`` itself when it is one, else the file the ledger has for
    that id."""
    path = Path(issue)
    if path.is_file():
        return path
    for post in ledger.posts(issue):
        if post.issue_path and Path(post.issue_path).is_file():
            return Path(post.issue_path)
    raise UsageError(
        f"'{issue}' is neither an issue file nor an issue the ledger knows the file of; "
        "give the path of the issue's Markdown file"
    )
