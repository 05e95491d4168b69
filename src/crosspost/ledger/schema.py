"""The ledger's SQLite schema and migrations, its rows as dataclasses, and opening it safely.

The schema version lives in ``PRAGMA user_version``; ``MIGRATIONS[n]`` takes a ledger
from version ``n`` to ``n + 1``. Migrations only ever append: a released migration is
never edited, so every ledger on every machine walks the same path. ``application_id``
marks the file as ours, so a stray SQLite database given as a ledger is refused instead
of being "migrated".

Every way opening can fail (missing folder without permission, a file that is not a
database, a ledger from a newer crosspost) becomes one :class:`ConfigError` line that
names the file and says what to do. After opening, the connection itself
(:class:`LedgerConnection`) turns SQLite's trouble with the machine — a read-only file, a
full disk, a lock held too long, a file deleted under a running process — into one
:class:`StorageError` line, wherever in the ledger it happens; SQLite's transaction keeps
the ledger as it was before the failed write.

**Two engines, one schema.** The same :data:`MIGRATIONS` build a PostgreSQL ledger
(:mod:`crosspost.ledger.postgres`). A statement is written once, in the SQL both engines
speak (``TEXT``, ``INTEGER``, ``REAL``, ``CHECK``, ``UNIQUE``, ``ON CONFLICT``,
``ALTER TABLE … ADD COLUMN``); the PostgreSQL side maps the few type names that differ
(:func:`crosspost.ledger.postgres.translate`). Only a statement no translation can carry
(a trigger, a JSON function) is given per engine, as :class:`PerEngine`. A new migration
is appended the same way, and both engines walk it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.config.redaction import REDACTED, SENSITIVE_NAMES
from crosspost.errors import ConfigError, StorageError, someone_elses, upgrade

#: "XPST": marks a SQLite file as a crosspost ledger (``PRAGMA application_id``).
APPLICATION_ID = 0x58505354

POST_STATES: tuple[str, ...] = (
    "rendered",
    "assets_uploaded",
    "draft_created",
    "submitted",
    "published",
    "failed",
    "unconfirmed",
)
EVENT_KINDS: tuple[str, ...] = ("intent", "outcome", "note")

_STATES_SQL = ", ".join(f"'{state}'" for state in POST_STATES)
_KINDS_SQL = ", ".join(f"'{kind}'" for kind in EVENT_KINDS)

#: Seconds since the epoch, in SQL (a migration stamps the notes it writes).
_NOW_SQL = "CAST(strftime('%s', 'now') AS REAL)"
#: A link WeChat hands out for a while only (``…&tempkey=…``); see
#: :meth:`crosspost.platforms.base.Platform.is_permanent_url`.
TEMPORARY_URL_SQL = "url LIKE '%tempkey=%'"
#: What a schema-6 post's ``account_identity`` is a digest of (migration 7 keeps it in
#: ``identity_kind``; a reader of a schema-6 ledger shows it the same): each channel's
#: identity credential then, NULL for a post with none.
SCHEMA_6_IDENTITY_KIND_SQL = (
    "CASE WHEN account_identity IS NULL THEN NULL "
    "WHEN channel = 'zhihu' THEN 'z_c0' ELSE 'app_id' END"
)
#: A post nothing of which is, or may be, on its platform: :attr:`PostRecord.reached_platform`
#: false, said in SQL (an empty id is none, as there).
UNREACHED_SQL = (
    "COALESCE(draft_id, '') = '' AND COALESCE(article_id, '') = '' "
    "AND COALESCE(publish_id, '') = '' AND COALESCE(pending_step, '') = '' "
    "AND state NOT IN ('submitted', 'published', 'unconfirmed')"
)
_URL_SET_ASIDE = (
    "published, URL pending: the link recorded was a temporary one (it expires); "
    "the permanent link is asked for again, or record it with crosspost urls --set"
)


@dataclass(frozen=True)
class PerEngine:
    """A migration statement the two engines spell differently (triggers, JSON functions)."""

    sqlite: str
    postgresql: str


Statement = str | PerEngine


def for_engine(statement: Statement, engine: str) -> str:
    """The text of ``statement`` for ``engine`` ("sqlite" or "postgresql")."""
    if isinstance(statement, PerEngine):
        return str(getattr(statement, engine))
    return statement


#: PostgreSQL has no ``RAISE`` in SQL: its triggers call a function.
_PG_APPEND_ONLY_FUNCTION = """
    CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql
    AS $body$ BEGIN RAISE EXCEPTION 'events are append-only'; END $body$
"""


def _append_only(action: str) -> PerEngine:
    return PerEngine(
        sqlite=f"""
        CREATE TRIGGER events_are_append_only_{action.lower()} BEFORE {action} ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END
        """,
        postgresql=f"""
        CREATE TRIGGER events_are_append_only_{action.lower()} BEFORE {action} ON events
        FOR EACH ROW EXECUTE FUNCTION events_are_append_only()
        """,
    )


#: One tuple of statements per schema version; index n migrates version n → n + 1.
MIGRATIONS: tuple[tuple[Statement, ...], ...] = (
    (
        f"""
        CREATE TABLE posts (
            id              INTEGER PRIMARY KEY,
            issue_id        TEXT NOT NULL,
            channel         TEXT NOT NULL,
            account         TEXT NOT NULL,
            state           TEXT NOT NULL CHECK (state IN ({_STATES_SQL})),
            issue_path      TEXT,
            content_hash    TEXT,
            draft_id        TEXT,
            publish_id      TEXT,
            article_id      TEXT,
            url             TEXT,
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL,
            error_code      TEXT,
            error_message   TEXT,
            error_permanent INTEGER NOT NULL DEFAULT 0,
            pending_step    TEXT,
            pending_intent  TEXT,
            created_at      REAL NOT NULL,
            updated_at      REAL NOT NULL,
            published_at    REAL,
            UNIQUE (issue_id, channel, account)
        )
        """,
        "CREATE INDEX posts_by_state ON posts (state, next_attempt_at)",
        f"""
        CREATE TABLE events (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            post_id  INTEGER NOT NULL REFERENCES posts (id) ON DELETE RESTRICT,
            step     TEXT NOT NULL,
            kind     TEXT NOT NULL CHECK (kind IN ({_KINDS_SQL})),
            outcome  TEXT,
            summary  TEXT NOT NULL DEFAULT '',
            errcode  TEXT,
            data     TEXT NOT NULL DEFAULT '{{}}',
            at       REAL NOT NULL
        )
        """,
        "CREATE INDEX events_by_post ON events (post_id, id)",
        # The audit trail is append-only, enforced by the database itself.
        PerEngine(sqlite="SELECT 1", postgresql=_PG_APPEND_ONLY_FUNCTION),
        _append_only("UPDATE"),
        _append_only("DELETE"),
        """
        CREATE TABLE assets (
            channel    TEXT NOT NULL,
            account    TEXT NOT NULL,
            digest     TEXT NOT NULL,
            kind       TEXT NOT NULL,
            url        TEXT NOT NULL,
            media_id   TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (channel, account, digest, kind)
        )
        """,
    ),
    # 1 → 2: a ledger that grows linearly; only permanent URLs are URLs.
    (
        # Draft intents used to list every earlier draft id of the account ("known_ids"),
        # so the trail grew with the square of the posts. Reconcile now asks the ledger
        # for those ids when it needs them; old intents keep only how many there were.
        # The trail stays append-only for everything else: the trigger is back at once.
        PerEngine(
            sqlite="DROP TRIGGER events_are_append_only_update",
            postgresql="DROP TRIGGER events_are_append_only_update ON events",
        ),
        PerEngine(
            sqlite="""
            UPDATE events SET data = json_set(json_remove(data, '$.known_ids'),
                '$.known_ids_count', json_array_length(data, '$.known_ids'))
            WHERE kind = 'intent' AND json_valid(data)
              AND json_type(data, '$.known_ids') = 'array'
              AND json_array_length(data, '$.known_ids') > 1
            """,
            postgresql="""
            UPDATE events SET data = ((data::jsonb - 'known_ids') || jsonb_build_object(
                'known_ids_count', jsonb_array_length(data::jsonb -> 'known_ids')))::text
            WHERE kind = 'intent' AND jsonb_typeof(data::jsonb -> 'known_ids') = 'array'
              AND jsonb_array_length(data::jsonb -> 'known_ids') > 1
            """,
        ),
        _append_only("UPDATE"),
        # A WeChat link with a tempkey expires: it never was the post's URL. The post
        # stays published with its URL pending; the link is kept in a note, as a preview.
        PerEngine(
            sqlite=f"""
            INSERT INTO events (post_id, step, kind, summary, data, at)
            SELECT id, 'url', 'note', '{_URL_SET_ASIDE}', json_object('preview_url', url),
                {_NOW_SQL}
            FROM posts WHERE state = 'published' AND {TEMPORARY_URL_SQL}
            """,
            postgresql=f"""
            INSERT INTO events (post_id, step, kind, summary, data, at)
            SELECT id, 'url', 'note', '{_URL_SET_ASIDE}',
                json_build_object('preview_url', url)::text, extract(epoch FROM now())
            FROM posts WHERE state = 'published' AND {TEMPORARY_URL_SQL}
            """,
        ),
        f"UPDATE posts SET url = NULL WHERE state = 'published' AND {TEMPORARY_URL_SQL}",
    ),
    # 2 → 3: mass sends (WeChat 群发). A broadcast post keeps its send's msg_id in
    # publish_id and msg_data_id in article_id; these say how it was delivered and how
    # the send stands ("sending", "sent", "failed", "deleted").
    (
        "ALTER TABLE posts ADD COLUMN delivery TEXT",
        "ALTER TABLE posts ADD COLUMN mass_status TEXT",
        "CREATE INDEX posts_by_delivery ON posts (channel, account, delivery, published_at)",
    ),
    # 3 → 4: state hosts of one shared ledger must see alike (the WeChat access token, the
    # day's publish-status polls), one small JSON document per name. Used only on
    # PostgreSQL (one machine keeps these as files in its state dir); a cache, so
    # ``ledger export`` and ``ledger migrate`` leave it out.
    (
        """
        CREATE TABLE shared_state (
            name       TEXT PRIMARY KEY,
            data       TEXT NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
    ),
    # 4 → 5: an issue published under one id and run again under another (a file
    # renamed, its 'id:' changed) is recognised by its account's posts of the same
    # content or title (:meth:`crosspost.ledger.store.Ledger.posts_like`), one look-up
    # per index. A post's title was kept only in its intents: the latest one fills it in.
    (
        "ALTER TABLE posts ADD COLUMN title TEXT",
        PerEngine(
            sqlite="""
            UPDATE posts SET title = (
                SELECT json_extract(e.data, '$.title') FROM events e
                WHERE e.post_id = posts.id AND e.kind = 'intent' AND json_valid(e.data)
                  AND json_type(e.data, '$.title') = 'text'
                  AND json_extract(e.data, '$.title') != ''
                ORDER BY e.id DESC LIMIT 1)
            """,
            postgresql="""
            UPDATE posts SET title = (
                SELECT e.data::jsonb ->> 'title' FROM events e
                WHERE e.post_id = posts.id AND e.kind = 'intent'
                  AND jsonb_typeof(e.data::jsonb -> 'title') = 'string'
                  AND e.data::jsonb ->> 'title' != ''
                ORDER BY e.id DESC LIMIT 1)
            """,
        ),
        "CREATE INDEX posts_by_content ON posts (channel, account, content_hash)",
        "CREATE INDEX posts_by_title ON posts (channel, account, title)",
    ),
    # 5 → 6: which platform account each post went to (``Account.identity``, a digest of
    # the AppID or the login), so the same account under another name (renamed in the
    # config, or named twice) is not sent the issue again. Older posts have none: the
    # account their name stands for in the config now, if it is still there, answers.
    ("ALTER TABLE posts ADD COLUMN account_identity TEXT",),
    # 6 → 7: what that digest is of (``identity_kind``): WeChat's AppID names the Official
    # Account for good, but Zhihu's z_c0 cookie names one login, and it changes whenever
    # the editor logs in again; Zhihu's posts now keep the member (``/api/v4/me``) instead.
    # Schema 6 kept the digest of each channel's identity credential then (``app_id``,
    # ``z_c0``): the kinds of the digests already there. A name's next run takes its
    # ``z_c0`` posts for its member (``Ledger.claim_identity``).
    (
        "ALTER TABLE posts ADD COLUMN identity_kind TEXT",
        f"UPDATE posts SET identity_kind = {SCHEMA_6_IDENTITY_KIND_SQL}",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


#: How a PostgreSQL ledger's URL starts; any other ledger is a SQLite file.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: object) -> bool:
    """Whether a ledger location is a PostgreSQL URL (else it is a SQLite file)."""
    return isinstance(target, str) and target.lower().startswith(POSTGRES_SCHEMES)


# --- rows ---------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class PostKey:
    """Which post: one issue on one account of one channel."""

    issue_id: str
    channel: str
    account: str

    def __str__(self) -> str:
        return f"{self.issue_id} → {self.channel}:{self.account}"


@dataclass(frozen=True)
class PostRecord:
    """One post as the ledger knows it. Times are seconds since the epoch."""

    issue_id: str
    channel: str
    account: str
    state: str
    issue_path: str | None
    #: Hash of the rendered content last sent (detects "changed since publishing").
    content_hash: str | None
    #: WeChat draft media_id or Zhihu article id.
    draft_id: str | None
    publish_id: str | None
    article_id: str | None
    url: str | None
    attempts: int
    next_attempt_at: float | None
    error_code: str | None
    error_message: str | None
    error_permanent: bool
    #: The step whose intent was written but whose outcome was not (a crash or a doubt).
    pending_step: str | None
    pending_intent: Mapping[str, Any] | None
    created_at: float
    updated_at: float
    published_at: float | None
    #: "broadcast" when the post was mass sent to the followers (WeChat 群发), else None.
    delivery: str | None = None
    #: How its mass send stands: "sending", "sent", "failed", "deleted" (None: no send).
    mass_status: str | None = None
    #: The post's title as its issue last gave it (the channel's own title, if any).
    title: str | None = None
    #: Which platform account the post went to (``Account.identity``); None: not known
    #: (a post recorded before schema 6).
    account_identity: str | None = None
    #: What ``account_identity`` is a digest of: ``app_id`` (WeChat's Official Account),
    #: ``member`` (Zhihu's member, learned at the login check) or ``z_c0`` (one Zhihu
    #: login: the member's until the login check of the post's run says which member).
    identity_kind: str | None = None

    @property
    def key(self) -> PostKey:
        return PostKey(self.issue_id, self.channel, self.account)

    @property
    def is_published(self) -> bool:
        return self.state == "published"

    @property
    def reached_platform(self) -> bool:
        """Whether something of the post is, or may be, on its platform: a draft, an
        article, a submission or a send, or a call whose answer is not recorded (its
        negation in SQL: :data:`UNREACHED_SQL`)."""
        made = (self.draft_id, self.article_id, self.publish_id, self.pending_step)
        return any(made) or self.state in ("submitted", "published", "unconfirmed")


@dataclass(frozen=True)
class Event:
    """One entry of the append-only audit trail."""

    id: int
    key: PostKey
    step: str
    #: "intent" (written before a call), "outcome" (after it) or "note".
    kind: str
    outcome: str | None
    summary: str
    errcode: str | None
    data: Mapping[str, Any]
    at: float


#: The columns of ``posts`` a PostRecord holds, in its field order.
POST_COLUMNS = ", ".join(f.name for f in dataclasses.fields(PostRecord))


def post_from_row(row: tuple[Any, ...]) -> PostRecord:
    """A ``SELECT POST_COLUMNS`` row as a PostRecord."""
    values = dict(zip(POST_COLUMNS.split(", "), row, strict=True))
    values["error_permanent"] = bool(values["error_permanent"])
    intent = values["pending_intent"]
    values["pending_intent"] = MappingProxyType(json.loads(intent)) if intent else None
    return PostRecord(**values)


def _what_to_do(path: Path) -> str:
    return (
        f"move it aside (mv '{path}' '{path}.broken') and run again to start a fresh ledger, "
        "or restore it from a backup"
    )


# SQLite's primary result codes (the low byte of ``sqlite_errorcode``) that mean trouble
# with the machine rather than a bug in crosspost.
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR = 5, 6, 8, 10
_SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 11, 13, 14, 26
_SQLITE_READONLY_DBMOVED = 1032


def storage_error(path: Path, error: sqlite3.Error) -> StorageError | None:
    """The line a person sees for SQLite's ``error`` on the ledger; None for a bug of ours.

    Constraint violations and SQL mistakes stay exceptions with a traceback: they are
    crosspost's bugs, not the machine's.
    """
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None
    primary = code & 0xFF
    if code == _SQLITE_READONLY_DBMOVED:
        return _moved(path)
    if primary in (_SQLITE_READONLY, _SQLITE_CANTOPEN):
        problem = f"{path}: the ledger cannot be written ({error})"
        foreign = _someone_elses(path)
        if foreign is not None:
            problem = f"{problem}; {foreign[0]}"
            fix = foreign[1]
            return StorageError(f"{problem}; {fix}", temporary=False, problem=problem, fix=fix)
        return StorageError(
            f"{problem}; make the file and its folder writable for this user (SQLite "
            "writes -wal and -shm files beside it), or point CROSSPOST_STATE_DIR / "
            "--state-dir elsewhere",
            temporary=False,
            problem=problem,
            fix="make the file and its folder writable for this user",
        )
    if primary == _SQLITE_FULL:
        problem = f"{path}: the disk holding the ledger is full"
        return StorageError(
            f"{problem}; free some space and run again (the last change was not written, "
            "nothing is half-written)",
            temporary=True,
            problem=problem,
            fix="free some space there",
        )
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        problem = f"{path}: the ledger stayed locked by another crosspost run"
        return StorageError(
            f"{problem}; wait for it to finish and run again",
            temporary=True,
            problem=problem,
            fix="wait for that run to finish",
        )
    if primary == _SQLITE_IOERR:
        problem = f"{path}: the ledger could not be read or written ({error})"
        return StorageError(
            f"{problem}; check the disk (full? unmounted?) and run again",
            temporary=True,
            problem=problem,
            fix="check the disk (full? unmounted?)",
        )
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        problem = f"{path}: the ledger file is damaged ({error})"
        return StorageError(
            f"{problem}; {_what_to_do(path)}",
            temporary=False,
            problem=problem,
            fix="restore it from a backup",
        )
    return None


def _someone_elses(path: Path) -> tuple[str, str] | None:
    """Which of the ledger's files is another user's (see :func:`someone_elses`): SQLite's
    message names neither its ``-wal`` nor its ``-shm``, which a run as root leaves."""
    sidecars = (path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm"))
    return someone_elses((path, *sidecars, path.parent))


def _moved(path: Path) -> StorageError:
    """The line for a ledger file moved or deleted under a running process."""
    problem = f"{path}: the ledger file was moved or deleted while crosspost was using it"
    return StorageError(
        f"{problem}; put it back (or restore the state dir) and run again",
        temporary=False,
        problem=problem,
        fix="put it back (or restore the state dir)",
    )


class _Cursor(sqlite3.Cursor):
    """A cursor whose machine-level errors are :class:`StorageError` lines (see module)."""

    path: Path | None = None
    #: Read as the file stands, without locks (``immutable=1``): see below.
    unlocked = False

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        with _translated(self.path, unlocked=self.unlocked):
            super().execute(sql, parameters)
        return self

    def fetchone(self) -> Any:
        with _translated(self.path, unlocked=self.unlocked):
            return super().fetchone()

    def fetchall(self) -> list[Any]:
        with _translated(self.path, unlocked=self.unlocked):
            return super().fetchall()


class LedgerConnection(sqlite3.Connection):
    """The ledger's connection: every statement's machine-level failure is one line.

    Translating here, where every statement passes, means no caller needs its own
    ``except sqlite3.OperationalError``: a read-only ledger in ``status``, a full disk in
    the middle of a run and a lock held too long all reach the CLI as a
    :class:`StorageError` with exit 2 or 75.
    """

    engine = "sqlite"
    #: Set once the ledger is open: :func:`connect` explains trouble while opening itself.
    path: Path | None = None
    #: (device, inode) of the file when it was opened.
    identity: tuple[int, int] | None = None
    #: The ``synchronous`` level in force (``_configure`` sets NORMAL).
    synchronous = "NORMAL"
    #: Opened to read only (:mod:`crosspost.ledger.read_only`): never written, never migrated.
    read_only = False
    #: Read without locks (``immutable=1``): a run that writes meanwhile may make a read
    #: look damaged, which is then a reason to read again, not to give the ledger up.
    unlocked = False

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        cursor = self.cursor(_Cursor)
        cursor.path = self.path
        cursor.unlocked = self.unlocked
        return cursor.execute(sql, parameters)

    def version(self) -> int:
        """The schema version the ledger is at."""
        return int(self.execute("PRAGMA user_version").fetchone()[0])

    def rollback_quietly(self) -> None:
        """Roll back if a transaction is open; SQLite may have rolled back by itself."""
        if self.in_transaction:
            with suppress(sqlite3.Error, StorageError):
                self.execute("ROLLBACK")

    def begin(self, *, durable: bool = False) -> None:
        """Start a write transaction, once sure the file is still the one that was opened.

        SQLite keeps writing into a ledger deleted (or moved) under a running process, and
        every later write would vanish with it: the next run would not know this one's
        posts. One ``stat`` per transaction catches it before the first such write.

        ``durable``: the commit is on the disk before it returns, and every commit before
        it with it (they share the write-ahead log, synced in order): an intent, written
        before an irreversible call, must survive a power cut. Other commits survive a
        killed process at once and a power cut from the next durable one; losing them
        costs a repeated upload or a reconcile, never a second post. A sync costs
        milliseconds on a real disk, and a publish commits a dozen times.
        """
        level = "FULL" if durable else "NORMAL"
        if level != self.synchronous:  # SQLite takes the level only between transactions
            self.execute(f"PRAGMA synchronous = {level}")
            self.synchronous = level
        if self.path is not None and self.identity is not None:
            try:
                found = self.path.stat()
            except OSError:
                found = None
            if found is None or (found.st_dev, found.st_ino) != self.identity:
                raise _moved(self.path)
        self.execute("BEGIN IMMEDIATE")

    def sync(self) -> None:
        """Put every commit so far on the disk: the write-ahead log synced, the way a
        commit at ``synchronous = FULL`` syncs it (for a durable write that joined a
        transaction opened without it)."""
        if self.path is None:
            return
        try:
            log = os.open(self.path.with_name(self.path.name + "-wal"), os.O_RDONLY)
        except FileNotFoundError:
            return  # no log: every commit is in the file itself already
        try:
            os.fsync(log)
        finally:
            os.close(log)


@contextmanager
def _translated(path: Path | None, *, unlocked: bool = False) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as error:
        translated = None if path is None else storage_error(path, error)
        if translated is None:
            raise
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        if unlocked and path is not None and code == _SQLITE_CORRUPT:
            # Read without locks, the file may have changed under the read (a run's
            # checkpoint): "move it aside" would throw a good ledger away.
            problem = f"{path}: the ledger changed while it was read ({error})"
            translated = StorageError(
                f"{problem}; run the command again (a crosspost run was writing to it)",
                temporary=True,
                problem=problem,
                fix="run the command again",
            )
        raise translated from None


def open_file(target: Path | str, *, busy_timeout: float, uri: bool = False) -> LedgerConnection:
    """A connection to a SQLite ledger file (``target`` a path, or a ``file:`` URI with
    ``uri``) as every ledger connection is made: autocommit (the ledger opens its own
    transactions), usable from a run's threads, SQLite's busy wait set."""
    return sqlite3.connect(
        target,
        uri=uri,
        timeout=busy_timeout,
        isolation_level=None,
        check_same_thread=False,
        factory=LedgerConnection,
    )


def connect(path: Path, *, busy_timeout: float) -> LedgerConnection:
    """Open (creating if needed) and migrate the ledger at ``path``; ConfigError if unusable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"{path.parent}: cannot create the state folder ({error.strerror}); "
            "fix its permissions or set CROSSPOST_STATE_DIR / --state-dir elsewhere"
        ) from None
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder, not a ledger file; move it aside")
    try:
        connection = open_file(path, busy_timeout=busy_timeout)
    except sqlite3.Error as error:
        raise ConfigError(
            f"{path}: cannot open the ledger ({error}); check that the file and its folder "
            "are readable and writable"
        ) from None
    try:
        _configure(connection, busy_timeout)
        migrate(connection, path)
    except sqlite3.DatabaseError as error:
        connection.close()
        translated = storage_error(path, error)
        if translated is not None and translated.temporary:
            raise translated from None
        raise ConfigError(_explain(path, error)) from None
    except BaseException:
        connection.close()
        raise
    # From here on every statement's trouble with the machine is a StorageError line.
    connection.path = path
    opened = path.stat()
    connection.identity = (opened.st_dev, opened.st_ino)
    return connection


def _explain(path: Path, error: sqlite3.DatabaseError) -> str:
    text = str(error)
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"{path}: the ledger file is damaged ({text}); {_what_to_do(path)}"
    if "readonly" in text or "unable to open" in text or "disk I/O" in text:
        foreign = _someone_elses(path)
        if foreign is not None:
            return f"{path}: the ledger cannot be written ({text}); {foreign[0]}; {foreign[1]}"
        return (
            f"{path}: the ledger cannot be written ({text}); check the permissions of the "
            "file and of its folder (SQLite writes a -wal file beside it)"
        )
    if "locked" in text or "busy" in text:
        return (
            f"{path}: the ledger stayed locked by another crosspost run ({text}); "
            "wait for it to finish and run again"
        )
    return f"{path}: the ledger cannot be used ({text}); {_what_to_do(path)}"


def _configure(connection: sqlite3.Connection, busy_timeout: float) -> None:
    # A PRAGMA that answers with a row nobody reads (this one, journal_mode, wal_checkpoint)
    # is closed at once. Its statement stays "in progress" until then, and COMMIT refuses
    # while one is ("SQL statements in progress", which reads as a lock). The cursor is
    # let go at once in the usual run, but a profiler sampling threads or a traceback kept
    # for a report holds the frame that made it, and the next commit failed.
    connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}").close()
    connection.execute("PRAGMA foreign_keys = ON")
    # WAL lets readers (crosspost status) work while a run writes. NORMAL: a commit
    # survives a killed process at once and a power cut from the next durable commit on
    # (``LedgerConnection.begin``), which is what an intent needs.
    _enable_wal(connection, busy_timeout)
    connection.execute("PRAGMA synchronous = NORMAL")


def _enable_wal(connection: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch a new ledger to WAL, waiting out other processes doing the same.

    Changing the journal mode needs the file to itself, and SQLite answers "database is
    locked" at once instead of calling the busy handler, so several processes creating
    the ledger together (eight cron runs at the first tick) would fail. This is a local
    lock wait bounded by ``busy_timeout``, not a retry of anything sent anywhere.
    """
    deadline = time.monotonic() + busy_timeout
    pause = 0.005
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL").close()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def migrate(connection: sqlite3.Connection, path: Path) -> int:
    """Bring the ledger to :data:`SCHEMA_VERSION`; safe when several processes race."""
    version = checked_version(connection, path)
    if version == SCHEMA_VERSION:
        return int(version)
    connection.execute("BEGIN IMMEDIATE")
    try:
        # Read again under the write lock: another process may have migrated meanwhile.
        version = checked_version(connection, path)
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                connection.execute(for_engine(statement, "sqlite"))
        connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    if 0 < version <= _SHRINKS_BEFORE:
        _compact(connection)
    return SCHEMA_VERSION


#: Ledgers of this schema version or older held every draft intent's ``known_ids``: once
#: migrated, most of their pages are free, and the file is rewritten to give them back.
_SHRINKS_BEFORE = 1


def _compact(connection: sqlite3.Connection) -> None:
    """VACUUM once after a migration that freed much of the file (a ledger committed to a
    repository by a CI job shrinks from megabytes to kilobytes). Only a saving: when
    another process holds the ledger, the free pages are simply reused by later writes."""
    free = connection.execute("PRAGMA freelist_count").fetchone()[0]
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    if not pages or free * 4 < pages:
        return
    try:
        connection.execute("VACUUM")
        # In WAL mode the smaller file is written to the -wal first; copy it back now.
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    except sqlite3.OperationalError:
        pass


def checked_version(connection: sqlite3.Connection, path: Path) -> int:
    # One statement, so one snapshot: another process may commit its migration between
    # two separate reads, and a half-seen migration looks like somebody else's database.
    version, application, tables = connection.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), "
        "(SELECT application_id FROM pragma_application_id), "
        "(SELECT count(*) FROM sqlite_master)"
    ).fetchone()
    if application not in (0, APPLICATION_ID) or (application == 0 and tables):
        raise ConfigError(
            f"{path}: is an SQLite database but not a crosspost ledger; point "
            "CROSSPOST_STATE_DIR / --state-dir at another folder or move the file aside"
        )
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"{path}: was written by a newer crosspost (ledger schema {version}; this version "
            f"knows up to {SCHEMA_VERSION}); {upgrade()}"
        )
    return int(version)


# --- what may be written: nothing secret, nothing huge ------------------------------------

_MAX_TEXT = 2000
_SECRET_KEYS = {name.lower() for name in SENSITIVE_NAMES} | {"cookie", "token", "password"}


def cap(redact: Callable[[str], str], text: str) -> str:
    """``text`` redacted and cut to a length fit for a ledger column."""
    text = redact(text)
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def clean(redact: Callable[[str], str] | None, value: Any) -> Any:
    """A JSON-ready copy with secrets hidden: by key name, and inside every string.

    With ``redact=None`` strings are kept verbatim and only values under a secret key
    name are hidden: an intent's title, author and digest are the issue's own public text,
    and reconcile compares them exactly with what the platform holds — a redactor that
    turned "The secret: scaling laws" into "The secret: *** laws" would make reconcile
    miss the draft and create a second one.
    """
    if isinstance(value, Mapping):
        return {
            str(k): REDACTED if str(k).lower() in _SECRET_KEYS else clean(redact, v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [clean(redact, item) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value) if redact is None else cap(redact, str(value))


def as_mapping(intent: Mapping[str, Any] | Any) -> Mapping[str, Any]:
    """An intent given as a mapping or a dataclass (``channels.base.Intent``), as a mapping."""
    if isinstance(intent, Mapping):
        return intent
    if dataclasses.is_dataclass(intent) and not isinstance(intent, type):
        return dataclasses.asdict(intent)
    raise TypeError(f"an intent is a mapping or a dataclass, not {type(intent).__name__}")
