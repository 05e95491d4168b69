"""The same issue under another id: refused before anything is sent, never posted twice.

An issue without ``id:`` is keyed by its file's name, so a file renamed after publishing
(``2026-11-30-weekly.md`` → ``weekly-50.md``), or an ``id:`` edited, is a key the ledger
has never seen. Nothing else would stop the next run: adoption on the platform
(:meth:`~crosspost.publish.machine.PostMachine._adopt`) rightly leaves alone the
articles the ledger holds for other ids, so Zhihu got a second article and WeChat a
second row for the same one.

So the plan looks, for each post that has nothing on its platform yet, at the posts of
the same account under other ids (one indexed query, :meth:`Ledger.posts_like`). The
same issue is:

- a post of **the same content** (the hash of all it sends), wherever it was recorded
  from: a second file with the same words is the same post again;
- a post of **the same title** recorded from this very file (its ``id:`` changed) or from
  a file that is gone, when this one has no ``id:`` (renamed, and maybe edited since). A
  title shared with an issue whose file is still there is another issue (a newsletter
  that keeps one title, a file copied as a template), and so is a new file whose
  ``id:`` the editor wrote: it goes out.

A match stops the run (exit 2, nothing sent anywhere) with one line naming the earlier
id and how it stands, and what to do: ``id: <earlier id>`` when it is the same issue
(nothing is sent again), ``--new-post`` when it really is a new post.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from crosspost.errors import IssueError
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.publish.jobs import Job
from crosspost.publish.words import state_word

#: The flag that publishes such an issue all the same (``publish --new-post``).
NEW_POST_FLAG = "--new-post"


@dataclass(frozen=True)
class Earlier:
    """A job's issue, found in the ledger under another id."""

    job: Job
    record: PostRecord
    #: What they share: "content" or "title".
    same: str


def earlier_post(ledger: Ledger, job: Job) -> Earlier | None:
    """The post of ``job``'s account that is ``job``'s issue under another id, or None."""
    like = ledger.posts_like(job.key, content_hash=job.content_hash, title=job.rendered.title)
    made = [record for record in like if record.reached_platform]
    for record in made:
        if record.content_hash == job.content_hash:
            return Earlier(job, record, "content")
    here = str(Path(job.issue.path).resolve())
    named = job.issue.line_of("id") is not None
    for record in made:
        if _left_for(record, here, named):
            return Earlier(job, record, "title")
    return None


def _left_for(record: PostRecord, here: str, named: bool) -> bool:
    """Whether the earlier post's file is this one (its ``id:`` changed) or is gone (a
    file renamed, which took its id from its name): not another file still there
    (another issue with the same title), nor a new file whose ``id:`` the editor wrote
    (``named``: a newsletter that keeps one title and deletes its old files names each
    issue). A post with no file recorded counts as gone: doubt refuses, a person can say
    ``--new-post``."""
    path = record.issue_path
    if path == here:
        return True
    return not named and (path is None or not Path(path).exists())


def refusal(found: Sequence[Earlier]) -> IssueError:
    """The one line for the first issue found under another id (every account of it
    that knows the same earlier id is named)."""
    first = found[0]
    job, earlier_id = first.job, first.record.issue_id
    same = [
        f for f in found if f.job.issue.path == job.issue.path and f.record.issue_id == earlier_id
    ]
    standing = "; ".join(f"{f.job.account.key} {_standing(f.record)}" for f in same)
    source = first.record.issue_path
    here = str(Path(job.issue.path).resolve())
    came = f", from {source}" if source and source != here else ""
    line = job.issue.line_of("id")
    command = job.account.command("publish", str(job.issue.path), NEW_POST_FLAG)
    return IssueError(
        job.issue.path,
        f"this issue is already in the ledger as '{earlier_id}' ({standing}; the same "
        f"{first.same}{came}); nothing was sent. If it is the same issue, "
        f"{'set' if line else 'add'} 'id: {earlier_id}' {'in' if line else 'to'} its front "
        f"matter (then nothing is sent again); if it is a new post, publish it with "
        f"'{command}'",
        line,
    )


def _standing(record: PostRecord) -> str:
    word = state_word(record)
    return f"{word} {record.url}" if record.url else word
