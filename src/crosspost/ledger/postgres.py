"""The ledger on PostgreSQL: the same tables, rows and guarantees as on SQLite, shared by hosts.

**Why psycopg 3 with a thin dialect layer, not an ORM.** The store already speaks plain
SQL through one method (``execute(sql, params)``), and SQLite and PostgreSQL agree on
nearly all of it (``ON CONFLICT``, ``RETURNING``, ``CHECK``). What differs is small and
fixed: the placeholder (``?`` → ``%s``), three type names, booleans, triggers and two
JSON functions in one old migration. :func:`translate` carries the first four, and
:class:`~crosspost.ledger.schema.PerEngine` the rest, so a migration is written once and
both engines walk the same :data:`~crosspost.ledger.schema.MIGRATIONS`. SQLAlchemy and
Alembic would bring a second schema language, a second migration history and an import
cost to every cron tick for what is here one module. The driver is the ``postgres``
extra, and this module is imported only when a ``postgresql://`` URL is used.

**The same guarantees.** :meth:`PostgresConnection.begin` starts a transaction and takes
one transaction-level advisory lock, so writers queue exactly as behind SQLite's
``BEGIN IMMEDIATE``: a read-then-write (a claim, a state check) never interleaves with
another host's. The connection runs in autocommit otherwise, so a read sees the latest
commit. An intent is committed before :meth:`~crosspost.ledger.store.Ledger.begin`
returns; if the server goes away first, the error stops the run before the platform call.

**Locks across machines.** :class:`AdvisoryLock` holds a session-level advisory lock on a
connection of its own, for the lock's whole life. The server drops it when that
connection ends, however the holder ends (``kill -9`` included), so a dead tick never
leaves a stale lock, as the ``flock`` it replaces.

**The URL's password is a secret.** Every message shows the URL with its password hidden
(:func:`shown`), and psycopg's own messages pass through the same redaction.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from filelock import Timeout

from crosspost.config.redaction import Redactor
from crosspost.errors import ConfigError, StorageError, install_extra, upgrade
from crosspost.ledger.schema import MIGRATIONS, SCHEMA_VERSION, for_engine, is_postgres_url

#: Said when a ``postgresql://`` ledger is asked for on a machine without the driver.
MISSING_DRIVER = (
    "this ledger is on PostgreSQL (a postgresql:// ledger_url, CROSSPOST_LEDGER_URL or "
    f"--to), but its driver, psycopg, is not installed; {install_extra('postgres')} "
    "(nothing was sent)"
)

try:
    import psycopg
    import psycopg.conninfo
except ImportError:  # the ``postgres`` extra is not installed: a setup to fix, not a bug
    raise ConfigError(MISSING_DRIVER) from None

__all__ = ["AdvisoryLock", "PostgresConnection", "connect", "is_postgres_url", "shown"]

#: Seconds to wait for the server before saying it is unreachable.
CONNECT_TIMEOUT = 10
#: The table that says "this database is a crosspost ledger, at this schema version".
META_TABLE = "crosspost_ledger"

_TYPES = (
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b", re.I), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bINTEGER PRIMARY KEY\b", re.I), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
)


def shown(url: str) -> str:
    """The URL as it may appear in a message: host and database, never the password."""
    return Redactor()(url)


def translate(sql: str) -> str:
    """SQLite-flavoured portable SQL as PostgreSQL takes it (see the module docstring).

    ``%`` is doubled because psycopg reads it as a placeholder's start; ``?`` never
    appears in the ledger's SQL other than as a placeholder.
    """
    for pattern, replacement in _TYPES:
        sql = pattern.sub(replacement, sql)
    return sql.replace("%", "%%").replace("?", "%s")


def lock_id(name: str) -> int:
    """A stable signed 64-bit advisory-lock key for ``name`` (the same on every host)."""
    return int.from_bytes(
        hashlib.sha256(f"crosspost:{name}".encode()).digest()[:8], "big", signed=True
    )


_WRITE_LOCK = lock_id("ledger-write")
_MIGRATE_LOCK = lock_id("ledger-migrate")


def _reason(error: BaseException) -> str:
    """The driver's message on one line (libpq's may span several), secrets hidden."""
    return Redactor()(" ".join(str(error).split()) or type(error).__name__)


def unreachable(url: str, error: BaseException) -> StorageError:
    """The one line for a server that cannot be reached or went away (exit 75)."""
    problem = f"{shown(url)}: the PostgreSQL ledger cannot be reached ({_reason(error)})"
    return StorageError(
        f"{problem}; nothing is sent without it. Check that the server runs and the URL is "
        "right, then run again",
        temporary=True,
        problem=problem,
        fix="check that the server runs and the URL is right",
    )


#: How a PostgreSQL URL is written, for the line that says one is not.
URL_FORM = "postgresql://USER@HOST:PORT/DATABASE"
#: The ``sslmode`` values libpq knows (it refuses any other only when connecting).
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


def check_url(url: str, *, host_required: bool = False) -> None:
    """Refuse a URL that no server could make work (ConfigError, exit 2) before any
    connection: libpq's parse (an unknown parameter, an unclosed bracket), a port that is
    not a port, an ``sslmode`` libpq does not know, and with ``host_required`` a URL that
    names no host at all (neither in it, nor ``?host=``, nor PGHOST). Otherwise the driver
    reports these as a failed connection, and a typo would read "try again later"."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as error:
        raise ConfigError(
            f"{shown(url)}: is not a usable PostgreSQL URL ({_reason(error)}); "
            f"write it as {URL_FORM}"
        ) from None
    for port in str(parts.get("port") or "").split(","):
        if port and not (port.isdigit() and 1 <= int(port) <= 65535):
            raise ConfigError(
                f"{shown(url)}: the port {port!r} is not a number from 1 to 65535; write the "
                f"URL as {URL_FORM} (PostgreSQL's port is usually 5432)"
            )
    mode = parts.get("sslmode")
    if mode is not None and mode not in SSL_MODES:
        raise ConfigError(
            f"{shown(url)}: sslmode {mode!r} is not one of {', '.join(SSL_MODES)}; "
            "fix it or leave it out"
        )
    named = parts.get("host") or parts.get("hostaddr")
    if host_required and not (named or os.environ.get("PGHOST") or os.environ.get("PGHOSTADDR")):
        raise ConfigError(
            f"{shown(url)}: names no host, so only this machine's default socket would be "
            f"tried; write it as {URL_FORM} (for a local socket, add ?host=/var/run/postgresql)"
        )


def open_connection(url: str) -> psycopg.Connection[tuple[Any, ...]]:
    """An autocommit connection to ``url``; StorageError (exit 75) when unreachable,
    ConfigError (exit 2) when the URL itself is wrong (:func:`check_url`)."""
    check_url(url)
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.OperationalError as error:
        raise unreachable(url, error) from None
    except psycopg.ProgrammingError as error:  # a URL libpq reads only when connecting
        raise ConfigError(
            f"{shown(url)}: is not a usable PostgreSQL URL ({_reason(error)}); "
            f"write it as {URL_FORM}"
        ) from None


class _Cursor:
    """The rows of one statement, as the store reads them from a SQLite cursor."""

    def __init__(self, cursor: psycopg.Cursor[tuple[Any, ...]], url: str) -> None:
        self._cursor = cursor
        self._url = url

    def fetchone(self) -> Any:
        with _translated(self._url):
            return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        with _translated(self._url):
            return self._cursor.fetchall()


@contextmanager
def _translated(url: str) -> Iterator[None]:
    try:
        yield
    except psycopg.OperationalError as error:
        # The server went away or refused: a machine's trouble, not a bug of ours.
        raise unreachable(url, error) from None


class PostgresConnection:
    """The ledger's connection to PostgreSQL, with the interface of the SQLite one."""

    engine = "postgresql"
    #: Opened to read only (``connect(read_only=True)``): never written, never migrated.
    read_only = False

    def __init__(self, url: str, connection: psycopg.Connection[tuple[Any, ...]]) -> None:
        self.url = url
        self._db = connection

    @property
    def in_transaction(self) -> bool:
        return self._db.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> _Cursor:
        # Booleans are stored as 0/1 on both engines (SQLite has no boolean type).
        values = tuple(int(v) if isinstance(v, bool) else v for v in parameters)
        with _translated(self.url):
            return _Cursor(self._db.execute(translate(sql), values), self.url)

    def begin(self, *, durable: bool = False) -> None:
        """Start a write transaction; writers queue as behind SQLite's BEGIN IMMEDIATE.
        Every commit is durable on PostgreSQL (its own ``synchronous_commit``)."""
        self.execute("BEGIN")
        self.execute(f"SELECT pg_advisory_xact_lock({_WRITE_LOCK})")

    def sync(self) -> None:
        """Nothing to do: every commit is durable on PostgreSQL."""

    def rollback_quietly(self) -> None:
        """Roll back if a transaction is open; a connection already lost has nothing to undo."""
        try:
            if self.in_transaction:
                self._db.execute("ROLLBACK")
        except psycopg.Error:
            pass

    def version(self) -> int:
        row = self.execute(f"SELECT version FROM {META_TABLE}").fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()


def connect(url: str, *, read_only: bool = False) -> PostgresConnection:
    """Open and migrate the ledger at ``url``; safe when several hosts start at once.

    ``read_only``: for a command that only reads: nothing is migrated or written (a role
    that may only SELECT can use it); a ledger of an older schema is refused with a line
    saying how to bring it up to date, since the hosts that write it migrate it anyway.
    """
    connection = PostgresConnection(url, open_connection(url))
    try:
        if read_only:
            _readable(connection)
            connection.read_only = True
        else:
            migrate(connection)
    except BaseException:
        connection.rollback_quietly()
        connection.close()
        raise
    return connection


def migrate(connection: PostgresConnection) -> int:
    """Bring the ledger to :data:`SCHEMA_VERSION`, under a lock so only one host migrates."""
    connection.execute("BEGIN")
    connection.execute(f"SELECT pg_advisory_xact_lock({_MIGRATE_LOCK})")
    version = _checked_version(connection)
    for number in range(version, SCHEMA_VERSION):
        for statement in MIGRATIONS[number]:
            connection.execute(for_engine(statement, "postgresql"))
    if version == 0:
        connection.execute(f"CREATE TABLE {META_TABLE} (version INTEGER NOT NULL)")
        connection.execute(f"INSERT INTO {META_TABLE} (version) VALUES (?)", (SCHEMA_VERSION,))
    else:
        connection.execute(f"UPDATE {META_TABLE} SET version = ?", (SCHEMA_VERSION,))
    connection.execute("COMMIT")
    return SCHEMA_VERSION


def _readable(connection: PostgresConnection) -> None:
    """The version check of :func:`migrate`, reading only."""
    version = _checked_version(connection)
    if version == 0:
        raise ConfigError(
            f"{shown(connection.url)}: holds no crosspost ledger yet; nothing was published with it"
        )
    if version < SCHEMA_VERSION:
        raise ConfigError(
            f"{shown(connection.url)}: the ledger is at schema {version}, older than this "
            f"crosspost's {SCHEMA_VERSION}, and this command only reads; run a command that "
            "writes (publish, run-due) with this crosspost once to bring it up to date, or "
            "read it with the crosspost the other hosts run"
        )


def _checked_version(connection: PostgresConnection) -> int:
    tables = {
        str(name)
        for (name,) in connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
    }
    if META_TABLE not in tables:
        if "posts" in tables or "events" in tables:
            raise ConfigError(
                f"{shown(connection.url)}: this database has tables of its own but is not a "
                "crosspost ledger; give crosspost a database (or schema) of its own"
            )
        return 0
    version = connection.version()
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"{shown(connection.url)}: was written by a newer crosspost (ledger schema "
            f"{version}; this version knows up to {SCHEMA_VERSION}); {upgrade('postgres')}"
        )
    return version


class AdvisoryLock:
    """A session-level advisory lock on a connection of its own (see the module docstring).

    Used like :class:`filelock.FileLock` (``with lock:``), and raising its
    :class:`filelock.Timeout` when another holder keeps it past ``timeout`` seconds, so
    the callers handle both kinds of lock alike. ``timeout`` 0 tries once; a negative one
    waits for as long as it takes.
    """

    def __init__(self, url: str, name: str, *, timeout: float) -> None:
        self.url = url
        self.name = name
        self.timeout = timeout
        self._key = lock_id(name)
        # Each thread holds the lock on a connection of its own: two threads of one run
        # (parallel uploads asking for the token) then exclude each other like two hosts,
        # and one thread's release never closes the session another thread holds it on.
        self._held = threading.local()

    def acquire(self) -> None:
        connection = open_connection(self.url)
        try:
            with _translated(self.url):
                if self.timeout == 0:
                    row = connection.execute(
                        "SELECT pg_try_advisory_lock(%s)", (self._key,)
                    ).fetchone()
                    if not (row and row[0]):
                        raise Timeout(self.name)
                else:
                    waited = max(0, int(self.timeout * 1000)) if self.timeout > 0 else 0
                    connection.execute(f"SET lock_timeout = {waited}")
                    try:
                        connection.execute("SELECT pg_advisory_lock(%s)", (self._key,))
                    except psycopg.errors.LockNotAvailable:
                        raise Timeout(self.name) from None
        except BaseException:
            connection.close()
            raise
        self._held.connection = connection

    def release(self) -> None:
        """Give the lock back by ending its connection (the server releases it with it)."""
        connection = getattr(self._held, "connection", None)
        if connection is not None:
            connection.close()
            self._held.connection = None

    @property
    def is_locked(self) -> bool:
        """Whether the calling thread holds the lock."""
        return getattr(self._held, "connection", None) is not None

    def __enter__(self) -> AdvisoryLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
