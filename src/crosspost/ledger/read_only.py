"""Opening a SQLite ledger to read it only: ``status``, ``urls``, ``ledger export``, the
往期回顾 of ``render``/``preview``/``check`` and the desk.

Those commands must work where the ledger may not be written: the cron user's ledger
looked at by someone else, a backup copy on read-only media, a state dir mounted
read-only. So nothing is created, migrated or written, not even SQLite's own ``-wal`` and
``-shm`` files (a ``-shm`` left by a reader as root would stop the cron user's next
write): the file is opened with SQLite's ``mode=ro``, and a ledger of an older schema is
read as it is, shown through temporary views in the current schema's shape (the columns
a later migration adds read as NULL, as the migration leaves them for old rows).

**WAL, and what a reader sees while a run writes.** A ledger is in WAL mode: a reader of
a WAL database needs its ``-shm`` (the index of the write-ahead log). When a ``-shm`` is
there (a process has the ledger open, or died with it open), ``mode=ro`` uses it and
reads exactly what a writer would: every committed transaction, the write-ahead log's
included. When there is none, no process has the ledger open and every commit is in the
file itself; opening with ``mode=ro`` would create the ``-wal`` and ``-shm`` and leave
them behind, so the file is opened ``immutable=1`` instead: SQLite reads it without
locks and without looking for a log. That is exact as long as no run starts during the
read. One that does writes its commits to a new ``-wal`` this reader does not see (it
shows the ledger as it was when it opened, a few milliseconds earlier), and in the rare
case that the run also checkpoints its log into the file before the read ends (after
some thousand pages of writes, or when it closes), the reader may see a page changed
under it: a wrong row, or SQLite's "malformed" error, which is then said as "the ledger
changed while it was read; run the command again" (exit 75), never as a damaged ledger
to move aside. Nothing was written by the reader either way. ``immutable=1`` is also
the fallback when ``mode=ro`` cannot be had (the ``-shm`` exists but this user may not
read it): the same caveat holds, and what the running writer has not yet checkpointed is
not shown.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from pathlib import Path

from crosspost.errors import ConfigError
from crosspost.ledger.schema import (
    MIGRATIONS,
    SCHEMA_6_IDENTITY_KIND_SQL,
    SCHEMA_VERSION,
    TEMPORARY_URL_SQL,
    LedgerConnection,
    checked_version,
    for_engine,
    open_file,
    storage_error,
)

#: SQLite result codes (primary) that mean "could not open or use the file as asked".
_CANNOT = {8, 14}  # SQLITE_READONLY, SQLITE_CANTOPEN


def connect_read_only(path: Path, *, busy_timeout: float) -> LedgerConnection:
    """The ledger at ``path`` opened for reading only (see the module docstring);
    ConfigError naming the file when it cannot be read."""
    if not path.is_file():
        raise ConfigError(f"{path}: no ledger there; nothing was published with this state dir")
    shared = path.with_name(f"{path.name}-shm").exists()
    try:
        connection = _open(path, busy_timeout, immutable=not shared)
    except sqlite3.DatabaseError as error:
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        if not shared or code not in _CANNOT or not os.access(path, os.R_OK):
            raise ConfigError(_unreadable(path, error)) from None
        try:  # a -shm this user may not use: read the file as it stands
            connection = _open(path, busy_timeout, immutable=True)
        except sqlite3.DatabaseError as again:
            raise ConfigError(_unreadable(path, again)) from None
    connection.path = path  # from here on, trouble is a StorageError line
    return connection


def _open(path: Path, busy_timeout: float, *, immutable: bool) -> LedgerConnection:
    uri = f"{path.absolute().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    connection = open_file(uri, busy_timeout=busy_timeout, uri=True)
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}").close()
        version = checked_version(connection, path)
        if version == 0:
            raise ConfigError(f"{path}: an empty ledger (nothing was ever recorded in it)")
        if version < SCHEMA_VERSION:
            _as_current(connection, version)
    except BaseException:
        connection.close()
        raise
    connection.read_only = True
    connection.unlocked = immutable
    return connection


def _unreadable(path: Path, error: sqlite3.DatabaseError) -> str:
    translated = storage_error(path, error)
    if translated is not None and "damaged" in str(translated):
        return str(translated)
    return (
        f"{path}: the ledger cannot be read ({error}); make the file readable for this "
        "user (and its folder searchable), or point CROSSPOST_STATE_DIR / --state-dir at a "
        "copy"
    )


@functools.cache
def _current_tables() -> dict[str, tuple[str, ...]]:
    """Each table of the current schema with its columns, as the migrations make them
    (built once in memory, so the shape is never written down a second time)."""
    scratch = sqlite3.connect(":memory:")
    try:
        for statements in MIGRATIONS:
            for statement in statements:
                scratch.execute(for_engine(statement, "sqlite"))
        names = [
            str(row[0])
            for row in scratch.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(row[0]).startswith("sqlite_")
        ]
        return {
            name: tuple(str(r[1]) for r in scratch.execute(f"PRAGMA table_info({name})"))
            for name in names
        }
    finally:
        scratch.close()


def _as_current(connection: sqlite3.Connection, version: int) -> None:
    """Show a ledger of an older schema in the current one's shape, without changing it:
    a temporary view per table that lacks something (SQLite looks for a name in ``temp``
    before ``main``), each missing column NULL, a missing table empty. A link recorded
    before schema 2 that was only a temporary one is no URL, as migration 2 says; a
    schema-6 post's account digest is of its channel's credential, as migration 7 says."""
    for table, wanted in _current_tables().items():
        have = {
            str(row[1]) for row in connection.execute(f"PRAGMA main.table_info({table})").fetchall()
        }
        if set(wanted) <= have and not (table == "posts" and version < 2):
            continue
        columns = []
        for column in wanted:
            if table == "posts" and column == "identity_kind" and "account_identity" in have:
                columns.append(f"{SCHEMA_6_IDENTITY_KIND_SQL} AS {column}")  # migration 7's
            elif column not in have:
                columns.append(f"NULL AS {column}")
            elif table == "posts" and column == "url" and version < 2:
                when = f"state = 'published' AND {TEMPORARY_URL_SQL}"
                columns.append(f"CASE WHEN {when} THEN NULL ELSE url END AS url")
            else:
                columns.append(column)
        source = f"FROM main.{table}" if have else "WHERE 0"
        connection.execute(f"CREATE TEMP VIEW {table} AS SELECT {', '.join(columns)} {source}")
