"""The ledger's connection turns the machine's trouble into one StorageError line.

Real SQLite files only: a second connection really holds the write lock, the state
folder is really deleted under an open ledger.
"""

from __future__ import annotations

import errno
import os
import pwd
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from crosspost.errors import EXIT_BAD_INPUT, EXIT_TEMPORARY, StorageError
from crosspost.ledger.schema import storage_error
from crosspost.ledger.store import Ledger, PostKey

KEY = PostKey("ai-48", "zhihu", "main")


def test_a_ledger_locked_too_long_is_temporary(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    Ledger.open(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another run, in the middle of a write
    try:
        with Ledger.open(path, busy_timeout=0.05) as ledger, pytest.raises(StorageError) as caught:
            ledger.ensure(KEY)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert caught.value.exit_code == EXIT_TEMPORARY
    assert str(caught.value).startswith(f"{path}: the ledger stayed locked by another")
    with Ledger.open(path) as ledger:  # and once the other run is done, all is well
        assert ledger.ensure(KEY).state == "rendered"


def test_posts_queued_behind_a_lock_timeout_fail_with_it_instead_of_waiting_again(
    tmp_path: Path,
) -> None:
    """Two posts of one run share the ledger: the second must not wait a whole busy
    timeout again after the first gave up (an operator saw 60 s for a 30 s wait)."""
    path = tmp_path / "ledger.sqlite3"
    Ledger.open(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    waited: list[float] = []
    try:
        with Ledger.open(path, busy_timeout=0.3) as ledger:
            for key in (KEY, PostKey("ai-48", "wechat", "main")):
                started = time.monotonic()
                with pytest.raises(StorageError, match="stayed locked"):
                    ledger.ensure(key)
                waited.append(time.monotonic() - started)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert waited[0] >= 0.25 and waited[1] < waited[0] / 3, waited


def test_a_state_dir_deleted_under_a_run_is_one_line_and_nothing_half_written(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    with Ledger.open(state / "ledger.sqlite3") as ledger:
        ledger.ensure(KEY)
        shutil.rmtree(state)
        with pytest.raises(StorageError) as caught:
            ledger.record(KEY, state="draft_created", draft_id="42")
    assert caught.value.exit_code == EXIT_BAD_INPUT
    assert "moved or deleted while crosspost was using it" in str(caught.value)


def test_a_failed_commit_rolls_back_and_reports_the_first_error(tmp_path: Path) -> None:
    """A transaction whose write fails leaves the ledger as it was and says why once."""
    path = tmp_path / "ledger.sqlite3"
    with Ledger.open(path) as ledger:
        ledger.ensure(KEY)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            ledger._db.execute("PRAGMA busy_timeout = 50")
            with pytest.raises(StorageError, match="locked"):
                ledger.record(KEY, state="draft_created", draft_id="42")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        record = ledger.get(KEY)
        assert record is not None and (record.state, record.draft_id) == ("rendered", None)
        assert not ledger._db.in_transaction


def test_frames_kept_alive_elsewhere_do_not_leave_the_ledger_locked(tmp_path: Path) -> None:
    """A profiler sampling threads, or a traceback kept for a report, holds the frames of
    finished calls and with them their cursors. A cursor whose statement still had a row
    to give then made every later COMMIT fail ("SQL statements in progress", shown as a
    lock): a new ledger could not be created, a post not recorded. Here every frame is
    kept until the end, the worst such holder could do."""
    kept: list[FrameType] = []

    def keep(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return":
            kept.append(frame)

    path = tmp_path / "state" / "ledger.sqlite3"
    sys.setprofile(keep)
    try:
        with Ledger.open(path) as ledger:  # created and migrated
            ledger.ensure(KEY)
            ledger.record(KEY, state="draft_created", draft_id="42")
            ledger.record(KEY, state="published", url="https://zhuanlan.zhihu.com/p/1")
        with Ledger.open(path) as ledger:
            record = ledger.get(KEY)
    finally:
        sys.setprofile(None)
    assert kept
    assert record is not None and (record.state, record.url) == (
        "published",
        "https://zhuanlan.zhihu.com/p/1",
    )


def test_bugs_keep_their_traceback(tmp_path: Path) -> None:
    """A broken statement is crosspost's bug, not the machine's: it is not dressed up."""
    with (
        Ledger.open(tmp_path / "ledger.sqlite3") as ledger,
        pytest.raises(sqlite3.OperationalError, match="no such table"),
    ):
        ledger._db.execute("SELECT * FROM nowhere")


def another_user(monkeypatch: pytest.MonkeyPatch) -> str:
    """This process as the kernel would show it to a user who owns none of the test's
    files and shares none of their groups (the cron user after a ``sudo crosspost``)."""
    monkeypatch.setattr(os, "geteuid", lambda: 4242)
    monkeypatch.setattr(os, "getegid", lambda: 4242)
    monkeypatch.setattr(os, "getgroups", lambda: [])
    return "4242"


def test_a_ledger_wal_left_by_another_user_is_named_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite says only "attempt to write a readonly database"; the ledger and its folder
    are writable, so "make the file and its folder writable" sent the operator to the
    wrong place. The line names the -wal a root run left, and how to give it back."""
    path = tmp_path / "ledger.sqlite3"
    Ledger.open(path).close()
    path.chmod(0o666)  # this user's to write, as the folder is
    tmp_path.chmod(0o777)
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as refused:
        reader.execute("CREATE TABLE t (x)")  # SQLite's own error for a file it may not write
    reader.close()
    wal = path.with_name("ledger.sqlite3-wal")
    wal.write_bytes(b"")
    wal.chmod(0o644)  # root's, as sudo left it
    owner = pwd.getpwuid(path.stat().st_uid).pw_name
    user = another_user(monkeypatch)

    error = storage_error(path, refused.value)
    assert error is not None and error.exit_code == EXIT_BAD_INPUT
    assert str(error) == (
        f"{path}: the ledger cannot be written (attempt to write a readonly database); "
        f"ledger.sqlite3-wal belongs to {owner}, not to {user} who runs crosspost now: a "
        f"run as {owner} ('sudo crosspost') left it; give the state dir back to {user} "
        f"(sudo chown -R {user} '{tmp_path}')"
    )


def test_a_lock_file_left_by_another_user_is_named_and_a_home_folder_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    (state / "locks").mkdir(parents=True)
    (state / "ledger.sqlite3").write_bytes(b"")
    lock = state / "locks" / "ai-48.wechat.main.0123456789ab.lock"
    lock.write_bytes(b"")
    lock.chmod(0o644)
    state.chmod(0o777)
    (state / "locks").chmod(0o777)
    owner = pwd.getpwuid(lock.stat().st_uid).pw_name
    user = another_user(monkeypatch)
    denied = PermissionError(errno.EACCES, "Permission denied", str(lock))

    error = StorageError.from_os_error(denied, lock, "a post's lock file")
    assert str(error) == (
        f"{lock}: cannot write a post's lock file (Permission denied); {lock.name} belongs "
        f"to {owner}, not to {user} who runs crosspost now: a run as {owner} ('sudo "
        f"crosspost') left it; give the state dir back to {user} (sudo chown -R {user} "
        f"'{state}')"
    )
    # A home folder that is root's is no run's leftover: the advice stays the usual one.
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    denied = PermissionError(errno.EACCES, "Permission denied", str(home / ".local"))
    assert str(StorageError.from_os_error(denied)).endswith(
        "(Permission denied); make the folder writable for this user, or point "
        "CROSSPOST_STATE_DIR / --state-dir at one that is"
    )
