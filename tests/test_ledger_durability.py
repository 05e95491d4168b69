"""Which ledger commits wait for the disk: an intent (written before an irreversible call)
is synced before the call goes out, with every commit before it; the rest of a publish's
commits are not, since losing one to a power cut costs a repeated upload or a reconcile.
Read off SQLite's own statement trace on a real file."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from crosspost.ledger.assets import UploadedAsset
from crosspost.ledger.schema import LedgerConnection
from crosspost.ledger.store import Ledger, PostKey

KEY = PostKey("ai-systems-48", "wechat", "main")


def _levels(ledger: Ledger, write: Callable[[], object]) -> list[str]:
    """The ``synchronous`` level each transaction of ``write()`` committed under."""
    statements: list[str] = []
    db = ledger._db
    assert isinstance(db, LedgerConnection)
    db.set_trace_callback(statements.append)
    try:
        write()
    finally:
        db.set_trace_callback(None)
    level, seen = db.synchronous, []
    for statement in statements:
        if statement.startswith("PRAGMA synchronous = "):
            level = statement.rsplit(" ", 1)[1]
        if statement == "COMMIT":
            seen.append(level)
    return seen


def test_an_intent_commits_durably_and_the_other_writes_do_not(tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "ledger.sqlite3") as ledger:
        # Whatever the previous commit was, each write sets its own level.
        assert _levels(ledger, lambda: ledger.ensure(KEY)) == ["NORMAL"]
        assert _levels(ledger, lambda: ledger.begin("draft", KEY, {"title": "t"})) == ["FULL"]

        def finish() -> None:
            ledger.finish_step(KEY, "draft", state="draft_created", draft_id="m1")

        def save() -> None:
            asset = UploadedAsset(url="https://mmbiz.qpic.cn/x.png")
            ledger.save_asset("wechat", "main", "d" * 64, "inline", asset)

        assert _levels(ledger, finish) == _levels(ledger, save) == ["NORMAL"]
        assert ledger.get(KEY).draft_id == "m1"  # type: ignore[union-attr]
        assert str(ledger._db.execute("PRAGMA synchronous").fetchone()[0]) == "1"  # NORMAL


def test_an_intent_in_a_batch_makes_the_batch_wait_for_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ledger.sqlite3"
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    with Ledger.open(path) as ledger:
        monkeypatch.setattr(os, "fsync", fsync)
        with ledger.transaction():
            ledger.ensure(KEY)
        assert synced == []  # a plain batch does not wait
        with ledger.transaction():
            ledger.ensure(KEY)
            ledger.begin("draft", KEY, {"title": "t"})
        assert synced == [f"{path}-wal"]  # after its commit, the log it went to
        with ledger.transaction(durable=True):  # opened durable: SQLite's own sync
            ledger.begin("draft", KEY, {"title": "t"})
        assert synced == [f"{path}-wal"]
        assert ledger.get(KEY).pending_step == "draft"  # type: ignore[union-attr]
