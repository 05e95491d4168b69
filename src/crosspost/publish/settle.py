"""Settling doubt: ask the platform what happened to an irreversible call, write the answer.

The one rule for doubt: an open intent in the ledger means *unconfirmed*. Only the
platform can close it, through the adapter's ``reconcile(step, intent)``; this module
turns its answer into ledger state. Used by a run that finds an open intent (before it
does anything else), by a run whose call just lost its answer, and by
``crosspost reconcile``. Both also share what lives here besides: the lock a post is
made or reconciled under, and the account's adapter.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from crosspost.channels.base import (
    STEP_BROADCAST,
    STEP_DRAFT,
    STEP_PUBLISH,
    Adapter,
    Intent,
    PublicationRefused,
    PublishTicket,
    Reconciliation,
    RunMemo,
)
from crosspost.channels.http.policy import (
    SPARE_CONNECTIONS,
    HttpPolicy,
    Timeouts,
    pooled_session,
)
from crosspost.channels.registry import adapter_class
from crosspost.config.redaction import Redactor
from crosspost.config.settings import Account, Settings
from crosspost.errors import (
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    EXIT_TEMPORARY,
    EXIT_UNCONFIRMED,
    ChannelError,
    StorageError,
    TransientError,
    UnconfirmedError,
    UsageError,
)
from crosspost.ledger.store import Ledger, PostKey, PostRecord
from crosspost.publish.broadcast import BROADCAST, Sender, sent_message
from crosspost.publish.failures import record_refusal
from crosspost.publish.jobs import PostResult
from crosspost.publish.urls import pending_message, published_summary, url_pending


def settle(
    ledger: Ledger,
    adapter: Adapter,
    record: PostRecord,
    progress: Callable[[str], None],
    *,
    sleep: Callable[[float], None] | None = None,
) -> Reconciliation:
    """Ask the platform about a post's open intent, write the answer and return it
    (``happened`` True: it took effect; False: it did not, or, not ``confirmed``, doing it
    again is safe).

    A create the platform may still be committing (within its settle window, see
    :attr:`~crosspost.platforms.base.Platform.settle_seconds`) is not settled by a first
    "not there": given ``sleep``, this waits for the rest of the window and asks again.
    Raises :class:`UnconfirmedError` (the intent stays open) when the platform cannot
    tell yet.
    """
    step = record.pending_step or ""
    if step == STEP_BROADCAST:  # the platform dedupes a send id: replaying it settles it
        sender = Sender(
            ledger,
            adapter,
            record.key,
            progress=progress,
            sleep=sleep or adapter.sleep,
            clock=adapter.clock,
        )
        return Reconciliation(happened=sender.settle_intent(record))
    data = dict(record.pending_intent or {})
    names = {f.name for f in dataclasses.fields(Intent)}
    values = {k: v for k, v in data.items() if k in names}
    values["known_ids"] = tuple(values.get("known_ids") or ())
    if step == STEP_DRAFT:  # the drafts of the account's other posts are not the one in doubt
        others = ledger.draft_ids(record.channel, record.account, excluding=record.key)
        values["known_ids"] = tuple(dict.fromkeys((*values["known_ids"], *others)))
    intent = Intent(**values)
    answer = adapter.reconcile(step, intent)
    progress(f"reconciled '{step}': {answer.detail or answer.happened}")
    left = intent.started_at + adapter.platform.settle_seconds - adapter.clock()
    if answer.happened is None and step == STEP_DRAFT and sleep is not None and left > 0:
        progress(f"waiting {left:.0f} s for {adapter.display_name} to settle, then asking again")
        sleep(left)
        answer = adapter.reconcile(step, intent)
        progress(f"reconciled '{step}': {answer.detail or answer.happened}")
    if answer.happened is None:
        detail = f" ({answer.detail})" if answer.detail else ""
        raise UnconfirmedError(
            f"{adapter.display_name} cannot tell yet whether '{step}' took effect{detail}; "
            f"run '{adapter.account.command('reconcile', record.issue_id)}' later",
            channel=record.channel,
        )
    sent_hash = data.get("content_hash")
    summary = answer.detail or ("found it" if answer.happened else "it did not happen")
    if not answer.happened:
        back = "draft_created" if step == STEP_PUBLISH else _before_draft(record)
        ledger.finish_step(record.key, step, outcome="not-happened", state=back, summary=summary)
        return answer
    changes: dict[str, Any]
    if step == STEP_DRAFT:
        changes = {
            "state": "draft_created",
            "draft_id": answer.remote_id,
            "url": answer.url,
            "content_hash": sent_hash,
        }
    elif answer.url or not answer.remote_id or answer.url_pending:
        # Published. Without a URL or an id (WeChat: the draft left 草稿箱 and no list
        # shows the article) it is published all the same: submitting again could only
        # make a second post, so the ledger says published and the event says where to look.
        changes = {
            "state": "published",
            "article_id": answer.remote_id,
            "url": answer.url,
            "content_hash": sent_hash,
        }
    else:
        changes = {"state": "submitted", "publish_id": answer.remote_id}
    ledger.finish_step(record.key, step, outcome="reconciled", summary=summary, **changes)
    return answer


def reconcile_post(
    ledger: Ledger, record: PostRecord, adapter: Adapter, progress: Callable[[str], None]
) -> PostResult:
    """``crosspost reconcile``: settle an open intent, and ask once more about a submission."""
    key = record.key
    try:
        record = reopen_intent(ledger, record)
        if record.pending_step:
            settle(ledger, adapter, record, progress, sleep=adapter.sleep)
        current = ledger.get(key) or record
        if current.delivery == BROADCAST and current.state == "submitted":
            sender = Sender(
                ledger, adapter, key, progress=progress, sleep=adapter.sleep, clock=adapter.clock
            )
            sender.follow()
        elif current.state == "submitted" and current.publish_id and current.draft_id:
            ticket = PublishTicket(current.publish_id, current.draft_id, current.updated_at)
            post = adapter.poll(ticket)
            if post is not None:
                ledger.finish_step(
                    key,
                    "poll",
                    state="published",
                    article_id=post.id,
                    url=post.url,
                    summary=published_summary(post),
                )
        current = ledger.get(key) or current
    except UnconfirmedError as error:
        return PostResult(key, "unconfirmed", None, str(error), EXIT_UNCONFIRMED)
    except PublicationRefused as refused:  # the platform's final no: written down once
        outcome = record_refusal(ledger, key, refused)
        return PostResult(key, outcome.state, outcome.url, outcome.message, outcome.exit_code)
    except TransientError as error:
        return PostResult(
            key, record.state, record.url, f"{error} (try again later)", EXIT_TEMPORARY
        )
    except ChannelError as error:
        return PostResult(key, record.state, record.url, str(error), EXIT_CHANNEL_FAILED)
    finally:
        adapter.http.close()
    code = EXIT_UNCONFIRMED if current.state == "unconfirmed" else EXIT_OK
    rehearsal = adapter.account.rehearsal
    pending = pending_message(current, rehearsal=rehearsal) if url_pending(current) else ""
    message = current.error_message or pending
    if current.delivery == BROADCAST and current.state == "published":
        message = sent_message(current, rehearsal=rehearsal)
    return PostResult(key, current.state, current.url, message, code)


def reopen_intent(ledger: Ledger, record: PostRecord) -> PostRecord:
    """An ``unconfirmed`` post whose intent was closed (an older run gave up after
    asking too early) gets its last intent back, so it is settled by asking, never by
    creating again. Without any intent there is nothing to doubt: back to its last step.
    """
    if record.state != "unconfirmed" or record.pending_step:
        return record
    intents = [e for e in ledger.events(record.key) if e.kind == "intent"]
    if intents:
        last = intents[-1]
        ledger.begin(last.step, record.key, dict(last.data))
        return ledger.get(record.key) or record
    state = "draft_created" if record.draft_id else "assets_uploaded"
    return ledger.finish_step(
        record.key, "reconcile", outcome="nothing-in-doubt", state=state, summary="no intent"
    )


def forget_draft(ledger: Ledger, key: PostKey, outcome: str, summary: str) -> PostRecord:
    """Drop a post's recorded draft (gone from the platform), so the next step makes one."""
    return ledger.finish_step(
        key,
        STEP_DRAFT,
        outcome=outcome,
        state="assets_uploaded",
        draft_id=None,
        url=None,
        content_hash=None,
        summary=summary,
    )


def reconcile_issue(
    settings: Settings,
    ledger: Ledger,
    issue_id: str,
    *,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    progress: Callable[[str], None],
    lock_timeout: float,
) -> tuple[PostResult, ...]:
    """``crosspost reconcile``: settle every open question about an issue's posts.

    Only posts in doubt (an open intent, unconfirmed, or submitted without a URL yet)
    are asked about, each under the same lock a publishing run takes, so a reconcile
    never second-guesses a call that is still in flight. The others are reported as
    they stand, even when their account is no longer configured.
    """
    posts = ledger.posts(issue_id)
    if not posts:
        raise UsageError(
            f"the ledger {ledger.path} has no posts of issue '{issue_id}'; "
            f"'{settings.command('status')}' lists the issues it knows"
        )
    doubtful = [p for p in posts if _in_doubt(p)]
    accounts = {p.key: settings.account(f"{p.channel}:{p.account}") for p in doubtful}
    settings.require_credentials(accounts.values())
    results = []
    for record in posts:
        if record.key not in accounts:
            results.append(PostResult(record.key, record.state, record.url, "nothing in doubt"))
            continue
        lock = post_lock(settings.state_dir, record.key, timeout=lock_timeout, ledger=ledger)
        try:
            with lock:
                current = ledger.get(record.key) or record
                adapter = build_adapter(
                    accounts[record.key],
                    settings.state_dir,
                    timeout=settings.timeout,
                    clock=clock,
                    sleep=sleep,
                    redactor=run_redactor(ledger),
                )
                results.append(reconcile_post(ledger, current, adapter, progress))
        except Timeout:
            message = "another crosspost run is publishing this post; run again later"
            results.append(
                PostResult(record.key, record.state, record.url, message, EXIT_TEMPORARY)
            )
    return tuple(results)


def _in_doubt(record: PostRecord) -> bool:
    """Whether only the platform can say how a post stands (see ``crosspost reconcile``)."""
    return bool(record.pending_step) or record.state in ("unconfirmed", "submitted")


def post_lock(
    state_dir: Path, key: PostKey, *, timeout: float, ledger: Ledger | None = None
) -> AbstractContextManager[Any]:
    """The lock one post is made (or reconciled) under, shared by every process.

    A file lock in the state dir, or, when ``ledger`` is shared by several machines
    (PostgreSQL), its advisory lock, so two hosts never make the same post at once. Both
    raise :class:`filelock.Timeout` when another run keeps the post past ``timeout``.
    """
    if ledger is not None:
        shared = ledger.shared_lock(
            f"post:{key.issue_id}\x00{key.channel}\x00{key.account}", timeout=timeout
        )
        if shared is not None:
            return shared
    full = f"{key.issue_id}.{key.channel}.{key.account}"
    # A readable name, made unique by a hash of the real key: two CJK ids of one length
    # would otherwise share a file and wait for each other.
    readable = re.sub(r"[^A-Za-z0-9._-]", "_", full)[:80]
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:12]
    return _file_lock(Path(state_dir) / "locks" / f"{readable}.{digest}.lock", timeout)


@contextlib.contextmanager
def _file_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock file ``path``. A file this user cannot open (one a ``sudo crosspost``
    run left, a state dir that takes no new file) is a :class:`StorageError`, which the
    post reports as this machine's trouble, beside the other posts' lines: as an OSError
    it ended the whole run, and the lines of the posts already sent were never said."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(path), timeout=timeout)
        lock.acquire()
    except Timeout:  # an OSError too (TimeoutError): another run holds the post
        raise
    except OSError as error:
        raise StorageError.from_os_error(error, path, "a post's lock file") from None
    try:
        yield
    finally:
        lock.release()


def build_adapter(
    account: Account,
    state_dir: Path,
    *,
    timeout: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    redactor: Redactor | None = None,
    memo: RunMemo | None = None,
) -> Adapter:
    """The account's adapter with its own HTTP policy (one session per account).

    ``redactor`` is the run's: tokens the adapter fetches are registered there, so the
    ledger and the log hide them too, not only the HTTP policy's own messages.
    """
    # An answer may take ten waits in all: an upload over a slow line, never a trickle.
    timeouts = Timeouts(connect=min(10.0, timeout), read=timeout, whole=10 * timeout)
    cls = adapter_class(account.channel)
    # A connection for every upload of a wave, and a few for the calls beside it.
    session = pooled_session(
        cls.uploads_at_once(account) + SPARE_CONNECTIONS, direct=account.rehearsal
    )
    http = HttpPolicy(
        session=session,
        timeouts=timeouts,
        sleep=sleep,
        redactor=redactor or Redactor(),
        base_url=account.base_url,
    )
    return cls(account, http=http, state_dir=state_dir, clock=clock, sleep=sleep, memo=memo)


def run_redactor(ledger: Ledger) -> Redactor | None:
    """The redactor the ledger was opened with, when it is one (the run's shared one)."""
    return ledger.redact if isinstance(ledger.redact, Redactor) else None


def _before_draft(record: PostRecord) -> str:
    return "rendered" if record.state == "rendered" else "assets_uploaded"
