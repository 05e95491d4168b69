"""Scheduler ticks on an injected clock against the real sandbox and a real SQLite ledger.

Each test moves one :class:`ManualClock` (shared by the sandbox and the scheduler) the way
cron would: a tick, time passes, another tick. What the editor would notice is asserted:
what reached the platforms, what the ledger says, and what the report tells them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY
from crosspost.sandbox.clock import ManualClock
from crosspost.schedule.state import settings_digest

from .desk import Desk, at


def test_an_issue_not_yet_due_sends_nothing_and_touches_no_state(desk: Desk) -> None:
    desk.write("49", at(3600))
    report = desk.tick()

    assert report.exit_code == EXIT_OK
    assert report.quiet and report.upcoming == 1 and report.files == 1
    assert report.next_due is not None and report.next_due[0].name == "49.md"
    assert desk.box.requests == []
    assert not (desk.state_dir / "ledger.sqlite3").exists()


def test_an_issue_saved_as_notepads_unicode_is_due_and_published(desk: Desk) -> None:
    """UTF-16 LE with its byte-order mark and CRLF line ends: the quick look read it as
    UTF-8, found no front matter and skipped it without a word, so it was never due."""
    path = desk.write("48", at(-60))
    text = path.read_text(encoding="utf-8").replace("\n", "\r\n")
    path.write_bytes("\ufeff".encode("utf-16-le") + text.encode("utf-16-le"))

    report = desk.tick()
    assert report.exit_code == EXIT_OK, report.as_dict()
    assert sorted((r.key.issue_id, r.state) for r in report.results) == [
        ("48", "published"),
        ("48", "published"),
    ]
    assert desk.posts()["48 zhihu"].title == "第48期"


def test_a_due_issue_is_published_once_on_every_channel(desk: Desk) -> None:
    desk.write("48", at(-60))

    first = desk.tick()
    assert first.exit_code == EXIT_OK, first.as_dict()
    assert sorted(r.state for r in first.results) == ["published", "published"]
    posts = desk.posts()
    assert posts["48 wechat"].url and posts["48 wechat"].url.startswith(
        "https://mp.weixin.qq.com/s/"
    )
    assert posts["48 zhihu"].url and posts["48 zhihu"].url.startswith(
        "https://zhuanlan.zhihu.com/p/"
    )

    sent = len(desk.box.requests)
    for _ in range(3):
        desk.box.clock.advance(60)
        again = desk.tick()
        assert again.quiet and again.exit_code == EXIT_OK
        assert again.settled == 1
    assert len(desk.box.requests) == sent, "a settled issue costs no request at all"
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1


def test_an_issue_without_publish_at_and_a_readme_are_left_alone(desk: Desk) -> None:
    desk.write("by-hand", None)
    (desk.issues / "README.md").write_text("# Issues folder\n", encoding="utf-8")
    report = desk.tick()
    assert report.quiet and report.files == 2 and report.upcoming == 0
    assert desk.box.requests == []


def test_missed_by_more_than_the_grace_is_reported_not_published(desk: Desk) -> None:
    desk.write("47", at(-30 * 3600))

    report = desk.tick()
    missed = report.of_kind("missed")
    assert [m.account for m in missed] == ["wechat:main", "zhihu:main"]
    assert "passed 1d 6h ago" in missed[0].message and "--include-missed" in missed[0].message
    assert not missed[0].repeat and not report.quiet
    assert report.exit_code == EXIT_OK
    assert desk.creates("wechat") == 0 and desk.creates("zhihu") == 0

    again = desk.tick()
    assert [m.repeat for m in again.of_kind("missed")] == [True, True]
    assert again.quiet, "cron hears about a missed issue once"

    late = desk.tick(include_missed=True)
    assert sorted(r.state for r in late.results) == ["published", "published"]
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1


def test_within_the_grace_a_late_issue_still_goes_out(desk: Desk) -> None:
    desk.write("46", at(-5 * 3600))
    report = desk.tick(grace=__import__("datetime").timedelta(hours=6))
    assert sorted(r.state for r in report.results) == ["published", "published"]


def test_changed_after_publishing_is_reported_not_republished_without_update(desk: Desk) -> None:
    path = desk.write("45", at(-60), channels="[zhihu]")
    desk.tick()
    article = desk.posts()["45 zhihu"].article_id
    sent = len(desk.box.requests)

    desk.write("45", at(-60), channels="[zhihu]", body="改过的正文,比原来的更长一些,也更准确。\n")
    changed = desk.tick()
    assert [(r.state, r.exit_code) for r in changed.results] == [("changed", EXIT_OK)]
    assert changed.is_news(changed.results[0]) and not changed.quiet
    assert "--update" in changed.results[0].message
    changes = [r for r in desk.box.requests[sent:] if r.method not in ("GET", "HEAD")]
    assert changes == [], "a changed issue is not sent without --update"

    assert desk.tick().quiet, "the change is reported once"

    updated = desk.tick(update=True)
    assert [r.state for r in updated.results] == ["published"]
    assert desk.posts()["45 zhihu"].article_id == article
    assert desk.creates("zhihu") == 1, "an update edits the post in place"
    assert "改过的正文" in str(desk.box.zhihu.snapshot()["articles"])
    assert path.exists()


def test_bad_input_in_one_file_does_not_stop_the_others(desk: Desk) -> None:
    desk.write("44", at(-60))
    broken = desk.issues / "broken.md"
    broken.write_text("---\ntitle: [unclosed\npublish_at: 2026-11-22T09:00:00+08:00\n---\n")
    naive = desk.issues / "naive.md"
    naive.write_text("---\ntitle: 无时区\npublish_at: 2026-11-22 09:00:00\n---\n正文。\n")
    too_long = desk.write("43", at(-60), extra=f"wechat: {{title: {'长' * 65}}}\n")

    report = desk.tick()
    problems = {p.path.name: p.message for p in report.of_kind("problem")}
    assert set(problems) == {"broken.md", "naive.md", "43.md"}
    assert problems["broken.md"].startswith(f"{broken}:")
    assert problems["naive.md"].startswith(f"{naive}:3: 'publish_at' has no timezone")
    assert problems["43.md"].startswith(str(too_long))
    assert sorted(r.state for r in report.results) == ["published", "published"]
    assert report.exit_code == EXIT_BAD_INPUT

    again = desk.tick()
    # Still broken, but said already: a timer is not marked failed every tick for it.
    assert again.exit_code == EXIT_OK, "only what is new sets the exit status"
    assert all(p.repeat for p in again.of_kind("problem")) and again.quiet

    naive.write_text(
        f"---\ntitle: 有时区\nchannels: [zhihu]\npublish_at: {at(-60)}\n---\n"
        "正文足够长了吗?是的,足够长。\n"
    )
    fixed = desk.tick()
    assert {p.path.name for p in fixed.of_kind("problem")} == {"broken.md", "43.md"}
    assert any(r.key.issue_id == "naive" and r.state == "published" for r in fixed.results)


def test_platform_down_for_three_ticks_is_published_on_the_fourth_with_growing_spacing(
    desk: Desk,
) -> None:
    clock = desk.box.clock
    assert isinstance(clock, ManualClock)
    desk.write("42", at(-60), channels="[zhihu]")
    # Four attempts per tick (the HTTP policy's retries), three ticks' worth of them.
    desk.box.faults.add("zhihu", "/api/v4/me", "http:503", count=12)

    gaps: list[float] = []
    for _ in range(3):
        started = clock()
        report = desk.tick()
        assert report.exit_code == EXIT_TEMPORARY, report.as_dict()
        post = desk.posts()["42 zhihu"]
        assert post.state == "failed" and post.next_attempt_at is not None
        gaps.append(post.next_attempt_at - started)

        clock.advance(60)  # the next cron minute: too early to try again
        before = len(desk.box.requests)
        waiting = desk.tick()
        assert waiting.exit_code == EXIT_OK and waiting.quiet
        assert [e.kind for e in waiting.entries] == ["waiting"]
        assert len(desk.box.requests) == before, "nothing is sent before next_attempt_at"
        clock.advance(post.next_attempt_at - clock() + 1)

    assert gaps[0] < gaps[1] < gaps[2], gaps
    assert 300 <= gaps[0] < 400 and 600 <= gaps[1] < 700 and 1200 <= gaps[2] < 1300
    fourth = desk.tick()
    assert [(r.state, r.exit_code) for r in fourth.results] == [("published", EXIT_OK)]
    assert desk.creates("zhihu") == 1


def test_a_clock_stepped_back_does_not_stretch_a_retry_wait_nor_shorten_it(desk: Desk) -> None:
    """NTP corrected the clock 50 minutes back between two ticks: the post's 20-minute
    wait, a time on the clock, became 70 minutes. It now ends 20 minutes after the tick
    that saw the step, never sooner: nothing is tried before its whole wait has passed."""
    clock = desk.box.clock
    assert isinstance(clock, ManualClock)
    desk.write("42", at(-3 * 3600), channels="[zhihu]")  # due well before the step
    desk.box.faults.add("zhihu", "/api/v4/me", "http:503", count=12)  # three ticks' worth
    for _ in range(2):  # 5 minutes, then 10
        assert desk.tick().exit_code == EXIT_TEMPORARY
        post = desk.posts()["42 zhihu"]
        assert post.next_attempt_at is not None
        clock.advance(post.next_attempt_at - clock() + 1)
    assert desk.tick().exit_code == EXIT_TEMPORARY  # the third failure: a 20-minute wait
    post = desk.posts()["42 zhihu"]
    assert post.next_attempt_at is not None
    assert 1200 <= post.next_attempt_at - clock() < 1300

    clock.step(-50 * 60)  # NTP corrects the clock, 50 minutes back, before the next tick
    sent = len(desk.box.requests)
    waiting = desk.tick()
    assert waiting.exit_code == EXIT_OK and waiting.quiet
    (entry,) = waiting.of_kind("waiting")
    ends = datetime.fromisoformat(entry.message.removeprefix("next try at "))
    wait = post.next_attempt_at - post.updated_at  # the 20 minutes it was set for
    assert 0 <= clock() + wait - ends.timestamp() < 1  # shown to the second
    assert desk.posts()["42 zhihu"].next_attempt_at == clock() + wait  # kept for later ticks
    (note,) = [e for e in desk.events("42", "zhihu") if e.step == "wait"]
    assert note.summary == (
        f"the clock went back since this wait was set: the 20m wait ends at {entry.message[12:]}"
        ", not in 1h 10m"
    )

    clock.advance(20 * 60 - 5)  # never early: the whole wait passes after the step
    assert desk.tick().of_kind("waiting") and len(desk.box.requests) == sent
    clock.advance(10)
    done = desk.tick()
    assert [(r.state, r.exit_code) for r in done.results] == [("published", EXIT_OK)]
    assert desk.creates("zhihu") == 1


def test_a_permanent_failure_is_not_retried_until_the_issue_changes(desk: Desk) -> None:
    desk.write("41", at(-60), channels="[wechat]")
    desk.box.faults.add("wechat", "/cgi-bin/draft/add", "errcode:45002", count=1)

    failed = desk.tick()
    assert [r.exit_code for r in failed.results] == [1], failed.as_dict()
    assert desk.tick().quiet, "a permanent failure is reported once, not retried"
    assert desk.creates("wechat") == 1

    desk.write("41", at(-60), channels="[wechat]", body="缩短后的正文,这次一定能发出去。\n")
    retried = desk.tick()
    assert [r.state for r in retried.results] == ["published"]


def test_a_dry_run_says_what_it_would_do_and_sends_nothing(desk: Desk) -> None:
    desk.write("40", at(-60))
    report = desk.tick(dry_run=True)
    would = report.of_kind("would")
    assert [w.account for w in would] == ["wechat:main", "zhihu:main"]
    assert all("create a draft and publish it" in w.message for w in would)
    # Only reads: the token, what the account may do (openapi/quota/get) and which Zhihu
    # member the login is (the issue may have gone to it under another name).
    assert {r.path for r in desk.box.requests} <= {
        "/cgi-bin/stable_token",
        "/cgi-bin/openapi/quota/get",
        "/api/v4/me",
    }
    assert not (desk.state_dir / "run-due.json").exists()


def test_a_permanent_failure_is_retried_once_a_setting_of_its_account_changes(
    desk: Desk,
) -> None:
    desk.write("39", at(-60), channels="[wechat]")
    desk.box.faults.add("wechat", "/cgi-bin/draft/add", "errcode:45002", count=1)
    assert [r.exit_code for r in desk.tick().results] == [1]
    assert desk.tick().quiet

    config = desk.root / "crosspost.toml"
    config.write_text(config.read_text() + "# a comment changes nothing a tick does\n")
    assert desk.tick().quiet and desk.creates("wechat") == 1, "not retried, not said again"

    account = 'app_secret_env = "WECHAT_APP_SECRET"\n'
    config.write_text(config.read_text().replace(account, account + "need_open_comment = true\n"))
    retried = desk.tick()
    assert [r.state for r in retried.results] == ["published"]
    assert desk.creates("wechat") == 2


def test_the_settings_digest_holds_what_a_tick_depends_on(desk: Desk) -> None:
    """A credential counts by its presence and the account's own fingerprint (a fixed
    AppSecret is a change), never as it is; a comment, ``timeout`` and the log file do not."""
    config = desk.root / "crosspost.toml"
    first = settings_digest(desk.settings(), None)
    text = config.read_text().replace("timeout = 10", "timeout = 20\nlog_file = 'x.log'")
    config.write_text(text + "# a comment\n")
    assert settings_digest(desk.settings(), None) == first
    assert settings_digest(desk.settings(), "draft") != first, "--mode"
    assert settings_digest(desk.settings(), None, timedelta(hours=2)) != first, "a grace"
    assert settings_digest(desk.settings(grace="2h"), None) != first, "--grace"
    desk.env["WECHAT_APP_SECRET"] = "another-app-secret-0123456789"
    fixed = settings_digest(desk.settings(), None)
    assert fixed != first, "a fixed AppSecret is a change"
    del desk.env["ZHIHU_XSRF"]
    assert settings_digest(desk.settings(), None) not in (first, fixed), "a credential gone"


def test_a_publication_still_running_is_confirmed_and_announced_by_a_later_tick(
    desk: Desk,
) -> None:
    desk.write("37", at(-60), channels="[wechat]")
    # More polls than one tick makes, and no finishing on the clock alone.
    desk.box.wechat.options.update(publish_polls=16, publish_seconds=None)

    first = desk.tick()
    assert [(r.state, r.exit_code) for r in first.results] == [("pending", EXIT_TEMPORARY)]
    desk.box.clock.advance(60)
    second = desk.tick()
    [result] = second.results
    assert (result.state, result.sent) == ("published", False)
    assert second.is_news(result) and not second.quiet, "the URL is new to the editor"
    assert desk.tick().quiet
    assert desk.creates("wechat") == 1


def test_a_missed_issue_is_not_announced_again_after_the_config_changes(desk: Desk) -> None:
    desk.write("36", at(-30 * 3600), channels="[zhihu]")
    assert not desk.tick().quiet
    config = desk.root / "crosspost.toml"
    config.write_text(config.read_text() + "# a comment\n")
    again = desk.tick()
    assert [(e.kind, e.repeat) for e in again.entries] == [("missed", True)] and again.quiet


def test_an_account_without_credentials_does_not_hold_back_the_others(desk: Desk) -> None:
    cookie = desk.env.pop("ZHIHU_Z_C0")
    desk.write("35", at(-60))

    first = desk.tick()
    assert [(r.key.channel, r.state) for r in first.results] == [("wechat", "published")]
    [problem] = first.of_kind("problem")
    assert "zhihu:main needs ZHIHU_Z_C0" in problem.message
    assert problem.message.endswith("zhihu:main's scheduled posts wait for it")
    assert first.exit_code == EXIT_BAD_INPUT

    again = desk.tick()
    assert again.exit_code == EXIT_OK and again.quiet, "said once, and not failed again"

    desk.env["ZHIHU_Z_C0"] = cookie
    fixed = desk.tick()
    news = [(r.key.channel, r.state) for r in fixed.results if fixed.is_news(r)]
    assert news == [("zhihu", "published")], "WeChat's post is looked at again, not news"
    assert fixed.exit_code == EXIT_OK and desk.creates("wechat") == 1


def test_a_tick_without_one_account_does_not_make_its_old_posts_news_again(desk: Desk) -> None:
    desk.write("37", at(-60))
    first = desk.tick(mode="draft")
    assert sorted(r.state for r in first.results) == ["drafted", "drafted"]
    assert desk.tick(mode="draft").quiet

    cookie = desk.env.pop("ZHIHU_Z_C0")  # one tick with a credential missing from .env
    missing = desk.tick(mode="draft")
    assert [r.key.channel for r in missing.results] == ["wechat"]
    assert not any(missing.is_news(r) for r in missing.results)

    desk.env["ZHIHU_Z_C0"] = cookie
    back = desk.tick(mode="draft")
    assert not [r for r in back.results if back.is_news(r)], "nothing new was published"
    assert back.exit_code == EXIT_OK and back.quiet
    assert desk.creates("zhihu") == 1 and desk.creates("wechat") == 1
    assert [r.state for r in back.results] == ["drafted", "drafted"], "looked at, not news"


def test_a_dry_run_after_the_clock_stepped_back_writes_nothing_to_the_ledger(desk: Desk) -> None:
    """``run-due --dry-run`` shows the wait the clock stretched cut to its length, and
    leaves the ledger as it was: the real tick after it is the one that keeps the new time."""
    clock = desk.box.clock
    assert isinstance(clock, ManualClock)
    desk.write("42", at(-3 * 3600), channels="[zhihu]")
    desk.box.faults.add("zhihu", "/api/v4/me", "http:503", count=4)
    assert desk.tick().exit_code == EXIT_TEMPORARY  # a 5-minute wait
    before = desk.posts()["42 zhihu"]
    assert before.next_attempt_at is not None

    clock.step(-50 * 60)
    shown = desk.tick(dry_run=True)
    (entry,) = shown.of_kind("waiting")
    ends = datetime.fromisoformat(entry.message.removeprefix("next try at "))
    wait = before.next_attempt_at - before.updated_at
    assert 0 <= clock() + wait - ends.timestamp() < 1
    assert desk.posts()["42 zhihu"] == before, "a dry run wrote to the ledger"
    assert not [e for e in desk.events("42", "zhihu") if e.step == "wait"]
