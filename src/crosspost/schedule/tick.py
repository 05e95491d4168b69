"""``run-due`` for cron: publish every scheduled issue whose time has come, once.

A tick is four steps:

1. **Scan** the issue folders, reading only front matter (:mod:`crosspost.schedule.scan`).
   Nothing due and nothing wrong: return at once, without the lock or the ledger.
2. **Lock** ``<state_dir>/run-due.lock`` (:func:`~crosspost.schedule.state.run_lock`): one
   tick at a time per state dir. A tick that finds it taken does nothing and says nothing
   (cron must not mail noise); ``wait`` blocks instead. The lock is an ``flock``, so the
   kernel releases it when its holder dies, even by SIGKILL: a killed tick never leaves a
   stale lock behind (the lock file itself stays; it is the holder that counts).
3. **Decide**, per issue and account: already settled for this version of the file
   (:class:`~crosspost.schedule.state.SchedulerState`) → skip without rendering; no post
   yet and ``publish_at`` older than the grace → **missed**, reported, published only with
   ``include_missed``; a temporary failure whose ``next_attempt_at`` (5 min doubling to
   6 h, written by the publisher) is still ahead → **waiting**; anything else → planned.
4. **Publish** through :class:`~crosspost.publish.runner.Publisher`, which resumes unfinished
   posts (an unconfirmed step is reconciled first) and never posts twice.

Bad input in one file (unreadable, broken front matter, naive ``publish_at``, lint error,
a channel no account serves) becomes a ``problem`` entry naming the file and line; the
other issues still go out. So does a config with no account at all while an issue is due,
or an account without its credentials. A ``draft: true`` skipped and a file whose only
schedule is a misspelt ``publish_at`` are notes (``skipped``, ``unscheduled``): said once
per version of the file like a problem, but no failure, since nothing was asked to go out.
An issue that cannot be planned for now (a remote picture out of reach) is ``temporary``:
said on each tick that tries it, exit 75, nothing of it settled; the others still go out.

Exit code precedence (most urgent first): 3 unconfirmed > 1 a channel failed > 2 bad input
> 75 temporary failure > 0. A person must look at 3, 1 and 2; 75 heals by itself on a
later tick. Missed issues, notes and posts waiting for their retry time exit 0: the tick
did all it was asked to do now.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from crosspost.config.redaction import Redactor
from crosspost.config.settings import Account, Settings
from crosspost.config.sources import CONFIG_NAME
from crosspost.errors import (
    EXIT_BAD_INPUT,
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    ConfigError,
    CrosspostError,
    IssueError,
    StorageError,
    TransientError,
    UsageError,
)
from crosspost.issue.fields import ISSUE_SUFFIXES
from crosspost.issue.loader import default_issue_id
from crosspost.ledger.store import Ledger, PostKey, PostRecord
from crosspost.publish.failures import wait_end
from crosspost.publish.jobs import Job, PostResult, PublishOptions, stopped_by
from crosspost.publish.machine import EDIT_REFUSED, Checkpoint, no_checkpoint
from crosspost.publish.runner import Publisher
from crosspost.publish.words import result_words
from crosspost.schedule.report import (
    COMING,
    TEMPORARY,
    DueEntry,
    DueOptions,
    DueReport,
    at,
    short_moment,
    span,
)
from crosspost.schedule.scan import Scan, ScheduledFile, look, named_pictures_digest
from crosspost.schedule.state import (
    CHANGED,
    DONE,
    FAILED,
    MISSED,
    STUCK_AFTER,
    Holder,
    SchedulerState,
    fingerprint,
    run_lock,
    settings_digest,
    text_digest,
)

__all__ = ["Accounts", "DueEntry", "DueOptions", "DueReport", "run_due"]

Progress = Callable[[str], None]
#: How a report of no account at all ends: what it means for the due issues.
NO_ACCOUNT_WAIT = "nothing was sent, the due issues wait for an account"
#: Swaps in the accounts a tick publishes to, for as long as it runs (``--sandbox``: the
#: emulators'). Entered only once something is due, so an idle tick starts nothing.
Accounts = Callable[[Settings], AbstractContextManager[Settings]]


def run_due(
    settings: Settings,
    options: DueOptions,
    *,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    progress: Progress | None = None,
    redactor: Redactor | None = None,
    checkpoint: Checkpoint = no_checkpoint,
    accounts: Accounts | None = None,
    found: Scan | None = None,
) -> DueReport:
    """One scheduler tick (see the module docstring). ``clock`` is the whole run's clock.

    ``redactor`` is the run's (the log file's filter uses it too): the accounts' secrets
    and every token the adapters fetch are hidden in the ledger and the log alike.
    ``checkpoint`` goes to the publisher (see :class:`~crosspost.publish.runner.Publisher`);
    ``accounts`` replaces the configured accounts while the tick publishes (see
    :data:`Accounts`); the command chooses it, so the scheduler knows no emulator.
    ``found`` is the tick's :func:`~crosspost.schedule.scan.look`, when the caller took it.
    """
    say: Progress = progress or (lambda line: None)
    now = datetime.fromtimestamp(clock(), tz=UTC)
    if found is None:
        found = look(options.dirs or settings.issue_dirs, now, rehearsal=settings.rehearsing)
    if found.idle and not (options.dry_run and found.later):
        return DueReport.of_scan(now, found)
    lock = (
        _no_lock()
        if options.dry_run
        else run_lock(
            settings.state_dir, wait=options.wait, ledger_url=settings.ledger_url, clock=clock
        )
    )
    with lock as mine:
        if not mine:
            say("another run-due holds the lock; leaving it to finish")
            return DueReport.of_scan(now, found, locked=True, stuck=_stuck(settings, clock()))
        # Fingerprints come from the configured accounts, not the sandbox's fresh ports.
        context = settings_digest(settings, options.mode, options.grace)
        with (accounts or nullcontext)(settings) as settings:
            redactor = redactor or Redactor()
            for account in settings.accounts:  # --sandbox brings accounts of its own
                for secret in account.secrets:
                    redactor.register(secret.reveal())
            settings.state_dir.mkdir(parents=True, exist_ok=True)
            with Ledger.open(settings.ledger, clock=clock, redact=redactor) as ledger:
                state = SchedulerState.load(settings.state_dir)
                tick = _Tick(
                    settings, ledger, state, options, now, clock, sleep, checkpoint, say, context
                )
                report = tick.run(found)
                if not options.dry_run:
                    try:
                        state.save()
                    except StorageError as error:  # said with the posts, not instead of them
                        report = dataclasses.replace(report, trouble=report.trouble or error)
                return report


def _stuck(settings: Settings, now: float) -> str:
    """What to say of the run that holds the lock when it has held it too long: every
    tick it keeps out leaves quietly, and scheduled issues would wait for ever unseen."""
    holder = Holder.read(settings.state_dir)
    if holder is None or now - holder.since < STUCK_AFTER.total_seconds():
        return ""
    since = datetime.fromtimestamp(holder.since, tz=UTC)
    return (
        f"run-due has been kept out by another run (pid {holder.pid} on {holder.host}) "
        f"since {at(since)}, {span(timedelta(seconds=now - holder.since))} ago: it seems "
        f"stuck, and nothing scheduled goes out while it holds the lock; stop it (kill "
        f"{holder.pid}), and the next tick resumes its posts"
    )


@contextmanager
def _no_lock() -> Iterator[bool]:
    yield True


@dataclass
class _Tick:
    """The deciding and publishing part of one tick, under the lock."""

    settings: Settings
    ledger: Ledger
    state: SchedulerState
    options: DueOptions
    now: datetime
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    checkpoint: Checkpoint
    say: Progress
    context: str
    entries: list[DueEntry] = field(default_factory=list)
    #: Post key → (issue path, fingerprint), to settle each result on its file.
    owners: dict[Any, tuple[Path, str]] = field(default_factory=dict)
    #: (issue path, fingerprint) → the account keys the issue goes to.
    accounts_of: dict[tuple[Path, str], list[str]] = field(default_factory=dict)
    issue_of: dict[Path, str] = field(default_factory=dict)
    #: (issue id, account) → the outcome settled before this tick, on any version.
    before: dict[tuple[str, str], str | None] = field(default_factory=dict)
    #: Results that tell nothing new (see :meth:`DueReport.is_news`).
    repeats: set[tuple[str, str]] = field(default_factory=set)
    #: Accounts left out of this tick for want of credentials.
    unusable: set[str] = field(default_factory=set)
    #: Published posts of changed files → their latest "cannot edit" note before the run.
    refusals: dict[PostKey, int] = field(default_factory=dict)
    #: Post key → the mode this tick meant for it (``publish`` for a post it only drafted
    #: to hand off or to wait for approval): what a retry by hand must ask for.
    modes: dict[PostKey, str] = field(default_factory=dict)

    def run(self, found: Scan) -> DueReport:
        publisher = Publisher(
            self.settings,
            self.ledger,
            clock=self.clock,
            sleep=self.sleep,
            progress=self.say,
            checkpoint=self.checkpoint,
        )
        context = self.context
        for problem in found.problems:
            self._problem(problem.path, fingerprint(text_digest(str(problem)), context), problem)
        for file in found.unscheduled:
            self._note(file.path, fingerprint(file.digest, context), "unscheduled", str(file))
        kept = {str(f.path) for f in found.past_due} | {str(p.path) for p in found.problems}
        kept |= {str(f.path) for f in found.unscheduled}
        kept |= self._account_problems(found)
        jobs: list[Job] = []
        retry: list[Job] = []
        settled = 0
        for entry in found.past_due:
            print_ = fingerprint(entry.digest, context)
            if self._settled(entry.path, print_):
                settled += 1
                continue
            planned, retried = self._plan_file(publisher, entry, print_)
            jobs.extend(planned)
            retry.extend(retried)
        self.state.keep_only(kept)
        results: list[PostResult] = []
        if self.options.dry_run:
            self._dry_run(publisher, [*jobs, *retry])
            self._coming(publisher, found.later)
        else:
            for batch, again in ((jobs, False), (retry, True)):
                options = PublishOptions(update=self.options.update, retry_failed=again)
                # After Ctrl-C or SIGTERM, the retries come back "not started" at once.
                results.extend(publisher.run(batch, options).results if batch else ())
            results = self._settle(results)
        report = DueReport(
            self.now,
            found.files,
            found.upcoming,
            found.next_due,
            settled,
            tuple(results),
            tuple(self.entries),
            repeats=frozenset(self.repeats),
            interrupted=publisher.stop.asked,
            words=result_words(self.ledger, results),
            trouble=stopped_by(results),
        )
        return report

    def _account_problems(self, found: Scan) -> set[str]:
        """Report no account at all, or each account whose credentials are missing.

        One broken account (a variable missing from ``.env``) must not hold back every
        other channel: its posts wait, the others go. No account at all (a cron line that
        lost its ``CROSSPOST_CONFIG``) is said only when an issue is due: a folder with
        nothing due stays quiet. Each is a problem of the config, said once per version of
        it (exit 2, then 0). Returns the state-file keys of these reports, to keep them.
        """
        where = self.settings.config_path or Path(CONFIG_NAME)
        if not self.settings.accounts and found.past_due:
            if self.settings.config_path is None:
                problem = ConfigError(
                    "no accounts are configured: no config file was found (--config, "
                    f"CROSSPOST_CONFIG, ./{CONFIG_NAME}, ~/.config/crosspost/{CONFIG_NAME}); "
                    "set CROSSPOST_CONFIG in the cron line, or create one from "
                    f"config/crosspost.example.toml; {NO_ACCOUNT_WAIT}"
                )
            else:
                problem = ConfigError(
                    f"no accounts are configured in {where}; add one (see "
                    f"config/crosspost.example.toml); {NO_ACCOUNT_WAIT}"
                )
            key = Path(f"{where}#accounts")
            self._problem(key, fingerprint(text_digest(str(problem)), self.context), problem)
            return {str(key)}
        keys: set[str] = set()
        for account in self.settings.accounts:
            try:
                self.settings.require_credentials([account])
            except ConfigError as problem:
                self.unusable.add(account.key)
                message = str(problem).removesuffix("; nothing was sent")
                problem = ConfigError(f"{message}; {account.key}'s scheduled posts wait for it")
                key = Path(f"{where}#{account.key}")
                self._problem(key, fingerprint(text_digest(str(problem)), self.context), problem)
                keys.add(str(key))
        return keys

    def _settled(self, path: Path, print_: str) -> bool:
        """True when every account of this version of the file needs nothing from us."""
        known_problem = self.state.problem(path, print_)
        if known_problem is not None:
            if self.state.pictures(path) != self._pictures(path):
                return False  # a picture it names changed: look again (the same is not news)
            self.entries.append(DueEntry("problem", path, known_problem, repeat=True))
            return True
        known_note = self.state.note(path, print_)
        if known_note is not None:
            kind, message = known_note
            issue_id = self.state.issue_id(path)
            self.entries.append(DueEntry(kind, path, message, issue_id, repeat=True))
            return True
        outcomes = self.state.complete(path, print_)
        if outcomes is None:
            return False
        if self.options.update and CHANGED in outcomes.values():
            return False
        if self.options.include_missed and MISSED in outcomes.values():
            return False
        for account, outcome in outcomes.items():
            if outcome == MISSED:  # listed again (for --json and -v), not news
                message = "missed (reported before); run with --include-missed to publish it"
                issue_id = self.state.issue_id(path)
                self.entries.append(DueEntry("missed", path, message, issue_id, account, True))
        return True

    def _plan_file(
        self, publisher: Publisher, entry: ScheduledFile, print_: str
    ) -> tuple[list[Job], list[Job]]:
        try:
            entry = entry.loaded()
        except IssueError as problem:
            self._problem(entry.path, print_, problem)
            return [], []
        issue_id = entry.issue_id
        if entry.front and entry.front.get("draft") is True:
            # Not a failure (exit 0): the editor said "not ready". Said once per version,
            # so cron does not mail it every tick; removing the line makes the issue due.
            line = entry.line_of("draft")
            where = f"{entry.path}:{line}" if line else str(entry.path)
            message = f"{where}: 'draft: true' (remove it when it is ready)"
            self._note(entry.path, print_, "skipped", message, issue_id)
            return [], []
        serving = [
            a for a in self.settings.accounts if not entry.channels or a.channel in entry.channels
        ]
        if self.settings.accounts and not serving:
            # No account of the issue's channels (or a channel crosspost does not know):
            # the planner says it in publish's own words, and sends nothing.
            try:
                publisher.plan([entry.path], PublishOptions(mode=self.options.mode))
            except UsageError as problem:
                self._problem(entry.path, print_, problem)
                return [], []
        accounts = [a for a in serving if a.key not in self.unusable]
        plain: list[str] = []
        again: list[str] = []
        # What each account had settled on any version of the file, read before this
        # version's entry replaces it.
        before = {a.key: self.state.last(entry.path, a.key) for a in accounts}
        same_id = self.state.issue_id(entry.path) in (None, issue_id)
        for account in accounts:
            outcome = self.state.outcome(entry.path, print_, account.key)
            if outcome in (DONE, FAILED) or (outcome == CHANGED and not self.options.update):
                continue
            previous = before[account.key]
            self.before[(issue_id, account.key)] = previous[1] if previous else None
            key = PostKey(issue_id, account.channel, account.name)
            record = self.ledger.get(key)
            sent = previous is not None and previous[1] in (DONE, CHANGED)
            if record is None and same_id and sent:
                self._ledger_lost(entry, issue_id, account)
                continue
            if record is not None:
                self.state.tell(entry.path, account.key, None)  # a ledger lost again is news
            if record is not None and record.state == "published":
                self.refusals[key] = self._last_refusal(key)
            if record is None:
                # Still missed after an edit (or a config change) is not news either.
                known = bool(previous and previous[1] == MISSED)
                if self._missed(entry, issue_id, account, print_, known):
                    continue
            elif (retry := self._retry_at(record)) is not None and retry > self.clock():
                retry_at = datetime.fromtimestamp(retry, tz=UTC)
                self._entry("waiting", entry, issue_id, account, f"next try at {at(retry_at)}")
                continue
            changed_since = previous and previous[0] != print_ and previous[1] == FAILED
            (again if record and record.error_permanent and changed_since else plain).append(
                account.key
            )
        self.accounts_of[(entry.path, print_)] = [a.key for a in accounts]
        self.issue_of[entry.path] = issue_id
        self._mark_complete(entry.path, print_)
        planned: list[list[Job]] = []
        for targets in (plain, again):
            if not targets:
                planned.append([])
                continue
            wanted = PublishOptions(tuple(targets), self.options.mode, self.options.update)
            try:
                jobs = publisher.plan([entry.path], wanted)
            except UsageError as problem:
                self._problem(entry.path, print_, problem)
                return [], []
            except TransientError as trouble:
                # A remote picture out of reach now: this issue waits for the next tick
                # (nothing of it is settled), the other due issues still go out.
                self.entries.append(DueEntry(TEMPORARY, entry.path, str(trouble), issue_id))
                return [], []
            for job in jobs:
                self.owners[job.key] = (entry.path, print_)
                self.modes[job.key] = job.awaits_approval or job.handoff or job.mode
            planned.append(jobs)
        return planned[0], planned[1]

    def _retry_at(self, record: PostRecord) -> float | None:
        """When a post waiting after a temporary failure is tried again (None: it is not
        waiting); a wait the clock stretched by going back is cut to its own length from
        now (:func:`~crosspost.publish.failures.wait_end`), and the ledger keeps the new
        time, so the next ticks count from this one (not a dry run's: it writes nothing)."""
        now = self.clock()
        end = wait_end(record, now)
        if end is None or end == record.next_attempt_at or self.options.dry_run:
            return end
        assert record.next_attempt_at is not None
        stretched = record.next_attempt_at - now
        self.ledger.record(record.key, next_attempt_at=end)
        self.ledger.note(
            record.key,
            "wait",
            f"the clock went back since this wait was set: the {span(timedelta(seconds=end - now))}"
            f" wait ends at {at(datetime.fromtimestamp(end, tz=UTC))}, not in "
            f"{span(timedelta(seconds=stretched))}",
            {"next_attempt_at": end, "was": record.next_attempt_at},
        )
        return end

    def _ledger_lost(self, entry: ScheduledFile, issue_id: str, account: Account) -> None:
        """A post an earlier tick settled as sent that the ledger does not know: the
        ledger was deleted, replaced or is another one (``ledger_url``, ``state_dir``).
        Planned as new, it would be sent again (a 群发 to every follower twice), so it
        waits for a person; said once, looked at again on every tick, so the post goes
        on as before once the ledger is back."""
        message = (
            f"run-due sent {issue_id} to {account.key} before, but the ledger has no post "
            "of it: the ledger was deleted, replaced or is not the one it was; restore it "
            "(or set ledger_url/state_dir back), and "
            "nothing is sent again; to send the issue anew on purpose, run "
            f"'{account.command('publish', str(entry.path), '-c', account.key)}'"
        )
        told = self.state.told(entry.path, account.key)
        self._entry("problem", entry, issue_id, account, message, repeat=told == message)
        self.state.tell(entry.path, account.key, message)

    def _missed(
        self,
        entry: ScheduledFile,
        issue_id: str,
        account: Account,
        print_: str,
        known: bool,
    ) -> bool:
        """Report a post whose time passed longer ago than the grace; True if it stays out."""
        grace = self.options.grace if self.options.grace is not None else self.settings.grace
        late = self.now - entry.publish_at
        if late <= grace or self.options.include_missed:
            return False
        message = (
            f"publish_at {entry.publish_at.isoformat()} passed {span(late)} ago, more than "
            f"the grace of {span(grace)}; run with --include-missed to publish it"
        )
        self._entry("missed", entry, issue_id, account, message, repeat=known)
        self.state.settle(entry.path, print_, account.key, MISSED)
        return True

    def _entry(
        self,
        kind: str,
        entry: ScheduledFile,
        issue_id: str,
        account: Account,
        message: str,
        *,
        repeat: bool = False,
    ) -> None:
        self.entries.append(DueEntry(kind, entry.path, message, issue_id, account.key, repeat))

    def _problem(self, path: Path, print_: str, problem: Exception) -> None:
        message = str(problem)
        repeat = self.state.problem(path, print_) == message
        self.entries.append(DueEntry("problem", path, message, repeat=repeat))
        pictures = self._pictures(path)
        self.state.mark(path, print_, complete=True, problem=message, pictures=pictures)

    def _pictures(self, path: Path) -> str:
        """The state of the pictures an issue file names (a config's own key names none)."""
        if path.suffix.lower() not in ISSUE_SUFFIXES:
            return ""
        return named_pictures_digest(path, self.settings.image_folders)

    def _note(
        self, path: Path, print_: str, kind: str, message: str, issue_id: str | None = None
    ) -> None:
        """A line said once per version of the file that is no failure (exit 0): a draft
        skipped, a file whose only schedule is a misspelt ``publish_at``."""
        repeat = self.state.note(path, print_) == (kind, message)
        self.entries.append(DueEntry(kind, path, message, issue_id, repeat=repeat))
        self.state.mark(path, print_, complete=True, issue_id=issue_id, note=(kind, message))

    def _settle(self, results: Sequence[PostResult]) -> list[PostResult]:
        """Remember outcomes that need nothing from the next tick while nothing changes.

        Returns the results, an edit its platform refused this tick with the way out as
        the post's to-do line (see :meth:`_edit_refused_now`).
        """
        told: list[PostResult] = []
        for result in results:
            refused = self._edit_refused_now(result)
            if refused:
                result = dataclasses.replace(result, todo=result.todo or result.message)
            told.append(result)
            owner = self.owners.get(result.key)
            if owner is None:
                continue
            account = f"{result.key.channel}:{result.key.account}"
            # Found as an earlier tick reported it: resumed after a lost state file, or the
            # file changed in a way the post does not show.
            known = self.before.get((result.key.issue_id, account)) == DONE
            quiet_states = ("unchanged", "published", "drafted") if known else ("unchanged",)
            quiet = result.state in quiet_states and not result.sent and not refused
            if quiet and result.exit_code == EXIT_OK:
                self.repeats.add((result.key.issue_id, account))
            if result.state == "waiting" and not result.todo:  # said when it began to wait
                self.repeats.add((result.key.issue_id, account))
            outcome: str | None = None
            if result.state == "changed":
                outcome = CHANGED
            elif result.exit_code == EXIT_OK and result.state in (
                "published",
                "unchanged",
                "drafted",
            ):
                outcome = DONE
            elif result.exit_code in (EXIT_CHANNEL_FAILED, EXIT_BAD_INPUT):
                outcome = FAILED
                if (
                    result.exit_code == EXIT_CHANNEL_FAILED
                    and self.before.get((result.key.issue_id, account)) != FAILED
                ):
                    told[-1] = self._left_failed(result, owner[0], account)
            self.state.settle(owner[0], owner[1], account, outcome)
        for path, print_ in set(self.owners.values()):
            self._mark_complete(path, print_)
        return told

    def _left_failed(self, result: PostResult, path: Path, account: str) -> PostResult:
        """A post the platform refused, its line saying how it is tried again: the next
        ticks leave it while the issue and the settings stay as they are (cron must not
        send a refused post every few minutes), so a fix made elsewhere (WeChat's IP
        whitelist, a secret renewed in the same variable) needs a person's run."""
        # The run as this tick made it: its mode (which may have come from the cron
        # line's --mode or environment, not the editor's shell) and --update; without
        # them a retry in a broadcast tick would only leave a draft.
        words = ["publish", "--retry-failed", str(path), "-c", account]
        mode = self.modes.get(result.key)
        if mode:
            words += ["--mode", mode]
        if self.options.update:
            words.append("--update")
        retry = self.settings.command(*words)
        message = (
            f"{result.message}; run-due tries it again only when the issue or its settings "
            f"change: once fixed elsewhere, run '{retry}'"
        )
        return dataclasses.replace(result, message=message)

    def _last_refusal(self, key: PostKey) -> int:
        """The ledger id of the post's latest "cannot edit a published article" note."""
        notes = (e.id for e in self.ledger.events(key) if e.summary == EDIT_REFUSED)
        return max(notes, default=0)

    def _edit_refused_now(self, result: PostResult) -> bool:
        """Whether this tick's publisher found an edit the platform cannot take (a
        published or mass-sent WeChat article) and said so for the first time.

        The publisher says it once per version of the issue (a ledger note) and in the
        result's message only: a line the cron mail must carry, since no later tick
        says it again. Told by a new note, not by the words of the message.
        """
        before = self.refusals.get(result.key)
        if before is None or result.sent or result.exit_code != EXIT_OK:
            return False
        return self._last_refusal(result.key) > before

    def _mark_complete(self, path: Path, print_: str) -> None:
        """A file is complete when every account it goes to has a settled outcome."""
        keys = self.accounts_of.get((path, print_), [])
        every = all(self.state.outcome(path, print_, key) for key in keys)
        self.state.mark(path, print_, complete=every, issue_id=self.issue_of.get(path))

    def _coming(self, publisher: Publisher, later: Sequence[tuple[str, datetime]]) -> None:
        """``--dry-run``: each issue still to come, soonest first, with its moment and
        what a tick at that moment would do on each account (the plan ``publish
        --dry-run`` shows: a draft that waits for approval, a hand-off), or what stops it
        from going out as it is now (a problem in the file, an account without its
        credentials, ``draft: true``). An editor's "is my issue going out tomorrow at 9?"
        needs no ``-v`` and no ``--now``."""
        options = PublishOptions(mode=self.options.mode, update=self.options.update)
        for name, moment in later:
            path = Path(name)
            when = f"at {short_moment(moment)}"
            try:
                jobs = publisher.plan([path], options)
                items = publisher.dry_run(jobs, options) if jobs else []
            except CrosspostError as problem:
                message = f"{when}, it will not go out as it is: {problem}"
                self.entries.append(DueEntry(COMING, path, message, default_issue_id(path)))
                continue
            if not jobs:  # planned nothing: 'draft: true' (the planner said it in -v)
                message = f"{when}, it will not go out: 'draft: true' (remove it when it is ready)"
                self.entries.append(DueEntry(COMING, path, message, default_issue_id(path)))
            for item in items:
                key = item.job.key
                account = f"{key.channel}:{key.account}"
                message = f"{when}, {item.job.mode}: {item.action}"
                self.entries.append(DueEntry(COMING, path, message, key.issue_id, account))

    def _dry_run(self, publisher: Publisher, jobs: Sequence[Job]) -> None:
        options = PublishOptions(update=self.options.update)
        for item in publisher.dry_run(jobs, options):
            key = item.job.key
            self.entries.append(
                DueEntry(
                    "would",
                    item.job.issue.path,
                    f"{item.job.mode}: {item.action}",
                    key.issue_id,
                    f"{key.channel}:{key.account}",
                )
            )
