"""Mass send (WeChat 群发) of one post: the quota first, the send exactly once, how it ended.

A mass send is the one push that reaches the followers' chat list, and the one call the
platform itself makes safe to repeat: a send carries an id (``clientmsgid``) derived from
the post (account, issue, content version, attempt), and WeChat refuses a second send
under the same id for 24 hours, answering with the first send's ids. So a send whose
answer was lost is settled by sending the *same* id again, never a new one; a new id
(the attempt counter) is used only after the platform said the send failed.

The ledger holds the intent (with the id) before the call, then ``msg_id`` (as the
post's ``publish_id``) and ``msg_data_id`` (as its ``article_id``), ``delivery =
"broadcast"`` and ``mass_status``; ``message/mass/get`` then says whether the send went
out, failed, or waits for an administrator's confirmation (群发保护).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Final

from crosspost.channels.base import (
    MASS_DELETED,
    MASS_FAILED,
    MASS_SENDING,
    MASS_SENT,
    STEP_BROADCAST,
    Adapter,
    Intent,
    MassSend,
    RemoteDraft,
)
from crosspost.config.accounts import Account
from crosspost.config.advice import command_line
from crosspost.config.counts import counted
from crosspost.errors import (
    EXIT_OK,
    EXIT_TEMPORARY,
    CrosspostError,
    Interrupted,
    PermanentError,
    UnconfirmedError,
)
from crosspost.ledger.store import Ledger, PostKey, PostRecord
from crosspost.platforms.wechat import ACCOUNT_KINDS, MASS_REPEAT_PAUSE

#: The ledger's word for a post pushed to the followers.
BROADCAST: Final = "broadcast"
#: Still SENDING after the run's polls: WeChat is sending, or (群发保护) an administrator
#: has to confirm the send on their phone within 30 minutes.
MASS_WAITING: Final = "waiting"
#: Statuses the quota counts (a send that may still go out counts).
COUNTED: Final = (MASS_SENDING, MASS_WAITING, MASS_SENT)
#: The ledger's outcome for a send the platform says failed: each one raises the attempt.
SEND_FAILED: Final = "send-failed"

#: Daily quotas reset at midnight in Beijing.
BEIJING: Final = timezone(timedelta(hours=8), "Asia/Shanghai")
#: WeChat dedupes a send id for 24 hours; replays stop an hour short of that, so a replay
#: never lands after the platform forgot the first send.
REPLAY_WINDOW: Final = 23 * 3600.0
#: A lost answer is replayed this many times in one run (after a minute each: 45066).
REPLAYS: Final = 3
#: Pauses before each message/mass/get of a run (injected sleep): about half a minute.
STATUS_DELAYS: Final = (1.0, 2.0, 4.0, 8.0, 15.0)
#: errcode of a media_id WeChat does not know: the draft left 草稿箱.
DRAFT_GONE: Final = 40007
#: The kind whose quota an account of unknown kind is held to: the strictest one.
STRICTEST_KIND: Final = "verified_subscription"


def account_kind(account: Account) -> str | None:
    """The account's kind as the config gives it (``kind = "verified_service"``), or None.

    The one place the kind is read: unknown means the strictest quota is assumed.
    """
    return account.kind


def target_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The channel's ``broadcast`` block (tag_id, send_ignore_reprint), as plain data."""
    block = options.get("broadcast") or {}
    return {k: block[k] for k in ("tag_id", "send_ignore_reprint") if k in block}


def beijing_day_start(now: float) -> float:
    """The last Beijing midnight at or before ``now`` (when the daily quota was reset)."""
    day = datetime.fromtimestamp(now, BEIJING).replace(hour=0, minute=0, second=0, microsecond=0)
    return day.timestamp()


def beijing_month_start(now: float) -> float:
    day = datetime.fromtimestamp(now, BEIJING)
    return day.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


def shown(moment: float, zone: tzinfo | None) -> str:
    """A moment as the editor reads it: in the issue's zone, Beijing when it has none."""
    return datetime.fromtimestamp(moment, zone or BEIJING).strftime("%Y-%m-%d %H:%M %z")


@dataclass(frozen=True)
class Quota:
    """What the ledger knows of the account's mass sends before a new one."""

    #: Why no send is possible now (one line, with when the next one is), or None.
    refusal: str | None
    #: Something the editor should know although the send goes ahead.
    warning: str | None = None


def quota(ledger: Ledger, account: Account, key: PostKey, now: float, zone: tzinfo | None) -> Quota:
    """A subscription account (or one of unknown kind) gets one mass send per Beijing
    day; a service account's followers four a month each (the platform skips those
    capped, so that is a warning). Other kinds are refused by the platform itself.
    Counted per platform account: a send under a name the account had before it was
    renamed in the config is one of its sends."""
    kind = account_kind(account)
    mine = account.identity
    rules = ACCOUNT_KINDS.get(kind or STRICTEST_KIND)
    if rules is None:
        return Quota(None)
    if rules.sends_per_day is not None:
        start = beijing_day_start(now)
        earlier = _sends(ledger.broadcasts(key.channel, key.account, start, identity=mine), key)
        if len(earlier) < rules.sends_per_day:
            return Quota(None)
        after = start + 86400.0
        which = kind or "subscription (kind not set: the strictest quota is assumed)"
        first = earlier[0]
        named = ""
        if first.account != key.account:  # renamed in the config since: the same account
            named = f" (as {first.channel}:{first.account}, the same account under another name)"
        return Quota(
            f"today's mass send (群发) already went out with "
            f"'{first.issue_id}'{named}; a {which} account gets one a day: the next is "
            f"possible from {shown(after, zone)} (Beijing midnight); nothing was sent"
        )
    monthly = rules.sends_per_follower_month
    if monthly is not None:
        month = ledger.broadcasts(key.channel, key.account, beijing_month_start(now), identity=mine)
        sent = _sends(month, key)
        if len(sent) >= monthly:
            return Quota(
                None,
                f"{counted(len(sent), 'mass send')} this month already; WeChat skips "
                f"followers who got {monthly}, so some will not receive this one",
            )
    return Quota(None)


def _sends(records: tuple[PostRecord, ...], key: PostKey) -> list[PostRecord]:
    """One record per send (a 多图文 send has a row per article), this post's excluded."""
    sends: dict[str, PostRecord] = {}
    for record in records:
        if record.key != key:
            sends.setdefault(record.publish_id or f"{record.issue_id}", record)
    return list(sends.values())


def source_version(*paths: Path) -> str:
    """The content version a send id is made of: the issue files as written (the lead's
    and its companions'). Not the rendered post, which also depends on the ledger (往期回顾
    links) and so could change with a lost state dir and make a second send."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def attempt_of(ledger: Ledger, key: PostKey) -> int:
    """How many of the post's sends the platform said failed: the next send's attempt."""
    events = ledger.events(key)
    return sum(1 for e in events if e.step == STEP_BROADCAST and e.outcome == SEND_FAILED)


@dataclass(frozen=True)
class Outcome:
    """How a send stands after this run: the result's state, message and exit code."""

    state: str
    message: str
    code: int = EXIT_OK


Progress = Callable[[str], None]


class Sender:
    """One post's mass send, from its intent to how it ended."""

    def __init__(
        self,
        ledger: Ledger,
        adapter: Adapter,
        key: PostKey,
        *,
        progress: Progress,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
    ) -> None:
        self.ledger = ledger
        self.adapter = adapter
        self.key = key
        self.progress = progress
        self.sleep = sleep
        self.clock = clock

    @property
    def rehearsal(self) -> bool:
        """Whether the post is a ``--sandbox`` rehearsal's (its advice says so)."""
        return self.adapter.account.rehearsal

    def _reconcile_line(self) -> str:
        return self.adapter.account.command("reconcile", self.key.issue_id)

    # --- the send ------------------------------------------------------------------------

    def send(
        self,
        draft: RemoteDraft,
        *,
        version: str,
        content_hash: str,
        target: Mapping[str, Any],
        title: str,
        checkpoint: Callable[[str], None],
    ) -> Outcome:
        """Intent (with the send id) → sendall → ids in the ledger → how it ended.

        ``version`` names the content for the send id (see :func:`source_version`);
        ``content_hash`` is what the ledger compares later runs with."""
        attempt = attempt_of(self.ledger, self.key)
        send_id = self.adapter.send_id(self.key.issue_id, version, attempt)
        intent = Intent(started_at=self.clock(), title=title, draft_id=draft.id, send_id=send_id)
        data = {
            **dataclasses.asdict(intent),
            "content_hash": content_hash,
            "target": dict(target),
            "attempt": attempt,
        }
        self.ledger.begin(STEP_BROADCAST, self.key, data)
        checkpoint(f"before-{STEP_BROADCAST}")
        mass = self._send(draft, intent, target)
        self.record(mass, draft, content_hash)
        checkpoint(f"after-{STEP_BROADCAST}")
        return self.follow()

    def _send(
        self,
        draft: RemoteDraft,
        intent: Intent,
        target: Mapping[str, Any],
        *,
        replaying: bool = False,
    ) -> MassSend:
        """sendall, and on a lost answer the same send id again (the platform dedupes):
        the only repeat a mass send ever gets. A definite refusal closes the intent.

        A replay that finds the draft gone from 草稿箱 (40007) is taken as sent: after
        our own send, that is what a sent draft does, and sending anew could push twice.
        """
        for replay in range(REPLAYS + 1):
            try:
                return self.adapter.mass_send(draft, intent, target)
            except PermanentError as error:
                if not (replaying or replay) or error.code != DRAFT_GONE:
                    self.ledger.finish_step(
                        self.key, STEP_BROADCAST, outcome="refused", summary=str(error)
                    )
                    raise
                self.progress(
                    f"draft {draft.id} left 草稿箱 after the send whose answer was lost: "
                    "taken as sent (群发记录 in 公众号后台 shows it); it is not sent again"
                )
                return MassSend(None, None, replayed=True)
            except UnconfirmedError as error:
                self.ledger.fail(self.key, error, permanent=False, step=STEP_BROADCAST)
                if replay == REPLAYS:
                    raise
                self.progress(
                    f"mass send: the answer was lost ({error}); sending the same send id "
                    "again in a minute (WeChat sends it once)"
                )
                self.sleep(MASS_REPEAT_PAUSE)
            except Interrupted:  # stopped in a pause: the send may be out, never "refused"
                raise
            except CrosspostError as error:
                self.ledger.finish_step(
                    self.key, STEP_BROADCAST, outcome="refused", summary=str(error)
                )
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def record(self, mass: MassSend, draft: RemoteDraft, content_hash: str) -> PostRecord:
        """The send's ids, before anything else is asked. A replay that WeChat answers
        "already sent" (45065) leaves the draft it named unused: it is deleted, so a run
        after a lost state dir leaves no orphan in 草稿箱."""
        how = "already sent under this send id (45065)" if mass.replayed else "sent"
        summary = f"mass send {how}: msg_id {mass.msg_id}, msg_data_id {mass.msg_data_id}"
        if not mass.msg_id:  # nothing to follow: the editor's record is 公众号后台's
            summary += " (WeChat gave no msg_id: see 公众号后台 → 群发记录 for how it went)"
        record = self.ledger.finish_step(
            self.key,
            STEP_BROADCAST,
            outcome="replayed" if mass.replayed else "ok",
            state="submitted" if mass.msg_id else "published",
            publish_id=mass.msg_id,
            article_id=mass.msg_data_id,
            url=None,
            delivery=BROADCAST,
            mass_status=MASS_SENDING if mass.msg_id else MASS_SENT,
            content_hash=content_hash,
            summary=summary,
        )
        self.progress(summary)
        if mass.replayed:
            self._discard(draft.id)
        return record

    def _discard(self, draft_id: str) -> None:
        try:
            deleted = self.adapter.discard_draft(draft_id)
        except CrosspostError as error:
            self.progress(f"draft {draft_id} was not needed; deleting it failed ({error})")
            return
        if deleted:
            self.ledger.note(self.key, STEP_BROADCAST, f"deleted unused draft {draft_id}")
            self.progress(f"draft {draft_id} was not needed (already sent): deleted")

    # --- how it ended ----------------------------------------------------------------------

    def follow(self) -> Outcome:
        """message/mass/get until the send is out or failed, for about half a minute."""
        record = self.ledger.get(self.key)
        assert record is not None
        if record.state == "published" or not record.publish_id:
            return Outcome("published", sent_message(record, rehearsal=self.rehearsal))
        status: str | None = None
        trouble: CrosspostError | None = None
        for delay in STATUS_DELAYS:
            self.sleep(delay)
            try:
                status = self.adapter.mass_status(record.publish_id)
            except CrosspostError as error:  # a read: the send stands whatever it answers
                self.progress(f"asking how mass send {record.publish_id} stands failed: {error}")
                trouble = error
                continue
            trouble = None
            if status in (MASS_SENT, MASS_DELETED, MASS_FAILED):
                break
        if trouble is not None:
            message = (
                f"mass send {record.publish_id} went out once; WeChat did not say how it "
                f"ended ({trouble}); run again (or {self._reconcile_line()}) to record it: "
                "it is not sent twice"
            )
            self.progress(message)
            return Outcome("pending", message, EXIT_TEMPORARY)
        return self.settle_status(record, status)

    def settle_status(self, record: PostRecord, status: str | None) -> Outcome:
        if status in (MASS_SENT, MASS_DELETED):
            done = self.ledger.finish_step(
                self.key, "poll", state="published", mass_status=status, summary=f"mass {status}"
            )
            message = sent_message(done, rehearsal=self.rehearsal)
            self.progress(message)
            return Outcome("published", message)
        if status == MASS_FAILED:
            return self._failed(record)
        self.ledger.record(self.key, mass_status=MASS_WAITING)
        message = (
            f"mass send {record.publish_id} is still going out, or waits for an "
            "administrator's confirmation on their phone (群发保护: 30 minutes); run "
            f"again (or {self._reconcile_line()}) to record how it ended; it is not sent twice"
        )
        self.progress(message)
        return Outcome("pending", message, EXIT_TEMPORARY)

    def _failed(self, record: PostRecord) -> Outcome:
        """WeChat says the send failed (not confirmed in time, or refused): the next run
        may send again, under the next attempt's id, from a new draft."""
        self.ledger.finish_step(
            self.key,
            STEP_BROADCAST,
            outcome=SEND_FAILED,
            state="assets_uploaded",
            mass_status=MASS_FAILED,
            draft_id=None,
            url=None,
            content_hash=None,
            summary=f"mass send {record.publish_id} failed (SEND_FAIL)",
        )
        if record.draft_id:
            self._discard(record.draft_id)
        message = (
            f"mass send {record.publish_id} failed (WeChat: SEND_FAIL; with 群发保护, nobody "
            "confirmed it within 30 minutes): nobody received it; run again to send it again"
        )
        self.progress(message)
        return Outcome("failed", message, EXIT_TEMPORARY)

    # --- a lost answer -------------------------------------------------------------------

    def settle_intent(self, record: PostRecord) -> bool:
        """An open send intent (a lost answer, a killed run): the same send id again.

        WeChat answers 45065 with the first send's ids when it had taken it, or takes it
        now; either way there is one send. Past the platform's 24 hours a replay could
        push twice, so then only the editor can tell (UnconfirmedError, intent kept).
        """
        data = dict(record.pending_intent or {})
        names = {f.name for f in dataclasses.fields(Intent)}
        intent = Intent(**{k: v for k, v in data.items() if k in names and k != "known_ids"})
        if not intent.send_id or not intent.draft_id:
            record_it = url_command(record, self.rehearsal)
            raise UnconfirmedError(
                f"the mass send of {record.issue_id} has no send id in the ledger; check "
                f"群发记录 in 公众号后台, then record it with {record_it}",
                channel=record.channel,
            )
        if self.clock() - intent.started_at > REPLAY_WINDOW:
            raise UnconfirmedError(
                f"a mass send of {record.issue_id} may have gone out at "
                f"{shown(intent.started_at, None)}, too long ago for WeChat to recognise "
                "a replay; check 群发记录 in 公众号后台 (it is not sent again)",
                channel=record.channel,
            )
        self.progress(f"mass send in doubt: sending the same send id {intent.send_id} again")
        draft = RemoteDraft(intent.draft_id)
        mass = self._send(draft, intent, data.get("target") or {}, replaying=True)
        self.record(mass, draft, str(data.get("content_hash") or ""))
        return True


def sent_message(record: PostRecord, *, rehearsal: bool) -> str:
    """A sent post as ``status`` and the run say it: to the followers, URL not known
    (``rehearsal``: the post is a ``--sandbox`` rehearsal's, and so is the advice)."""
    ids = f"msg_id {record.publish_id}, msg_data_id {record.article_id}"
    if record.url:
        return f"sent to followers ({ids}): {record.url}"
    return (
        f"sent to followers ({ids}); URL not known: WeChat gives none to a mass send; "
        f"record it with {url_command(record, rehearsal)}"
    )


def url_command(record: PostRecord, rehearsal: bool) -> str:
    """The command that records a post's permanent URL by hand (``urls --set``)."""
    where = f"{record.channel}:{record.account}"
    return command_line("urls", "--set", record.issue_id, "-c", where, "URL", rehearsal=rehearsal)
