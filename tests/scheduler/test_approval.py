"""run-due and ``require_approval``: an issue waits (one line, exit 0, a notice) until approved."""

from __future__ import annotations

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_OK
from crosspost.schedule.notify import run_notice

from .desk import Desk, at

SUBMIT = "/cgi-bin/freepublish/submit"


def require_approval(desk: Desk) -> None:
    config = desk.root / "crosspost.toml"
    config.write_text(
        config.read_text("utf-8").replace(
            'app_secret_env = "WECHAT_APP_SECRET"',
            'app_secret_env = "WECHAT_APP_SECRET"\nrequire_approval = true',
        ),
        "utf-8",
    )


def test_a_due_issue_waits_for_approval_then_goes_out(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    require_approval(desk)
    path = desk.write("50", at(-60), channels="[wechat]")

    first = desk.tick()
    assert (first.exit_code, [r.state for r in first.results]) == (EXIT_OK, ["waiting"])
    notice = run_notice(first)
    assert notice is not None and "waiting for approval" in notice.body
    assert f"crosspost approve {path}" in notice.body
    assert not any(r.path == SUBMIT for r in desk.box.requests)

    second = desk.tick()  # still waiting: nothing new to say
    assert [r.state for r in second.results] == ["waiting"]
    assert second.quiet and run_notice(second) is None

    desk.use_env(monkeypatch)
    assert main(["approve", str(path), "-q"]) == EXIT_OK
    capsys.readouterr()
    third = desk.tick()
    assert [r.state for r in third.results] == ["published"], third.as_dict()
    assert sum(r.path == SUBMIT for r in desk.box.requests) == 1


def test_a_post_waiting_for_approval_is_one_line_of_the_tick_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its 'waiting' line and its 'to do' line said the same: it is the to-do line alone."""
    require_approval(desk)
    path = desk.write("50", at(-60), channels="[wechat]")
    desk.use_env(monkeypatch)

    assert main(["run-due", "--now", at(0)]) == EXIT_OK
    assert capsys.readouterr() == (
        f"to do  wechat:main  50  waiting for approval: send it to reviewers with 'crosspost "
        f"review {path} --to WECHAT_ID', then 'crosspost approve {path}' (an edit after "
        "approving voids it)\n",
        "",
    )
    assert main(["run-due", "--now", at(60)]) == EXIT_OK
    assert capsys.readouterr() == ("", ""), "still waiting: nothing new"
