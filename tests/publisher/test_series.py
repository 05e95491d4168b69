"""往期回顾: an issue of a series links the earlier issues where each channel has them.

The ledger knows where issue 47 went; issue 48's renderers get, per channel, 47's URL
on that very channel (a WeChat reader gets the WeChat article, a Zhihu reader the Zhihu
one), so the links never send a reader to another platform.
"""

from __future__ import annotations

import shutil

from crosspost.errors import EXIT_OK

from .world import ISSUE_ID, World, post_urls


def make_earlier_issue(world: World) -> None:
    """Issue 47 of the same series, beside 48, and 48 told to link one earlier issue."""
    folder = world.issue.parent
    earlier = folder / "earlier.md"
    shutil.copy(world.issue, earlier)
    text = earlier.read_text(encoding="utf-8")
    text = text.replace(f"id: {ISSUE_ID}", "id: ai-systems-47\nseries: ai-systems", 1)
    text = text.replace("title: AI系统前沿动态 第48期", "title: AI系统前沿动态 第47期", 1)
    text = text.replace("title: AI系统前沿动态48", "title: AI系统前沿动态47", 1)
    earlier.write_text(text, encoding="utf-8")
    later = world.issue.read_text(encoding="utf-8")
    later = later.replace(f"id: {ISSUE_ID}", f"id: {ISSUE_ID}\nseries: ai-systems\nprevious: 1")
    world.issue.write_text(later, encoding="utf-8")


def test_each_channel_links_the_earlier_issue_on_itself(manual_world: World) -> None:
    world = manual_world
    make_earlier_issue(world)
    earlier, _ = world.publish([world.issue.parent / "earlier.md"], mode="publish")
    assert earlier.exit_code == EXIT_OK
    with world.ledger() as ledger:
        urls = {p.channel: p.url for p in ledger.posts("ai-systems-47")}
    assert set(urls) == {"wechat", "zhihu"}

    later, _ = world.publish(mode="publish")
    assert later.exit_code == EXIT_OK
    by_url = {
        channel: {u: post for post in world.published_on(channel) for u in post_urls(post)}
        for channel in ("wechat", "zhihu")
    }
    for channel, other in (("wechat", "zhihu"), ("zhihu", "wechat")):
        new_url = world.posts()[channel].url
        post = by_url[channel][str(new_url)]
        body = post["content"] if channel == "zhihu" else post["articles"][0]["content"]
        assert "往期回顾" in body
        assert "AI系统前沿动态" in body and "47" in body
        assert str(urls[channel]) in body, f"{channel} does not link 47 on {channel}"
        assert str(urls[other]) not in body


def test_an_earlier_issue_does_not_change_when_a_later_one_is_published(
    manual_world: World,
) -> None:
    """Cron publishes every issue file again and again: 47 must stay unchanged after 48."""
    world = manual_world
    make_earlier_issue(world)
    earlier = world.issue.parent / "earlier.md"
    text = earlier.read_text(encoding="utf-8")
    earlier.write_text(text.replace("series: ai-systems", "series: ai-systems\nprevious: 1"))
    assert world.publish([earlier], mode="publish")[0].exit_code == EXIT_OK
    world.clock.advance(7 * 86400)  # a week later
    assert world.publish(mode="publish")[0].exit_code == EXIT_OK

    again, _ = world.publish([earlier, world.issue], mode="publish")
    assert {r.state for r in again.results} == {"unchanged"}
