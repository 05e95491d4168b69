"""The ledger on real SQLite files and a real PostgreSQL server: what survives a crash, who
wins a race, what is never stored. Tests taking ``ledger`` or ``ledger_target`` run on both
engines (``tests/conftest.py``); those taking ``path`` are about SQLite's file."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from crosspost.config.settings import Secret
from crosspost.errors import (
    EXIT_BAD_INPUT,
    ConfigError,
    IssueError,
    PermanentError,
    TransientError,
    UnconfirmedError,
)
from crosspost.ledger.assets import AssetStore, UploadedAsset
from crosspost.ledger.schema import APPLICATION_ID, SCHEMA_VERSION
from crosspost.ledger.store import Ledger, PostKey

KEY = PostKey("ai-systems-48", "wechat", "main")


class Clock:
    """A clock tests move by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "ledger.sqlite3"


@pytest.fixture
def ledger(ledger_target: Path | str, clock: Clock) -> Iterator[Ledger]:
    with Ledger.open(ledger_target, clock=clock) as opened:
        yield opened


def raw_bytes(path: Path) -> bytes:
    """Everything SQLite keeps for this ledger on disk (the file and its WAL)."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


# --- opening, schema, durability -------------------------------------------------------------


def test_a_fresh_ledger_is_created_migrated_and_in_wal_mode(path: Path, clock: Clock) -> None:
    with Ledger.open(path, clock=clock) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION
        assert ledger.journal_mode == "wal"
        assert ledger.posts() == ()
    assert path.is_file()


def test_an_empty_file_is_migrated(path: Path, clock: Clock) -> None:
    path.parent.mkdir(parents=True)
    path.touch()
    with Ledger.open(path, clock=clock) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION


def test_reopening_keeps_everything(ledger_target: Path | str, clock: Clock) -> None:
    with Ledger.open(ledger_target, clock=clock) as ledger:
        ledger.ensure(KEY, content_hash="h1")
        ledger.finish_step(
            KEY, "publish", state="published", url="https://mp.weixin.qq.com/s/abc", article_id="a1"
        )
    with Ledger.open(ledger_target, clock=clock) as again:
        record = again.get(KEY)
        assert record is not None
        assert (record.state, record.url, record.published_at) == (
            "published",
            "https://mp.weixin.qq.com/s/abc",
            clock.now,
        )
        assert [e.step for e in again.events(KEY)] == ["publish"]


def test_foreign_keys_and_busy_timeout_are_on(path: Path) -> None:
    db = Ledger.open(path)._db
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000


CORRUPT = [
    (b"this is not a database, it is a grocery list\n" * 100, "the ledger file is damaged"),
    (b"SQLite format 3\x00" + b"\xff" * 4000, "the ledger file is damaged"),
]


@pytest.mark.parametrize(("content", "message"), CORRUPT)
def test_a_corrupt_ledger_is_one_clear_line(path: Path, content: bytes, message: str) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        Ledger.open(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: {message}")
    assert f"mv '{path}' '{path}.broken'" in text and "restore it from a backup" in text
    assert caught.value.exit_code == EXIT_BAD_INPUT


def test_a_ledger_from_a_newer_crosspost_is_refused(path: Path) -> None:
    Ledger.open(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(ConfigError) as caught:
        Ledger.open(path)
    assert str(caught.value) == (
        f"{path}: was written by a newer crosspost (ledger schema {SCHEMA_VERSION + 1}; this "
        f"version knows up to {SCHEMA_VERSION}); upgrade crosspost (in its checkout: git pull, "
        "then .venv/bin/pip install .)"
    )


def test_some_other_sqlite_database_is_not_taken_for_a_ledger(path: Path) -> None:
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE photos (name TEXT)")
    with pytest.raises(ConfigError, match="is an SQLite database but not a crosspost ledger"):
        Ledger.open(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID


def test_an_unusable_state_folder_is_one_clear_line(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state folder should be")
    with pytest.raises(ConfigError) as caught:
        Ledger.open(blocker / "ledger.sqlite3")
    assert str(caught.value).startswith(f"{blocker}: cannot create the state folder")
    assert "CROSSPOST_STATE_DIR" in str(caught.value)


INTENT_THEN_WAIT = """
import sys, time
from crosspost.ledger.store import Ledger, PostKey
ledger = Ledger.open(sys.argv[1], clock=lambda: 1700000000.0)
key = PostKey("ai-systems-48", "wechat", "main")
ledger.ensure(key, content_hash="h1")
ledger.begin("create_draft", key, {"title": "AI系统前沿动态48", "known_ids": ["m1"]})
print("intent written", flush=True)
time.sleep(600)  # the irreversible call would be here; the test kills us first
"""


@pytest.mark.slow
def test_an_intent_survives_a_process_killed_right_after_writing_it(
    ledger_target: Path | str,
) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(INTENT_THEN_WAIT), str(ledger_target)],
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "intent written"
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
    assert child.returncode == -signal.SIGKILL
    with Ledger.open(ledger_target) as ledger:
        record = ledger.get(KEY)
        assert record is not None
        assert record.pending_step == "create_draft"
        assert record.pending_intent == {"title": "AI系统前沿动态48", "known_ids": ["m1"]}
        (event,) = ledger.events(KEY)
        assert (event.kind, event.step) == ("intent", "create_draft")


# --- concurrency ----------------------------------------------------------------------------


def test_threads_share_one_ledger(ledger: Ledger) -> None:
    keys = [PostKey(f"issue-{n}", "zhihu", "main") for n in range(20)]

    def work(key: PostKey) -> None:
        ledger.ensure(key)
        ledger.begin("create_draft", key, {"title": key.issue_id})
        ledger.finish_step(key, "create_draft", state="draft_created", draft_id=key.issue_id)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(work, keys))
    assert {p.draft_id for p in ledger.posts(state="draft_created")} == {k.issue_id for k in keys}


def test_a_failed_transaction_leaves_nothing(ledger: Ledger) -> None:
    ledger.ensure(KEY)
    with pytest.raises(RuntimeError), ledger.transaction():
        ledger.record(KEY, state="draft_created", draft_id="m1")
        raise RuntimeError("crash between two writes")
    record = ledger.get(KEY)
    assert record is not None and (record.state, record.draft_id) == ("rendered", None)


# --- the publisher's steps ------------------------------------------------------------------


def test_steps_write_intent_then_outcome(ledger: Ledger, clock: Clock) -> None:
    ledger.ensure(KEY, issue_path="/tmp/issue.md", content_hash="h1")
    ledger.begin("create_draft", KEY, {"title": "AI系统前沿动态48"})
    clock.now += 2
    record = ledger.finish_step(
        KEY, "create_draft", state="draft_created", draft_id="MEDIA_1", summary="draft MEDIA_1"
    )
    assert (record.state, record.draft_id, record.pending_step) == (
        "draft_created",
        "MEDIA_1",
        None,
    )
    assert [(e.kind, e.step, e.outcome, e.summary) for e in ledger.events(KEY)] == [
        ("intent", "create_draft", None, ""),
        ("outcome", "create_draft", "ok", "draft MEDIA_1"),
    ]
    assert record.updated_at == clock.now


def test_an_unconfirmed_call_keeps_its_intent_for_reconcile(ledger: Ledger) -> None:
    ledger.ensure(KEY)
    ledger.begin("submit", KEY, {"draft_id": "MEDIA_1"})
    error = UnconfirmedError("connection reset after sending freepublish/submit", channel="wechat")
    record = ledger.fail(KEY, error, permanent=False)
    assert (record.state, record.pending_step) == ("unconfirmed", "submit")
    assert record.pending_intent == {"draft_id": "MEDIA_1"}
    assert ledger.events(KEY)[-1].outcome == "unconfirmed"


def test_failures_plan_the_next_attempt_and_permanent_ones_wait(
    ledger: Ledger, clock: Clock
) -> None:
    later = PostKey("ai-systems-48", "zhihu", "main")
    for key in (KEY, later):
        ledger.ensure(key)
    ledger.fail(
        KEY, TransientError("HTTP 503", code=503), permanent=False, next_attempt_at=clock.now + 300
    )
    ledger.fail(later, PermanentError("40164 IP not whitelisted", code=40164), permanent=True)
    waiting = ledger.get(KEY)
    assert waiting is not None and not waiting.error_permanent
    assert (waiting.next_attempt_at, waiting.attempts, waiting.error_code) == (
        clock.now + 300,
        1,
        "503",
    )
    again = ledger.fail(KEY, TransientError("HTTP 503", code=503), permanent=False)
    assert again.attempts == 2
    stopped = ledger.get(later)
    assert stopped is not None and stopped.error_permanent and stopped.state == "failed"


def test_two_files_claiming_one_issue_id_are_stopped(ledger: Ledger, tmp_path: Path) -> None:
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("x")
    second.write_text("y")
    ledger.ensure(KEY, issue_path=first)
    with pytest.raises(IssueError) as caught:  # even for a channel the first never posted to
        ledger.ensure(PostKey(KEY.issue_id, "zhihu", "main"), issue_path=second)
    assert str(caught.value) == (
        f"{second}: issue id 'ai-systems-48' is already used by {first}; "
        "give one of them another 'id:' in its front matter"
    )
    assert ledger.post(KEY.issue_id, "zhihu", "main") is None
    # A copy that sends what the post holds (a second checkout) is the same issue, and
    # leaves the post to its file: the owner's edits still go out, the copy's do not.
    ledger.record(KEY, content_hash="h1")
    with pytest.raises(IssueError):
        ledger.ensure(KEY, issue_path=second, sends="h2")
    assert ledger.ensure(KEY, issue_path=second, sends="h1").issue_path == str(first)
    assert ledger.claimed_by(KEY, second, "h1") is None
    assert ledger.claimed_by(KEY, second, "h2") == str(first)
    assert ledger.ensure(KEY, issue_path=first, sends="h2").issue_path == str(first)
    first.unlink()  # the file was renamed: that is a move, not a clash
    assert ledger.ensure(PostKey(KEY.issue_id, "zhihu", "main"), issue_path=second)
    assert {p.issue_path for p in ledger.posts(KEY.issue_id)} == {str(second)}


def test_events_are_append_only(ledger: Ledger) -> None:
    ledger.ensure(KEY)
    ledger.note(KEY, "reconcile", "found draft MEDIA_1 on the platform")
    for statement in ("UPDATE events SET summary = 'edited'", "DELETE FROM events"):
        # The database refuses (sqlite3.IntegrityError, psycopg's RaiseException).
        with pytest.raises(Exception, match="events are append-only"):
            ledger._db.execute(statement)
    assert [e.summary for e in ledger.events(KEY)] == ["found draft MEDIA_1 on the platform"]


def test_unknown_fields_and_states_are_bugs_not_silence(ledger: Ledger) -> None:
    ledger.ensure(KEY)
    with pytest.raises(TypeError, match="no post field"):
        ledger.record(KEY, mediaid="m1")
    with pytest.raises(ValueError, match="unknown post state"):
        ledger.record(KEY, state="done")


def test_posts_filter_by_issue_and_channel(ledger: Ledger, clock: Clock) -> None:
    for n, (issue, channel) in enumerate([("a", "wechat"), ("a", "zhihu"), ("b", "wechat")]):
        clock.now += n
        ledger.ensure(PostKey(issue, channel, "main"))
    assert [p.channel for p in ledger.posts("a")] == ["wechat", "zhihu"]
    assert [p.issue_id for p in ledger.posts(channel="wechat")] == ["a", "b"]
    assert ledger.post("b", "zhihu", "main") is None


def test_an_accounts_posts_of_the_same_content_or_title_are_found_under_other_ids(
    ledger: Ledger, clock: Clock
) -> None:
    """What an issue run again under a new id is recognised by (``publish.same_issue``):
    the account's posts under other ids that hold the same content or title, newest first;
    never the post itself, another account's or another channel's."""
    rows = [
        ("old", "wechat", "main", "h1", "第1期"),
        ("titled", "wechat", "main", "h0", "第2期"),
        ("new", "wechat", "main", "h2", "第2期"),
        ("other-account", "wechat", "second", "h1", "第1期"),
        ("other-channel", "zhihu", "main", "h1", "第1期"),
    ]
    for issue, channel, account, digest, title in rows:
        clock.now += 1
        key = PostKey(issue, channel, account)
        ledger.ensure(key, title=title)
        ledger.record(key, content_hash=digest)
    new = PostKey("new", "wechat", "main")
    like = ledger.posts_like(new, content_hash="h1", title="第2期")
    assert [p.issue_id for p in like] == ["titled", "old"]
    assert ledger.posts_like(new, content_hash="h2", title="第3期") == ()
    ledger.ensure(PostKey("old", "wechat", "main"), title="第1期(修订)")  # the issue's latest
    assert [p.title for p in ledger.posts_like(new, content_hash="h1", title="")] == ["第1期(修订)"]


def test_the_look_for_an_issue_under_another_id_reads_two_indexes(path: Path) -> None:
    """One statement per new post, answered from an index for each half of it: never a
    read of every post of the account (a publish costs the same in a year's ledger)."""
    with Ledger.open(path) as ledger:
        for n in range(200):
            ledger.ensure(PostKey(f"issue-{n}", "wechat", "main"), title=f"第{n}期")
        said: list[str] = []
        ledger._db.set_trace_callback(said.append)
        ledger.posts_like(PostKey("new", "wechat", "main"), content_hash="h", title="第7期")
        ledger._db.set_trace_callback(None)
        (statement,) = [s for s in said if "content_hash = " in s]
        plan = " ".join(row[3] for row in ledger._db.execute(f"EXPLAIN QUERY PLAN {statement}"))
    assert "INDEX posts_by_content (channel=? AND account=? AND content_hash=?)" in plan
    assert "INDEX posts_by_title (channel=? AND account=? AND title=?)" in plan
    assert "SCAN posts" not in plan


# --- secrets ----------------------------------------------------------------------------------


def test_no_secret_reaches_the_file(path: Path, clock: Clock) -> None:
    app_secret = Secret("f3e1d2c4b5a697887766554433221100")
    with Ledger.open(path, clock=clock, secrets=[app_secret]) as ledger:
        ledger.ensure(KEY)
        ledger.begin(
            "create_draft",
            KEY,
            {
                "title": "The secret: scaling laws",
                "access_token": "TOKEN_abc123xyz",
                "cookie": "z_c0=2|1:0|10:1700000000|4:z_c0",
                "secret": app_secret,
            },
        )
        begun = ledger.get(KEY)
        assert begun is not None and begun.pending_intent is not None
        assert begun.pending_intent["title"] == "The secret: scaling laws"  # verbatim
        ledger.note(
            KEY,
            "reconcile",
            "asked https://api.weixin.qq.com/cgi-bin/draft/batchget?access_token=TOKEN_abc123xyz",
            {"url": "https://api.weixin.qq.com/cgi-bin/draft/add?access_token=TOKEN_abc123xyz"},
        )
        ledger.fail(
            KEY,
            PermanentError(
                f"40125 invalid appsecret {app_secret.reveal()} (GET /cgi-bin/token?"
                f"appid=wx1&secret={app_secret.reveal()})",
                code=40125,
            ),
            permanent=True,
        )
        record = ledger.get(KEY)
        assert record is not None and record.error_message is not None
        assert record.error_message.startswith("40125 invalid appsecret ***")
    stored = raw_bytes(path)
    for secret in (app_secret.reveal(), "TOKEN_abc123xyz", "1700000000"):
        assert secret.encode() not in stored


# --- the image cache --------------------------------------------------------------------------


def test_the_ledger_is_the_image_cache(ledger_target: Path | str, clock: Clock) -> None:
    with Ledger.open(ledger_target, clock=clock) as ledger:
        store: AssetStore = ledger
        assert store.find_asset("wechat", "main", "sha256:ab", "inline") is None
        store.save_asset("wechat", "main", "sha256:ab", "inline", UploadedAsset("https://mmbiz/1"))
        store.save_asset(
            "wechat", "main", "sha256:ab", "cover", UploadedAsset("https://mmbiz/2", "M2")
        )
        store.save_asset("wechat", "main", "sha256:ab", "inline", UploadedAsset("https://mmbiz/1"))
    with Ledger.open(ledger_target, clock=clock) as again:
        assert again.find_asset("wechat", "main", "sha256:ab", "inline") == UploadedAsset(
            "https://mmbiz/1"
        )
        assert again.find_asset("wechat", "main", "sha256:ab", "cover") == UploadedAsset(
            "https://mmbiz/2", "M2"
        )
        assert again.find_asset("wechat", "backup", "sha256:ab", "inline") is None
        assert again._db.execute("SELECT count(*) FROM assets").fetchone()[0] == 2


def test_a_folder_where_the_ledger_file_should_be(path: Path) -> None:
    path.mkdir(parents=True)
    with pytest.raises(ConfigError, match="is a folder, not a ledger file; move it aside"):
        Ledger.open(path)


def _ensure_in_process(path: str, start: object, results: object) -> None:
    start.wait()  # type: ignore[attr-defined]
    try:
        with Ledger.open(path) as ledger:
            record = ledger.ensure(KEY, issue_path="/newsletter/issue.md")
            ledger.note(KEY, "test", f"process {os.getpid()} was here")
            results.put(record.state)  # type: ignore[attr-defined]
    except Exception as error:  # the test reports it; a crash must not pass silently
        results.put(f"error: {error!r}")  # type: ignore[attr-defined]


def test_eight_processes_writing_one_post_at_once_make_one_row(
    ledger_target: Path | str,
) -> None:
    """WAL, busy_timeout and BEGIN IMMEDIATE keep concurrent publishers' writes apart (on
    PostgreSQL, the write transaction's advisory lock)."""
    path = ledger_target
    context = multiprocessing.get_context("fork")
    start, results = context.Event(), context.Queue()
    processes = [
        context.Process(target=_ensure_in_process, args=(str(path), start, results))
        for _ in range(8)
    ]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(timeout=60)
    outcomes = [results.get(timeout=5) for _ in processes]
    assert outcomes == ["rendered"] * 8, outcomes
    with Ledger.open(path) as ledger:
        assert len(ledger.posts()) == 1
        assert len(ledger.events(KEY)) == 8


def test_a_name_claims_its_posts_of_a_provisional_login_for_the_member_it_logs_in_as(
    ledger: Ledger,
) -> None:
    """A Zhihu name's posts kept a login's digest (or none); the member the login check
    found takes them all, under that name only, and the issue's posts come back as they
    stand right after (both engines)."""
    first, second = PostKey("i1", "zhihu", "main"), PostKey("i2", "zhihu", "main")
    other = PostKey("i1", "zhihu", "other")
    ledger.ensure(first, identity="1111111111111111", identity_kind="z_c0")
    ledger.ensure(second)  # from before the ledger kept accounts
    ledger.ensure(other, identity="2222222222222222", identity_kind="z_c0")
    swapped = PostKey("i3", "zhihu", "main")
    ledger.ensure(swapped, identity="3333333333333333", identity_kind="member")
    ledger.record(swapped, state="published", article_id="42", url="https://z/p/42")
    # Made for another member, nothing of it sent: it goes where the name logs in now.
    unsent = PostKey("i4", "zhihu", "main")
    ledger.ensure(unsent, identity="4444444444444444", identity_kind="member")
    ledger.record(unsent, state="failed")

    posts = ledger.claim_identity(first, "abcdabcdabcdabcd", "member", provisional="z_c0")
    assert [(p.account, p.account_identity, p.identity_kind) for p in posts] == [
        ("main", "abcdabcdabcdabcd", "member"),
        ("other", "2222222222222222", "z_c0"),  # another name: its own run says
    ]
    kept = {p.issue_id: (p.account_identity, p.identity_kind) for p in ledger.posts()}
    assert kept["i2"] == ("abcdabcdabcdabcd", "member")
    assert kept["i3"] == ("3333333333333333", "member"), "it went to another member"
    assert kept["i4"] == ("abcdabcdabcdabcd", "member"), "it goes to this one"


def test_two_hosts_claiming_one_member_under_two_names_never_both_miss_the_other(
    ledger_target: Path | str, clock: Clock
) -> None:
    """Two cron hosts (a ledger each, one file or server) log in as one member under two
    names at once: the claim and the read after it are one transaction, so the second
    always sees the first's claim (both engines); a refusal needs only that."""
    rounds = 12
    seen: dict[str, list[bool]] = {"main": [], "second": []}
    opened = {name: Ledger.open(ledger_target, clock=clock) for name in seen}
    try:
        for round_ in range(rounds):
            member = f"{round_:016x}"
            keys = {name: PostKey(f"r{round_}", "zhihu", name) for name in seen}
            for name, key in keys.items():
                opened[name].ensure(key, identity=f"{name}-{round_}", identity_kind="z_c0")
            start = threading.Barrier(2)

            def claim(
                name: str,
                member: str = member,
                keys: dict[str, PostKey] = keys,
                start: threading.Barrier = start,
            ) -> None:
                start.wait()
                posts = opened[name].claim_identity(
                    keys[name], member, "member", provisional="z_c0"
                )
                other = [p for p in posts if p.account != name]
                seen[name].append(other[0].account_identity == member)

            threads = [threading.Thread(target=claim, args=(name,)) for name in seen]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
            assert seen["main"][-1] or seen["second"][-1], f"round {round_}: both missed"
    finally:
        for each in opened.values():
            each.close()
    assert len(seen["main"]) == len(seen["second"]) == rounds


def test_a_schema_6_ledger_learns_what_each_identity_is_a_digest_of(
    path: Path, clock: Clock
) -> None:
    from crosspost.ledger.schema import MIGRATIONS, for_engine

    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path, isolation_level=None)
    for statements in MIGRATIONS[:6]:
        for statement in statements:
            db.execute(for_engine(statement, "sqlite"))
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 6")
    for issue, channel, identity in (
        ("a", "wechat", "aaaaaaaaaaaaaaaa"),
        ("a", "zhihu", "bbbbbbbbbbbbbbbb"),
        ("b", "zhihu", None),
    ):
        db.execute(
            "INSERT INTO posts (issue_id, channel, account, state, account_identity, "
            "created_at, updated_at) VALUES (?, ?, 'main', 'published', ?, 1, 1)",
            (issue, channel, identity),
        )
    db.close()
    with Ledger.open(path, clock=clock) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION
        kinds = {(p.issue_id, p.channel): p.identity_kind for p in ledger.posts()}
    assert kinds == {("a", "wechat"): "app_id", ("a", "zhihu"): "z_c0", ("b", "zhihu"): None}
