"""What run-due must say in its plain output, once per version of the file, because cron
mails only that output: a WeChat article that cannot take an edit, an issue no account
can send, a ``draft: true`` it skips, a ``publish_at`` misspelt so it never comes due."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from crosspost import cli
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK
from crosspost.issue.loader import read_issue
from crosspost.schedule.notify import run_notice
from publisher.world import use_env

from .desk import MINIMAL_BODY, Desk, at, make_jpeg


def run_due(*args: str, now: float = 0) -> int:
    return cli.main(["run-due", "--now", at(now), *args])


def edit(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(MINIMAL_BODY, MINIMAL_BODY + "补充一句。\n"), encoding="utf-8")


NOT_EDITABLE = (
    "changed since it was published, but WeChat Official Account cannot edit a published or "
    "mass-sent "
    "article, so the change stays off it: make small text fixes in 公众号后台 → 发表记录, "
    "or delete the article there and publish the issue again under a new 'id:'"
)


def test_an_edit_wechat_cannot_take_is_a_to_do_line_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to be said only with --json, and that tick used up the "said once"."""
    desk.use_env(monkeypatch)
    issue = desk.write("48", at(-60))
    assert run_due("--sandbox", "--mode", "publish") == EXIT_OK
    published = capsys.readouterr().out.splitlines()
    wechat_url = next(line for line in published if "wechat:" in line).split()[-1]

    edit(issue)
    assert run_due("--sandbox", "--mode", "publish", now=60) == EXIT_OK
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert f"published  wechat:sandbox  48  {wechat_url}" in lines
    assert f"to do      wechat:sandbox  48  {NOT_EDITABLE}" in lines
    assert (
        "changed    zhihu:sandbox   48  changed since it was published; run with --update to "
        f"edit it in place: 'crosspost publish {issue} -c zhihu:sandbox --update --sandbox'"
    ) in lines
    assert err == ""

    assert run_due("--sandbox", "--mode", "publish", now=120) == EXIT_OK
    assert capsys.readouterr() == ("", ""), "said once, not every tick"


def test_the_to_do_line_reaches_the_notice_too(desk: Desk) -> None:
    issue = desk.write("48", at(-60), channels="[wechat]")
    assert desk.tick().exit_code == EXIT_OK
    edit(issue)
    report = desk.tick()
    assert report.exit_code == EXIT_OK
    notice = run_notice(report)
    assert notice is not None and notice.kind == "warning"
    assert notice.body == f"published wechat:main 48: {NOT_EDITABLE}"
    assert run_notice(desk.tick()) is None


def no_config_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A shell with an empty HOME and no config at all, in a folder with ``due/``."""
    home = tmp_path / "home"
    home.mkdir()
    use_env({"HOME": str(home)}, tmp_path, monkeypatch)
    due = tmp_path / "due"
    due.mkdir()
    return due


def test_a_due_issue_with_no_account_configured_is_reported_once_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cron line that lost its CROSSPOST_CONFIG used to stay silent and exit 0."""
    due = no_config_shell(tmp_path, monkeypatch)
    (due / "later.md").write_text(
        f"---\ntitle: 以后\npublish_at: {at(3600)}\n---\n{MINIMAL_BODY}", encoding="utf-8"
    )
    assert run_due(str(due)) == EXIT_OK, "nothing due: nothing to complain about"
    assert capsys.readouterr() == ("", "")

    (due / "d1.md").write_text(
        f"---\ntitle: 到了\npublish_at: {at(-60)}\n---\n{MINIMAL_BODY}", encoding="utf-8"
    )
    assert run_due(str(due)) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "problem  no accounts are configured: no config file was found (--config, "
        "CROSSPOST_CONFIG, ./crosspost.toml, ~/.config/crosspost/crosspost.toml); set "
        "CROSSPOST_CONFIG in the cron line, or create one from config/crosspost.example.toml; "
        "nothing was sent, the due issues wait for an account"
    ]
    assert run_due(str(due), now=60) == EXIT_OK, "reported once, as a missing credential is"
    assert capsys.readouterr() == ("", "")
    assert run_due(str(due), "--json", now=120) == EXIT_OK
    [entry] = json.loads(capsys.readouterr().out)["entries"]
    assert (entry["kind"], entry["repeat"]) == ("problem", True)


def test_a_config_without_accounts_names_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    due = no_config_shell(tmp_path, monkeypatch)
    config = tmp_path / "crosspost.toml"
    config.write_text('mode = "publish"\n', encoding="utf-8")
    (due / "d1.md").write_text(
        f"---\ntitle: 到了\npublish_at: {at(-60)}\n---\n{MINIMAL_BODY}", encoding="utf-8"
    )
    assert run_due(str(due)) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines() == [
        f"problem  no accounts are configured in {config}; add one (see "
        "config/crosspost.example.toml); nothing was sent, the due issues wait for an account"
    ]


def test_an_issue_for_a_channel_no_account_serves_is_a_problem_of_its_file(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a Zhihu account, and an issue for WeChat alone: publish's own words, once."""
    config = Path(desk.env["CROSSPOST_CONFIG"])
    text = config.read_text(encoding="utf-8")
    start = text.index("[channels.wechat.accounts.main]")
    end = text.index("[channels.zhihu.accounts.main]")
    config.write_text(text[:start] + text[end:], encoding="utf-8")
    desk.use_env(monkeypatch)
    issue = desk.write("48", at(-60), channels="[wechat]")
    desk.write("49", at(-60), channels="[zhihu]")

    assert run_due() == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"published  zhihu:main  49  {desk.posts()['49 zhihu'].url}"]
    assert err.splitlines() == [
        f"problem    {issue}: asks for wechat, but no account of that channel is configured; "
        "add one to crosspost.toml (see config/crosspost.example.toml)"
    ]
    assert run_due(now=60) == EXIT_OK
    assert capsys.readouterr() == ("", "")
    assert desk.creates("wechat") == 0


def test_a_draft_is_skipped_with_a_line_once_per_version_and_exit_0(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    draft = desk.write("50", at(-60), extra="draft: true\n")
    line = draft.read_text("utf-8").split("\n").index("draft: true") + 1
    said = f"skipped  {draft}:{line}: 'draft: true' (remove it when it is ready)"

    assert run_due() == EXIT_OK
    assert capsys.readouterr() == (said + "\n", "")
    assert run_due(now=60) == EXIT_OK
    assert capsys.readouterr() == ("", ""), "not every tick"
    assert run_due("-v", now=90) == EXIT_OK
    assert said in capsys.readouterr().out.splitlines(), "-v repeats it"

    edit(draft)  # still a draft: a new version, said again
    assert run_due(now=120) == EXIT_OK
    assert capsys.readouterr() == (said + "\n", "")
    assert desk.posts() == {}

    draft.write_text(draft.read_text("utf-8").replace("draft: true\n", ""), encoding="utf-8")
    assert run_due(now=180) == EXIT_OK
    assert capsys.readouterr().out.startswith("published  wechat:main  50  https://")


def test_a_misspelt_publish_at_is_said_once_when_it_would_be_due(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    issue = desk.write("51", None, extra=f"publsh_at: {at(600)}\n")
    desk.write("52", None, extra=f"published: {at(-600)}\n")  # no publish_at look-alike
    line = issue.read_text("utf-8").split("\n").index(f"publsh_at: {at(600)}") + 1
    said = (
        f"unscheduled  {issue}:{line}: 'publsh_at' is no field of crosspost (did you mean "
        "'publish_at'?), so this issue is never due; rename the field to schedule it"
    )
    assert any(
        "'publsh_at' (did you mean 'publish_at'?)" in notice.message
        for notice in read_issue(issue).notices
    ), "the loader calls it a misspelling too"
    assert run_due() == EXIT_OK
    assert capsys.readouterr() == ("", ""), "not due yet: said when it would be"

    assert run_due(now=660) == EXIT_OK
    assert capsys.readouterr() == (said + "\n", "")
    assert run_due(now=720) == EXIT_OK
    assert capsys.readouterr() == ("", ""), "once"
    assert desk.posts() == {}

    issue.write_text(issue.read_text("utf-8").replace("publsh_at", "publish_at"), "utf-8")
    assert run_due(now=780) == EXIT_OK
    assert "published  wechat:main  51  https://" in capsys.readouterr().out


# --- what makes a new version of the configuration -------------------------------------


def rewrite(config: Path, old: str, new: str) -> None:
    text = config.read_text(encoding="utf-8")
    assert old in text, old
    config.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_comment_or_timeout_edit_is_no_new_version_but_a_mode_or_a_limit_is(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once per version of the file and of the settings that shape what a tick does: the
    raw bytes of the config used to count, so a comment made a systemd timer fail again."""
    desk.use_env(monkeypatch)
    config = Path(desk.env["CROSSPOST_CONFIG"])
    broken = desk.issues / "broken.md"
    broken.write_text("---\ntitle: 坏了\npublish_at: 2026-11-23 09:00\n---\n", encoding="utf-8")
    said = (
        f"problem  {broken}:3: 'publish_at' has no timezone, so its moment is ambiguous; "
        "add one: write 2026-11-23T09:00:00+08:00 for that time in Beijing (+08:00; another "
        "zone: its offset)\n"
    )
    assert run_due() == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", said)
    assert run_due(now=60) == EXIT_OK
    assert capsys.readouterr() == ("", "")

    for old, new in [
        ('mode = "publish"\n', '# publish on the account, not in drafts\nmode = "publish"\n'),
        ("timeout = 10\n", "timeout = 25\n"),
    ]:
        rewrite(config, old, new)
        assert run_due(now=120) == EXIT_OK, (old, new)
        assert capsys.readouterr() == ("", ""), (old, new)

    rewrite(config, 'cookie_env = "ZHIHU_Z_C0"\n', 'cookie_env = "ZHIHU_Z_C0"\nmode = "draft"\n')
    assert run_due(now=180) == EXIT_BAD_INPUT, "an account's mode is a new version"
    assert capsys.readouterr() == ("", said)
    assert run_due(now=240) == EXIT_OK
    assert capsys.readouterr() == ("", "")

    config.write_text(
        config.read_text("utf-8") + "\n[channels.zhihu.limits]\ntitle_chars = 90\n", "utf-8"
    )
    assert run_due(now=300) == EXIT_BAD_INPUT, "so is a limit"
    assert capsys.readouterr() == ("", said)

    state = (desk.state_dir / "run-due.json").read_text(encoding="utf-8")
    for secret in [*desk.secrets(), desk.env["WECHAT_APP_SECRET"], desk.env["ZHIHU_Z_C0"]]:
        assert secret not in state


@pytest.mark.parametrize("where", ["flag", "environment"])
def test_a_longer_grace_from_the_command_line_counts_as_the_files_does(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """``grace`` in the config file was weighed again on the next tick, ``--grace`` and
    CROSSPOST_GRACE never: the missed issue stayed missed."""
    desk.use_env(monkeypatch)
    desk.write("36", at(-30 * 3600), channels="[zhihu]")
    assert run_due() == EXIT_OK
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("missed  zhihu:main  36  publish_at ")
    assert run_due(now=60) == EXIT_OK
    assert capsys.readouterr() == ("", "")

    if where == "flag":
        assert run_due("--grace", "48h", now=120) == EXIT_OK
    else:
        monkeypatch.setenv("CROSSPOST_GRACE", "48h")
        assert run_due(now=120) == EXIT_OK
    url = desk.posts()["36 zhihu"].url
    assert capsys.readouterr() == (f"published  zhihu:main  36  {url}\n", "")


@pytest.mark.parametrize("missing", ["images/fig.jpg", "cover.jpg"])
def test_a_picture_added_after_its_problem_was_said_lets_the_issue_go(
    desk: Desk, missing: str
) -> None:
    """The problem is said once per version of the issue file, but its fix is another
    file: the tick used to keep quiet for ever, the issue never sent, until someone
    edited the issue itself. A picture the issue names is looked at on each tick."""
    issue = desk.write("48", at(-60), body=f"{MINIMAL_BODY}\n![图](images/fig.jpg)\n")
    picture = desk.issues / missing
    picture.unlink(missing_ok=True)
    first = desk.tick()
    assert first.exit_code == EXIT_BAD_INPUT
    assert [e.kind for e in first.entries] == ["problem"]
    assert missing.split("/")[-1] in first.entries[0].message
    again = desk.tick()
    assert again.exit_code == EXIT_OK and all(e.repeat for e in again.entries), "said once"

    other = desk.issues / ("cover.jpg" if missing != "cover.jpg" else "images/fig.jpg")
    other.parent.mkdir(exist_ok=True)
    make_jpeg(other, (900, 383))
    picture.parent.mkdir(exist_ok=True)
    make_jpeg(picture, (900, 383))
    fixed = desk.tick()
    assert fixed.exit_code == EXIT_OK
    assert sorted(r.state for r in fixed.results) == ["published", "published"]
    assert issue.read_text(encoding="utf-8").count("fig.jpg") == 1, "the issue was not edited"
    assert sorted(desk.posts()) == ["48 wechat", "48 zhihu"]


def test_a_problem_whose_pictures_did_not_change_is_not_looked_at_again(desk: Desk) -> None:
    desk.write("48", at(-60), body=f"{MINIMAL_BODY}\n![图](images/fig.jpg)\n")
    assert desk.tick().exit_code == EXIT_BAD_INPUT
    make_jpeg(desk.issues / "unrelated.jpg", (10, 10))  # a picture the issue does not name
    again = desk.tick()
    assert again.exit_code == EXIT_OK and again.settled == 1 and again.results == ()


def test_a_post_the_ledger_lost_is_not_sent_again(desk: Desk) -> None:
    """The ledger deleted between ticks, then the issue edited: the tick planned it as new
    and sent it again (a mass send went to every follower twice). It waits for a person,
    said once, and goes on as before once the ledger is back."""
    issue = desk.write("48", at(-60), channels="[zhihu]")
    assert desk.tick().exit_code == EXIT_OK
    ledger = desk.state_dir / "ledger.sqlite3"
    kept = desk.root / "ledger-copy.sqlite3"
    shutil.copy(ledger, kept)  # the tick closed it: the file is whole
    for leftover in desk.state_dir.glob("ledger.sqlite3*"):
        leftover.unlink()
    edit(issue)
    lost = desk.tick()
    assert lost.exit_code == EXIT_BAD_INPUT
    [problem] = lost.of_kind("problem")
    assert problem.message.startswith(
        "run-due sent 48 to zhihu:main before, but the ledger has no post of it"
    )
    assert f"crosspost publish {issue} -c zhihu:main" in problem.message
    assert desk.creates("zhihu") == 1, "nothing sent again"
    again = desk.tick()
    assert again.exit_code == EXIT_OK and all(e.repeat for e in again.entries), "said once"

    shutil.copy(kept, ledger)  # the ledger is back: the edit goes on as any edit does
    back = desk.tick()
    assert not back.of_kind("problem") and desk.creates("zhihu") == 1
    assert [r.state for r in back.results] == ["changed"]

    for leftover in desk.state_dir.glob("ledger.sqlite3*"):  # lost a second time: news
        leftover.unlink()
    edit(issue)
    assert desk.tick().exit_code == EXIT_BAD_INPUT


def test_the_lost_ledger_advice_runs_as_printed_in_a_rehearsal_and_a_folder_with_a_space(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command to send the issue anew was spelt by hand: without ``--sandbox`` it
    read the real ledger (not the rehearsal's), and a path with a space split in two."""
    desk.use_env(monkeypatch)
    desk.issues = desk.root / "due issues"
    desk.issues.mkdir()
    issue = desk.write("48", at(-60), channels="[zhihu]")
    assert run_due(str(desk.issues), "--sandbox") == EXIT_OK
    capsys.readouterr()
    rehearsal = desk.state_dir / "sandbox"
    for leftover in rehearsal.glob("ledger.sqlite3*"):
        leftover.unlink()
    edit(issue)

    assert run_due(str(desk.issues), "--sandbox", now=60) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines() == [
        "problem  run-due sent 48 to zhihu:sandbox before, but the ledger has no post of it: "
        "the ledger was deleted, replaced or is not the one it was; restore it (or set "
        "ledger_url/state_dir back), and nothing is sent again; to send the issue anew on "
        f"purpose, run 'crosspost publish '{issue}' -c zhihu:sandbox --sandbox'"
    ]


def test_a_tick_kept_out_too_long_by_a_stuck_run_says_so(desk: Desk) -> None:
    """A run stopped or hung while it holds the lock kept every later tick out without a
    word: nothing scheduled went out again, and cron mailed nothing. A minute is work;
    hours are a stuck run, and the tick names it."""
    from crosspost.schedule.state import run_lock

    desk.write("48", at(-60), channels="[zhihu]")
    for started, stuck in ((60.0, False), (3 * 3600.0, True)):
        with run_lock(desk.state_dir, wait=False, clock=lambda s=started: desk.clock() - s):
            report = desk.tick()
        assert report.locked and desk.creates("zhihu") == 0
        assert bool(report.stuck) is stuck
        assert report.exit_code == (EXIT_BAD_INPUT if stuck else EXIT_OK)
    assert report.stuck.startswith(f"run-due has been kept out by another run (pid {os.getpid()}")
    assert ", 3h ago: it seems stuck" in report.stuck
    assert report.stuck.endswith(
        f"stop it (kill {os.getpid()}), and the next tick resumes its posts"
    )
    assert not (desk.state_dir / "run-due.holder").exists(), "its note goes with the lock"
    assert desk.tick().exit_code == EXIT_OK and desk.creates("zhihu") == 1
