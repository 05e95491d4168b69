"""A WeChat publication that ends with WeChat's final no (publish_status 2–6).

The submission is over: the ledger says the post failed, with WeChat's reason, and no
later run polls it again (each poll is one of the day's 100). What happens next is the
editor's: 2/3/4 keep the draft in 草稿箱, and ``--retry-failed`` (or an edited issue)
submits it again, which is no blind retry since the first outcome is known; 5/6 were
published, then taken down, and only ``--new-draft`` publishes the issue anew.
"""

from __future__ import annotations

import pytest

from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.publish.jobs import PublishReport

from .world import (
    CREATE_PATHS,
    ISSUE_ID,
    PUBLISH_PATHS,
    World,
    assert_one_post_per_channel,
    calls_to,
    events_text,
)

SUBMIT, CREATE = PUBLISH_PATHS["wechat"], CREATE_PATHS["wechat"]
POLL = "/cgi-bin/freepublish/get"


def wechat(report: PublishReport) -> tuple[str, int, str]:
    (result,) = [r for r in report.results if r.key.channel == "wechat"]
    return result.state, result.exit_code, result.message


def publish(world: World, **options: object) -> tuple[str, int, str]:
    report, _ = world.publish(mode="publish", targets=("wechat",), **options)
    return wechat(report)


def refusing(world: World, outcome: int) -> None:
    """WeChat ends the next publication with ``outcome`` at its first poll."""
    world.box.wechat.update_options({"publish_outcome": outcome, "publish_polls": 0})


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (2, "the originality (原创) declaration failed"),
        (3, "publishing failed (WeChat gives no reason)"),
        (4, "WeChat's review rejected it"),
    ],
)
def test_a_refused_publication_is_failed_for_good_and_never_polled_again(
    manual_world: World, outcome: int, reason: str
) -> None:
    world = manual_world
    refusing(world, outcome)

    state, code, message = publish(world)
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert f"{reason} (publish_status {outcome}); nothing was published" in message
    assert "the draft stays in 草稿箱: fix it there or edit the issue, then run with " in message
    assert "--retry-failed to submit it again" in message
    assert "record the URL" not in message and "publish it again" not in message
    record = world.posts()["wechat"]
    assert (record.state, record.error_permanent) == ("failed", True)
    assert record.error_code == f"publish_status {outcome}"
    assert world.box.wechat.snapshot()["drafts"]  # as the message says: still in 草稿箱
    assert (calls_to(world.box, SUBMIT), calls_to(world.box, POLL)) == (1, 1)

    state, code, again = publish(world)  # cron's next run: nothing sent, nothing polled
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert again == f"{message} (refused in an earlier run; nothing was sent now)"
    assert (calls_to(world.box, SUBMIT), calls_to(world.box, POLL)) == (1, 1)


def test_retry_failed_submits_the_kept_draft_again(manual_world: World) -> None:
    world = manual_world
    refusing(world, 4)
    publish(world)
    refused = world.posts()["wechat"]

    refusing(world, 0)  # the editor fixed the draft in 草稿箱
    state, code, message = publish(world, retry_failed=True)
    assert (state, code) == ("published", EXIT_OK), message
    record = world.posts()["wechat"]
    assert record.draft_id == refused.draft_id  # the kept draft, not a new one
    assert record.publish_id != refused.publish_id
    assert (calls_to(world.box, CREATE), calls_to(world.box, SUBMIT)) == (1, 2)
    assert_one_post_per_channel(world, ["wechat"])


def test_an_edited_issue_is_submitted_again_without_the_flag(manual_world: World) -> None:
    world = manual_world
    refusing(world, 3)
    publish(world)

    refusing(world, 0)
    text = world.issue.read_text(encoding="utf-8")
    world.issue.write_text(text.replace("## 12.", "## 12 ", 1), encoding="utf-8")
    state, code, message = publish(world)
    assert (state, code) == ("published", EXIT_OK), message
    assert (calls_to(world.box, CREATE), calls_to(world.box, SUBMIT)) == (1, 2)
    assert_one_post_per_channel(world, ["wechat"])


@pytest.mark.parametrize(
    ("outcome", "what", "where"),
    [
        (5, "it was published, then the account deleted every article", "see 发表记录 in"),
        (6, "it was published, then WeChat banned every article", "WeChat's notice"),
    ],
)
def test_an_article_taken_down_after_publishing_is_never_published_again_by_itself(
    manual_world: World, outcome: int, what: str, where: str
) -> None:
    world = manual_world
    refusing(world, outcome)

    state, code, message = publish(world)
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert f"{what} (publish_status {outcome}); it is no longer public" in message
    assert where in message
    assert "does not publish it again by itself" in message and "--new-draft" in message
    assert "草稿箱" not in message  # the draft left it when the article went out

    refusing(world, 0)
    for flags in ({}, {"retry_failed": True}):  # neither cron nor --retry-failed republish
        state, code, _ = publish(world, **flags)
        assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert (calls_to(world.box, CREATE), calls_to(world.box, SUBMIT)) == (1, 1)
    assert calls_to(world.box, POLL) == 1

    state, code, message = publish(world, new_draft=True)  # the editor's decision
    assert (state, code) == ("published", EXIT_OK), message
    assert (calls_to(world.box, CREATE), calls_to(world.box, SUBMIT)) == (2, 2)


def test_reconcile_records_a_refusal_it_hears_and_runs_after_it_poll_no_more(
    manual_world: World,
) -> None:
    """A submission still publishing when the run gave up (a ledger that says
    "submitted"): the refusal heard later is written down once, by whoever hears it."""
    world = manual_world
    world.box.wechat.update_options({"publish_seconds": None, "publish_polls": 1000})
    state, code, _ = publish(world)
    assert (state, code) == ("pending", EXIT_TEMPORARY)
    assert world.posts()["wechat"].state == "submitted"
    polls = calls_to(world.box, POLL)

    refusing(world, 3)
    report, _ = world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
    state, code, message = wechat(report)
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert "publishing failed (WeChat gives no reason) (publish_status 3)" in message
    record = world.posts()["wechat"]
    assert (record.state, record.error_permanent) == ("failed", True)
    assert "publication refused" in events_text(world, record)
    assert calls_to(world.box, POLL) == polls + 1

    state, code, message = publish(world)
    assert (state, code) == ("failed", EXIT_CHANNEL_FAILED)
    assert message.endswith("(refused in an earlier run; nothing was sent now)")
    assert calls_to(world.box, POLL) == polls + 1
    assert calls_to(world.box, SUBMIT) == 1


def test_the_refusal_reads_plainly_on_the_command_line(world: World) -> None:
    """What cron's mail shows: exit 1, one line naming the refusal and the way on; and
    ``crosspost status`` lists the post as failed with WeChat's reason."""
    refusing(world, 3)
    run = world.run("publish", str(world.issue), "--mode", "publish", "-c", "wechat")
    assert run.returncode == EXIT_CHANNEL_FAILED, run.stderr
    # The line below the table, named as the progress lines above it name the post.
    line = run.stderr.splitlines()[-1]
    assert line.startswith(f"wechat:main  {ISSUE_ID}: "), run.stderr
    assert "publishing failed (WeChat gives no reason) (publish_status 3)" in line
    assert line.endswith("then run with --retry-failed to submit it again")
    assert "Traceback" not in run.stderr

    status = world.run("status")
    assert status.returncode == EXIT_OK, status.stderr
    (row,) = [line for line in status.stdout.splitlines() if "wechat:main" in line]
    assert row.split()[:3] == [ISSUE_ID, "wechat:main", "failed"]
    assert "publish_status 3" in row
