"""A PostgreSQL ledger that cannot be reached, or goes away mid-run: nothing sent blindly.

Unreachable at the start: exit 75 with one line naming the server (never its password),
and not one request to a platform. Lost in the middle: the next irreversible call's
intent cannot be committed, so the call is not made; the next run finishes the post,
once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY, EXIT_UNCONFIRMED
from crosspost.ledger.store import Ledger, PostKey
from crosspost.publish.jobs import PublishOptions

from .world import PUBLISH_PATHS, World, assert_one_post_per_channel, calls_to, mutating

pytestmark = pytest.mark.slow

PASSWORD = "correct-horse-battery-staple"


def test_an_unreachable_server_is_exit_75_one_line_and_nothing_sent(shared_world: World) -> None:
    world = shared_world
    world.env["CROSSPOST_LEDGER_URL"] = (
        f"postgresql://crosspost:{PASSWORD}@/ledger?host={world.root}/no-server-here"
    )
    for argv in (("publish", str(world.issue), "--mode", "publish"), ("status",)):
        done = world.run(*argv)
        assert done.returncode == EXIT_TEMPORARY, (argv, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "PostgreSQL ledger cannot be reached" in lines[0], lines
        assert "crosspost:***@" in lines[0] and "Traceback" not in done.stderr
        assert PASSWORD not in done.stdout + done.stderr
    assert mutating(world.box) == []


def _drop_connections(url: str) -> None:
    """End every session of the ledger's database but this one (a server restart, as the
    ledger's clients see it)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def test_a_connection_lost_before_an_intent_means_the_call_is_not_made(
    shared_world: World,
) -> None:
    world = shared_world
    assert world.ledger_url is not None
    url = world.ledger_url

    def lose_the_server(name: str) -> None:
        if name == "after-draft":  # the draft is made; its record and the publish intent follow
            _drop_connections(url)

    report, _ = world.with_publisher(
        lambda p: p.publish([world.issue], PublishOptions(mode="publish", targets=("zhihu",))),
        checkpoint=lose_the_server,
    )
    # The draft went out, and the ledger could not take it: the post is unconfirmed (the
    # CLI says its line, then the trouble's, exit 3), and nothing more is sent.
    [stopped] = report.results
    assert (stopped.state, report.exit_code) == ("unconfirmed", EXIT_UNCONFIRMED), stopped
    assert "crosspost reconcile ai-systems-48" in stopped.message
    assert report.trouble is not None and report.trouble.exit_code == EXIT_TEMPORARY
    assert "PostgreSQL ledger cannot be reached" in str(report.trouble)
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 0  # no intent, no call

    done = world.run("publish", str(world.issue), "--mode", "publish")
    assert done.returncode == EXIT_OK, done.stderr
    assert_one_post_per_channel(world)
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 1


# --- moving a ledger ------------------------------------------------------------------------


def test_a_migrated_ledger_answers_status_and_urls_exactly_as_the_original(
    world: World, postgres_url: str
) -> None:
    assert world.run("publish", str(world.issue), "--mode", "publish").returncode == EXIT_OK
    asked = (("status",), ("status", "--json"), ("urls", "ai-systems-48"), ("ledger", "export"))
    before = [world.run(*argv) for argv in asked]
    assert all(done.returncode == EXIT_OK for done in before), [d.stderr for d in before]

    for _ in range(2):  # a second run copies nothing and says the same
        moved = world.run("ledger", "migrate", "--to", postgres_url)
        assert moved.returncode == EXIT_OK, moved.stderr
        lines = moved.stdout.splitlines()
        assert [line.split(":")[0] for line in lines] == ["posts", "events", "assets"]
        assert all(line.endswith(": ok") for line in lines), lines
    assert lines[0].startswith("posts: 2 in ")

    world.env["CROSSPOST_LEDGER_URL"] = postgres_url
    after = [world.run(*argv) for argv in asked]
    assert [d.stdout for d in after] == [d.stdout for d in before]
    exported = before[-1].stdout
    assert '"table": "events"' in exported and '"table": "assets"' in exported
    assert not any(secret in exported for secret in world.secrets())

    target = world.root / "backup.jsonl"
    assert world.run("ledger", "export", "-o", str(target)).returncode == EXIT_OK
    assert target.read_text(encoding="utf-8") == exported


def test_migrating_into_a_ledger_of_other_posts_is_refused(
    shared_world: World, tmp_path: Path
) -> None:
    world = shared_world
    assert world.ledger_url is not None
    assert world.run("publish", str(world.issue), "--mode", "draft").returncode == EXIT_OK
    other = tmp_path / "other-state"
    with Ledger.open(other / "ledger.sqlite3") as ledger:
        ledger.ensure(PostKey("another-issue", "zhihu", "main"))
    done = world.run("ledger", "migrate", "--to", world.ledger_url, "--state-dir", str(other))
    assert done.returncode == EXIT_BAD_INPUT
    assert "already holds posts of another ledger" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    with world.ledger() as ledger:
        assert {p.issue_id for p in ledger.posts()} == {"ai-systems-48"}  # nothing copied


def test_migrate_and_export_in_process(
    manual_world: World,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = manual_world
    world.use_env(monkeypatch)
    assert main(["ledger", "migrate", "--to", "mysql://root:hunter2@db/ledger"]) == 2
    assert main(["ledger", "migrate", "--to", postgres_url]) == EXIT_BAD_INPUT
    assert main(["ledger", "export"]) == EXIT_BAD_INPUT
    refused = capsys.readouterr().err
    assert "give a PostgreSQL URL" in refused and "hunter2" not in refused
    assert "nothing to migrate" in refused and "nothing was published yet" in refused

    world.publish(mode="draft")
    assert main(["ledger", "migrate", "--to", postgres_url]) == EXIT_OK
    assert capsys.readouterr().out.splitlines()[0].startswith("posts: 2 in ")
    assert main(["ledger", "export"]) == EXIT_OK
    original = capsys.readouterr().out
    monkeypatch.setenv("CROSSPOST_LEDGER_URL", postgres_url)
    target = world.root / "backup.jsonl"
    assert main(["ledger", "export", "-o", str(target)]) == EXIT_OK
    assert target.read_text(encoding="utf-8") == original
