"""A series of issues and its "往期回顾": earlier issues with each channel's own URL.

The ledger knows which issues went out where; the issue files know which series they
belong to. This module joins the two for the publisher, which hands the result to the
renderers (they stay pure: no ledger, no disk).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from crosspost.errors import IssueError
from crosspost.issue.fields import series_name
from crosspost.issue.loader import read_front_matter, read_issue
from crosspost.issue.model import Issue
from crosspost.platforms.registry import PLATFORMS
from crosspost.render.rendered import PreviousIssue

if TYPE_CHECKING:  # the ledger loads only when there is one to read (render and check)
    from crosspost.ledger.store import Ledger, PostRecord


def previous_issues(
    ledger: Ledger, issue: Issue, channel: str, account: str | None = None
) -> tuple[PreviousIssue, ...]:
    """The last ``issue.previous`` issues of ``issue.series`` before it, newest first.

    "Before" is by the ledger: issues that first went out before this one did (or
    before now, for an issue that has not gone out yet).

    Each carries this channel's URL (of ``account`` when given) if it was published
    there; an issue that is not on this channel yet comes without a URL, so the list
    still shows it and the reader can find it elsewhere.
    """
    if not issue.series or issue.previous <= 0:
        return ()
    by_issue: dict[str, list[PostRecord]] = {}
    for post in ledger.posts():
        by_issue.setdefault(post.issue_id, []).append(post)
    # Only issues that went out before this one: publishing a later issue must not change
    # an earlier one's 往期回顾 (cron publishes every file again and again, and would find
    # the earlier issue "changed" after each new one).
    own = by_issue.pop(issue.id, [])
    cutoff = _first_out(own) if own else math.inf
    members: list[tuple[float, str, str, str | None]] = []
    for issue_id, posts in by_issue.items():
        front = _front_matter(posts)
        if front is None or series_name(front.get("series")) != issue.series:
            continue
        title = _title(front, channel)
        when = _first_out(posts)
        if when >= cutoff:
            continue
        mine = [
            p
            for p in posts
            if p.channel == channel and p.is_published and (account is None or p.account == account)
        ]
        members.append((when, issue_id, title, lasting_url(mine[0]) if mine else None))
    members.sort(reverse=True)
    return tuple(PreviousIssue(i, title, url) for _, i, title, url in members[: issue.previous])


def lasting_url(post: PostRecord) -> str | None:
    """The post's URL when it is a permanent one: a temporary link (a preview that
    expires) is never put in 往期回顾; the issue is listed without a link instead."""
    platform = PLATFORMS.get(post.channel)
    permanent = platform.is_permanent_url(post.url) if platform else bool(post.url)
    return post.url if permanent else None


def previous_reader(
    ledger_at: Path | str,
) -> Callable[[Issue, str], tuple[PreviousIssue, ...]]:
    """往期回顾 as ``publish`` will add it, read from the ledger at ``ledger_at`` (a SQLite
    file or a PostgreSQL URL) without writing to it: ``render``, ``preview``, ``check`` and
    the desk show the editor what goes out. No ledger yet: nothing was published, so no list."""

    def previous(issue: Issue, channel: str) -> tuple[PreviousIssue, ...]:
        if not issue.series or issue.previous <= 0:
            return ()
        if isinstance(ledger_at, Path) and not ledger_at.is_file():
            return ()
        from crosspost.ledger.store import Ledger

        with Ledger.open(ledger_at, read_only=True) as ledger:
            return previous_issues(ledger, issue, channel)

    return previous


def _first_out(posts: list[PostRecord]) -> float:
    """When an issue first went out anywhere (or was first tried, if it never did)."""
    return min((p.published_at or p.created_at) for p in posts)


def _front_matter(posts: list[PostRecord]) -> dict[str, object] | None:
    for post in posts:
        if post.issue_path and Path(post.issue_path).is_file():
            try:
                front, _ = read_front_matter(post.issue_path)
                if not front.get("title"):  # from its '# ' heading or its file name
                    front = {**front, "title": read_issue(post.issue_path).title}
            except IssueError:
                return None  # a broken earlier issue is left out, not fatal to this one
            return front
    return None


def _title(front: dict[str, object], channel: str) -> str:
    block = front.get(channel)
    if isinstance(block, dict) and block.get("title"):
        return str(block["title"])
    return str(front.get("title") or "")
