"""Approval: an account with ``require_approval = true`` publishes or broadcasts only
content a person approved (``crosspost approve``, see :mod:`crosspost.publish.review`).

The approval is a ledger note bound to the post's content hash, so any edit after it
voids it (the hash changes). A post without one is drafted (a reviewer needs the draft)
and waits: one line, exit 0, and a notice.
"""

from __future__ import annotations

from dataclasses import replace

from crosspost.ledger.store import Ledger, PostRecord
from crosspost.publish.jobs import Job

#: The ledger note of an approval (its data: the approved content hash).
APPROVED = "approved"
#: The ledger note that a post began to wait for approval (said once per content).
WAITING = "waiting for approval"


def requires_approval(job: Job) -> bool:
    """Whether this job must wait for an approval before it publishes or broadcasts."""
    return bool(job.account.options.get("require_approval")) and job.mode != "draft"


def is_approved(ledger: Ledger, job: Job) -> bool:
    """True when this very content (its hash) was approved for this post."""
    return any(
        event.summary == APPROVED and event.data.get("content_hash") == job.content_hash
        for event in ledger.events(job.key)
    )


def waits_for_approval(ledger: Ledger, record: PostRecord) -> bool:
    """Whether ``record``'s draft is held for an approval it lacks: a run drafted it and
    began to wait (a :data:`WAITING` note for the draft's content) and no approval of
    that content was given since. ``status`` says so instead of "drafted": the editor
    must act, and the draft's preview link is no place to look for the post."""
    if record.state != "draft_created" or record.pending_step or not record.content_hash:
        return False
    notes = {
        event.summary
        for event in ledger.events(record.key)
        if event.data.get("content_hash") == record.content_hash
    }
    return WAITING in notes and APPROVED not in notes


def waiting_line(job: Job, ledger: Ledger | None = None) -> str:
    """What an editor does for a post that waits for approval; with the ``ledger``, also
    that an approval given before was voided by an edit (the editor approved, then fixed a
    typo, and wonders why nothing went out)."""
    path = str(job.issue.path)
    review = job.account.command("review", path, "--to", "WECHAT_ID")
    voided = ledger is not None and any(
        event.summary == APPROVED for event in ledger.events(job.key)
    )
    why = "the issue changed after it was approved, which voids the approval; " if voided else ""
    return (
        f"waiting for approval: {why}send it to reviewers with '{review}', then "
        f"'{job.account.command('approve', path)}' (an edit after approving voids it)"
    )


def held_for_approval(ledger: Ledger, job: Job) -> Job:
    """``job`` as a draft that waits, when its account requires an approval it lacks."""
    if not requires_approval(job) or is_approved(ledger, job):
        return job
    return replace(job, mode="draft", awaits_approval=job.mode)
