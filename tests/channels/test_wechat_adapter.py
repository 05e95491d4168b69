"""The WeChat adapter against the WeChat sandbox over 127.0.0.1.

Clock and sleep are one :class:`ManualClock` shared by the sandbox, the HTTP policy and the
adapter, so tokens expire, publish jobs finish and retries wait without any real waiting.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from crosspost.channels.base import (
    DraftContent,
    Intent,
    ManualPublishRequired,
    PublicationRefused,
    RemoteDraft,
    RunMemo,
)
from crosspost.channels.http.policy import HttpPolicy, Reply
from crosspost.channels.wechat.adapter import WeChatAdapter, cover_crops
from crosspost.channels.wechat.errors import check_reply, describe
from crosspost.channels.wechat.token import PollBudget, _held
from crosspost.config.settings import Account, Secret
from crosspost.errors import (
    AuthError,
    PermanentError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)
from crosspost.images.pipeline import PreparedImage
from crosspost.ledger.assets import UploadedAsset
from crosspost.ledger.store import Ledger
from crosspost.platforms.wechat import WECHAT
from crosspost.sandbox.box import ManualClock, Sandbox

MakeBox = Callable[..., Sandbox]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_box(clock: ManualClock) -> Iterator[MakeBox]:
    boxes: list[Sandbox] = []

    def make(**wechat_options: Any) -> Sandbox:
        box = Sandbox(clock=clock, sleep=clock.sleep, options={"wechat": wechat_options})
        boxes.append(box.start())
        return box

    yield make
    for box in boxes:
        box.stop()


@pytest.fixture
def box(make_box: MakeBox) -> Sandbox:
    return make_box()


def adapter_for(
    box: Sandbox,
    clock: ManualClock,
    state: Path,
    *,
    secret: str | None = None,
    memo: RunMemo | None = None,
) -> WeChatAdapter:
    creds = box.wechat.credentials()
    account = Account(
        channel="wechat",
        name="main",
        base_url=box.wechat_url,
        credentials={
            "app_id": Secret(creds["app_id"]),
            "app_secret": Secret(secret or creds["app_secret"]),
        },
    )
    http = HttpPolicy(clock=clock, sleep=clock.sleep, rng=lambda: 0.0)
    return WeChatAdapter(
        account, http=http, state_dir=state, clock=clock, sleep=clock.sleep, memo=memo
    )


@pytest.fixture
def wechat(box: Sandbox, clock: ManualClock, tmp_path: Path) -> WeChatAdapter:
    return adapter_for(box, clock, tmp_path / "state")


def image(
    size: tuple[int, int] = (90, 38), fmt: str = "JPEG", noise: bool = False
) -> PreparedImage:
    if noise:  # incompressible pixels: a PNG over 1 MB
        picture = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    else:
        picture = Image.new("RGB", size, (40, 90, 160))
    buffer = io.BytesIO()
    picture.save(buffer, fmt)
    data = buffer.getvalue()
    mime = f"image/{fmt.lower()}"
    name = "figure." + ("jpg" if fmt == "JPEG" else fmt.lower())
    return PreparedImage(data, mime, name, hashlib.sha256(data).hexdigest(), *size)


def content(wechat: WeChatAdapter, title: str = "AI系统前沿动态48") -> DraftContent:
    cover = wechat.upload_image(image((900, 383)), "cover")
    return DraftContent(
        title=title,
        html="<section><p>正文</p></section>",
        author="OneFlow",
        digest="一句话摘要",
        cover=cover,
        cover_size=(900, 383),
        source_url="https://www.zhihu.com/org/oneflow-17",
        options={"need_open_comment": True},
    )


def calls(box: Sandbox, path: str) -> int:
    return sum(1 for r in box.requests if r.path == path)


def drafts(box: Sandbox) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = box.wechat.snapshot()["drafts"]
    return result


# --- the happy path, in both modes ------------------------------------------------------


def test_draft_mode_creates_one_draft_with_preview_link(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    assert wechat.preflight().identity == box.wechat.credentials()["app_id"]
    inline = wechat.upload_image(image(), "inline")
    assert inline.url.startswith("https://mmbiz.qpic.cn/") and inline.media_id is None
    draft = wechat.create_draft(content(wechat))
    assert draft.url and draft.url.startswith("http")
    [stored] = drafts(box)
    assert stored["media_id"] == draft.id
    article = stored["articles"][0]
    assert article["title"] == "AI系统前沿动态48"
    assert article["need_open_comment"] == 1
    assert article["pic_crop_1_1"] == cover_crops(900, 383)["pic_crop_1_1"]


def test_publish_mode_polls_until_the_post_url_is_known(
    box: Sandbox, wechat: WeChatAdapter, clock: ManualClock
) -> None:
    draft = wechat.create_draft(content(wechat))
    ticket = wechat.publish(draft)
    assert isinstance(ticket.id, str) and ticket.id.isdigit()
    post = wechat.wait(ticket)
    assert post is not None and post.url.startswith("https://mp.weixin.qq.com/s")
    assert clock.sleeps[:3] == [0.5, 1, 2]  # two answers of "publishing", then done
    assert drafts(box) == []  # a published draft leaves the draft box
    assert wechat.api.polls.used() == 3


def test_with_few_polls_left_today_they_are_spread_over_the_same_span(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    """WeChat allows 100 publish-status polls a day: with 3 left, the wait polls 3 times,
    the last as late as the tenth would have come, and leaves the quota at 0, not past it.
    (The sandbox's job ends on its third poll, however late.)"""
    wechat = adapter_for(make_box(publish_seconds=None), clock, tmp_path)
    for _ in range(97):
        wechat.api.polls.take()
    ticket = wechat.publish(wechat.create_draft(content(wechat)))
    before = len(clock.sleeps)
    assert wechat.wait(ticket) is not None
    assert clock.sleeps[before:] == [127.5, 120, 120]
    assert sum(clock.sleeps[before:]) == sum(WeChatAdapter.poll_delays)
    assert wechat.api.polls.left() == 0


def test_string_publish_ids_are_accepted(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    box = make_box(publish_id_type="str")
    wechat = adapter_for(box, clock, tmp_path)
    ticket = wechat.publish(wechat.create_draft(content(wechat)))
    assert wechat.wait(ticket) is not None


@pytest.mark.parametrize(("outcome", "reason"), [(3, "publishing failed"), (4, "review rejected")])
def test_failed_publication_names_the_reason_and_keeps_the_draft(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path, outcome: int, reason: str
) -> None:
    box = make_box(publish_outcome=outcome)
    wechat = adapter_for(box, clock, tmp_path)
    draft = wechat.create_draft(content(wechat))
    ticket = wechat.publish(draft)
    with pytest.raises(PublicationRefused, match=reason) as caught:
        wechat.wait(ticket)
    assert (caught.value.ticket_id, caught.value.removed) == (ticket.id, False)
    assert "the draft stays in 草稿箱" in str(caught.value)  # asked, not assumed
    assert str(caught.value).endswith("then run with --retry-failed to submit it again")
    assert [d["media_id"] for d in drafts(box)] == [draft.id]


@pytest.mark.parametrize(("shape", "known"), [("list", True), ("object", True), ("odd", False)])
def test_any_shape_of_article_detail_is_a_post_never_a_crash(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path, shape: str, known: bool
) -> None:
    """``item`` as the doc's list or one object (as the completion event nests it) names
    the URL; any other shape is a published post whose URL is not known yet (the
    published list gives only temporary links), asked for again later."""
    box = make_box(article_detail_shape=shape, publish_polls=0)
    wechat = adapter_for(box, clock, tmp_path)
    post = wechat.wait(wechat.publish(wechat.create_draft(content(wechat))))
    assert post is not None and post.id == box.wechat.snapshot()["published"][0]["article_id"]
    if known:
        assert post.url and post.url.startswith("https://mp.weixin.qq.com/s/")
        assert [link.index for link in post.articles] == [1]
    else:
        assert post.url is None and post.articles == ()


def test_a_failed_publication_whose_draft_left_the_draft_box_points_at_a_new_draft(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    draft = wechat.create_draft(content(wechat))
    ticket = wechat.publish(draft)
    box.wechat.account.drafts.pop(draft.id)  # deleted in 公众号后台 while publishing
    with pytest.raises(PublicationRefused, match="publish_status 3") as caught:
        wechat.wait(ticket)
    assert f"draft {draft.id} is no longer in 草稿箱 either" in str(caught.value)
    assert "run with --new-draft" in str(caught.value)


@pytest.mark.parametrize("outcome", [5, 6])
def test_a_publication_taken_down_after_it_was_out_is_over_without_a_draft_to_fix(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path, outcome: int
) -> None:
    box = make_box(publish_outcome=outcome)
    wechat = adapter_for(box, clock, tmp_path)
    ticket = wechat.publish(wechat.create_draft(content(wechat)))
    looks = calls(box, "/cgi-bin/draft/get")
    with pytest.raises(PublicationRefused, match="it was published, then") as caught:
        wechat.wait(ticket)
    assert caught.value.removed is True
    assert "no longer public" in str(caught.value) and "发表记录" in str(caught.value)
    assert "草稿箱" not in str(caught.value)
    assert calls(box, "/cgi-bin/draft/get") == looks  # no draft to look for: it went out


def test_a_lost_submit_of_a_draft_wechat_refused_is_submitted_once_more(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    """WeChat lists no refused submission: once the settle window has passed with the
    draft still in 草稿箱, the submit counts as not made. Sending it again publishes the
    article at most once (WeChat refuses it again, or publishes it)."""
    box = make_box(publish_outcome=4, publish_polls=0)
    wechat = adapter_for(box, clock, tmp_path)
    draft = wechat.create_draft(content(wechat))
    intent = Intent(started_at=clock(), title="AI系统前沿动态48", draft_id=draft.id)
    box.faults.add("wechat", "/cgi-bin/freepublish/submit", "commit_then_drop", count=1)
    with pytest.raises(UnconfirmedError):
        wechat.publish(draft)
    assert wechat.reconcile("publish", intent).happened is None
    clock.advance(601)
    assert wechat.reconcile("publish", intent).happened is False
    with pytest.raises(PublicationRefused):
        wechat.wait(wechat.publish(draft))


def test_an_unknown_publish_status_is_not_taken_for_a_failure(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    """A status WeChat has not documented says neither "published" nor "failed": the
    editor is never told to publish again (a second post), and reconcile waits."""
    box = make_box(publish_outcome=7)
    wechat = adapter_for(box, clock, tmp_path)
    draft = wechat.create_draft(content(wechat))
    ticket = wechat.publish(draft)
    clock.advance(60)
    assert wechat.poll(ticket) is None


def test_update_draft_changes_it_in_place(box: Sandbox, wechat: WeChatAdapter) -> None:
    first = wechat.create_draft(content(wechat))
    again = wechat.update_draft(first.id, content(wechat, title="第48期(修订)"))
    assert again.id == first.id
    [stored] = drafts(box)
    assert stored["articles"][0]["title"] == "第48期(修订)"


def test_update_of_a_vanished_draft_says_so(wechat: WeChatAdapter) -> None:
    with pytest.raises(PermanentError, match="no longer in 草稿箱") as caught:
        wechat.update_draft("no-such-draft", content(wechat))
    assert caught.value.code == 40007


def test_publishing_a_vanished_draft_says_what_updating_it_says(wechat: WeChatAdapter) -> None:
    """One handler for 40007 on a draft crosspost made: the same advice on every call."""
    with pytest.raises(PermanentError) as updating:
        wechat.update_draft("no-such-draft", content(wechat))
    with pytest.raises(PermanentError) as publishing:
        wechat.publish(RemoteDraft("no-such-draft"))
    assert str(publishing.value) == str(updating.value)
    assert "--new-draft" in str(publishing.value)


def test_large_inline_images_go_to_permanent_material(box: Sandbox, wechat: WeChatAdapter) -> None:
    big = image((700, 700), "PNG", noise=True)
    assert len(big.data) > 1024 * 1024
    asset = wechat.upload_image(big, "inline")
    assert asset.media_id
    assert calls(box, "/cgi-bin/material/add_material") == 1
    assert calls(box, "/cgi-bin/media/uploadimg") == 0


def test_an_inline_image_of_exactly_one_mib_is_not_sent_to_uploadimg(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    small = image()
    data = small.data + b"\0" * (1024 * 1024 - len(small.data))  # uploadimg wants < 1 MB
    exact = PreparedImage(data, "image/jpeg", "x.jpg", hashlib.sha256(data).hexdigest(), 90, 38)
    assert wechat.upload_image(exact, "inline").media_id
    assert calls(box, "/cgi-bin/media/uploadimg") == 0


def test_a_png_named_jpeg_gets_the_extension_of_its_type(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    png = image(fmt="PNG")
    named = PreparedImage(png.data, "image/png", "figure.jpeg", png.digest, 90, 38)
    # WeChat judges a file by its extension and its bytes: "figure.jpeg" holding PNG
    # bytes is refused (40005); crosspost sends it as "figure.jpeg.png".
    assert "/mmbiz_png/" in wechat.upload_image(named, "inline").url


def test_image_too_large_advice_quotes_the_limits_wechat_enforces() -> None:
    assert "uploadimg < 1 MB, material < 10 MB" in describe(
        40009, "", "POST /cgi-bin/media/uploadimg"
    )


@pytest.mark.parametrize(
    ("size", "wide", "square"),
    [
        ((940, 400), "0_0_1_1", "0.287234_0_0.712766_1"),
        ((1000, 1000), "0_0.287234_1_0.712766", "0_0_1_1"),
        ((400, 800), "0_0.393617_1_0.606383", "0_0.25_1_0.75"),
        ((2350, 500), "0.25_0_0.75_1", "0.393617_0_0.606383_1"),
    ],
)
def test_cover_crops_are_centred(size: tuple[int, int], wide: str, square: str) -> None:
    assert cover_crops(*size) == {"pic_crop_235_1": wide, "pic_crop_1_1": square}


# --- the token ---------------------------------------------------------------------------


def test_token_is_shared_between_processes_and_renewed_early(
    box: Sandbox, clock: ManualClock, tmp_path: Path
) -> None:
    one = adapter_for(box, clock, tmp_path)
    two = adapter_for(box, clock, tmp_path)  # another process: same state dir
    one.preflight()
    two.preflight()
    assert calls(box, "/cgi-bin/stable_token") == 1
    clock.advance(7200 - 299)  # inside the last five minutes
    two.preflight()
    assert calls(box, "/cgi-bin/stable_token") == 2
    assert (tmp_path / one.api.token.path.name).stat().st_mode & 0o777 == 0o600


def test_hosts_of_a_shared_ledger_share_one_token_and_one_poll_count(
    box: Sandbox, clock: ManualClock, tmp_path: Path, postgres_url: str
) -> None:
    """Two machines (two state dirs), one PostgreSQL ledger: one token, one day's count."""
    with Ledger.open(postgres_url, clock=clock) as ledger:
        one = adapter_for(box, clock, tmp_path / "a", memo=RunMemo(shared=ledger))
        two = adapter_for(box, clock, tmp_path / "b", memo=RunMemo(shared=ledger))
        one.preflight()
        two.preflight()
        assert calls(box, "/cgi-bin/stable_token") == 1
        assert not one.api.token.path.exists()  # in the ledger, not in a state dir
        box.faults.add("wechat", "/cgi-bin/draft/add", "token_expired", count=1)
        one.create_draft(content(one))  # refused token: dropped for both hosts
        assert calls(box, "/cgi-bin/stable_token") == 2
        two.preflight()
        assert calls(box, "/cgi-bin/stable_token") == 2
        one.api.polls.take()
        assert two.api.polls.used() == 1
        name = one.api.token.path.stem
        holder, asker = (ledger.shared_lock(name, timeout=t) for t in (1, 0))
        assert holder is not None and asker is not None
        refused = pytest.raises(TransientError, match="another crosspost run has held")
        with holder, refused, _held(asker, name):  # another host holds it: one line
            pass


def test_expired_token_is_refreshed_once_and_the_call_sent_once_more(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    wechat.preflight()
    box.faults.add("wechat", "/cgi-bin/draft/add", "token_expired", count=1)
    wechat.create_draft(content(wechat))
    assert len(drafts(box)) == 1
    assert calls(box, "/cgi-bin/draft/add") == 2


def test_token_refused_twice_stops_as_passing_trouble(box: Sandbox, wechat: WeChatAdapter) -> None:
    """A fresh token refused too is another fetcher of the AppID voiding ours (spec §2.1):
    temporary, and no third token nor third call in this run."""
    box.faults.add("wechat", "/cgi-bin/media/uploadimg", "token_expired", count=5)
    with pytest.raises(TransientError, match="42001") as caught:
        wechat.upload_image(image(), "inline")
    assert calls(box, "/cgi-bin/media/uploadimg") == 2
    assert "another program may be fetching access tokens for this AppID" in str(caught.value)
    assert "app_secret" not in str(caught.value)


def test_wrong_secret_names_the_code_and_not_the_secret(
    box: Sandbox, clock: ManualClock, tmp_path: Path
) -> None:
    wechat = adapter_for(box, clock, tmp_path, secret="wrong-secret-123456")
    with pytest.raises(AuthError, match="40125") as caught:
        wechat.preflight()
    assert "wrong-secret-123456" not in str(caught.value)
    assert calls(box, "/cgi-bin/stable_token") == 1
    # The variable is what the operator changes; Zhihu's refusals name theirs too.
    assert str(caught.value).endswith("; crosspost reads the app_secret from WECHAT_APP_SECRET")


def test_the_public_app_id_stays_readable_and_the_secret_does_not(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    creds = box.wechat.credentials()
    shown = wechat.http.redact(f"account {creds['app_id']} with {creds['app_secret']}")
    assert shown == f"account {creds['app_id']} with ***"


def test_a_token_fetched_mid_run_is_hidden_in_the_ledger_sharing_the_runs_redactor(
    wechat: WeChatAdapter, clock: ManualClock, tmp_path: Path
) -> None:
    from crosspost.ledger.store import Ledger, PostKey

    token = wechat.api.token.token()  # fetched at run time: known only to the run's redactor
    key = PostKey("ai-systems-48", "wechat", "main")
    path = tmp_path / "ledger.sqlite3"
    with Ledger.open(path, clock=clock, redact=wechat.http.redactor) as ledger:
        ledger.ensure(key)
        ledger.fail(key, PermanentError(f"refused {token} on draft/add"), permanent=True)
        record = ledger.get(key)
    assert record is not None and record.error_message == "refused *** on draft/add"
    assert token.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("ledger*"))


def test_ip_not_whitelisted_prints_the_ip_and_where_to_add_it(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    box = make_box(ip_whitelist=["10.0.0.1"])
    with pytest.raises(PermanentError) as caught:
        adapter_for(box, clock, tmp_path).preflight()
    message = str(caught.value)
    assert "40164" in message and "127.0.0.1" in message
    assert "公众号后台 → 设置与开发 → 基本配置 → IP白名单" in message
    assert calls(box, "/cgi-bin/stable_token") == 1


def test_unverified_account_keeps_the_draft_and_says_publish_by_hand(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    box = make_box(verified=False)
    wechat = adapter_for(box, clock, tmp_path)
    draft = wechat.create_draft(content(wechat))
    with pytest.raises(ManualPublishRequired) as caught:
        wechat.publish(draft)
    assert str(caught.value).startswith(
        "draft created; this account can only publish from the web console"
    )
    assert caught.value.draft == draft and caught.value.exit_code == 1
    assert [d["media_id"] for d in drafts(box)] == [draft.id]


def test_a_draft_published_at_once_skips_the_preview_read_until_an_editor_needs_it(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    box = make_box(verified=False)
    wechat = adapter_for(box, clock, tmp_path)
    at_once = dataclasses.replace(content(wechat), preview=False)

    draft = wechat.create_draft(at_once)

    assert draft.url is None and calls(box, "/cgi-bin/draft/get") == 0
    with pytest.raises(ManualPublishRequired) as caught:  # publish by hand: link wanted now
        wechat.publish(draft)
    assert caught.value.draft.id == draft.id
    assert caught.value.draft.url and caught.value.draft.url.startswith("http")
    assert calls(box, "/cgi-bin/draft/get") == 1


def test_poll_budget_is_shared_and_enforced(wechat: WeChatAdapter, clock: ManualClock) -> None:
    budget = PollBudget(wechat.api.polls.path, per_day=2, clock=clock)
    budget.take()
    budget.take()
    with pytest.raises(RateLimitedError, match="polls are used up"):
        budget.take()
    clock.advance(86400)
    budget.take()  # a new day


@pytest.mark.parametrize(
    "damaged",
    [
        {"access_token": "abcdefgh", "expires_at": "later"},
        {"access_token": ["abcdefgh"], "expires_at": 1e12},
        {"access_token": "abcdefgh", "expires_at": None},
    ],
)
def test_a_token_file_of_the_wrong_shape_is_fetched_again_and_rewritten(
    box: Sandbox, wechat: WeChatAdapter, damaged: dict[str, Any]
) -> None:
    wechat.api.token.path.parent.mkdir(parents=True, exist_ok=True)
    wechat.api.token.path.write_text(json.dumps(damaged))
    assert wechat.preflight().detail == "token OK"
    assert calls(box, "/cgi-bin/stable_token") == 1
    rewritten = json.loads(wechat.api.token.path.read_text())
    assert isinstance(rewritten["expires_at"], float) and rewritten["access_token"] != "abcdefgh"


@pytest.mark.parametrize("used", ["3", None, True, [1]])
def test_a_poll_budget_file_of_the_wrong_shape_counts_as_unused(
    wechat: WeChatAdapter, clock: ManualClock, used: Any
) -> None:
    budget = PollBudget(wechat.api.polls.path, per_day=2, clock=clock)
    budget.take()
    day = json.loads(budget.path.read_text())["day"]
    budget.path.write_text(json.dumps({"day": day, "used": used}))
    budget.take()
    assert json.loads(budget.path.read_text()) == {"day": day, "used": 1}


def test_no_secret_reaches_logs_messages_or_output(
    box: Sandbox, wechat: WeChatAdapter, caplog: Any, capsys: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    box.faults.add("wechat", "/cgi-bin/draft/add", "reset", count=1)
    box.faults.add("wechat", "/cgi-bin/media/uploadimg", "http:503", count=1)
    box.faults.add("wechat", "/cgi-bin/draft/get", "token_expired", count=1)
    texts = []
    wechat.upload_image(image(), "inline")
    with pytest.raises(UnconfirmedError) as caught:
        wechat.create_draft(content(wechat))
    texts.append(str(caught.value))
    draft = wechat.create_draft(content(wechat))
    ticket = wechat.publish(draft)
    wechat.wait(ticket)
    out, err = capsys.readouterr()
    seen = "\n".join([*texts, caplog.text, out, err, *(r.line() for r in box.requests)])
    secrets = box.wechat.secrets()
    assert len(secrets) >= 2
    for secret in secrets:
        assert secret not in seen
    assert "retry 1 of 3" in caplog.text


# --- reconcile finds the truth -------------------------------------------------------


def test_reconcile_ignores_drafts_the_ledger_already_knows(
    box: Sandbox, wechat: WeChatAdapter, clock: ManualClock
) -> None:
    known = wechat.create_draft(content(wechat))
    clock.advance(60)
    intent = Intent.for_draft(content(wechat), clock(), known_ids=(known.id,))
    assert wechat.reconcile("draft", intent).happened is None  # it may still be saving
    clock.advance(WECHAT.settle_seconds)
    assert wechat.reconcile("draft", intent).happened is False
    box.faults.add("wechat", "/cgi-bin/draft/add", "commit_then_drop", count=1)
    with pytest.raises(UnconfirmedError):
        wechat.create_draft(content(wechat))
    found = wechat.reconcile("draft", intent)
    new = {d["media_id"] for d in drafts(box)} - {known.id}
    assert found.happened is True and {found.remote_id} == new
    assert found.url


def test_reconcile_finds_the_draft_when_no_content_would_drop_the_whole_listing(
    make_box: MakeBox, clock: ManualClock, tmp_path: Path
) -> None:
    box = make_box(no_content_drops="content")
    wechat = adapter_for(box, clock, tmp_path)
    intent = Intent.for_draft(content(wechat), clock())
    box.faults.add("wechat", "/cgi-bin/draft/add", "commit_then_drop", count=1)
    with pytest.raises(UnconfirmedError):
        wechat.create_draft(content(wechat))
    found = wechat.reconcile("draft", intent)
    assert found.happened is True
    assert [d["media_id"] for d in drafts(box)] == [found.remote_id]


def test_reconcile_publish_waits_then_decides(
    box: Sandbox, wechat: WeChatAdapter, clock: ManualClock
) -> None:
    draft = wechat.create_draft(content(wechat))
    intent = Intent(started_at=clock(), title="AI系统前沿动态48", draft_id=draft.id)
    box.faults.add("wechat", "/cgi-bin/freepublish/submit", "reset", count=1)
    with pytest.raises(UnconfirmedError):
        wechat.publish(draft)
    assert wechat.reconcile("publish", intent).happened is None  # may still be publishing
    clock.advance(601)
    assert wechat.reconcile("publish", intent).happened is False


def test_reconcile_rejects_reversible_steps(wechat: WeChatAdapter) -> None:
    with pytest.raises(ValueError):
        wechat.reconcile("upload", Intent(started_at=0))


def test_a_draft_without_cover_is_refused_before_sending(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    with pytest.raises(Exception, match="cover") as caught:
        wechat.create_draft(DraftContent(title="t", html="<p>x</p>"))
    assert getattr(caught.value, "exit_code", None) == 2
    assert calls(box, "/cgi-bin/draft/add") == 0


def test_manual_publish_error_is_a_permanent_error() -> None:
    error = ManualPublishRequired("x", channel="wechat", code=48001, draft=RemoteDraft("d"))
    assert isinstance(error, PermanentError)
    assert UploadedAsset("u").media_id is None


def test_reconcile_publish_when_the_draft_left_the_box(
    box: Sandbox, wechat: WeChatAdapter, clock: ManualClock
) -> None:
    draft = wechat.create_draft(content(wechat))
    intent = Intent(started_at=clock(), title="另一个标题", draft_id=draft.id)
    del box.wechat.account.drafts[draft.id]  # the editor deleted (or published) it by hand
    answer = wechat.reconcile("publish", intent)
    assert answer.happened is True and "left 草稿箱" in answer.detail


@pytest.mark.parametrize(
    ("irreversible", "error"), [(True, UnconfirmedError), (False, TransientError)]
)
def test_an_unreadable_answer_is_unconfirmed_only_for_irreversible_calls(
    irreversible: bool, error: type[Exception]
) -> None:
    reply = Reply("POST", "/cgi-bin/draft/add", 200, {}, b"<html>busy</html>")
    page = r"an HTML page came back \(HTTP 200\) instead of WeChat's JSON"
    with pytest.raises(error, match=page):
        check_reply(reply, clock=lambda: 0.0, irreversible=irreversible)


def test_an_html_page_for_the_token_says_what_is_in_the_way_and_is_temporary(
    box: Sandbox, wechat: WeChatAdapter
) -> None:
    box.faults.add("wechat", "/cgi-bin/stable_token", "http:403", count=10)

    with pytest.raises(TransientError) as caught:
        wechat.preflight()

    assert str(caught.value) == (
        'WeChat POST /cgi-bin/stable_token: an HTML page came back (HTTP 403, "403 Forbidden") '
        "instead of WeChat's JSON, so a proxy, firewall or login page is in the way; run "
        "again later, and if it repeats, check the proxy settings and the firewall (gave up "
        "after 4 attempts)"
    )
    assert caught.value.exit_code == 75
    assert sum(1 for r in box.requests if r.path == "/cgi-bin/stable_token") == 4


def test_unknown_codes_keep_the_errmsg_without_the_rid() -> None:
    line = describe(61451, "invalid parameter rid: 68aeab00-21ea7900-3a442400", "POST /x")
    assert line == "WeChat errcode 61451 (invalid parameter) on POST /x"


_PREFLIGHT = """
import sys
from pathlib import Path
from crosspost.channels.http.policy import HttpPolicy
from crosspost.channels.wechat.adapter import WeChatAdapter
from crosspost.config.settings import Account, Secret
url, app_id, secret, state = sys.argv[1:5]
account = Account("wechat", "main", url, {"app_id": Secret(app_id), "app_secret": Secret(secret)})
WeChatAdapter(account, http=HttpPolicy(), state_dir=Path(state)).preflight()
"""


@pytest.mark.slow
def test_concurrent_processes_fetch_one_token(box: Sandbox, tmp_path: Path) -> None:
    creds = box.wechat.credentials()
    argv = [box.wechat_url, creds["app_id"], creds["app_secret"], str(tmp_path / "state")]
    runs = [
        subprocess.Popen([sys.executable, "-c", _PREFLIGHT, *argv], stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    for run in runs:
        _, err = run.communicate(timeout=60)
        assert run.returncode == 0, err.decode()
    assert calls(box, "/cgi-bin/stable_token") == 1


def test_an_intent_round_trips_the_ledger_verbatim_and_reconcile_finds_the_draft(
    box: Sandbox, wechat: WeChatAdapter, clock: ManualClock, tmp_path: Path
) -> None:
    """A title with "secret", "signature:" and the public app_id is the issue's own text:
    the ledger keeps it exactly, so reconcile recognises the draft instead of making a
    second one."""
    from crosspost.ledger.store import Ledger, PostKey

    app_id = box.wechat.credentials()["app_id"]
    title = f"secret: {app_id}论文"
    digest = "The secret: scaling laws; signature: 论文精选"
    secrets = list(wechat.account.credentials.values())
    key = PostKey("ai-systems-48", "wechat", "main")
    sent = dataclasses.replace(content(wechat, title=title), digest=digest)
    with Ledger.open(tmp_path / "ledger.sqlite3", clock=clock, secrets=secrets) as ledger:
        ledger.ensure(key)
        ledger.begin("draft", key, Intent.for_draft(sent, clock()))
        box.faults.add("wechat", "/cgi-bin/draft/add", "commit_then_drop", count=1)
        with pytest.raises(UnconfirmedError):
            wechat.create_draft(sent)
        record = ledger.get(key)
    assert record is not None and record.pending_intent is not None
    stored = dict(record.pending_intent)
    assert (stored["title"], stored["digest"]) == (title, digest)
    intent = Intent(
        started_at=stored["started_at"],
        title=stored["title"],
        author=stored["author"],
        digest=stored["digest"],
    )
    found = wechat.reconcile("draft", intent)
    assert found.happened is True
    assert [d["media_id"] for d in drafts(box)] == [found.remote_id]


def test_the_look_for_an_issue_already_published_reads_only_the_newest_pages(
    box: Sandbox, wechat: WeChatAdapter, clock: ManualClock
) -> None:
    """freepublish/batchget has 100 calls a day: reading every page of an account with
    hundreds of articles before each first draft spent them all by the fourth post."""
    draft = wechat.create_draft(content(wechat, title="第一期"))
    article_id = box.wechat.by_hand(draft.id)["article_id"]  # 发表 in the web console
    articles = box.wechat.account.articles
    first = articles[article_id]
    for n in range(1, 301):  # the account's older articles
        older = first["update_time"] - n * 86400
        news = [{**first["articles"][0], "title": f"旧文{n}"}]
        articles[f"{article_id}{n}"] = {
            **first, "articles": news, "create_time": older, "update_time": older
        }  # fmt: skip
    before = calls(box, "/cgi-bin/freepublish/batchget")

    assert wechat.find_existing(Intent(started_at=clock(), title="新的一期")) is None

    assert calls(box, "/cgi-bin/freepublish/batchget") - before == 5
    found = wechat.find_existing(Intent(started_at=clock(), title="第一期"))
    assert found is not None and found.post is not None and found.post.id == article_id


def test_an_article_taken_down_is_never_adopted() -> None:
    # Whether WeChat's published list shows deleted or blocked articles is not known
    # (spec: news_item.is_deleted): --new-draft after a take-down adopted the gone article.
    from crosspost.channels.base import Intent
    from crosspost.channels.wechat.reconcile import matches

    intent = Intent(started_at=1_700_000_000.0, title="第 48 期")
    item = {
        "article_id": "a1",
        "update_time": 1_700_000_100,
        "content": {"news_item": [{"title": "第 48 期", "is_deleted": True}]},
    }
    assert matches(item, intent, "article_id", any_time=True) is None
    item["content"]["news_item"][0]["is_deleted"] = False  # type: ignore[index]
    assert matches(item, intent, "article_id", any_time=True) == "a1"
