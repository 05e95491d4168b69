"""How a failed post is written down, and when a permanent failure may be tried again.

Every error of a post's run ends here, sorted by what the editor (or cron) should do:

* an open intent in the ledger means *unconfirmed*, whatever the error: only the
  platform can say what happened (exit 3, ``crosspost reconcile``);
* a post that is already published stays published with its URL (a failed update);
* a temporary failure gets a time before which the scheduler will not retry (exit 75);
* a permanent one is recorded with a fingerprint of the attempt, and stands until the
  issue or the account's config changes (or ``--retry-failed``): cron must not send the
  same refused post every few minutes;
* a submission the platform ended with a final no (:class:`PublicationRefused`) is
  failed for good: it is never polled again, and it stands until the editor acts (see
  :func:`final_refusal`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from crosspost.channels.base import STEP_POLL, ManualPublishRequired, PublicationRefused
from crosspost.errors import (
    EXIT_CHANNEL_FAILED,
    EXIT_TEMPORARY,
    EXIT_UNCONFIRMED,
    CrosspostError,
    Interrupted,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)
from crosspost.ledger.store import Ledger, PostKey, PostRecord
from crosspost.publish.jobs import Job

#: The ledger note that remembers what a permanently failed attempt looked like.
ATTEMPT_NOTE = "attempt-fingerprint"
#: The ledger note that a submission was refused for good (what :func:`final_refusal` reads).
REFUSED_NOTE = "publication refused"
#: Spacing of retries across runs after a temporary failure: 5 min, doubling, ≤ 6 h.
RETRY_BASE_SECONDS = 300.0
RETRY_MAX_SECONDS = 6 * 3600.0


@dataclass(frozen=True)
class Refusal:
    """The platform's final no to a post's last submission, as the ledger keeps it."""

    publish_id: str
    #: Published, then taken down: publishing anew takes --new-draft.
    removed: bool
    #: What the refused draft held (the issue's content hash then).
    content_hash: str | None


@dataclass(frozen=True)
class Outcome:
    """How the post stands after the failure, in words for the editor and a code for cron."""

    state: str
    url: str | None
    message: str
    exit_code: int


def retry_delay(attempts: int) -> float:
    """How long the scheduler waits before trying a temporarily failed post again."""
    return float(min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** max(0, attempts - 1)))


def wait_end(record: PostRecord, now: float) -> float | None:
    """When a post waiting after a temporary failure may be tried again: its
    ``next_attempt_at``, or None when it is not waiting.

    The wait was set with the post's ``updated_at`` (one transaction, one clock), so its
    own length is the difference. A clock stepped back since (NTP correcting it between
    two ticks) reads earlier than ``updated_at``, and ``next_attempt_at`` is then further
    off than the whole wait: a 50-minute step turned a 20-minute wait into 70. Such a
    wait ends at most its own length from ``now``. Never earlier than asked in real time:
    the clock went back by more than the time that passed, so at least the whole wait has
    still to pass. Only a wait the clock stretched is shortened (a post written to since
    the failure, on a clock that did not go back, keeps its time), and only what is safe
    to try again waits at all: a post with an intent in doubt is reconciled, never retried.
    """
    if record.next_attempt_at is None or record.pending_step or record.is_published:
        return None
    length = record.next_attempt_at - record.updated_at
    if now >= record.updated_at or length <= 0:
        return record.next_attempt_at
    return min(record.next_attempt_at, now + length)


def fingerprint(job: Job) -> str:
    """What an attempt depended on: the content sent, the account (server, options and
    credentials: a fixed AppSecret in ``.env`` counts as a change), the mode."""
    blob = f"{job.content_hash}|{job.account.fingerprint()}|{job.mode}"
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def same_attempt(ledger: Ledger, job: Job) -> bool:
    """True when the last permanent failure was this very attempt (nothing changed since)."""
    notes = [e for e in ledger.events(job.key) if e.summary == ATTEMPT_NOTE]
    return bool(notes) and notes[-1].data.get("fingerprint") == fingerprint(job)


def record_failure(
    ledger: Ledger, job: Job, error: CrosspostError, clock: Callable[[], float]
) -> Outcome:
    """Write the failure to the ledger (redacted there) and say how the post stands."""
    key = job.key
    record = ledger.get(key)
    assert record is not None, "the post's row exists once its run has started"
    if record.state == "published" and not record.pending_step:
        # An update that failed leaves the post as it was: still published, same URL.
        ledger.note(key, "update", f"update failed: {error}")
        message = f"{error} (the published post stays as it was)"
        return Outcome("published", record.url, message, error.exit_code)
    if isinstance(error, Interrupted) and not record.pending_step:
        # Stopped between steps: the row keeps how far the post got (a draft stays a
        # draft, a submission stays submitted, not a failure), and the next run goes on
        # from there at once: no retry delay, as nothing went wrong.
        ledger.note(key, "interrupted", str(error))
        message = str(error)
        if record.state == "submitted" and record.publish_id:
            message += f" (submitted as {record.publish_id}; the next run records the URL)"
        return Outcome("pending", record.url, message, EXIT_TEMPORARY)
    if isinstance(error, PublicationRefused) and not record.pending_step:
        return record_refusal(ledger, key, error)
    if record.state == "submitted" and record.publish_id and not record.pending_step:
        # Submitted, then the poll failed: the submission stands, and the next run polls
        # it again (never submits again: the draft may already have left 草稿箱).
        later = clock() + retry_delay(record.attempts + 1)
        code = getattr(error, "code", None)
        ledger.record(
            key,
            error_code=None if code is None else str(code),
            error_message=str(error),
            next_attempt_at=later,
            attempts=record.attempts + 1,
        )
        ledger.note(key, "poll", f"poll failed: {error}")
        message = f"{error} (submitted as {record.publish_id}; run again to record the URL)"
        exit_code = EXIT_TEMPORARY if isinstance(error, TransientError) else error.exit_code
        return Outcome("pending", None, message, exit_code)
    if record.pending_step and not isinstance(error, UnconfirmedError):
        error = UnconfirmedError(
            f"could not confirm '{record.pending_step}' on {key.channel} ({error})",
            channel=key.channel,
        )
    if isinstance(error, UnconfirmedError):
        ledger.fail(key, error, permanent=False)
        message = str(error)
        if "crosspost reconcile" not in message:
            message += f"; run '{job.account.command('reconcile', key.issue_id)}' or publish again"
        return Outcome("unconfirmed", None, message, EXIT_UNCONFIRMED)
    if isinstance(error, TransientError):
        delay = retry_delay(record.attempts + 1)
        if isinstance(error, RateLimitedError) and error.retry_after:
            delay = max(delay, error.retry_after)
        ledger.fail(key, error, permanent=False, next_attempt_at=clock() + delay)
        return Outcome("failed", None, f"{error} (temporary: safe to run again)", EXIT_TEMPORARY)
    ledger.fail(key, error, permanent=True)
    ledger.note(key, "fail", ATTEMPT_NOTE, {"fingerprint": fingerprint(job)})
    if isinstance(error, ManualPublishRequired):
        return Outcome("drafted", error.draft.url, str(error), error.exit_code)
    return Outcome("failed", None, str(error), error.exit_code)


def record_refusal(ledger: Ledger, key: PostKey, error: PublicationRefused) -> Outcome:
    """Write that the platform ended a submission with a final no: the post is failed
    for good (``crosspost status`` shows it failed, with the platform's reason), and no
    run polls that submission again. Shared by a publishing run and ``crosspost
    reconcile``, which may be the one that hears it."""
    record = ledger.get(key)
    assert record is not None, "a refused submission belongs to a post in the ledger"
    data = {
        "publish_id": error.ticket_id,
        "removed": error.removed,
        "code": None if error.code is None else str(error.code),
        "content_hash": record.content_hash,
    }
    # One write: a run stopped between the two would leave a failure with no refusal
    # on record, and the next tick would submit the refused draft without the editor.
    with ledger.transaction():
        ledger.fail(key, error, permanent=True, step=STEP_POLL)
        ledger.note(key, STEP_POLL, REFUSED_NOTE, data)
    return Outcome("failed", None, str(error), EXIT_CHANNEL_FAILED)


def final_refusal(ledger: Ledger, record: PostRecord) -> Refusal | None:
    """The refusal the post stands on: its last submission was refused for good, and
    nothing was tried since (the row still fails with that refusal's code); else None."""
    if record.state != "failed" or not record.error_permanent or not record.publish_id:
        return None
    for event in reversed(ledger.events(record.key)):
        if event.summary != REFUSED_NOTE:
            continue
        data = event.data
        if data.get("publish_id") != record.publish_id or data.get("code") != record.error_code:
            return None
        sent = data.get("content_hash")
        removed = bool(data.get("removed"))
        return Refusal(record.publish_id, removed, sent if isinstance(sent, str) else None)
    return None
