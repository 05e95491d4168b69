"""The delivery plan: what each account does with an issue, decided before anything is sent.

An editor asks for ``draft``, ``publish`` (发表: a link, nothing pushed) or ``broadcast``
(群发: into the followers' chat list). What an account can do depends on its kind
(``platforms.wechat.ACCOUNT_KINDS``): since 2025-07 a personal or unverified Official
Account may only make drafts through the API. Asking such an account to publish is not
an error to fail on every run: the plan becomes "draft, then hand off", the editor is told
once where to press the button, and a later run recognises the draft that left 草稿箱 as
sent by hand. An account whose config says ``mode = "draft"`` is a ceiling the same way.

Where the kind comes from: the account's ``kind`` in the config, else a read-only probe
(``openapi/quota/get``) made once per account per run. Over both stands what a run learnt
from a 48001 refusal, for a day (kept in the state dir, see :class:`KindMemory`): WeChat
refusing a call is a fact, and a config that says the account may make it is then wrong
(or out of date). Planning the call again on every run would ask WeChat for the refusal
again each time, and the draft handed off would never be looked for once the editor
sent it by hand; so the refusal wins, and the run says which config line contradicts it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crosspost.channels.base import Adapter
from crosspost.config.files import write_atomic
from crosspost.config.settings import Account, Settings
from crosspost.ledger.store import PostRecord
from crosspost.platforms.wechat import ACCOUNT_KINDS
from crosspost.publish.jobs import Job

#: How long a refusal (48001) learnt at run time stands before the account is tried again:
#: a day, so an account verified since is noticed by tomorrow's run.
REMEMBER_SECONDS = 86_400.0
#: The file in the state dir that remembers refusals, per account.
MEMORY_NAME = "account-kinds.json"

#: Where an editor presses the button an account may not press through the API.
BUTTONS = {"publish": "发表", "broadcast": "群发"}


@dataclass(frozen=True)
class Delivery:
    """What one account does with one issue this run, and the line that explains it."""

    #: What the flag, the issue and the config ask for.
    wanted: str
    #: What the run does: ``draft``, ``publish`` or ``broadcast``.
    mode: str
    #: Not empty when the run drafts only and the editor finishes by hand: the mode
    #: handed off (``publish`` or ``broadcast``).
    handoff: str = ""
    #: Why the mode differs from what was asked (empty when it does not).
    reason: str = ""

    def note(self, account: Account) -> str:
        """The one line a run says about this account (empty when nothing to say)."""
        if self.handoff:
            return f"{account.key}: {self.reason}; {handoff_line(self.handoff)}"
        if self.reason:
            return f"{account.key}: {self.reason}"
        return ""


def handoff_line(mode: str, draft_id: str | None = None) -> str:
    """Where the editor finishes a handed-off post by hand."""
    button = BUTTONS.get(mode, BUTTONS["publish"])
    draft = f" draft {draft_id}" if draft_id else " the draft"
    return (
        f"crosspost leaves{draft} in 草稿箱: press {button} there yourself "
        "(公众号后台 → 内容与互动 → 草稿箱, or the 公众号助手 app); "
        "the next run records it once it has left 草稿箱"
    )


class KindMemory:
    """What runs learnt about accounts from a 48001 (one small JSON file in the state dir).

    Only a refusal is remembered, and only for :data:`REMEMBER_SECONDS`. It stands over a
    config ``kind`` that says the account may make the call (:func:`plan_delivery`): the
    kind is the operator's belief, the refusal is WeChat's answer; a day later the config
    is believed again, so an account verified since is noticed by tomorrow's run.
    """

    def __init__(self, state_dir: Path, clock: Callable[[], float]) -> None:
        self.path = Path(state_dir) / MEMORY_NAME
        self.clock = clock

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _seen(self, account: Account, mode: str) -> tuple[float, bool] | None:
        """When a refusal of ``mode`` was learnt, and whether by asking (openapi/quota/get)
        rather than by a 48001; a memory of only a time (as runs wrote it before they kept
        how) is a 48001's."""
        known = self._read().get(account.key)
        entry = known.get(mode) if isinstance(known, dict) else None
        if isinstance(entry, int | float):
            return float(entry), False
        if isinstance(entry, dict) and isinstance(entry.get("at"), int | float):
            return float(entry["at"]), entry.get("asked") is True
        return None

    def refused(self, account: Account, mode: str) -> bool:
        """True while a refusal of ``mode`` on ``account`` is remembered."""
        seen = self._seen(account, mode)
        return seen is not None and self.clock() - seen[0] < REMEMBER_SECONDS

    def remember(self, account: Account, mode: str, *, asked: bool = False) -> None:
        """Remember that ``mode`` is refused on ``account``: by a 48001, or (``asked``)
        by WeChat's answer to openapi/quota/get before anything was tried."""
        data = self._read()
        known = data.get(account.key)
        entry = {**(known if isinstance(known, dict) else {})}
        entry[mode] = {"at": self.clock(), "asked": asked}
        data[account.key] = entry
        write_atomic(self.path, json.dumps(data, sort_keys=True))

    def why(self, account: Account, mode: str) -> str:
        """How an earlier run learnt that ``mode`` is refused, in the words of a plan."""
        seen = self._seen(account, mode)
        if seen is not None and seen[1]:
            return f"WeChat said in an earlier run that this account {_may_not(mode)}"
        return f"WeChat refused {mode} on this account (48001) in an earlier run"


def _may_not(mode: str) -> str:
    """What WeChat's answer to openapi/quota/get says of an account, in a run's words."""
    return f"may not {mode} (openapi/quota/get)"


def contradiction(account: Account, mode: str) -> str:
    """What to change when WeChat refused ``mode`` (48001) to an account whose configured
    ``kind`` says it may: empty when the config names no kind (nothing contradicts)."""
    if account.kind is None or not ACCOUNT_KINDS[account.kind].may(mode):
        return ""
    return (
        f'the config says kind = "{account.kind}", which may {mode}, but WeChat refused it '
        f'(48001): if the account is not (or no longer) verified, set kind = "unverified" '
        f'or "personal" under [channels.wechat.accounts.{account.name}]; '
        f"`{account.command('doctor', '-c', account.key)}` asks WeChat what it may call"
    )


def remembered_line(account: Account, mode: str) -> str:
    """What a run says after WeChat refused ``mode`` (48001) and the refusal was remembered:
    what the following runs do, and, when the config's kind says otherwise, what to fix."""
    later = "remembered for a day: later runs draft and hand off"
    fix = contradiction(account, mode)
    return f"{later}, then believe the config again; {fix}" if fix else later


def plan_delivery(
    settings: Settings,
    account: Account,
    issue_mode: str | None,
    asked: str | None,
    *,
    memory: KindMemory,
) -> Delivery:
    """The delivery of one issue on one account: the mode asked, capped by the account's
    ``mode = "draft"`` ceiling, then by what its kind in the config may call, then by an
    earlier run's refusal (a day old at most), which stands even where the config's kind
    says the account may. An account of unknown kind is asked by the publisher last, once
    the plan is otherwise sound (:func:`needs_probe`)."""
    wanted = settings.mode_wanted(account, issue_mode, asked)
    mode = settings.mode_for(account, issue_mode, asked)
    if mode != wanted:
        return Delivery(
            wanted,
            mode,
            reason=f"mode = \"draft\" in the config: it leaves drafts only, so '{wanted}' "
            "(asked by a flag or the issue) is not done there",
        )
    if account.channel != "wechat" or mode == "draft":
        return Delivery(wanted, mode)
    kind = ACCOUNT_KINDS[account.kind] if account.kind is not None else None
    if kind is not None and not kind.may_draft:
        return Delivery(wanted, mode)  # lapsed: the draft fails too, with WeChat's words
    if kind is not None and not kind.may(mode):
        why = f"a {account.kind} account (kind in the config) may not {mode} through the API"
        return Delivery(wanted, "draft", mode, why)
    if memory.refused(account, mode):
        why = memory.why(account, mode)
        fix = contradiction(account, mode)
        return Delivery(wanted, "draft", mode, f"{why}; {fix}" if fix else why)
    return Delivery(wanted, mode)


def needs_probe(job: Job, record: PostRecord | None) -> bool:
    """Whether WeChat must be asked what the job's account may do: its kind is not in
    the config, the job wants more than a draft, and the ledger says it is not done."""
    account = job.account
    if account.channel != "wechat" or account.kind is not None or account.missing_credentials():
        return False
    if job.handoff or job.mode == "draft":
        return False
    return record is None or record.state not in ("published", "submitted")


def probed(job: Job, adapter: Adapter) -> Job:
    """``job``, handed off when the adapter says (read-only, once per run per account:
    ``adapter.may`` asks through the run's memo) that its account may not do its mode."""
    if adapter.may(job.mode) is not False:
        return job
    return dataclasses.replace(job, mode="draft", handoff=job.mode)


def handed_off_note(job: Job, *, in_run: bool = False) -> str:
    """The line said about a job the probe handed off: a dry run's whole plan (the
    account, why, where to finish it); a run's only why, under the post's own name, as
    the line that follows the draft says where it waits (it was said twice)."""
    why = f"WeChat says this account {_may_not(job.handoff)}"
    if in_run:
        return f"{why}: it is drafted for you to finish"
    return Delivery(job.handoff, "draft", job.handoff, why).note(job.account)
