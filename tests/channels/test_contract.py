"""The adapter contract, checked the same way for every registered channel.

A new platform joins by its declaration in ``crosspost.platforms`` and one row to
:data:`PLATFORMS` below (how to log in to its sandbox, and its two irreversible paths).
"""

from __future__ import annotations

import hashlib
import inspect
import io
import logging
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from crosspost.channels.base import (
    Adapter,
    DraftContent,
    Intent,
    Preflight,
    PublishTicket,
    Reconciliation,
    RemoteDraft,
    RemotePost,
)
from crosspost.channels.http.policy import HttpPolicy
from crosspost.channels.registry import ADAPTERS, adapter_class, channel_names
from crosspost.config.settings import Account, Secret
from crosspost.errors import ConfigError, UnconfirmedError
from crosspost.images.pipeline import PreparedImage
from crosspost.ledger.assets import UploadedAsset
from crosspost.platforms.registry import platform
from crosspost.sandbox.box import ManualClock, Sandbox


@dataclass(frozen=True)
class Platform:
    """What the contract test needs to know about one channel's sandbox."""

    url: Callable[[Sandbox], str]
    emulator: Callable[[Sandbox], Any]
    #: (method, path) of the irreversible calls: draft creation and publication.
    create: tuple[str, str]
    publish: tuple[str, str]
    #: The public posts the platform holds (to count them).
    posts: Callable[[Sandbox], list[Any]]


PLATFORMS: dict[str, Platform] = {
    "wechat": Platform(
        url=lambda box: box.wechat_url,
        emulator=lambda box: box.wechat,
        create=("POST", "/cgi-bin/draft/add"),
        publish=("POST", "/cgi-bin/freepublish/submit"),
        posts=lambda box: box.wechat.snapshot()["published"],
    ),
    "zhihu": Platform(
        url=lambda box: box.zhihu_url,
        emulator=lambda box: box.zhihu,
        create=("POST", "/api/articles/drafts"),
        publish=("POST", "/api/v4/content/publish"),
        posts=lambda box: box.zhihu.snapshot()["articles"],
    ),
}

CHANNELS = channel_names()


# --- the registry and the class attributes -------------------------------------------


def test_every_registered_channel_has_a_contract_row() -> None:
    assert set(ADAPTERS) <= set(PLATFORMS), "add the new channel to PLATFORMS"


def test_unknown_channel_is_a_usage_error() -> None:
    with pytest.raises(ConfigError, match="unknown channel 'myspace'; known channels: ") as e:
        adapter_class("myspace")
    assert e.value.exit_code == 2


def test_the_registry_imports_no_adapter_until_asked() -> None:
    code = (
        "import crosspost.channels.registry, sys; "
        "print(sorted(m for m in sys.modules if m.startswith('crosspost.channels.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['crosspost.channels.registry']"


@pytest.mark.parametrize("name", CHANNELS)
def test_adapter_declares_its_platform(name: str) -> None:
    cls = adapter_class(name)
    assert issubclass(cls, Adapter) and not inspect.isabstract(cls)
    assert cls.channel == name
    assert cls.display_name
    assert cls.platform is platform(name)
    image_types = cls.platform.limits.image_formats | cls.platform.limits.cover_formats
    assert image_types and all(t.startswith("image/") for t in image_types)
    for kind in ("inline", "cover"):
        # Whatever the image pipeline makes for this channel, the adapter accepts.
        policy = cls.platform.image_policy(kind)
        assert policy.max_bytes > 0
        assert policy.formats <= image_types
    assert cls.poll_delays and all(d > 0 for d in cls.poll_delays)


@pytest.mark.parametrize("name", CHANNELS)
def test_an_accounts_own_limits_rule_its_uploads(name: str, tmp_path: Path) -> None:
    """A limit set in the config for a channel or an account (``image_bytes``,
    ``cover_bytes``) is what publish shrinks images to, as check judged them: publish
    kept to the built-in figures."""
    limits = {"image_bytes": 50_000, "cover_bytes": 60_000}
    credentials = {k: Secret("x") for k in ("app_id", "app_secret", "z_c0")}
    account = Account(name, "main", "http://127.0.0.1:9", credentials, limits=limits)
    http = HttpPolicy(clock=time.time, sleep=lambda _: None, rng=lambda: 0.0)
    adapter = adapter_class(name)(
        account, http=http, state_dir=tmp_path, clock=time.time, sleep=lambda _: None
    )
    assert adapter.image_policy_for("inline").max_bytes == 50_000
    assert adapter.image_policy_for("cover").max_bytes == 60_000
    assert adapter_class(name).platform.image_policy("inline").max_bytes != 50_000


# --- the same flow on every platform's sandbox -------------------------------------------


class Rig:
    def __init__(self, name: str, box: Sandbox, clock: ManualClock, state: Path) -> None:
        self.name = name
        self.box = box
        self.clock = clock
        self.platform = PLATFORMS[name]
        self.emulator = self.platform.emulator(box)
        credentials = {k: Secret(v) for k, v in self.emulator.credentials().items()}
        account = Account(name, "contract", self.platform.url(box), credentials)
        http = HttpPolicy(clock=clock, sleep=clock.sleep, rng=lambda: 0.0)
        self.adapter = adapter_class(name)(
            account, http=http, state_dir=state, clock=clock, sleep=clock.sleep
        )

    def calls(self, method_path: tuple[str, str]) -> int:
        method, path = method_path
        return sum(
            1
            for r in self.box.requests
            if r.platform == self.name and r.method == method and r.path == path
        )

    def fault(self, method_path: tuple[str, str], kind: str) -> None:
        self.box.faults.add(self.name, method_path[1], kind, count=1, method=method_path[0])


@pytest.fixture(params=CHANNELS)
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep) as box:
        yield Rig(request.param, box, clock, tmp_path / "state")


def picture(size: tuple[int, int], colour: tuple[int, int, int]) -> PreparedImage:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "JPEG")
    data = buffer.getvalue()
    return PreparedImage(data, "image/jpeg", "picture.jpg", hashlib.sha256(data).hexdigest(), *size)


def draft_content(rig: Rig, title: str) -> DraftContent:
    inline = rig.adapter.upload_image(picture((120, 80), (200, 40, 40)), "inline")
    cover = rig.adapter.upload_image(picture((940, 400), (40, 90, 160)), "cover")
    return DraftContent(
        title=title,
        html=f'<p>这是一段足够长的正文，用来通过平台的最少字数检查。</p><img src="{inline.url}">',
        author="编辑部",
        digest="一句话摘要",
        cover=cover,
        cover_size=(940, 400),
    )


def test_the_whole_flow_returns_typed_results(rig: Rig) -> None:
    assert isinstance(rig.adapter.preflight(), Preflight)
    asset = rig.adapter.upload_image(picture((120, 80), (1, 2, 3)), "inline")
    assert isinstance(asset, UploadedAsset) and asset.url.startswith("http")
    draft = rig.adapter.create_draft(draft_content(rig, "契约测试"))
    assert isinstance(draft, RemoteDraft) and draft.id
    again = rig.adapter.update_draft(draft.id, draft_content(rig, "契约测试(改)"))
    assert again.id == draft.id
    ticket = rig.adapter.publish(again)
    assert isinstance(ticket, PublishTicket) and isinstance(ticket.id, str)
    post = rig.adapter.wait(ticket)
    assert isinstance(post, RemotePost) and post.url.startswith("https://")


def test_lost_publish_answer_is_unconfirmed_and_never_denied(rig: Rig) -> None:
    draft = rig.adapter.create_draft(draft_content(rig, "契约测试"))
    intent = Intent(started_at=rig.clock(), title="契约测试", draft_id=draft.id)
    rig.fault(rig.platform.publish, "commit_then_drop")
    with pytest.raises(UnconfirmedError) as caught:
        rig.adapter.publish(draft)
    assert caught.value.exit_code == 3
    assert rig.calls(rig.platform.publish) == 1
    rig.clock.advance(601)
    answer = rig.adapter.reconcile("publish", intent)
    assert isinstance(answer, Reconciliation)
    if answer.happened is False:  # "no" means doing it again makes no second post
        ticket = rig.adapter.publish(draft)
        assert rig.adapter.wait(ticket) is not None
    assert len(rig.platform.posts(rig.box)) == 1


def test_reset_create_is_unconfirmed_and_never_claimed(rig: Rig) -> None:
    content = draft_content(rig, "契约测试")
    intent = Intent.for_draft(content, rig.clock())
    rig.fault(rig.platform.create, "reset")
    with pytest.raises(UnconfirmedError):
        rig.adapter.create_draft(content)
    assert rig.calls(rig.platform.create) == 1
    assert rig.adapter.reconcile("draft", intent).happened is not True


def test_no_secret_in_logs_or_errors(rig: Rig, caplog: Any, capsys: Any) -> None:
    caplog.set_level(logging.DEBUG)
    rig.fault(rig.platform.create, "http:503")
    with pytest.raises(UnconfirmedError) as caught:
        rig.adapter.create_draft(draft_content(rig, "契约测试"))
    rig.adapter.create_draft(draft_content(rig, "契约测试"))
    seen = "\n".join([str(caught.value), caplog.text, *capsys.readouterr()])
    for secret in rig.emulator.secrets():
        assert secret not in seen
