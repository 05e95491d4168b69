"""往期回顾 end to end: three issues of a series go out, the fourth links each on its channel.

A WeChat reader gets WeChat links (the only ones WeChat lets readers follow), a Zhihu
reader Zhihu links; an issue that never ran on a channel is still listed there, by its
title, without a link.
"""

from __future__ import annotations

from typing import Any

from bs4 import BeautifulSoup

from crosspost.errors import EXIT_OK
from publisher.world import World, post_urls

from .conftest import WriteIssue

WEEK = 7 * 86400.0


def body_of(world: World, channel: str, url: str) -> str:
    """The body of the published post at ``url``, as the platform holds it."""
    for post in world.published_on(channel):
        if url in post_urls(post):
            return str(post["content"] if channel == "zhihu" else post["articles"][0]["content"])
    raise AssertionError(f"no {channel} post at {url}")


def links(body: str) -> set[str]:
    return {str(a["href"]) for a in BeautifulSoup(body, "html.parser").find_all("a", href=True)}


def urls_of(world: World, issue_id: str) -> dict[str, Any]:
    with world.ledger() as ledger:
        return {p.channel: p.url for p in ledger.posts(issue_id) if p.is_published}


def test_the_fourth_issue_lists_the_three_before_it_with_each_channels_own_url(
    world: World, write_issue: WriteIssue
) -> None:
    for number, channels in ((1, ("wechat", "zhihu")), (2, ("wechat",)), (3, ("wechat", "zhihu"))):
        report, _ = world.publish([write_issue(number, channels=channels)], mode="publish")
        assert report.exit_code == EXIT_OK, report.as_dict()
        world.clock.advance(WEEK)  # type: ignore[attr-defined]
    earlier = {n: urls_of(world, f"weekly-{n}") for n in (1, 2, 3)}
    assert set(earlier[2]) == {"wechat"}
    # Hugo's taxonomy form names the same series.
    first = write_issue(1)
    first.write_text(first.read_text().replace("series: weekly", "series: [weekly]"))

    report, _ = world.publish([write_issue(4, front="previous: 3\n")], mode="publish")
    assert report.exit_code == EXIT_OK, report.as_dict()
    now = urls_of(world, "weekly-4")

    wechat = body_of(world, "wechat", now["wechat"])
    assert "往期回顾" in wechat
    expected = {earlier[n]["wechat"] for n in (1, 2, 3)}
    assert expected <= links(wechat)
    assert all(url.startswith("https://mp.weixin.qq.com/") for url in expected)
    assert not {earlier[n]["zhihu"] for n in (1, 3)} & links(wechat)
    assert wechat.index("第3期") < wechat.index("第2期") < wechat.index("第1期")  # newest first

    zhihu = body_of(world, "zhihu", now["zhihu"])
    assert "往期回顾" in zhihu
    assert {earlier[n]["zhihu"] for n in (1, 3)} <= links(zhihu)
    assert not {earlier[n]["wechat"] for n in (1, 2, 3)} & links(zhihu)
    # Issue 2 never ran on Zhihu: its title is there, as text, not as a link.
    soup = BeautifulSoup(zhihu, "html.parser")
    item = next(li for li in soup.find_all("li") if "第2期" in li.get_text())
    assert item.find("a") is None
    assert zhihu.index("第3期") < zhihu.index("第2期") < zhihu.index("第1期")
