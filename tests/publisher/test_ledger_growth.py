"""The ledger grows with the number of posts, not with its square.

A draft's intent used to copy the id of every earlier draft of the account, so that
reconcile would never take an older draft for the one whose answer was lost. Reconcile
now asks the ledger for those ids when it settles; these tests prove the intent stays
small and the lost answer is still told apart from an older draft that looks the same.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from crosspost.ledger.schema import SCHEMA_VERSION
from crosspost.ledger.store import Ledger, PostKey

from .world import CREATE_PATHS, ISSUE_ID, World, calls_to

OTHER_ID = "ai-systems-48-reprint"


def twin(world: World) -> Path:
    """A second issue with the very same title, author and digest: only its id differs."""
    text = world.issue.read_text(encoding="utf-8")
    path = world.issue.with_name("reprint.md")
    path.write_text(text.replace(f"id: {ISSUE_ID}", f"id: {OTHER_ID}", 1), encoding="utf-8")
    return path


def test_a_lost_draft_answer_is_not_taken_for_an_older_draft_of_the_same_title(
    manual_world: World,
) -> None:
    world = manual_world
    first, _ = world.publish(mode="draft")
    assert {r.state for r in first.results} == {"drafted"}
    older = world.posts()["wechat"].draft_id
    # Same title, same minute: only the ledger's own ids tell the two drafts apart.
    world.box.faults.add("wechat", CREATE_PATHS["wechat"], kind="commit_then_drop", count=1)

    # A reprint the editor asks for: the same words under another id take --new-post.
    report, lines = world.publish([twin(world)], mode="draft", new_post=True)

    assert any("the answer was lost" in line for line in lines)
    (result,) = [r for r in report.results if r.key.channel == "wechat"]
    assert result.state == "drafted", result.message
    with world.ledger() as ledger:
        mine = ledger.post(OTHER_ID, "wechat", "main")
        intents = [e for e in ledger.events(PostKey(OTHER_ID, "wechat", "main"))]
    assert mine is not None and mine.draft_id not in (None, older)
    assert sorted(world.drafts_on("wechat")) == sorted([older, mine.draft_id])
    assert calls_to(world.box, CREATE_PATHS["wechat"]) == 2  # one each: never created again
    drafted = [e for e in intents if e.kind == "intent" and e.step == "draft"]
    assert drafted and all(not e.data.get("known_ids") for e in drafted)


def test_an_intent_is_the_same_size_for_the_first_post_and_the_thousandth(
    tmp_path: Path,
) -> None:
    with Ledger.open(tmp_path / "ledger.sqlite3", clock=lambda: 1.0) as ledger:
        with ledger.transaction():
            for number in range(1000):
                key = PostKey(f"issue-{number:04d}", "wechat", "main")
                ledger.ensure(key)
                ledger.begin("draft", key, {"title": f"第{number}期", "known_ids": []})
                ledger.finish_step(key, "draft", state="draft_created", draft_id=f"m{number}")
        sizes = [len(json.dumps(dict(e.data))) for e in ledger.events() if e.kind == "intent"]
        assert max(sizes) - min(sizes) <= 4  # the title's digits, nothing that grows
        last = PostKey("issue-0999", "wechat", "main")
        others = ledger.draft_ids("wechat", "main", excluding=last)
        assert len(others) == 999 and "m999" not in others and others[0] == "m0"
        assert ledger.draft_ids("zhihu", "main") == ()


def old_ledger(path: Path, posts: int) -> None:
    """A ledger as schema 1 wrote it: every draft intent lists every earlier draft."""
    with Ledger.open(path, clock=lambda: 1.0) as ledger, ledger.transaction():
        for number in range(posts):
            key = PostKey(f"issue-{number:04d}", "wechat", "main")
            ledger.ensure(key)
            known = [f"media-{n:04d}-{'x' * 40}" for n in range(number)]
            ledger.begin("draft", key, {"title": f"第{number}期", "known_ids": known})
            ledger.finish_step(
                key, "draft", state="draft_created", draft_id=f"media-{number:04d}-{'x' * 40}"
            )
        temporary = PostKey("issue-0000", "wechat", "main")
        ledger.record(
            temporary,
            state="published",
            url="http://mp.weixin.qq.com/s?__biz=abc&tempkey=def&idx=1#rd",
        )
        lasting = PostKey("issue-0001", "wechat", "main")
        ledger.record(lasting, state="published", url="https://mp.weixin.qq.com/s/Abc")
    db = sqlite3.connect(path)
    db.execute("DROP TABLE shared_state")  # added by schema 4: not in a schema 1 ledger
    # What later schemas added is not there yet (mass sends: version 3; titles: 5;
    # accounts: 6, what their digests are of: 7).
    db.execute("ALTER TABLE posts DROP COLUMN identity_kind")
    db.execute("ALTER TABLE posts DROP COLUMN account_identity")
    db.execute("DROP INDEX posts_by_content")
    db.execute("DROP INDEX posts_by_title")
    db.execute("ALTER TABLE posts DROP COLUMN title")
    db.execute("DROP INDEX posts_by_delivery")
    db.execute("ALTER TABLE posts DROP COLUMN delivery")
    db.execute("ALTER TABLE posts DROP COLUMN mass_status")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()


def test_an_old_ledger_drops_the_copied_ids_shrinks_and_sets_temporary_links_aside(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.sqlite3"
    old_ledger(path, 300)
    before = path.stat().st_size

    with Ledger.open(path) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION
        pending = ledger.post("issue-0000", "wechat", "main")
        kept = ledger.post("issue-0001", "wechat", "main")
        events = ledger.events(PostKey("issue-0299", "wechat", "main"))
        titled = ledger.post("issue-0299", "wechat", "main")
        notes = ledger.events(PostKey("issue-0000", "wechat", "main"))

    assert path.stat().st_size < before / 5
    (intent,) = [e for e in events if e.kind == "intent"]
    assert "known_ids" not in intent.data and intent.data["known_ids_count"] == 299
    assert intent.data["title"] == "第299期"
    assert titled is not None and titled.title == "第299期"  # its latest intent's
    assert pending is not None and pending.state == "published" and pending.url is None
    assert kept is not None and kept.url == "https://mp.weixin.qq.com/s/Abc"
    (note,) = [e for e in notes if e.step == "url"]
    assert "URL pending" in note.summary and "crosspost urls --set" in note.summary
    assert "tempkey=" in note.data["preview_url"]
