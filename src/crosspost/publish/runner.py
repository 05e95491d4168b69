"""The publisher: every issue on every channel exactly once, every step in the ledger.

Two phases (STYLE habit 12). :meth:`Publisher.plan` loads, renders and lints every
issue and resolves every account before anything is sent: bad input fails there with
exit 2. :meth:`Publisher.run` then drives one :class:`~crosspost.publish.machine.PostMachine`
per (issue, channel, account), channels concurrently, each under a file lock so that
eight processes publishing the same issue still make one post.

The machine writes the intent to the ledger before each irreversible call and the
result right after, so a run killed anywhere is finished by the next one without a
second post (see :mod:`crosspost.publish.machine`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from crosspost.channels.base import Adapter, RunMemo
from crosspost.check.images import UNREACHABLE, only_unreachable
from crosspost.check.lint import ERROR, Checked, Problem, check_file, lint
from crosspost.config.accounts import MEMBER
from crosspost.config.settings import Account, Settings
from crosspost.errors import (
    EXIT_TEMPORARY,
    CrosspostError,
    IssueError,
    TransientError,
    UsageError,
)
from crosspost.images.remote import sources_for
from crosspost.images.sources import ImageSources, ReadOnce
from crosspost.issue.companions import CHANNEL as BUNDLE_CHANNEL
from crosspost.issue.companions import find_companions, lead_of
from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.ledger.store import Ledger, PostKey
from crosspost.platforms.base import Platform
from crosspost.platforms.registry import PLATFORMS
from crosspost.publish.approval import held_for_approval
from crosspost.publish.delivery import (
    Delivery,
    KindMemory,
    handed_off_note,
    needs_probe,
    plan_delivery,
    probed,
)
from crosspost.publish.dry_run import DryRunEntry, dry_run
from crosspost.publish.jobs import (
    MODES,
    Job,
    PostResult,
    Progress,
    PublishOptions,
    PublishReport,
    content_hash,
    describe_links,
    fill_links,
)
from crosspost.publish.machine import Checkpoint, PostMachine, no_checkpoint
from crosspost.publish.references import Link, link, resolve
from crosspost.publish.same_issue import (
    Earlier,
    before_first_create,
    login_names_no_account,
    login_refusal,
    refusal,
    same_issue_as,
    two_names_one_account,
)
from crosspost.publish.series import previous_issues
from crosspost.publish.settle import build_adapter, reconcile_issue, run_redactor
from crosspost.publish.stopping import RunStop
from crosspost.publish.words import state_word
from crosspost.render.context import render_context
from crosspost.render.rendered import RenderContext, Rendered, render


class Publisher:
    """Plans and runs publications against the accounts in ``settings``.

    Everything that varies in a test is injected: the clock and sleep (no test waits),
    the ledger (a real SQLite file), the progress callback (a line per step), and the
    checkpoint each post passes at its step boundaries (a crash test kills a process there).
    """

    def __init__(
        self,
        settings: Settings,
        ledger: Ledger,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        progress: Progress | None = None,
        lock_timeout: float = 600.0,
        checkpoint: Checkpoint = no_checkpoint,
        images: ImageSources | None = None,
    ) -> None:
        self.settings = settings
        self.ledger = ledger
        self.clock = clock
        self.sleep = sleep
        self.progress: Progress = progress or (lambda line: None)
        self.lock_timeout = lock_timeout
        self.checkpoint = checkpoint
        #: The run's image rules and its one fetcher: the plan's check downloads every
        #: remote image, the uploads reuse those bytes.
        self.images = images or sources_for(settings)
        #: Lines about an account's delivery already said this run (said once each).
        self._said: set[str] = set()
        #: The dry run's reads (what an account may do), asked once per account.
        self._memo = RunMemo()
        #: Raised by Ctrl-C or SIGTERM while posts run; a stopped publisher starts nothing.
        self.stop = RunStop()
        #: Every post planned so far (each plan of a ``run-due`` tick is one file's), by
        #: account and content hash: a second file with the same words is refused.
        self._planned: dict[tuple[str, str], Job] = {}

    # --- phase 1: everything that can fail without sending anything ---------------------

    def plan(self, paths: Sequence[Path | str], options: PublishOptions) -> list[Job]:
        """Load, render and lint every issue; resolve accounts and credentials.

        Raises :class:`UsageError` (exit 2) for the first thing wrong; nothing is sent.
        """
        if options.mode is not None and options.mode not in MODES:
            raise UsageError(f"unknown mode {options.mode!r}; use {', '.join(MODES)}")
        if not paths:
            raise UsageError("name at least one issue file")
        seen: dict[str, Path] = {}
        jobs: list[Job] = []
        for path in paths:
            accounts_by_channel = self._accounts(path, options)
            channels = self._channels_of(path, accounts_by_channel, options)
            checked = self._checked(path, channels)
            issue = checked.issue
            assert issue is not None  # no errors means it loaded
            if issue.draft:
                line = issue.line_of("draft")
                where = f"{path}:{line}" if line else str(path)
                self.progress(f"{where}: skipped: 'draft: true' (remove it when it is ready)")
                continue
            if issue.id in seen and seen[issue.id] != issue.path:
                raise IssueError(
                    issue.path,
                    f"issue id '{issue.id}' is also used by {seen[issue.id]}; "
                    "give one of them another 'id:' in its front matter",
                    issue.line_of("id"),
                )
            seen[issue.id] = issue.path
            accounts = self._for_issue(issue, accounts_by_channel, options)
            planned: dict[str, list[tuple[str, str]]] = {}
            deliveries = {a.key: self._delivery(options, issue, a) for a in accounts}
            for account in accounts:
                mode = deliveries[account.key].mode
                if mode != "draft":
                    _require_to_publish(issue, account)
                planned.setdefault(account.channel, []).append((account.name, mode))
            links = link(issue, planned, self.ledger)
            lead = lead_of(issue) if any(a.channel == BUNDLE_CHANNEL for a in accounts) else None
            for account in accounts:
                if lead is not None and account.channel == BUNDLE_CHANNEL:
                    self.progress(
                        f"{path}: {account.key}: goes out with '{lead[0]}' ({lead[1].name}, "
                        f"{BUNDLE_CHANNEL}.with), not on its own"
                    )
                    continue
                found = links.get(account.channel, ())
                delivery = deliveries[account.key]
                job = self._job(issue, account, delivery.mode, checked.rendered, found)
                jobs.append(self._bundled(replace(job, handoff=delivery.handoff)))
        self.settings.require_credentials(job.account for job in jobs)
        config = self._config_shown
        # With the run's earlier plans: a run-due tick plans a file's accounts in two
        # batches (a retry after a fix apart), and one name in each is still one account.
        doubled = two_names_one_account([*self._planned.values(), *jobs], config)
        if doubled is not None:
            raise doubled
        elsewhere: list[Earlier] = []
        this_run = dict(self._planned)
        for job in jobs:  # another file that still exists may own this id in the ledger
            existing = self.ledger.get(job.key)
            if not options.new_post and (existing is None or not existing.reached_platform):
                # A new key may be a published issue renamed, or its 'id:' changed; or
                # another file of this run with the same words.
                # Or the same issue on the same platform account under another name.
                configured = self.settings.accounts_for(job.account.channel)
                earlier = same_issue_as(self.ledger, job, this_run, configured, config)
                if earlier is not None:
                    elsewhere.append(earlier)
            this_run.setdefault((job.account.key, job.content_hash), job)
            owner = self.ledger.claimed_by(job.key, job.issue.path, job.content_hash)
            if owner:
                raise IssueError(
                    job.issue.path,
                    f"issue id '{job.issue.id}' is already published from {owner}; "
                    "give this file another 'id:'",
                    job.issue.line_of("id"),
                )
            if options.new_draft and existing and existing.state in ("published", "submitted"):
                reconcile = job.account.command("reconcile", job.issue.id)
                raise UsageError(
                    f"{job.account.key}: '{job.issue.id}' is {state_word(existing)}; "
                    "--new-draft only replaces the draft of a post not yet published: select "
                    f"the stuck post with -c (and run '{reconcile}' if it is publishing)"
                )
        if elsewhere:
            raise refusal(elsewhere)
        self._planned = this_run
        # Held as drafts where an account requires an approval they lack. Not said here:
        # a dry run's plan says it in its own line, a real run once the draft is there.
        return [held_for_approval(self.ledger, job) for job in jobs]

    def _job(
        self,
        issue: Issue,
        account: Account,
        mode: str,
        rendered: Mapping[str, Rendered] | None,
        links: tuple[Link, ...] = (),
    ) -> Job:
        """One post's job; references the ledger can answer are filled in before rendering."""
        known = {found.reference.text: found.url for found in links if found.url}
        if known:
            issue, rendered = resolve(issue, account.channel, known), None
        settings = issue.settings(account.channel, account.options)
        output = self._rendered_for(issue, account, rendered)
        if self._own_limits(account) or output is not (rendered or {}).get(account.channel):
            self._lint_again(issue, account, output)
        return Job(
            issue, account, output, settings, mode, content_hash(output, settings, mode), links
        )

    def _checked(self, path: Path | str, channels: Sequence[str]) -> Checked:
        """The file loaded, rendered and linted for ``channels``; its first error stops
        the run (exit 2, its file:line) before anything is sent."""
        checked = check_file(
            path,
            channels,
            self._context(path, channels),
            self.settings.platforms(),
            images=self.images,
        )
        if checked.errors:
            raise _lint_failed(checked.errors)
        return checked

    def _bundled(self, job: Job) -> Job:
        """A WeChat job with its companions (``wechat.with``, 多图文): each loaded, linted
        (its own file:line) and rendered for the same account, in the same mode."""
        if job.account.channel != BUNDLE_CHANNEL:
            return job
        paths = find_companions(job.issue)
        if not paths:
            return job
        bundle = []
        channels = (BUNDLE_CHANNEL,)
        for path in paths:
            checked = self._checked(path, channels)
            assert checked.issue is not None  # no errors means it loaded
            companion = self._job(checked.issue, job.account, job.mode, checked.rendered)
            bundle.append(companion)
        if any(j.settings.digest for j in (job, *bundle)):
            self.progress(
                f"{job.issue.path}: {job.account.key}: WeChat keeps no digest in a 多图文 draft "
                "(only a single article has one); the digests are left out"
            )
        digest = hashlib.sha256(
            "\0".join([job.content_hash, *(c.content_hash for c in bundle)]).encode()
        ).hexdigest()
        return replace(job, bundle=tuple(bundle), content_hash=digest)

    def _lint_again(self, issue: Issue, account: Account, output: Rendered) -> None:
        """A body rendered again (往期回顾, a resolved link) is checked again: it is longer;
        so is one for an account with limits of its own."""
        platforms = {account.channel: self.settings.platform_for(account)}
        errors = _lint_errors(issue, account.channel, output, platforms, self.images)
        if errors:
            raise _lint_failed(errors)

    def _channels_of(
        self, path: Path | str, accounts: Sequence[Account], options: PublishOptions
    ) -> tuple[str, ...]:
        """The channels to lint: the configured ones the issue asks for (``-c`` wins).

        An issue meant for Zhihu alone must not fail for lacking WeChat's cover.
        """
        configured = tuple(dict.fromkeys(a.channel for a in accounts))
        if options.targets:
            return configured
        try:
            wanted = load_issue(path).channels
        except IssueError:
            return configured  # check_file reports what is wrong with the file
        if not wanted:
            return configured
        chosen = tuple(c for c in configured if c in wanted)
        if not chosen:
            raise UsageError(
                f"{path}: asks for {', '.join(wanted)}, but no account of "
                f"{'that channel' if len(wanted) == 1 else 'those channels'} is configured; "
                "add one to crosspost.toml (see config/crosspost.example.toml)"
            )
        return chosen

    def _accounts(self, path: Path | str, options: PublishOptions) -> tuple[Account, ...]:
        if options.targets:
            return self.settings.select(options.targets)
        if not self.settings.accounts:
            raise UsageError(
                "no accounts are configured; copy config/crosspost.example.toml to "
                "crosspost.toml, or try it with --sandbox"
            )
        return self.settings.select(())

    def _for_issue(
        self, issue: Issue, accounts: Iterable[Account], options: PublishOptions
    ) -> list[Account]:
        """The accounts this issue goes to: the issue's channels unless -c says otherwise."""
        if options.targets or not issue.channels:
            return list(accounts)
        return [a for a in accounts if a.channel in issue.channels]

    def _delivery(self, options: PublishOptions, issue: Issue, account: Account) -> Delivery:
        """What ``account`` does with ``issue`` (see :mod:`crosspost.publish.delivery`); the
        reason, when it is not what was asked, is said once per account in a run."""
        issue_mode = issue.settings(account.channel).options.get("mode")
        memory = KindMemory(self.settings.state_dir, self.clock)
        delivery = plan_delivery(self.settings, account, issue_mode, options.mode, memory=memory)
        self._say(delivery.note(account))
        return delivery

    def _say(self, note: str) -> None:
        if note and note not in self._said:
            self._said.add(note)
            self.progress(note)

    @property
    def _config_shown(self) -> str:
        """The config file as a refusal names it (where to rename or remove an account)."""
        return str(self.settings.config_path or "the config")

    def adapter_for(self, account: Account, memo: RunMemo | None = None) -> Adapter:
        """An adapter of ``account`` on this run's clock, sleep and redactor (the caller
        closes its ``http``)."""
        return build_adapter(
            account,
            self.settings.state_dir,
            timeout=self.settings.timeout,
            clock=self.clock,
            sleep=self.sleep,
            redactor=run_redactor(self.ledger),
            memo=memo,
        )

    def _probed(self, job: Job) -> Job:
        """For ``--dry-run``: the job handed off when WeChat says (read-only) its account
        may not do its mode; a run asks the same in the machine, once per account."""
        record = self.ledger.get(job.key)
        if not needs_probe(job, record):
            return job
        adapter = self.adapter_for(job.account, self._memo)
        try:
            handed = probed(job, adapter)
        finally:
            adapter.http.close()
        if handed is not job:
            self._say(handed_off_note(handed))
        return handed

    def _context(self, path: Path | str, channels: Sequence[str]) -> RenderContext:
        return render_context(self.settings)

    def _own_limits(self, account: Account) -> bool:
        """Whether ``account`` has limits of its own, beside its channel's in the config."""
        return dict(account.limits) != dict(self.settings.limits.get(account.channel, {}))

    def _rendered_for(
        self, issue: Issue, account: Account, rendered: Mapping[str, Rendered] | None
    ) -> Rendered:
        """Render once per channel, except that "往期回顾" links each account's own posts
        and an account with limits of its own is rendered by them (Zhihu's captions);
        an issue with a reference filled in is rendered again (``rendered=None``)."""
        shared = not issue.series or not issue.previous
        if rendered is not None and shared and not self._own_limits(account):
            return rendered[account.channel]
        context = render_context(
            self.settings,
            previous=previous_issues(self.ledger, issue, account.channel, account.name),
            account=account,
        )
        return render(issue, account.channel, context)

    # --- phase 2: the network ---------------------------------------------------------

    def run(self, jobs: Sequence[Job], options: PublishOptions) -> PublishReport:
        """Make every post; channels run concurrently, each post under its own lock.

        A post that needs another's URL (``{zhihu.url}``) waits for it: posts without
        such needs go first, together; the others follow once the URL is in the ledger,
        rendered again with it. One whose referenced post did not come out is skipped.
        """
        if not jobs or self.stop.asked:
            return PublishReport(tuple(map(_not_started, jobs)), interrupted=self.stop.asked)
        results: dict[PostKey, PostResult] = {}
        waiting = list(jobs)
        # A post named by a reference but not run now (the scheduler runs what is due)
        # is not waited for: its URL is in the ledger, or the dependant is skipped.
        in_run = {job.key for job in jobs}
        # This run's: the Zhihu login and topics are asked once per account.
        memo = RunMemo(shared=self._shared())
        # The posts' reads of the images, each image read (and hashed) once for every
        # channel; not the plan's, as a file must still be there when the posts begin.
        images = replace(self.images, reads=ReadOnce())
        with ThreadPoolExecutor(max_workers=min(8, len(jobs))) as pool:
            while waiting and not self.stop.asked:
                ready = [
                    j for j in waiting if all(k in results or k not in in_run for k in j.waits_for)
                ]
                ready = ready or waiting  # never stuck: plan has refused every cycle
                waiting = [j for j in waiting if all(j is not r for r in ready)]
                runnable: list[Job] = []
                for job in ready:
                    filled = fill_links(job, results, self.ledger, self._rendered_for)
                    if isinstance(filled, PostResult):
                        results[job.key] = filled
                    else:
                        runnable.append(filled)
                machines = [self._machine(job, memo, images) for job in runnable]
                running = [pool.submit(machine.run, options) for machine in machines]
                for machine, result in zip(machines, self._results(running), strict=True):
                    results[machine.key] = result
        for job in jobs:  # stopped before they started: said, and left to the next run
            if job.key not in results:
                results[job.key] = _not_started(job)
        return PublishReport(tuple(results[job.key] for job in jobs), interrupted=self.stop.asked)

    def _results(self, running: Sequence[Future[PostResult]]) -> list[PostResult]:
        """Each post's result. Ctrl-C (or SIGTERM) lands in this wait: the posts are told
        to stop before their next step, and their results are still waited for, so the
        ledger (open until they are done) and the report say where each one stopped. A
        further Ctrl-C changes nothing: the calls out are bounded by the timeout."""
        while True:
            try:
                return [future.result() for future in running]
            except KeyboardInterrupt:
                if not self.stop.asked:
                    self.progress(
                        "stopping: each post finishes the call it has out and sends nothing more"
                    )
                self.stop.ask()

    def reconcile(self, issue_id: str) -> PublishReport:
        """``crosspost reconcile``: settle every open question about an issue's posts.

        Only posts in doubt are asked about, each under the lock a publishing run takes
        (see :func:`crosspost.publish.settle.reconcile_issue`).
        """
        results = reconcile_issue(
            self.settings,
            self.ledger,
            issue_id,
            clock=self.clock,
            sleep=self.sleep,
            progress=self.progress,
            lock_timeout=self.lock_timeout,
        )
        return PublishReport(results)

    def adopt(self, paths: Sequence[Path | str], options: PublishOptions) -> PublishReport:
        """``crosspost reconcile --adopt``: for each post of the issues the ledger does not
        know, adopt the article of the same issue already on the account (a lost state
        dir, another machine), so the next publish does not make a second one."""
        jobs = self.plan(paths, options)
        memo = RunMemo(shared=self._shared())
        return PublishReport(tuple(self._machine(job, memo, self.images).adopt() for job in jobs))

    def _shared(self) -> Ledger | None:
        """The ledger when several machines share it (the WeChat token and poll count
        then live in it), else None (they stay files in this machine's state dir)."""
        return self.ledger if self.ledger.engine == "postgresql" else None

    def _machine(self, job: Job, memo: RunMemo, images: ImageSources) -> PostMachine:
        """The state machine of one post, with this run's ledger, clock, images and memo."""
        return PostMachine(
            job,
            ledger=self.ledger,
            state_dir=self.settings.state_dir,
            timeout=self.settings.timeout,
            clock=self.clock,
            sleep=self.sleep,
            progress=self.progress,
            lock_timeout=self.lock_timeout,
            checkpoint=self.checkpoint,
            memo=memo,
            images=images,
            stop=self.stop,
            accounts=self.settings.accounts_for(job.account.channel),
            config=self._config_shown,
        )

    def dry_run(self, jobs: Sequence[Job], options: PublishOptions) -> list[DryRunEntry]:
        """What :meth:`run` would do for each job, and a diff against what was last sent."""
        jobs = [self._probed(job) for job in jobs]
        entries = dry_run(self.ledger, self.settings.state_dir, jobs, options)
        entries = [self._login_checked(entry, options) for entry in entries]
        return [
            replace(e, action=f"{e.action}; {describe_links(e.job)}") if e.job.links else e
            for e in entries
        ]

    def _login_checked(self, entry: DryRunEntry, options: PublishOptions) -> DryRunEntry:
        """For ``--dry-run``: what the login check would say of a post a run would send
        something of, where only that check says which account the login is (Zhihu's
        member): the refusal a run would give there (another member's post, the issue
        already sent to this one under another name), or that the check fails now. A
        read, once per run per account (the run's memo)."""
        job = entry.job
        if (
            entry.action.startswith("nothing:")
            or not login_names_no_account(job)
            or job.account.missing_credentials()
        ):
            return entry
        first = before_first_create(self.ledger.get(job.key), options)
        adapter = self.adapter_for(job.account, self._memo)
        try:
            checked = adapter.preflight()
        except CrosspostError as error:
            action = f"{entry.action}, once the login check passes (now: {error})"
            return replace(entry, action=action)
        finally:
            adapter.http.close()
        member = checked.account_identity
        if member is None:
            return entry
        # The ledger as the run's claim would leave it (nothing written), then the run's look.
        posts = self.ledger.as_claimed(
            job.key, member, MEMBER, provisional=job.account.identity_kind
        )
        configured = self.settings.accounts_for(job.account.channel)
        refused = login_refusal(job, posts, member, configured, self._config_shown, first=first)
        return entry if refused is None else replace(entry, action=f"nothing: {refused.problem}")

    def publish(self, paths: Sequence[Path | str], options: PublishOptions) -> PublishReport:
        """Plan, then run: the whole of ``crosspost publish``."""
        return self.run(self.plan(paths, options), options)


def _not_started(job: Job) -> PostResult:
    """The result of a post the run was stopped (Ctrl-C, SIGTERM) before it began."""
    message = "not started: the run was interrupted; run again to make it"
    return PostResult(job.key, "pending", None, message, EXIT_TEMPORARY)


def _lint_errors(
    issue: Issue,
    channel: str,
    output: Rendered,
    platforms: Mapping[str, Platform],
    images: ImageSources,
) -> list[Problem]:
    return [
        p for p in lint(issue, {channel: output}, platforms, images=images) if p.severity == ERROR
    ]


def _lint_failed(errors: Sequence[Problem]) -> UsageError | TransientError:
    """The first problem's line (it names the file and line), and how many more. Remote
    images out of reach alone are network trouble (exit 75: cron tries again); with any
    other problem the issue needs a person first (exit 2), and that problem is named."""
    if only_unreachable(problem.code for problem in errors):
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return TransientError(f"{errors[0].unlabelled()}{more}")
    errors = sorted(errors, key=lambda problem: problem.code == UNREACHABLE)
    lines = [problem.unlabelled() for problem in errors]
    more = f" (and {len(lines) - 1} more; run 'crosspost check')" if len(lines) > 1 else ""
    return UsageError(f"{lines[0]}{more}")


def _require_to_publish(issue: Issue, account: Account) -> None:
    """Stop before anything is sent when the platform needs an option (Zhihu's topics)
    that neither the issue nor the account sets: the same words as ``check``."""
    platform = PLATFORMS.get(account.channel)
    if platform is None:
        return
    options = issue.settings(account.channel, account.options).options
    for option in platform.missing_to_publish(options, account.options):
        line = issue.line_of(f"{account.channel}.{option.name}") or issue.line_of(account.channel)
        raise IssueError(issue.path, platform.needed_message(option, account.key), line or 1)
