"""What the publisher plans and what it reports: options, jobs, results.

Plain data, shared by the publisher, the per-post machine, the scheduler and the
commands, so none of them imports another just for a type; and the two things done to
a job whose fields name another post's URL (:func:`fill_links`, :func:`describe_links`).
The rules for such references live one layer down, in :mod:`crosspost.publish.references`,
which knows nothing of jobs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from crosspost.config.settings import Account
from crosspost.errors import (
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    EXIT_UNCONFIRMED,
    CrosspostError,
    StorageError,
    run_exit_code,
)
from crosspost.issue.model import ChannelSettings, Issue
from crosspost.ledger.store import Ledger, PostKey, PostRecord
from crosspost.publish.references import Link, resolve
from crosspost.render.rendered import Rendered

Progress = Callable[[str], None]

MODES = ("draft", "publish", "broadcast")


@dataclass(frozen=True)
class PublishOptions:
    """What the editor asked for on the command line."""

    #: ``wechat`` or ``wechat:main``; empty: the issue's channels, else every account.
    targets: tuple[str, ...] = ()
    #: ``draft``, ``publish`` or ``broadcast``; None: the issue's, else the account's,
    #: else the config's.
    mode: str | None = None
    #: Edit a post in place when the issue changed after it was published.
    update: bool = False
    #: Retry a post that failed permanently although nothing changed since.
    retry_failed: bool = False
    #: Forget the recorded draft and make a new one (a WeChat draft deleted by hand).
    new_draft: bool = False
    #: Publish as a new post an issue the ledger holds under another id (the same
    #: content, or the same title from a file renamed; see ``publish.same_issue``).
    new_post: bool = False


@dataclass(frozen=True)
class Job:
    """One post to make: an issue, rendered for its channel, for one account."""

    issue: Issue
    account: Account
    rendered: Rendered
    settings: ChannelSettings
    mode: str
    #: Hash of everything the platform will receive for this post (body and fields).
    content_hash: str
    #: Channel references (``{zhihu.url}``) in the fields this post sees.
    links: tuple[Link, ...] = ()
    #: The companions that go into this post's draft and send (WeChat 多图文), each a
    #: job of the same account; ``content_hash`` covers them too.
    bundle: tuple[Job, ...] = ()
    #: ``publish`` or ``broadcast`` when this account may only draft: the run drafts and
    #: the editor presses the button by hand (see :mod:`crosspost.publish.delivery`).
    handoff: str = ""
    #: ``publish`` or ``broadcast`` when the account requires an approval this content
    #: lacks: the run drafts, and the post waits (see :mod:`crosspost.publish.approval`).
    awaits_approval: str = ""

    @property
    def key(self) -> PostKey:
        return PostKey(self.issue.id, self.account.channel, self.account.name)

    @property
    def waits_for(self) -> tuple[PostKey, ...]:
        """The posts of this run whose URL this one needs before it can be rendered."""
        return tuple(dict.fromkeys(link.target for link in self.links if link.url is None))

    def ensured(self, ledger: Ledger, *, sends: str | None = None) -> PostRecord:
        """This post's row in ``ledger`` (made if new), with what the job knows of it
        kept there: its file, its title (for ``posts_like``) and the platform account it
        goes to (``Account.identity``); ``sends`` as :meth:`Ledger.ensure` takes it."""
        return ledger.ensure(
            self.key,
            issue_path=self.issue.path,
            sends=sends,
            title=self.rendered.title,
            identity=self.account.identity,
            identity_kind=self.account.identity_kind,
        )


@dataclass(frozen=True)
class PostResult:
    """How one post ended this run, in words for the editor and a code for cron."""

    key: PostKey
    #: published, drafted, unchanged, changed, failed, unconfirmed, pending, missing,
    #: skipped (not attempted: a post whose URL it needs did not come out)
    state: str
    url: str | None
    message: str = ""
    exit_code: int = EXIT_OK
    #: True when this run sent something that changes the platform.
    sent: bool = False
    #: What a person must do next (press 群发 by hand, approve): said in the notice.
    todo: str = ""
    #: This machine's own files (a full disk, a state dir that takes no new file) stopped
    #: the post: the run's error line, said below the posts' lines (:func:`said_after`).
    stopped_by: StorageError | None = field(default=None, compare=False)

    @property
    def asks_person(self) -> bool:
        """Done, but a person must act (press 群发 by hand, file it into a column)."""
        return bool(self.todo) and self.exit_code == EXIT_OK

    def as_dict(self) -> dict[str, Any]:
        return {
            "issue": self.key.issue_id,
            "channel": self.key.channel,
            "account": self.key.account,
            "state": self.state,
            "url": self.url,
            "message": self.message,
            "exit_code": self.exit_code,
        }


@dataclass(frozen=True)
class PublishReport:
    """Every post of a run. ``exit_code`` follows DESIGN.md, the most urgent first:
    3 (reconcile) > 1 (a channel failed) > 2 (bad input) > 75 (try later) > 0."""

    results: tuple[PostResult, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    #: Stopped by Ctrl-C or SIGTERM: exit 130, as a shell expects of an interrupted
    #: command, unless a post is unconfirmed (3: reconcile first); the posts' rows say
    #: where each stopped.
    interrupted: bool = False

    @property
    def exit_code(self) -> int:
        codes = [r.exit_code for r in self.results]
        if self.trouble is not None:
            codes.append(self.trouble.exit_code)
        return run_exit_code(codes, interrupted=self.interrupted)

    @property
    def trouble(self) -> StorageError | None:
        """The trouble with this machine's own files that stopped a post, if one did."""
        return stopped_by(self.results)

    def as_dict(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "interrupted": self.interrupted,
            "posts": [r.as_dict() for r in self.results],
            "warnings": list(self.warnings),
        }


def stopped_by(results: Iterable[PostResult]) -> StorageError | None:
    """The first trouble with this machine's own files that stopped one of ``results``."""
    return next((r.stopped_by for r in results if r.stopped_by is not None), None)


def said_after(
    results: Iterable[PostResult],
    trouble: StorageError | None,
    exit_code: int,
    command: Callable[..., str],
) -> StorageError | None:
    """How a run that ``trouble`` with this machine's own files stopped ends. Nothing
    sent: the trouble is raised here, said alone as any such trouble. Something sent:
    the trouble in the words for after sending (never "nothing was sent";
    :meth:`~crosspost.errors.StorageError.after_sending`), with the reconcile of each post
    it left unconfirmed (``command`` spells it, ``Settings.command``) and the run's
    ``exit_code``, returned for the caller to raise below the posts' lines. None without
    trouble."""
    done = list(results)
    if trouble is None:
        return None
    if not any(r.sent for r in done):
        raise trouble
    reconcile = [
        command("reconcile", r.key.issue_id)
        for r in done
        if r.stopped_by is not None and r.exit_code == EXIT_UNCONFIRMED
    ]
    return trouble.after_sending(reconcile, exit_code)


def content_hash(rendered: Rendered, settings: ChannelSettings, mode: str) -> str:
    """A stable hash of what a post sends: the body and every field the platform shows."""
    cover_digest = ""
    if settings.cover and settings.cover.is_file():
        cover_digest = hashlib.sha256(settings.cover.read_bytes()).hexdigest()
    fields = {
        "title": rendered.title,
        "body": rendered.body,
        "author": settings.author,
        "digest": settings.digest,
        "source_url": settings.source_url,
        "cover": cover_digest,
        "options": {k: v for k, v in settings.options.items() if k != "mode"},
    }
    blob = json.dumps(fields, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def fill_links(
    job: Job,
    results: Mapping[PostKey, PostResult],
    ledger: Ledger,
    render: Callable[[Issue, Account, None], Rendered],
) -> Job | PostResult:
    """``job`` rendered again with the URLs it waited for, or why it cannot be made.

    Called once the posts it names have run: their URLs are in the ledger now, or
    their results say why not (the skipped post then reports that, with its exit code).
    """
    if not job.waits_for:
        return job
    filled: list[Link] = []
    for found in job.links:
        record = ledger.get(found.target) if found.url is None else None
        if record is not None and record.is_published and record.url:
            found = replace(found, url=record.url)
        if found.url is None:
            target = found.target
            before = results.get(target)
            why = f"{before.state}: {before.message}" if before else "it was not made"
            code = before.exit_code if before and before.exit_code else EXIT_CHANNEL_FAILED
            message = (
                f"not attempted: '{found.reference.field}' needs the URL of "
                f"{target.channel}:{target.account}, which has none ({why})"
            )
            return PostResult(job.key, "skipped", None, message, code)
        filled.append(found)
    urls = {found.reference.text: str(found.url) for found in filled}
    try:
        issue = resolve(job.issue, job.key.channel, urls)
        rendered = render(issue, job.account, None)
    except CrosspostError as error:
        return PostResult(job.key, "failed", None, str(error), error.exit_code)
    settings = issue.settings(job.key.channel, job.account.options)
    digest = content_hash(rendered, settings, job.mode)
    return replace(
        job,
        issue=issue,
        rendered=rendered,
        settings=settings,
        content_hash=digest,
        links=tuple(filled),
    )


def describe_links(job: Job) -> str:
    """How ``--dry-run`` shows a post's references: from the ledger, or waiting."""
    parts = []
    for found in job.links:
        target = f"{found.target.channel}:{found.target.account}"
        if found.url:
            parts.append(f"{found.reference.field} {found.reference.text} = {found.url} (ledger)")
        else:
            parts.append(
                f"{found.reference.field} {found.reference.text} not resolved yet: "
                f"{target} is published first in this run"
            )
    return "; ".join(parts)
