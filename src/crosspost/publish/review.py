"""``crosspost review`` and ``crosspost approve``: a person sees the real article, then says go.

``review`` makes (or updates) each post's draft through the normal draft path and sends it
with WeChat's preview (``message/mass/preview``, by WeChat ID) to each reviewer: nothing
reaches followers, and a preview may be sent again (it reaches the reviewer only).
``approve`` writes the approval the publisher asks for (:mod:`crosspost.publish.approval`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from crosspost.channels.base import Adapter
from crosspost.errors import (
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    CrosspostError,
    StorageError,
    TransientError,
    UsageError,
)
from crosspost.ledger.store import Ledger
from crosspost.publish.approval import APPROVED
from crosspost.publish.jobs import Job, PublishOptions, said_after
from crosspost.publish.runner import Publisher
from crosspost.publish.words import result_word


@dataclass(frozen=True)
class Reviewed:
    """One line of ``crosspost review`` or ``approve``: a post, what happened, the exit code."""

    account: str
    issue_id: str
    message: str
    exit_code: int = EXIT_OK


@dataclass(frozen=True)
class Reviews:
    """What ``review`` or ``approve`` did: a line per post (or preview), and the trouble
    with this machine's own files that stopped the run after a draft went out, said below
    the lines (:func:`~crosspost.publish.jobs.said_after`)."""

    lines: tuple[Reviewed, ...]
    trouble: StorageError | None = None

    @property
    def exit_codes(self) -> tuple[int, ...]:
        """Every line's exit code, and the trouble's (the run's, as it was said)."""
        trouble = (self.trouble.exit_code,) if self.trouble is not None else ()
        return (*(line.exit_code for line in self.lines), *trouble)


def _jobs(publisher: Publisher, paths: Sequence[Path], targets: Sequence[str]) -> list[Job]:
    """The posts of the issues on the accounts named (review: WeChat's by default)."""
    return publisher.plan(paths, PublishOptions(targets=tuple(targets), mode="draft"))


def review(
    publisher: Publisher,
    paths: Sequence[Path],
    reviewers: Sequence[str],
    targets: Sequence[str] = (),
) -> Reviews:
    """Make each post's draft (the normal draft path), then preview it to each reviewer.

    Trouble with this machine's own files (a full disk, a state dir that takes no new
    file) stops the previews: raised when no draft went out, else each post's line says
    where it stopped and the trouble is said below them, as ``publish`` says it."""
    if not reviewers:
        raise UsageError("name at least one reviewer's WeChat ID with --to")
    blank = [repr(name) for name in reviewers if not name.strip()]
    if blank:  # WeChat would refuse it (40097) only after the draft went out
        raise UsageError(f"--to {blank[0]}: a reviewer's WeChat ID (微信号) cannot be empty")
    if any(target.partition(":")[0] != "wechat" for target in targets):
        raise UsageError(
            "review sends WeChat previews: name WeChat accounts only (-c wechat[:NAME])"
        )
    jobs = _jobs(publisher, paths, targets or ("wechat",))
    report = publisher.run(jobs, PublishOptions(mode="draft"))
    command = publisher.settings.command
    # This machine's own files: raised now if nothing went out; else no preview goes out
    # after it, and it is said below the lines of what did.
    trouble = said_after(report.results, report.trouble, report.exit_code, command)
    lines: list[Reviewed] = []
    ledger = publisher.ledger
    for job, result in zip(jobs, report.results, strict=True):
        account, issue_id = job.account.key, job.issue.id
        record = ledger.get(job.key)
        if (
            trouble is not None
            or record is None
            or record.state != "draft_created"
            or not record.draft_id
        ):
            word = result_word(result, record)  # the words status shows
            why = f"{word}: {result.message}" if result.message else word
            code = result.exit_code or EXIT_OK
            missing = "no preview sent" if trouble is not None else "no draft to preview"
            lines.append(Reviewed(account, issue_id, f"{missing} ({why})", code))
            continue
        adapter = publisher.adapter_for(job.account)
        try:
            for reviewer in reviewers:
                lines.append(_preview(ledger, job, adapter, record.draft_id, reviewer))
        finally:
            adapter.http.close()
    return Reviews(tuple(lines), trouble)


def _preview(ledger: Ledger, job: Job, adapter: Adapter, draft_id: str, reviewer: str) -> Reviewed:
    account, issue_id = job.account.key, job.issue.id
    try:
        adapter.preview(draft_id, reviewer)
    except TransientError as error:
        message = (
            f"the preview to {reviewer} may not have arrived ({error}); run review again: "
            "another preview reaches only the reviewer"
        )
        ledger.note(job.key, "review", f"preview to {reviewer} in doubt: {error}")
        return Reviewed(account, issue_id, message, error.exit_code)
    except CrosspostError as error:
        ledger.note(job.key, "review", f"preview to {reviewer} refused: {error}")
        return Reviewed(
            account, issue_id, f"preview to {reviewer} refused: {error}", EXIT_CHANNEL_FAILED
        )
    ledger.note(job.key, "review", f"preview of draft {draft_id} sent to {reviewer}")
    return Reviewed(
        account,
        issue_id,
        f"draft {draft_id} sent to {reviewer}'s WeChat for review (followers get nothing)",
    )


def approve(publisher: Publisher, paths: Sequence[Path], targets: Sequence[str] = ()) -> Reviews:
    """Record an approval of each post's content as it is now."""
    lines = []
    for job in _jobs(publisher, paths, targets):
        ledger = publisher.ledger
        job.ensured(ledger)
        ledger.note(job.key, "approve", APPROVED, {"content_hash": job.content_hash})
        lines.append(
            Reviewed(
                job.account.key,
                job.issue.id,
                f"approved as it is now (content {job.content_hash[:12]}); "
                "publish and run-due may send it, an edit voids the approval",
            )
        )
    return Reviews(tuple(lines))
