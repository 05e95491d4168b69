"""Zhihu like a real client: the d_c0 device cookie, a topic before publishing, and the
login and topics looked up once per run per account."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.config.settings import Account
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, IssueError
from crosspost.publish.jobs import PublishOptions

from .world import ISSUE_ID, World, mutating, write_config

ME = "/api/v4/me"
TOPICS = "/api/autocomplete/topics"


def zhihu_calls(world: World, path: str) -> int:
    return sum(1 for r in world.box.requests if r.platform == "zhihu" and r.path == path)


def without_topics(world: World, name: str = "no-topics.md", mode: str = "") -> Path:
    """The example issue with its Zhihu block emptied of topics."""
    text = world.issue.read_text(encoding="utf-8")
    block = f"zhihu: {{column: null{', mode: ' + mode if mode else ''}}}"
    text = text.replace("zhihu: {topics: [人工智能, 深度学习], column: null}", block)
    text = text.replace(f"id: {ISSUE_ID}", "id: no-topics", 1)
    path = world.issue.with_name(name)
    path.write_text(text, encoding="utf-8")
    return path


def another_issue(world: World) -> Path:
    text = world.issue.read_text(encoding="utf-8")
    text = text.replace(f"id: {ISSUE_ID}", "id: ai-systems-49", 1)
    text = text.replace("title: AI系统前沿动态 第48期", "title: AI系统前沿动态 第49期", 1)
    text = text.replace("wechat: {title: AI系统前沿动态48,", "wechat: {title: AI系统前沿动态49,", 1)
    path = world.issue.with_name("issue-49.md")
    path.write_text(text, encoding="utf-8")
    return path


def test_the_d_c0_cookie_goes_with_z_c0_when_configured(world: World) -> None:
    world.box.zhihu.update_options({"require_d_c0": True})
    report, _ = world.publish(mode="publish", targets=("zhihu",))
    assert report.exit_code == EXIT_OK, [r.message for r in report.results]
    account = world.settings().account("zhihu:main")
    assert account.credentials["d_c0"].reveal() == world.box.zhihu.credentials()["d_c0"]
    assert account.credentials["d_c0"] in account.secrets  # hidden like z_c0


def test_without_d_c0_a_zhihu_that_wants_it_refuses_the_client(world: World) -> None:
    world.box.zhihu.update_options({"require_d_c0": True})
    del world.env["ZHIHU_D_C0"]
    report, _ = world.publish(mode="publish", targets=("zhihu",))
    (result,) = report.results
    assert result.state == "failed" and result.exit_code != EXIT_OK
    assert world.published_on("zhihu") == []


def test_the_login_and_topics_are_looked_up_once_per_run_per_account(world: World) -> None:
    report, _ = world.publish([world.issue, another_issue(world)], targets=("zhihu",))
    assert {r.state for r in report.results} == {"published"}, report.results
    assert len(world.published_on("zhihu")) == 2
    assert zhihu_calls(world, ME) == 1
    assert zhihu_calls(world, TOPICS) == 2  # 人工智能, 深度学习: once each for both posts

    # The next run is a run of its own: it asks again (nothing is kept between runs).
    again, _ = world.publish([world.issue, another_issue(world)], targets=("zhihu",))
    assert {r.state for r in again.results} == {"unchanged"}
    third = world.issue.with_name("issue-50.md")
    third.write_text(
        another_issue(world)
        .read_text("utf-8")
        .replace("ai-systems-49", "ai-systems-50")
        .replace("第49期", "第50期"),
        encoding="utf-8",
    )
    later, _ = world.publish([third], targets=("zhihu",))
    assert {r.state for r in later.results} == {"published"}
    assert zhihu_calls(world, ME) == 2


def test_publishing_on_zhihu_needs_a_topic_check_says_how_and_nothing_is_sent(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(world.root, world.box, zhihu_topics=False)
    issue = without_topics(world)
    world.use_env(monkeypatch)
    assert main(["check", str(issue), "-c", "zhihu"]) == EXIT_BAD_INPUT
    lines = capsys.readouterr().out.splitlines()
    (error,) = [line for line in lines if "needs 'topics'" in line]
    assert error.startswith(f"{issue}:")
    assert "zhihu: {topics: [人工智能]}" in error and "[channels.zhihu]" in error
    # Each way it offers is pasted as it stands: the config's line must be TOML.
    toml_line = error.split("or '", 1)[1].split("'", 1)[0]
    assert tomllib.loads(toml_line) == {"topics": ["人工智能"]}

    before = len(world.box.requests)
    with pytest.raises(IssueError, match="needs 'topics' to publish on zhihu:main"):
        world.with_publisher(lambda p: p.publish([issue], PublishOptions(mode="publish")))
    assert len(world.box.requests) == before and mutating(world.box) == []


def test_a_draft_needs_no_topic_and_an_account_default_counts(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(world.root, world.box, zhihu_topics=False)
    world.use_env(monkeypatch)
    drafted = without_topics(world, "draft.md", mode="draft")
    assert main(["check", str(drafted), "-c", "zhihu"]) == EXIT_OK
    capsys.readouterr()

    issue = without_topics(world)
    write_config(world.root, world.box)  # the account's default topic counts
    account: Account = world.settings().account("zhihu:main")
    assert account.options["topics"] == ["人工智能"]
    assert main(["check", str(issue), "-c", "zhihu"]) == EXIT_OK
    report, _ = world.publish([issue], mode="publish", targets=("zhihu",))
    assert {r.state for r in report.results} == {"published"}
    (article,) = world.published_on("zhihu")
    assert article.get("topics"), article


def test_a_tables_links_reach_a_zhihu_reader_with_their_addresses_in_either_form(
    world: World,
) -> None:
    """Zhihu's table cells hold plain text: a link sent as ``<a>`` there would show its
    words alone, so a Markdown link and a raw ``<a href>`` both arrive as words and
    address, and the sandbox, which keeps what Zhihu keeps, has nothing to flag."""
    text = world.issue.read_text(encoding="utf-8").rstrip("\n") + (
        "\n\n| 写法 | 论文 |\n|---|---|\n"
        "| Markdown | [第一篇](https://arxiv.org/abs/2401.00001) |\n"
        '| HTML | <a href="https://arxiv.org/abs/2401.00002">第二篇</a> |\n'
    )
    world.issue.write_text(text, encoding="utf-8")
    report, _ = world.publish([world.issue], targets=("zhihu",))
    assert {r.state for r in report.results} == {"published"}, report.results
    (article,) = world.published_on("zhihu")
    cells = re.findall(r"<td>(.*?)</td>", str(article["content"]))
    assert "第一篇 (https://arxiv.org/abs/2401.00001)" in cells
    assert "第二篇 (https://arxiv.org/abs/2401.00002)" in cells
    assert not [flag for flag in article["flags"] if "table cell" in flag], article["flags"]
