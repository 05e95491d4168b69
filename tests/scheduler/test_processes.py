"""``crosspost run-due`` as real processes: overlapping ticks, a killed lock holder, a crash.

These are the promises only processes can test: two cron ticks that overlap make one
post; a tick killed with SIGKILL (the lock holder, or a publishing run at an exact step)
leaves nothing that blocks or duplicates on the next tick.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from crosspost.errors import EXIT_OK
from publisher.world import base_env

from .desk import SUBPROCESS_TIMEOUT, Desk

pytestmark = pytest.mark.slow


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat()


def test_two_overlapping_ticks_make_one_post(live_desk: Desk) -> None:
    desk = live_desk
    desk.write("48", _now())
    # Slow the platform down so the ticks truly overlap: the first holds the lock a while.
    desk.box.faults.add("zhihu", "/api/v4/me", "latency:1500", count=1)

    first, second = desk.spawn(), desk.spawn()
    outputs = [p.communicate(timeout=SUBPROCESS_TIMEOUT) for p in (first, second)]

    assert [first.returncode, second.returncode] == [EXIT_OK, EXIT_OK], outputs
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1
    printed = "".join(out + err for out, err in outputs)
    assert printed.count("published") == 2, "one line per post, from the tick that made it"


def test_a_lock_holder_killed_with_sigkill_does_not_block_the_next_tick(live_desk: Desk) -> None:
    desk = live_desk
    desk.write("47", _now(), channels="[zhihu]")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import time
                from pathlib import Path
                from crosspost.schedule.state import run_lock
                with run_lock(Path({str(desk.state_dir)!r}), wait=False) as mine:
                    print("held" if mine else "taken", flush=True)
                    time.sleep(120)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"

        blocked = desk.run()
        assert (blocked.returncode, blocked.stdout, blocked.stderr) == (EXIT_OK, "", "")
        assert desk.creates("zhihu") == 0, "a tick that finds the lock taken does nothing"

        holder.send_signal(signal.SIGKILL)
        assert holder.wait(timeout=SUBPROCESS_TIMEOUT) == -signal.SIGKILL
        assert (desk.state_dir / "run-due.lock").exists(), "the file stays; nobody holds it"

        after = desk.run()
        assert after.returncode == EXIT_OK, after.stderr
        assert "published" in after.stdout and desk.creates("zhihu") == 1
    finally:
        holder.kill()
        holder.wait(timeout=SUBPROCESS_TIMEOUT)


def test_wait_blocks_for_the_running_tick_instead_of_leaving(live_desk: Desk) -> None:
    desk = live_desk
    desk.write("46", _now(), channels="[zhihu]")
    desk.box.faults.add("zhihu", "/api/v4/me", "latency:1000", count=1)
    first = desk.spawn()
    waiting = desk.spawn("--wait", "-v")
    (out1, err1), (out2, err2) = (
        p.communicate(timeout=SUBPROCESS_TIMEOUT) for p in (first, waiting)
    )
    assert first.returncode == EXIT_OK and waiting.returncode == EXIT_OK, (err1, err2)
    assert "another run-due holds the lock" not in err2
    assert "run-due at" in err2, "the waiting tick ran to its end"
    assert (out1 + out2).count("published") == 1 and desk.creates("zhihu") == 1


@pytest.mark.parametrize("channels", [["wechat"], ["zhihu"], ["wechat", "zhihu"]])
def test_a_tick_killed_after_creating_the_draft_is_finished_by_the_next(
    live_desk: Desk, channels: list[str]
) -> None:
    """Killed once every channel's draft/add answered, before the ledger wrote it down.

    With both channels the kill waits until both posts are there (``after-draft*2``):
    killed wherever the other thread happened to be, WeChat's draft/add could still be in
    flight, and whether WeChat saved it nobody can tell for its 120 s settle window, so
    the next tick could only say "ask again later" (timing, not the promise under test).
    """
    desk = live_desk
    desk.write("45", _now(), channels=f"[{', '.join(channels)}]")

    crash_at = "after-draft" if len(channels) == 1 else f"after-draft*{len(channels)}"
    killed = desk.run(env={"CROSSPOST_CRASH_AT": crash_at})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert all(desk.creates(channel) == 1 for channel in channels), "each draft was made"

    finished = desk.run()
    assert finished.returncode == EXIT_OK, finished.stdout + finished.stderr
    for channel in channels:
        post = desk.posts()[f"45 {channel}"]
        assert post.state == "published" and post.url and post.url in finished.stdout
        assert desk.creates(channel) == 1, f"{channel}: the next tick reconciles, no 2nd draft"
    again = desk.run()
    assert (again.returncode, again.stdout, again.stderr) == (EXIT_OK, "", "")


def test_a_tick_with_its_output_closed_does_its_work_and_says_no_bug(live_desk: Desk) -> None:
    """``crosspost run-due >&-`` (a crontab line, a supervisor that reads nothing): Python
    has no ``sys.stdout`` then, and the tick that published ended on ``None.flush()``,
    exit 1, "this is a crosspost bug"."""
    desk = live_desk
    desk.write("48", _now())
    env = {**base_env(), **desk.env}
    closed = subprocess.run(
        [sys.executable, "-m", "crosspost", "run-due", str(desk.issues), "-v"],
        cwd=desk.root,
        env=env,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),  # the child's own stdout, closed before exec
        timeout=SUBPROCESS_TIMEOUT,
        check=False,
    )
    assert closed.returncode == EXIT_OK, closed.stderr
    assert "crosspost bug" not in closed.stderr
    assert desk.posts()["48 wechat"].state == "published"
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1


def test_a_cron_mail_reads_the_lines_in_the_order_of_the_table(live_desk: Desk) -> None:
    """Cron reads stdout and stderr through one pipe. A published line (stdout, buffered
    when not a terminal) came after every failed line and the error (stderr), so a mail
    read as if the failures had happened last."""
    desk = live_desk
    for name in ("45", "46"):
        desk.write(name, _now())
    desk.box.faults.add("zhihu", "/api/articles/drafts", "http:401")  # the login expired
    process = subprocess.run(
        [sys.executable, "-m", "crosspost", "run-due", str(desk.issues)],
        cwd=desk.root,
        env={**base_env(), **desk.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    words = [line.split()[:3] for line in process.stdout.splitlines()]
    assert words == [
        ["published", "wechat:main", "45"],
        ["failed", "zhihu:main", "45"],
        ["published", "wechat:main", "46"],
        ["failed", "zhihu:main", "46"],
    ], process.stdout
