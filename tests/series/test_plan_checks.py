"""What ``plan`` lints: the channels an issue goes to, and every body it will really send."""

from __future__ import annotations

from pathlib import Path

from crosspost.check.lint import check_file
from crosspost.errors import UsageError
from crosspost.publish.jobs import PublishOptions, PublishReport
from crosspost.publish.runner import Publisher
from publisher.world import World, mutating
from series.conftest import BODY, WriteIssue


def test_an_issue_for_zhihu_alone_needs_no_wechat_cover(world: World) -> None:
    issue = world.root / "zhihu-only.md"
    issue.write_text(
        f"---\nid: zhihu-only\ntitle: 只发知乎\nchannels: [zhihu]\n---\n\n{BODY}", encoding="utf-8"
    )
    report, _ = world.publish([issue], mode="publish")
    assert report.exit_code == 0, report.as_dict()
    assert [(r.key.channel, r.state) for r in report.results] == [("zhihu", "published")]
    assert not [line for line in mutating(world.box) if line.startswith("wechat")]


def test_a_series_body_is_linted_again_once_its_previous_issues_are_added(
    world: World, write_issue: WriteIssue
) -> None:
    # The 20,000 characters are unconfirmed (a warning); a limit set in the config is not.
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[channels.wechat.limits]\ncontent_chars = 20000\n")
    first = write_issue(1, channels=("wechat",))
    assert world.publish([first], mode="publish")[0].exit_code == 0
    sent_before = len(mutating(world.box))
    # Grow a body until it fits WeChat's 20,000 characters by itself, but not with the
    # 往期回顾 block that only the publisher adds.
    second = write_issue(2, channels=("wechat",), front="previous: 1\n")
    text = second.read_text(encoding="utf-8")
    filler = "段落文字。" * 40 + "\n\n"
    refused = None
    for paragraphs in range(1, 400):
        second.write_text(text + filler * paragraphs, encoding="utf-8")
        if check_file(second, ("wechat",)).errors:
            break  # the body alone is too long now: the block never made the difference
        try:
            world.with_publisher(lambda p: plan_only(p, second))
        except UsageError as error:
            refused = str(error)
            break
    assert refused is not None, "the 往期回顾 block never pushed the body over the limit"
    assert "wechat" in refused and "20" in refused
    assert len(mutating(world.box)) == sent_before  # refused before anything was sent


def plan_only(publisher: Publisher, issue: Path) -> PublishReport:
    publisher.plan([issue], PublishOptions(mode="publish"))
    return PublishReport()
