"""``crosspost urls ISSUE_ID [-c CHANNEL[:ACCOUNT]]``: the published URLs of an issue, one
per line, for scripts; ``crosspost urls --set ISSUE_ID -c CHANNEL[:ACCOUNT] URL`` records a
post's permanent URL by hand.

Only permanent URLs are printed. A post published without one ("URL pending": WeChat
listed only a temporary link) is named on stderr with what to do, so a script reading
stdout never gets a link that expires.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from crosspost.commands.parser import CommandParser
from crosspost.config.advice import command_line
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_OK, UsageError
from crosspost.platforms.registry import PLATFORMS, platform_names

if TYPE_CHECKING:
    from crosspost.config.settings import Settings


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


class _AnyOrder(CommandParser):
    """A parser whose positionals may come on both sides of the options, as in
    ``urls --set ISSUE -c wechat URL`` (plain argparse takes positionals in one run);
    its usage errors are one line, as every command's (:class:`CommandParser`)."""

    _inside = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inside:  # the intermixed parse calls back here for each of its passes
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def configure(parser: argparse.ArgumentParser) -> None:
    parser.__class__ = _AnyOrder
    parser.add_argument(
        "issue_id", metavar="ISSUE_ID", help="the issue's id: its 'id:', else its file name"
    )
    parser.add_argument(
        "url",
        metavar="URL",
        nargs="?",
        help="with --set: the post's permanent URL (e.g. from WeChat's 发表记录)",
    )
    parser.add_argument(
        "-c",
        "--channel",
        type=channel_filter,
        metavar="CHANNEL[:ACCOUNT]",
        help=f"only this channel's URLs ({', '.join(platform_names())}), or one account's",
    )
    parser.add_argument(
        "--set",
        action="store_true",
        dest="set_url",
        help="record URL as the post's permanent URL (needs -c; the post must be published)",
    )
    add_arguments(parser)
    parser.add_argument(
        "--sandbox", action="store_true", help="the URLs of --sandbox rehearsals instead"
    )


def run(args: argparse.Namespace) -> int:
    from crosspost.ledger.store import Ledger
    from crosspost.publish.urls import companion_of, pending_message, url_pending

    if args.set_url:
        return _set(args)
    if args.url is not None:
        example = _example(args)
        raise UsageError(f"urls: a URL ({args.url}) is only given with --set, e.g. {example}")
    settings = _settings(args)
    with Ledger.open(settings.ledger, read_only=True) as ledger:
        posts = ledger.posts(args.issue_id)
        unknown = {p.key: companion_of(ledger, p) for p in posts if p.is_published and not p.url}
    if not posts:
        raise UsageError(
            f"the ledger has no posts of issue '{args.issue_id}'"
            + (_elsewhere(args) or f"; '{settings.command('status')}' lists the issues it knows")
        )
    rehearsal = settings.rehearsing
    channel, account = args.channel or (None, None)
    for post in posts:
        if channel is not None and post.channel != channel:
            continue
        if account is not None and post.account != account:
            continue
        companion = unknown.get(post.key)
        if companion is not None and post.delivery != "broadcast":
            line = companion.line(rehearsal=rehearsal)
            print(f"{post.channel}:{post.account}: {line}", file=sys.stderr)
            continue
        if url_pending(post) or (post.is_published and not _permanent(post.channel, post.url)):
            line = pending_message(post, rehearsal=rehearsal)
            print(f"{post.channel}:{post.account}: {line}", file=sys.stderr)
            continue
        if post.state != "published" or not post.url:
            continue
        print(post.url)
    return EXIT_OK


def _settings(args: argparse.Namespace) -> Settings:
    """The settings of the ledger the command reads: the rehearsals' with ``--sandbox``."""
    from crosspost.config.settings import settings_from_args

    settings = settings_from_args(args)
    if args.sandbox:
        settings = settings.rehearsal()
    if not settings.ledger_exists:
        raise UsageError(
            f"no ledger at {settings.ledger_shown}; nothing was published yet{_elsewhere(args)}"
        )
    return settings


def _elsewhere(args: argparse.Namespace) -> str:
    """``"; …"`` naming the other ledger's command when it has the issue's posts (a
    rehearsal's URLs asked for without ``--sandbox``, or the other way round)."""
    from crosspost.commands.status import other_ledger
    from crosspost.config.settings import settings_from_args

    return other_ledger(settings_from_args(args), "urls", args.issue_id, sandbox=args.sandbox)


def _example(args: argparse.Namespace) -> str:
    """``urls --set`` written out for this issue (a rehearsal's with ``--sandbox``)."""
    account = "wechat:sandbox" if args.sandbox else "wechat:main"
    words = ("urls", "--set", args.issue_id, "-c", account, "URL")
    return command_line(*words, rehearsal=args.sandbox)


def _place(names: list[str], name: str) -> int:
    """Where ``name`` is among ``names`` (the config's order); unknown names last."""
    return names.index(name) if name in names else len(names)


def _permanent(channel: str, url: str | None) -> bool:
    platform = PLATFORMS.get(channel)
    return platform.is_permanent_url(url) if platform else bool(url)


def _set(args: argparse.Namespace) -> int:
    from crosspost.ledger.store import Ledger
    from crosspost.publish.urls import set_url
    from crosspost.publish.words import state_word

    example = _example(args)
    if args.channel is None:
        raise UsageError(f"urls --set: name the post's channel and account with -c, e.g. {example}")
    if not args.url:
        raise UsageError(f"urls --set: give the post's permanent URL last, e.g. {example}")
    channel, account = args.channel
    platform = PLATFORMS[channel]
    if not platform.is_permanent_url(args.url):
        raise UsageError(
            f"urls --set: {args.url} is not a permanent {platform.display_name} link (an "
            "http(s) address without a temporary key such as tempkey=); copy the article's "
            "own link (WeChat: 公众号后台 → 发表记录 → the article → copy its link)"
        )
    settings = _settings(args)
    with Ledger.open(settings.ledger) as ledger:
        posts = [
            p
            for p in ledger.posts(args.issue_id, channel=channel)
            if account is None or p.account == account
        ]
        if not posts:
            where = f"{channel}:{account}" if account else channel
            raise UsageError(
                f"urls --set: the ledger has no post of issue '{args.issue_id}' on {where}; "
                f"'{settings.command('status')}' lists the posts it knows"
            )
        # `-c wechat` and the issue on several of its accounts: the channel's
        # default_account, as for every command that works on one account.
        default = settings.default_accounts.get(channel)
        if len(posts) > 1:
            posts = [p for p in posts if p.account == default] or posts
        if len(posts) > 1:
            configured = [a.name for a in settings.accounts if a.channel == channel]
            posts.sort(key=lambda p: (_place(configured, p.account), p.account))
            names = [f"{p.channel}:{p.account}" for p in posts]
            hint = "" if default else f", or set default_account under [channels.{channel}]"
            raise UsageError(
                f"urls --set: issue '{args.issue_id}' is on {', '.join(names)}; name one "
                f"with -c (e.g. -c {names[0]}){hint}"
            )
        (post,) = posts
        if not post.is_published:
            publish = settings.command("publish", str(post.issue_path or "FILE"))
            raise UsageError(
                f"urls --set: {post.key} is not published (it is {state_word(post)}); run "
                f"{publish} or {settings.command('reconcile', args.issue_id)} first"
            )
        set_url(ledger, post, args.url)
    print(f"{post.channel}:{post.account}  {post.issue_id}: URL recorded {args.url}")
    return EXIT_OK
