"""Test switches: read once at the command edge, injected into the publisher like a clock.

The crash-resume tests kill real processes at these checkpoints (``test_crash_resume``);
here the same checkpoints are watched in-process, and the environment switches are read
without starting anything.
"""

from __future__ import annotations

import pytest

from crosspost.commands.switches import (
    CLOCK_OFFSET_VARIABLE,
    CRASH_VARIABLE,
    MAX_SLEEP_VARIABLE,
    Switches,
)
from crosspost.publish.jobs import PublishOptions
from crosspost.publish.machine import CHECKPOINTS

from .world import World


def test_without_the_variables_nothing_changes() -> None:
    switches = Switches.from_environment({})
    assert switches == Switches()

    def sleep(seconds: float) -> None:
        raise AssertionError("not called")

    def clock() -> float:
        return 100.0

    assert switches.sleep(sleep) is sleep
    assert switches.clock(clock) is clock
    switches.checkpoint("after-draft")  # alive: no crash switch


def test_the_variables_cap_sleep_and_move_the_clock() -> None:
    env = {MAX_SLEEP_VARIABLE: "0.5", CLOCK_OFFSET_VARIABLE: "600", CRASH_VARIABLE: "x"}
    switches = Switches.from_environment(env)
    assert switches == Switches(crash_at="x", max_sleep=0.5, clock_offset=600.0)
    slept: list[float] = []
    paced = switches.sleep(slept.append)
    paced(30)
    paced(0.1)
    assert slept == [0.5, 0.1]
    assert switches.clock(lambda: 100.0)() == 700.0


def test_a_misspelt_number_changes_nothing() -> None:
    switches = Switches.from_environment({MAX_SLEEP_VARIABLE: "fast", CLOCK_OFFSET_VARIABLE: " "})
    assert switches == Switches()


def test_every_post_passes_its_checkpoints_in_order(manual_world: World) -> None:
    """The checkpoints a crash test may name are the ones a publishing run passes."""
    passed: list[str] = []
    report, _ = manual_world.with_publisher(
        lambda p: p.publish(
            [manual_world.issue], PublishOptions(targets=("zhihu",), mode="publish")
        ),
        checkpoint=passed.append,
    )
    assert [r.state for r in report.results] == ["published"]
    assert tuple(passed) == CHECKPOINTS


def test_a_shared_crash_point_waits_for_every_post_then_dies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``after-draft*2``: the first post to arrive waits for the second; then the kill."""
    import threading

    from crosspost.commands import switches as module

    switches = Switches.from_environment({CRASH_VARIABLE: "after-draft*2"})
    assert switches.crash_at == "after-draft" and switches.gathering is not None
    assert Switches.from_environment({CRASH_VARIABLE: "after-draft*1"}).gathering is None
    killed: list[str] = []
    monkeypatch.setattr(
        module.os, "kill", lambda pid, sig: killed.append(threading.current_thread().name)
    )
    switches.checkpoint("before-draft")  # another point: passes
    first = threading.Thread(target=switches.checkpoint, args=("after-draft",), name="one")
    first.start()
    first.join(0.2)
    assert first.is_alive() and killed == [], "the first post waits for the other"
    switches.checkpoint("after-draft")
    first.join(5)
    assert sorted(killed) == ["MainThread", "one"]
