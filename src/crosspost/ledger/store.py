"""The ledger: what crosspost did, on which platform, under which id — durably.

One row per post (issue × channel × account) holds its state, the platform's ids, the
URL and the hash of what was sent; an append-only event log holds every step's intent
and outcome; an asset table remembers uploaded images. The publisher writes the intent
*before* each irreversible call (:meth:`Ledger.begin`) and the outcome right after
(:meth:`Ledger.finish_step`), so a run killed at any instant leaves enough on disk to
reconcile instead of posting twice.

Nothing secret is stored: every message passes through a redaction hook; intents are
kept verbatim (they are the issue's public text) except values under secret key names.
The hook is by default the adapters' :class:`~crosspost.config.redaction.Redactor`.

The ledger imports only :mod:`crosspost.errors` and :mod:`crosspost.config`: it stores
what the other stages tell it, so none of them is below it.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any

from crosspost.config.redaction import Redactor
from crosspost.errors import ChannelError, IssueError, StorageError, UnconfirmedError
from crosspost.ledger.assets import UploadedAsset
from crosspost.ledger.schema import (
    POST_COLUMNS,
    POST_STATES,
    SCHEMA_VERSION,
    UNREACHED_SQL,
    Event,
    LedgerConnection,
    PostKey,
    PostRecord,
    as_mapping,
    cap,
    clean,
    connect,
    is_postgres_url,
    post_from_row,
)

if TYPE_CHECKING:
    from crosspost.ledger.postgres import PostgresConnection

__all__ = ["POST_STATES", "SCHEMA_VERSION", "Event", "Ledger", "PostKey", "PostRecord"]

Clock = Callable[[], float]
#: Columns only the ledger's own methods set (intents, claims).
_INTERNAL = frozenset({"pending_step", "pending_intent"})
#: Columns a caller may change with :meth:`Ledger.record` (ids, URL, state, retry plan).
CHANGEABLE: frozenset[str] = frozenset(f.name for f in dataclasses.fields(PostRecord)) - {
    "issue_id",
    "channel",
    "account",
    "created_at",
    "updated_at",
    *_INTERNAL,
}


def _json(text: str) -> Mapping[str, Any]:
    return MappingProxyType(json.loads(text))


#: Seconds after a lock timeout in which a transaction that was queued behind it fails
#: with the same error (it would only wait the whole timeout again).
_QUEUED_BEHIND = 5.0


class Ledger:
    """The ledger, on SQLite or PostgreSQL. Use :meth:`open`; close it, or use it as a
    context manager.

    One connection, shared by the publisher's threads behind a lock; across processes
    SQLite's own locking (WAL, ``busy_timeout``, ``BEGIN IMMEDIATE``) keeps writers apart,
    and on PostgreSQL one advisory lock per write transaction does the same across hosts
    (:mod:`crosspost.ledger.postgres`). Every statement goes through ``self._db.execute``
    in the SQL both engines speak. Commands that only report (``status``, ``urls``) use
    the reads and never write.
    """

    def __init__(
        self,
        connection: LedgerConnection | PostgresConnection,
        path: Path | str,
        *,
        clock: Clock = time.time,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self._db = connection
        self.path = path
        self._lock = threading.RLock()
        self.clock = clock
        self.redact: Callable[[str], str] = redact or Redactor()
        self._depth = 0
        #: Whether a durable block joined the open transaction opened without it.
        self._owed = False
        #: The last "stayed locked" error and when it came (monotonic): a post's thread
        #: that queued behind it fails at once instead of waiting the whole busy timeout
        #: again, so a run whose ledger another process holds stops after one wait.
        self._locked_out: tuple[StorageError, float] | None = None

    @classmethod
    def open(
        cls,
        target: Path | str,
        *,
        clock: Clock = time.time,
        redact: Callable[[str], str] | None = None,
        secrets: Iterable[Any] = (),
        busy_timeout: float = 30.0,
        read_only: bool = False,
    ) -> Ledger:
        """Open (creating and migrating as needed); ConfigError naming the file if unusable.

        ``target`` is the SQLite file, or a ``postgresql://`` URL (``Settings.ledger``):
        then the driver is imported, the server's trouble is a StorageError (exit 75),
        and :attr:`path` is the URL with its password hidden.

        ``read_only``: for a command that only reads (``status``, ``urls``, ``ledger
        export``, 往期回顾): nothing is created, migrated or written, so a ledger this user
        may not write (another user's, a read-only mount, a backup) can be read; an older
        schema is read as it is (:mod:`crosspost.ledger.read_only`, which also says what a
        reader sees while a run writes). Writing through it is a bug, refused.

        ``redact`` is the hook every stored message passes through (the adapters' own
        :class:`Redactor`, ideally); without one, a fresh Redactor is used, taught the
        ``secrets`` given (``Secret`` objects or strings: the accounts' credentials).
        """
        if redact is None:
            redactor = Redactor()
            for secret in secrets:
                redactor.register(secret.reveal() if hasattr(secret, "reveal") else str(secret))
            redact = redactor
        if is_postgres_url(target):
            from crosspost.ledger import postgres  # the driver only when it is used

            url = str(target)
            shared = postgres.connect(url, read_only=read_only)
            return cls(shared, postgres.shown(url), clock=clock, redact=redact)
        path = Path(target)
        if read_only:
            from crosspost.ledger.read_only import connect_read_only

            reading = connect_read_only(path, busy_timeout=busy_timeout)
            return cls(reading, path, clock=clock, redact=redact)
        return cls(connect(path, busy_timeout=busy_timeout), path, clock=clock, redact=redact)

    @property
    def read_only(self) -> bool:
        """Opened to read only (``Ledger.open(read_only=True)``)."""
        return self._db.read_only

    @property
    def engine(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self._db.engine

    def shared_lock(self, name: str, *, timeout: float) -> AbstractContextManager[Any] | None:
        """A lock every host using this ledger shares (PostgreSQL), or None on SQLite,
        whose locks are the state dir's files (one machine)."""
        if isinstance(self._db, LedgerConnection):
            return None
        from crosspost.ledger.postgres import AdvisoryLock

        return AdvisoryLock(self._db.url, name, timeout=timeout)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self._db.version()

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

    def draft_ids(
        self,
        channel: str,
        account: str,
        *,
        excluding: PostKey | None = None,
        articles: bool = False,
    ) -> tuple[str, ...]:
        """Every draft id the ledger holds for one account (but ``excluding``'s), oldest
        post first; with ``articles``, each post's article id after its draft id.

        Reconcile asks for these when it settles a lost draft creation, so an older draft
        is never taken for the one in doubt; adoption asks for the articles too, so an
        article recorded as another post is never taken over (a WeChat article's id is
        not its draft's). Asked when needed rather than copied into every intent: a copy
        per intent made the ledger grow with the square of the posts.
        """
        skip = excluding.issue_id if excluding is not None else None
        skip_here = excluding is not None and (excluding.channel, excluding.account) == (
            channel,
            account,
        )
        with self._lock:
            rows = self._db.execute(
                "SELECT issue_id, draft_id, article_id FROM posts WHERE channel = ? "
                "AND account = ? AND (draft_id IS NOT NULL OR article_id IS NOT NULL) "
                "ORDER BY created_at, id",
                (channel, account),
            ).fetchall()
        ids = (
            (draft, article if articles else None)
            for issue, draft, article in rows
            if not (skip_here and issue == skip)
        )
        return tuple(str(i) for pair in ids for i in pair if i is not None)

    def posts_like(self, key: PostKey, *, content_hash: str, title: str) -> tuple[PostRecord, ...]:
        """The posts of ``key``'s account under another issue id whose content hash is
        ``content_hash`` or whose title is ``title``, newest first: the same issue run
        again under a new id, or another issue that shares its title. One statement,
        answered from two indexes (``posts_by_content``, ``posts_by_title``): a UNION,
        because SQLite answers ``content_hash = ? OR title = ?`` from one of them only,
        reading every post of the account."""
        where = "FROM posts WHERE channel = ? AND account = ? AND issue_id != ? AND"
        account = (key.channel, key.account, key.issue_id)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {POST_COLUMNS} {where} content_hash = ? UNION "
                f"SELECT {POST_COLUMNS} {where} title = ? ORDER BY created_at DESC, issue_id",
                (*account, content_hash, *account, title),
            ).fetchall()
        return tuple(post_from_row(row) for row in rows)

    def broadcasts(
        self, channel: str, account: str, since: float, *, identity: str | None = None
    ) -> tuple[PostRecord, ...]:
        """The account's mass sends that went out (or may have) at ``since`` or later:
        what the platform's quota counts (the plan refuses a send past it).

        The platform counts per account, not per name: with ``identity`` (the account's
        ``Account.identity``) a post is the account's when it went to that platform
        account under any name (a name renamed in the config since), or, where the post
        does not say which account it went to (recorded before schema 6), when it has
        this name. A post under this name that went to another account is not counted."""
        mine = "account = ?"
        args: tuple[Any, ...] = (channel, account, since)
        if identity is not None:
            mine = "(account_identity = ? OR (account_identity IS NULL AND account = ?))"
            args = (channel, identity, account, since)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {POST_COLUMNS} FROM posts WHERE channel = ? AND {mine} "
                "AND delivery = 'broadcast' AND mass_status IN ('sending', 'sent') "
                "AND COALESCE(published_at, updated_at) >= ? ORDER BY published_at",
                args,
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

    # --- transactions --------------------------------------------------------------------

    @contextmanager
    def transaction(self, *, durable: bool = False) -> Iterator[Ledger]:
        """All writes inside happen at once or not at all, under SQLite's write lock.

        ``BEGIN IMMEDIATE`` takes the lock at the start, so read-then-write (a claim, a
        state check) cannot interleave with another process. Nests: inner blocks join
        the outer transaction. ``durable``: on the disk when the block ends (an intent,
        see ``LedgerConnection.begin``); a durable block inside one that is not (a batch
        of posts) makes the outer block's commit wait for the disk.
        """
        if self.read_only:  # a command that only reads asked to write: crosspost's bug
            raise RuntimeError(f"{self.path}: the ledger was opened to read only")
        with self._lock:
            if self._depth:
                self._owed = self._owed or durable
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            if self._locked_out and time.monotonic() - self._locked_out[1] < _QUEUED_BEHIND:
                raise self._locked_out[0]
            try:
                self._db.begin(durable=durable)
            except StorageError as error:
                if error.temporary:
                    self._locked_out = (error, time.monotonic())
                raise
            self._depth, self._owed = 1, False
            try:
                yield self
                self._db.execute("COMMIT")
                if self._owed and not durable:
                    self._db.sync()
            except BaseException:
                # The engine may have rolled back already (a full disk, a lost server); the
                # first error is the one to report, never "no transaction is active".
                self._db.rollback_quietly()
                raise
            finally:
                self._depth = 0

    # --- writing -------------------------------------------------------------------------

    def ensure(
        self,
        key: PostKey,
        *,
        issue_path: Path | str | None = None,
        content_hash: str | None = None,
        sends: str | None = None,
        title: str | None = None,
        identity: str | None = None,
        identity_kind: str | None = None,
    ) -> PostRecord:
        """The post's row, created in state ``rendered`` if new; ``title`` (the issue's
        title for the post's channel) is kept on it, for :meth:`posts_like`, and
        ``identity`` (the platform account the post goes to, ``Account.identity``, a
        digest of ``identity_kind``) when the row has none yet: a post stays with the
        account it went to.

        Raises :class:`IssueError` when another file that still exists already claimed
        this issue id (two files, one id); a file that moved just updates the path. A copy
        of the owner, whose post ``sends`` (the content hash of this run) what the row
        already holds, as a second checkout of the same folder does, passes and leaves the
        owner as it is (see :meth:`claimed_by`).
        """
        now = self.clock()
        path = str(Path(issue_path).resolve()) if issue_path is not None else None
        with self.transaction():
            if path is not None:
                self._check_one_file_per_issue(key, path, sends, now)
            found = self.get(key)
            if found is None:
                self._db.execute(
                    "INSERT INTO posts (issue_id, channel, account, state, issue_path, "
                    "content_hash, title, account_identity, identity_kind, created_at, "
                    "updated_at) VALUES (?, ?, ?, 'rendered', ?, ?, ?, ?, ?, ?, ?)",
                    (
                        *(key.issue_id, key.channel, key.account, path, content_hash, title),
                        *(identity, identity_kind if identity else None, now, now),
                    ),
                )
            else:
                # Bookkeeping, not a change of the post: ``updated_at`` stays (a
                # submission's ticket is dated by it).
                changes: dict[str, str | None] = {}
                if title is not None and found.title != title:
                    changes["title"] = title
                if identity is not None and found.account_identity is None:
                    changes["account_identity"] = identity
                    changes["identity_kind"] = identity_kind
                if changes:
                    columns = ", ".join(f"{name} = ?" for name in changes)
                    self._db.execute(
                        f"UPDATE posts SET {columns} "
                        "WHERE issue_id = ? AND channel = ? AND account = ?",
                        (*changes.values(), key.issue_id, key.channel, key.account),
                    )
            record = self.get(key)
        assert record is not None
        return record

    def claim_identity(
        self, key: PostKey, identity: str, kind: str, *, provisional: str
    ) -> tuple[PostRecord, ...]:
        """Say that ``key``'s account name stands for the platform account ``identity``
        (a digest of ``kind``), learned from the platform itself (Zhihu's member, at the
        login check before anything is created), and return the posts of ``key``'s issue
        on its channel, as they stand right after.

        Every post of the name whose account was not known for good is the name's account:
        one with no identity (from before schema 6) or with a ``provisional`` one (a Zhihu
        login: a new login under the same name is the same member), and one nothing of
        which reached the platform yet, whatever account it once named: what it sends
        goes where the name logs in now (the editor may have pasted another person's
        login since). A post that went to another account of that ``kind`` keeps it: it
        went there.

        One transaction: two runs (or two posts of one run) that learn the same account
        under two names see each other's claim, whichever comes second.
        """
        with self.transaction():
            self._db.execute(
                "UPDATE posts SET account_identity = ?, identity_kind = ? "
                "WHERE channel = ? AND account = ? AND (account_identity IS NULL "
                f"OR identity_kind IS NULL OR identity_kind = ? OR ({UNREACHED_SQL}))",
                (identity, kind, key.channel, key.account, provisional),
            )
            return self.posts(key.issue_id, channel=key.channel)

    def as_claimed(
        self, key: PostKey, identity: str, kind: str, *, provisional: str
    ) -> tuple[PostRecord, ...]:
        """The posts of ``key``'s issue on its channel as :meth:`claim_identity` would
        leave them, the ledger left as it is (``--dry-run``): the same rule, in Python."""
        return tuple(
            dataclasses.replace(record, account_identity=identity, identity_kind=kind)
            if record.account == key.account
            and (
                record.account_identity is None
                or record.identity_kind in (None, provisional)
                or not record.reached_platform
            )
            else record
            for record in self.posts(key.issue_id, channel=key.channel)
        )

    def claimed_by(self, key: PostKey, path: Path | str, sends: str | None = None) -> str | None:
        """Another file that still exists and owns ``key``'s issue id, or None.

        A copy of the owner (a second checkout, a backup folder: its post ``sends`` what
        the row already holds) is no other issue, and is not named: nothing of it would
        change the post. A copy does not take the id over either (see :meth:`ensure`).
        """
        resolved = str(Path(path).resolve())
        others = self._other_live_paths(key.issue_id, resolved)
        if not others or self._sends_what_it_holds(key, sends):
            return None
        return others[0]

    def _other_live_paths(self, issue_id: str, path: str) -> list[str]:
        """The files other than ``path`` that the issue id's posts name and that exist."""
        rows = self._db.execute(
            "SELECT DISTINCT issue_path FROM posts WHERE issue_id = ? AND issue_path IS NOT NULL",
            (issue_id,),
        ).fetchall()
        return [other for (other,) in rows if other != path and Path(other).exists()]

    def _sends_what_it_holds(self, key: PostKey, sends: str | None) -> bool:
        mine = self.get(key) if sends is not None else None
        return mine is not None and mine.content_hash == sends

    def _check_one_file_per_issue(
        self, key: PostKey, path: str, sends: str | None, now: float
    ) -> None:
        others = self._other_live_paths(key.issue_id, path)
        if others and not self._sends_what_it_holds(key, sends):
            raise IssueError(
                path,
                f"issue id '{key.issue_id}' is already used by {others[0]}; "
                "give one of them another 'id:' in its front matter",
            )
        # A path that is gone was moved or renamed: its posts follow the file. One that
        # still exists is the owner a copy left alone (its edits must still go out).
        if others:
            return
        self._db.execute(
            "UPDATE posts SET issue_path = ?, updated_at = ? WHERE issue_id = ? "
            "AND (issue_path IS NULL OR issue_path != ?)",
            (path, now, key.issue_id, path),
        )

    def record(self, key: PostKey, **changes: Any) -> PostRecord:
        """Change columns of a post (see :data:`CHANGEABLE`) and return the new row."""
        with self.transaction():
            self._update(key, changes, self.clock())
            record = self.get(key)
        if record is None:
            raise KeyError(f"no post {key} in the ledger; call ensure() first")
        return record

    def begin(self, step: str, key: PostKey, intent: Mapping[str, Any] | Any) -> Event:
        """Durably write that ``step`` is about to run, BEFORE the irreversible call.

        ``intent`` (a mapping or a dataclass such as ``channels.base.Intent``) is what
        reconcile needs later to recognise the call's effect on the platform. It stays
        on the post as ``pending_step``/``pending_intent`` until :meth:`finish_step`.
        """
        data = clean(None, as_mapping(intent))
        with self.transaction(durable=True):
            self._update(
                key,
                {"pending_step": step, "pending_intent": json.dumps(data, ensure_ascii=False)},
                self.clock(),
            )
            return self._append(key, step, "intent", None, "", None, data, verbatim=True)

    def finish_step(
        self,
        key: PostKey,
        step: str,
        *,
        outcome: str = "ok",
        summary: str = "",
        data: Mapping[str, Any] | None = None,
        **changes: Any,
    ) -> PostRecord:
        """Record a step's result and the post's new ids/state in one transaction.

        Clears the pending intent and any earlier error; ``state="published"`` also
        stamps ``published_at``.
        """
        now = self.clock()
        changes = {"error_code": None, "error_message": None, "error_permanent": False, **changes}
        if changes.get("state") == "published":
            changes.setdefault("published_at", now)
            changes.setdefault("next_attempt_at", None)
        with self.transaction():
            self._update(key, {**changes, "pending_step": None, "pending_intent": None}, now)
            self._append(key, step, "outcome", outcome, summary, None, data or {})
            record = self.get(key)
        assert record is not None
        return record

    def fail(
        self,
        key: PostKey,
        error: BaseException | str,
        *,
        permanent: bool,
        next_attempt_at: float | None = None,
        step: str | None = None,
        code: int | str | None = None,
    ) -> PostRecord:
        """Record a failure: state, error code and (redacted) message, one more attempt.

        An :class:`UnconfirmedError` sets state ``unconfirmed`` and keeps the pending
        intent, because reconcile needs it; anything else sets ``failed``.
        """
        if code is None and isinstance(error, ChannelError):
            code = error.code
        unconfirmed = isinstance(error, UnconfirmedError)
        message = cap(self.redact, str(error) or type(error).__name__)
        now = self.clock()
        with self.transaction():
            current = self.get(key)
            if current is None:
                raise KeyError(f"no post {key} in the ledger; call ensure() first")
            changes: dict[str, Any] = {
                "state": "unconfirmed" if unconfirmed else "failed",
                "error_code": None if code is None else str(code),
                "error_message": message,
                "error_permanent": permanent,
                "next_attempt_at": next_attempt_at,
                "attempts": current.attempts + 1,
            }
            if not unconfirmed:
                changes.update(pending_step=None, pending_intent=None)
            self._update(key, changes, now)
            self._append(
                key,
                step or current.pending_step or current.state,
                "outcome",
                "unconfirmed" if unconfirmed else "failed",
                message,
                changes["error_code"],
                {"permanent": permanent, "next_attempt_at": next_attempt_at},
            )
            record = self.get(key)
        assert record is not None
        return record

    def note(
        self, key: PostKey, step: str, summary: str, data: Mapping[str, Any] | None = None
    ) -> Event:
        """Append an event that changes no state (e.g. "reconciled: found draft 42")."""
        with self.transaction():
            return self._append(key, step, "note", None, summary, None, data or {})

    # --- the image cache (crosspost.ledger.assets.AssetStore) ---

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

    def save_asset(
        self, channel: str, account: str, digest: str, kind: str, asset: UploadedAsset
    ) -> None:
        now = self.clock()
        with self.transaction():
            self._db.execute(
                "INSERT INTO assets (channel, account, digest, kind, url, media_id, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT "
                "(channel, account, digest, kind) DO UPDATE SET url = excluded.url, "
                "media_id = excluded.media_id, updated_at = excluded.updated_at",
                (channel, account, digest, kind, asset.url, asset.media_id, now, now),
            )

    # --- state every host shares (crosspost.ledger.assets.SharedState) ---

    def read_shared(self, name: str) -> dict[str, Any]:
        """The document kept under ``name``; empty when there is none (or it is damaged)."""
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM shared_state WHERE name = ?", (name,)
            ).fetchone()
        try:
            data = json.loads(row[0]) if row else {}
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def write_shared(self, name: str, data: Mapping[str, Any]) -> None:
        """Replace the document under ``name`` (atomically: readers see old or new)."""
        with self.transaction():
            self._db.execute(
                "INSERT INTO shared_state (name, data, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET data = excluded.data, "
                "updated_at = excluded.updated_at",
                (name, json.dumps(dict(data)), self.clock()),
            )

    def delete_shared(self, name: str) -> None:
        with self.transaction():
            self._db.execute("DELETE FROM shared_state WHERE name = ?", (name,))

    # --- internals -----------------------------------------------------------------------

    def _update(self, key: PostKey, changes: Mapping[str, Any], now: float) -> None:
        unknown = set(changes) - CHANGEABLE - _INTERNAL
        if unknown:
            raise TypeError(f"the ledger has no post field(s) {sorted(unknown)}")
        if "state" in changes and changes["state"] not in POST_STATES:
            raise ValueError(f"unknown post state {changes['state']!r}; one of {POST_STATES}")
        values = dict(changes)
        if values.get("error_message"):
            values["error_message"] = cap(self.redact, str(values["error_message"]))
        assignments = ", ".join(f"{column} = ?" for column in values)
        self._db.execute(
            f"UPDATE posts SET {assignments}, updated_at = ? WHERE issue_id = ? AND channel = ? "
            "AND account = ?",
            (*values.values(), now, key.issue_id, key.channel, key.account),
        )

    def _append(
        self,
        key: PostKey,
        step: str,
        kind: str,
        outcome: str | None,
        summary: str,
        errcode: str | None,
        data: Mapping[str, Any],
        *,
        verbatim: bool = False,
    ) -> Event:
        row = self._db.execute(
            "SELECT id FROM posts WHERE issue_id = ? AND channel = ? AND account = ?",
            (key.issue_id, key.channel, key.account),
        ).fetchone()
        if row is None:
            raise KeyError(f"no post {key} in the ledger; call ensure() first")
        at = self.clock()
        summary = cap(self.redact, summary)
        payload = json.dumps(clean(None if verbatim else self.redact, data), ensure_ascii=False)
        (event_id,) = self._db.execute(
            "INSERT INTO events (post_id, step, kind, outcome, summary, errcode, data, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (row[0], step, kind, outcome, summary, errcode, payload, at),
        ).fetchone()
        return Event(
            int(event_id),
            key,
            step,
            kind,
            outcome,
            summary,
            errcode,
            MappingProxyType(json.loads(payload)),
            at,
        )
