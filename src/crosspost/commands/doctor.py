"""``crosspost doctor``: before the first run, what each account may do and what is wrong.

Per account, changing nothing: WeChat credentials accepted (and the IP WeChat saw when it
refuses), which of draft, publish, mass send (broadcast) and preview the account may call
with today's use of each, a lapsed verification; Zhihu's login cookie, column and topics.
``--canary`` (explicit) also makes a WeChat draft of a small document in the configured
theme, reads it back, says what WeChat removed from the HTML, and deletes it.

Exit 0 when all is well, 1 when something is wrong for an account (each problem one line
that says what to do), 2 for a bad configuration, 75 when a platform cannot be reached.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crosspost.commands.publish import add_targets
from crosspost.commands.switches import Switches
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY, ConfigError, UsageError

if TYPE_CHECKING:
    from crosspost.channels.base import Adapter
    from crosspost.channels.checkup import Checkup
    from crosspost.channels.wechat.doctor import Canary
    from crosspost.config.settings import Account, Settings

Clock = Callable[[], float]
Sleep = Callable[[float], None]

#: The canary document: the constructs a theme styles most, no image to upload.
CANARY_TITLE = "crosspost doctor canary"
CANARY_DOCUMENT = """\
---
id: crosspost-doctor-canary
title: crosspost doctor canary
---

A draft **crosspost doctor** made to see what WeChat keeps of the *theme*; it deletes
it at once. A [link](https://example.com/) and `inline code`.

## A heading

> A quotation, with a second line.

- a list item
- another, with **bold**

1. first
2. second

```python
def hello():
    return "world"
```

| column | other |
|---|---|
| cell | cell |
"""


def configure(parser: argparse.ArgumentParser) -> None:
    add_targets(parser, "examine only these accounts (repeatable; default: every account)")
    parser.add_argument(
        "--sandbox", action="store_true", help="examine the built-in emulators' accounts"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="PLATFORM.KEY=VALUE",
        help="with --sandbox: an emulator option, e.g. wechat.account_kind=personal",
    )
    parser.add_argument(
        "--canary",
        action="store_true",
        help="also make a WeChat draft in your theme, show what WeChat removed, delete it",
    )
    add_arguments(parser, "config", "state_dir", "theme")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


@dataclass(frozen=True)
class DoctorReport:
    """Every account's checkup, and the canaries when asked for."""

    checkups: tuple[Checkup, ...]
    canaries: tuple[Canary, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 when any account has a problem to fix, else 75 when a platform could not be
        reached, else 0."""
        codes = {c.exit_code for c in self.checkups}
        if EXIT_CHANNEL_FAILED in codes or any(c.problems for c in self.canaries):
            return EXIT_CHANNEL_FAILED
        return EXIT_TEMPORARY if EXIT_TEMPORARY in codes else EXIT_OK

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON form."""
        return {
            "ok": self.exit_code == EXIT_OK,
            "exit_code": self.exit_code,
            "accounts": [c.as_dict() for c in self.checkups],
            "canaries": [c.as_dict() for c in self.canaries],
        }


def run(args: argparse.Namespace) -> int:
    from crosspost.commands.sandbox import parse_options
    from crosspost.config.settings import settings_from_args

    if args.option and not args.sandbox:
        raise UsageError("--option sets an emulator option; it needs --sandbox")
    options = parse_options(args.option)
    settings = settings_from_args(args)
    switches = Switches.from_environment()
    with _settings_for(settings, sandbox=args.sandbox, options=options) as settings:
        accounts = settings.select(args.targets)
        if not accounts:
            raise ConfigError(
                "no account is configured; add one under [channels.wechat.accounts.NAME] "
                "or [channels.zhihu.accounts.NAME] (see config/crosspost.example.toml), "
                "or try crosspost doctor --sandbox"
            )
        canary_html = _canary_html(settings, args.theme) if args.canary else None
        report = diagnose(
            accounts,
            timeout=settings.timeout,
            clock=switches.clock(time.time),
            sleep=switches.sleep(time.sleep),
            canary_html=canary_html,
        )
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
    else:
        print_report(report)
    return report.exit_code


@contextlib.contextmanager
def _settings_for(
    settings: Settings, *, sandbox: bool, options: Mapping[str, Mapping[str, Any]]
) -> Iterator[Settings]:
    if not sandbox:
        yield settings
        return
    from crosspost.sandbox.session import sandbox_settings

    with sandbox_settings(settings.rehearsal(), options=options) as sandboxed:
        yield sandboxed


def _canary_html(settings: Settings, theme: str | None) -> str:
    """The canary document rendered for WeChat in the configured (or ``--theme``) theme."""
    from crosspost.issue.loader import load_issue
    from crosspost.render.context import render_context
    from crosspost.render.rendered import render

    with tempfile.TemporaryDirectory(prefix="crosspost-canary-") as folder:
        path = Path(folder) / "canary.md"
        path.write_text(CANARY_DOCUMENT, encoding="utf-8")
        issue = load_issue(path)
    return render(issue, "wechat", render_context(settings, theme)).body


def diagnose(
    accounts: Sequence[Account],
    *,
    timeout: float = 30.0,
    clock: Clock = time.time,
    sleep: Sleep = time.sleep,
    canary_html: str | None = None,
) -> DoctorReport:
    """Examine each account; with ``canary_html``, run the canary on each WeChat account
    whose checkup found nothing wrong. Tokens are fetched into a throwaway folder, so the
    doctor always asks the platform and leaves this machine's state as it was."""
    from crosspost.channels.checkup import Checkup
    from crosspost.config.redaction import redactor_for
    from crosspost.publish.settle import build_adapter

    checkups: list[Checkup] = []
    canaries: list[Canary] = []
    redactor = redactor_for([s for a in accounts for s in a.secrets])
    with tempfile.TemporaryDirectory(prefix="crosspost-doctor-") as scratch:
        for account in accounts:
            missing = account.missing_credentials()
            if missing:
                names = ", ".join(account.credential_env.get(k, k) for k in missing)
                checkups.append(
                    Checkup(
                        account.key,
                        (("credentials", "missing"),),
                        problems=(f"{account.key}: set {names} in .env (or the environment)",),
                    )
                )
                continue
            adapter = build_adapter(
                account,
                Path(scratch),
                timeout=timeout,
                clock=clock,
                sleep=sleep,
                redactor=redactor,
            )
            checkup = _examine(adapter, account)
            checkups.append(checkup)
            if canary_html is not None and account.channel == "wechat":
                canaries.append(_canary(adapter, canary_html, checkup))
    return DoctorReport(tuple(checkups), tuple(canaries))


def _examine(adapter: Adapter, account: Account) -> Checkup:
    """The platform's own checkup for one account."""
    from crosspost.channels.wechat.adapter import WeChatAdapter
    from crosspost.channels.zhihu.adapter import ZhihuAdapter

    if isinstance(adapter, WeChatAdapter):
        from crosspost.channels.wechat.doctor import checkup as wechat_checkup

        return wechat_checkup(
            adapter.api,
            account=account.key,
            app_id=adapter.app_id,
            mode=account.mode,
            kind=account.kind,
            rehearsal=account.rehearsal,
        )
    if isinstance(adapter, ZhihuAdapter):
        from crosspost.channels.zhihu.doctor import checkup as zhihu_checkup

        return zhihu_checkup(adapter, adapter.api, account.options)
    from crosspost.channels.checkup import Checkup

    preflight = adapter.preflight()
    return Checkup(account.key, (("login", f"works ({preflight.identity})"),))


def _canary(adapter: Adapter, html: str, checkup: Checkup) -> Canary:
    """The canary on an account whose checkup found nothing wrong; else why not."""
    from crosspost.channels.wechat.adapter import WeChatAdapter
    from crosspost.channels.wechat.doctor import Canary, canary

    assert isinstance(adapter, WeChatAdapter)
    key = adapter.account.key
    if not checkup.ok:
        return Canary(key, skipped="the checkup found something to fix first")
    return canary(adapter.api, account=key, title=CANARY_TITLE, html=html)


# --- printing --------------------------------------------------------------------------------


def _allowed(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "?"}[value]


def print_report(report: DoctorReport) -> None:
    """A short table per account, then each problem on its own line."""
    from crosspost.channels.wechat.doctor import describe_changes
    from crosspost.commands.table import format_table

    for checkup in report.checkups:
        print(checkup.account)
        for label, value in checkup.facts:
            print(f"  {label}: {value}")
        if checkup.capabilities:
            rows = [
                (
                    c.name,
                    _allowed(c.allowed),
                    "" if c.used is None else f"{c.used} of {c.daily_limit or 'unlimited'}",
                    c.note,
                )
                for c in checkup.capabilities
            ]
            for line in format_table(("call", "allowed", "used today", ""), rows):
                print(f"  {line}")
        for note in checkup.notes:
            print(f"  note: {note}")
        for problem in checkup.problems:
            print(f"  problem: {problem}")
    for canary in report.canaries:
        if canary.skipped:
            print(f"canary {canary.account}: not made, {canary.skipped}")
            continue
        print(f"canary {canary.account}:")
        if canary.changes is not None:
            for line in describe_changes(canary.changes):
                print(f"  {line}")
        if canary.draft_id and canary.deleted:
            print(f"  draft {canary.draft_id} deleted again")
        for problem in canary.problems:
            print(f"  problem: {problem}")
    verdict = {
        EXIT_OK: "all good",
        EXIT_CHANNEL_FAILED: "something needs fixing (see problem lines)",
        EXIT_TEMPORARY: "a platform could not be reached; run again later",
    }
    print(f"doctor: {verdict[report.exit_code]}")
