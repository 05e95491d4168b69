"""What the editor's desk reads from the rest of crosspost, in one place.

The desk (:mod:`crosspost.preview.desk`) shows an issue as ``render`` and ``publish``
would make it, the week's schedule as ``run-due`` sees it, the ledger as ``status`` sees
it, and uploads images as ``publish`` does. Every call into those stages goes through
this module, so the web application itself only deals in the small records below and a
change in a stage's functions is mended here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from crosspost.check.lint import Checked, check_file
from crosspost.config.settings import Account, Settings
from crosspost.errors import (
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    EXIT_TEMPORARY,
    EXIT_UNCONFIRMED,
    IssueError,
    UsageError,
)
from crosspost.images.pipeline import collect, prepare
from crosspost.images.remote import sources_for
from crosspost.issue.fields import parse_moment
from crosspost.issue.loader import default_issue_id, opens_front_matter, read_front_matter
from crosspost.issue.model import Issue
from crosspost.ledger.schema import Event
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.platforms.registry import platform_names
from crosspost.publish.references import references
from crosspost.publish.series import previous_reader
from crosspost.publish.settle import build_adapter
from crosspost.render.context import render_context
from crosspost.render.rendered import Rendered
from crosspost.render.templates import available_themes
from crosspost.schedule.scan import issue_files

DUE, MISSED, FUTURE, SENT, BY_HAND, BROKEN = "due", "missed", "future", "sent", "by hand", "broken"


# --- the issue page ----------------------------------------------------------------------


@dataclass(frozen=True)
class CrossLink:
    """A ``{zhihu.url}`` in a field one channel sends, and what it will be when sent."""

    channel: str
    field: str
    text: str
    #: The URL the ledger holds for it; None until the post it names is published.
    url: str | None


def check_issue(path: Path, settings: Settings, theme: str | None) -> Checked:
    """Load, render and lint ``path`` as ``check`` does: the configured limits, and each
    channel with its own 往期回顾 from the ledger (read only)."""
    return check_file(
        path,
        (),
        render_context(settings, theme),
        settings.platforms(),
        previous_reader(settings.ledger),
        lenient=True,  # the editor looks at the body even while the front matter is broken
    )


def themes(settings: Settings) -> tuple[str, ...]:
    """The WeChat themes the configured template folders and the defaults offer."""
    return tuple(available_themes(tuple(settings.template_dirs), "wechat"))


def cross_links(issue: Issue, settings: Settings) -> tuple[CrossLink, ...]:
    """Every cross-channel reference of ``issue``, with the URL the ledger already has."""
    found = [
        ref for channel in issue.channels or platform_names() for ref in references(issue, channel)
    ]
    if not found:
        return ()
    with _ledger(settings) as ledger:
        posts = ledger.posts(issue.id) if ledger is not None else ()
    links = []
    for ref in found:
        urls = [
            p.url
            for p in posts
            if p.channel == ref.channel
            and p.is_published
            and p.url
            and (ref.account is None or p.account == ref.account)
        ]
        links.append(CrossLink(ref.source, ref.field, ref.text, urls[0] if urls else None))
    return tuple(links)


def local_images(rendered: Rendered) -> tuple[str, ...]:
    """Image sources of an article that are files beside the issue, not web addresses."""
    return tuple(s for s in rendered.images if urlsplit(s).scheme not in ("http", "https", "data"))


# --- uploading for the copy into the WeChat editor ----------------------------------------


def upload_account(settings: Settings) -> Account | None:
    """The WeChat account whose API uploads images for a paste, if one has credentials.

    The default account when the config names one, else the first with credentials.
    """
    accounts = [a for a in settings.accounts_for("wechat") if not a.missing_credentials()]
    if not accounts:
        return None
    default = settings.default_accounts.get("wechat")
    chosen = [a for a in accounts if a.name == default]
    return (chosen or accounts)[0]


def upload_images(
    settings: Settings,
    account: Account,
    issue: Issue,
    rendered: Rendered,
    *,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> Rendered:
    """``rendered`` with its images uploaded to ``account`` (``media/uploadimg``).

    Each image is looked up in the ledger's image cache first, by the hash of the bytes
    that would be sent, so one uploaded by ``publish`` or by an earlier paste is not sent
    again; new uploads are remembered there. Images already on WeChat stay as they are.
    """
    secrets = list(account.secrets)
    with Ledger.open(settings.ledger, clock=clock, secrets=secrets) as ledger:
        adapter = build_adapter(
            account, settings.state_dir, timeout=settings.timeout, clock=clock, sleep=sleep
        )
        policy = adapter.image_policy_for("inline")
        wanted = [ref for ref in rendered.images if not policy.is_native(ref)]
        rules = sources_for(settings)  # the same confinement and fetcher as publish
        sources = collect(wanted, issue.path, rules.fetch, rules.folders)
        urls: dict[str, str] = {}
        for ref, source in sources.items():
            prepared = prepare(source, policy)
            asset = ledger.find_asset("wechat", account.name, prepared.digest, "inline")
            if asset is None:
                asset = adapter.upload_image(prepared, "inline")
                ledger.save_asset("wechat", account.name, prepared.digest, "inline", asset)
            urls[ref] = asset.url
    return rendered.with_image_urls(urls)


# --- the week at a glance ----------------------------------------------------------------


@dataclass(frozen=True)
class PostLine:
    """One post of an issue as the ledger has it."""

    account: str  # "wechat:main"
    state: str
    url: str | None
    error: str | None
    in_doubt: bool


@dataclass(frozen=True)
class ScheduleRow:
    """One issue file of the served folders and where it stands."""

    path: Path
    issue_id: str
    title: str
    #: ``publish_at`` in the desk's local time zone; None for an issue published by hand.
    publish_at: datetime | None
    #: due, missed, future, sent (every post out), by hand (no publish_at), broken.
    status: str
    posts: tuple[PostLine, ...] = ()
    problem: str | None = None


def issue_paths(targets: Sequence[Path], settings: Settings) -> list[Path]:
    """The issue files named by ``targets`` (files, or folders searched for issue files).

    Without targets: the configured issue folders, else the current folder.
    """
    wanted = list(targets) or list(settings.issue_dirs) or [Path(".")]
    files: dict[Path, None] = {}
    for target in wanted:
        if target.is_file():
            files.setdefault(target.resolve(), None)
        elif target.is_dir():
            for name in issue_files([target]):
                if _looks_like_issue(Path(name)):
                    files.setdefault(Path(name), None)
        else:
            raise UsageError(f"{target}: no such file or folder of issues")
    return list(files)


def _looks_like_issue(path: Path) -> bool:
    """Whether a Markdown file starts with front matter (a README in the folder does not)."""
    try:
        with path.open("rb") as file:
            return opens_front_matter(file.read(4096))
    except OSError:
        return False


def schedule(paths: Iterable[Path], settings: Settings, now: datetime) -> list[ScheduleRow]:
    """Every issue with its ``publish_at`` and state, soonest first, unscheduled last.

    Due: its time has come, within the grace ``run-due`` allows; missed: longer ago
    than that, and not out everywhere; sent: every post the ledger has of it is out.
    """
    with _ledger(settings) as ledger:
        posts = ledger.posts() if ledger is not None else ()
    by_issue: dict[str, list[PostRecord]] = {}
    for post in posts:
        by_issue.setdefault(post.issue_id, []).append(post)
    rows = [_row(path, settings.grace, now, by_issue) for path in paths]
    far = datetime.max.replace(tzinfo=now.tzinfo)
    return sorted(rows, key=lambda r: (r.publish_at is None, r.publish_at or far, str(r.path)))


def _row(
    path: Path, grace: timedelta, now: datetime, by_issue: dict[str, list[PostRecord]]
) -> ScheduleRow:
    try:
        front, lines = read_front_matter(path)
        moment = parse_moment(path, "publish_at", front.get("publish_at"), lines.get("publish_at"))
    except IssueError as error:
        return ScheduleRow(path, default_issue_id(path), path.name, None, BROKEN, (), str(error))
    raw_id = front.get("id")
    issue_id = str(raw_id).strip() if raw_id not in (None, "") else default_issue_id(path)
    mine = by_issue.get(issue_id, [])
    lines_ = tuple(
        PostLine(f"{p.channel}:{p.account}", p.state, p.url, p.error_message, bool(p.pending_step))
        for p in mine
    )
    local = moment.astimezone(now.tzinfo) if moment is not None else None
    if mine and all(p.is_published for p in mine):
        status = SENT
    elif moment is None:
        status = BY_HAND
    elif moment > now:
        status = FUTURE
    elif now - moment <= grace:
        status = DUE
    else:
        status = MISSED
    return ScheduleRow(path, issue_id, str(front.get("title") or path.name), local, status, lines_)


# --- the ledger view of one issue ---------------------------------------------------------


@dataclass(frozen=True)
class PostStory:
    """One post of an issue with its audit trail and what its state means for a script."""

    post: PostRecord
    events: tuple[Event, ...]
    exit_code: int
    meaning: str


def ledger_of(settings: Settings, issue_id: str) -> tuple[PostStory, ...]:
    """Every post of ``issue_id`` in the ledger, each with its events, oldest first."""
    with _ledger(settings) as ledger:
        if ledger is None:
            return ()
        return tuple(
            PostStory(post, ledger.events(post.key), *_exit_meaning(post))
            for post in ledger.posts(issue_id)
        )


def _exit_meaning(post: PostRecord) -> tuple[int, str]:
    """The exit code a publish run ending with this post would give, and what it asks for."""
    if post.pending_step or post.state in ("unconfirmed", "submitted"):
        return EXIT_UNCONFIRMED, (
            "outcome unconfirmed on the platform: run crosspost reconcile before publishing again"
        )
    if post.state == "failed":
        if post.error_permanent:
            return (
                EXIT_CHANNEL_FAILED,
                "the channel refused it: fix what the error says, then publish again",
            )
        return EXIT_TEMPORARY, "a temporary failure: safe to run again later"
    if post.state == "published" or post.draft_id:
        return EXIT_OK, "done"
    return EXIT_OK, "started: the next publish run carries on from here"


@contextmanager
def _ledger(settings: Settings) -> Iterator[Ledger | None]:
    """The ledger when one exists (the desk never creates it just by looking)."""
    if not settings.ledger_exists:
        yield None
        return
    secrets = [s for a in settings.accounts for s in a.secrets]
    with Ledger.open(settings.ledger, secrets=secrets, read_only=True) as ledger:
        yield ledger
