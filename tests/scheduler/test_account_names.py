"""The same issue on the same platform account under another account name: never again.

The operator's trials: an account renamed in the config (``[channels.wechat.accounts.main]``
→ ``…primary``, the same AppID and login), or a second name for the same Official
Account. Each name is a post key of its own, and WeChat lists no mass send (群发) to look
for, so the renamed account mass-sent the issue to its followers a second time (within
24 hours WeChat's ``clientmsgid`` still caught it; a day later nothing did) and made a
second draft. Now the ledger keeps which platform account each post went to, and the
next run refuses with one line naming the earlier post and the ways on; nothing is sent.
"""

from __future__ import annotations

import sqlite3

import pytest

from crosspost import cli
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY

from .desk import Desk, at

SEND = "/cgi-bin/message/mass/sendall"
BROADCAST = "wechat: {mode: broadcast}\n"


def rename_accounts(desk: Desk, old: str, new: str) -> None:
    """Both accounts' tables renamed in the config; their credentials stay."""
    config = desk.root / "crosspost.toml"
    text = config.read_text(encoding="utf-8")
    for channel in ("wechat", "zhihu"):
        text = text.replace(
            f"[channels.{channel}.accounts.{old}]", f"[channels.{channel}.accounts.{new}]"
        )
    config.write_text(text, encoding="utf-8")


def sends(desk: Desk) -> int:
    return sum(1 for r in desk.box.requests if r.path == SEND)


def test_a_renamed_account_is_not_sent_the_issue_again_and_is_told_once(desk: Desk) -> None:
    path = desk.write("a1", at(-60), extra=BROADCAST)
    first = desk.tick()
    assert first.exit_code == EXIT_OK, first.as_dict()
    assert sends(desk) == 1 and desk.creates("wechat") == 1

    rename_accounts(desk, "main", "primary")
    desk.box.clock.advance(60)
    asked = len(desk.box.requests)
    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT and report.results == ()
    [problem] = report.of_kind("problem")
    config = desk.root / "crosspost.toml"
    command = f"crosspost publish {path} -c wechat:primary --new-post"
    assert problem.message == (
        f"{path}: this issue already went out to this account as wechat:main (sent to "
        "followers; the same AppID as wechat:primary), a name no longer in the config; "
        "nothing was sent. If the account was renamed, its posts are in the ledger under "
        f"its old name: give it back ([channels.wechat.accounts.main] in {config}) to go "
        f"on with them; to send the issue to it a second time all the same, run '{command}'"
    )
    assert len(desk.box.requests) == asked, "neither platform was asked anything"

    desk.box.clock.advance(60)
    again = desk.tick()  # said once: cron mails nothing more
    assert again.quiet and again.exit_code == EXIT_OK
    assert sends(desk) == 1 and desk.creates("wechat") == 1 and desk.creates("zhihu") == 1


def test_a_day_later_a_renamed_account_does_not_mass_send_twice(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past WeChat's 24 hours the platform no longer dedupes the send: only the ledger can."""
    path = desk.write("a1", at(-60), extra=BROADCAST)
    assert desk.tick().exit_code == EXIT_OK
    rename_accounts(desk, "main", "primary")
    desk.box.clock.advance(25 * 3600)
    desk.use_env(monkeypatch)

    assert cli.main(["publish", str(path), "-c", "wechat"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "already went out to this account as wechat:main (sent to followers" in err
    assert sends(desk) == 1 and desk.creates("wechat") == 1

    # The editor's word: a second post there all the same.
    argv = ["publish", str(path), "-c", "wechat:primary", "--new-post"]
    assert cli.main(argv) in (EXIT_OK, EXIT_TEMPORARY)  # 75: the send is still going out
    assert desk.creates("wechat") == 2


def test_a_renamed_account_keeps_its_one_mass_send_a_day(desk: Desk) -> None:
    """The day's quota is the platform account's, whatever its name in the config: after
    the rename, today's send under the old name counted for nothing, so another issue went
    to WeChat the same day and was refused there as over quota. crosspost now refuses it
    itself, before anything is sent, and sends it after Beijing midnight."""
    desk.write("a1", at(-60), channels="[wechat]", extra=BROADCAST)
    assert desk.tick().exit_code == EXIT_OK and sends(desk) == 1
    rename_accounts(desk, "main", "primary")
    desk.box.clock.advance(600)
    desk.write("a2", at(300), channels="[wechat]", extra=BROADCAST)

    report = desk.tick()
    (refused,) = report.results
    assert (refused.key.account, refused.exit_code, refused.sent) == (
        "primary",
        EXIT_TEMPORARY,
        False,
    )
    assert refused.message.startswith(
        "today's mass send (群发) already went out with 'a1' (as wechat:main, the same "
        "account under another name); a subscription (kind not set: the strictest quota is "
        "assumed) account gets one a day: the next is possible from 2026-11-24 00:00 +0800 "
        "(Beijing midnight); nothing was sent"
    ), refused.message
    assert sends(desk) == 1, "a second send went to WeChat the same day"

    desk.box.clock.advance(16 * 3600)  # past midnight in Beijing (T0 is 09:00 there)
    later = desk.tick()
    assert [(r.key.issue_id, r.state) for r in later.results] == [("a2", "published")]
    assert sends(desk) == 2


def test_two_names_for_one_account_in_the_config_send_nothing(desk: Desk) -> None:
    config = desk.root / "crosspost.toml"
    with config.open("a", encoding="utf-8") as file:
        file.write(
            '\n[channels.wechat.accounts.second]\napp_id_env = "WECHAT_APP_ID"\n'
            f'app_secret_env = "WECHAT_APP_SECRET"\nbase_url = "{desk.box.wechat_url}"\n'
        )
    desk.write("a1", at(-60))
    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT and report.results == ()
    [problem] = report.of_kind("problem")
    assert problem.message == (
        "wechat:main and wechat:second are the same account (the same AppID): each issue "
        f"would go to it twice; remove one of them from {config} (nothing was sent)"
    )
    assert desk.creates("wechat") == 0 and desk.creates("zhihu") == 0


def set_identity(desk: Desk, value: str | None) -> None:
    """What the ledger holds of the account behind the earlier posts (a real SQLite file:
    None is a ledger from before it kept one, another value another account)."""
    with sqlite3.connect(desk.state_dir / "ledger.sqlite3") as db:
        db.execute("UPDATE posts SET account_identity = ?", (value,))


def test_a_post_of_a_gone_account_the_ledger_cannot_place_is_doubt_and_refused(
    desk: Desk,
) -> None:
    path = desk.write("a1", at(-60))
    assert desk.tick().exit_code == EXIT_OK
    set_identity(desk, None)
    rename_accounts(desk, "main", "primary")
    desk.box.clock.advance(60)
    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT
    [problem] = report.of_kind("problem")
    assert "an account no longer in the config, and the ledger does not know whether" in (
        problem.message
    )
    assert problem.message.endswith(
        f"publish the issue there with 'crosspost publish {path} -c wechat:primary --new-post'"
    )
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1


def test_an_account_swapped_for_another_gets_the_issue_as_a_new_account_does(
    desk: Desk,
) -> None:
    """The earlier posts went to another platform account: not the same issue twice."""
    desk.write("a1", at(-60))
    assert desk.tick().exit_code == EXIT_OK
    set_identity(desk, "0123456789abcdef")
    rename_accounts(desk, "main", "new")
    desk.box.clock.advance(60)
    report = desk.tick()
    assert not report.of_kind("problem"), report.as_dict()
    assert sorted((r.key.channel, r.key.account, r.state) for r in report.results) == [
        ("wechat", "new", "published"),
        ("zhihu", "new", "published"),
    ]


def test_two_names_for_one_account_planned_apart_in_one_tick_send_nothing(desk: Desk) -> None:
    """A tick plans a file's accounts in two batches: those to try again after a permanent
    failure and an edit, and the others. One name in each batch was still one account
    twice: each batch alone had one name, so the issue was mass-sent to it twice."""
    desk.write("a1", at(-60), channels="[wechat]", extra=BROADCAST)
    desk.box.faults.add("wechat", "/cgi-bin/draft/add", "errcode:45002", count=1)
    assert desk.tick().exit_code != EXIT_OK  # wechat:main failed for good: too long
    config = desk.root / "crosspost.toml"
    with config.open("a", encoding="utf-8") as file:
        file.write(
            '\n[channels.wechat.accounts.second]\napp_id_env = "WECHAT_APP_ID"\n'
            f'app_secret_env = "WECHAT_APP_SECRET"\nbase_url = "{desk.box.wechat_url}"\n'
        )
    desk.write("a1", at(-60), channels="[wechat]", extra=BROADCAST, body="缩短后的正文。\n")
    desk.box.clock.advance(60)

    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT, report.as_dict()
    assert [p.message for p in report.of_kind("problem")] == [
        "wechat:second and wechat:main are the same account (the same AppID): each issue "
        f"would go to it twice; remove one of them from {config} (nothing was sent)"
    ]
    assert sends(desk) == 0 and desk.creates("wechat") == 1


def test_a_post_under_a_name_without_credentials_is_doubt_not_the_same_account(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An earlier post under a name still in the config, from before the ledger kept
    accounts, whose credentials this run does not have: the ledger cannot tell which
    account it went to. Refused, as doubt is, but not with "the same account (the same
    z_c0 login cookie)", which nothing showed."""
    path = desk.write("a1", at(-60), channels="[zhihu]")
    assert desk.tick().exit_code == EXIT_OK
    set_identity(desk, None)
    with sqlite3.connect(desk.state_dir / "ledger.sqlite3") as db:
        db.execute("UPDATE posts SET account = 'other'")
    config = desk.root / "crosspost.toml"
    with config.open("a", encoding="utf-8") as file:
        file.write(
            '\n[channels.zhihu.accounts.other]\ncookie_env = "ZHIHU_OTHER_Z_C0"\n'
            f'base_url = "{desk.box.zhihu_url}"\n'
        )
    desk.use_env(monkeypatch)
    monkeypatch.delenv("ZHIHU_OTHER_Z_C0", raising=False)

    assert cli.main(["publish", str(path), "-c", "zhihu:main"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "and zhihu:other is the same account as zhihu:main" not in err
    assert (
        "this issue already went out as zhihu:other (published " in err
        and "the ledger does not know which account that was; zhihu:other's credentials "
        "are not set here, so whether zhihu:main is the same account (the same z_c0 login "
        "cookie) cannot be told; nothing was sent."
        in err
    ), err
    assert desk.creates("zhihu") == 1
