"""``crosspost review FILE --to WECHAT_ID…``: the issue's WeChat draft on reviewers' phones."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from crosspost.commands.publish import add_targets
from crosspost.commands.table import print_progress, print_table
from crosspost.config.sources import add_arguments

if TYPE_CHECKING:
    from crosspost.publish.review import Reviews
    from crosspost.publish.runner import Publisher


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="issue files")
    parser.add_argument(
        "--to",
        action="append",
        default=[],
        dest="reviewers",
        metavar="WECHAT_ID",
        help="a reviewer's WeChat ID (微信号; repeatable): the draft goes to their phone only",
    )
    add_shared(parser, "review the draft of these accounts (default: every WeChat account)")


def add_shared(parser: argparse.ArgumentParser, where: str) -> None:
    """The options ``review`` and ``approve`` share with ``publish``."""
    add_targets(parser, where)
    parser.add_argument(
        "--sandbox", action="store_true", help="use the built-in emulators (no credentials needed)"
    )
    add_arguments(parser, "config", "state_dir")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")


def run(args: argparse.Namespace) -> int:
    from crosspost.publish.review import review

    return with_publisher(
        args, lambda publisher: review(publisher, args.files, args.reviewers, args.targets)
    )


def with_publisher(args: argparse.Namespace, work: Callable[[Publisher], Reviews]) -> int:
    """Run ``work`` with a publisher of the configured (or sandbox) accounts; print its
    lines, then the trouble that stopped it after something was sent (raised, with the
    run's exit code), and return the most urgent exit code."""
    from crosspost.commands.publish import publisher_for_run
    from crosspost.config.settings import settings_from_args

    settings = settings_from_args(args)
    progress = None if args.quiet or args.json else print_progress
    # The ledger publish and run-due use: a shared PostgreSQL one when ledger_url is set
    # (an approval written to this machine's SQLite file would never reach their ticks).
    with publisher_for_run(settings, sandbox=args.sandbox, progress=progress) as publisher:
        done = work(publisher)
    lines = done.lines
    if args.json:
        rows = [
            {
                "account": r.account,
                "issue": r.issue_id,
                "message": r.message,
                "exit_code": r.exit_code,
            }
            for r in lines
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        print_table(
            ("account", "issue", "what happened"),
            [(r.account, r.issue_id, r.message) for r in lines],
        )
    if done.trouble is not None:
        raise done.trouble
    return max_code(done.exit_codes)


def max_code(codes: Sequence[int]) -> int:
    """The most urgent of several exit codes (DESIGN.md's order)."""
    from crosspost.errors import (
        EXIT_BAD_INPUT,
        EXIT_CHANNEL_FAILED,
        EXIT_OK,
        EXIT_TEMPORARY,
        EXIT_UNCONFIRMED,
    )

    for code in (EXIT_UNCONFIRMED, EXIT_CHANNEL_FAILED, EXIT_BAD_INPUT, EXIT_TEMPORARY):
        if code in codes:
            return code
    return EXIT_OK
