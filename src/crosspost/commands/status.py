"""``crosspost status [ISSUE_ID]``: what the ledger knows, a row per post.

Written for a person at a terminal: each post's state in the words every command uses
(:mod:`crosspost.publish.words`, never the ledger's internal names), its time in the
issue's own zone (the ``publish_at`` offset the editor wrote; else this machine's), and
rows that fit the terminal (a long error is cut; ``--json`` has it whole).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Sequence
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from crosspost.commands.table import display_width, format_table
from crosspost.config.advice import command_line
from crosspost.config.counts import counted
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_OK, UsageError
from crosspost.publish.words import state_word

if TYPE_CHECKING:
    from crosspost.config.settings import Settings
    from crosspost.ledger.store import PostRecord
    from crosspost.publish.urls import Companion

HEADER = ("issue", "channel", "state", "when", "url / last error")

#: Narrowest a cut error may get before the table simply runs wider.
_MIN_MESSAGE = 12
#: Spaces between columns (as :func:`format_table` puts them).
_GAP = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("issue_id", nargs="?", metavar="ISSUE_ID", help="only this issue")
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the posts as JSON")
    parser.add_argument(
        "--sandbox", action="store_true", help="the posts of --sandbox rehearsals instead"
    )


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args
    from crosspost.ledger.store import Ledger
    from crosspost.publish.approval import WAITING, waits_for_approval
    from crosspost.publish.urls import companion_of, url_pending

    base = settings_from_args(args)
    settings = base.rehearsal() if args.sandbox else base
    if not settings.ledger_exists:
        if args.json:
            print("[]")
        else:
            there = other_ledger(base, "status", None, sandbox=args.sandbox)
            print(f"nothing published yet (no ledger at {settings.ledger_shown}){there}")
        return EXIT_OK
    with Ledger.open(settings.ledger, read_only=True) as ledger:
        posts = ledger.posts(args.issue_id)
        # 多图文 companions without a URL say why (their ledger events hold it)
        unknown = {p.key: companion_of(ledger, p) for p in posts if p.is_published and not p.url}
        # A draft held for approval is no mere draft: the editor must act (approve.py).
        held = {p.key for p in posts if waits_for_approval(ledger, p)}
    if args.issue_id and not posts:
        there = other_ledger(base, "status", args.issue_id, sandbox=args.sandbox)
        raise UsageError(
            f"the ledger has no posts of issue '{args.issue_id}'"
            + (there or f"; '{settings.command('status')}' without an id lists the issues it knows")
        )
    if not posts and not args.json:
        there = other_ledger(base, "status", None, sandbox=args.sandbox)
        print(f"nothing published yet (the ledger at {settings.ledger_shown} has no posts){there}")
        return EXIT_OK
    zones = _zones(posts)
    if args.json:
        rows = [
            {
                "issue": p.issue_id,
                "channel": p.channel,
                "account": p.account,
                "state": WAITING if p.key in held else state_word(p),
                "url": p.url,
                "url_pending": url_pending(p),
                "url_not_known": _why(unknown.get(p.key)) or None,
                "draft_id": p.draft_id,
                "article_id": p.article_id,
                "delivery": p.delivery,
                "mass_status": p.mass_status,
                "error": p.error_message,
                "updated_at": _when(p.updated_at, zones.get(p.issue_id)),
                "published_at": _when(p.published_at, zones.get(p.issue_id)),
            }
            for p in posts
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    table = [
        (
            p.issue_id,
            f"{p.channel}:{p.account}",
            WAITING if p.key in held else state_word(p),
            _short_when(p.published_at or p.updated_at, zones.get(p.issue_id)),
            (
                _approve(settings, p)
                if p.key in held
                else _url_or_why(p, url_pending(p), _why(unknown.get(p.key)))
            ),
        )
        for p in posts
    ]
    lines, cut = fit(HEADER, table, _columns())
    print("\n".join(lines))
    if cut:
        whole = settings.command("status", *([args.issue_id] if args.issue_id else []), "--json")
        print(f"(errors cut to fit the terminal; {whole} shows them whole)")
    return EXIT_OK


def other_ledger(base: Settings, command: str, issue_id: str | None, *, sandbox: bool) -> str:
    """Where the posts an editor looks for are when this ledger has none: a ``--sandbox``
    rehearsal keeps its own ledger, so a ``status`` or ``urls`` without the flag (or with
    it, after real runs) finds nothing, and the URLs seem lost. ``"; …"`` naming the
    command that shows them, or ``""`` when the other ledger has none either.

    ``base`` are the settings without ``--sandbox``; the other ledger is only looked at
    when it is a SQLite file that exists (a shared PostgreSQL ledger is not dialled for a
    hint). It is opened read-only (nothing created, migrated or waited for), and a ledger
    that cannot be read (damaged, another user's) gives no hint: it is not the one asked
    about, and a hint must not turn a ``status`` into an error."""
    from crosspost.errors import CrosspostError
    from crosspost.ledger.store import Ledger

    other = base if sandbox else base.rehearsal()
    if other.ledger_url is not None or not other.ledger_path.is_file():
        return ""
    try:
        with Ledger.open(other.ledger, read_only=True) as ledger:
            posts = ledger.posts(issue_id)
    except CrosspostError:
        return ""
    if not posts:
        return ""
    words = (command, issue_id) if issue_id else (command,)
    shown = command_line(*words, rehearsal=not sandbox)
    if sandbox:
        has = counted(len(posts), "post")
        return f"; the real ledger (runs without --sandbox) has {has}: '{shown}'"
    return (
        f"; --sandbox rehearsals keep a ledger of their own, which has "
        f"{counted(len(posts), 'post')}: '{shown}'"
    )


def _columns() -> int:
    """The terminal's width; no limit when the output is not a terminal (a cron mail, a
    file, ``| grep``), whose reader wants each error whole. ``COLUMNS`` still rules."""
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        return sys.maxsize
    return shutil.get_terminal_size().columns


def _why(companion: Companion | None) -> str:
    """Why a 多图文 companion has no URL ("" for any other post)."""
    return (companion.why or "WeChat did not say") if companion else ""


def _approve(settings: Settings, post: PostRecord) -> str:
    """The last column of a draft held for approval: what lets it go out (its preview
    link is temporary and no place to find the post; ``--json`` keeps it)."""
    approve = settings.command("approve", post.issue_path or post.issue_id)
    return f"'{approve}' lets it go out (an edit after approving voids it)"


def _url_or_why(post: PostRecord, pending: bool, companion: str = "") -> str:
    """The table's last column: the URL, the last error, or why there is no URL."""
    if post.url or post.error_message:
        return post.url or post.error_message or ""
    if post.delivery == "broadcast" and post.is_published:
        return f"URL not known (msg_data_id {post.article_id}): urls --set records it"
    if companion:
        return f"URL not known ({companion}): urls --set records it"
    return "URL pending" if pending else ""


def fit(header: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> tuple[list[str], bool]:
    """The table's lines, the last column's long cells (errors, never URLs) cut so each
    row fits ``width`` terminal columns; and whether anything was cut.

    The last column is the only one of unbounded length, and as the last it is never
    padded: a short row stays short and a cut error ends exactly at the edge.
    """
    last = len(header) - 1
    before = format_table([h for h in header[:last]], [row[:last] for row in rows])
    room = max(_MIN_MESSAGE, width - max(display_width(line) for line in before) - _GAP)
    cut = False
    shorter = []
    for row in rows:
        cell = row[last]
        if display_width(cell) > room and not cell.startswith(("http://", "https://")):
            cell, cut = _cut(cell, room), True
        shorter.append((*row[:last], cell))
    return format_table(header, shorter), cut


def _cut(text: str, room: int) -> str:
    kept, used = [], 1  # 1: the ellipsis
    for char in text:
        used += display_width(char)
        if used > room:
            break
        kept.append(char)
    return "".join(kept).rstrip() + "…"


def _zones(posts: Sequence[PostRecord]) -> dict[str, tzinfo]:
    """Each issue's own zone, read once per issue from its file's ``publish_at``."""
    from crosspost.schedule.scan import publish_zone

    zones: dict[str, tzinfo] = {}
    seen: set[str] = set()
    for post in posts:
        if post.issue_id in seen:
            continue
        seen.add(post.issue_id)
        zone = publish_zone(post.issue_path)
        if zone is not None:
            zones[post.issue_id] = zone
    return zones


def _moment(stamp: float, zone: tzinfo | None) -> datetime:
    moment = datetime.fromtimestamp(stamp, tz=zone) if zone else datetime.fromtimestamp(stamp)
    return moment.astimezone(zone) if zone else moment.astimezone()


def _when(stamp: float | None, zone: tzinfo | None = None) -> str | None:
    if stamp is None:
        return None
    return _moment(stamp, zone).isoformat(timespec="seconds")


def _short_when(stamp: float | None, zone: tzinfo | None = None) -> str:
    """``2026-11-23 09:00 +08:00``: minutes are enough at a glance, the offset says whose."""
    if stamp is None:
        return ""
    moment = _moment(stamp, zone)
    offset = moment.strftime("%z")
    return f"{moment:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]}"
