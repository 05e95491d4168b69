"""A Zhihu account is its member, not its login cookie.

Zhihu's ``z_c0`` changes every time the editor logs in again (the cookie expired, a
second browser), while the member behind it (``GET /api/v4/me``: its ``id``) stays. The
ledger once kept a digest of the cookie as the post's platform account, so a new login
made a new account: a rename in the config together with a new login, or two names with
two logins of one member, sent the issue to the member again (a second draft, or a second
article wherever adoption by title missed). Now each Zhihu post keeps a digest of the
member, learned at the login check before anything is created; a new login under the same
name is the same account, and the same member under another name stops that post with one
line, nothing created. Everything here runs against the sandbox over loopback and a real
SQLite ledger.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from crosspost import cli
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK

from .desk import Desk, at

ZHIHU_ONLY = "[zhihu]"
PUBLISH = "/api/v4/content/publish"


def log_in_again(desk: Desk, *, keep_old: bool = False, into: str = "ZHIHU_Z_C0") -> str:
    """The editor logs in to Zhihu again and pastes the new z_c0 where the config reads
    it (``into``: the variable of the account's ``cookie_env``)."""
    fresh = desk.box.zhihu.log_in_again(keep_old=keep_old)
    desk.env[into] = fresh
    return fresh


def rename_zhihu(desk: Desk, old: str, new: str) -> None:
    config = desk.root / "crosspost.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(f"[channels.zhihu.accounts.{old}]", f"[channels.zhihu.accounts.{new}]"),
        encoding="utf-8",
    )


def second_name(desk: Desk, name: str = "second") -> None:
    """Another name for a Zhihu account, its z_c0 in a variable of its own."""
    config = desk.root / "crosspost.toml"
    with config.open("a", encoding="utf-8") as file:
        file.write(
            f'\n[channels.zhihu.accounts.{name}]\ncookie_env = "ZHIHU_{name.upper()}_Z_C0"\n'
            f'base_url = "{desk.box.zhihu_url}"\ntopics = ["人工智能"]\n'
        )


def posted_then_second_browser(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> Path:
    """a1 posted to Zhihu under main; then a second name for the account, logged in from
    a second browser (its own z_c0, the first one still valid), the environment set."""
    path = desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    assert desk.tick().exit_code == EXIT_OK
    second_name(desk)
    log_in_again(desk, keep_old=True, into="ZHIHU_SECOND_Z_C0")
    desk.use_env(monkeypatch)
    return path


def identities(desk: Desk) -> dict[str, tuple[str | None, str | None]]:
    """What the ledger file holds of each Zhihu post's platform account."""
    with sqlite3.connect(desk.state_dir / "ledger.sqlite3") as db:
        rows = db.execute(
            "SELECT issue_id, account, account_identity, identity_kind FROM posts "
            "WHERE channel = 'zhihu'"
        ).fetchall()
    return {f"{issue} {account}": (identity, kind) for issue, account, identity, kind in rows}


def articles(desk: Desk) -> int:
    return len(desk.box.zhihu.snapshot()["articles"])


def no_secret_in(desk: Desk, *texts: str) -> None:
    ledger = (desk.state_dir / "ledger.sqlite3").read_bytes()
    for secret in desk.secrets():
        assert secret.encode() not in ledger
        for text in texts:
            assert secret not in text


# --- a. a new login under the same name is the same account ------------------------------


def test_a_new_login_under_the_same_name_updates_in_place_and_warns_of_nothing(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    assert desk.tick().exit_code == EXIT_OK
    [before] = identities(desk).values()
    log_in_again(desk)  # the old cookie no longer works at all
    desk.write("a1", at(-60), channels=ZHIHU_ONLY, body="改过的正文,足够长,能通过知乎的检查。\n")
    desk.use_env(monkeypatch)

    assert cli.main(["publish", str(path), "-c", "zhihu", "--update"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert "same account" not in out + err and "WARNING" not in err.upper(), err
    assert desk.creates("zhihu") == 1 and articles(desk) == 1
    assert identities(desk) == {"a1 main": before}, "the member, whatever the login"
    assert before[1] == "member"

    assert cli.main(["status"]) == EXIT_OK
    assert cli.main(["reconcile", "a1"]) == EXIT_OK
    out, err = capsys.readouterr()
    no_secret_in(desk, out, err)


def test_a_tick_after_a_new_login_settles_a_lost_publish_once(desk: Desk) -> None:
    desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    desk.box.faults.add("zhihu", PUBLISH, "commit_then_drop", count=1)
    desk.box.faults.add("zhihu", "/api/articles/*/draft", "http:503", method="GET")
    first = desk.tick()
    assert [r.state for r in first.results] == ["unconfirmed"], first.as_dict()
    desk.box.faults.clear()
    log_in_again(desk)
    desk.box.clock.advance(600)

    again = desk.tick()
    assert [r.state for r in again.results] == ["published"], again.as_dict()
    assert not again.of_kind("problem")
    assert desk.creates("zhihu") == 1 and articles(desk) == 1
    assert desk.box.zhihu.snapshot()["articles"][0]["publish_count"] == 1


def test_posts_from_before_the_member_was_kept_are_the_same_account_under_their_name(
    desk: Desk,
) -> None:
    """A ledger of schema 6 kept the login's digest: the name's next run, under any
    login, takes the earlier posts as the member's."""
    desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    assert desk.tick().exit_code == EXIT_OK
    with sqlite3.connect(desk.state_dir / "ledger.sqlite3") as db:
        db.execute("UPDATE posts SET account_identity = 'abcdefabcdefabcd', identity_kind = 'z_c0'")
    log_in_again(desk)
    desk.write("a2", at(0), channels=ZHIHU_ONLY)
    desk.box.clock.advance(60)
    report = desk.tick()
    assert not report.of_kind("problem"), report.as_dict()
    went = {(r.key.issue_id, r.state, r.sent) for r in report.results}
    assert ("a2", "published", True) in went and went <= {
        ("a1", "unchanged", False),  # the new cookie is a new config: a1 is looked at again
        ("a2", "published", True),
    }, went
    kept = identities(desk)
    assert kept["a1 main"] == kept["a2 main"] and kept["a1 main"][1] == "member"


# --- b. a new login and a new name: the same member --------------------------------------


@pytest.mark.parametrize("mode", ["publish", "draft"])
def test_a_renamed_account_with_a_new_login_is_not_sent_the_issue_again(
    desk: Desk, mode: str
) -> None:
    path = desk.write("a1", at(-60), channels=ZHIHU_ONLY, extra=f"zhihu: {{mode: {mode}}}\n")
    assert desk.tick().exit_code == EXIT_OK
    rename_zhihu(desk, "main", "primary")
    log_in_again(desk)
    desk.box.clock.advance(60)

    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT, report.as_dict()
    [refused] = report.results
    config = desk.root / "crosspost.toml"
    state = "published https://zhuanlan.zhihu.com/p/" if mode == "publish" else "drafted https://"
    assert refused.message.startswith(
        f"{path}: this issue already went out to this account as zhihu:main ({state}"
    ), refused.message
    assert refused.message.endswith(
        "; the same Zhihu member as zhihu:primary), a name no longer in the config; nothing "
        "was sent. If the account was renamed, its posts are in the ledger under its old "
        f"name: give it back ([channels.zhihu.accounts.main] in {config}) to go on with "
        f"them; to send the issue to it a second time all the same, run 'crosspost publish "
        f"{path} -c zhihu:primary --new-post'"
    ), refused.message
    assert (refused.state, refused.sent) == ("failed", False)
    assert desk.creates("zhihu") == 1 and len(desk.box.zhihu.snapshot()["drafts"]) == 1
    no_secret_in(desk, refused.message)

    desk.box.clock.advance(60)
    assert desk.tick().quiet, "said once"
    assert desk.creates("zhihu") == 1


# --- c. two names, two logins, one member -------------------------------------------------


def test_two_names_with_two_logins_of_one_member_send_the_issue_once(desk: Desk) -> None:
    second_name(desk)
    desk.env["ZHIHU_SECOND_Z_C0"] = desk.box.zhihu.credentials()["z_c0"]
    log_in_again(desk, keep_old=True)  # two browsers: both cookies log in
    assert desk.env["ZHIHU_SECOND_Z_C0"] != desk.env["ZHIHU_Z_C0"]
    desk.write("a1", at(-60), channels=ZHIHU_ONLY)

    report = desk.tick()
    states = sorted((r.key.account, r.state, r.sent) for r in report.results)
    assert [s[1:] for s in states] in (
        [("published", True), ("failed", False)],
        [("failed", False), ("published", True)],
    ), report.as_dict()
    [refused] = [r for r in report.results if r.state == "failed"]
    [went] = [r for r in report.results if r.state == "published"]
    config = desk.root / "crosspost.toml"
    assert refused.message.endswith(
        f"and zhihu:{went.key.account} is the same account as zhihu:{refused.key.account} "
        "(the same Zhihu member); nothing was sent. Two names for one account would send it "
        f"every issue twice: remove one of them from {config}"
    ), refused.message
    assert refused.exit_code == EXIT_BAD_INPUT
    assert desk.creates("zhihu") == 1 and articles(desk) == 1


def test_two_names_with_two_logins_of_one_member_in_two_runs_send_it_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = posted_then_second_browser(desk, monkeypatch)

    assert cli.main(["publish", str(path), "-c", "zhihu:second"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert (
        "this issue already went out as zhihu:main (published https://zhuanlan.zhihu.com/p/"
    ) in err and "and zhihu:main is the same account as zhihu:second (the same Zhihu member)" in (
        err
    ), err
    assert desk.creates("zhihu") == 1 and articles(desk) == 1


def test_another_member_under_another_name_gets_the_issue(desk: Desk) -> None:
    """The earlier post went to another member: the issue goes out as to a new account."""
    desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    assert desk.tick().exit_code == EXIT_OK
    with sqlite3.connect(desk.state_dir / "ledger.sqlite3") as db:
        db.execute("UPDATE posts SET account_identity = '0123456789abcdef'")
    rename_zhihu(desk, "main", "new")
    log_in_again(desk)
    desk.box.clock.advance(60)
    report = desk.tick()
    assert [(r.key.account, r.state) for r in report.results] == [("new", "published")]
