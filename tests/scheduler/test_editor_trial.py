"""An editor's trial of the schedule, as the editor sees it: what is coming and when, a
post held for approval named as such, a plan that says one thing, a retry that does what
the tick did. The sandbox on loopback, a config aimed at it, the desk's clock
(``--now``), through ``crosspost.cli.main``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY

from .desk import CREATES, Desk, at
from .test_approval import require_approval

Capsys = pytest.CaptureFixture[str]
SENDALL = "/cgi-bin/message/mass/sendall"
DAY = 24 * 3600


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_dry_run_says_what_is_coming_when_and_what_holds_it_without_v(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    """ "Is my issue going out tomorrow at 9?": each issue still to come, soonest first,
    its moment in the editor's zone, each account and what a tick then does (wait for
    approval), or what stops it now; nothing is sent, and cron stays silent."""
    require_approval(desk)
    desk.use_env(monkeypatch)
    tomorrow = desk.write("50", at(DAY))
    later = desk.write("51", at(2 * DAY), channels="[weibo]")  # a channel mistyped

    assert main(["run-due", "--now", at(0)]) == EXIT_OK
    assert capsys.readouterr() == ("", "")  # cron: nothing due, nothing said

    assert main(["run-due", "--now", at(0), "--dry-run"]) == EXIT_OK
    out, err = capsys.readouterr()
    approve = f"crosspost approve {tomorrow}"
    lines = out.splitlines()
    assert lines[:2] == [
        "upcoming  wechat:main  50  at 2026-11-24 09:00 +08:00, draft: create a draft, then "
        f"wait for approval ('{approve}' lets it publish)",
        "upcoming  zhihu:main   50  at 2026-11-24 09:00 +08:00, publish: create a draft and "
        "publish it",
    ]
    (blocked,) = lines[2:]
    assert blocked.startswith(
        "upcoming               51  at 2026-11-25 09:00 +08:00, it will not go out as it is: "
        f"{later}"
    ), blocked
    assert err == ""
    assert desk.creates("wechat") == desk.creates("zhihu") == 0
    assert not (desk.state_dir / "ledger.sqlite3").exists() or desk.posts() == {}


def test_status_says_waiting_for_approval_and_how_to_let_it_go(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    require_approval(desk)
    desk.use_env(monkeypatch)
    monkeypatch.setenv("COLUMNS", "1000")  # each row whole, whatever the terminal
    path = desk.write("50", at(-60), channels="[wechat]")
    assert main(["run-due", "--now", at(0)]) == EXIT_OK
    capsys.readouterr()

    assert main(["status"]) == EXIT_OK
    (row,) = capsys.readouterr().out.splitlines()[1:]
    assert row == (
        "50     wechat:main  waiting for approval  2026-11-23 09:00 +08:00  "
        f"'crosspost approve {path}' lets it go out (an edit after approving voids it)"
    )

    assert main(["approve", str(path), "-q"]) == EXIT_OK
    assert main(["run-due", "--now", at(60)]) == EXIT_OK
    capsys.readouterr()
    assert main(["status"]) == EXIT_OK
    (row,) = capsys.readouterr().out.splitlines()[1:]
    assert " published " in row and "waiting" not in row


def test_a_dry_run_of_a_published_wechat_post_on_an_approving_account_says_one_thing(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    desk.use_env(monkeypatch)
    path = desk.write("50", None, channels="[wechat]")
    assert main(["publish", str(path), "--mode", "publish", "-q"]) == EXIT_OK
    require_approval(desk)
    edit(path, "这是一段", "这是一段改过的")
    capsys.readouterr()

    assert main(["publish", str(path), "--mode", "publish", "--dry-run"]) == EXIT_OK
    (line, *_) = capsys.readouterr().out.splitlines()
    assert line == (
        "wechat:main  50  draft: nothing: changed since publishing, and this platform cannot "
        "edit it"
    )


def test_a_refused_posts_retry_does_what_the_tick_did(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    """A broadcast tick whose post WeChat refused (the IP whitelist): the command it
    prints, run as printed once the whitelist is fixed, sends to the followers, not a
    draft only."""
    desk.use_env(monkeypatch)
    issue = desk.write("46", at(-60), channels="[wechat]")
    desk.box.faults.add("wechat", "/cgi-bin/stable_token", "errcode:40164", count=1)
    assert main(["run-due", "--now", at(0), "--mode", "broadcast"]) == EXIT_CHANNEL_FAILED
    err = capsys.readouterr().err
    retry = err.rstrip().rsplit("run '", 1)[1].removesuffix("'")
    assert retry == f"crosspost publish --retry-failed {issue} -c wechat:main --mode broadcast"

    # It goes to the followers (WeChat then holds the send for the admin's confirmation,
    # 群发保护: the run says so and exits 75, to be looked at again), not into 草稿箱 alone.
    assert main(shlex.split(retry)[1:]) == EXIT_TEMPORARY
    assert "wechat:main  46     sending" in capsys.readouterr().out
    assert sum(r.path == SENDALL for r in desk.box.requests) == 1
    assert sum(r.path == CREATES["wechat"] for r in desk.box.requests) == 1
