"""Channel references: ``wechat: {source_url: "{zhihu.url}"}`` opens the Zhihu post from WeChat.

The publisher orders the posts so a reference is satisfied (Zhihu first, then WeChat
with the real URL in its draft and its content hash); what cannot be satisfied is bad
input, refused before anything is sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, IssueError
from crosspost.publish.jobs import PublishOptions
from publisher.world import World, mutating

from .conftest import WriteIssue

REFERENCE = 'wechat: {source_url: "{zhihu.url}"}\n'


def wechat_articles(world: World) -> list[dict[str, Any]]:
    """Every WeChat article the platform holds, in 草稿箱 or published."""
    snapshot = world.box.wechat.snapshot()
    return [
        *(a for d in snapshot["drafts"] for a in d["news_item"]),
        *(a for p in snapshot["published"] for a in p["articles"]),
    ]


def wechat_source_urls(world: World) -> list[str]:
    """content_source_url (阅读原文) of every WeChat article, as the platform holds them."""
    return [str(a.get("content_source_url")) for a in wechat_articles(world)]


def first_call(world: World, path: str) -> int:
    return next(i for i, r in enumerate(world.box.requests) if r.path == path)


def test_zhihu_is_published_first_and_its_url_is_wechats_source_url(
    world: World, write_issue: WriteIssue
) -> None:
    issue = write_issue(5, front=REFERENCE)
    report, _ = world.publish([issue], mode="publish")
    assert report.exit_code == EXIT_OK, report.as_dict()
    with world.ledger() as ledger:
        urls = {p.channel: p.url for p in ledger.posts("weekly-5")}
    assert str(urls["zhihu"]).startswith("https://zhuanlan.zhihu.com/p/")
    assert wechat_source_urls(world) == [urls["zhihu"]]
    assert first_call(world, "/api/v4/content/publish") < first_call(world, "/cgi-bin/draft/add")

    # The next run finds the URL in the ledger: same content, so nothing is sent again.
    again, _ = world.publish([issue], mode="publish")
    assert {r.state for r in again.results} == {"unchanged"}


def test_a_zhihu_post_that_does_not_come_out_leaves_wechat_unattempted_with_the_reason(
    world: World, write_issue: WriteIssue
) -> None:
    world.box.faults.add("zhihu", "/api/v4/content/publish", kind="publish_code", count=5)
    report, _ = world.publish([write_issue(5, front=REFERENCE)], mode="publish")
    by_channel = {r.key.channel: r for r in report.results}
    zhihu = by_channel["zhihu"]
    assert zhihu.state != "published" and zhihu.exit_code != EXIT_OK
    wechat = by_channel["wechat"]
    assert wechat.state == "skipped"
    assert "not attempted" in wechat.message and "zhihu:main" in wechat.message
    assert wechat.exit_code == zhihu.exit_code
    assert report.exit_code == zhihu.exit_code
    assert not any(line.startswith("wechat") for line in mutating(world.box))


@pytest.mark.parametrize(
    ("front", "channels", "expected"),
    [
        (
            'wechat: {source_url: "{zhihu.url}"}\nzhihu: {source_url: "{wechat.url}"}\n',
            ("wechat", "zhihu"),
            "cycle (wechat → zhihu → wechat)",
        ),
        ('source_url: "{zhihu.url}"\n', ("wechat", "zhihu"), "zhihu cannot show its own URL"),
        (REFERENCE, ("wechat",), "which this run does not publish"),
        (
            'wechat: {source_url: "{zhihu.url}"}\nzhihu: {mode: draft}\n',
            ("wechat", "zhihu"),
            "set 'mode: publish' in the zhihu block",
        ),
        ('wechat: {source_url: "{weibo.url}"}\n', ("wechat", "zhihu"), "unknown channel"),
        ('wechat: {source_url: "{zhihu:other.url}"}\n', ("wechat", "zhihu"), "zhihu:other"),
    ],
    ids=["cycle", "self", "missing", "draft", "unknown", "other-account"],
)
def test_a_reference_that_cannot_be_satisfied_is_bad_input_and_nothing_is_sent(
    world: World, write_issue: WriteIssue, front: str, channels: tuple[str, ...], expected: str
) -> None:
    issue = write_issue(6, channels=channels, front=front)
    with pytest.raises(IssueError) as caught:
        world.publish([issue], mode="publish" if "draft" not in front else None)
    message = str(caught.value)
    assert expected in message
    assert f"{issue}:" in message  # file:line of the field
    line = issue.read_text(encoding="utf-8").split("\n").index(front.split("\n")[0]) + 1
    assert f":{line}:" in message
    assert caught.value.exit_code == EXIT_BAD_INPUT
    assert mutating(world.box) == []


def test_dry_run_shows_the_reference_waiting_then_filled_from_the_ledger(
    world: World, write_issue: WriteIssue
) -> None:
    issue = write_issue(7, front=REFERENCE)

    def wechat_action() -> str:
        def work(publisher):  # type: ignore[no-untyped-def]
            options = PublishOptions(mode="publish")
            entries = publisher.dry_run(publisher.plan([issue], options), options)
            return next(e.action for e in entries if e.job.key.channel == "wechat")

        return str(world.with_publisher(work)[0])

    assert "{zhihu.url} not resolved yet: zhihu:main is published first" in wechat_action()
    assert mutating(world.box) == []
    assert world.publish([issue], mode="publish")[0].exit_code == EXIT_OK
    with world.ledger() as ledger:
        url = next(p.url for p in ledger.posts("weekly-7") if p.channel == "zhihu")
    assert f"{{zhihu.url}} = {url} (ledger)" in wechat_action()


def test_a_reference_inside_text_is_filled_in_too(world: World, write_issue: WriteIssue) -> None:
    """Any text field may hold a reference, e.g. a WeChat digest pointing at Zhihu."""
    front = 'wechat: {digest: "也可在知乎阅读: {zhihu:main.url}"}\n'
    report, _ = world.publish([write_issue(8, front=front)], mode="publish")
    assert report.exit_code == EXIT_OK, report.as_dict()
    with world.ledger() as ledger:
        url = next(p.url for p in ledger.posts("weekly-8") if p.channel == "zhihu")
    assert [a["digest"] for a in wechat_articles(world)] == [f"也可在知乎阅读: {url}"]


def test_a_url_the_ledger_has_serves_a_later_run_of_the_other_channel(
    world: World, write_issue: WriteIssue
) -> None:
    issue = write_issue(9, front=REFERENCE)
    first, _ = world.publish([issue], mode="publish", targets=("zhihu",))
    assert first.exit_code == EXIT_OK
    assert world.box.wechat.snapshot()["drafts"] == []
    with world.ledger() as ledger:
        (zhihu,) = ledger.posts("weekly-9")

    later, _ = world.publish([issue], mode="publish", targets=("wechat",))
    assert [r.state for r in later.results] == ["published"], later.as_dict()
    assert wechat_source_urls(world) == [zhihu.url]
