"""A post is done when every part of it is done; nothing is made twice; what exists is adopted.

The stories of the fault matrix told one by one, with what the editor sees: a Zhihu
draft whose topics failed is not published bare; a column that failed is filed by the
next run without publishing again; a slow WeChat draft/add is waited for, not repeated;
a post left ``unconfirmed`` with no open step is settled by asking; a lost state dir
does not mean a second post, and ``crosspost reconcile --adopt`` records what exists.
"""

from __future__ import annotations

import json
import shutil

import pytest

from crosspost.errors import EXIT_OK, EXIT_TEMPORARY, UnconfirmedError
from crosspost.ledger.store import PostKey, PostRecord
from crosspost.publish.jobs import PostResult
from crosspost.publish.parts import part_states

from .light import ISSUE_ID, TITLE, assert_complete, assert_no_orphans, write_light_issue
from .world import World, calls_to

LATER = 700.0
TOPICS = "/api/articles/*/topics"
COLUMN_ITEMS = "/api/v4/columns/*/items"


@pytest.fixture
def light(manual_world: World) -> World:
    manual_world.issue = write_light_issue(manual_world.root)
    return manual_world


def publish(world: World, *channels: str) -> dict[str, PostResult]:
    report, _ = world.publish(mode="publish", targets=channels)
    return {r.key.channel: r for r in report.results}


def post_of(world: World, channel: str) -> PostRecord:
    with world.ledger() as ledger:
        record = ledger.get(PostKey(ISSUE_ID, channel, "main"))
    assert record is not None
    return record


def parts_of(world: World, channel: str) -> dict[str, bool]:
    with world.ledger() as ledger:
        return part_states(ledger, PostKey(ISSUE_ID, channel, "main"))


def test_zhihu_topics_that_fail_keep_the_post_unpublished_until_the_next_run(
    light: World,
) -> None:
    light.box.faults.add("zhihu", TOPICS, "http:503")  # for good, retries included

    first = publish(light, "zhihu")["zhihu"]

    assert first.exit_code == EXIT_TEMPORARY, first
    assert light.published_on("zhihu") == []  # never published without its topics
    assert parts_of(light, "zhihu")["topics"] is False
    light.box.faults.clear()

    second = publish(light, "zhihu")["zhihu"]

    assert (second.state, second.exit_code) == ("published", EXIT_OK), second
    assert_complete(light, "zhihu")
    assert_no_orphans(light, "zhihu")
    assert parts_of(light, "zhihu")["topics"] is True
    assert calls_to(light.box, "/api/articles/drafts") == 1  # the same draft, filled in


def test_a_zhihu_column_that_fails_is_filed_by_the_next_run_without_publishing_again(
    light: World,
) -> None:
    light.box.faults.add("zhihu", COLUMN_ITEMS, "http:503")

    first = publish(light, "zhihu")["zhihu"]

    assert (first.state, first.exit_code) == ("published", EXIT_TEMPORARY), first
    assert "column is missing" in first.message and "run again" in first.message
    assert first.url and first.url in first.message
    (article,) = light.published_on("zhihu")
    assert article["column"] is None
    assert parts_of(light, "zhihu")["column"] is False
    light.box.faults.clear()

    second = publish(light, "zhihu")["zhihu"]

    assert (second.state, second.exit_code) == ("unchanged", EXIT_OK), second
    assert_complete(light, "zhihu")
    assert calls_to(light.box, "/api/v4/content/publish") == 1
    third = publish(light, "zhihu")["zhihu"]
    assert third.state == "unchanged"
    assert calls_to(light.box, "/api/v4/columns/1/items") <= 2  # nothing more once filed


def test_a_lost_zhihu_publish_answer_still_files_the_column(light: World) -> None:
    light.box.faults.add("zhihu", "/api/v4/content/publish", "commit_then_drop", count=1)

    result = publish(light, "zhihu")["zhihu"]

    assert (result.state, result.exit_code) == ("published", EXIT_OK), result
    assert_complete(light, "zhihu")


def test_a_slow_wechat_draft_add_is_waited_for_and_never_repeated(light: World) -> None:
    """The platform commits 30 s after the client gave up: the run waits out the settle
    window and asks, instead of creating a second (and third) draft."""
    light.box.faults.add("wechat", "/cgi-bin/draft/add", "slow_answer:30000")

    report, lines = light.publish(mode="publish", targets=("wechat",))

    (result,) = report.results
    assert (result.state, result.exit_code) == ("published", EXIT_OK), result
    assert any("waiting" in line and "to settle" in line for line in lines), lines
    assert calls_to(light.box, "/cgi-bin/draft/add") == 1
    assert_complete(light, "wechat")
    assert_no_orphans(light, "wechat")


def test_an_unconfirmed_post_with_no_open_step_is_settled_by_asking(light: World) -> None:
    """What an older run left behind: its draft/add lost the answer, it asked at once,
    closed the intent and gave up as 'unconfirmed', while the draft did land in 草稿箱.
    reconcile asks again (now past the settle window) and finds it; publish uses it."""
    report, _ = light.publish(mode="draft", targets=("wechat",))
    assert report.exit_code == EXIT_OK
    key = PostKey(ISSUE_ID, "wechat", "main")
    with light.ledger() as ledger:
        made = ledger.get(key)
        assert made is not None and made.draft_id
        ledger.record(key, draft_id=None, url=None, content_hash=None, state="assets_uploaded")
        intent = {
            "started_at": made.updated_at - 5,
            "title": TITLE,
            "author": "测试编辑",
            "digest": "一期很小的测试",
            "known_ids": [],
        }
        ledger.begin("draft", key, intent)
        ledger.finish_step(key, "draft", outcome="not-happened", state="assets_uploaded")
        lost = UnconfirmedError("draft/add: the answer was lost", channel="wechat")
        ledger.fail(key, lost, permanent=False)
        stuck = ledger.get(key)
        assert stuck is not None and (stuck.state, stuck.pending_step) == ("unconfirmed", None)

    light.clock.advance(LATER)  # type: ignore[attr-defined]
    settled, _ = light.with_publisher(lambda p: p.reconcile(ISSUE_ID))

    (post,) = [r for r in settled.results if r.key == key]
    assert (post.state, post.exit_code) == ("draft_created", EXIT_OK), post
    assert post_of(light, "wechat").draft_id == made.draft_id
    result = publish(light, "wechat")["wechat"]
    assert (result.state, result.exit_code) == ("published", EXIT_OK), result
    assert calls_to(light.box, "/cgi-bin/draft/add") == 1
    assert_complete(light, "wechat")
    assert_no_orphans(light, "wechat")


def test_a_lost_state_dir_means_no_second_post_on_either_platform(light: World) -> None:
    first = publish(light)
    assert {r.exit_code for r in first.values()} == {EXIT_OK}
    shutil.rmtree(light.state_dir)

    again = publish(light)

    for channel, result in again.items():
        assert (result.state, result.exit_code) == ("published", EXIT_OK), result
        assert "adopted" in result.message
        assert result.url == first[channel].url or channel == "wechat"
        assert_complete(light, channel)
        assert_no_orphans(light, channel)
    assert calls_to(light.box, "/cgi-bin/draft/add") == 1
    assert calls_to(light.box, "/api/articles/drafts") == 1
    assert {r.state for r in publish(light).values()} == {"unchanged"}


def test_a_published_article_is_adopted_even_when_the_draft_box_cannot_be_read(
    light: World,
) -> None:
    """Both lists are read side by side; the draft box failing must not hide the
    article already found in the published list (that would make a second one)."""
    first = publish(light, "wechat")["wechat"]
    shutil.rmtree(light.state_dir)
    light.box.faults.add("wechat", "/cgi-bin/draft/batchget", "errcode:-1", count=None)

    again = publish(light, "wechat")["wechat"]

    assert (again.state, again.exit_code) == ("published", EXIT_OK), again
    assert "adopted" in again.message and first.url
    assert calls_to(light.box, "/cgi-bin/draft/add") == 1
    assert calls_to(light.box, "/cgi-bin/freepublish/submit") == 1


def test_a_draft_left_in_the_wechat_draft_box_is_adopted_and_published(light: World) -> None:
    report, _ = light.publish(mode="draft", targets=("wechat",))
    assert report.exit_code == EXIT_OK
    shutil.rmtree(light.state_dir)

    result = publish(light, "wechat")["wechat"]

    assert (result.state, result.exit_code) == ("published", EXIT_OK), result
    assert calls_to(light.box, "/cgi-bin/draft/add") == 1
    assert_complete(light, "wechat")
    assert_no_orphans(light, "wechat")


def test_reconcile_adopt_records_what_the_platforms_have(
    light: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crosspost.cli import main

    light.use_env(monkeypatch)
    assert main(["publish", str(light.issue), "--mode", "publish"]) == EXIT_OK
    urls = {c: post_of(light, c).url for c in ("wechat", "zhihu")}
    shutil.rmtree(light.state_dir)
    capsys.readouterr()

    assert main(["reconcile", "--adopt", str(light.issue)]) == EXIT_OK

    out, err = capsys.readouterr()
    assert "adopted" in out + err
    assert {post_of(light, c).state for c in ("wechat", "zhihu")} == {"published"}
    assert post_of(light, "zhihu").url == urls["zhihu"]
    assert main(["publish", str(light.issue), "--mode", "publish"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out.count("unchanged") == 2, out + err
    assert calls_to(light.box, "/cgi-bin/draft/add") == 1
    assert calls_to(light.box, "/api/articles/drafts") == 1
    assert main(["reconcile", "--adopt", ISSUE_ID, "--json"]) == EXIT_OK
    posts = json.loads(capsys.readouterr().out)["posts"]
    assert {p["message"] for p in posts} == {"already in the ledger"}


def test_reconcile_adopt_names_what_it_needs_when_the_issue_is_unknown(
    light: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crosspost.cli import main

    light.use_env(monkeypatch)

    assert main(["reconcile", "--adopt", "no-such-issue"]) == 2

    err = capsys.readouterr().err
    assert "give the path of the issue's Markdown file" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert [r for r in light.box.requests if not r.path.startswith("/__sandbox__")] == []
