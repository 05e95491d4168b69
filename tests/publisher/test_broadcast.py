"""Mode broadcast (WeChat 群发) against the sandbox: each follower gets one push, once.

Every test runs on the sandbox's manual clock (``manual_world``): a send that takes a
second, a minute's wait for 45066, thirty minutes of 群发保护 cost nothing. What a
follower received is the sandbox's ``pushes()``: nobody may appear there twice.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crosspost.channels.base import Intent, RemoteDraft
from crosspost.cli import main
from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.ledger.store import PostRecord
from crosspost.publish.jobs import PostResult
from crosspost.publish.settle import build_adapter

from .light import ISSUE, ISSUE_ID, TITLE, write_light_issue
from .world import World, calls_to, mutating

SENDALL = "/cgi-bin/message/mass/sendall"


@pytest.fixture
def light(manual_world: World) -> World:
    manual_world.issue = write_light_issue(manual_world.root)
    return manual_world


def second_issue(light: World) -> Path:
    """The day's second issue, beside the first: its own id and title (the same words
    under another id would be refused as the first issue again)."""
    other = light.root / "light" / "second.md"
    text = ISSUE.replace("id: light-1", "id: light-2").replace(TITLE, "断点测试 第2期")
    other.write_text(text, encoding="utf-8")
    return other


def broadcast(world: World, path: Path | None = None) -> PostResult:
    report, _ = world.publish([path or world.issue], mode="broadcast", targets=("wechat",))
    (result,) = report.results
    return result


def record_of(world: World, issue_id: str = ISSUE_ID) -> PostRecord:
    with world.ledger() as ledger:
        (record,) = [p for p in ledger.posts(issue_id) if p.channel == "wechat"]
    return record


def assert_sent_once(world: World, followers: int = 3) -> None:
    """Every follower the send reaches has exactly one push; no draft is left over."""
    pushes = world.box.wechat.pushes()
    assert len(pushes) == followers, pushes
    assert all(len(got) == 1 for got in pushes.values()), f"a second push: {pushes}"
    assert world.drafts_on("wechat") == [], "a draft left in 草稿箱"
    record = record_of(world)
    assert (record.state, record.delivery, record.mass_status) == ("published", "broadcast", "sent")
    (sent,) = set(pushes["fan-0"])
    assert record.article_id == str(sent) and record.url is None


def test_a_broadcast_reaches_every_follower_once_and_says_the_url_is_not_known(
    light: World,
) -> None:
    result = broadcast(light)
    assert result.exit_code == EXIT_OK, result
    assert result.state == "published"
    assert "sent to followers" in result.message and "urls --set light-1" in result.message
    assert_sent_once(light)
    assert light.published_on("wechat") == [], "a mass send is not 发表"
    again = broadcast(light)
    assert (again.state, again.exit_code) == ("unchanged", EXIT_OK)
    assert "sent to followers" in again.message
    assert calls_to(light.box, SENDALL) == 1
    assert_sent_once(light)


def test_a_tag_reaches_only_its_followers(light: World) -> None:
    text = ISSUE.replace("wechat: {need_open_comment: true}", "wechat: {broadcast: {tag_id: 2}}")
    light.issue.write_text(text, encoding="utf-8")
    assert broadcast(light).exit_code == EXIT_OK
    assert sorted(light.box.wechat.pushes()) == ["fan-0", "fan-1"]


def test_a_second_broadcast_the_same_day_is_refused_before_anything_is_sent(
    light: World,
) -> None:
    assert broadcast(light).exit_code == EXIT_OK
    other = second_issue(light)
    requests = len(light.box.requests)
    result = broadcast(light, other)
    assert result.exit_code == EXIT_TEMPORARY, result
    assert "'light-1'" in result.message and "Beijing midnight" in result.message
    assert len(light.box.requests) == requests, "something was sent"
    assert not result.sent


def test_a_lost_state_dir_within_a_day_is_recognised_by_wechat_and_nobody_gets_two(
    light: World,
) -> None:
    assert broadcast(light).exit_code == EXIT_OK
    first = record_of(light)
    shutil.rmtree(light.state_dir)
    light.clock.advance(3600)  # type: ignore[attr-defined]

    result = broadcast(light)
    assert result.exit_code == EXIT_OK, result
    assert calls_to(light.box, SENDALL) == 2  # the replay, answered 45065
    again = record_of(light)
    assert (again.publish_id, again.article_id) == (first.publish_id, first.article_id)
    assert_sent_once(light)  # the second draft, unused, was deleted


def test_a_protected_send_waits_for_the_administrator_then_is_recorded(light: World) -> None:
    light.box.wechat.update_options({"mass_protect": True})
    result = broadcast(light)
    assert (result.state, result.exit_code) == ("pending", EXIT_TEMPORARY), result
    assert "administrator's confirmation" in result.message
    assert record_of(light).mass_status == "waiting"
    assert light.box.wechat.pushes() == {}

    light.box.wechat.confirm_mass(int(record_of(light).publish_id or 0))
    result = broadcast(light)
    assert result.exit_code == EXIT_OK, result
    assert_sent_once(light)
    assert calls_to(light.box, SENDALL) == 1


def test_an_unconfirmed_send_fails_after_30_minutes_and_the_next_run_sends_anew(
    light: World,
) -> None:
    light.box.wechat.update_options({"mass_protect": True})
    assert broadcast(light).exit_code == EXIT_TEMPORARY
    light.clock.advance(31 * 60)  # type: ignore[attr-defined]
    failed = broadcast(light)
    assert (failed.state, failed.exit_code) == ("failed", EXIT_TEMPORARY), failed
    assert "nobody received it" in failed.message
    assert light.drafts_on("wechat") == [], "the failed send's draft stays behind"

    waiting = broadcast(light)  # a new draft, a new send id (attempt 1)
    assert waiting.exit_code == EXIT_TEMPORARY, waiting
    light.box.wechat.confirm_mass(int(record_of(light).publish_id or 0))
    assert broadcast(light).exit_code == EXIT_OK
    assert calls_to(light.box, SENDALL) == 2
    assert_sent_once(light)


def test_zhihu_publishes_when_asked_to_broadcast(light: World) -> None:
    report, _ = light.publish(mode="broadcast", targets=("zhihu",))
    (result,) = report.results
    assert (result.state, result.exit_code) == ("published", EXIT_OK), result


def test_status_and_urls_say_sent_to_followers_and_urls_set_records_the_link(
    light: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert broadcast(light).exit_code == EXIT_OK
    light.use_env(monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert main(["status"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "sent to followers" in out and "URL not known (msg_data_id" in out
    assert main(["status", "--json"]) == EXIT_OK
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["state"], row["delivery"], row["mass_status"]) == (
        "sent to followers",
        "broadcast",
        "sent",
    )
    assert main(["urls", ISSUE_ID]) == EXIT_OK
    assert "sent to followers" in capsys.readouterr().err

    link = "https://mp.weixin.qq.com/s/mass-sent-article"
    assert main(["urls", "--set", ISSUE_ID, "-c", "wechat:main", link]) == EXIT_OK
    capsys.readouterr()
    assert main(["urls", ISSUE_ID]) == EXIT_OK
    assert capsys.readouterr().out.strip() == link
    assert record_of(light).url == link
    again = broadcast(light)
    assert (again.state, again.url) == ("unchanged", link)
    assert calls_to(light.box, SENDALL) == 1


def test_two_issues_broadcast_in_one_run_send_one_and_refuse_the_other(light: World) -> None:
    other = light.root / "light" / "second.md"
    second = ISSUE.replace("id: light-1", "id: light-2").replace(TITLE, "断点测试 第2期")
    other.write_text(second, encoding="utf-8")  # another issue: the same words would be one
    report, _ = light.publish([light.issue, other], mode="broadcast", targets=("wechat",))
    codes = sorted(r.exit_code for r in report.results)
    assert codes == [EXIT_OK, EXIT_TEMPORARY], report
    (refused,) = [r for r in report.results if r.exit_code == EXIT_TEMPORARY]
    assert "Beijing midnight" in refused.message and not refused.sent
    assert calls_to(light.box, SENDALL) == 1
    assert all(len(got) == 1 for got in light.box.wechat.pushes().values())


def test_wechats_own_quota_refusal_is_for_today_and_nothing_is_sent(light: World) -> None:
    assert broadcast(light).exit_code == EXIT_OK
    shutil.rmtree(light.state_dir)  # the ledger no longer knows today's send
    other = light.root / "light" / "second.md"
    other.write_text(ISSUE.replace("id: light-1", "id: light-2"), encoding="utf-8")
    result = broadcast(light, other)
    assert result.exit_code == EXIT_TEMPORARY, result
    assert "45028" in result.message and "after midnight Beijing time" in result.message
    assert calls_to(light.box, SENDALL) == 2
    assert all(len(got) == 1 for got in light.box.wechat.pushes().values())
    assert record_of(light, "light-2").mass_status is None


@pytest.mark.parametrize("spelt", ["msg_id", "msgid"])
def test_the_same_send_id_within_a_minute_is_waited_out_then_recognised(
    light: World, spelt: str
) -> None:
    """45066: the adapter waits a minute (injected sleep) and sends the same id again,
    which WeChat answers with the first send (45065): one push. WeChat's page on 45065
    spells the id ``msgid``; read as missing, the send was recorded done, never followed."""
    light.box.wechat.update_options({"replay_id_key": spelt})
    report, _ = light.publish(mode="draft", targets=("wechat",))
    assert report.exit_code == EXIT_OK, report
    draft = RemoteDraft(str(record_of(light).draft_id))
    (account,) = [a for a in light.settings().accounts if a.channel == "wechat"]
    adapter = build_adapter(
        account, light.state_dir, timeout=10, clock=light.clock, sleep=light.sleep
    )
    try:
        intent = Intent(started_at=light.clock(), send_id=adapter.send_id(ISSUE_ID, "v1", 0))
        first = adapter.mass_send(draft, intent, {})
        before = light.clock()
        again = adapter.mass_send(draft, intent, {})
    finally:
        adapter.http.close()
    assert not first.replayed and again.replayed
    assert (again.msg_id, again.msg_data_id) == (first.msg_id, first.msg_data_id)
    assert light.clock() - before >= 60
    assert calls_to(light.box, SENDALL) == 3  # the send, 45066, then 45065
    light.clock.advance(5)  # type: ignore[attr-defined]
    assert all(len(got) == 1 for got in light.box.wechat.pushes().values())


def test_a_send_in_doubt_for_a_day_is_never_replayed(light: World) -> None:
    light.box.faults.add("wechat", SENDALL, "reset", count=None, method="POST")
    result = broadcast(light)
    assert result.state == "unconfirmed", result
    light.box.faults.clear()
    light.clock.advance(24 * 3600)  # type: ignore[attr-defined]
    calls = calls_to(light.box, SENDALL)
    later = broadcast(light)
    assert later.state == "unconfirmed" and "群发记录" in later.message, later
    assert calls_to(light.box, SENDALL) == calls


def test_dry_run_shows_the_send_and_the_quota_before_anything_is_sent(
    light: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    light.use_env(monkeypatch)

    def dry(path: Path) -> str:
        args = ["publish", str(path), "-c", "wechat", "--mode", "broadcast", "--dry-run"]
        assert main(args) == EXIT_OK
        return capsys.readouterr().out

    assert "make the draft, then send it to the followers (群发)" in dry(light.issue)
    assert mutating(light.box) == []  # an account of unknown kind may be asked (read-only)
    assert broadcast(light).exit_code == EXIT_OK
    assert "already sent to followers" in dry(light.issue)
    other = second_issue(light)
    # Said once who it is about, at the start of the line (not again in the message).
    assert "wechat:main  light-2  broadcast: nothing: today's mass send (群发)" in dry(other)


def test_an_account_that_may_not_mass_send_keeps_the_draft_and_hands_it_off(
    light: World,
) -> None:
    """The config says verified, WeChat says 48001 on sendall: the draft stays, the editor
    is told where to press 群发, and nothing reached a follower."""
    text = light.config.read_text(encoding="utf-8")
    account = "[channels.wechat.accounts.main]\n"
    light.config.write_text(
        text.replace(account, account + 'kind = "verified_subscription"\n'), "utf-8"
    )
    light.box.wechat.update_options({"account_kind": "unverified"})
    result = broadcast(light)
    assert result.state == "drafted", result
    assert "草稿箱" in result.message and "群发" in result.message
    assert light.box.wechat.pushes() == {}
    record = record_of(light)
    assert record.draft_id in light.drafts_on("wechat") and record.mass_status is None


def test_a_replay_that_finds_the_draft_gone_is_taken_as_sent_never_sent_anew(
    light: World,
) -> None:
    """Real WeChat may check the media_id before the send id: after a lost answer, a
    draft gone from 草稿箱 (40007) means the send happened, so it is recorded as sent."""
    light.box.faults.add("wechat", SENDALL, "reset", count=1, method="POST")
    light.box.faults.add("wechat", SENDALL, "errcode:40007", count=1, method="POST")
    result = broadcast(light)
    assert result.state == "published" and "sent to followers" in result.message, result
    assert calls_to(light.box, SENDALL) == 2
    record = record_of(light)
    assert (record.delivery, record.mass_status, record.publish_id) == ("broadcast", "sent", None)
    again = broadcast(light)
    assert again.state == "unchanged" and calls_to(light.box, SENDALL) == 2


def test_the_send_id_follows_the_issue_file_not_what_the_ledger_adds_to_the_post(
    light: World,
) -> None:
    """A lost state dir can change the rendered post (往期回顾, settings from the config):
    the send id is made of the issue as written, so WeChat still recognises the send."""
    assert broadcast(light).exit_code == EXIT_OK
    shutil.rmtree(light.state_dir)
    text = light.config.read_text(encoding="utf-8")
    account = "[channels.wechat.accounts.main]\n"
    extra = 'source_url = "https://example.org/newsletter"\n'
    light.config.write_text(text.replace(account, account + extra), "utf-8")
    light.clock.advance(3600)  # type: ignore[attr-defined]
    result = broadcast(light)
    assert result.exit_code == EXIT_OK, result
    assert calls_to(light.box, SENDALL) == 2
    assert_sent_once(light)


@pytest.mark.parametrize(
    ("errcode", "said"),
    [
        (
            45067,
            "(clientmsgid longer than 64 bytes) on POST /cgi-bin/message/mass/sendall; "
            "nothing was sent; report this as a crosspost bug",
        ),
        (45047, "; the spec crosspost follows does not say what this code means: look it up"),
    ],
)
def test_a_refused_mass_send_says_what_the_code_means_or_that_it_is_not_known(
    light: World, errcode: int, said: str
) -> None:
    light.box.faults.add("wechat", SENDALL, kind=f"errcode:{errcode}", count=1)
    result = broadcast(light)
    assert (result.state, result.exit_code) == ("failed", EXIT_CHANNEL_FAILED)
    assert f"WeChat errcode {errcode} " in result.message and said in result.message
    assert light.box.wechat.pushes() == {}
