"""Eight ``crosspost publish`` processes started at once make one post per channel.

A cron job and an editor (or eight cron jobs) may publish the same issue at the same
moment. Each post is taken under a file lock, and whoever comes second finds the
ledger already says published.
"""

from __future__ import annotations

import pytest

from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK

from .world import (
    CHANNELS,
    CREATE_PATHS,
    PUBLISH_PATHS,
    World,
    assert_one_post_per_channel,
    calls_to,
    finish,
)

pytestmark = pytest.mark.slow
PROCESSES = 8


def test_eight_processes_publishing_the_same_issue_make_one_post_per_channel(
    world: World,
) -> None:
    runs = [
        world.spawn("publish", str(world.issue), "--mode", "publish", "--json")
        for _ in range(PROCESSES)
    ]
    outputs = [finish(run) for run in runs]
    codes = [run.returncode for run in runs]
    assert codes == [EXIT_OK] * PROCESSES, [err for _, err in outputs]

    assert_one_post_per_channel(world)
    for channel in CHANNELS:
        assert calls_to(world.box, CREATE_PATHS[channel]) == 1
        assert calls_to(world.box, PUBLISH_PATHS[channel]) == 1
    states = sorted(s for out, _ in outputs for s in _states(out))
    assert states.count("published") == len(CHANNELS)  # one run made each post
    assert set(states) == {"published", "unchanged"}  # the others found it done
    urls = {p.url for p in world.posts().values()}
    assert all(urls <= set(_urls(out)) for out, _ in outputs)  # every run names the URLs


def _states(out: str) -> list[str]:
    import json

    return [p["state"] for p in json.loads(out)["posts"]]


def _urls(out: str) -> list[str]:
    import json

    return [p["url"] for p in json.loads(out)["posts"]]


def test_a_file_that_loses_the_race_for_an_issue_id_leaves_the_winner_alone(
    manual_world: World,
) -> None:
    """Two files with one id, planned at once: the second to reach a post only says so."""
    from crosspost.publish.jobs import PublishOptions, PublishReport
    from crosspost.publish.runner import Publisher

    world = manual_world
    twin = world.issue.with_name("twin.md")  # another issue under the same id
    twin.write_text(world.issue.read_text(encoding="utf-8") + "\nAnother ending.\n", "utf-8")
    options = PublishOptions(mode="publish")

    def lose_the_race(publisher: Publisher) -> PublishReport:
        jobs = publisher.plan([twin], options)  # the ledger is still empty: no clash yet
        winner, _ = world.publish(mode="publish")  # meanwhile the other file goes out
        assert winner.exit_code == EXIT_OK
        return publisher.run(jobs, options)

    report, _ = world.with_publisher(lose_the_race)
    assert report.exit_code == EXIT_BAD_INPUT
    assert all("already used by" in r.message for r in report.results)
    assert_one_post_per_channel(world)
    assert {p.issue_path for p in world.posts().values()} == {str(world.issue.resolve())}
