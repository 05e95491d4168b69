"""One post's state machine: rendered → assets uploaded → draft created → submitted → published.

A post is done when every part of it is on the platform (content, cover, comment settings,
topics, column): the parts a draft carries are noted with it, a draft made but not filled
in is filled again before it can be published, and parts filed after publication (a Zhihu
column) are done right after, or by the next run, which publishes nothing again. Before
the first draft of a post the ledger does not know, the platform is asked whether the
issue's article is already there (a lost state dir, another machine); if so it is adopted.

Every irreversible call (creating a draft, submitting it) is framed the same way: the
intent goes into the ledger first, the result right after. When the platform's answer
is lost (``UnconfirmedError``), the machine asks the platform what happened
(``adapter.reconcile``) before it does anything else; a call is repeated only when the
platform says it did not happen. A run killed between intent and result leaves the
intent behind, and the next run starts by reconciling it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import tzinfo
from pathlib import Path
from typing import Any

from filelock import Timeout

from crosspost.channels.base import (
    PART_CONTENT,
    PART_COVER,
    PART_SETTINGS,
    PART_TOPICS,
    STEP_BROADCAST,
    STEP_DRAFT,
    STEP_HANDOFF,
    STEP_POLL,
    STEP_PUBLISH,
    STEP_UPDATE,
    Adapter,
    DraftContent,
    DraftLeftBehind,
    Intent,
    ManualPublishRequired,
    PartLeftToEditor,
    PublishTicket,
    Reconciliation,
    RemoteDraft,
    RemotePost,
    RunMemo,
)
from crosspost.config.accounts import MEMBER
from crosspost.config.files import write_atomic
from crosspost.config.settings import Account
from crosspost.errors import (
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    EXIT_TEMPORARY,
    EXIT_UNCONFIRMED,
    CrosspostError,
    Interrupted,
    PermanentError,
    StorageError,
    TransientError,
    UnconfirmedError,
)
from crosspost.images.sources import ImageSources
from crosspost.ledger.store import Ledger, PostKey, PostRecord
from crosspost.publish.approval import WAITING, waiting_line
from crosspost.publish.assets import PostAssets
from crosspost.publish.broadcast import (
    BROADCAST,
    Sender,
    quota,
    sent_message,
    source_version,
    target_of,
    url_command,
)
from crosspost.publish.delivery import (
    BUTTONS,
    KindMemory,
    contradiction,
    handed_off_note,
    handoff_line,
    needs_probe,
    probed,
    remembered_line,
)
from crosspost.publish.dry_run import sent_copy
from crosspost.publish.failures import Refusal, final_refusal, record_failure, same_attempt
from crosspost.publish.jobs import Job, PostResult, Progress, PublishOptions
from crosspost.publish.parts import mark_left_to_editor, mark_parts, missing_parts
from crosspost.publish.same_issue import OtherNameRefused, before_first_create, login_refusal
from crosspost.publish.settle import (
    build_adapter,
    forget_draft,
    post_lock,
    reopen_intent,
    run_redactor,
    settle,
)
from crosspost.publish.stopping import FILL_DRAFT, UPDATE_DRAFT, RunStop
from crosspost.publish.urls import (
    STEP_BUNDLE,
    CompanionUrl,
    ask_again,
    companion_of,
    companion_urls,
    pending_message,
    published_summary,
    url_pending,
)

#: Channel options that are a post's comment settings (a part of their own).
SETTINGS_OPTIONS = ("need_open_comment", "only_fans_can_comment", "comment_permission")

#: The ledger note that an edit of a post its platform cannot edit was reported.
EDIT_REFUSED = "edit-not-possible"
#: The trail's note that a post's draft was handed to the editor to send by hand.
HANDED_OFF = "handed off to the editor"

#: Where a run can be told (and a test can kill it): the boundaries around the two
#: irreversible calls and the poll. A checkpoint is called with one of these names.
CHECKPOINTS = ("before-draft", "after-draft", "before-publish", "after-publish", "before-poll")
#: The boundaries of a mass send (群发), for ``mode: broadcast``.
BROADCAST_CHECKPOINTS = ("before-draft", "after-draft", "before-broadcast", "after-broadcast")

Checkpoint = Callable[[str], None]


def no_checkpoint(name: str) -> None:
    """The production checkpoint: nothing happens at a boundary."""


class PostMachine:
    """Drives one :class:`~crosspost.publish.jobs.Job` to its end, resumable at every step."""

    def __init__(
        self,
        job: Job,
        *,
        ledger: Ledger,
        state_dir: Path,
        timeout: float,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        progress: Progress,
        lock_timeout: float,
        checkpoint: Checkpoint = no_checkpoint,
        memo: RunMemo | None = None,
        images: ImageSources | None = None,
        stop: RunStop | None = None,
        accounts: Sequence[Account] = (),
        config: str = "the config",
    ) -> None:
        self.job = job
        #: The config's accounts of the job's channel, and the config file as messages
        #: name it: whether another name of the same platform account is still there.
        self.accounts = tuple(accounts)
        self.config = config
        #: The run's stop flag (Ctrl-C, SIGTERM): looked at before each step goes out.
        self.stop = stop or RunStop()
        #: Where the post's images may be read from (the run's, shared with its check).
        self.images = images
        self.key = job.key
        self.ledger = ledger
        self.state_dir = Path(state_dir)
        self.timeout = timeout
        self.clock = clock
        self.sleep = self.stop.pausing(sleep)
        self._progress = progress
        self.lock_timeout = lock_timeout
        self.checkpoint = checkpoint
        #: The run's reads made once per account (the Zhihu login, topic look-ups).
        self.memo = memo
        self.sent = False
        #: True once the ledger's row is this job's (another file may own the issue id).
        self._owned = False
        #: What this run sends as the draft (once its images are uploaded).
        self._sent_content: DraftContent | None = None
        #: True once this run made the post's draft empty (its content still to send).
        self._owned_empty = False
        #: The post's images of this run, once :meth:`_content` ran.
        self._assets: PostAssets | None = None
        #: The last answer of a call that changed the platform (or of the poll after it),
        #: for the URL when the ledger cannot take it (see :meth:`_stopped`).
        self._answer: object = None

    # --- the frame: lock, errors, results ------------------------------------------------

    def run(self, options: PublishOptions) -> PostResult:
        """Make the post; every error becomes a result (and a ledger entry), never a raise."""
        lock = post_lock(self.state_dir, self.key, timeout=self.lock_timeout, ledger=self.ledger)
        try:
            with lock:
                return self._guarded(options)
        except Timeout:
            return self._result(
                "pending",
                None,
                "another crosspost run is publishing this post; run again later",
                EXIT_TEMPORARY,
            )
        except StorageError as error:  # its lock file: _guarded reports every other
            return self._stopped(error)

    def adopt(self) -> PostResult:
        """``crosspost reconcile --adopt``: look on the platform for this post's article and
        adopt it into the ledger; nothing is created, uploaded or published."""
        lock = post_lock(self.state_dir, self.key, timeout=self.lock_timeout, ledger=self.ledger)
        adapter: Adapter | None = None
        try:
            with lock:
                record = self.job.ensured(self.ledger)
                self._owned = True
                if record.draft_id or record.article_id:
                    return self._result(record.state, record.url, "already in the ledger")
                adapter = self._adapter()
                self._preflight(adapter)
                adopted = self._adopt(adapter)
                if adopted is None:
                    return self._result(record.state, None, "nothing of this issue found")
                if isinstance(adopted, PostResult):
                    return adopted
                return self._result("drafted", adopted.url, f"draft {adopted.draft_id} adopted")
        except Timeout:
            message = "another crosspost run is publishing this post; run again later"
            return self._result("pending", None, message, EXIT_TEMPORARY)
        except CrosspostError as error:
            return self._result("failed", None, str(error), error.exit_code)
        finally:
            if adapter is not None:
                adapter.http.close()

    def _guarded(self, options: PublishOptions) -> PostResult:
        """Run the steps; turn every error into a ledger entry and a result.

        The one rule for doubt: while an irreversible call's intent is open in the ledger
        (written, neither confirmed nor refused), whatever goes wrong leaves the post
        ``unconfirmed``, because only the platform can say what happened.
        """
        adapter: Adapter | None = None
        try:
            adapter = self._adapter()
            if self.job.mode == BROADCAST and adapter.broadcasts:
                # One mass send of an account at a time, across runs and threads: the
                # quota the ledger counts must not change between the check and the send.
                account = PostKey("(mass send)", self.key.channel, self.key.account)
                with post_lock(self.state_dir, account, timeout=self.lock_timeout):
                    return self._steps(adapter, options)
            return self._steps(adapter, options)
        except StorageError as error:
            # This machine's own files, not the post, are the trouble (a full disk, a state
            # dir that takes no new file): the ledger may not take a failure either.
            return self._stopped(error)
        except CrosspostError as error:
            return self._failed(error)
        finally:
            if self._assets is not None:  # a post that stopped before its uploads
                self._assets.close()
            if adapter is not None:
                adapter.http.close()

    def _stopped(self, error: StorageError) -> PostResult:
        """The post as this machine's trouble left it, the trouble kept for the run's last
        line. Unconfirmed (3) when this run sent a call whose answer the ledger could not
        keep (its intent still open, a publication not recorded): the platform has the
        say, and reconcile asks it. Else the ledger's word stands: a published post keeps
        its line and URL, any other goes on from where it is once the trouble is fixed."""
        try:
            record = self.ledger.get(self.key)
        except StorageError:
            record = None
        post = _post_in(self._answer)
        published = record is not None and record.state == "published"
        if self.sent and (record is None or record.pending_step or (post and not published)):
            url = post.url if post else None
            step = (record.pending_step if record else None) or ("publish" if post else "last")
            went = url or f"its {step} call"
            reconcile = self.job.account.command("reconcile", self.key.issue_id)
            message = (
                f"went out ({went}), but the ledger could not record it; once the error "
                f"below is fixed, run '{reconcile}'"
            )
            result = self._result("unconfirmed", url, message, EXIT_UNCONFIRMED)
        elif published:
            assert record is not None
            state = "published" if self.sent else "unchanged"
            result = self._result(state, record.url, state)
        else:
            message = "not finished: stopped by the error below; run again once it is fixed"
            result = self._result("pending", None, message, EXIT_TEMPORARY)
        return dataclasses.replace(result, stopped_by=error)

    def _failed(self, error: CrosspostError) -> PostResult:
        # Refused before this run took the post (the ledger is not ours), or before it
        # created anything, for a reason not the post's (the same account under another
        # name): nothing of it is recorded.
        if not self._owned or isinstance(error, OtherNameRefused):
            return self._result("failed", None, str(error), error.exit_code)
        outcome = record_failure(self.ledger, self.job, error, self.clock)
        return self._result(outcome.state, outcome.url, outcome.message, outcome.exit_code)

    def _adapter(self) -> Adapter:
        return build_adapter(
            self.job.account,
            self.state_dir,
            timeout=self.timeout,
            clock=self.clock,
            sleep=self.sleep,
            redactor=run_redactor(self.ledger),
            memo=self.memo,
        )

    def _preflight(self, adapter: Adapter, *, first: bool = False) -> None:
        """The adapter's login check; where it names the platform account for good (Zhihu's
        member, which no login cookie does), the ledger learns it for every post of this
        account name, and :func:`login_refusal` stops the post (:class:`OtherNameRefused`)
        that went to another member, or, before its ``first`` create, whose issue went
        to this one under another name."""
        checked = adapter.preflight()
        if checked.account_identity is None:
            return
        member = checked.account_identity
        posts = self.ledger.claim_identity(
            self.key, member, MEMBER, provisional=self.job.account.identity_kind
        )
        refused = login_refusal(self.job, posts, member, self.accounts, self.config, first=first)
        if refused is not None:
            raise refused

    def _remember_sent(self) -> None:
        """Keep the body just sent, for the next ``--dry-run``'s diff (atomic replace). Not
        synced: it lies between the draft and the submit, and a copy lost to a power cut
        only makes the next dry run's diff longer."""
        write_atomic(sent_copy(self.state_dir, self.job), self.job.rendered.body, durable=False)

    def _record(self) -> PostRecord:
        record = self.ledger.get(self.key)
        assert record is not None, "ensure() created it at the start of the run"
        return record

    def progress(self, text: str) -> None:
        self._progress(f"{self.key.channel}:{self.key.account}  {self.key.issue_id}: {text}")

    def _result(
        self, state: str, url: str | None, message: str = "", code: int = EXIT_OK
    ) -> PostResult:
        return PostResult(self.key, state, url, message, code, self.sent)

    # --- the steps -----------------------------------------------------------------------

    def _steps(self, adapter: Adapter, options: PublishOptions) -> PostResult:
        job = self.job
        record = job.ensured(self.ledger, sends=job.content_hash)
        self._owned = True
        record = reopen_intent(self.ledger, record)
        if record.pending_step:
            self._reconcile(adapter, record)
            record = self._record()
            published = record.delivery != BROADCAST and record.state == "published"
            if published and record.content_hash == job.content_hash:
                return self._confirmed(record, adapter)
        if record.delivery == BROADCAST and record.state in ("submitted", "published"):
            return self._sent_before(adapter, record)
        if job.mode == BROADCAST and adapter.broadcasts and record.state != "published":
            allowed = quota(self.ledger, job.account, self.key, self.clock(), _zone(job))
            if allowed.refusal:
                return self._result("pending", None, allowed.refusal, EXIT_TEMPORARY)
            if allowed.warning:
                self.progress(allowed.warning)
        if record.state == "published":
            record = ask_again(self.ledger, adapter, record, self.progress)
            return self._already_published(adapter, record, options)
        refusal = final_refusal(self.ledger, record)
        if refusal is not None and not options.new_draft:
            standing = self._refused(record, refusal, options)
            if standing is not None:
                return standing
        if options.new_draft and record.draft_id and record.state != "submitted":
            record = self._forget_draft(record)
        retry = options.retry_failed or options.new_draft or refusal is not None
        stands = record.state == "failed" and record.error_permanent and not retry
        if stands and same_attempt(self.ledger, job):
            message = (
                f"{record.error_message} (not retried: change the issue or the config, "
                "or pass --retry-failed)"
            )
            return self._result("failed", record.url, message, EXIT_CHANNEL_FAILED)
        handoff = job.handoff or self._handed_off(record)
        if handoff and record.draft_id and record.state == "draft_created":
            by_hand = self._sent_by_hand(adapter, record, handoff)
            if by_hand is not None:
                return by_hand
        if (
            job.mode == "draft"
            and record.draft_id
            and record.state == "draft_created"
            and record.content_hash == job.content_hash
        ):
            return self._drafted(RemoteDraft(record.draft_id, record.url), unchanged=True)

        submitted = (
            PublishTicket(record.publish_id, record.draft_id, record.updated_at)
            if record.state == "submitted" and record.publish_id and record.draft_id
            else None
        )
        if submitted is None:  # the post's images are read while its first call is out
            self._post_assets().start(adapter)
        # Nothing of the post on the platform yet: the login check is the last look for
        # the issue on the same account under another name before the first create.
        self._preflight(adapter, first=before_first_create(record, options))
        if submitted is not None:
            return self._wait(adapter, submitted)
        # --new-draft says the recorded draft is gone, not where: published by hand is as
        # likely as deleted, so the account is still looked at (its drafts aside).
        adopt = not (record.draft_id or record.article_id)
        # The account-kind probe is a read whose answer is first needed by the draft (a
        # handed-off draft wants its preview link): it goes out beside the uploads and
        # the adoption reads instead of a round of its own in front of them.
        with ThreadPoolExecutor(max_workers=1) as side:
            asking = side.submit(probed, job, adapter) if needs_probe(job, record) else None
            try:
                prepared = self._prepare(adapter, record, adopt=adopt, drafts=not options.new_draft)
            finally:
                if asking is not None:
                    self._heed_probe(asking.result())
        if isinstance(prepared, PostResult):
            return prepared
        record, content = prepared
        if self.job.mode == "draft" and not content.preview:  # handed off by the probe
            content = dataclasses.replace(content, preview=True)
        try:
            return self._draft_then_publish(adapter, record, content)
        except PermanentError as error:
            if not self._draft_vanished(adapter, error):
                raise
        return self._draft_then_publish(adapter, self._record(), content)

    def _refused(
        self, record: PostRecord, refusal: Refusal, options: PublishOptions
    ) -> PostResult | None:
        """A post whose last submission the platform refused for good: said as it stands,
        without a call, until the editor acts. None when the run goes on: ``--retry-failed``
        or an edited issue submits the draft again (the refusal is known, so that is not
        a blind retry), never an article published and then taken down, which only
        ``--new-draft`` publishes anew."""
        again = options.retry_failed or refusal.content_hash not in (None, self.job.content_hash)
        if again and not refusal.removed:
            self.progress(f"submitting again: publication {refusal.publish_id} was refused")
            return None
        # The recorded line already says what to do; this run sent nothing.
        message = f"{record.error_message} (refused in an earlier run; nothing was sent now)"
        return self._result("failed", None, message, EXIT_CHANNEL_FAILED)

    def _heed_probe(self, job: Job) -> None:
        """Take the probe's answer: a job handed off is remembered, so the next run's plan
        hands off from the start, and said once."""
        self.job = job
        if job.handoff:
            KindMemory(self.state_dir, self.clock).remember(job.account, job.handoff, asked=True)
            self.progress(handed_off_note(job, in_run=True))

    def _draft_then_publish(
        self, adapter: Adapter, record: PostRecord, content: DraftContent
    ) -> PostResult:
        draft = self._draft(adapter, record, content)
        if self.job.mode == "draft":
            return self._drafted(draft)
        try:
            if self.job.mode == BROADCAST and adapter.broadcasts:
                return self._broadcast(adapter, draft)
            return self._publish(adapter, draft)
        except ManualPublishRequired as refused:
            # Learnt the hard way (48001): remembered, so later runs plan the hand-off (over
            # a config kind that says otherwise, which the line then names).
            KindMemory(self.state_dir, self.clock).remember(self.job.account, self.job.mode)
            self.progress(f"{refused}; {remembered_line(self.job.account, self.job.mode)}")
            fix = contradiction(self.job.account, self.job.mode)
            self.job = dataclasses.replace(self.job, handoff=self.job.mode)
            result = self._drafted(refused.draft)
            # The config is wrong, not only the post undone: the notice says that too.
            return dataclasses.replace(result, todo=f"{result.todo}; {fix}") if fix else result

    def _drafted(self, draft: RemoteDraft, *, unchanged: bool = False) -> PostResult:
        """The draft is there; a handed-off post says where the editor presses the button."""
        said = "unchanged since the draft was made" if unchanged else f"draft {draft.id} ready"
        if self.job.awaits_approval:
            line = waiting_line(self.job, self.ledger)
            self.progress(line)  # after the draft is there, not before: it may fail
            result = self._result("waiting", draft.url, f"{said}; {line}")
            first = not any(  # the notice says it once per version of the content
                e.summary == WAITING and e.data.get("content_hash") == self.job.content_hash
                for e in self.ledger.events(self.key)
            )
            if first:
                self.ledger.note(
                    self.key, "approve", WAITING, {"content_hash": self.job.content_hash}
                )
            return dataclasses.replace(result, todo=line if first else "")
        if not self.job.handoff:
            return self._result("drafted", draft.url, said if unchanged else f"{said} for review")
        line = handoff_line(self.job.handoff, draft.id)
        result = self._result("drafted", draft.url, f"{said}; {line}")
        if unchanged:
            return result
        # Kept in the post's trail: a later run must look for what the editor did with
        # this draft even when its own plan no longer hands off (the remembered refusal
        # lapsed, the config changed), or it would take the emptied 草稿箱 for an error.
        self.ledger.note(
            self.key, STEP_HANDOFF, HANDED_OFF, {"draft_id": draft.id, "mode": self.job.handoff}
        )
        self.progress(line)
        return dataclasses.replace(result, todo=line)

    def _handed_off(self, record: PostRecord) -> str:
        """The button an earlier run handed ``record``'s draft off for ("publish",
        "broadcast"), as its trail says; ``""`` when it never was."""
        for event in reversed(self.ledger.events(self.key)):
            if event.summary == HANDED_OFF and event.data.get("draft_id") == record.draft_id:
                return str(event.data.get("mode") or "publish")
        return ""

    def _sent_by_hand(
        self, adapter: Adapter, record: PostRecord, handoff: str
    ) -> PostResult | None:
        """A handed-off draft that left 草稿箱 was sent or published by hand: look for the
        article (by title, author and digest) and record it; None while it is still there."""
        assert record.draft_id is not None
        intent = Intent(
            started_at=record.created_at,
            title=self.job.rendered.title,
            author=self.job.settings.author,
            digest=self.job.settings.digest,
            draft_id=record.draft_id,
        )
        try:
            answer = adapter.reconcile(STEP_HANDOFF, intent)
        except CrosspostError as error:
            self.progress(f"could not ask whether draft {record.draft_id} left 草稿箱: {error}")
            return None
        if answer.happened is not True:
            return None
        url = answer.url
        record = self.ledger.finish_step(
            self.key,
            STEP_HANDOFF,
            outcome="by-hand",
            state="published",
            article_id=answer.remote_id,
            url=url,
            content_hash=record.content_hash,
            summary=answer.detail,
        )
        if url:
            message = f"{BUTTONS.get(handoff, '发表')} by hand: {url}"
        elif url_pending(record):  # found, with only a temporary link: asked again later
            pending = pending_message(record, rehearsal=self.job.account.rehearsal)
            message = f"{BUTTONS.get(handoff, '发表')} by hand; {pending}"
        else:
            message = (
                f"draft {record.draft_id} left 草稿箱: sent or published by hand, URL not "
                f"known: {url_command(record, self.job.account.rehearsal)}"
            )
        self.progress(message)
        return self._result("published", url, message)

    # --- mass send (群发) -------------------------------------------------------------------

    def _sender(self, adapter: Adapter) -> Sender:
        return Sender(
            self.ledger,
            adapter,
            self.key,
            progress=self.progress,
            sleep=self.sleep,
            clock=self.clock,
        )

    def _broadcast(self, adapter: Adapter, draft: RemoteDraft) -> PostResult:
        """Send the draft to the followers once (see :mod:`crosspost.publish.broadcast`)."""
        sender = self._sender(adapter)
        self.stop.check(STEP_BROADCAST)
        self.sent = True  # from the intent on, the platform may have the send
        outcome = sender.send(
            draft,
            version=source_version(self.job.issue.path, *(c.issue.path for c in self.job.bundle)),
            content_hash=self.job.content_hash,
            target=target_of(self.job.settings.options),
            title=self.job.rendered.title,
            checkpoint=self.checkpoint,
        )
        result = self._result(outcome.state, None, outcome.message, outcome.code)
        return self._bundle_recorded(result, adapter)

    def _sent_before(self, adapter: Adapter, record: PostRecord) -> PostResult:
        """A post already mass sent: how it stands, asked of WeChat while it is going out.
        A sent article cannot be edited nor sent again: a change is reported, not sent."""
        if record.state == "published":
            if record.content_hash == self.job.content_hash:
                sent = sent_message(record, rehearsal=self.job.account.rehearsal)
                unchanged = self._result("unchanged", record.url, sent)
                return self._bundle_recorded(unchanged, adapter)
            return self._result(
                "changed",
                record.url,
                "changed since it was sent to followers; WeChat cannot edit or send again "
                "a mass-sent article: it stays as sent",
            )
        self._preflight(adapter)
        outcome = self._sender(adapter).follow()
        result = self._result(outcome.state, record.url, outcome.message, outcome.code)
        return self._bundle_recorded(result, adapter)

    def _draft_vanished(self, adapter: Adapter, error: PermanentError) -> bool:
        """Forget a known draft the platform confirms it no longer has (deleted by hand).

        Only on "not found" (404) and only when ``reconcile`` confirms there is no such
        draft. A WeChat draft that left 草稿箱 may have been published by hand, so there
        the error stands: making a new draft and publishing it could post twice.
        """
        record = self._record()
        if not record.draft_id or str(error.code) != "404":
            return False
        intent = Intent(record.created_at, self.job.rendered.title, draft_id=record.draft_id)
        answer = adapter.reconcile(STEP_DRAFT, intent)
        if answer.happened is not False:
            return False
        summary = f"draft {record.draft_id} is gone ({answer.detail}); making a new one"
        self.progress(summary)
        forget_draft(self.ledger, self.key, "vanished", summary)
        return True

    def _forget_draft(self, record: PostRecord) -> PostRecord:
        """``--new-draft``: the editor says the recorded draft is gone; make a new one."""
        summary = f"draft {record.draft_id} forgotten (--new-draft); making a new one"
        self.progress(summary)
        return forget_draft(self.ledger, self.key, "forgotten", summary)

    def _confirmed(self, record: PostRecord, adapter: Adapter | None = None) -> PostResult:
        """Published, as reconciling found; WeChat may not say where (URL unknown). A
        多图文 post's companions are recorded with it, as after a confirmed poll."""
        result = self._confirmed_lead(record, adapter)
        return result if adapter is None else self._bundle_recorded(result, adapter)

    def _confirmed_lead(self, record: PostRecord, adapter: Adapter | None) -> PostResult:
        if record.url:
            self.progress(f"published {record.url}")
            result = self._result("published", record.url, "published (confirmed by reconcile)")
            if adapter is None or not record.article_id:
                return result
            return self._complete(adapter, RemotePost(record.article_id, record.url), result)
        if url_pending(record):
            assert record.article_id is not None
            message = pending_message(record, rehearsal=self.job.account.rehearsal)
            self.progress(message)
            result = self._result("published", None, message)
            if adapter is None:
                return result
            return self._complete(adapter, RemotePost(record.article_id, None), result)
        message = (
            "published, URL unknown: the draft left 草稿箱 and WeChat lists no matching "
            "article; find it in 发表记录 (公众号后台) — it is not submitted again"
        )
        self.progress(message)
        return self._result("published", None, message)

    def _already_published(
        self, adapter: Adapter, record: PostRecord, options: PublishOptions
    ) -> PostResult:
        if record.content_hash == self.job.content_hash:
            said = self._result("unchanged", record.url, "already published")
            unchanged = self._bundle_recorded(said, adapter)
            parts = adapter.post_parts(self.job.settings.options)
            if not record.article_id or not record.url:
                return unchanged
            if not missing_parts(self.ledger, self.key, parts):
                return unchanged
            self._preflight(adapter)
            return self._complete(adapter, RemotePost(record.article_id, record.url), unchanged)
        if not adapter.updates_published:
            return self._not_editable(adapter, record)
        if not options.update:
            update = self.job.account.command(
                "publish", str(self.job.issue.path), "-c", self.job.account.key, "--update"
            )
            return self._result(
                "changed",
                record.url,
                f"changed since it was published; run with --update to edit it in place: "
                f"'{update}'",
            )
        if not record.article_id:
            return self._result(
                "published",
                record.url,
                f"{adapter.display_name} gave no id for this post, so it cannot be edited "
                "through the API; edit it in the platform's editor",
                EXIT_CHANNEL_FAILED,
            )
        self._post_assets().start(adapter)  # reads images while the first call is out
        self._preflight(adapter)
        content = self._content(adapter)
        self.stop.check(STEP_UPDATE)
        self.progress(f"updating published post {record.article_id}")
        draft = adapter.update_draft(record.article_id, content)
        self.sent = True
        self.ledger.finish_step(self.key, STEP_UPDATE, summary=f"updated {draft.id}")
        self._remember_sent()
        return self._publish(adapter, draft, live_before=True)

    def _not_editable(self, adapter: Adapter, record: PostRecord) -> PostResult:
        """An edit of a post its platform cannot edit (a published or mass-sent WeChat
        article): not a failure, and no use suggesting --update. Said once per version
        of the issue (a ledger note); later runs report the post as it stands."""
        message = (
            f"changed since it was published, but {adapter.display_name} cannot edit a "
            "published or mass-sent article, so the change stays off it: make small text "
            "fixes in 公众号后台 → 发表记录, or delete the article there and publish the issue "
            "again under a new 'id:'"
        )
        told = any(
            event.summary == EDIT_REFUSED
            and event.data.get("content_hash") == self.job.content_hash
            for event in self.ledger.events(self.key)
        )
        if not told:
            self.ledger.note(
                self.key, STEP_UPDATE, EDIT_REFUSED, {"content_hash": self.job.content_hash}
            )
            self.progress(message)
            # A person must act (the run's table says "published", the post is not edited):
            # said below the table too, so a quiet run (-q) does not lose it.
            return dataclasses.replace(self._result("published", record.url, message), todo=message)
        return self._result("published", record.url, "published; later edits are not on it")

    def _content(self, adapter: Adapter, *, mark: bool = True) -> DraftContent:
        """Upload images (each once per account, several at a time) and build the draft;
        ``mark`` False leaves the ledger's upload step to :meth:`_prepare`."""
        assets = self._post_assets()
        try:
            content = assets.content(adapter, mark=mark)
            if self.job.bundle:  # 多图文: each companion's images, then its article
                others = [self._companion(adapter, companion) for companion in self.job.bundle]
                content = dataclasses.replace(content, companions=tuple(others))
            self._sent_content = content
            return content
        finally:
            if assets.sent:  # never undo what another thread of this post set
                self.sent = True

    def _post_assets(self) -> PostAssets:
        """The post's images of this run: made once, by the first step that needs them."""
        if self._assets is None:
            self._assets = PostAssets(
                self.job, self.ledger, self.progress, timeout=self.timeout, sources=self.images
            )
        return self._assets

    def _companion(self, adapter: Adapter, companion: Job) -> DraftContent:
        assets = PostAssets(
            companion, self.ledger, self.progress, timeout=self.timeout, sources=self.images
        )
        try:
            return assets.content(adapter)
        finally:
            if assets.sent:  # never undo what another thread of this post set
                self.sent = True

    def _bundle_recorded(
        self, result: PostResult, adapter: Adapter, post: RemotePost | None = None
    ) -> PostResult:
        """Once the post is out, each companion's own ledger row says it went out in this
        post's draft and send (so ``run-due`` never sends it on its own), with the
        send's ids, and its own URL (多图文: each article has one) matched from the
        articles WeChat lists under the post (``post``'s, else asked once); a companion
        whose URL is not known says why, and a later run of the lead asks again."""
        if not self.job.bundle or result.state not in ("published", "unchanged"):
            return result
        lead = self._record()
        rows = [c.ensured(self.ledger) for c in self.job.bundle]
        sent = lead.delivery == BROADCAST  # a mass send has no URL (sent_message says so)
        if all(row.state == "published" and (row.url or sent) for row in rows):
            return result
        found = self._companion_urls(adapter, lead, post)
        for number, (companion, row, link) in enumerate(
            zip(self.job.bundle, rows, found, strict=True), start=2
        ):
            name = companion.key.issue_id
            if row.state == "published":
                self._companion_url(row, link, number)
                continue
            self.ledger.finish_step(
                companion.key,
                STEP_BUNDLE,
                state="published",
                delivery=lead.delivery,
                mass_status=lead.mass_status,
                publish_id=lead.publish_id,
                article_id=lead.article_id,
                url=link.url,
                content_hash=companion.content_hash,
                summary=f"went out as article {number} of '{self.key.issue_id}' (多图文)",
                data={"lead": self.key.issue_id, "article": number, "why": link.why},
            )
            where = f": {link.url}" if link.url else ""
            self.progress(f"{name}: went out as article {number} (多图文){where}")
            if not link.url and not sent:
                self.progress(f"{name}: URL not known: {link.why}")
        return result

    def _companion_urls(
        self, adapter: Adapter, lead: PostRecord, post: RemotePost | None
    ) -> tuple[CompanionUrl, ...]:
        if lead.delivery == BROADCAST:
            return tuple(CompanionUrl(None) for _ in self.job.bundle)
        if post is not None:
            links = post.articles
        elif lead.article_id:
            links = adapter.article_links(lead.article_id, lead.publish_id)
        else:
            why = "WeChat named no article for the post"
            return tuple(CompanionUrl(None, why) for _ in self.job.bundle)
        titles = [self.job.rendered.title, *(c.rendered.title for c in self.job.bundle)]
        return companion_urls(links, titles)

    def _companion_url(self, row: PostRecord, link: CompanionUrl, number: int) -> None:
        """A companion recorded before without its URL: the URL now, or a new reason."""
        if row.url or row.delivery == BROADCAST:
            return
        if link.url:
            self.ledger.note(row.key, "url", f"permanent URL found: {link.url}")
            self.ledger.record(row.key, url=link.url)
            self.progress(f"{row.issue_id}: article {number} (多图文) is at {link.url}")
            return
        known = companion_of(self.ledger, row)
        if known is None or known.why != link.why:
            data = {"lead": self.key.issue_id, "article": number, "why": link.why}
            self.ledger.note(row.key, STEP_BUNDLE, f"URL not known: {link.why}", data)

    def _prepare(
        self, adapter: Adapter, record: PostRecord, *, adopt: bool, drafts: bool = True
    ) -> PostResult | tuple[PostRecord, DraftContent]:
        """Upload the post's images while the calls that need none of them go out: the
        look for the post already on the account (``adopt``: reads only; ``drafts``: a
        draft found is adopted too, not only an article) and, where the platform allows,
        its empty draft (intent first, like any draft; only once every image was read).
        The post then waits for the longer of the two, not for their sum. Uploads are
        idempotent, so those of a post found already published are harmless (and cached).
        """
        empty_first = adapter.drafts_before_images and not record.draft_id
        if not (adopt or empty_first):
            return record, self._content(adapter)
        with ThreadPoolExecutor(max_workers=1) as side:
            uploading = side.submit(self._content, adapter, mark=False)
            if adopt:
                adopted = self._adopt(adapter, drafts=drafts)
                if isinstance(adopted, PostResult):
                    return adopted
                record = adopted or record
            if adapter.drafts_before_images and not record.draft_id:
                self._post_assets().read(adapter)
                self._empty_draft(adapter)
            content = uploading.result()
        if self._assets is not None:  # one writer at a time: the step after the others
            self._assets.mark_uploaded()
        return self._record(), content

    def _empty_draft(self, adapter: Adapter) -> None:
        """The post's draft with its title only; the ledger holds it as not filled in."""
        job = self.job
        shell = DraftContent(
            title=job.rendered.title,
            html="",
            author=job.settings.author,
            digest=job.settings.digest,
            options=job.settings.options,
            preview=job.mode == "draft",
        )

        def create() -> RemoteDraft:
            try:
                return adapter.create_draft(shell)
            except DraftLeftBehind as left:  # made; the update sends what it lacks
                return left.draft

        intent = Intent.for_draft(shell, self.clock())
        made = self._irreversible(adapter, STEP_DRAFT, intent, create, filled=False)
        self._owned_empty = True
        if made is None:  # the platform had it although its answer was lost
            return
        self.progress(f"draft {made.id} created; its content follows the images")
        self.ledger.finish_step(
            self.key,
            STEP_DRAFT,
            state="draft_created",
            draft_id=made.id,
            url=made.url,
            content_hash=None,  # nothing of the issue in it yet: the update sends it all
            summary=f"created empty draft {made.id}",
        )

    def _draft(self, adapter: Adapter, record: PostRecord, content: DraftContent) -> RemoteDraft:
        """The post's draft: reused, updated in place when the issue changed, or created."""
        if record.draft_id:
            if record.content_hash == self.job.content_hash:
                return RemoteDraft(record.draft_id, record.url)
            if record.content_hash is None and self._owned_empty:
                return self._fill_again(adapter, RemoteDraft(record.draft_id, record.url), content)
            self.stop.check(UPDATE_DRAFT)
            self.progress(f"updating draft {record.draft_id} in place")
            draft = adapter.update_draft(record.draft_id, content)
            self.sent = True
            return self._draft_recorded(STEP_UPDATE, draft, f"updated draft {draft.id}")
        # The account's earlier drafts are not listed here: reconcile asks the ledger for
        # them when it settles a lost answer (settle.settle), so an intent stays small.
        intent = Intent.for_draft(content, self.clock())

        def create() -> RemoteDraft | DraftLeftBehind:
            try:
                return adapter.create_draft(content)
            except DraftLeftBehind as left:  # made, but not filled in: never made again
                return left

        made = self._irreversible(adapter, STEP_DRAFT, intent, create)
        if made is None:  # the platform had it although its answer was lost
            found = self.ledger.get(self.key) or record
            assert found.draft_id is not None
            if found.content_hash == self.job.content_hash:
                return RemoteDraft(found.draft_id, found.url)
            return self._fill_again(adapter, RemoteDraft(found.draft_id, found.url), content)
        if isinstance(made, DraftLeftBehind):
            return self._left_behind(adapter, made, content)
        self.progress(f"draft {made.id} created")
        return self._draft_recorded(STEP_DRAFT, made, f"created draft {made.id}")

    def _known_ids(self) -> tuple[str, ...]:
        """Drafts and articles of this account the ledger already knows as other posts:
        never this post's (``--new-post`` asked for a post of its own, not theirs)."""
        return self.ledger.draft_ids(
            self.key.channel, self.key.account, excluding=self.key, articles=True
        )

    def _left_behind(
        self, adapter: Adapter, left: DraftLeftBehind, content: DraftContent
    ) -> RemoteDraft:
        """The draft was made but a part of it (its content, its topics) failed: keep the
        draft, note the parts missing, and fill it in once more; if that fails too, the
        error ends the run and the next one fills the same draft before publishing."""
        self.ledger.finish_step(
            self.key,
            STEP_DRAFT,
            state="draft_created",
            draft_id=left.draft.id,
            url=left.draft.url,
            content_hash=None,  # not all of it is there: the next step sends it again
            summary=f"created draft {left.draft.id}; filling it in failed: {left.cause}",
        )
        parts = self._draft_parts(content)
        mark_parts(self.ledger, self.key, parts, done=False, detail=str(left.cause))
        self.progress(f"draft {left.draft.id} created, but {left.cause}; filling it in again")
        return self._fill_again(adapter, left.draft, content)

    def _fill_again(
        self, adapter: Adapter, draft: RemoteDraft, content: DraftContent
    ) -> RemoteDraft:
        """Update a draft whose content is not (known to be) all there; a failure ends the
        run before publishing, with the draft kept for the next run."""
        self.stop.check(FILL_DRAFT)
        try:
            filled = adapter.update_draft(draft.id, content)
        except CrosspostError as error:
            parts = self._draft_parts(content)
            mark_parts(self.ledger, self.key, parts, done=False, detail=str(error))
            raise
        self.sent = True
        return self._draft_recorded(STEP_UPDATE, filled, f"filled in draft {filled.id}")

    def _draft_parts(self, content: DraftContent) -> tuple[str, ...]:
        """The parts a draft carries: content always, the rest when the issue has them."""
        parts = [PART_CONTENT]
        if content.cover is not None:
            parts.append(PART_COVER)
        if self._topics(content):
            parts.append(PART_TOPICS)
        if any(name in content.options for name in SETTINGS_OPTIONS):
            parts.append(PART_SETTINGS)
        return tuple(parts)

    def _topics(self, content: DraftContent) -> bool:
        return bool(content.options.get("topics") or self.job.account.options.get("topics"))

    def _adopt(self, adapter: Adapter, *, drafts: bool = True) -> PostRecord | PostResult | None:
        """Before the first create of a post the ledger does not know: an article of the
        same issue already on the account (a lost state dir, another machine, a draft
        published by hand) is adopted instead of made a second time; a draft found is
        adopted too unless ``drafts`` is off (``--new-draft`` asked for a new one)."""
        job = self.job
        intent = Intent(
            started_at=self.clock(),
            title=job.rendered.title,
            author=job.settings.author,
            digest=None if job.bundle else job.settings.digest,  # 多图文 keeps no digest
            known_ids=self._known_ids(),
        )
        found = adapter.find_existing(intent)
        if found is None or (found.post is None and not drafts):
            return None
        where = f"found on {adapter.display_name}: {found.detail}; adopted, not made again"
        self.progress(where)
        if found.post is not None:
            self.ledger.finish_step(
                self.key,
                STEP_DRAFT,
                outcome="adopted",
                state="published",
                draft_id=found.draft_id,
                article_id=found.post.id,
                url=found.post.url,
                content_hash=job.content_hash,
                summary=where,
            )
            result = self._result("published", found.post.url, where)
            return self._bundle_recorded(
                self._complete(adapter, found.post, result), adapter, found.post
            )
        return self.ledger.finish_step(
            self.key,
            STEP_DRAFT,
            outcome="adopted",
            state="draft_created",
            draft_id=found.draft_id,
            url=found.url,
            content_hash=None,  # its content is unknown: updated in place before use
            summary=where,
        )

    def _draft_recorded(self, step: str, draft: RemoteDraft, summary: str) -> RemoteDraft:
        """The ledger learns the draft and what it holds; the body is kept for --dry-run."""
        self.ledger.finish_step(
            self.key,
            step,
            state="draft_created",
            draft_id=draft.id,
            url=draft.url,
            content_hash=self.job.content_hash,
            summary=summary,
        )
        if self._sent_content is not None:
            parts = self._draft_parts(self._sent_content)
            mark_parts(self.ledger, self.key, parts, done=True)
        self._remember_sent()
        return draft

    def _publish(
        self, adapter: Adapter, draft: RemoteDraft, *, live_before: bool = False
    ) -> PostResult:
        """Submit the draft (irreversible), then wait for the public URL.

        ``live_before``: the post was already public (an update): the intent lists it
        among the ids that existed before, so reconcile knows "live" alone proves nothing.
        """
        intent = Intent(
            started_at=self.clock(),
            title=self.job.rendered.title,
            draft_id=draft.id,
            known_ids=(draft.id,) if live_before else (),
        )
        ticket = self._irreversible(adapter, STEP_PUBLISH, intent, lambda: adapter.publish(draft))
        if ticket is None:  # the platform had it although its answer was lost
            record = self._record()
            if record.state == "published":
                return self._confirmed(record, adapter)
            assert record.publish_id is not None
            ticket = PublishTicket(record.publish_id, draft.id, self.clock())
        else:
            self.ledger.finish_step(
                self.key,
                STEP_PUBLISH,
                state="submitted",
                publish_id=ticket.id,
                summary=f"submitted {ticket.id}",
            )
            self.progress(f"submitted for publication ({ticket.id})")
        return self._wait(adapter, ticket)

    def _wait(self, adapter: Adapter, ticket: PublishTicket) -> PostResult:
        if ticket.post is None:  # a post already live (Zhihu) is recorded, stop or not
            self.stop.check(STEP_POLL)
        self.checkpoint("before-poll")
        post = adapter.wait(ticket)
        self._answer = post or self._answer
        if post is None:
            message = "the platform is still publishing; run again to record the URL"
            return self._result("pending", None, message, EXIT_TEMPORARY)
        return self._published(adapter, post)

    def _published(self, adapter: Adapter, post: RemotePost) -> PostResult:
        self.ledger.finish_step(
            self.key,
            "poll",
            state="published",
            article_id=post.id,
            url=post.url,
            content_hash=self.job.content_hash,
            summary=published_summary(post),
        )
        if post.url is None:
            message = pending_message(self._record(), rehearsal=self.job.account.rehearsal)
            self.progress(message)
            result = self._complete(adapter, post, self._result("published", None, message))
            return self._bundle_recorded(result, adapter, post)
        self.progress(f"published {post.url}")
        result = self._complete(adapter, post, self._result("published", post.url, "published"))
        return self._bundle_recorded(result, adapter, post)

    def _complete(self, adapter: Adapter, post: RemotePost, result: PostResult) -> PostResult:
        """Put the parts filed after publication (a Zhihu column) on the post; those that
        fail are noted missing and reported (exit 75 or 1), and the next run does them
        again, without publishing the post again."""
        options = self.job.settings.options
        failed: list[tuple[str, CrosspostError]] = []
        left: list[str] = []  # parts refused for good: the editor's to do (said in the notice)
        for part in missing_parts(self.ledger, self.key, adapter.post_parts(options)):
            if self.stop.asked:  # the post is out; a part left is done by the next run
                stopped = Interrupted("interrupted before it was filed")
                mark_parts(self.ledger, self.key, [part], done=False, detail=str(stopped))
                failed.append((part, stopped))
                continue
            try:
                adapter.complete_part(part, post, options)
            except PartLeftToEditor as refused:  # refused for good: the editor's to do, once
                mark_left_to_editor(self.ledger, self.key, part, str(refused))
                self.progress(f"warning: {refused}")
                left.append(str(refused))
                continue
            except CrosspostError as error:
                mark_parts(self.ledger, self.key, [part], done=False, detail=str(error))
                failed.append((part, error))
                continue
            self.sent = True
            mark_parts(self.ledger, self.key, [part], done=True)
            self.progress(f"{part}: done")
        if not failed:
            return dataclasses.replace(result, todo="; ".join(left)) if left else result
        temporary = all(isinstance(e, TransientError | UnconfirmedError) for _, e in failed)
        names = ", ".join(part for part, _ in failed)
        where = post.url or f"as article {post.id}"
        message = (
            f"published {where}, but its {names} is missing ({failed[0][1]}); run again "
            "to finish it (the post is not published again)"
        )
        self.progress(message)
        code = EXIT_TEMPORARY if temporary else EXIT_CHANNEL_FAILED
        return self._result("published", post.url, message, code)

    # --- irreversible calls and reconciliation -----------------------------------------

    def _irreversible(
        self,
        adapter: Adapter,
        step: str,
        intent: Intent,
        call: Callable[[], Any],
        *,
        filled: bool = True,
    ) -> Any:
        """Intent → call → result, with a lost answer settled by asking the platform.

        Returns the call's result, or None when reconciliation found that the call had
        taken effect (the ledger then holds its ids). The call is made a second time only
        when the platform says the first one did not happen. ``filled`` False: the call
        sends none of the issue's content (an empty draft), so a draft found by
        reconciling is recorded as still to be filled in.
        """
        sent_hash = self.job.content_hash if filled else None
        data = {**dataclasses.asdict(intent), "content_hash": sent_hash}
        for attempt in (1, 2):
            self.stop.check(step)  # before the intent: a stopped post leaves no doubt
            self.ledger.begin(step, self.key, data)
            self.checkpoint(f"before-{step}")
            try:
                result = call()
            except UnconfirmedError as error:
                self.sent = True
                self.progress(f"{step}: the answer was lost ({error}); asking the platform")
                self.ledger.fail(self.key, error, permanent=False, step=step)
                answer = self._reconcile(adapter, self._record())
                if answer.happened:
                    return None
                if attempt == 2:
                    raise TransientError(
                        _lost_twice(adapter, error, answer),
                        channel=self.key.channel,
                        code=error.code,
                    ) from None
                continue
            except Interrupted:  # stopped inside the call: the intent stays open, and
                raise  # the next run asks the platform what became of it
            except CrosspostError as error:  # a definite refusal: nothing happened
                self.ledger.finish_step(self.key, step, outcome="refused", summary=str(error))
                raise
            self.sent = True
            self._answer = result
            self.checkpoint(f"after-{step}")
            return result
        return None  # pragma: no cover - the loop always returns or raises

    def _reconcile(self, adapter: Adapter, record: PostRecord) -> Reconciliation:
        return settle(self.ledger, adapter, record, self.progress, sleep=self.sleep)


def _lost_twice(adapter: Adapter, error: UnconfirmedError, answer: Reconciliation) -> str:
    """The line for a call whose answer was lost twice, each time reconciled as "did not
    happen": what went wrong, then what the platform said, never a doubt the reconcile
    settled beside a certainty it could not give."""
    if answer.confirmed:
        return (
            f"{error.problem}, twice; {adapter.display_name} shows nothing was made either "
            "time: nothing to undo, run again later"
        )
    return (
        f"{error.problem}, twice; {adapter.display_name} cannot say whether either attempt "
        f"made something: {answer.detail}; run again later"
    )


def _post_in(answer: object) -> RemotePost | None:
    """The published post a platform's answer carries (a poll's, or a synchronous
    publication's ticket); None for any other answer."""
    if isinstance(answer, PublishTicket):
        return answer.post
    return answer if isinstance(answer, RemotePost) else None


def _zone(job: Job) -> tzinfo | None:
    """The issue's time zone (its ``publish_at``), for times shown to its editor."""
    moment = job.issue.publish_at
    return moment.tzinfo if moment is not None else None
