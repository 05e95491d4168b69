"""The fault matrix: every call an adapter makes (reconcile's and adoption's reads included)
× every fault kind the sandbox injects, once and for good.

Each cell publishes a small issue that asks for every part (cover, comment settings,
topics, column) on one platform, with the fault armed. Whatever that run reports:

* never more than one public post;
* a run that reports success (exit 0) left a post with every part;
* a run that reports "published" with a part missing says so with exit 1 or 75.

Then the fault is cleared, time moves on (past every settle window) and the same command
runs again (with ``crosspost reconcile`` when a post stays unconfirmed), and the post
must end complete, exactly once, with no orphan draft. All time is the sandbox's manual
clock: a slow answer or a retry's pause costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.publish.jobs import PostResult

from .light import ISSUE_ID, assert_complete, assert_no_orphans, write_light_issue
from .world import World

#: Past WeChat's longest settle time (a submit: 600 s) and the sandbox's publish jobs.
LATER = 700.0

#: (path, method) of every call each adapter makes; globs as the fault book reads them.
CALLS = {
    "wechat": [
        ("/cgi-bin/stable_token", "POST"),
        ("/cgi-bin/media/uploadimg", "POST"),
        ("/cgi-bin/material/add_material", "POST"),
        ("/cgi-bin/freepublish/batchget", "POST"),
        ("/cgi-bin/draft/batchget", "POST"),
        ("/cgi-bin/draft/add", "POST"),
        ("/cgi-bin/freepublish/submit", "POST"),
        ("/cgi-bin/freepublish/get", "POST"),
        ("/cgi-bin/draft/get", "POST"),
    ],
    "zhihu": [
        ("/api/v4/me", "GET"),
        ("/api/autocomplete/topics", "GET"),
        ("/images", "POST"),
        ("/v2-*", "PUT"),
        ("/images/*/uploading_status", "PUT"),
        ("/images/*", "GET"),
        ("/api/v4/members/*/articles", "GET"),
        ("/api/articles/drafts", "POST"),
        ("/api/articles/*/draft", "PATCH"),
        ("/api/articles/*/draft", "GET"),
        ("/api/articles/*/topics", "POST"),
        ("/api/v4/members/*/column-contributions", "GET"),
        ("/api/v4/content/publish", "POST"),
        ("/api/v4/columns/*/items", "POST"),
    ],
}
#: Calls that change something (the sandbox lets commit_then_drop pass over the others).
WRITES = {
    "/cgi-bin/media/uploadimg",
    "/cgi-bin/material/add_material",
    "/cgi-bin/draft/add",
    "/cgi-bin/freepublish/submit",
    "/images",
    "/v2-*",
    "/images/*/uploading_status",
    "/api/articles/drafts",
    "/api/articles/*/draft PATCH",
    "/api/articles/*/topics",
    "/api/v4/content/publish",
    "/api/v4/columns/*/items",
}
SHARED_KINDS = ["latency:3000", "slow_answer:30000", "reset", "commit_then_drop", "http:503"]
KINDS = {
    "wechat": [
        *SHARED_KINDS,
        "errcode:-1",
        "errcode:45009",
        "errcode:45011",
        "token_expired",
        "http:429",
        "relay_json:403",  # a whitelist relay's own JSON: no WeChat answer, nothing decided
    ],
    "zhihu": [*SHARED_KINDS, "http:429", "zhihu:40362", "zhihu:100"],
}


def _writes(path: str, method: str) -> bool:
    return path in WRITES or f"{path} {method}" in WRITES


def _cells() -> Iterator[object]:
    for channel, calls in CALLS.items():
        for path, method in calls:
            for kind in KINDS[channel]:
                if kind == "commit_then_drop" and not _writes(path, method):
                    continue  # nothing to commit: the same as no fault
                if kind == "token_expired" and path.endswith("_token"):
                    continue  # the token call takes no token
                for times in ("once", "always"):
                    name = f"{channel}-{method}{path}-{kind}-{times}"
                    yield pytest.param(channel, path, method, kind, times, id=name)


@pytest.fixture
def light(manual_world: World) -> World:
    manual_world.issue = write_light_issue(manual_world.root)
    return manual_world


def publish_once(world: World, channel: str, *, retry_failed: bool = False) -> PostResult:
    report, _ = world.publish(mode="publish", targets=(channel,), retry_failed=retry_failed)
    (result,) = report.results
    return result


def check_run(world: World, channel: str, result: PostResult) -> None:
    """What holds after any run, faults or not."""
    assert len(world.published_on(channel)) <= 1, "a second public post"
    if result.exit_code == EXIT_OK:
        assert_complete(world, channel)
    elif result.state == "published":
        assert result.exit_code in (EXIT_CHANNEL_FAILED, EXIT_TEMPORARY), result
        assert "missing" in result.message or "run again" in result.message, result.message


def finish_later(world: World, result: PostResult, again: Callable[[bool], PostResult]) -> None:
    """With the fault cleared, later runs (and reconcile, for a post in doubt) finish the
    post; after a permanent failure the editor fixes the cause and says so (``again``
    gets True)."""
    world.box.faults.clear()
    for _ in range(3):
        if result.exit_code == EXIT_OK:
            break
        world.clock.advance(LATER)  # type: ignore[attr-defined]
        world.box.commit_due()
        if result.state == "unconfirmed":
            world.with_publisher(lambda p: p.reconcile(ISSUE_ID))
        result = again(result.exit_code == 1)
    assert result.exit_code == EXIT_OK, result


@pytest.mark.parametrize(("channel", "path", "method", "kind", "times"), list(_cells()))
def test_every_call_under_every_fault_ends_with_one_complete_post(
    light: World, channel: str, path: str, method: str, kind: str, times: str
) -> None:
    world = light
    world.box.faults.add(channel, path, kind, count=1 if times == "once" else None, method=method)

    first = publish_once(world, channel)
    check_run(world, channel, first)

    def again(retry_failed: bool) -> PostResult:
        result = publish_once(world, channel, retry_failed=retry_failed)
        check_run(world, channel, result)
        return result

    finish_later(world, first, again)
    world.clock.advance(LATER)  # type: ignore[attr-defined]
    world.box.commit_due()  # a slow answer still on its way lands now, or never
    assert_complete(world, channel)
    assert_no_orphans(world, channel)
    assert publish_once(world, channel).state == "unchanged"


#: A mass send's calls (群发): the send, which only a replay of its send id may repeat,
#: and the status read after it.
BROADCAST_CALLS = ["/cgi-bin/message/mass/sendall", "/cgi-bin/message/mass/get"]


def _broadcast_cells() -> Iterator[object]:
    for path in BROADCAST_CALLS:
        for kind in KINDS["wechat"]:
            if kind == "commit_then_drop" and path.endswith("/get"):
                continue  # a read: nothing to commit
            for times in ("once", "always"):
                name = f"wechat-POST{path}-{kind}-{times}"
                yield pytest.param(path, kind, times, id=name)


def broadcast_once(world: World, *, retry_failed: bool = False) -> PostResult:
    report, _ = world.publish(mode="broadcast", targets=("wechat",), retry_failed=retry_failed)
    (result,) = report.results
    return result


def check_pushes(world: World) -> None:
    """Nobody got two pushes; a run that says sent left one push for every follower."""
    pushes = world.box.wechat.pushes()
    assert all(len(got) == 1 for got in pushes.values()), f"a second push: {pushes}"
    assert world.published_on("wechat") == [], "a mass send is never also 发表"


@pytest.mark.parametrize(("path", "kind", "times"), list(_broadcast_cells()))
def test_a_broadcast_under_every_fault_reaches_each_follower_once(
    light: World, path: str, kind: str, times: str
) -> None:
    world = light
    world.box.faults.add("wechat", path, kind, count=1 if times == "once" else None, method="POST")

    result = broadcast_once(world)
    check_pushes(world)
    if result.exit_code == EXIT_OK:
        assert len(world.box.wechat.pushes()) == 3, result
    else:  # clearly not sent, or clearly waiting: never "sent" without a push
        assert result.state in ("failed", "unconfirmed", "pending"), result

    def again(retry_failed: bool) -> PostResult:
        result = broadcast_once(world, retry_failed=retry_failed)
        check_pushes(world)
        return result

    finish_later(world, result, again)
    world.clock.advance(LATER)  # type: ignore[attr-defined]
    world.box.commit_due()
    check_pushes(world)
    assert len(world.box.wechat.pushes()) == 3
    assert world.drafts_on("wechat") == [], "a draft left in 草稿箱"
    assert broadcast_once(world).state == "unchanged"


def test_the_matrix_covers_every_kind_the_issue_names() -> None:
    kinds = {kind.split(":")[0] for channel in KINDS for kind in KINDS[channel]}
    assert {"latency", "slow_answer", "reset", "commit_then_drop", "http", "errcode"} <= kinds
    wechat = set(KINDS["wechat"])
    assert {"errcode:-1", "errcode:45009", "errcode:45011", "token_expired"} <= wechat
    assert {"http:429", "zhihu:40362"} <= set(KINDS["zhihu"])


def test_the_small_issue_publishes_every_part_on_both_platforms(light: World) -> None:
    report, _ = light.publish(mode="publish")
    assert report.exit_code == EXIT_OK, report
    for channel in ("wechat", "zhihu"):
        assert_complete(light, channel)
        assert_no_orphans(light, channel)
