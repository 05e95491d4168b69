"""``crosspost urls ISSUE_ID [-c CHANNEL[:ACCOUNT]]``: the published URLs of an issue, one
per line, for scripts."""

from __future__ import annotations

import argparse

from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_OK, UsageError
from crosspost.platforms.registry import PLATFORMS, platform_names


def channel_filter(text: str) -> tuple[str, str | None]:
    """``wechat`` or ``wechat:main`` as (channel, account or None); anything else is a
    usage error argparse reports with the flag's name (exit 2)."""
    channel, _, account = text.partition(":")
    if channel not in PLATFORMS or (":" in text and not account):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a channel; use one of {', '.join(platform_names())}, "
            "optionally with ':ACCOUNT' (e.g. wechat:main)"
        )
    return channel, account or None


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("issue_id", metavar="ISSUE_ID")
    parser.add_argument(
        "-c",
        "--channel",
        type=channel_filter,
        metavar="CHANNEL[:ACCOUNT]",
        help=f"only this channel's URLs ({', '.join(platform_names())}), or one account's",
    )
    add_arguments(parser)
    parser.add_argument(
        "--sandbox", action="store_true", help="the URLs of --sandbox rehearsals instead"
    )


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args
    from crosspost.ledger.store import Ledger

    settings = settings_from_args(args)
    if args.sandbox:
        settings = settings.rehearsal()
    if not settings.ledger_path.exists():
        raise UsageError(f"no ledger at {settings.ledger_path}; nothing was published yet")
    with Ledger.open(settings.ledger_path) as ledger:
        posts = ledger.posts(args.issue_id)
    if not posts:
        raise UsageError(
            f"the ledger has no posts of issue '{args.issue_id}'; "
            "'crosspost status' lists the issues it knows"
        )
    channel, account = args.channel or (None, None)
    for post in posts:
        if post.state != "published" or not post.url:
            continue
        if channel is not None and post.channel != channel:
            continue
        if account is not None and post.account != account:
            continue
        print(post.url)
    return EXIT_OK
