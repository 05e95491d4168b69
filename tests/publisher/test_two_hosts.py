"""Two machines, one PostgreSQL ledger: every post made once, whoever runs what, whoever dies.

Each "host" is a state dir and a config of its own (its own file locks, token file and
scheduler state would never see the other's), both aimed at one sandbox and one
PostgreSQL ledger, reading the same issue folder (one checkout, as two cron hosts of a
team have). Only the ledger's advisory locks keep them apart.
"""

from __future__ import annotations

import json
import shutil
import signal
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from filelock import Timeout

from crosspost.errors import EXIT_OK, EXIT_TEMPORARY
from crosspost.ledger.store import PostKey
from crosspost.publish.jobs import PublishOptions
from crosspost.publish.settle import post_lock
from crosspost.sandbox.box import Sandbox
from crosspost.schedule.state import run_lock

from .world import (
    CHANNELS,
    CREATE_PATHS,
    EXAMPLE_DIR,
    PUBLISH_PATHS,
    World,
    build_world,
    calls_to,
    finish,
    post_urls,
)

pytestmark = pytest.mark.slow
ISSUES = ("ai-systems-48", "ai-systems-49")


def write_issues(folder: Path, channels: str) -> list[Path]:
    """The example as two issues (ids, titles apart), due ten minutes ago, in ``folder``."""
    due = (datetime.now(UTC) - timedelta(minutes=10)).isoformat(timespec="seconds")
    paths = []
    for issue_id in ISSUES:
        number = issue_id.rsplit("-", 1)[1]
        target = folder / issue_id
        shutil.copytree(EXAMPLE_DIR, target, ignore=shutil.ignore_patterns("*.py"))
        path = target / "issue.md"
        text = path.read_text(encoding="utf-8")
        text = (
            text.replace("id: ai-systems-48", f"id: {issue_id}")
            .replace("第48期", f"第{number}期")
            .replace("AI系统前沿动态48", f"AI系统前沿动态{number}")
            .replace("mode: draft, ", "")
            .replace("channels: [wechat, zhihu]", f"channels: [{channels}]")
        )
        text = text.replace("publish_at: 2026-11-23T09:00:00+08:00", f"publish_at: {due}")
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture
def hosts(tmp_path: Path, postgres_url: str) -> Iterator[tuple[World, World]]:
    """Two hosts on one sandbox and one PostgreSQL ledger."""
    with Sandbox(options={"wechat": {"publish_seconds": 300}}) as box:
        worlds = []
        for name in ("host-a", "host-b"):
            (tmp_path / name).mkdir()
            worlds.append(
                build_world(
                    tmp_path / name, box, time.time, lambda seconds: None, ledger_url=postgres_url
                )
            )
        yield worlds[0], worlds[1]


def published(world: World, channel: str, issue_id: str) -> list[str]:
    """The URLs of the articles of one issue on one platform (by its ledger's article)."""
    with world.ledger() as ledger:
        record = ledger.post(issue_id, channel, "main")
    assert record is not None and record.state == "published", (issue_id, channel, record)
    return [
        url
        for post in world.published_on(channel)
        for url in post_urls(post)
        if record.url and url == record.url
    ]


def test_four_publishers_and_two_ticks_on_each_host_make_one_post_each(
    hosts: tuple[World, World], tmp_path: Path
) -> None:
    """The publisher's contract (one post per issue × channel × account) on PostgreSQL:
    eight publishers and four ticks at once, which also covers
    ``test_concurrency.py``'s eight publishers of one state dir."""
    issues = write_issues(tmp_path / "issues", "wechat, zhihu")
    runs = []
    for host in hosts:
        runs += [host.spawn("publish", *map(str, issues)) for _ in range(4)]
        runs += [host.spawn("run-due", str(tmp_path / "issues")) for _ in range(2)]
    outputs = [finish(run) for run in runs]
    assert [run.returncode for run in runs] == [EXIT_OK] * len(runs), [e for _, e in outputs]

    box = hosts[0].box
    for channel in CHANNELS:
        assert len(hosts[0].published_on(channel)) == len(ISSUES), channel
        assert calls_to(box, PUBLISH_PATHS[channel]) == len(ISSUES), channel
        assert calls_to(box, CREATE_PATHS[channel]) == len(ISSUES), channel
        for issue_id in ISSUES:
            assert len(published(hosts[1], channel, issue_id)) == 1
    # Two hosts, one token: the second never fetched one of its own.
    assert calls_to(box, "/cgi-bin/stable_token") == 1


def test_a_tick_killed_holding_the_lock_is_finished_at_once_by_the_other_host(
    hosts: tuple[World, World], tmp_path: Path
) -> None:
    first, second = hosts
    folder = tmp_path / "issues"
    write_issues(folder, "zhihu")
    killed = first.run("run-due", str(folder), crash_at="after-draft")
    assert killed.returncode == -signal.SIGKILL, killed.stderr

    started = time.monotonic()
    done = second.run("run-due", str(folder), "--json")
    took = time.monotonic() - started
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["locked"] is False
    assert took < 30, took  # no lock to wait out: the server dropped it with the process

    assert len(second.published_on("zhihu")) == len(ISSUES)
    assert calls_to(second.box, PUBLISH_PATHS["zhihu"]) == len(ISSUES)
    for issue_id in ISSUES:
        assert len(published(second, "zhihu", issue_id)) == 1


def test_a_post_or_a_tick_one_host_holds_is_left_to_it_by_the_other(
    hosts: tuple[World, World], tmp_path: Path
) -> None:
    """The locks themselves: held on host A, seen on host B (another state dir)."""
    first, second = hosts
    folder = tmp_path / "issues"
    issue = write_issues(folder, "wechat, zhihu")[0]
    options = PublishOptions(mode="publish")
    key = PostKey(ISSUES[0], "wechat", "main")
    with first.ledger() as ledger, post_lock(first.state_dir, key, timeout=1, ledger=ledger):
        report, _ = second.with_publisher(
            lambda p: p.run(p.plan([issue], options), options), lock_timeout=0.2
        )
        try_once = post_lock(second.state_dir, key, timeout=0, ledger=ledger)
        with pytest.raises(Timeout), try_once:  # a try-once lock gives up at once as well
            pass
    by_channel = {r.key.channel: r for r in report.results}
    assert by_channel["wechat"].exit_code == EXIT_TEMPORARY
    assert "another crosspost run is publishing this post" in by_channel["wechat"].message
    assert calls_to(second.box, CREATE_PATHS["wechat"]) == 0
    assert by_channel["zhihu"].exit_code == EXIT_OK  # the other post went on

    assert first.ledger_url is not None
    with run_lock(first.state_dir, wait=False, ledger_url=first.ledger_url) as mine:
        assert mine
        done = second.run("run-due", str(folder), "--json")
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["locked"] is True


def test_an_approval_given_on_one_host_lets_the_other_hosts_tick_publish(
    hosts: tuple[World, World], tmp_path: Path
) -> None:
    """``review`` and ``approve`` write to the shared ledger, as ``publish`` does: an
    approval kept in the approving machine's own SQLite file was never seen by the tick
    of the other, which went on waiting for it."""
    editor, cron = hosts
    for host in hosts:
        host.config.write_text(
            host.config.read_text("utf-8").replace(
                'app_secret_env = "WECHAT_APP_SECRET"',
                'app_secret_env = "WECHAT_APP_SECRET"\nrequire_approval = true',
            ),
            "utf-8",
        )
    folder = tmp_path / "issues"
    issue = write_issues(folder, "wechat")[0]
    (folder / ISSUES[1]).rename(tmp_path / "not-this-week")

    waiting = cron.run("run-due", str(folder))
    assert waiting.returncode == EXIT_OK, waiting.stderr
    assert "waiting for approval" in waiting.stdout, waiting.stdout
    (draft,) = editor.drafts_on("wechat")

    reviewed = editor.run("review", str(issue), "--to", "editor-wx", "-q")
    assert reviewed.returncode == EXIT_OK, reviewed.stdout + reviewed.stderr
    assert editor.box.wechat.previews() == {"editor-wx": [draft]}  # the tick's own draft
    approved = editor.run("approve", str(issue), "-q")
    assert approved.returncode == EXIT_OK, approved.stdout + approved.stderr

    done = cron.run("run-due", str(folder), "--json")
    assert done.returncode == EXIT_OK, done.stderr
    posts = json.loads(done.stdout)["posts"]
    assert [(p["issue"], p["state"]) for p in posts] == [(ISSUES[0], "published")], posts
    assert calls_to(cron.box, PUBLISH_PATHS["wechat"]) == 1
    assert not (editor.state_dir / "ledger.sqlite3").exists(), "no ledger of its own"
