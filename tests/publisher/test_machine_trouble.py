"""When this machine is the trouble: one line, the documented exit code, nothing half-written.

Each case runs ``python -m crosspost`` in a subprocess against the sandbox, as cron would.
The tests run as root, and root writes through file permissions, so the machine's
trouble is made real in a private mount namespace (``unshare --mount``, which vanishes
with the process): a read-only bind mount over the ledger, a small tmpfs filled to the
last byte for the full disk. Where mounting is not possible, the read-only ledger falls
back to ``chmod`` (which binds a non-root user) and the full disk to ``RLIMIT_FSIZE`` (the
kernel refuses to grow any file past the limit; Python ignores SIGXFSZ, so the write
fails with EFBIG as a full disk fails with ENOSPC).
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_PIPE_CLOSED, EXIT_TEMPORARY

from .world import CREATE_PATHS, World, assert_one_post_per_channel, base_env, mutating

pytestmark = pytest.mark.slow


@functools.cache
def can_mount() -> bool:
    """True when this process may make a private mount namespace and mount a tmpfs in it."""
    if shutil.which("unshare") is None:
        return False
    with tempfile.TemporaryDirectory() as folder:
        probe = ["unshare", "--mount", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {folder}"]
        try:
            return subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False


def crosspost(world: World, *args: str) -> list[str]:
    """``python -m crosspost ARGS``; ``publish`` publishes (the example only drafts WeChat)."""
    extra = ["--mode", "publish"] if args[:1] == ("publish",) else []
    return [sys.executable, "-m", "crosspost", *args, *extra]


def run(
    world: World,
    argv: Sequence[str],
    *,
    setup: str = "",
    limit_file_size: int | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in the world; ``setup`` (shell) first, in a private mount namespace."""
    if setup:
        argv = ["unshare", "--mount", "sh", "-ec", f'{setup}\nexec "$@"', "sh", *argv]

    def limit() -> None:  # pragma: no cover - runs in the child
        if limit_file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))

    # A size limit would also cut the interpreter's own bytecode cache files short.
    quiet = {"PYTHONDONTWRITEBYTECODE": "1"} if limit_file_size is not None else {}
    return subprocess.run(
        argv,
        cwd=world.root,
        env={**base_env(), **world.env, **(env or {}), **quiet},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
    )


def assert_one_line(done: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The run ended with ``code`` and said exactly one line on stderr, naming ``words``."""
    lines = done.stderr.splitlines()
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# --- a read-only ledger -------------------------------------------------------------------


def test_a_read_only_ledger_stops_even_an_unchanged_issue_in_one_line(world: World) -> None:
    assert run(world, crosspost(world, "publish", str(world.issue))).returncode == EXIT_OK
    ledger = world.state_dir / "ledger.sqlite3"
    sent = len(mutating(world.box))
    if can_mount():
        setup = f"mount --bind '{ledger}' '{ledger}'\nmount -o remount,bind,ro '{ledger}'"
        done = run(world, crosspost(world, "publish", str(world.issue)), setup=setup)
        status = run(world, crosspost(world, "status"), setup=setup)
        assert status.returncode == EXIT_OK and "published" in status.stdout, status.stderr
    elif os.geteuid() != 0:
        ledger.chmod(0o444)
        done = run(world, crosspost(world, "publish", str(world.issue)))
    else:
        pytest.skip("root without mount: no way to make a file read-only for this process")
    line = assert_one_line(done, EXIT_BAD_INPUT, str(ledger), "cannot be written")
    assert "--state-dir" in line  # says what to do
    assert len(mutating(world.box)) == sent, "nothing was sent"


def test_a_read_only_ledger_before_the_first_post_sends_nothing(world: World) -> None:
    if not can_mount():
        pytest.skip("needs a private mount namespace for a read-only folder")
    world.state_dir.mkdir(parents=True)
    folder = world.state_dir
    setup = f"mount -t tmpfs -o size=1m tmpfs '{folder}'\nmount -o remount,ro '{folder}'"
    done = run(world, crosspost(world, "publish", str(world.issue)), setup=setup)
    assert_one_line(done, EXIT_BAD_INPUT, str(world.state_dir))
    assert mutating(world.box) == []


def test_a_read_only_state_dir_stops_a_tick_at_its_lock_in_one_line(world: World) -> None:
    if not can_mount():
        pytest.skip("needs a private mount namespace for a read-only folder")
    folder = world.state_dir
    folder.mkdir(parents=True)
    setup = f"mount -t tmpfs -o size=1m tmpfs '{folder}'\nmount -o remount,ro '{folder}'"
    argv = crosspost(world, "run-due", str(world.issue.parent), "--include-missed")
    done = run(world, argv, setup=setup)
    assert_one_line(done, EXIT_BAD_INPUT, str(folder / "run-due.lock"), "--state-dir")
    assert mutating(world.box) == []


# --- a full disk ----------------------------------------------------------------------------


def test_a_full_disk_is_one_line_and_75_and_the_next_run_finishes(world: World) -> None:
    """Disk full before the run writes its first intent: nothing is sent; space freed, the
    next run publishes once per channel."""
    if can_mount():
        mount = world.root / "disk"
        mount.mkdir()
        # The state dir lives on a 2 MB tmpfs, filled to its last byte before the run.
        setup = (
            f"mount -t tmpfs -o size=2m tmpfs '{mount}'\n"
            f"mkdir '{mount}/state'\n"
            f"cat /dev/zero > '{mount}/fill' 2>/dev/null || true"
        )
        env = {"CROSSPOST_STATE_DIR": str(mount / "state")}
        done = run(world, crosspost(world, "publish", str(world.issue)), setup=setup, env=env)
        words: tuple[str, ...] = (str(mount / "state"),)
    else:
        done = run(world, crosspost(world, "publish", str(world.issue)), limit_file_size=4096)
        words = (str(world.state_dir),)
    line = assert_one_line(done, EXIT_TEMPORARY, *words)
    assert "run again" in line
    assert [r for r in mutating(world.box) if r.endswith(tuple(CREATE_PATHS.values()))] == []

    again = run(world, crosspost(world, "publish", str(world.issue)))
    assert again.returncode == EXIT_OK, again.stderr
    assert_one_post_per_channel(world)


def test_a_ledger_that_cannot_grow_mid_run_is_75_and_leaves_no_second_post(
    world: World,
) -> None:
    """The ledger may not grow past its size: the run stops at the first write that needs
    more, in one line; what it had done is finished by the next run, once."""
    first = run(world, crosspost(world, "publish", str(world.issue), "-c", "zhihu"))
    assert first.returncode == EXIT_OK, first.stderr
    ledger = world.state_dir / "ledger.sqlite3"
    # Checkpointed, the WAL is empty: its first new page needs a file larger than 4 KB.
    done = run(
        world,
        crosspost(world, "publish", str(world.issue), "-c", "wechat"),
        limit_file_size=4096,
    )
    assert_one_line(done, EXIT_TEMPORARY)
    assert ledger.exists()
    again = run(world, crosspost(world, "publish", str(world.issue)))
    assert again.returncode == EXIT_OK, again.stderr
    assert_one_post_per_channel(world)


def test_a_full_disk_under_the_token_cache_keeps_the_old_file(tmp_path: Path) -> None:
    """``write_atomic`` (the token cache, run-due.json, the sent copies) on a full disk:
    a StorageError with exit 75, and the file it was replacing is whole."""
    if not can_mount():
        pytest.skip("needs a private mount namespace for a small tmpfs")
    mount = tmp_path / "disk"
    mount.mkdir()
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from crosspost.channels.wechat.token import write_json\n"
        "from crosspost.errors import StorageError\n"
        f"path = Path({str(mount / 'wechat-token.json')!r})\n"
        "try:\n"
        "    write_json(path, {'token': 'x' * 100000})\n"
        "except StorageError as error:\n"
        "    print(error.exit_code, error)\n"
        "print(path.read_text())\n"
        "print(sorted(p.name for p in path.parent.glob('.*.tmp')))\n"
    )
    setup = (
        f"mount -t tmpfs -o size=64k tmpfs '{mount}'\n"
        f"printf '{{\"old\": true}}' > '{mount}/wechat-token.json'\n"
        f"cat /dev/zero > '{mount}/fill' 2>/dev/null || true"
    )
    argv = ["unshare", "--mount", "sh", "-ec", f'{setup}\nexec "$@"', "sh"]
    done = subprocess.run(
        [*argv, sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    code, message = done.stdout.splitlines()[0].split(" ", 1)
    assert int(code) == EXIT_TEMPORARY
    assert "wechat-token.json" in message and "No space left on device" in message
    assert done.stdout.splitlines()[1:] == ['{"old": true}', "[]"], "old file whole, no debris"


# --- YAML and TOML that would blow the stack ----------------------------------------------


@pytest.mark.parametrize(
    ("front", "line", "words"),
    [
        ("title: x\nwechat: " + "[" * 3000 + "]" * 3000, 3, ("nests", "10 deep")),
        ("title: x\nwechat:\n" + "".join("  " * i + f"k{i}:\n" for i in range(40)), 0, ("nests",)),
        ("title: x\ndigest: " + "长" * 70_000, 1, ("front matter is", "64,000")),
        ('+++\ntitle = "x"\na = ' + "[" * 5000 + "]" * 5000 + "\n+++", 1, ("nests",)),
    ],
    ids=["flow", "block", "huge", "toml"],
)
def test_deep_or_huge_front_matter_is_one_line_with_the_file(
    world: World, front: str, line: int, words: tuple[str, ...]
) -> None:
    text = front if front.startswith("+++") else f"---\n{front}\n---"
    world.issue.write_text(f"{text}\n正文足够长了吗?是的。\n", encoding="utf-8")
    for command in ("check", "publish"):
        done = run(world, crosspost(world, command, str(world.issue)))
        said = done.stdout + done.stderr
        assert done.returncode == EXIT_BAD_INPUT, said
        assert "Traceback" not in said and "RecursionError" not in said
        assert f"{world.issue}:{line or ''}" in said, said
        for word in words:
            assert word in said
    assert mutating(world.box) == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", ("too deeply",)),
        ("# " + "x" * 1_100_000 + "\n", ("too big", "1,000,000")),
    ],
    ids=["deep", "huge"],
)
def test_a_config_nested_too_deeply_or_too_big_is_one_line(
    world: World, text: str, words: tuple[str, ...]
) -> None:
    world.config.write_text(text, encoding="utf-8")
    done = run(world, crosspost(world, "publish", str(world.issue)))
    assert_one_line(done, EXIT_BAD_INPUT, str(world.config), *words)
    assert mutating(world.box) == []


# --- a closed pipe ------------------------------------------------------------------------


def closed_stdout(world: World, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """Run with stdout a pipe whose reader is gone before the first write (``| head``)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            argv,
            cwd=world.root,
            env={**base_env(), **world.env},
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    finally:
        os.close(write)


def test_a_closed_pipe_ends_quietly_with_141_and_the_work_done(world: World) -> None:
    world.issue.write_text(
        world.issue.read_text(encoding="utf-8").replace(
            "publish_at: 2026-11-23T09:00:00+08:00", "publish_at: 2020-01-01T09:00:00+08:00"
        ),
        encoding="utf-8",
    )
    due = closed_stdout(
        world,
        crosspost(
            world,
            "run-due",
            str(world.issue.parent),
            "--json",
            "--include-missed",
            "--mode",
            "publish",
        ),
    )
    assert (due.returncode, due.stderr) == (EXIT_PIPE_CLOSED, "")
    assert_one_post_per_channel(world)  # the tick did its work before printing
    for args in (("status",), ("status", "--json"), ("urls", "ai-systems-48")):
        done = closed_stdout(world, crosspost(world, *args))
        assert (done.returncode, done.stderr) == (EXIT_PIPE_CLOSED, ""), args


def test_progress_to_a_closed_pipe_does_not_stop_the_run(world: World) -> None:
    """``crosspost publish … 2>&1 | head -1``: the run goes on; its report reaches nobody."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            crosspost(world, "publish", str(world.issue)),
            cwd=world.root,
            env={**base_env(), **world.env},
            stdout=write,
            stderr=write,
            timeout=300,
        )
    finally:
        os.close(write)
    assert done.returncode == EXIT_PIPE_CLOSED
    assert_one_post_per_channel(world)


# --- operators' view ------------------------------------------------------------------------


def test_zhihu_failing_every_create_is_75_with_one_warning(world: World) -> None:
    world.box.faults.add("zhihu", CREATE_PATHS["zhihu"], kind="http:503")
    done = run(world, crosspost(world, "publish", str(world.issue), "-c", "zhihu"))
    assert done.returncode == EXIT_TEMPORARY, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "HTTP 503 after sending, twice; Zhihu column (知乎专栏) cannot say whether" in said
    assert "confirms nothing was made" not in said  # Zhihu lists no drafts to confirm it
    warnings = [line for line in done.stderr.splitlines() if line.startswith("crosspost: warning")]
    assert len(warnings) == 1 and "cannot list drafts" in warnings[0], done.stderr
    assert world.posts()["zhihu"].state == "failed"  # retried later, not "unconfirmed"
    world.box.faults.clear()
    again = run(world, crosspost(world, "publish", str(world.issue), "-c", "zhihu"))
    assert again.returncode == EXIT_OK, again.stderr
    assert_one_post_per_channel(world, ["zhihu"])
