"""A lost answer on an irreversible call never makes a second post.

The sandbox applies the call, then closes the connection without answering
(``commit_then_drop``): exactly what a timeout after sending looks like. The run must end
published once, or unconfirmed until ``crosspost reconcile`` finds the post, and never
send the call a second time when the first one took effect.
"""

from __future__ import annotations

import json

import pytest

from crosspost.commands.switches import CLOCK_OFFSET_VARIABLE
from crosspost.errors import EXIT_OK, EXIT_TEMPORARY, EXIT_UNCONFIRMED
from crosspost.publish.jobs import PublishReport
from crosspost.sandbox.clock import ManualClock

from .world import (
    CREATE_PATHS,
    ISSUE_ID,
    PUBLISH_PATHS,
    World,
    assert_one_post_per_channel,
    calls_to,
    private_draft_warnings,
)

LATER = 700.0  # past WeChat reconcile's settle time (600 s)

CASES = [
    pytest.param("wechat", CREATE_PATHS["wechat"], id="wechat-draft/add"),
    pytest.param("wechat", PUBLISH_PATHS["wechat"], id="wechat-freepublish/submit"),
    pytest.param("zhihu", CREATE_PATHS["zhihu"], id="zhihu-drafts"),
    pytest.param("zhihu", PUBLISH_PATHS["zhihu"], id="zhihu-content/publish"),
]


def only(report: PublishReport, channel: str) -> tuple[str, int, str]:
    (result,) = [r for r in report.results if r.key.channel == channel]
    return result.state, result.exit_code, result.message


@pytest.mark.parametrize(("channel", "path"), CASES)
def test_a_lost_answer_ends_published_once_or_unconfirmed_then_reconciled(
    manual_world: World, channel: str, path: str
) -> None:
    world = manual_world
    world.box.faults.add(channel, path, kind="commit_then_drop", count=1)

    report, lines = world.publish(mode="publish")
    state, code, message = only(report, channel)
    assert any("the answer was lost" in line for line in lines)
    if state == "unconfirmed":
        # Only WeChat's submit leaves doubt: it has no list of running publish jobs.
        assert (channel, path) == ("wechat", PUBLISH_PATHS["wechat"])
        assert code == EXIT_UNCONFIRMED == report.exit_code
        assert f"crosspost reconcile {ISSUE_ID}" in message
        assert message.count("crosspost reconcile") == 1
        assert world.published_on(channel) == []
        assert isinstance(world.clock, ManualClock)
        world.clock.advance(LATER)
        reconciled, _ = world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
        assert only(reconciled, channel)[:2] == ("published", EXIT_OK)
    else:
        assert (state, code) == ("published", EXIT_OK), message
    assert_one_post_per_channel(world)
    assert 1 <= calls_to(world.box, path) <= 1 + private_draft_warnings(world, channel)
    assert calls_to(world.box, PUBLISH_PATHS[channel]) == 1

    again, _ = world.publish(mode="publish")
    assert {r.state for r in again.results} == {"unchanged"}
    settled, _ = world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
    assert {r.message for r in settled.results} == {"nothing in doubt"}
    assert settled.exit_code == EXIT_OK
    assert calls_to(world.box, PUBLISH_PATHS[channel]) == 1


def test_reconcile_command_settles_a_lost_submit_ten_minutes_later(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same story through ``crosspost publish`` and ``crosspost reconcile``."""
    from crosspost.cli import main

    world.use_env(monkeypatch)
    world.box.faults.add("wechat", PUBLISH_PATHS["wechat"], kind="commit_then_drop", count=1)
    issue = str(world.issue)
    assert main(["publish", issue, "--mode", "publish", "-c", "wechat"]) == EXIT_UNCONFIRMED
    out, err = capsys.readouterr()
    assert "unconfirmed" in out
    assert f"run 'crosspost reconcile {ISSUE_ID}' later" in err

    assert main(["reconcile", ISSUE_ID]) == EXIT_UNCONFIRMED  # WeChat cannot tell yet
    capsys.readouterr()
    world.box.clock.advance(LATER)
    monkeypatch.setenv(CLOCK_OFFSET_VARIABLE, str(LATER))
    assert main(["reconcile", ISSUE_ID]) == EXIT_OK
    out, _ = capsys.readouterr()
    assert main(["reconcile", ISSUE_ID, "--json"]) == EXIT_OK
    (post,) = [p for p in json.loads(capsys.readouterr().out)["posts"] if p["channel"] == "wechat"]
    assert post["state"] == "published" and post["message"] == "nothing in doubt"
    (record,) = [p for c, p in world.posts().items() if c == "wechat"]
    # WeChat listed the article with a temporary link only: published, URL pending.
    assert record.state == "published" and record.url is None
    assert "URL pending" in out and "crosspost urls --set" in out and "tempkey" not in out
    assert len(world.published_on("wechat")) == 1
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 1


@pytest.mark.parametrize(("channel", "path"), CASES)
def test_a_5xx_on_an_irreversible_call_is_repeated_only_after_the_platform_says_no(
    manual_world: World, channel: str, path: str
) -> None:
    """A 503 may come from a proxy after the platform acted, so it is doubt, not a no."""
    world = manual_world
    world.box.faults.add(channel, path, kind="http:503", count=1)

    report, _ = world.publish(mode="publish")
    state, code, message = only(report, channel)
    if state == "unconfirmed":
        # WeChat: a submit still shows its draft in 草稿箱 for a while either way.
        assert (channel, path) == ("wechat", PUBLISH_PATHS["wechat"]), message
        assert isinstance(world.clock, ManualClock)
        world.clock.advance(LATER)
        settled, _ = world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
        assert only(settled, channel)[0] == "draft_created"  # the platform said: not done
        report, _ = world.publish(mode="publish")
        state, code, message = only(report, channel)
    assert (state, code) == ("published", EXIT_OK), message
    assert calls_to(world.box, path) == 2  # once refused, once done
    assert_one_post_per_channel(world)


@pytest.mark.parametrize("shape", ["top_level", "bare"])
def test_a_zhihu_publish_answered_in_a_shape_never_seen_is_published_once(
    manual_world: World, shape: str
) -> None:
    """Zhihu changed its publish answer without notice before. An answer with the article's
    id but no ``code`` is success; one with neither is doubt, settled by reading the draft:
    "not published" would have let ``--new-draft`` publish the issue a second time."""
    world = manual_world
    world.box.zhihu.update_options({"publish_result": shape})

    report, lines = world.publish(mode="publish")

    state, code, message = only(report, "zhihu")
    assert (state, code) == ("published", EXIT_OK), message
    assert "not published" not in "\n".join(lines)
    assert_one_post_per_channel(world)
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 1
    (record,) = [p for c, p in world.posts().items() if c == "zhihu"]
    assert record.url and record.url.startswith("https://zhuanlan.zhihu.com/p/")


def test_a_draft_creation_lost_twice_says_what_the_platform_could_and_could_not_show(
    manual_world: World,
) -> None:
    """A 503 after sending, twice, each reconciled as "not made". WeChat lists its drafts,
    so it shows nothing was made; Zhihu lists none, so its line must not say so: it used
    to say both "a private draft may exist" and "confirms nothing was made"."""
    world = manual_world
    for channel in ("wechat", "zhihu"):
        world.box.faults.add(channel, CREATE_PATHS[channel], kind="http:503", count=2)

    report, _ = world.publish(mode="publish")

    assert only(report, "wechat") == (
        "failed",
        EXIT_TEMPORARY,
        "HTTP 503 on POST /cgi-bin/draft/add after it was sent, twice; WeChat Official "
        "Account shows nothing was made either time: nothing to undo, run again later "
        "(temporary: safe to run again)",
    )
    assert only(report, "zhihu") == (
        "failed",
        EXIT_TEMPORARY,
        "Zhihu draft creation for zhihu:main: HTTP 503 after sending, twice; Zhihu column "
        "(知乎专栏) cannot say whether either attempt made something: Zhihu cannot list "
        "drafts and none was noted here; at worst an unused private draft titled "
        "'AI系统前沿动态 第48期' remains (delete it in the web editor); creating a new "
        "draft is safe because drafts are never public; run again later (temporary: safe "
        "to run again)",
    )
    for record in world.posts().values():  # what status shows as the last error
        assert record.error_message is not None and "may exist" not in record.error_message
    assert "confirms" not in str(world.posts()["zhihu"].error_message)
    for channel in ("wechat", "zhihu"):
        assert calls_to(world.box, CREATE_PATHS[channel]) == 2
