"""The ledger on a real PostgreSQL server: what only that engine has to get right.

Opening (a database that is someone else's, a ledger from a newer crosspost, a URL that
is not one, a server that is not there), walking the same migrations as SQLite, the
advisory locks, the shared state, and moving a ledger between the engines in-process.

The driver is imported after :func:`driver_or_skip`, so a machine without it skips this
module with one line instead of failing to collect it.
"""

# ruff: noqa: E402

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from filelock import Timeout

from postgres_server import driver_or_skip

driver_or_skip()

import psycopg

from crosspost.errors import EXIT_BAD_INPUT, EXIT_TEMPORARY, ConfigError, StorageError, UsageError
from crosspost.ledger import moving
from crosspost.ledger.assets import UploadedAsset
from crosspost.ledger.postgres import (
    META_TABLE,
    AdvisoryLock,
    PostgresConnection,
    is_postgres_url,
    lock_id,
    migrate,
    open_connection,
    translate,
)
from crosspost.ledger.schema import MIGRATIONS, SCHEMA_VERSION, for_engine
from crosspost.ledger.store import Ledger, PostKey

KEY = PostKey("ai-systems-48", "wechat", "main")


def test_the_portable_sql_is_translated_for_postgresql() -> None:
    assert translate("id INTEGER PRIMARY KEY, at REAL, n INTEGER, u LIKE '%x%' AND a = ?") == (
        "id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION, n BIGINT, u LIKE '%%x%%' AND a = %s"
    )
    assert is_postgres_url("postgres://x/y") and not is_postgres_url(Path("postgresql:x"))
    assert lock_id("run-due.lock") == lock_id("run-due.lock") != lock_id("post:a")


def test_a_ledger_walks_every_migration_from_any_version(postgres_url: str) -> None:
    """A PostgreSQL ledger made by an older crosspost is brought up to date on opening."""
    connection = PostgresConnection(postgres_url, open_connection(postgres_url))
    for statement in MIGRATIONS[0]:
        connection.execute(for_engine(statement, "postgresql"))
    connection.execute(f"CREATE TABLE {META_TABLE} (version INTEGER NOT NULL)")
    connection.execute(f"INSERT INTO {META_TABLE} (version) VALUES (1)")
    connection.execute(
        "INSERT INTO posts (issue_id, channel, account, state, url, created_at, updated_at) "
        "VALUES ('a', 'wechat', 'main', 'published', ?, 1, 1)",
        ("https://mp.weixin.qq.com/s?tempkey=x",),
    )
    post_id = connection.execute("SELECT id FROM posts").fetchone()[0]
    connection.execute(
        "INSERT INTO events (post_id, step, kind, data, at) VALUES (?, 'draft', 'intent', ?, 1)",
        (post_id, json.dumps({"title": "t", "known_ids": ["m1", "m2", "m3"]})),
    )
    assert migrate(connection) == SCHEMA_VERSION
    connection.close()
    with Ledger.open(postgres_url) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION and ledger.engine == "postgresql"
        record = ledger.post("a", "wechat", "main")
        assert record is not None and record.url is None  # a temporary link is no URL
        assert record.title == "t"  # schema 5: the title its latest intent named
        intent, note = ledger.events(record.key)
        assert dict(intent.data) == {"title": "t", "known_ids_count": 3}
        assert note.data["preview_url"] == "https://mp.weixin.qq.com/s?tempkey=x"


def test_a_schema_6_ledger_learns_what_each_identity_is_a_digest_of(postgres_url: str) -> None:
    """Migration 7 on PostgreSQL: the digests schema 6 kept are of the AppID and the z_c0."""
    connection = PostgresConnection(postgres_url, open_connection(postgres_url))
    for statements in MIGRATIONS[:6]:
        for statement in statements:
            connection.execute(for_engine(statement, "postgresql"))
    connection.execute(f"CREATE TABLE {META_TABLE} (version INTEGER NOT NULL)")
    connection.execute(f"INSERT INTO {META_TABLE} (version) VALUES (6)")
    for channel, identity in (("wechat", "aaaaaaaaaaaaaaaa"), ("zhihu", "bbbbbbbbbbbbbbbb")):
        connection.execute(
            "INSERT INTO posts (issue_id, channel, account, state, account_identity, "
            "created_at, updated_at) VALUES ('a', ?, 'main', 'published', ?, 1, 1)",
            (channel, identity),
        )
    assert migrate(connection) == SCHEMA_VERSION
    connection.close()
    with Ledger.open(postgres_url) as ledger:
        kinds = {p.channel: p.identity_kind for p in ledger.posts("a")}
    assert kinds == {"wechat": "app_id", "zhihu": "z_c0"}


def test_a_ledger_from_a_newer_crosspost_is_refused(postgres_url: str) -> None:
    Ledger.open(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute(f"UPDATE {META_TABLE} SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(ConfigError, match="was written by a newer crosspost") as caught:
        Ledger.open(postgres_url)
    assert caught.value.exit_code == EXIT_BAD_INPUT


def test_a_reader_writes_nothing_and_says_how_to_bring_an_older_ledger_up(
    postgres_url: str,
) -> None:
    """``status`` and the other readers open the shared ledger without migrating it or
    writing a row (a role that may only SELECT can run them)."""
    with Ledger.open(postgres_url) as ledger:
        ledger.ensure(PostKey("ai-48", "wechat", "main"))
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute(f"UPDATE {META_TABLE} SET version = {SCHEMA_VERSION - 1}")
    with pytest.raises(ConfigError) as caught:
        Ledger.open(postgres_url, read_only=True)
    assert str(caught.value).endswith(
        f": the ledger is at schema {SCHEMA_VERSION - 1}, older than this crosspost's "
        f"{SCHEMA_VERSION}, and this command only reads; run a command that writes (publish, "
        "run-due) with this crosspost once to bring it up to date, or read it with the "
        "crosspost the other hosts run"
    )
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute(f"UPDATE {META_TABLE} SET version = {SCHEMA_VERSION}")
        # the row's xmin: any UPDATE, even to the same version, gives it a new one
        before = db.execute(f"SELECT xmin::text, version FROM {META_TABLE}").fetchall()
    with Ledger.open(postgres_url, read_only=True) as reader:
        assert [p.issue_id for p in reader.posts()] == ["ai-48"]
        with pytest.raises(RuntimeError, match="opened to read only"):
            reader.record(PostKey("ai-48", "wechat", "main"), url="https://example.com/")
    with psycopg.connect(postgres_url, autocommit=True) as db:
        assert db.execute(f"SELECT xmin::text, version FROM {META_TABLE}").fetchall() == before


def test_a_database_of_someone_else_is_not_taken_for_a_ledger(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("CREATE TABLE posts (title TEXT)")
    with pytest.raises(ConfigError, match="has tables of its own but is not a crosspost ledger"):
        Ledger.open(postgres_url)


def test_a_server_that_is_not_there_and_a_url_that_is_not_one(tmp_path: Path) -> None:
    url = f"postgresql://crosspost:pa55word-x@/ledger?host={tmp_path}"
    with pytest.raises(StorageError) as caught:
        Ledger.open(url)
    assert caught.value.exit_code == EXIT_TEMPORARY
    assert "pa55word-x" not in str(caught.value) and "crosspost:***@" in str(caught.value)
    with pytest.raises(ConfigError, match="is not a usable PostgreSQL URL"):
        Ledger.open("postgresql://crosspost@/ledger?nonsense_option=1")
    # libpq ends some of its messages with a newline: the error stays one line.
    with pytest.raises(ConfigError) as malformed:
        Ledger.open("postgresql://crosspost:pa55word-x@[unclosed/ledger")
    assert "\n" not in str(malformed.value) and "pa55word-x" not in str(malformed.value)


def test_advisory_locks_wait_give_up_and_go_with_their_connection(postgres_url: str) -> None:
    held = AdvisoryLock(postgres_url, "post:x", timeout=1)
    with held:
        assert held.is_locked
        started = time.monotonic()
        with pytest.raises(Timeout):
            AdvisoryLock(postgres_url, "post:x", timeout=0.2).acquire()
        assert 0.15 < time.monotonic() - started < 5
        with pytest.raises(Timeout):
            AdvisoryLock(postgres_url, "post:x", timeout=0).acquire()
        with AdvisoryLock(postgres_url, "post:y", timeout=0):  # another name: free
            pass
        waiter = AdvisoryLock(postgres_url, "post:x", timeout=-1)
        got = threading.Event()

        def wait() -> None:
            with waiter:
                got.set()

        thread = threading.Thread(target=wait)
        thread.start()
        assert not got.wait(0.3)  # waits as long as it takes …
    thread.join(10)
    assert got.is_set() and not held.is_locked  # … and gets it when the holder lets go


def test_one_lock_object_shared_by_threads_excludes_them_and_frees_each_its_own(
    postgres_url: str,
) -> None:
    """Parallel uploads share one lock object (the token's): the second thread waits for
    the first, and the first thread's release leaves the second's hold alone."""
    shared = AdvisoryLock(postgres_url, "token:x", timeout=5)
    first_in, first_may_go, second_in, second_may_go = (threading.Event() for _ in range(4))

    def first() -> None:
        with shared:
            first_in.set()
            first_may_go.wait(5)

    def second() -> None:
        first_in.wait(5)
        with shared:
            second_in.set()
            second_may_go.wait(5)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    assert first_in.wait(5) and not second_in.wait(0.3)  # the second waits …
    assert not shared.is_locked  # (this thread holds nothing)
    first_may_go.set()
    assert second_in.wait(5)  # … until the first lets go
    with pytest.raises(Timeout):  # and the second still holds it after the first's release
        AdvisoryLock(postgres_url, "token:x", timeout=0).acquire()
    second_may_go.set()
    for thread in threads:
        thread.join(5)
    with AdvisoryLock(postgres_url, "token:x", timeout=0):
        pass


def test_hosts_share_small_documents_through_the_ledger(postgres_url: str) -> None:
    with Ledger.open(postgres_url) as first, Ledger.open(postgres_url) as second:
        assert first.read_shared("wechat-token-x") == {}
        first.write_shared("wechat-token-x", {"access_token": "T1", "expires_at": 5.0})
        assert second.read_shared("wechat-token-x") == {"access_token": "T1", "expires_at": 5.0}
        second.write_shared("wechat-token-x", {"access_token": "T2", "expires_at": 9.0})
        assert first.read_shared("wechat-token-x")["access_token"] == "T2"
        first._db.execute("UPDATE shared_state SET data = 'not json'")
        assert second.read_shared("wechat-token-x") == {}  # damaged: fetched again
        second.delete_shared("wechat-token-x")
        assert first.read_shared("wechat-token-x") == {}
        assert first.shared_lock("wechat-token-x", timeout=1) is not None


def test_a_sqlite_ledger_is_copied_whole_and_again_is_a_no_op(
    tmp_path: Path, postgres_url: str
) -> None:
    with Ledger.open(tmp_path / "ledger.sqlite3") as sqlite:
        assert sqlite.shared_lock("x", timeout=1) is None  # one machine: the files' locks
        sqlite.ensure(KEY, issue_path="/news/48.md", content_hash="h")
        sqlite.begin("create_draft", KEY, {"title": "AI系统前沿动态48"})
        sqlite.finish_step(KEY, "create_draft", state="draft_created", draft_id="M1")
        sqlite.fail(KEY, StorageError("boom", temporary=True), permanent=True)
        sqlite.save_asset("wechat", "main", "sha256:ab", "inline", moving_asset())
        with Ledger.open(postgres_url) as postgres:
            for _ in range(2):
                counts = moving.copy(sqlite, postgres)
                assert [(c.table, c.source, c.target) for c in counts] == [
                    ("posts", 1, 1),
                    ("events", 3, 3),
                    ("assets", 1, 1),
                ]
            assert list(moving.export_lines(postgres)) == list(moving.export_lines(sqlite))
            record = postgres.get(KEY)
            assert record is not None and record.error_permanent is True
            # New rows after a copy get new ids (the sequences moved past the copied ones).
            postgres.note(KEY, "reconcile", "after the move")
            assert postgres.events(KEY)[-1].id == 4
            other = PostKey("ai-systems-49", "zhihu", "main")
            postgres.ensure(other)
            sqlite.ensure(PostKey("ai-systems-50", "zhihu", "main"))
            with pytest.raises(UsageError, match="already holds posts of another ledger"):
                moving.copy(sqlite, postgres)


def moving_asset() -> UploadedAsset:
    return UploadedAsset("https://mmbiz.qpic.cn/1", "MEDIA_1")
