"""``crosspost publish --dry-run``: what a run would do for each post, sending nothing.

The plan (phase 1 of the publisher) has already loaded, rendered and linted everything;
this module only reads the ledger and the copy of the body last sent for each post
(kept in ``<state dir>/sent/``), and words the next step and the difference.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from crosspost.channels.registry import adapter_class
from crosspost.config.counts import counted
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.patterns import pattern
from crosspost.publish.broadcast import BROADCAST, quota
from crosspost.publish.delivery import BUTTONS
from crosspost.publish.jobs import Job, PublishOptions
from crosspost.publish.words import state_word

#: Closing tags after which the diff starts a new line (rendered bodies are one line).
_BLOCK_END = pattern(r"(</(?:p|h\d|li|section|pre|table|tr|blockquote|figure)>)")


@dataclass(frozen=True)
class DryRunEntry:
    """One post in a dry run: what would happen, and how the body differs from last time."""

    job: Job
    action: str
    diff: str


def sent_copy(state_dir: Path, job: Job) -> Path:
    """Where the body last sent for a post is kept (rendered, before image upload)."""
    key = job.key
    return Path(state_dir) / "sent" / key.issue_id / f"{key.channel}.{key.account}.html"


def dry_run(
    ledger: Ledger, state_dir: Path, jobs: Sequence[Job], options: PublishOptions
) -> list[DryRunEntry]:
    """The planned action for each job, and a unified diff against the body last sent."""
    entries = []
    for job in jobs:
        copy = sent_copy(state_dir, job)
        last = copy.read_text(encoding="utf-8") if copy.is_file() else ""
        where = f"{job.key.channel}:{job.key.account}"
        diff = "".join(
            difflib.unified_diff(
                _lines(last),
                _lines(job.rendered.body),
                fromfile=f"{where} last sent",
                tofile=f"{where} now",
            )
        )
        action = mass_send_action(job, ledger) or planned_action(job, ledger.get(job.key), options)
        entries.append(DryRunEntry(job, action, diff))
    return entries


def mass_send_action(job: Job, ledger: Ledger) -> str | None:
    """What a run would do for a post sent to the followers (WeChat 群发), quota first;
    None for any other post."""
    if job.mode != BROADCAST or not adapter_class(job.key.channel).broadcasts:
        return None
    record = ledger.get(job.key)
    if record is not None and record.delivery == BROADCAST:
        if record.state == "published":
            return "nothing: already sent to followers (a sent article is never sent again)"
        if record.state == "submitted":
            return f"ask WeChat how mass send {record.publish_id} ended"
    if record is not None and record.pending_step:
        return None  # reconciled first, like any post
    zone = job.issue.publish_at.tzinfo if job.issue.publish_at else None
    refusal = quota(ledger, job.account, job.key, ledger.clock(), zone).refusal
    if refusal:
        return f"nothing: {refusal}"
    companions = f" with {counted(len(job.bundle), 'companion article')}" if job.bundle else ""
    if record is not None and record.draft_id and record.content_hash == job.content_hash:
        return f"send draft {record.draft_id}{companions} to the followers (群发)"
    return f"make the draft{companions}, then send it to the followers (群发)"


def planned_action(job: Job, record: PostRecord | None, options: PublishOptions) -> str:
    """The next step of a post, in the words the run's progress lines would use."""
    action = _next_step(job, record, options)
    if record is not None and record.state == "published":
        # Out already: what stands between a draft and its readers (an approval, a button
        # pressed by hand) is behind it, and a run never waits or hands off for it again.
        return action
    if job.awaits_approval:
        approve = job.account.command("approve", str(job.issue.path))
        lets = f"'{approve}' lets it {job.awaits_approval}"
        if action.startswith("nothing:"):  # the draft stands as it is, and waits
            return f"{action}; it waits for approval ({lets})"
        return f"{action}, then wait for approval ({lets})"
    if job.handoff:
        button = BUTTONS.get(job.handoff, BUTTONS["publish"])
        if action.startswith("nothing:"):
            return f"{action}; the editor presses {button} in 草稿箱 by hand"
        return f"{action}, then hand off: the editor presses {button} in 草稿箱 by hand"
    return action


def _next_step(job: Job, record: PostRecord | None, options: PublishOptions) -> str:
    if record is None:
        return f"create a {job.mode}" if job.mode == "draft" else "create a draft and publish it"
    if record.pending_step:
        return f"reconcile the unconfirmed '{record.pending_step}' first"
    if record.state == "published":
        if record.content_hash == job.content_hash:
            return "nothing: already published, unchanged"
        if not _edits_published(job.key.channel):
            return "nothing: changed since publishing, and this platform cannot edit it"
        if not options.update:
            return "nothing: changed since publishing (pass --update to edit it in place)"
        return "update the published post in place"
    if record.draft_id and record.content_hash != job.content_hash:
        then = "" if job.mode == "draft" else ", then publish it"
        return f"update draft {record.draft_id} in place{then}"
    if record.draft_id:
        return "nothing: the draft is up to date" if job.mode == "draft" else "publish draft"
    if record.state in ("rendered", "assets_uploaded"):  # no draft yet (an approval, images)
        return _next_step(job, None, options)
    return f"resume from '{state_word(record)}'"


def _edits_published(channel: str) -> bool:
    return bool(adapter_class(channel).updates_published)


def _lines(html: str) -> list[str]:
    """Block tags on lines of their own, so a diff of one-line HTML reads like a diff."""
    return [line + "\n" for line in _BLOCK_END.sub(r"\1\n", html).splitlines()]
