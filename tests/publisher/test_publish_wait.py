"""How long after WeChat finishes a publication the ledger records it.

The sandbox and the publisher share one :class:`ManualClock`: the pauses between polls
are taken on it (nothing is waited for), and the sandbox's request log and the ledger's
``published_at`` are read on the same clock.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crosspost.errors import EXIT_OK
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock

from .world import World, build_world

SUBMIT = "/cgi-bin/freepublish/submit"
POLL = "/cgi-bin/freepublish/get"


def times_of(world: World, path: str) -> list[float]:
    return [r.at for r in world.box.requests if r.path == path]


def publish_wechat(world: World) -> float:
    """Publish the issue to WeChat only; the ledger's ``published_at``."""
    report, _ = world.publish(mode="publish", targets=("wechat",))
    (result,) = report.results
    assert (result.state, result.exit_code) == ("published", EXIT_OK), result.message
    published_at = world.posts()["wechat"].published_at
    assert published_at is not None
    return published_at


def test_default_sandbox_publication_is_recorded_within_two_seconds(manual_world: World) -> None:
    """The default sandbox answers "publishing" twice: the job is done at the latest just
    after the second answer, and the post is in the ledger within 2 s of that (it took
    18 s with pauses of 3, 5 and 10 s)."""
    world = manual_world
    published_at = publish_wechat(world)
    polls = times_of(world, POLL)
    assert len(polls) == 3  # two answers of "publishing", then the URL
    assert published_at - polls[1] <= 2.0
    assert published_at - times_of(world, SUBMIT)[0] <= 4.0


@pytest.fixture
def one_second_world(tmp_path: Path) -> Iterator[World]:
    """A sandbox whose WeChat publications take one second of clock time (however often
    they are polled)."""
    clock = ManualClock(start=time.time())
    options = {"wechat": {"publish_polls": 1000, "publish_seconds": 1}}
    with Sandbox(clock=clock, sleep=clock.sleep, options=options) as box:
        yield build_world(tmp_path, box, clock, clock.sleep)


def test_a_publication_that_takes_a_second_is_recorded_about_a_second_later(
    one_second_world: World,
) -> None:
    world = one_second_world
    published_at = publish_wechat(world)
    submitted_at = times_of(world, SUBMIT)[0]
    assert 1.0 <= published_at - submitted_at <= 2.0  # the first poll used to come at 3 s
    assert len(times_of(world, POLL)) == 2
