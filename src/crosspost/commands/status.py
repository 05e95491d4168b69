"""``crosspost status [ISSUE_ID]``: what the ledger knows, a row per post."""

from __future__ import annotations

import argparse
import json
from datetime import datetime

from crosspost.commands.table import print_table
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_OK, UsageError

HEADER = ("issue", "channel", "state", "url / last error", "when")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("issue_id", nargs="?", metavar="ISSUE_ID", help="only this issue")
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the posts as JSON")


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args
    from crosspost.ledger.store import Ledger
    from crosspost.publish.urls import url_pending

    settings = settings_from_args(args)
    if not settings.ledger_path.exists():
        if args.json:
            print("[]")
        else:
            print(f"nothing published yet (no ledger at {settings.ledger_path})")
        return EXIT_OK
    with Ledger.open(settings.ledger_path) as ledger:
        posts = ledger.posts(args.issue_id)
    if args.issue_id and not posts:
        raise UsageError(
            f"the ledger has no posts of issue '{args.issue_id}'; "
            "'crosspost status' without an id lists the issues it knows"
        )
    if args.json:
        rows = [
            {
                "issue": p.issue_id,
                "channel": p.channel,
                "account": p.account,
                "state": p.state,
                "url": p.url,
                "url_pending": url_pending(p),
                "draft_id": p.draft_id,
                "article_id": p.article_id,
                "error": p.error_message,
                "updated_at": _when(p.updated_at),
                "published_at": _when(p.published_at),
            }
            for p in posts
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    table = [
        (
            p.issue_id,
            f"{p.channel}:{p.account}",
            p.state + (" (in doubt)" if p.pending_step else ""),
            p.url or p.error_message or ("URL pending" if url_pending(p) else ""),
            _when(p.published_at or p.updated_at) or "",
        )
        for p in posts
    ]
    print_table(HEADER, table)
    return EXIT_OK


def _when(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return datetime.fromtimestamp(stamp).astimezone().isoformat(timespec="seconds")
