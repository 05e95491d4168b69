"""Only permanent URLs are URLs.

After a lost ``freepublish/submit`` answer, WeChat's published list gives only a temporary
link (``…&tempkey=…``). The post is published (never submitted again), its URL pending:
the link is shown as a preview, never recorded, printed by ``urls`` or put in 往期回顾.
Later runs ask again; the editor can record the permanent link with ``urls --set``.
"""

from __future__ import annotations

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNCONFIRMED
from crosspost.ledger.store import PostKey
from crosspost.publish.series import lasting_url
from crosspost.sandbox.clock import ManualClock

from .world import ISSUE_ID, PUBLISH_PATHS, World, assert_one_post_per_channel, calls_to, mutating

PERMANENT = "https://mp.weixin.qq.com/s/Xq3_permanent-link"
GETARTICLE = "/cgi-bin/freepublish/getarticle"


def published_with_url_pending(world: World) -> None:
    """Publish with the submit's answer lost, then let reconcile find the article."""
    world.box.faults.add("wechat", PUBLISH_PATHS["wechat"], kind="commit_then_drop", count=1)
    report, _ = world.publish(mode="publish")
    assert report.exit_code == EXIT_UNCONFIRMED
    assert isinstance(world.clock, ManualClock)
    world.clock.advance(700.0)
    reconciled, lines = world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
    assert reconciled.exit_code == EXIT_OK
    assert any("URL pending" in line and "tempkey=" in line for line in lines), lines


def test_a_temporary_link_is_a_preview_never_the_url(manual_world: World) -> None:
    world = manual_world
    published_with_url_pending(world)

    record = world.posts()["wechat"]
    assert record.state == "published" and record.url is None and record.article_id
    assert_one_post_per_channel(world)
    assert lasting_url(record) is None

    # The next run asks WeChat again (a read), sends nothing else, and says what to do.
    before = len(mutating(world.box))
    asked = calls_to(world.box, GETARTICLE)
    again, lines = world.publish(mode="publish")
    assert {r.state for r in again.results} == {"unchanged"}
    assert calls_to(world.box, GETARTICLE) == asked + 1
    assert len(mutating(world.box)) == before
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 1
    assert any("published, URL pending" in line and "urls --set" in line for line in lines)
    assert world.posts()["wechat"].url is None


def test_urls_prints_only_permanent_links_and_set_records_one(
    manual_world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = manual_world
    published_with_url_pending(world)
    world.use_env(monkeypatch)
    capsys.readouterr()

    assert main(["urls", ISSUE_ID]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out.splitlines() == [world.posts()["zhihu"].url]
    assert "wechat:main: published, URL pending" in err
    assert f"crosspost urls --set {ISSUE_ID} -c wechat:main URL" in err
    assert main(["status", ISSUE_ID]) == EXIT_OK
    (row,) = [line for line in capsys.readouterr().out.splitlines() if "wechat:main" in line]
    assert "URL pending" in row and "tempkey" not in row

    temporary = "http://mp.weixin.qq.com/s?__biz=MzA&tempkey=abc&idx=1#rd"
    refused = [
        (["urls", "--set", ISSUE_ID, "-c", "wechat", temporary], "not a permanent"),
        (["urls", "--set", ISSUE_ID, PERMANENT], "name the post's channel"),
        (["urls", "--set", ISSUE_ID, "-c", "wechat"], "give the post's permanent URL"),
        (["urls", "--set", ISSUE_ID, "-c", "wechat:other", PERMANENT], "no post of issue"),
        (["urls", ISSUE_ID, PERMANENT], "only given with --set"),
    ]
    for argv, words in refused:
        assert main(argv) == EXIT_BAD_INPUT, argv
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and words in err, (argv, err)
    assert world.posts()["wechat"].url is None

    assert main(["urls", "--set", ISSUE_ID, "-c", "wechat:main", PERMANENT]) == EXIT_OK
    assert "URL recorded" in capsys.readouterr().out
    record = world.posts()["wechat"]
    assert record.url == PERMANENT and lasting_url(record) == PERMANENT
    assert main(["urls", ISSUE_ID, "-c", "wechat"]) == EXIT_OK
    assert capsys.readouterr().out.splitlines() == [PERMANENT]
    with world.ledger() as ledger:
        notes = [e.summary for e in ledger.events(PostKey(ISSUE_ID, "wechat", "main"))]
    assert any(f"URL set by hand: {PERMANENT}" in note for note in notes)

    # Once known, later runs do not ask again.
    asked = calls_to(world.box, GETARTICLE)
    again, _ = world.publish(mode="publish")
    assert {r.state for r in again.results} == {"unchanged"}
    assert calls_to(world.box, GETARTICLE) == asked


def test_urls_set_refuses_a_post_that_is_not_published(
    manual_world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = manual_world
    report, _ = world.publish(mode="draft")
    assert report.exit_code == EXIT_OK
    world.use_env(monkeypatch)
    capsys.readouterr()
    assert main(["urls", "--set", ISSUE_ID, "-c", "zhihu", "https://zhuanlan.zhihu.com/p/9"]) == 2
    assert "is not published (it is drafted)" in capsys.readouterr().err


@pytest.mark.parametrize("shape", ["object", "odd"])
def test_an_unexpected_article_detail_is_a_published_post_never_a_crash(
    manual_world: World, shape: str
) -> None:
    """freepublish/get's ``article_detail.item`` as one object is read like the list; a
    shape WeChat does not document leaves the URL not known yet: the post is recorded
    as published (never submitted again) and a later run asks for the link."""
    world = manual_world
    world.box.wechat.update_options({"article_detail_shape": shape, "publish_polls": 0})
    report, _ = world.publish(mode="publish", targets=("wechat",))
    (result,) = report.results
    assert (result.state, result.exit_code) == ("published", EXIT_OK), result.message
    record = world.posts()["wechat"]
    assert record.state == "published" and record.article_id
    if shape == "object":
        assert record.url and record.url.startswith("https://mp.weixin.qq.com/s/")
    else:
        assert record.url is None and "URL pending" in result.message
        assert "crosspost asks again on the next run" in result.message

    again, _ = world.publish(mode="publish", targets=("wechat",))  # no crash, nothing sent
    assert [(r.state, r.exit_code) for r in again.results] == [("unchanged", EXIT_OK)]
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 1
    assert len(world.published_on("wechat")) == 1


@pytest.mark.parametrize("how", ["reconcile", "publish"])
def test_a_link_found_temporary_on_reconciling_is_advised_with_the_whole_command(
    manual_world: World, how: str
) -> None:
    """WeChat's reconcile said "record it with 'crosspost urls --set'", no issue, no
    account, no URL: the line that says what to run names them all, and no other line
    names the command by halves."""
    world = manual_world
    world.box.faults.add("wechat", PUBLISH_PATHS["wechat"], kind="commit_then_drop", count=1)
    report, _ = world.publish(mode="publish", targets=("wechat",))
    assert report.exit_code == EXIT_UNCONFIRMED
    assert isinstance(world.clock, ManualClock)
    world.clock.advance(700.0)
    if how == "reconcile":
        settled, lines = world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
    else:
        settled, lines = world.publish(mode="publish", targets=("wechat",))
    (result,) = settled.results
    assert (result.state, result.exit_code) == ("published", EXIT_OK)
    said = [*lines, result.message]
    found = [line for line in said if "reconciled 'publish'" in line]
    assert found and all("URL pending" in line and "发表记录" in line for line in found), said
    whole = f"crosspost urls --set {ISSUE_ID} -c wechat:main URL"
    assert whole in result.message, result.message
    halves = [line for line in said if "urls --set" in line and whole not in line]
    assert halves == [], halves
