"""The Zhihu adapter against the Zhihu sandbox over loopback: every call, every fault.

What an editor would notice: the article is published once and its URL is right; a
network hiccup on a read or an image upload heals by itself; a lost answer to "create
draft" or "publish" stops with "unconfirmed" and reconcile tells the truth; a refusal
stops at once with the code in the message; an expired login says how to get a new
``z_c0``; no cookie ever shows up in logs, errors or the terminal; images go up once.

Time is a :class:`ManualClock` shared by the sandbox, the HTTP policy and the adapter:
every retry pause and image poll is recorded, none is waited for.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from PIL import Image

from crosspost.channels.base import (
    DraftContent,
    DraftLeftBehind,
    Intent,
    PublishTicket,
    RemoteDraft,
)
from crosspost.channels.http.policy import HttpPolicy, Reply, RetryPolicy
from crosspost.channels.registry import adapter_class
from crosspost.channels.zhihu.adapter import ZhihuAdapter
from crosspost.channels.zhihu.wire import (
    ClockSkewed,
    browser_headers,
    check_oss,
    check_reply,
    draft_id_of,
    oss_headers,
    published_id,
)
from crosspost.config.settings import Account, Secret
from crosspost.errors import (
    AuthError,
    ChannelError,
    ConfigError,
    CrosspostError,
    PermanentError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)
from crosspost.images.pipeline import PreparedImage, SourceImage, prepare, read_source
from crosspost.ledger.store import Ledger
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock

BODY = "<p>这是一篇足够长的测试文章正文，用来通过知乎的字数检查。</p>"
CONTENT = DraftContent(title="AI系统前沿动态 第48期", html=BODY, options={"topics": ["人工智能"]})


@dataclass
class World:
    """One sandbox, one account on it, and what a test needs to look at."""

    box: Sandbox
    clock: ManualClock
    adapter: ZhihuAdapter
    state_dir: Path

    def adapter_for(self, account: Account) -> ZhihuAdapter:
        """Another account's adapter on the same sandbox, HTTP policy and clock."""
        return ZhihuAdapter(
            account,
            http=self.adapter.http,
            state_dir=self.state_dir,
            clock=self.clock,
            sleep=self.clock.sleep,
        )

    def calls(self, method: str, path_start: str) -> int:
        """How many requests of this kind reached the sandbox (answered or not)."""
        return sum(
            1
            for entry in self.box.requests
            if entry.platform == "zhihu"
            and entry.method == method
            and entry.path.startswith(path_start)
        )

    def fault(self, path: str, kind: str, count: int = 1, method: str | None = None) -> None:
        self.box.faults.add("zhihu", path, kind, count=count, method=method)

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = self.box.zhihu.snapshot()
        return snap

    def published(self) -> list[dict[str, Any]]:
        return [a for a in self.snapshot()["articles"] if a.get("state") == "published"]


def make_adapter(box: Sandbox, clock: ManualClock, state_dir: Path, **options: Any) -> ZhihuAdapter:
    creds = box.zhihu.credentials()
    account = Account(
        channel="zhihu",
        name="main",
        base_url=box.zhihu_url,
        credentials={"z_c0": Secret(creds["z_c0"]), "xsrf": Secret(creds["xsrf"])},
        options=options,
        credential_env={"z_c0": "ZHIHU_Z_C0", "xsrf": "ZHIHU_XSRF"},
    )
    http = HttpPolicy(
        clock=clock, sleep=clock.sleep, rng=lambda: 0.0, retry=RetryPolicy(max_attempts=4)
    )
    cls = adapter_class("zhihu")
    assert cls is ZhihuAdapter
    return ZhihuAdapter(account, http=http, state_dir=state_dir, clock=clock, sleep=clock.sleep)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    clock = ManualClock()
    options = {"zhihu": {"topics": ["人工智能", "深度学习"], "xsrf": "required"}}
    with Sandbox(clock=clock, sleep=clock.sleep, options=options) as box:
        adapter = make_adapter(box, clock, tmp_path / "state")
        yield World(box, clock, adapter, tmp_path / "state")


def png(seed: int, size: tuple[int, int] = (64, 48)) -> PreparedImage:
    image = Image.new("RGB", size, (seed * 20 % 256, 90, 200 - seed * 10 % 200))
    out = io.BytesIO()
    image.save(out, "PNG")
    source = SourceImage(f"img/{seed}.png", out.getvalue(), Path("issue.md"))
    return prepare(source, ZhihuAdapter.platform.image_policy("inline"))


# --- the happy path, as the publisher drives it ----------------------------------------


def test_publish_flow_gives_the_real_article_url_and_one_article(world: World) -> None:
    me = world.adapter.preflight()
    cover = world.adapter.upload_image(png(1, (900, 383)), "cover")
    draft = world.adapter.create_draft(
        DraftContent(title=CONTENT.title, html=BODY, cover=cover, options=CONTENT.options)
    )
    ticket = world.adapter.publish(draft)
    post = world.adapter.wait(ticket)

    assert me.identity == "沙盒编辑" and me.account == "zhihu:main"
    assert cover.url.startswith("https://pic") and ".zhimg.com/v2-" in cover.url
    assert len(draft.id) == 19 and draft.url == f"https://zhuanlan.zhihu.com/p/{draft.id}/edit"
    assert post is not None and post.url == f"https://zhuanlan.zhihu.com/p/{draft.id}"
    [article] = world.published()
    assert article["title"] == CONTENT.title and article["content"] == BODY
    assert [t["name"] for t in article["topics"]] == ["人工智能"]
    assert article["image_url"] == cover.url
    assert world.calls("POST", "/api/articles/drafts") == 1
    assert world.calls("POST", "/api/v4/content/publish") == 1


def test_a_published_article_is_updated_in_place(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    first = world.adapter.publish(draft)
    world.clock.advance(60)

    world.adapter.update_draft(
        draft.id, DraftContent(title="第48期（修订）", html=BODY + "<p>补</p>")
    )
    second = world.adapter.publish(draft)

    assert first.post == second.post
    [article] = world.published()
    assert article["title"] == "第48期（修订）" and article["content"].endswith("<p>补</p>")
    assert world.calls("POST", "/api/articles/drafts") == 1


def test_the_article_id_is_read_when_zhihu_sends_the_result_as_an_object(world: World) -> None:
    world.box.zhihu.update_options({"publish_result": "object"})

    ticket = world.adapter.publish(world.adapter.create_draft(CONTENT))

    assert ticket.post is not None and ticket.post.id == ticket.draft_id


def test_the_issue_column_is_found_by_title_and_the_article_put_in_it(world: World) -> None:
    content = DraftContent(title="收录", html=BODY, options={"column": "沙盒专栏"})

    ticket = world.adapter.publish(world.adapter.create_draft(content))
    assert ticket.post is not None
    [article] = world.published()
    assert article["column"] is None  # filing it is a part of its own, done next

    assert world.adapter.post_parts(content.options) == ("column",)
    world.adapter.complete_part("column", ticket.post, content.options)
    world.adapter.complete_part("column", ticket.post, content.options)  # idempotent

    [article] = world.published()
    assert article["column"]["title"] == "沙盒专栏"


def test_a_later_run_that_only_knows_the_draft_id_still_files_it_in_the_issue_column(
    world: World,
) -> None:
    content = DraftContent(title="收录", html=BODY, options={"column": "沙盒专栏"})
    draft = world.adapter.create_draft(content)
    later = make_adapter(world.box, world.clock, world.state_dir)  # a new process

    ticket = later.publish(RemoteDraft(draft.id, draft.url))
    assert ticket.post is not None
    later.complete_part("column", ticket.post, content.options)

    [article] = world.published()
    assert article["column"]["title"] == "沙盒专栏"


def test_an_unknown_column_stops_before_publishing(world: World) -> None:
    draft = world.adapter.create_draft(
        DraftContent(title="t", html=BODY, options={"column": "不存在的专栏"})
    )

    with pytest.raises(PermanentError, match="'不存在的专栏' is not one of this account's columns"):
        world.adapter.publish(draft)

    assert world.published() == []
    assert world.calls("POST", "/api/v4/content/publish") == 0


def test_an_unknown_topic_stops_before_a_draft_exists(world: World) -> None:
    with pytest.raises(PermanentError, match="Zhihu has no topic named '量子烹饪'"):
        world.adapter.create_draft(
            DraftContent(title="t", html=BODY, options={"topics": ["量子烹饪"]})
        )

    assert world.snapshot()["drafts"] == []


def test_topics_looked_up_ahead_are_not_searched_again_for_the_draft(world: World) -> None:
    two = {"topics": ["人工智能", "深度学习"]}
    world.adapter.look_ahead(two)
    assert world.calls("GET", "/api/autocomplete/topics") == 2

    draft = world.adapter.create_draft(DraftContent(title="t", html=BODY, options=two))

    assert world.calls("GET", "/api/autocomplete/topics") == 2
    assert world.calls("POST", f"/api/articles/{draft.id}/topics") == 2
    (made,) = world.snapshot()["drafts"]
    assert sorted(made["topics"]) == ["人工智能", "深度学习"]


def test_an_unknown_topic_looked_up_ahead_still_stops_before_a_draft_exists(
    world: World,
) -> None:
    unknown = {"topics": ["量子烹饪"]}
    world.adapter.look_ahead(unknown)  # never fatal: the draft step reports it

    with pytest.raises(PermanentError, match="Zhihu has no topic named '量子烹饪'"):
        world.adapter.create_draft(DraftContent(title="t", html=BODY, options=unknown))

    assert world.snapshot()["drafts"] == []


@pytest.mark.parametrize("done", ["success", "completed"])
def test_an_image_still_processing_is_polled_on_the_fake_clock(world: World, done: str) -> None:
    # Another editor's browser sent these bytes and Zhihu is still processing them
    # (I1 + OSS PUT, no I3): our upload finds the hash known and polls I4 until done.
    world.box.zhihu.update_options({"image_polls": 3, "image_done_status": done})
    image = png(2)
    editor = requests.Session()
    creds = world.box.zhihu.credentials()
    editor.headers.update(browser_headers(creds["z_c0"], creds["xsrf"]))
    announced = editor.post(
        f"{world.box.zhihu_url}/images", json={"image_hash": image.md5, "source": "article"}
    ).json()
    key = announced["upload_file"]["object_key"]
    put = editor.put(
        f"{world.box.zhihu_url}/{key}",
        data=image.data,
        headers=oss_headers(key, image.mime, announced["upload_token"], now=0),
    )
    assert put.status_code == 200
    world.box.log.clear()

    asset = world.adapter.upload_image(image, "inline")

    assert asset.url.endswith(image.md5) and asset.media_id
    assert world.calls("PUT", "/v2-") == 0  # the bytes were not sent again
    assert world.calls("GET", "/images/") == 4  # three "processing" answers, then done
    assert world.clock.sleeps[-3:] == [0.3, 0.5, 1.0]  # growing pauses, none waited for


@pytest.mark.parametrize(
    "options", [{"image_polls": 50}, {"require_upload_status": True}], ids=["slow", "needs-i3"]
)
def test_an_image_put_here_that_i4_never_calls_ready_takes_the_address_of_its_hash(
    world: World, caplog: pytest.LogCaptureFixture, options: dict[str, Any]
) -> None:
    # I4's last word is an open question (spec §11), and the tools that upload by the hash
    # never wait for it (Wechatsync v2, zhihu_obsidian): bytes put on OSS here are not a
    # failed post because Zhihu still says "processing" (or, I3 refused, never moves on).
    world.box.zhihu.update_options(options)
    world.fault("/images/*/uploading_status", "http:400", count=1, method="PUT")  # I3 refused
    image = png(13)

    asset = world.adapter.upload_image(image, "inline")

    assert asset.url == f"https://pic4.zhimg.com/v2-{image.md5}" and asset.media_id
    assert world.calls("PUT", "/v2-") == 1
    assert world.calls("GET", "/images/") == 9  # every check made, then no failure
    assert "the article uses the address derived from their hash" in caplog.text


def test_an_image_another_browser_sent_is_still_waited_for(world: World) -> None:
    """State 1 (Zhihu has the hash, these bytes were not put here): still processing
    after every check is temporary trouble, as before; nothing is derived from a hash
    whose bytes this run never saw arrive."""
    world.box.zhihu.update_options({"image_polls": 50})
    image = png(14)
    editor = requests.Session()
    creds = world.box.zhihu.credentials()
    editor.headers.update(browser_headers(creds["z_c0"], creds["xsrf"]))
    announced = editor.post(
        f"{world.box.zhihu_url}/images", json={"image_hash": image.md5, "source": "article"}
    ).json()
    key = announced["upload_file"]["object_key"]
    editor.put(
        f"{world.box.zhihu_url}/{key}",
        data=image.data,
        headers=oss_headers(key, image.mime, announced["upload_token"], now=0),
    )

    with pytest.raises(TransientError, match="still processing image"):
        world.adapter.upload_image(image, "inline")
    assert world.calls("PUT", "/v2-") == 1  # the other browser's, not ours


def test_the_oss_upload_is_signed_as_aliyun_checks_it(world: World) -> None:
    world.box.zhihu.update_options({"verify_oss_signature": True})

    asset = world.adapter.upload_image(png(11), "inline")

    assert asset.url.endswith(png(11).md5)
    assert [e.status for e in world.box.requests if e.path.startswith("/v2-")] == [200]


def test_an_upload_from_a_machine_whose_clock_is_off_is_signed_with_the_hosts_time(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    # Aliyun refuses a PUT dated more than 15 minutes off its clock (RequestTimeTooSkewed,
    # naming its time); the browser's uploader (ali-oss) signs once more with that time.
    world.box.zhihu.update_options({"oss_clock_ahead": 3600, "verify_oss_signature": True})

    asset = world.adapter.upload_image(png(15), "inline")

    assert asset.url.endswith(png(15).md5)
    assert [e.status for e in world.box.requests if e.path.startswith("/v2-")] == [403, 200]
    assert "clock is -3600 s off the clock of Zhihu's image host" in caplog.text


def test_a_skewed_clock_refusal_without_the_hosts_time_says_to_set_the_clock() -> None:
    # Aliyun's samples lay the code out on lines of its own; no ServerTime, no Date.
    xml = b"<Error>\n  <Code>\n    RequestTimeTooSkewed\n  </Code>\n</Error>"
    with pytest.raises(ClockSkewed, match="clock is more than 15 minutes off") as caught:
        check_oss(Reply("PUT", "/v2-x", 403, {}, xml))
    assert caught.value.server_time is None and caught.value.exit_code == 1


def test_a_refused_oss_upload_names_the_oss_code_and_is_not_hammered(world: World) -> None:
    world.fault("/v2-*", "oss:403", count=5)

    with pytest.raises(
        PermanentError, match=r"image host refused the upload \(HTTP 403 SignatureDoesNotMatch"
    ):
        world.adapter.upload_image(png(12), "inline")

    assert world.calls("PUT", "/v2-") == 1


def test_an_image_zhihu_already_has_is_not_sent_again(world: World) -> None:
    first = world.adapter.upload_image(png(3), "inline")
    again = world.adapter.upload_image(png(3), "inline")

    assert first == again
    assert world.calls("POST", "/images") == 2 and world.calls("PUT", "/v2-") == 1


def test_the_md5_an_upload_names_the_image_by_is_worked_out_ahead_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ready_upload`` (the publisher's image thread, while the first call is out) hashes
    the bytes; the upload then announces the image by that MD5 without hashing again."""
    import hashlib
    import sys

    from crosspost.images import pipeline

    image = png(4)
    hashed: list[bytes] = []
    real = hashlib.md5

    def md5(data: bytes, **options: Any) -> Any:
        if sys._getframe(1).f_globals["__name__"] == pipeline.__name__:  # not the sandbox's
            hashed.append(data)
        return real(data, **options)

    monkeypatch.setattr(pipeline.hashlib, "md5", md5)
    world.adapter.ready_upload(image)
    assert hashed == [image.data]
    asset = world.adapter.upload_image(image, "inline")
    assert hashed == [image.data]  # not again
    assert real(image.data).hexdigest() in asset.url


# --- the issue's acceptance: 12 images, published twice, uploaded once -----------------


def test_an_issue_with_12_images_published_twice_uploads_each_image_once(
    world: World, tmp_path: Path
) -> None:
    issue = tmp_path / "issue.md"
    refs = []
    for index in range(12):
        path = tmp_path / "images" / f"fig{index}.png"
        path.parent.mkdir(exist_ok=True)
        Image.new("RGB", (120 + index, 80), (index * 20, 40, 90)).save(path)
        refs.append(f"images/fig{index}.png")
    body = "".join(f'<p>第{i}图</p><img src="{ref}">' for i, ref in enumerate(refs))
    issue.write_text("---\ntitle: 十二图\n---\n" + "\n".join(f"![]({r})" for r in refs), "utf-8")

    def publish_once() -> str:
        # The ledger is the asset cache (as in the publisher): per account, by digest.
        assets = {}
        with Ledger.open(world.state_dir / "ledger.sqlite3", clock=world.clock) as ledger:
            for ref in dict.fromkeys(refs + refs[:3]):  # an image used twice: one upload
                prepared = prepare(
                    read_source(ref, issue), ZhihuAdapter.platform.image_policy("inline")
                )
                asset = ledger.find_asset("zhihu", "main", prepared.digest, "inline")
                if asset is None:
                    asset = world.adapter.upload_image(prepared, "inline")
                    ledger.save_asset("zhihu", "main", prepared.digest, "inline", asset)
                assets[ref] = asset
        html = body
        for ref, asset in assets.items():
            html = html.replace(f'src="{ref}"', f'src="{asset.url}"')
        draft = world.adapter.create_draft(DraftContent(title="十二图", html=html))
        ticket = world.adapter.publish(draft)
        assert ticket.post is not None
        return html

    first_html = publish_once()
    second_html = publish_once()

    assert world.calls("POST", "/images") == 12
    assert world.calls("PUT", "/v2-") == 12
    assert first_html == second_html and "images/" not in first_html
    assert first_html.count("zhimg.com/v2-") == 12


def test_a_lost_image_cache_costs_no_second_upload_of_the_bytes(world: World) -> None:
    for _ in range(2):  # no cache at all: the second run asks Zhihu again
        assert world.adapter.upload_image(png(7), "inline").url

    assert world.calls("PUT", "/v2-") == 1  # Zhihu's own MD5 dedup: state 1, no PUT


# --- the fault matrix -------------------------------------------------------------------

TRANSIENT_KINDS = [
    "latency:800",
    "reset",
    "http:500",
    "http:502",
    "http:503",
    "http:429",
    "commit_then_drop",
]

Setup = Callable[[World], Any]
Run = Callable[[World, Any], Any]


def _nothing(world: World) -> None:
    return None


def _a_draft(world: World) -> RemoteDraft:
    return world.adapter.create_draft(CONTENT)


def _a_ticket(world: World) -> PublishTicket:
    ticket = world.adapter.publish(world.adapter.create_draft(CONTENT))
    return PublishTicket(ticket.id, ticket.draft_id, ticket.submitted_at)  # without its post


#: call → (method, path pattern, set-up before the fault is armed, the call itself).
IDEMPOTENT: dict[str, tuple[str, str, Setup, Run]] = {
    "preflight": ("GET", "/api/v4/me", _nothing, lambda w, _: w.adapter.preflight()),
    "announce image": (
        "POST",
        "/images",
        _nothing,
        lambda w, _: w.adapter.upload_image(png(4), "inline"),
    ),
    "oss put": ("PUT", "/v2-*", _nothing, lambda w, _: w.adapter.upload_image(png(5), "inline")),
    "upload status": (
        "PUT",
        "/images/*/uploading_status",
        _nothing,
        lambda w, _: w.adapter.upload_image(png(6), "inline"),
    ),
    "image poll": (
        "GET",
        "/images/*",
        _nothing,
        lambda w, _: w.adapter.upload_image(png(8), "inline"),
    ),
    "topic search": (
        "GET",
        "/api/autocomplete/topics",
        _nothing,
        lambda w, _: w.adapter.create_draft(CONTENT),
    ),
    "attach topic": (
        "POST",
        "/api/articles/*/topics",
        _a_draft,
        lambda w, d: w.adapter.update_draft(d.id, CONTENT),
    ),
    "patch draft": (
        "PATCH",
        "/api/articles/*/draft",
        _a_draft,
        lambda w, d: w.adapter.update_draft(d.id, CONTENT),
    ),
    "read draft": ("GET", "/api/articles/*/draft", _a_ticket, lambda w, t: w.adapter.poll(t)),
}


#: Every (call, fault) pair; the sandbox drops answers only of calls that change something.
MATRIX = [
    pytest.param(call, kind, id=f"{call}-{kind}")
    for call, (method, *_) in IDEMPOTENT.items()
    for kind in TRANSIENT_KINDS
    if not (kind == "commit_then_drop" and method == "GET")
]


@pytest.mark.parametrize(("call", "kind"), MATRIX)
def test_idempotent_calls_recover_from_transient_faults(world: World, call: str, kind: str) -> None:
    method, path, setup, run = IDEMPOTENT[call]
    prepared = setup(world)
    world.box.log.clear()
    world.fault(path, kind, method=method)

    result = run(world, prepared)

    assert result is not None
    if kind.startswith("latency"):
        assert 0.8 in world.clock.sleeps  # the sandbox was slow (on the fake clock) and
        return  # a slow answer is still an answer: no retry needed
    hit = [e for e in world.box.requests if e.fault == kind]
    assert len(hit) == 1  # the fault fired, and the call still succeeded
    assert world.calls(method, path.split("*")[0]) >= 2  # retried after the fault


IRREVERSIBLE = {
    "create draft": ("POST", "/api/articles/drafts"),
    "publish": ("POST", "/api/v4/content/publish"),
}


def _attempt(world: World, call: str) -> tuple[Intent, RemoteDraft | None]:
    """Run the irreversible call the way the publisher does: intent first, then the call."""
    if call == "create draft":
        return Intent.for_draft(CONTENT, world.clock()), None
    draft = world.adapter.create_draft(CONTENT)
    intent = Intent(started_at=world.clock(), title=CONTENT.title, draft_id=draft.id)
    # Zhihu stamps articles in whole seconds: the call lands in a later second than the
    # intent, as it does in life (within the same second reconcile must say "not proven").
    world.clock.advance(1.5)
    return intent, draft


@pytest.mark.parametrize(
    ("kind", "happened"),
    [
        ("reset", False),
        ("http:500", False),
        ("http:502", False),
        ("http:503", False),
        ("commit_then_drop", True),
    ],
)
@pytest.mark.parametrize("call", list(IRREVERSIBLE))
def test_irreversible_calls_are_unconfirmed_and_reconcile_finds_the_truth(
    world: World, call: str, kind: str, happened: bool
) -> None:
    method, path = IRREVERSIBLE[call]
    intent, draft = _attempt(world, call)
    world.fault(path, kind)

    with pytest.raises(UnconfirmedError) as caught:
        if draft is None:
            world.adapter.create_draft(CONTENT)
        else:
            world.adapter.publish(draft)

    assert caught.value.exit_code == 3 and "reconcile" in str(caught.value)
    assert world.calls(method, path) == 1  # never retried blindly
    truth = world.adapter.reconcile("draft" if draft is None else "publish", intent)
    if draft is not None:
        assert truth.happened is happened
        assert bool(world.published()) is happened
        if happened:
            assert truth.url == f"https://zhuanlan.zhihu.com/p/{draft.id}"
    else:
        # Zhihu cannot list drafts: reconcile says so; a lost draft is private.
        assert truth.happened is False and "cannot list drafts" in truth.detail
        assert len(world.snapshot()["drafts"]) == (1 if happened else 0)
        assert world.published() == []


@pytest.mark.parametrize("call", list(IRREVERSIBLE))
def test_irreversible_calls_survive_latency_exactly_once(world: World, call: str) -> None:
    method, path = IRREVERSIBLE[call]
    _, draft = _attempt(world, call)
    world.fault(path, "latency:800")

    result = world.adapter.create_draft(CONTENT) if draft is None else world.adapter.publish(draft)

    assert result is not None and 0.8 in world.clock.sleeps
    assert world.calls(method, path) == 1
    assert len(world.snapshot()["drafts"]) == 1


def test_a_draft_whose_id_never_reached_the_ledger_is_found_in_the_journal(
    world: World,
) -> None:
    # The run was killed after Zhihu answered "draft 123" but before the ledger wrote 123.
    older = world.adapter.create_draft(CONTENT)  # an earlier draft with the same title
    world.clock.advance(30)
    intent = Intent.for_draft(CONTENT, world.clock(), known_ids=(older.id,))
    created = world.adapter.create_draft(CONTENT)
    with world.adapter.journal.path.open("a", encoding="utf-8") as journal:
        journal.write('{"id": "12", "title": "cut sh')  # a line cut short by a crash

    truth = world.adapter.reconcile("draft", intent)

    assert truth.happened is True and truth.remote_id == created.id != older.id
    assert truth.url == f"https://zhuanlan.zhihu.com/p/{created.id}/edit"
    deleted = requests.Session()
    creds = world.box.zhihu.credentials()
    deleted.headers.update(browser_headers(creds["z_c0"], creds["xsrf"]))
    assert deleted.delete(f"{world.box.zhihu_url}/api/articles/{created.id}/draft").ok
    assert world.adapter.reconcile("draft", intent).happened is False  # noted, but gone


def test_a_known_draft_id_is_reconciled_by_reading_it(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    intent = Intent(started_at=world.clock(), title=CONTENT.title, draft_id=draft.id)

    assert world.adapter.reconcile("draft", intent).happened is True
    gone = Intent(started_at=world.clock(), draft_id="1999999999999999999")
    assert world.adapter.reconcile("draft", gone).happened is False


def test_a_lost_update_of_a_live_article_is_reconciled_as_not_done(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    world.adapter.publish(draft)
    world.clock.advance(120)
    intent = Intent(started_at=world.clock(), draft_id=draft.id, known_ids=(draft.id,))
    world.fault("/api/v4/content/publish", "reset")

    with pytest.raises(UnconfirmedError):
        world.adapter.publish(draft)

    assert world.adapter.reconcile("publish", intent).happened is False


@pytest.mark.parametrize("call", list(IRREVERSIBLE))
@pytest.mark.parametrize("kind", ["http:429", "zhihu:40362"])
def test_irreversible_calls_refused_for_rate_are_retryable_later(
    world: World, call: str, kind: str
) -> None:
    method, path = IRREVERSIBLE[call]
    _, draft = _attempt(world, call)
    world.fault(path, kind)

    with pytest.raises(RateLimitedError) as caught:
        world.adapter.create_draft(CONTENT) if draft is None else world.adapter.publish(draft)

    assert caught.value.exit_code == 75
    assert world.calls(method, path) == 1
    assert world.published() == []


def test_risk_control_40362_stops_reads_too_and_says_how_long_to_wait(world: World) -> None:
    world.fault("/api/v4/me", "zhihu:40362", count=5)

    with pytest.raises(RateLimitedError) as caught:
        world.adapter.preflight()

    assert caught.value.code == 40362 and (caught.value.retry_after or 0) >= 1800
    assert "Zhihu 40362" in str(caught.value) and "wait at least 30 minutes" in str(caught.value)
    assert world.calls("GET", "/api/v4/me") == 1  # no hammering a throttled account


@pytest.mark.parametrize(
    ("path", "kind", "code", "words"),
    [
        ("/api/v4/me", "zhihu:40352", 40352, "anti-bot check wants a human"),
        ("/api/articles/drafts", "zhihu:10003", 10003, "refused the shape of this request"),
        ("/api/v4/content/publish", "publish_code:1", 1, "the article was not published"),
    ],
)
def test_permanent_errors_stop_after_one_attempt_naming_the_code(
    world: World, path: str, kind: str, code: int, words: str
) -> None:
    draft = world.adapter.create_draft(CONTENT) if "publish" in path else None
    world.fault(path, kind, count=10)

    with pytest.raises(PermanentError) as caught:
        if path == "/api/v4/me":
            world.adapter.preflight()
        elif draft is None:
            world.adapter.create_draft(CONTENT)
        else:
            world.adapter.publish(draft)

    assert (
        caught.value.code == code and f"{code}" in str(caught.value) and words in str(caught.value)
    )
    assert caught.value.exit_code == 1
    assert world.calls("GET" if path == "/api/v4/me" else "POST", path) == 1
    assert world.published() == []


#: What the sandbox's front proxy sends for ``http:403``: a page, where Zhihu sends JSON.
PAGE_403 = 'an HTML page came back (HTTP 403, "403 Forbidden") instead of Zhihu\'s JSON'


def test_an_html_page_on_the_login_check_is_temporary_and_says_what_is_in_the_way(
    world: World,
) -> None:
    """A company proxy or a web firewall answering for Zhihu: run again later, not "Zhihu
    changed its API" (which stopped the post for good)."""
    world.fault("/api/v4/me", "http:403", count=10)

    with pytest.raises(TransientError) as caught:
        world.adapter.preflight()

    assert str(caught.value) == (
        f"Zhihu GET /api/v4/me: {PAGE_403}, so a proxy, firewall or login page is in the "
        "way; run again later, and if it repeats, check the proxy settings and the firewall "
        "(gave up after 4 attempts)"
    )
    assert caught.value.exit_code == 75
    assert world.calls("GET", "/api/v4/me") == 4  # a read: retried like any hiccup
    assert world.snapshot()["drafts"] == []


def test_an_html_page_answering_a_draft_creation_is_unconfirmed_not_retried(
    world: World,
) -> None:
    world.fault("/api/articles/drafts", "http:403")

    with pytest.raises(UnconfirmedError) as caught:
        world.adapter.create_draft(CONTENT)

    assert str(caught.value) == (
        f"Zhihu draft creation for zhihu:main: {PAGE_403} after sending; a private draft "
        "may exist — reconcile before creating another"
    )
    assert world.calls("POST", "/api/articles/drafts") == 1


@pytest.mark.parametrize(
    ("status", "body", "irreversible", "error", "words"),
    [
        (200, b"<!DOCTYPE html><title>Wi-Fi login</title>", False, TransientError, "in the way"),
        (403, b"Forbidden by policy", False, TransientError, "in the way"),
        (200, b"ok", False, PermanentError, "Zhihu may have changed this endpoint, report it"),
        (403, b"<html>blocked</html>", True, UnconfirmedError, "may or may not have happened"),
    ],
)
def test_an_answer_that_is_not_json_is_judged_by_what_it_is(
    status: int, body: bytes, irreversible: bool, error: type[Exception], words: str
) -> None:
    reply = Reply("GET", "/api/v4/me", status, {}, body)
    with pytest.raises(error) as caught:
        check_reply(reply, irreversible=irreversible)
    assert words in str(caught.value) and ".md" not in str(caught.value)


def test_a_json_refusal_of_the_login_check_stays_permanent(world: World) -> None:
    world.fault("/api/v4/me", "zhihu:40352", count=10)  # Zhihu's own 403, in JSON

    with pytest.raises(PermanentError) as caught:
        world.adapter.preflight()

    assert not isinstance(caught.value, TransientError) and caught.value.exit_code == 1
    assert world.calls("GET", "/api/v4/me") == 1


def test_publish_code_4000_is_unconfirmed_and_reconcile_says_not_published(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    intent = Intent(started_at=world.clock(), draft_id=draft.id)
    world.fault("/api/v4/content/publish", "publish_code")

    with pytest.raises(UnconfirmedError, match="Zhihu publish code 4000"):
        world.adapter.publish(draft)

    assert world.adapter.reconcile("publish", intent).happened is False


def test_an_expired_login_says_how_to_get_a_new_z_c0(world: World) -> None:
    world.box.zhihu.expire_ticket()

    with pytest.raises(AuthError) as caught:
        world.adapter.preflight()

    message = str(caught.value)
    assert "Zhihu 100 (ERR_LOGIN_TICKET_EXPIRED) on GET /api/v4/me" in message
    assert "devtools → Application → Cookies → https://www.zhihu.com" in message
    assert "copy the value of z_c0 into the environment variable ZHIHU_Z_C0" in message
    assert caught.value.exit_code == 1
    assert world.calls("GET", "/api/v4/me") == 1
    assert world.snapshot()["drafts"] == []


def test_a_second_accounts_expired_login_names_its_own_variables(world: World) -> None:
    """Each message names the variables the account's config reads (cookie_env,
    xsrf_env): a second account told to fix ZHIHU_Z_C0 would fix the first one's."""
    account = world.adapter.account
    names = {"z_c0": "ZHIHU_TEAM_Z_C0", "xsrf": "ZHIHU_TEAM_XSRF", "d_c0": "ZHIHU_TEAM_D_C0"}
    team = Account("zhihu", "team", account.base_url, account.credentials, credential_env=names)
    adapter = world.adapter_for(team)
    world.box.zhihu.expire_ticket()

    with pytest.raises(AuthError) as caught:
        adapter.preflight()

    assert "into the environment variable ZHIHU_TEAM_Z_C0" in str(caught.value)
    assert "ZHIHU_Z_C0" not in str(caught.value)


@pytest.mark.parametrize(
    ("kind", "error", "words"),
    [
        ("redirect:signin", AuthError, "copy the value of z_c0 into the environment variable"),
        ("redirect:unhuman", PermanentError, "anti-bot check wants a human"),
        ("redirect:other", PermanentError, "with a redirect (HTTP 302) to https://www.zhihu.com/"),
    ],
)
def test_a_redirect_instead_of_an_answer_is_a_refusal_never_a_success(
    world: World, kind: str, error: type[Exception], words: str
) -> None:
    """Zhihu sends a write it will not serve to its login page or its anti-bot check: the
    content update "succeeded" with an empty answer, and an empty draft went public."""
    world.fault("/api/articles/*/draft", kind, method="PATCH", count=5)

    with pytest.raises(DraftLeftBehind) as caught:
        world.adapter.create_draft(CONTENT)

    assert isinstance(caught.value.cause, error) and words in str(caught.value.cause)
    assert world.calls("PATCH", "/api/articles/") == 1  # a refusal: not tried again
    assert world.published() == []


def test_a_refusal_sent_with_http_200_and_a_top_level_code_is_a_refusal(world: World) -> None:
    world.box.zhihu.update_options({"error_envelope": "top_level_200"})
    world.fault("/api/articles/*/draft", "zhihu:10003", method="PATCH")

    with pytest.raises(DraftLeftBehind) as caught:
        world.adapter.create_draft(CONTENT)

    assert "Zhihu 10003" in str(caught.value.cause)
    assert "refused the shape of this request" in str(caught.value.cause)
    assert world.published() == []


def test_an_expired_login_answered_with_a_page_still_says_log_in_again(world: World) -> None:
    world.fault("/api/v4/me", "http:401")

    with pytest.raises(AuthError, match="z_c0 cookie"):
        world.adapter.preflight()

    assert world.calls("GET", "/api/v4/me") == 1


def test_a_failure_after_the_draft_exists_keeps_the_draft(world: World) -> None:
    world.fault("/api/articles/*/draft", "zhihu:40352", method="PATCH")

    with pytest.raises(DraftLeftBehind) as caught:
        world.adapter.create_draft(CONTENT)

    [draft] = world.snapshot()["drafts"]
    assert caught.value.draft == RemoteDraft(
        draft["id"], f"https://zhuanlan.zhihu.com/p/{draft['id']}/edit"
    )
    assert f"draft {draft['id']} was created" in str(caught.value)
    assert caught.value.exit_code == 3  # never create again: reconcile finds it
    assert isinstance(caught.value.cause, ChannelError) and caught.value.cause.code == 40352


# --- secrets -----------------------------------------------------------------------------


def test_no_cookie_or_upload_token_reaches_logs_errors_or_the_terminal(
    world: World, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    messages: list[str] = []
    world.adapter.preflight()
    world.adapter.upload_image(png(9), "inline")
    secrets = list(world.box.zhihu.secrets())  # includes the OSS STS keys handed out
    for path, kind in [
        ("/api/v4/me", "http:503"),
        ("/api/articles/drafts", "reset"),
        ("/api/v4/content/publish", "commit_then_drop"),
        ("/api/v4/me", "zhihu:40352"),
    ]:
        world.fault(path, kind, count=8)
        try:
            draft = world.adapter.create_draft(CONTENT)
            world.adapter.publish(draft)
            world.adapter.preflight()
        except CrosspostError as error:
            messages.append(str(error))
            messages.append(repr(error))
        world.box.faults.clear()
    world.box.zhihu.expire_ticket()
    try:
        world.adapter.preflight()
    except CrosspostError as error:
        messages.append(str(error))
    print(repr(world.adapter), world.adapter.account)

    captured = capsys.readouterr()
    text = "\n".join([*messages, caplog.text, captured.out, captured.err])
    assert len(messages) >= 4 and "ZHIHU_Z_C0" in text
    assert secrets and all(len(secret) >= 8 for secret in secrets)
    leaked = [secret[:6] + "…" for secret in secrets if secret in text]
    assert leaked == []


# --- edges an editor meets --------------------------------------------------------------


def test_a_missing_login_is_a_config_error_and_nothing_is_sent(world: World) -> None:
    account = world.adapter.account
    bare = Account("zhihu", "main", account.base_url, {}, credential_env=account.credential_env)
    adapter = world.adapter_for(bare)
    world.box.log.clear()

    with pytest.raises(ConfigError, match="set the environment variable ZHIHU_Z_C0") as caught:
        adapter.preflight()

    assert caught.value.exit_code == 2 and world.box.requests == []


def test_a_missing_xsrf_cookie_says_which_variable_to_set(world: World) -> None:
    account = world.adapter.account
    no_xsrf = Account(
        "zhihu",
        "main",
        account.base_url,
        {"z_c0": account.credentials["z_c0"]},
        credential_env=account.credential_env,
    )
    adapter = world.adapter_for(no_xsrf)

    assert adapter.preflight().identity  # reads need no XSRF echo
    with pytest.raises(AuthError, match=r"Copy the value of the _xsrf cookie .* into ZHIHU_XSRF"):
        adapter.create_draft(DraftContent(title="t", html=BODY))

    assert world.snapshot()["drafts"] == []


@pytest.mark.parametrize("envelope", ["wrapped", "top_level"])
def test_the_expired_login_is_recognised_in_either_error_envelope(
    world: World, envelope: str
) -> None:
    world.box.zhihu.update_options({"error_envelope": envelope})
    world.box.zhihu.expire_ticket()

    with pytest.raises(AuthError, match=r"Zhihu 100 .*z_c0"):
        world.adapter.upload_image(png(10), "inline")


def test_a_draft_deleted_on_zhihu_stops_publishing_and_reconciles_as_not_done(
    world: World,
) -> None:
    draft = world.adapter.create_draft(CONTENT)
    intent = Intent(started_at=world.clock(), draft_id=draft.id)
    editor = requests.Session()
    creds = world.box.zhihu.credentials()
    editor.headers.update(browser_headers(creds["z_c0"], creds["xsrf"]))
    assert editor.delete(f"{world.box.zhihu_url}/api/articles/{draft.id}/draft").ok

    later_run = make_adapter(world.box, world.clock, world.state_dir)  # a new process
    with pytest.raises(PermanentError, match=f"draft {draft.id} does not exist"):
        later_run.publish(draft)

    truth = world.adapter.reconcile("publish", intent)
    assert truth.happened is False and "no longer exists" in truth.detail
    assert world.adapter.poll(PublishTicket("x", draft.id, 0.0)) is None


def test_publishing_a_draft_just_created_skips_reading_it_back(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    reads_before = world.calls("GET", f"/api/articles/{draft.id}/draft")

    world.adapter.publish(draft)

    assert world.calls("GET", f"/api/articles/{draft.id}/draft") == reads_before
    assert world.calls("POST", "/api/v4/content/publish") == 1


def test_a_draft_deleted_right_after_this_run_created_it_fails_cleanly(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    editor = requests.Session()
    creds = world.box.zhihu.credentials()
    editor.headers.update(browser_headers(creds["z_c0"], creds["xsrf"]))
    assert editor.delete(f"{world.box.zhihu_url}/api/articles/{draft.id}/draft").ok

    with pytest.raises(ChannelError, match="4000"):
        world.adapter.publish(draft)

    assert world.box.zhihu.snapshot()["articles"] == []


def test_reconcile_without_a_draft_id_cannot_tell(world: World) -> None:
    assert world.adapter.reconcile("publish", Intent(started_at=0.0)).happened is None
    with pytest.raises(ValueError, match="nothing to reconcile for step 'upload'"):
        world.adapter.reconcile("upload", Intent(started_at=0.0))


def test_an_empty_patch_answer_is_accepted(world: World) -> None:
    world.box.zhihu.update_options({"patch_response": "no_content"})

    draft = world.adapter.create_draft(CONTENT)

    assert world.adapter.update_draft(draft.id, CONTENT) == draft


@pytest.mark.parametrize("code", ["40352", "100"])
def test_a_refused_column_leaves_the_article_published_and_the_part_raises(
    world: World, code: str
) -> None:
    options = {"column": "沙盒专栏"}
    draft = world.adapter.create_draft(DraftContent(title="t", html=BODY, options=options))
    world.fault("/api/v4/columns/*/items", f"zhihu:{code}")

    ticket = world.adapter.publish(draft)
    assert ticket.post is not None and ticket.post.url.startswith("https://zhuanlan.zhihu.com/p/")
    with pytest.raises(ChannelError, match=code):
        world.adapter.complete_part("column", ticket.post, options)

    [article] = world.published()
    assert article["column"] is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            {"code": 0, "data": {"result": '{"publish":{"id":"2002529657535345354"}}'}},
            "2002529657535345354",
        ),
        ({"code": 0, "data": {"result": {"publish": {"id": 101553734}}}}, "101553734"),
        ({"code": 0, "data": {"publish": {"id": "11"}}}, "11"),
        ({"code": 0, "publish": {"id": "12"}}, "12"),
        ({"code": 0, "data": {"result": "not json"}}, "draft-id"),
        ({"code": 0, "data": {"result": '{"publish":{"id":true}}'}}, "draft-id"),
        ({"code": 0}, "draft-id"),
    ],
    ids=[
        "result-string",
        "result-object",
        "data-publish",
        "top-publish",
        "garbled",
        "bool",
        "empty",
    ],
)
def test_the_published_id_is_read_from_every_shape_zhihu_has_used(
    answer: dict[str, Any], expected: str
) -> None:
    # Zhihu changed this answer once already and a tool printed "undefined" as the URL.
    assert published_id(answer, "draft-id") == expected


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"id": "2002036615099471373"}, "2002036615099471373"),
        ({"id": 101553734}, "101553734"),
        ({"url": "https://zhuanlan.zhihu.com/p/42"}, "42"),
        ({"id": True}, None),
        ([], None),
    ],
)
def test_a_draft_id_is_a_string_whatever_zhihu_sends(payload: Any, expected: str | None) -> None:
    assert draft_id_of(payload) == expected


# --- finding what already exists (before a first draft) ---------------------------------


def test_find_existing_finds_a_published_article_of_the_member_by_title(world: World) -> None:
    ticket = world.adapter.publish(world.adapter.create_draft(CONTENT))
    assert ticket.post is not None
    elsewhere = make_adapter(world.box, world.clock, world.state_dir / "other-machine")

    found = elsewhere.find_existing(Intent(started_at=world.clock(), title=CONTENT.title))

    assert found is not None and found.post == ticket.post
    assert elsewhere.find_existing(Intent(started_at=0.0, title="另一期")) is None
    known = Intent(started_at=0.0, title=CONTENT.title, known_ids=(ticket.post.id,))
    assert elsewhere.find_existing(known) is None  # another post of the ledger's


def test_find_existing_finds_a_draft_this_machine_noted(world: World) -> None:
    draft = world.adapter.create_draft(CONTENT)
    later = make_adapter(world.box, world.clock, world.state_dir)  # a new process

    found = later.find_existing(Intent(started_at=world.clock(), title=CONTENT.title))

    assert found is not None and (found.draft_id, found.post) == (draft.id, None)


@pytest.mark.parametrize("kind", ["zhihu:10003", "zhihu:40362", "http:502"])
def test_find_existing_goes_on_with_a_warning_when_zhihu_refuses_the_article_list(
    world: World, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    # Risk control throttles reads too (40362): the optional look-up stopped every post.
    world.fault("/api/v4/members/*/articles", kind, count=10)

    assert world.adapter.find_existing(Intent(started_at=0.0, title="t")) is None
    assert "could not list the Zhihu articles" in caplog.text
