"""A broadcast killed with SIGKILL at every step boundary, then run again: one push, recorded.

Each case starts ``python -m crosspost publish --mode broadcast -c wechat`` with the crash
switch at one boundary of a mass send (around the draft and around ``sendall``), checks
that it died by SIGKILL, then runs the same command again. A kill right after the intent
of the send leaves the send in doubt: the next run replays the same send id, which WeChat
answers with the first send (45065) or takes now; either way each follower has one push.
"""

from __future__ import annotations

import signal

import pytest

from crosspost.commands.switches import CLOCK_OFFSET_VARIABLE
from crosspost.errors import EXIT_OK
from crosspost.publish.machine import BROADCAST_CHECKPOINTS

from .world import World, calls_to

pytestmark = pytest.mark.slow


def broadcast(world: World, crash_at: str | None = None) -> tuple[int, str]:
    done = world.run(
        "publish", str(world.issue), "--mode", "broadcast", "-c", "wechat", crash_at=crash_at
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("checkpoint", BROADCAST_CHECKPOINTS)
def test_killed_at_a_boundary_of_a_broadcast_the_next_run_sends_once(
    world: World, checkpoint: str
) -> None:
    world.box.wechat.update_options({"mass_finish_seconds": 0})
    code, output = broadcast(world, checkpoint)
    assert code == -signal.SIGKILL, output

    code, output = broadcast(world)
    if checkpoint == "before-draft" and code != EXIT_OK:  # WeChat needs time to list it
        world.box.clock.advance(700.0)
        world.env[CLOCK_OFFSET_VARIABLE] = "700"
        code, output = broadcast(world)
    assert code == EXIT_OK, output
    assert "sent to followers" in output

    pushes = world.box.wechat.pushes()
    assert sorted(pushes) == ["fan-0", "fan-1", "fan-2"]
    assert all(len(got) == 1 for got in pushes.values()), pushes
    (record,) = [p for p in world.posts().values() if p.channel == "wechat"]
    assert (record.state, record.mass_status) == ("published", "sent")
    assert record.article_id == str(pushes["fan-0"][0])
    assert world.drafts_on("wechat") == []
    assert calls_to(world.box, "/cgi-bin/draft/add") == 1
    assert calls_to(world.box, "/cgi-bin/message/mass/sendall") <= 2
