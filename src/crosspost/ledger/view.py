"""The reading half of the ledger: posts, their audit trail and the image cache, as read.

:class:`~crosspost.ledger.store.Ledger` adds every write to it. Commands that only report
(``status``, ``urls``) need nothing more than what is here.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.images.pipeline import UploadedAsset
from crosspost.ledger.schema import POST_COLUMNS, Event, PostKey, PostRecord, post_from_row


def _json(text: str) -> Mapping[str, Any]:
    return MappingProxyType(json.loads(text))


class LedgerView:
    """Reads of one ledger connection, each under the connection's lock."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self._lock = threading.RLock()

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    @property
    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    # --- reading -------------------------------------------------------------------------

    def post(self, issue_id: str, channel: str, account: str) -> PostRecord | None:
        """The post for (issue, channel, account), or None if nothing was recorded yet."""
        return self.get(PostKey(issue_id, channel, account))

    def get(self, key: PostKey) -> PostRecord | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {POST_COLUMNS} FROM posts WHERE issue_id = ? AND channel = ? "
                "AND account = ?",
                (key.issue_id, key.channel, key.account),
            ).fetchone()
        return post_from_row(row) if row else None

    def posts(
        self, issue_id: str | None = None, *, channel: str | None = None, state: str | None = None
    ) -> tuple[PostRecord, ...]:
        """Posts, optionally of one issue / channel / state, oldest first."""
        where, args = [], []
        for column, value in (("issue_id", issue_id), ("channel", channel), ("state", state)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {POST_COLUMNS} FROM posts{clause} ORDER BY created_at, id", args
            ).fetchall()
        return tuple(post_from_row(row) for row in rows)

    def events(self, key: PostKey | None = None) -> tuple[Event, ...]:
        """The audit trail, oldest first: of one post, or all of it."""
        sql = (
            "SELECT e.id, p.issue_id, p.channel, p.account, e.step, e.kind, e.outcome, "
            "e.summary, e.errcode, e.data, e.at FROM events e JOIN posts p ON p.id = e.post_id"
        )
        args: tuple[str, ...] = ()
        if key is not None:
            sql += " WHERE p.issue_id = ? AND p.channel = ? AND p.account = ?"
            args = (key.issue_id, key.channel, key.account)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY e.id", args).fetchall()
        return tuple(
            Event(r[0], PostKey(r[1], r[2], r[3]), r[4], r[5], r[6], r[7], r[8], _json(r[9]), r[10])
            for r in rows
        )

    # --- the image cache (crosspost.images.pipeline.AssetStore) ---

    def find_asset(
        self, channel: str, account: str, digest: str, kind: str
    ) -> UploadedAsset | None:
        with self._lock:
            row = self._db.execute(
                "SELECT url, media_id FROM assets WHERE channel = ? AND account = ? "
                "AND digest = ? AND kind = ?",
                (channel, account, digest, kind),
            ).fetchone()
        return UploadedAsset(url=row[0], media_id=row[1]) if row else None
