"""``crosspost urls ISSUE_ID``: the published URLs of an issue, one per line, for scripts."""

from __future__ import annotations

import argparse

from crosspost.commands.publish import add_settings_flags
from crosspost.errors import EXIT_OK, UsageError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("issue_id", metavar="ISSUE_ID")
    parser.add_argument("-c", "--channel", help="only this channel's URLs")
    add_settings_flags(parser)


def run(args: argparse.Namespace) -> int:
    from crosspost.config import settings_from_args
    from crosspost.ledger import Ledger

    settings = settings_from_args(args)
    if not settings.ledger_path.exists():
        raise UsageError(f"no ledger at {settings.ledger_path}; nothing was published yet")
    with Ledger.open(settings.ledger_path) as ledger:
        if not ledger.posts(args.issue_id):
            raise UsageError(
                f"the ledger has no posts of issue '{args.issue_id}'; "
                "'crosspost status' lists the issues it knows"
            )
        posts = ledger.posts(args.issue_id, channel=args.channel, state="published")
    for post in posts:
        if post.url:
            print(post.url)
    return EXIT_OK
