"""Attacks on the Zhihu member as the account (schema 7), each against the sandbox over
loopback and a real SQLite ledger: a name that changes member (the wrong person's cookie
pasted), ``--dry-run`` against the login check, a member whose ``/me`` changes shape."""

from __future__ import annotations

import secrets

import pytest

from crosspost import cli
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK

from .desk import Desk, at
from .test_zhihu_logins import (
    ZHIHU_ONLY,
    articles,
    identities,
    log_in_again,
    posted_then_second_browser,
    second_name,
)

DRAFTS = "/api/articles/drafts"


def another_member(desk: Desk) -> str:
    """The cookie in the config now logs in as another person: the member behind the
    sandbox's logins changes (as when the editor pasted a colleague's z_c0)."""
    desk.box.zhihu.user["id"] = secrets.token_hex(16)
    return str(desk.box.zhihu.user["id"])


def test_a_post_that_never_reached_zhihu_goes_with_the_member_it_is_sent_to(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main's first try of a1 fails before anything is made (Zhihu refuses the draft; the
    row learns member A); the editor then pastes member B's cookie into main and a1 goes
    to B. The row must say B: else a second name of B is sent a1 again, nothing in the
    ledger saying B has it."""
    path = desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    desk.box.faults.add("zhihu", DRAFTS, "zhihu:10003", count=1)
    first = desk.tick()
    assert [r.state for r in first.results] == ["failed"], first.as_dict()
    [(member_a, kind)] = identities(desk).values()
    assert kind == "member"

    another_member(desk)
    log_in_again(desk)  # B's cookie, in main's variable
    desk.box.clock.advance(60)
    second = desk.tick()  # a new login: a new config, tried again
    assert [r.state for r in second.results] == ["published"], second.as_dict()
    assert articles(desk) == 1
    [(member_b, kind)] = identities(desk).values()
    assert member_b != member_a and kind == "member", "a1 went to B: its row says so"

    second_name(desk, "bee")  # B under another name, from a second browser
    log_in_again(desk, keep_old=True, into="ZHIHU_BEE_Z_C0")
    desk.use_env(monkeypatch)
    assert cli.main(["publish", str(path), "-c", "zhihu:bee"]) == EXIT_BAD_INPUT
    assert "the same Zhihu member" in capsys.readouterr().err
    assert desk.creates("zhihu") == 2 and articles(desk) == 1  # the refused one, a1's


def test_a_dry_run_says_the_refusal_a_run_would_give_and_writes_nothing(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--dry-run`` asks the login check (a read) where the account is its member, so it
    does not promise a post the run then refuses; the ledger is left as it was."""
    path = posted_then_second_browser(desk, monkeypatch)
    kept = identities(desk)
    capsys.readouterr()

    assert cli.main(["publish", str(path), "-c", "zhihu:second", "--dry-run"]) == EXIT_OK
    dry = capsys.readouterr().out
    assert identities(desk) == kept and desk.creates("zhihu") == 1
    assert cli.main(["publish", str(path), "-c", "zhihu:second"]) == EXIT_BAD_INPUT
    real = capsys.readouterr().err.strip().splitlines()[-1]
    said = real.split(f"{path}: ", 1)[1]  # the run's line, its file aside
    assert f"zhihu:second  a1  publish: nothing: {said}" in dry, dry

    # --new-post, the way on the line gives: the dry run says the post it would make.
    assert cli.main(["publish", str(path), "-c", "zhihu:second", "--new-post", "--dry-run"]) == 0
    assert "zhihu:second  a1  publish: create a draft and publish it" in capsys.readouterr().out


def test_a_dry_run_whose_login_check_fails_says_so_and_still_plans(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = desk.write("a1", at(-60), channels=ZHIHU_ONLY)
    desk.box.zhihu.expire_ticket()
    desk.use_env(monkeypatch)
    assert cli.main(["publish", str(path), "-c", "zhihu", "--dry-run"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "zhihu:main  a1  publish: create a draft and publish it, once the login " in out, out
    assert desk.creates("zhihu") == 0 and not identities(desk)


@pytest.mark.parametrize("mode", ["publish", "draft"])
def test_a_post_is_not_changed_through_another_members_login(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    """a1 went to member A as zhihu:main; the editor pastes member B's cookie into main and
    edits a1. Nothing of a1 is changed or made through B's login (on Zhihu: a refusal at
    best, a second post of a1 at worst), and the line says whose login it is now."""
    extra = f"zhihu: {{mode: {mode}}}\n"
    path = desk.write("a1", at(-60), channels=ZHIHU_ONLY, extra=extra)
    assert desk.tick().exit_code == EXIT_OK
    kept = identities(desk)
    another_member(desk)
    log_in_again(desk)
    desk.write(
        "a1", at(-60), channels=ZHIHU_ONLY, extra=extra, body="改过的正文,足够长,能通过检查。\n"
    )
    desk.use_env(monkeypatch)
    seen = len(desk.box.requests)
    capsys.readouterr()

    assert cli.main(["publish", str(path), "-c", "zhihu", "--update", "--dry-run"]) == EXIT_OK
    dry = capsys.readouterr().out
    assert cli.main(["publish", str(path), "-c", "zhihu", "--update"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    config = desk.root / "crosspost.toml"
    said = (
        f"{path}: zhihu:main now logs in as another Zhihu member than the one this issue "
        "went to as zhihu:main ("
    )
    assert said in err, err
    assert err.rstrip().endswith(
        "); nothing was sent. If the login is someone else's, put the account's own back "
        f"(its z_c0 in {config} or its environment); if zhihu:main is another account now, "
        "give that account a name of its own"
    ), err
    assert "nothing: zhihu:main now logs in as another Zhihu member" in dry, dry
    writes = [r for r in desk.box.requests[seen:] if r.method != "GET"]
    assert writes == [] and identities(desk) == kept
    assert articles(desk) == (1 if mode == "publish" else 0)


def test_no_member_id_nor_login_in_the_ledger_status_or_export(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = posted_then_second_browser(desk, monkeypatch)
    assert cli.main(["publish", str(path), "-c", "zhihu:second"]) == EXIT_BAD_INPUT
    assert cli.main(["reconcile", "a1", "--adopt"]) in (EXIT_OK, EXIT_BAD_INPUT)
    assert cli.main(["status"]) == EXIT_OK
    assert cli.main(["ledger", "export"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert '"identity_kind": "member"' in out
    member = str(desk.box.zhihu.user["id"])
    ledger = b"".join(p.read_bytes() for p in desk.state_dir.glob("ledger.sqlite3*"))
    for secret in (member, str(desk.box.zhihu.user["uid"]), *desk.secrets()):
        assert secret.encode() not in ledger
        assert secret not in out + err
    assert articles(desk) == 1
