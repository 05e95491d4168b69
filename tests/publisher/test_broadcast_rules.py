"""Mass send (群发) rules that need no platform: the send id, the quota, the issue's target.

The send id must be the same for the same post wherever it is computed (another host, a
lost ledger) and different for another issue, version or attempt; the quota is read from
the ledger's own broadcasts, counted per Beijing day; a bad ``broadcast`` block in an
issue is a file:line error before anything is sent.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from types import MappingProxyType

import pytest

from crosspost.channels.base import STEP_BROADCAST
from crosspost.channels.http.policy import HttpPolicy
from crosspost.channels.wechat.adapter import WeChatAdapter
from crosspost.config.accounts import Account, Secret
from crosspost.errors import EXIT_BAD_INPUT, IssueError
from crosspost.issue.loader import load_issue
from crosspost.ledger.schema import SCHEMA_VERSION
from crosspost.ledger.store import Ledger, PostKey
from crosspost.publish.broadcast import (
    BEIJING,
    BROADCAST,
    attempt_of,
    beijing_day_start,
    quota,
    target_of,
)


def account(kind: str | None = None, app_id: str = "wx-sandbox-app") -> Account:
    credentials = {"app_id": Secret(app_id), "app_secret": Secret("s3cret-s3cret")}
    return Account("wechat", "main", "http://127.0.0.1:9", MappingProxyType(credentials), kind=kind)


def adapter(tmp_path: Path, app_id: str = "wx-sandbox-app") -> WeChatAdapter:
    http = HttpPolicy(sleep=lambda seconds: None)
    return WeChatAdapter(account(app_id=app_id), http=http, state_dir=tmp_path)


def test_the_send_id_is_the_posts_identity_and_fits_wechats_64_bytes(tmp_path: Path) -> None:
    one = adapter(tmp_path).send_id("ai-48", "hash-a", 0)
    assert one == adapter(tmp_path / "other-host").send_id("ai-48", "hash-a", 0)
    assert len(one.encode()) <= 64 and one.isascii()
    others = {
        adapter(tmp_path, "wx-another-app").send_id("ai-48", "hash-a", 0),
        adapter(tmp_path).send_id("ai-49", "hash-a", 0),
        adapter(tmp_path).send_id("ai-48", "hash-b", 0),
        adapter(tmp_path).send_id("ai-48", "hash-a", 1),
    }
    assert one not in others and len(others) == 4


def beijing(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=BEIJING).timestamp()


def sent(ledger: Ledger, issue_id: str, at: float, status: str = "sent") -> PostKey:
    key = PostKey(issue_id, "wechat", "main")
    ledger.ensure(key, issue_path=f"/issues/{issue_id}.md")
    ledger.finish_step(
        key,
        STEP_BROADCAST,
        state="published",
        delivery=BROADCAST,
        mass_status=status,
        publish_id=f"1000{issue_id}",
        published_at=at,
    )
    return key


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger.open(tmp_path / "ledger.sqlite3")


def test_a_second_send_on_one_beijing_day_is_refused_with_when_the_next_is_possible(
    ledger: Ledger,
) -> None:
    sent(ledger, "first", beijing("2026-11-24 09:00"))
    key = PostKey("second", "wechat", "main")
    now = beijing("2026-11-24 23:30")
    for kind in ("verified_subscription", None):
        refusal = quota(ledger, account(kind), key, now, None).refusal
        assert refusal is not None
        assert "'first'" in refusal and "2026-11-25 00:00 +0800" in refusal
    # After Beijing midnight the quota is new; the send itself never counts against itself.
    assert quota(ledger, account(), key, beijing("2026-11-25 00:00"), None).refusal is None
    assert quota(ledger, account(), PostKey("first", "wechat", "main"), now, None).refusal is None


def test_the_refusal_shows_the_issues_own_zone(ledger: Ledger) -> None:
    sent(ledger, "first", beijing("2026-11-24 09:00"))
    zone = datetime.fromisoformat("2026-11-24T10:00:00+01:00").tzinfo
    refusal = quota(
        ledger, account(), PostKey("b", "wechat", "main"), beijing("2026-11-24 12:00"), zone
    ).refusal
    assert refusal is not None and "2026-11-24 17:00 +0100" in refusal


def test_a_failed_send_does_not_count_and_a_service_account_is_warned_past_four(
    ledger: Ledger,
) -> None:
    sent(ledger, "failed-one", beijing("2026-11-24 08:00"), status="failed")
    key = PostKey("next", "wechat", "main")
    now = beijing("2026-11-24 12:00")
    assert quota(ledger, account(), key, now, None).refusal is None
    for day in range(1, 5):
        sent(ledger, f"s{day}", beijing(f"2026-11-0{day} 12:00"))
    # The rows of one 多图文 send (same msg_id) are one send.
    ledger.ensure(PostKey("s4-companion", "wechat", "main"), issue_path="/c.md")
    ledger.finish_step(
        PostKey("s4-companion", "wechat", "main"),
        STEP_BROADCAST,
        state="published",
        delivery=BROADCAST,
        mass_status="sent",
        publish_id="1000s4",
        published_at=beijing("2026-11-04 12:00"),
    )
    service = quota(ledger, account("verified_service"), key, now, None)
    assert service.refusal is None
    assert service.warning and "4 mass sends this month" in service.warning


def test_the_attempt_counts_only_sends_wechat_said_failed(ledger: Ledger) -> None:
    key = PostKey("a", "wechat", "main")
    ledger.ensure(key, issue_path="/a.md")
    assert attempt_of(ledger, key) == 0
    ledger.finish_step(key, STEP_BROADCAST, outcome="send-failed", state="assets_uploaded")
    ledger.finish_step(key, STEP_BROADCAST, outcome="refused")
    assert attempt_of(ledger, key) == 1


def test_beijing_midnight_is_sixteen_hundred_utc() -> None:
    utc = datetime.fromisoformat("2026-11-24T15:59:00+00:00").timestamp()
    start = beijing_day_start(utc)
    assert datetime.fromtimestamp(start, BEIJING).strftime("%Y-%m-%d %H:%M") == "2026-11-24 00:00"
    assert beijing_day_start(utc + 120) == start + 86400


def write(tmp_path: Path, block: str) -> Path:
    path = tmp_path / "issue.md"
    path.write_text(f"---\ntitle: T\nwechat:\n  mode: broadcast\n{block}---\n\n正文。\n", "utf-8")
    return path


def test_the_issue_names_whom_the_send_reaches(tmp_path: Path) -> None:
    block = "  broadcast: {tag_id: 2, send_ignore_reprint: true}\n"
    issue = load_issue(write(tmp_path, block))
    options = issue.settings("wechat").options
    assert options["mode"] == "broadcast"
    assert target_of(options) == {"tag_id": 2, "send_ignore_reprint": True}
    assert target_of(load_issue(write(tmp_path, "")).settings("wechat").options) == {}


@pytest.mark.parametrize(
    ("block", "said"),
    [
        ("  broadcast: {tag_id: two}\n", "tag_id must be a tag's number"),
        ("  broadcast: {tag_id: -1}\n", "tag_id must be a tag's number"),
        ("  broadcast: {send_ignore_reprint: 1}\n", "must be true or false"),
        ("  broadcast: {tag: 2}\n", "unknown key tag"),
        ("  broadcast: everyone\n", "must be a mapping"),
    ],
)
def test_a_bad_target_is_its_line_and_exit_2(tmp_path: Path, block: str, said: str) -> None:
    with pytest.raises(IssueError) as caught:
        load_issue(write(tmp_path, block))
    assert caught.value.exit_code == EXIT_BAD_INPUT
    assert caught.value.line == 5, str(caught.value)
    assert said in str(caught.value) and "wechat.broadcast" in str(caught.value)


def test_a_ledger_from_before_mass_sends_is_migrated_with_its_posts(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    with Ledger.open(path) as ledger:
        ledger.ensure(PostKey("old", "wechat", "main"), issue_path="/old.md")
    db = sqlite3.connect(path)
    db.execute("DROP INDEX posts_by_delivery")
    db.execute("ALTER TABLE posts DROP COLUMN delivery")
    db.execute("ALTER TABLE posts DROP COLUMN mass_status")
    db.execute("DROP TABLE shared_state")  # schema 4's, not there yet either
    db.execute("DROP INDEX posts_by_content")  # nor schema 5's titles
    db.execute("DROP INDEX posts_by_title")
    db.execute("ALTER TABLE posts DROP COLUMN title")
    db.execute("ALTER TABLE posts DROP COLUMN account_identity")  # nor schema 6's accounts
    db.execute("ALTER TABLE posts DROP COLUMN identity_kind")  # nor schema 7's kinds
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION == 7
        old = ledger.post("old", "wechat", "main")
        assert old is not None and (old.delivery, old.mass_status) == (None, None)
        assert old.account_identity is None  # not known: the config's account answers
        assert old.identity_kind is None
        assert ledger.broadcasts("wechat", "main", 0.0) == ()
