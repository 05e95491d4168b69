"""A PostgreSQL ledger that cannot be reached, or goes away mid-run: nothing sent blindly.

Unreachable at the start: exit 75 with one line naming the server (never its password),
and not one request to a platform. Lost in the middle: the next irreversible call's
intent cannot be committed, so the call is not made; the next run finishes the post,
once.
"""

from __future__ import annotations

import psycopg
import pytest

from crosspost.errors import EXIT_OK, EXIT_TEMPORARY, StorageError
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
        if name == "after-draft":  # the draft is recorded; the publish intent comes next
            _drop_connections(url)

    with pytest.raises(StorageError) as caught:  # the CLI prints its one line, exit 75
        world.with_publisher(
            lambda p: p.publish([world.issue], PublishOptions(mode="publish", targets=("zhihu",))),
            checkpoint=lose_the_server,
        )
    assert caught.value.exit_code == EXIT_TEMPORARY
    assert "PostgreSQL ledger cannot be reached" in str(caught.value)
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 0  # no intent, no call

    done = world.run("publish", str(world.issue), "--mode", "publish")
    assert done.returncode == EXIT_OK, done.stderr
    assert_one_post_per_channel(world)
    assert calls_to(world.box, PUBLISH_PATHS["zhihu"]) == 1
