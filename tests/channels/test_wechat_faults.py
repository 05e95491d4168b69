"""Issue #4's acceptance matrix for WeChat: every adapter call × every fault the sandbox injects.

* idempotent calls recover (the retry waits on the manual clock, never for real);
* irreversible calls (draft/add, freepublish/submit) are sent once, raise
  UnconfirmedError when the outcome is unknown, and reconcile finds the truth;
* rate limits and permanent errors stop after one attempt with a message naming the code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from crosspost.channels.base import Intent, PublishTicket, RemoteDraft
from crosspost.errors import PermanentError, RateLimitedError, TransientError, UnconfirmedError
from crosspost.sandbox.box import ManualClock, Sandbox

from .test_wechat_adapter import adapter_for, content, image

TITLE = "AI系统前沿动态48"

RECOVERABLE = [
    "latency:200",
    "reset",
    "http:500",
    "http:502",
    "http:503",
    "http:429",
    "errcode:-1",
    "errcode:45011",
    "token_expired",
    "commit_then_drop",
    # A relay in front of WeChat (whitelist proxy, API gateway) answering JSON of its own
    # with HTTP 403: WeChat's answers are all HTTP 200, so this is no WeChat payload.
    "relay_json:403",
]


class World:
    """A sandbox, an adapter, and a draft and a publication made before the fault."""

    def __init__(self, box: Sandbox, clock: ManualClock, state: Path) -> None:
        self.box = box
        self.clock = clock
        self.wechat = adapter_for(box, clock, state)
        self.draft = self.wechat.create_draft(content(self.wechat, TITLE))
        other = self.wechat.create_draft(content(self.wechat, "已发表的一期"))
        self.ticket = self.wechat.publish(other)
        self.clock.advance(60)  # let that publication finish before any test starts
        assert self.wechat.poll(self.ticket) is not None

    def calls(self, path: str) -> int:
        return sum(1 for r in self.box.requests if r.path == path)

    def snapshot(self) -> dict[str, Any]:
        result: dict[str, Any] = self.box.wechat.snapshot()
        return result


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep) as box:
        yield World(box, clock, tmp_path / "state")


Op = Callable[[World], Any]

IDEMPOTENT: dict[str, tuple[str, Op, Callable[[Any], bool]]] = {
    "stable_token": (
        "/cgi-bin/stable_token",
        lambda w: (
            w.wechat.api.token.invalidate({"access_token": w.wechat.api.token.token()}),
            w.wechat.preflight(),
        ),
        lambda result: True,
    ),
    "uploadimg": (
        "/cgi-bin/media/uploadimg",
        lambda w: w.wechat.upload_image(image(), "inline"),
        lambda asset: asset.url.startswith("https://mmbiz.qpic.cn/"),
    ),
    "add_material": (
        "/cgi-bin/material/add_material",
        lambda w: w.wechat.upload_image(image(), "cover"),
        lambda asset: bool(asset.media_id),
    ),
    "draft/update": (
        "/cgi-bin/draft/update",
        lambda w: w.wechat.update_draft(w.draft.id, content(w.wechat, TITLE + "修订")),
        lambda draft: bool(draft.url),
    ),
    "draft/get": (
        "/cgi-bin/draft/get",
        lambda w: w.wechat.api.preview_url(w.draft.id),
        lambda url: bool(url),
    ),
    "freepublish/get": (
        "/cgi-bin/freepublish/get",
        # One poll meets the fault (polls are never retried inside: each costs budget);
        # wait() polls again after its next pause.
        lambda w: w.wechat.wait(w.ticket),
        lambda post: post is not None and post.url.startswith("https://mp.weixin.qq.com/s"),
    ),
    "draft/batchget": (
        "/cgi-bin/draft/batchget",
        lambda w: w.wechat.reconcile("draft", Intent(started_at=0, title=TITLE)),
        lambda answer: answer.happened is True,
    ),
    "freepublish/batchget": (
        "/cgi-bin/freepublish/batchget",
        lambda w: (
            w.clock.advance(60),
            w.wechat.reconcile("publish", Intent(started_at=0, title="已发表的一期")),
        )[1],
        lambda answer: answer.happened is True and answer.remote_id,
    ),
}


@pytest.mark.parametrize("fault", RECOVERABLE)
@pytest.mark.parametrize("call", list(IDEMPOTENT))
def test_idempotent_calls_recover(world: World, call: str, fault: str) -> None:
    path, op, good = IDEMPOTENT[call]
    if call == "stable_token" and fault == "token_expired":
        pytest.skip("the token endpoint takes no token")
    world.box.faults.add("wechat", path, fault, count=1)
    before = world.calls(path)
    assert good(op(world))
    passes_over = fault == "commit_then_drop" and not world.box.wechat.is_mutating("POST", path)
    # An invalidated token is fetched twice (normal mode returns the refused token, then
    # force_refresh); every other operation is one request. A fault costs exactly one more.
    base = 2 if call == "stable_token" else 1
    expected = base if fault == "latency:200" or passes_over else base + 1
    assert world.calls(path) - before == expected


@pytest.mark.parametrize("fault", ["reset", "http:500", "errcode:-1", "http:429"])
def test_every_publish_status_request_is_one_poll_of_the_daily_budget(
    world: World, fault: str
) -> None:
    world.box.faults.add("wechat", "/cgi-bin/freepublish/get", fault, count=1)
    used = world.wechat.api.polls.used()
    before = world.calls("/cgi-bin/freepublish/get")
    assert world.wechat.poll(world.ticket) is None  # failed: the next poll is the retry
    assert world.wechat.poll(world.ticket) is not None
    sent = world.calls("/cgi-bin/freepublish/get") - before
    assert sent == 2 and world.wechat.api.polls.used() - used == sent


@pytest.mark.parametrize(
    ("fault", "error", "code"),
    [
        ("errcode:45009", RateLimitedError, "45009"),
        ("errcode:48004", PermanentError, "48004"),
    ],
)
@pytest.mark.parametrize("call", list(IDEMPOTENT))
def test_idempotent_calls_stop_at_once_on_quota_and_permanent_errors(
    world: World, call: str, fault: str, error: type[Exception], code: str
) -> None:
    path, op, _ = IDEMPOTENT[call]
    world.box.faults.add("wechat", path, fault, count=1)
    before = world.calls(path)
    sleeps = len(world.clock.sleeps)
    if call == "freepublish/get":  # one poll, not wait(): the quota stops it at once
        op = lambda w: w.wechat.poll(w.ticket)  # noqa: E731
    if call == "draft/get":  # a preview link is a nicety: its failure is logged, not raised
        assert op(world) is None
    else:
        with pytest.raises(error, match=f"errcode {code}"):
            op(world)
    assert world.calls(path) - before == 1
    assert world.clock.sleeps[sleeps:] == []


# --- irreversible calls ---------------------------------------------------------------

AMBIGUOUS = [
    "reset",
    "http:500",
    "http:502",
    "http:503",
    "errcode:-1",
    "commit_then_drop",
    "relay_json:403",
]
REFUSED = ["http:429", "errcode:45009", "errcode:45011"]


def create(w: World) -> RemoteDraft:
    return w.wechat.create_draft(content(w.wechat, "新的一期"))


def submit(w: World) -> PublishTicket:
    return w.wechat.publish(w.draft)


def intent_of(w: World, call: str) -> Intent:
    if call == "draft/add":
        known = tuple(d["media_id"] for d in w.snapshot()["drafts"])
        return Intent(
            started_at=w.clock(),
            title="新的一期",
            author="OneFlow",
            digest="一句话摘要",
            known_ids=known,
        )
    known = tuple(a["article_id"] for a in w.snapshot()["published"])
    return Intent(started_at=w.clock(), title=TITLE, draft_id=w.draft.id, known_ids=known)


IRREVERSIBLE: dict[str, tuple[str, Op]] = {
    "draft/add": ("/cgi-bin/draft/add", create),
    "freepublish/submit": ("/cgi-bin/freepublish/submit", submit),
}


def truth(w: World, call: str, intent: Intent) -> set[str]:
    """What the platform really did since the intent: new draft or article ids."""
    if call == "draft/add":
        ids = {d["media_id"] for d in w.snapshot()["drafts"]}
    else:
        ids = {a["article_id"] for a in w.snapshot()["published"]}
    return ids - set(intent.known_ids)


@pytest.mark.parametrize("fault", AMBIGUOUS)
@pytest.mark.parametrize("call", list(IRREVERSIBLE))
def test_irreversible_calls_are_unconfirmed_and_reconcile_finds_the_truth(
    world: World, call: str, fault: str
) -> None:
    path, op = IRREVERSIBLE[call]
    intent = intent_of(world, call)
    world.box.faults.add("wechat", path, fault, count=1)
    before = world.calls(path)
    with pytest.raises(UnconfirmedError, match="may or may not") as caught:
        op(world)
    assert caught.value.exit_code == 3
    assert world.calls(path) - before == 1  # sent exactly once
    # Past the settle window (a slow draft/add may still land) and the time a real
    # publish could still be running.
    world.clock.advance(601)
    answer = world.wechat.reconcile("draft" if call == "draft/add" else "publish", intent)
    happened = truth(world, call, intent)
    assert answer.happened is (fault == "commit_then_drop")
    if answer.happened:
        assert {answer.remote_id} == happened
        if call == "draft/add":
            assert answer.url and answer.url.startswith("http")
        else:  # WeChat lists the article with a temporary link only: URL pending
            assert answer.url is None and answer.url_pending and "tempkey=" in answer.detail
    else:
        assert happened == set()


@pytest.mark.parametrize("fault", REFUSED)
@pytest.mark.parametrize("call", list(IRREVERSIBLE))
def test_irreversible_calls_refused_by_rate_limits_are_not_retried(
    world: World, call: str, fault: str
) -> None:
    path, op = IRREVERSIBLE[call]
    intent = intent_of(world, call)
    world.box.faults.add("wechat", path, fault, count=1)
    before = world.calls(path)
    with pytest.raises(RateLimitedError) as caught:
        op(world)
    assert world.calls(path) - before == 1
    assert caught.value.exit_code == 75
    assert str(caught.value.code) in fault
    world.clock.advance(601)
    answer = world.wechat.reconcile("draft" if call == "draft/add" else "publish", intent)
    assert answer.happened is False
    assert truth(world, call, intent) == set()


@pytest.mark.parametrize("fault", ["latency:200", "token_expired"])
@pytest.mark.parametrize("call", list(IRREVERSIBLE))
def test_irreversible_calls_survive_latency_and_token_expiry_exactly_once(
    world: World, call: str, fault: str
) -> None:
    path, op = IRREVERSIBLE[call]
    intent = intent_of(world, call)
    world.box.faults.add("wechat", path, fault, count=1)
    op(world)
    world.clock.advance(60)
    world.wechat.api.preview_url(world.draft.id)  # any call lets a running publish finish
    assert len(truth(world, call, intent)) == 1


@pytest.mark.parametrize(
    ("call", "fault", "code"),
    [
        ("draft/add", "errcode:45002", "45002"),
        ("draft/add", "errcode:45003", "45003"),
        ("freepublish/submit", "errcode:53503", "53503"),
        ("freepublish/submit", "errcode:53500", "53500"),
    ],
)
def test_irreversible_calls_stop_on_permanent_errors_naming_the_code(
    world: World, call: str, fault: str, code: str
) -> None:
    path, op = IRREVERSIBLE[call]
    world.box.faults.add("wechat", path, fault, count=1)
    before = world.calls(path)
    with pytest.raises(PermanentError, match=f"WeChat errcode {code} \\(") as caught:
        op(world)
    assert caught.value.exit_code == 1
    assert world.calls(path) - before == 1


def test_a_relays_json_is_never_read_as_an_empty_draft_box(world: World) -> None:
    """A lost draft/add is reconciled by listing 草稿箱. A relay's own JSON (HTTP 403, no
    errcode) was read as WeChat's answer listing nothing: "not created", and the next
    run made a second draft. Now the listing fails as trouble on the way, nothing decided."""
    intent = intent_of(world, "draft/add")
    world.box.faults.add("wechat", "/cgi-bin/draft/add", "commit_then_drop", count=1)
    with pytest.raises(UnconfirmedError):
        create(world)
    world.clock.advance(601)
    world.box.faults.add("wechat", "/cgi-bin/draft/batchget", "relay_json:403")

    with pytest.raises(TransientError, match="without errcode came back with HTTP 403") as caught:
        world.wechat.reconcile("draft", intent)

    assert caught.value.exit_code == 75
    assert "proxy, firewall or login page is in the way" in str(caught.value)
    assert len(truth(world, "draft/add", intent)) == 1  # the draft is there, and one only
