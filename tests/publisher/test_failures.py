"""How a run ends when a platform says no: for good, for now, or "someone else is on it".

A permanent refusal is recorded and not tried again until the issue or the config
changes (or ``--retry-failed``): cron must not hammer a platform with the same rejected
post every few minutes. A temporary one is safe to run again, and the next run finishes.
"""

from __future__ import annotations

from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.ledger.store import PostKey
from crosspost.publish.jobs import PublishOptions, PublishReport
from crosspost.publish.settle import post_lock

from .world import (
    CREATE_PATHS,
    ISSUE_ID,
    PUBLISH_PATHS,
    World,
    assert_one_post_per_channel,
    calls_to,
    mutating,
)

WECHAT_CREATE = CREATE_PATHS["wechat"]


def wechat(report: PublishReport) -> tuple[str, int, str]:
    (result,) = [r for r in report.results if r.key.channel == "wechat"]
    return result.state, result.exit_code, result.message


def test_a_permanent_refusal_stands_until_the_issue_changes(manual_world: World) -> None:
    world = manual_world
    world.box.faults.add("wechat", WECHAT_CREATE, kind="errcode:45002", count=1)
    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert "content too long" in message
    assert world.posts()["wechat"].pending_step is None  # a definite no closes the intent

    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert "not retried: change the issue or the config, or pass --retry-failed" in message
    assert calls_to(world.box, WECHAT_CREATE) == 1  # the same post was not sent again

    text = world.issue.read_text(encoding="utf-8")
    world.issue.write_text(text.replace("## 12.", "## 12 ", 1), encoding="utf-8")
    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("published", EXIT_OK), message
    assert_one_post_per_channel(world, ["wechat"])


def test_retry_failed_tries_an_unchanged_post_again(manual_world: World) -> None:
    world = manual_world
    world.box.faults.add("wechat", WECHAT_CREATE, kind="errcode:45166", count=1)
    assert wechat(world.publish(mode="publish", targets=("wechat",))[0])[1] == EXIT_CHANNEL_FAILED
    report, _ = world.publish(mode="publish", targets=("wechat",), retry_failed=True)
    assert wechat(report)[:2] == ("published", EXIT_OK)
    assert calls_to(world.box, WECHAT_CREATE) == 2
    assert_one_post_per_channel(world, ["wechat"])


def test_a_temporary_refusal_is_safe_to_run_again(manual_world: World) -> None:
    world = manual_world
    world.box.faults.add("wechat", WECHAT_CREATE, kind="errcode:45009", count=1)
    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("failed", EXIT_TEMPORARY)
    assert "temporary: safe to run again" in message
    record = world.posts()["wechat"]
    assert record.next_attempt_at is not None and record.next_attempt_at > world.clock()

    report, _ = world.publish(mode="publish", targets=("wechat",))
    assert wechat(report)[:2] == ("published", EXIT_OK)
    assert_one_post_per_channel(world, ["wechat"])


def test_an_unchanged_draft_is_not_sent_again(manual_world: World) -> None:
    world = manual_world
    first, _ = world.publish(mode="draft")
    assert {r.state for r in first.results} == {"drafted"}
    before = mutating(world.box)
    again, _ = world.publish(mode="draft")
    assert {(r.state, r.message) for r in again.results} == {
        ("drafted", "unchanged since the draft was made")
    }
    assert mutating(world.box) == before
    assert [r.url for r in again.results] == [r.url for r in first.results]


def test_a_post_locked_by_another_run_is_left_to_it(manual_world: World) -> None:
    world = manual_world
    options = PublishOptions(mode="publish")
    key = PostKey(ISSUE_ID, "wechat", "main")
    with post_lock(world.state_dir, key, timeout=1):  # another run is at work on it
        report, _ = world.with_publisher(
            lambda p: p.run(p.plan([world.issue], options), options), lock_timeout=0.1
        )
    state, code, message = wechat(report)
    assert (state, code) == ("pending", EXIT_TEMPORARY)
    assert "another crosspost run is publishing this post" in message
    assert calls_to(world.box, WECHAT_CREATE) == 0
    assert world.posts()["zhihu"].state == "published"  # the other channel went on


def test_a_zhihu_draft_deleted_by_hand_is_replaced_by_a_new_one(manual_world: World) -> None:
    world = manual_world
    world.publish(mode="draft", targets=("zhihu",))
    gone = world.posts()["zhihu"].draft_id
    world.box.zhihu.articles.drafts.pop(gone)  # the editor deleted it in the web editor

    report, lines = world.publish(mode="publish", targets=("zhihu",))
    assert [(r.state, r.exit_code) for r in report.results] == [("published", EXIT_OK)]
    assert any(f"draft {gone} is gone" in line for line in lines)
    record = world.posts()["zhihu"]
    assert record.draft_id != gone
    assert_one_post_per_channel(world, ["zhihu"])


def test_a_wechat_draft_gone_from_the_draft_box_is_not_replaced(manual_world: World) -> None:
    """It may have been published by hand: a new draft could make a second post."""
    world = manual_world
    world.publish(mode="draft", targets=("wechat",))
    world.box.wechat.account.drafts.pop(world.posts()["wechat"].draft_id)

    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert "40007" in message
    assert calls_to(world.box, WECHAT_CREATE) == 1
    assert world.published_on("wechat") == []


def test_a_fresh_token_refused_too_is_temporary_and_the_next_run_goes_on(
    manual_world: World,
) -> None:
    """40001/42001 right after a new token: another program fetching tokens for the
    AppID voids ours (spec §2.1). Not the AppSecret: exit 75, and the next run (no flag)
    submits the same draft; the refused submits did nothing, so one post."""
    world = manual_world
    submit = PUBLISH_PATHS["wechat"]
    world.box.faults.add("wechat", submit, kind="token_expired", count=2)
    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("failed", EXIT_TEMPORARY)
    assert "another program may be fetching access tokens for this AppID" in message
    assert "stable_token" in message and "app_secret" not in message
    assert calls_to(world.box, submit) == 2  # refreshed once, sent once more, no more
    assert world.posts()["wechat"].error_permanent is False

    state, code, message = wechat(world.publish(mode="publish", targets=("wechat",))[0])
    assert (state, code) == ("published", EXIT_OK), message
    assert calls_to(world.box, WECHAT_CREATE) == 1
    assert_one_post_per_channel(world, ["wechat"])
