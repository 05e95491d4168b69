"""``crosspost publish`` whose state dir fails it after posts went out: the table says what
went out, then the error, with the exit code that is true (``run-due``'s twin is
``tests/scheduler/test_state_trouble.py``). The trouble is injected in this process
(:class:`~.world.StateTrouble`); the sandbox and the ledger are real."""

from __future__ import annotations

import errno

import pytest

from crosspost import cli
from crosspost.commands.switches import CLOCK_OFFSET_VARIABLE
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNCONFIRMED

from .test_delivery import plain_issue, use_config, wechat_config
from .world import ISSUE_ID, StateTrouble, World, assert_one_post_per_channel

#: Past WeChat reconcile's settle time (600 s): it can then tell whether a submit happened.
LATER = 700.0


def publish(world: World) -> int:
    return cli.main(["publish", str(world.issue), "--mode", "publish", "-q"])


def test_a_full_disk_after_both_publications_is_a_table_of_what_went_out_and_exit_3(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world.use_env(monkeypatch)
    trouble = StateTrouble(
        monkeypatch, world.state_dir, errno.ENOSPC, ledger=True, at="after-publish", posts=2
    )

    assert publish(world) == EXIT_UNCONFIRMED
    out, err = capsys.readouterr()
    [zhihu] = [str(a["url"]) for a in world.published_on("zhihu")]
    reconcile = f"'crosspost reconcile {ISSUE_ID}'"
    wechat = (
        "went out (its publish call), but the ledger could not record it; once the error "
        f"below is fixed, run {reconcile}"
    )
    assert out.splitlines() == [
        "channel      issue          state        url",
        f"wechat:main  {ISSUE_ID}  unconfirmed  {wechat}",
        f"zhihu:main   {ISSUE_ID}  unconfirmed  {zhihu}",
    ]
    assert err.splitlines() == [
        f"wechat:main  {ISSUE_ID}: {wechat}",
        f"zhihu:main  {ISSUE_ID}: went out ({zhihu}), but the ledger could not record it; "
        f"once the error below is fixed, run {reconcile}",
        f"crosspost: error: {world.state_dir / 'ledger.sqlite3'}: the disk holding the ledger "
        f"is full; free some space there, then run {reconcile}: the ledger could not record "
        "how the unconfirmed posts above ended",
    ]

    trouble.end()
    world.box.clock.advance(LATER)
    monkeypatch.setenv(CLOCK_OFFSET_VARIABLE, str(LATER))
    assert publish(world) == EXIT_OK, capsys.readouterr()
    assert_one_post_per_channel(world)


def test_a_token_cache_that_cannot_be_written_stops_wechat_and_zhihu_is_said(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The state dir takes no new file (a read-only mount over the files it has), and the
    WeChat token must be cached anew: Zhihu's post goes out and is in the table; the error
    keeps its code (2) and says what to fix, not that nothing was sent."""
    world.use_env(monkeypatch)
    StateTrouble(monkeypatch, world.state_dir, errno.EACCES, subfolders=False).begin()

    assert publish(world) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    zhihu = world.posts()["zhihu"].url
    stopped = "not finished: stopped by the error below; run again once it is fixed"
    assert out.splitlines() == [
        "channel      issue          state      url",
        f"wechat:main  {ISSUE_ID}  not sent   {stopped}",
        f"zhihu:main   {ISSUE_ID}  published  {zhihu}",
    ]
    token = next(world.state_dir.glob("wechat-token-*.json.lock")).with_suffix("")
    assert err.splitlines() == [
        f"wechat:main  {ISSUE_ID}: {stopped}",
        f"crosspost: error: {token}: cannot write a state file (Permission denied); make the "
        "folder writable for this user, then run again: what this run sent before it is "
        "recorded (the lines above)",
    ]
    assert world.published_on("wechat") == []


def test_review_whose_ledger_fills_after_the_draft_says_the_draft_then_the_error(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``review`` makes the draft as ``publish`` does, so it ends as ``publish`` does: the
    post's line, then the error with the reconcile to run, and exit 3 (it said "nothing
    is half-written" and exit 75, with the draft made and not recorded)."""
    use_config(world, wechat_config(world))
    issue = plain_issue(world.root)
    world.use_env(monkeypatch)
    trouble = StateTrouble(
        monkeypatch, world.state_dir, errno.ENOSPC, ledger=True, at="after-draft"
    )

    assert cli.main(["review", str(issue), "--to", "editor-wx", "-q"]) == EXIT_UNCONFIRMED
    out, err = capsys.readouterr()
    reconcile = "'crosspost reconcile plain-1'"
    assert out.splitlines() == [
        "account      issue    what happened",
        "wechat:main  plain-1  no preview sent (unconfirmed: went out (its draft call), but the "
        f"ledger could not record it; once the error below is fixed, run {reconcile})",
    ]
    assert err.splitlines() == [
        f"crosspost: error: {world.state_dir / 'ledger.sqlite3'}: the disk holding the ledger "
        f"is full; free some space there, then run {reconcile}: the ledger could not record "
        "how the unconfirmed posts above ended",
    ]
    assert len(world.drafts_on("wechat")) == 1 and world.box.wechat.previews() == {}

    trouble.end()
    assert cli.main(["review", str(issue), "--to", "editor-wx", "-q"]) == EXIT_OK
    assert "sent to editor-wx's WeChat for review" in capsys.readouterr().out
    (draft,) = world.drafts_on("wechat")
    assert world.box.wechat.previews() == {"editor-wx": [draft]}
