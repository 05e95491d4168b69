"""The delivery plan: settings at every level, the draft-only ceiling, draft-then-hand-off.

Each test runs the real publisher against the sandbox and asserts on what the sandbox
holds (its stored draft, the calls it saw), never on the publisher's own word alone.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_CHANNEL_FAILED, EXIT_OK
from crosspost.publish.delivery import MEMORY_NAME, REMEMBER_SECONDS
from crosspost.publish.dry_run import DryRunEntry
from crosspost.publish.jobs import PublishOptions, PublishReport
from crosspost.publish.runner import Publisher
from crosspost.sandbox.box import Sandbox
from crosspost.schedule.notify import run_notice
from crosspost.schedule.report import DueReport

from .test_zhihu_client import without_topics
from .world import REPO_ROOT, World, build_world, calls_to, mutating, write_config

EXAMPLE_CONFIG = REPO_ROOT / "config" / "crosspost.example.toml"
SUBMIT, SENDALL = "/cgi-bin/freepublish/submit", "/cgi-bin/message/mass/sendall"
QUOTA = "/cgi-bin/openapi/quota/get"


def plain_issue(root: Path, front: str = "") -> Path:
    """An issue that sets no author and no comment setting of its own."""
    folder = root / "plain"
    folder.mkdir(exist_ok=True)
    Image.new("RGB", (470, 200), (20, 90, 160)).save(folder / "cover.jpg", "JPEG")
    issue = folder / "issue.md"
    issue.write_text(
        "---\nid: plain-1\ntitle: 送达计划 第1期\ncover: cover.jpg\nchannels: [wechat]\n"
        f"{front}---\n\n"
        "这一期只有一段话,看设置从哪一层来,账号能做什么,做不到的交给编辑。\n",
        encoding="utf-8",
    )
    return issue


def use_config(world: World, text: str) -> None:
    world.config.write_text(text, encoding="utf-8")


def wechat_config(world: World, account: str = "", top: str = 'mode = "publish"') -> str:
    return (
        f"{top}\ntimeout = 10\n[channels.wechat.accounts.main]\n"
        f'base_url = "{world.box.wechat_url}"\n{account}\n'
    )


def dry_run(world: World, issue: Path) -> tuple[list[DryRunEntry], list[str]]:
    """``publish --dry-run`` through the library: its entries and progress lines."""
    entries: list[DryRunEntry] = []

    def dry(publisher: Publisher) -> PublishReport:
        options = PublishOptions()
        entries.extend(publisher.dry_run(publisher.plan([issue], options), options))
        return PublishReport()

    _, lines = world.with_publisher(dry)
    return entries, lines


def draft_of(world: World) -> str:
    with world.ledger() as ledger:
        (record,) = ledger.posts("plain-1")
    assert record.draft_id is not None
    return record.draft_id


def stored_draft(world: World) -> dict[str, object]:
    (draft,) = world.box.wechat.snapshot()["drafts"]
    (article,) = draft["articles"]
    return dict(article)


def test_the_example_configs_comment_and_author_settings_reach_the_draft(world: World) -> None:
    text = EXAMPLE_CONFIG.read_text(encoding="utf-8")
    text = text.replace(
        "[channels.wechat.accounts.main]\n",
        f'[channels.wechat.accounts.main]\nbase_url = "{world.box.wechat_url}"\n',
    )
    use_config(world, text)
    issue = plain_issue(world.root)
    report, _ = world.publish([issue], targets=("wechat:main",))
    assert [r.state for r in report.results] == ["drafted"], report
    article = stored_draft(world)
    # need_open_comment from [channels.wechat], author from [channels.wechat.accounts.main].
    assert article["need_open_comment"] == 1
    assert article["author"] == "OneFlow社区"


def test_the_issue_wins_over_the_account_which_wins_over_its_channel(world: World) -> None:
    use_config(
        world,
        f'mode = "draft"\n[channels.wechat]\nneed_open_comment = true\nauthor = "频道"\n'
        f"only_fans_can_comment = true\n[channels.wechat.accounts.main]\n"
        f'base_url = "{world.box.wechat_url}"\nauthor = "账号"\ndigest = "账号的摘要"\n',
    )
    issue = plain_issue(world.root, "author: 本期作者\nwechat: {need_open_comment: false}\n")
    report, _ = world.publish([issue])
    assert [r.state for r in report.results] == ["drafted"], report
    article = stored_draft(world)
    assert (article["author"], article["digest"]) == ("本期作者", "账号的摘要")
    assert (article["need_open_comment"], article["only_fans_can_comment"]) == (0, 1)


def test_a_draft_only_account_never_publishes_whatever_the_flag_or_issue_says(
    world: World,
) -> None:
    use_config(world, wechat_config(world, 'mode = "draft"'))
    issue = plain_issue(world.root, "wechat: {mode: broadcast}\n")
    report, lines = world.publish([issue], mode="publish")
    assert [(r.state, r.exit_code) for r in report.results] == [("drafted", 0)]
    said = [line for line in lines if 'mode = "draft" in the config' in line]
    assert len(said) == 1 and said[0].startswith("wechat:main: ")
    assert calls_to(world.box, SUBMIT) == calls_to(world.box, SENDALL) == 0


def test_a_personal_account_asked_to_broadcast_drafts_then_hands_off(world: World) -> None:
    use_config(world, wechat_config(world, 'kind = "personal"', top='mode = "broadcast"'))
    issue = plain_issue(world.root)

    # --dry-run shows the plan before anything is sent.
    entries, lines = dry_run(world, issue)
    (entry,) = entries
    assert entry.job.mode == "draft" and entry.job.handoff == "broadcast"
    assert (
        entry.action == "create a draft, then hand off: the editor presses 群发 in 草稿箱 by hand"
    )
    assert any("a personal account (kind in the config) may not broadcast" in x for x in lines)
    assert world.box.requests == []  # the kind came from the config: not even a token

    report, lines = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("drafted", 0)
    assert "press 群发" in result.message and "公众号助手" in result.message
    notice = run_notice(DueReport(datetime.now(UTC), results=(result,)))
    assert notice is not None and notice.kind == "warning" and "press 群发" in notice.body
    assert "草稿箱" in result.message
    assert sum("may not broadcast" in line for line in lines) == 1
    assert calls_to(world.box, SUBMIT) == calls_to(world.box, SENDALL) == 0
    assert mutating(world.box).count("wechat POST /cgi-bin/draft/add") == 1

    # Nothing changed, the draft is still there: the same line, nothing sent.
    report, _ = world.publish([issue])
    assert [r.state for r in report.results] == ["drafted"]
    assert mutating(world.box).count("wechat POST /cgi-bin/draft/add") == 1


def test_a_handed_off_draft_published_by_hand_is_found_and_its_url_recorded(
    world: World,
) -> None:
    use_config(world, wechat_config(world, 'kind = "unverified"'))
    issue = plain_issue(world.root)
    world.publish([issue])
    world.box.wechat.by_hand(draft_of(world), "publish")  # the editor presses 发表

    report, _ = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("published", 0), result
    (article,) = world.published_on("wechat")
    with world.ledger() as ledger:
        (record,) = ledger.posts("plain-1")
    # WeChat lists the article with a temporary link only: found, its URL pending.
    assert record.article_id == article["article_id"] and record.url is None
    assert result.message.startswith("发表 by hand; published, URL pending")
    assert calls_to(world.box, SUBMIT) == 0  # the editor's 发表 is not an API call


def test_a_handed_off_draft_sent_by_hand_without_a_url_asks_for_one(world: World) -> None:
    use_config(world, wechat_config(world, 'kind = "personal"', top='mode = "broadcast"'))
    issue = plain_issue(world.root)
    world.publish([issue])
    world.box.wechat.by_hand(
        draft_of(world), "send"
    )  # the editor presses 群发  # gone from 草稿箱: sent by hand

    report, _ = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.url, result.exit_code) == ("published", None, 0)
    assert "sent or published by hand, URL not known" in result.message
    assert "crosspost urls --set plain-1 -c wechat:main URL" in result.message
    report, _ = world.publish([issue])  # recorded: later runs leave it alone
    assert [r.state for r in report.results] == ["unchanged"]


@pytest.fixture
def personal(tmp_path: Path) -> Iterator[World]:
    """A world whose WeChat account is a personal one, which the config does not say."""
    with Sandbox(options={"wechat": {"account_kind": "personal"}}) as box:
        world = build_world(tmp_path, box, time.time, lambda seconds: None)
        use_config(world, wechat_config(world, top='mode = "broadcast"'))
        yield world


def test_an_account_of_unknown_kind_is_asked_once_and_the_plan_shown_before_sending(
    personal: World,
) -> None:
    world, issue = personal, plain_issue(personal.root)
    entries, lines = dry_run(world, issue)
    assert [e.job.handoff for e in entries] == ["broadcast"]
    assert "then hand off" in entries[0].action
    # broadcast refused, so drafts are asked about too: a draft to hand off must be possible
    assert [r.path for r in world.box.requests] == ["/cgi-bin/stable_token", QUOTA, QUOTA]
    assert mutating(world.box) == []
    assert sum("may not broadcast (openapi/quota/get)" in line for line in lines) == 1

    report, lines = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("drafted", 0), (result, lines)
    assert "press 群发" in result.message
    # Said once, under the post's name once: the probe's line says why, the draft's where.
    assert sum("草稿箱: press" in line for line in lines) == 1, lines
    assert not [line for line in lines if line.count("wechat:main") > 1], lines
    assert result.url and "tempkey=" in result.url  # the editor's preview link, asked for
    assert calls_to(world.box, QUOTA) == 4  # once (two paths) for the dry run, once for the run
    assert calls_to(world.box, SENDALL) == calls_to(world.box, SUBMIT) == 0
    assert world.box.wechat.pushes() == {}
    report, lines = world.publish([issue])  # remembered: planned without asking again
    assert calls_to(world.box, QUOTA) == 4
    # WeChat answered a question, it refused nothing: the plan says what it learnt.
    said = "said in an earlier run that this account may not broadcast (openapi/quota/get)"
    assert any(said in line for line in lines), lines
    assert not any("48001" in line for line in lines), lines


def test_a_lapsed_verification_is_named_and_no_draft_is_claimed(tmp_path: Path) -> None:
    """Refused even drafts (认证 lapsed: spec wechat-broadcast-and-accounts.md §3): the run
    says the verification may have lapsed and where to renew it, and never that a draft
    waits in 草稿箱 for the editor's button, since none could be made."""
    with Sandbox(options={"wechat": {"account_kind": "lapsed"}}) as box:
        world = build_world(tmp_path, box, time.time, lambda seconds: None)
        use_config(world, wechat_config(world))
        report, lines = world.publish([plain_issue(world.root)])
        (result,) = report.results
        assert (result.state, result.exit_code) == ("failed", EXIT_CHANNEL_FAILED)
        assert "the account's verification (认证) may have lapsed; renew it in " in result.message
        assert "公众号后台 → 设置与开发 → 微信认证" in result.message
        told = " ".join([*lines, result.message])
        assert "草稿箱: press" not in told and "leaves the draft" not in told
        assert calls_to(box, "/cgi-bin/draft/add") == 0  # no draft made, nothing handed off
        assert box.wechat.snapshot()["drafts"] == []


def test_a_48001_on_publish_turns_into_the_hand_off_and_is_remembered(world: World) -> None:
    use_config(world, wechat_config(world))
    issue = plain_issue(world.root)
    world.box.faults.add("wechat", SUBMIT, "errcode:48001", count=1)
    report, lines = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("drafted", 0)
    assert "press 发表" in result.message
    assert any("remembered" in line for line in lines)
    assert (world.state_dir / MEMORY_NAME).is_file()

    report, lines = world.publish([issue])
    assert [r.state for r in report.results] == ["drafted"]
    assert any("refused publish on this account (48001) in an earlier run" in x for x in lines)
    assert calls_to(world.box, SUBMIT) == 1  # never tried again
    assert not any(re.search(r"\bTraceback\b", line) for line in lines)


def test_a_48001_contradicting_the_configured_kind_says_so_and_later_runs_hand_off(
    world: World,
) -> None:
    """The config says the account may publish; WeChat refuses it once. The run names the
    config line to fix, and the next run does what the line said: drafts and hands off
    (never asks WeChat for the refusal again), and records the article the editor
    published by hand."""
    use_config(world, wechat_config(world, 'kind = "verified_subscription"'))
    issue = plain_issue(world.root)
    world.box.faults.add("wechat", SUBMIT, "errcode:48001", count=1)
    report, lines = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("drafted", 0)
    assert "press 发表" in result.message
    (said,) = [line for line in lines if "remembered" in line]
    assert "later runs draft and hand off, then believe the config again" in said
    assert 'the config says kind = "verified_subscription", which may publish' in said
    assert 'set kind = "unverified" or "personal" under [channels.wechat.accounts.main]' in said
    notice = run_notice(DueReport(datetime.now(UTC), results=report.results))
    assert notice is not None and "press 发表" in notice.body
    assert 'the config says kind = "verified_subscription"' in notice.body

    report, lines = world.publish([issue])  # the fault is spent: WeChat would publish now
    assert [r.state for r in report.results] == ["drafted"]
    assert calls_to(world.box, SUBMIT) == 1  # the refusal stands over the config's kind
    (planned,) = [line for line in lines if "in an earlier run" in line]
    assert 'the config says kind = "verified_subscription"' in planned and "press 发表" in planned

    world.box.wechat.by_hand(draft_of(world), "publish")
    report, lines = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("published", 0), (result, lines)
    assert result.message.startswith("发表 by hand; published")
    (article,) = world.published_on("wechat")
    with world.ledger() as ledger:
        (record,) = ledger.posts("plain-1")
    assert record.article_id == article["article_id"]
    assert calls_to(world.box, SUBMIT) == 1  # the editor's 发表 is not an API call


@contextlib.contextmanager
def refused_a_day_ago(tmp_path: Path) -> Iterator[tuple[World, Sandbox, Path]]:
    """An account the config calls ``verified_subscription`` whose publish WeChat refused
    once (48001: the draft handed off), and the clock a day on: the memory has lapsed."""
    now = [time.time()]
    with Sandbox() as box:
        world = build_world(tmp_path, box, lambda: now[0], lambda seconds: None)
        use_config(world, wechat_config(world, 'kind = "verified_subscription"'))
        issue = plain_issue(world.root)
        box.faults.add("wechat", SUBMIT, "errcode:48001", count=1)
        assert [r.state for r in world.publish([issue])[0].results] == ["drafted"]
        now[0] += REMEMBER_SECONDS
        yield world, box, issue


def test_a_48001_refusal_is_believed_a_day_then_the_configured_kind_again(
    tmp_path: Path,
) -> None:
    """A day after the refusal the config's word counts again: an account verified since
    publishes through the API without anyone clearing the state dir."""
    with refused_a_day_ago(tmp_path) as (world, box, issue):
        report, lines = world.publish([issue])
        assert [r.state for r in report.results] == ["published"], lines
        assert calls_to(box, SUBMIT) == 2


def test_a_draft_published_by_hand_is_recorded_after_the_refusal_is_forgotten(
    tmp_path: Path,
) -> None:
    """The editor presses 发表 on the handed-off draft after the day's memory of the
    refusal lapsed: the next run, whose plan no longer hands off, still finds the article
    instead of calling the emptied 草稿箱 an error (whose advice, --new-draft, would post
    it twice)."""
    with refused_a_day_ago(tmp_path) as (world, box, issue):
        box.wechat.by_hand(draft_of(world), "publish")
        report, lines = world.publish([issue])
        (result,) = report.results
        assert (result.state, result.exit_code) == ("published", 0), (result, lines)
        assert result.message.startswith("发表 by hand; published")
        assert calls_to(box, SUBMIT) == 1  # nothing submitted again: no second post
        (article,) = world.published_on("wechat")
        with world.ledger() as ledger:
            (record,) = ledger.posts("plain-1")
        assert record.article_id == article["article_id"]


def test_broadcast_on_zhihu_is_publishing_so_it_needs_a_topic_too(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(world.root, world.box, zhihu_topics=False)
    world.use_env(monkeypatch)
    issue = without_topics(world, mode="broadcast")
    assert main(["check", str(issue), "-c", "zhihu"]) == EXIT_BAD_INPUT
    assert "needs 'topics'" in capsys.readouterr().out
    ceiling = world.config.read_text("utf-8").replace(
        'cookie_env = "ZHIHU_Z_C0"', 'cookie_env = "ZHIHU_Z_C0"\nmode = "draft"'
    )
    world.config.write_text(ceiling, "utf-8")  # a draft-only account needs no topic
    assert main(["check", str(issue), "-c", "zhihu"]) == EXIT_OK


def test_what_a_run_learnt_is_kept_a_day_and_a_damaged_file_is_no_memory(tmp_path: Path) -> None:
    from crosspost.config.accounts import Account
    from crosspost.publish.delivery import REMEMBER_SECONDS, KindMemory

    now = [1_800_000_000.0]
    memory = KindMemory(tmp_path, lambda: now[0])
    account = Account("wechat", "main", None, {})
    (tmp_path / MEMORY_NAME).write_text('{"wechat:main": ["not", "a", "table"]}', "utf-8")
    assert not memory.refused(account, "publish")
    memory.remember(account, "publish")
    assert memory.refused(account, "publish") and not memory.refused(account, "broadcast")
    now[0] += REMEMBER_SECONDS
    assert not memory.refused(account, "publish")  # tomorrow's run tries again
    (tmp_path / MEMORY_NAME).write_text("{", "utf-8")
    assert not memory.refused(account, "publish")


def test_a_48001_on_a_mass_send_hands_off_too_and_nobody_gets_a_push(world: World) -> None:
    use_config(world, wechat_config(world, top='mode = "broadcast"'))
    issue = plain_issue(world.root)
    world.box.faults.add("wechat", SENDALL, "errcode:48001", count=1)
    report, _ = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("drafted", 0), result
    assert "press 群发" in result.message and result.todo
    report, lines = world.publish([issue])
    assert [r.state for r in report.results] == ["drafted"]
    assert any("refused broadcast on this account (48001)" in line for line in lines)
    assert calls_to(world.box, SENDALL) == 1 and world.box.wechat.pushes() == {}
