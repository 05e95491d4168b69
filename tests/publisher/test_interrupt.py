"""Ctrl-C and SIGTERM stop a run at the next step boundary, and say where each post stopped.

The signal reaches the main thread while the posts run in worker threads. Before this,
the main thread printed "interrupted" and the workers went on through the publication
and the mass send: an operator believed nothing went out while followers were messaged
seconds later. Here a post's checkpoint delivers the interrupt to the main thread, as a
terminal would, at the moment the draft is made.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from crosspost.cli import _sigterm_as_interrupt
from crosspost.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_TEMPORARY, Interrupted
from crosspost.publish.jobs import PublishOptions
from crosspost.publish.runner import Publisher
from crosspost.publish.stopping import RunStop

from .world import PUBLISH_PATHS, World, assert_one_post_per_channel, calls_to


@pytest.fixture(autouse=True)
def _signals_as_at_a_terminal() -> object:
    """Ctrl-C and a hang-up as an editor's shell delivers them. A suite started in the
    background (``cmd &`` without job control, or under ``nohup``) inherits SIGINT and
    SIGHUP ignored, and crosspost rightly keeps an ignored signal ignored: these tests
    would then find no run interrupted."""
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    for number, handler in before.items():
        signal.signal(number, handler)


BROADCAST_PATH = "/cgi-bin/message/mass/sendall"


def interrupt_after_the_draft(
    publishers: list[Publisher], number: signal.Signals = signal.SIGINT
) -> object:
    """A checkpoint that presses Ctrl-C once the first draft is made, then lets a post
    go on only once the main thread has taken the interrupt (as it would within
    milliseconds on a terminal; a test must not leave that to chance). Every post waits
    so: another channel's draft made just after the press went on to publish before the
    main thread had taken it, on a busy machine."""
    pressed = threading.Lock()  # taken by the first post there: one press, not two

    def checkpoint(name: str) -> None:
        if name != "after-draft":
            return
        if pressed.acquire(blocking=False):
            # a real SIGINT to the main thread, blocked waiting for the posts as in a run
            signal.pthread_kill(threading.main_thread().ident or 0, number)
        deadline = time.monotonic() + 10
        while not publishers[0].stop.asked and time.monotonic() < deadline:
            time.sleep(0.001)

    return checkpoint


def publish_interrupted(world: World, mode: str, *targets: str) -> tuple[object, list[str]]:
    publishers: list[Publisher] = []

    def work(publisher: Publisher) -> object:
        publishers.append(publisher)
        return publisher.publish([world.issue], PublishOptions(mode=mode, targets=targets))

    return world.with_publisher(work, checkpoint=interrupt_after_the_draft(publishers))


@pytest.mark.parametrize("mode", ["publish", "broadcast"])
def test_ctrl_c_after_the_draft_sends_nothing_more_and_says_where_it_stopped(
    world: World, mode: str
) -> None:
    report, lines = publish_interrupted(world, mode, "wechat")

    assert report.interrupted and report.exit_code == EXIT_INTERRUPTED  # type: ignore[attr-defined]
    (result,) = report.results  # type: ignore[attr-defined]
    assert result.state == "pending" and result.exit_code == EXIT_TEMPORARY
    assert result.message == (
        "interrupted before "
        + ("publishing" if mode == "publish" else "the mass send")
        + ": nothing more was sent; run again to finish"
    )
    assert any(line.startswith("stopping: each post finishes the call") for line in lines)
    # nothing irreversible after the interrupt: the draft stands, nothing was sent on
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 0
    assert calls_to(world.box, BROADCAST_PATH) == 0
    assert world.posts()["wechat"].state == "draft_created"  # not "failed"
    assert not world.posts()["wechat"].pending_step  # no intent left in doubt

    # the next run goes on from the draft: one draft, one publication
    done = world.run("publish", str(world.issue), "--mode", "publish", "-c", "wechat")
    assert done.returncode == EXIT_OK, done.stderr
    assert len(world.drafts_on("wechat")) <= 1
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 1


def test_a_post_that_was_stopped_is_not_started_by_a_later_batch(world: World) -> None:
    publishers: list[Publisher] = []

    def work(publisher: Publisher) -> object:
        publishers.append(publisher)
        options = PublishOptions(mode="publish")
        first = publisher.publish([world.issue], options)
        assert publisher.stop.asked
        second = publisher.run(publisher.plan([world.issue], options), options)
        assert second.interrupted and {r.state for r in second.results} == {"pending"}
        assert {r.message for r in second.results} == {
            "not started: the run was interrupted; run again to make it"
        }
        return first

    report, _ = world.with_publisher(work, checkpoint=interrupt_after_the_draft(publishers))
    assert report.exit_code == EXIT_INTERRUPTED  # type: ignore[attr-defined]
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 0
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 0

    assert world.run("publish", str(world.issue), "--mode", "publish").returncode == EXIT_OK
    assert_one_post_per_channel(world)


def test_sigterm_stops_a_command_as_ctrl_c_does() -> None:
    with pytest.raises(KeyboardInterrupt), _sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts this at once
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_hangup_stops_a_run_as_ctrl_c_does_instead_of_killing_it_mid_call(
    world: World,
) -> None:
    """SIGHUP (the ssh session of a run gone, its shell killed) ended the process on the
    spot, its call out and unrecorded: the next run found the post unconfirmed (exit 3),
    and a Zhihu draft made then was left where nobody can list it. Now the draft is
    recorded, nothing more goes out, and the next run publishes it once."""
    publishers: list[Publisher] = []

    def work(publisher: Publisher) -> object:
        publishers.append(publisher)
        with _sigterm_as_interrupt():
            return publisher.publish([world.issue], PublishOptions(mode="publish"))

    report, _ = world.with_publisher(
        work, checkpoint=interrupt_after_the_draft(publishers, signal.SIGHUP)
    )

    assert report.exit_code == EXIT_INTERRUPTED  # type: ignore[attr-defined]
    for result in report.results:  # type: ignore[attr-defined]
        assert result.message.startswith("interrupted before ")
        assert result.message.endswith(": nothing more was sent; run again to finish")
    assert calls_to(world.box, PUBLISH_PATHS["wechat"]) == 0
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 0
    assert not any(post.pending_step for post in world.posts().values())
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL

    assert world.run("publish", str(world.issue), "--mode", "publish").returncode == EXIT_OK
    assert_one_post_per_channel(world)


def test_a_hangup_ignored_from_the_start_stays_ignored() -> None:
    """``nohup crosspost run-due …``: the person asked for the run to outlive the terminal."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with _sigterm_as_interrupt():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)  # nothing happens
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_real_pause_ends_as_soon_as_the_stop_is_asked() -> None:
    stop = RunStop()
    pause = stop.pausing(time.sleep)
    threading.Timer(0.05, stop.ask).start()
    started = time.monotonic()
    with pytest.raises(Interrupted, match="interrupted before its next call"):
        pause(120)  # WeChat's pause before a lost draft is looked for
    assert time.monotonic() - started < 5


def test_a_post_live_before_the_stop_is_recorded_with_its_url(world: World) -> None:
    publishers: list[Publisher] = []
    pressed = threading.Event()

    def checkpoint(name: str) -> None:
        if name == "after-publish" and not pressed.is_set():
            pressed.set()
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
            deadline = time.monotonic() + 10
            while not publishers[0].stop.asked and time.monotonic() < deadline:
                time.sleep(0.001)

    def work(publisher: Publisher) -> object:
        publishers.append(publisher)
        options = PublishOptions(mode="publish", targets=("zhihu",))
        return publisher.publish([world.issue], options)

    report, _ = world.with_publisher(work, checkpoint=checkpoint)
    (result,) = report.results  # type: ignore[attr-defined]
    assert result.state == "published" and result.url
    assert world.posts()["zhihu"].url == result.url


def test_a_zhihu_post_stopped_before_its_draft_is_filled_in_says_it_has_a_draft(
    world: World,
) -> None:
    """Zhihu's draft is made first, with its title only, and filled in once the images
    are up. Stopped there, the line said "interrupted before making its draft" while
    ``status`` showed the post drafted: each line now says the one thing the ledger knows."""
    report, _ = publish_interrupted(world, "publish", "zhihu")

    (result,) = report.results  # type: ignore[attr-defined]
    assert (result.state, result.exit_code) == ("pending", EXIT_TEMPORARY)
    assert result.message == (
        "interrupted before filling in its draft: nothing more was sent; run again to finish"
    )
    record = world.posts()["zhihu"]
    assert record.state == "draft_created" and record.draft_id
    status = world.run("status")
    (row,) = status.stdout.splitlines()[1:]
    assert row.split()[1:3] == ["zhihu:main", "drafted"], status.stdout
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 0

    done = world.run("publish", str(world.issue), "--mode", "publish", "-c", "zhihu")
    assert done.returncode == EXIT_OK, done.stderr
    assert world.drafts_on("zhihu") == [record.draft_id], "the same draft, filled in"
