"""A tick whose state dir fails it after posts went out: what went out is said, then the
error, with the exit code that is true (README, "When this machine is the trouble").

The trouble is injected in this process (:class:`~publisher.world.StateTrouble`): a state
dir that takes no new file (the token cache must be written anew, ``run-due.json``), or a
full disk under the ledger, from a post's checkpoint on; the sandbox and the ledger are
real. Before anything is sent, such trouble stays the one line it always was.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from crosspost import cli
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNCONFIRMED
from crosspost.schedule.notify import run_notice
from crosspost.schedule.tick import DueOptions, run_due
from publisher.world import StateTrouble

from .desk import Desk, at

#: Past WeChat reconcile's settle time (600 s): it can then tell whether a submit happened.
LATER = 700.0


def tick(now: float = 0) -> int:
    """``crosspost run-due`` at ``now`` seconds after the desk's start, in this process."""
    return cli.main(["run-due", "--now", at(now)])


def published_urls(desk: Desk, channel: str) -> list[str]:
    if channel == "wechat":
        found = desk.box.wechat.snapshot()["published"]
        return [str(u) for post in found for u in post.get("urls") or [post.get("url")] if u]
    return [str(a["url"]) for a in desk.box.zhihu.snapshot()["articles"]]


def test_a_state_dir_that_takes_no_new_file_says_what_went_out_and_never_nothing_was_sent(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The token cache must be written anew, in a folder that takes no new file: WeChat
    stops before its first call, Zhihu's posts go out. Their lines come first, then the
    error saying what to fix; exit 2 (the error's own), never a word of "nothing sent"."""
    desk.use_env(monkeypatch)
    for name in ("51", "52"):
        desk.write(name, at(-60))
    trouble = StateTrouble(monkeypatch, desk.state_dir, errno.EACCES, subfolders=False)
    trouble.begin()

    assert tick() == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    posts = desk.posts()
    assert out.splitlines() == [
        f"published  zhihu:main   {name}  {posts[f'{name} zhihu'].url}" for name in ("51", "52")
    ]
    *lines, error = err.splitlines()
    assert lines == [
        f"not sent   wechat:main  {name}  not finished: stopped by the error below; run again "
        "once it is fixed"
        for name in ("51", "52")
    ]
    token = next(desk.state_dir.glob("wechat-token-*.json.lock")).with_suffix("")
    assert error == (
        f"crosspost: error: {token}: cannot write a state file (Permission denied); make the "
        "folder writable for this user, then run again: what this run sent before it is "
        "recorded (the lines above)"
    )
    assert "Traceback" not in out + err
    assert desk.creates("wechat") == 0

    trouble.end()
    assert tick(now=60) == EXIT_OK
    out, err = capsys.readouterr()
    assert err == ""
    posts = desk.posts()
    assert out.splitlines() == [
        f"published  wechat:main  {name}  {posts[f'{name} wechat'].url}" for name in ("51", "52")
    ]
    assert (desk.creates("wechat"), desk.creates("zhihu")) == (2, 2)


def test_a_disk_full_after_both_publications_went_out_is_unconfirmed_with_what_went_out(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills once Zhihu and WeChat have both answered their publish call: the
    ledger cannot record either answer. Each post is unconfirmed with what went out (its
    URL where the platform gave one), the error says what to fix and to reconcile; exit 3."""
    desk.use_env(monkeypatch)
    desk.write("61", at(-60))
    trouble = StateTrouble(
        monkeypatch, desk.state_dir, errno.ENOSPC, ledger=True, at="after-publish", posts=2
    )

    assert tick() == EXIT_UNCONFIRMED
    out, err = capsys.readouterr()
    [zhihu] = published_urls(desk, "zhihu")
    assert out == ""
    ledger = desk.state_dir / "ledger.sqlite3"
    advice = "but the ledger could not record it; once the error below is fixed, run "
    assert err.splitlines() == [
        f"unconfirmed  wechat:main  61  went out (its publish call), {advice}"
        "'crosspost reconcile 61'",
        f"unconfirmed  zhihu:main   61  went out ({zhihu}), {advice}'crosspost reconcile 61'",
        f"crosspost: error: {ledger}: the disk holding the ledger is full; free some space "
        "there, then run 'crosspost reconcile 61': the ledger could not record how the "
        "unconfirmed posts above ended",
    ]

    trouble.end()
    desk.clock.advance(LATER)  # type: ignore[attr-defined]
    assert cli.main(["reconcile", "61"]) == EXIT_OK, capsys.readouterr()
    assert tick(now=LATER) == EXIT_OK
    capsys.readouterr()
    posts = desk.posts()
    assert posts["61 zhihu"].url == zhihu
    assert posts["61 wechat"].state == "published"
    assert [len(published_urls(desk, c)) for c in ("wechat", "zhihu")] == [1, 1]
    assert (desk.creates("wechat"), desk.creates("zhihu")) == (1, 1)


def test_a_state_file_lost_after_the_posts_were_recorded_keeps_its_code_and_the_lines(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only ``run-due.json`` cannot be written, once the post is out and in the ledger:
    the post's line, then the error's own code (2) and words that say it is recorded."""
    desk.use_env(monkeypatch)
    desk.write("71", at(-60), channels="[zhihu]")
    StateTrouble(monkeypatch, desk.state_dir, errno.EACCES, subfolders=False, at="after-publish")

    assert tick() == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == f"published  zhihu:main  71  {desk.posts()['71 zhihu'].url}\n"
    assert err == (
        f"crosspost: error: {desk.state_dir / 'run-due.json'}: cannot write a state file "
        "(Permission denied); make the folder writable for this user, then run again: what "
        "this run sent before it is recorded (the lines above)\n"
    )


def test_a_state_dir_that_takes_no_new_file_before_anything_went_out_is_the_one_line(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    desk.write("81", at(-60), channels="[wechat]")
    StateTrouble(monkeypatch, desk.state_dir, errno.EACCES, subfolders=False).begin()

    assert tick() == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith("crosspost: error: ") and "wechat-token-" in line
    assert line.endswith(
        "cannot write a state file (Permission denied); make the folder writable for this "
        "user, or point CROSSPOST_STATE_DIR / --state-dir at one that is"
    )
    assert desk.creates("wechat") == 0


def test_the_notice_of_such_a_tick_carries_the_error_with_the_posts(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk.write("91", at(-60), channels="[zhihu]")
    trouble = StateTrouble(monkeypatch, desk.state_dir, errno.ENOSPC, at="after-publish")

    options = DueOptions(dirs=(desk.issues,))
    report = run_due(
        desk.settings(), options, clock=desk.clock, sleep=desk.sleep, checkpoint=trouble.checkpoint
    )
    assert [r.state for r in report.results] == ["published"]
    assert report.trouble is not None and report.exit_code == report.trouble.exit_code == 75
    notice = run_notice(report)
    assert notice is not None and notice.kind == "failure"
    assert notice.body == f"error: {report.trouble}"
    assert "run-due.json: cannot write a state file (No space left on device)" in notice.body


def test_a_post_lock_this_user_cannot_open_stops_that_post_alone_and_says_what_went_out(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A post's lock file the kernel refuses to open (one a ``sudo crosspost`` run left
    root's, in a state dir that is still this user's): the other channel's post goes out
    and its line is said, then the error, which names the lock file and never "nothing
    was sent"; exit 2. Before, the OSError ended the whole tick: the published line was
    never said, and every later tick failed the same way with nothing settled."""
    desk.use_env(monkeypatch)
    desk.write("96", at(-60))
    locks = desk.state_dir / "locks"
    refused = {"on": True}
    real_open = os.open

    def kernel_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        where = Path(os.fsdecode(path))
        if refused["on"] and where.parent == locks and where.name.startswith("96.zhihu."):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(where))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", kernel_open)

    assert tick() == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == f"published  wechat:main  96  {desk.posts()['96 wechat'].url}\n"
    *lines, error = err.splitlines()
    assert lines == [
        "not sent   zhihu:main   96  not finished: stopped by the error below; run again "
        "once it is fixed"
    ]
    assert error.startswith(f"crosspost: error: {locks / '96.zhihu.main.'}")
    assert error.endswith(
        ".lock: cannot write a post's lock file (Permission denied); make the folder "
        "writable for this user, then run again: what this run sent before it is recorded "
        "(the lines above)"
    )
    assert (desk.creates("wechat"), desk.creates("zhihu")) == (1, 0)

    refused["on"] = False
    assert tick(now=60) == EXIT_OK
    out, err = capsys.readouterr()
    assert (out, err) == (f"published  zhihu:main  96  {desk.posts()['96 zhihu'].url}\n", "")
    assert (desk.creates("wechat"), desk.creates("zhihu")) == (1, 1)
