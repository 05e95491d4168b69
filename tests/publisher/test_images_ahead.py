"""A post's images are read and made ready while its first platform call is out.

The first call of a post (WeChat's token, Zhihu's login check) is a round trip in which
the publisher has nothing else to do. Reading, hashing and looking up the images in that
time costs the post nothing, and its uploads go out the moment the call answers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

import crosspost.publish.assets as assets
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK
from crosspost.images.pipeline import PreparedImage, SourceImage
from crosspost.platforms.base import ImagePolicy
from crosspost.publish.jobs import PublishOptions, PublishReport
from crosspost.publish.runner import Publisher
from crosspost.sandbox.box import Sandbox

from .world import World, build_world

if TYPE_CHECKING:
    from crosspost.sandbox.tls import Certificate

TOKEN = "/cgi-bin/stable_token"
COVER = "images/cover.jpg"  # the example's cover, the last image of its wave


class HeldToken:
    """The sandbox's sleep: WeChat's token is held until the cover has been made ready
    (or ten seconds went by), and whether it was ready is written down."""

    def __init__(self) -> None:
        self.cover_ready = threading.Event()
        self.ready_when_answered: list[bool] = []

    def sleep(self, seconds: float) -> None:
        self.ready_when_answered.append(self.cover_ready.wait(timeout=10))


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[World, HeldToken]]:
    token = HeldToken()
    real_prepare = assets.prepare

    def prepare(source: SourceImage, policy: ImagePolicy) -> PreparedImage:
        prepared = real_prepare(source, policy)
        if source.ref.endswith(COVER):
            token.cover_ready.set()
        return prepared

    monkeypatch.setattr(assets, "prepare", prepare)
    with Sandbox(sleep=token.sleep) as box:
        box.faults.add("wechat", TOKEN, "latency:1", count=1)
        yield build_world(tmp_path, box, time.time, lambda seconds: None), token


def test_the_images_are_ready_before_the_first_call_answers(
    held: tuple[World, HeldToken],
) -> None:
    world, token = held
    report, _ = world.publish(mode="draft", targets=("wechat",))
    assert [r.exit_code for r in report.results] == [EXIT_OK]
    # Held until the cover was ready: every image of the wave was read, converted and
    # looked up while the token was out, none of it after.
    assert token.ready_when_answered == [True]
    with world.ledger() as ledger:
        assert ledger.get(report.results[0].key).state == "draft_created"


def test_a_post_stopped_at_its_first_call_leaves_no_image_reader_behind(
    world: World,
) -> None:
    world.box.faults.add("wechat", TOKEN, "errcode:40164", count=10)
    report, _ = world.publish(mode="draft", targets=("wechat",))
    (result,) = report.results
    assert result.exit_code != EXIT_OK
    assert "ip" in result.message.lower()  # the token's refusal, not an image's trouble
    assert not [t.name for t in threading.enumerate() if t.name.startswith("crosspost-images")]
    assert not [r for r in world.box.requests if r.path != TOKEN]  # nothing uploaded


@pytest.mark.parametrize("channel", ["wechat", "zhihu"])
def test_an_image_gone_after_the_check_stops_the_post_before_any_upload(
    world: World, channel: str
) -> None:
    """Read ahead, a missing file is still the post's one error, named at its line, and
    nothing of the post reaches the platform: no image, and on Zhihu, whose empty draft
    is made beside the uploads, no draft left behind empty."""
    options = PublishOptions(mode="draft", targets=(channel,))

    def vanish_then_run(publisher: Publisher) -> PublishReport:
        jobs = publisher.plan([world.issue], options)  # the check sees every image
        (world.issue.parent / "images" / "hardware.png").unlink()
        return publisher.run(jobs, options)

    report, _ = world.with_publisher(vanish_then_run)
    (result,) = report.results
    assert result.exit_code == EXIT_BAD_INPUT, result
    assert f"{world.issue}:" in result.message and "hardware.png" in result.message
    sent = [r.path for r in world.box.requests if r.method != "GET"]
    assert not [p for p in sent if "upload" in p or "material" in p or "image" in p], sent
    assert not {"/cgi-bin/draft/add", "/api/articles/drafts"} & set(sent), sent
    assert not [t.name for t in threading.enumerate() if t.name.startswith("crosspost-images")]


class CountedFirstCall:
    """The sandbox's sleep: a platform's first call is held until the sandbox has
    accepted as many connections as the post wants ready (or ten seconds went by)."""

    def __init__(self, platform: str, wanted: int) -> None:
        self.platform = platform
        self.wanted = wanted
        self.box: Sandbox | None = None
        self.accepted_when_answered: list[int] = []

    def sleep(self, seconds: float) -> None:
        assert self.box is not None
        server = self.box.servers[self.platform]
        server.await_connections(self.wanted)
        self.accepted_when_answered.append(server.connections_accepted)


def add_figures(issue: Path, count: int) -> None:
    """Append ``count`` figures to the issue, each a PNG of a colour of its own (so no
    two share a digest and each is an upload of its own)."""
    lines = []
    for number in range(count):
        name = f"images/figure-{number}.png"
        Image.new("RGB", (64, 48), (40 * number % 256, 90, 200)).save(issue.parent / name)
        lines.append(f"![figure {number}]({name})")
    issue.write_text(issue.read_text(encoding="utf-8") + "\n" + "\n\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("platform", "first_call", "figures", "wanted"),
    [
        # An inline image and the cover, and beside them the day's quota and the two
        # looks for the post on the account: five, the token's connection one of them.
        ("wechat", TOKEN, 0, 5),
        # Seven uploads, a count the connections asked for as the uploads are found (1,
        # 2, 4) does not reach: the last ask covers the rest.
        ("wechat", TOKEN, 5, 10),
        # The same two images, and beside them the look among the member's articles, two
        # topic look-ups and the empty draft (the sandbox serves every host on one port).
        ("zhihu", "/api/v4/me", 0, 6),
    ],
)
def test_the_uploads_connections_are_set_up_while_the_first_call_is_out(
    tmp_path: Path, platform: str, first_call: str, figures: int, wanted: int
) -> None:
    held = CountedFirstCall(platform, wanted)
    with Sandbox(sleep=held.sleep) as box:
        held.box = box
        box.faults.add(platform, first_call, "latency:1", count=1)
        world = build_world(tmp_path, box, time.time, lambda seconds: None)
        add_figures(world.issue, figures)
        report, _ = world.publish(mode="draft", targets=(platform,))
    assert [r.exit_code for r in report.results] == [EXIT_OK]
    # As many, or one more when the first ones were opened before the first call's own
    # connection was made (it then counts for none of them); not one per request only.
    (accepted,) = held.accepted_when_answered
    assert wanted <= accepted <= wanted + 1


@pytest.mark.parametrize(
    ("platform", "first_call", "wanted"), [("wechat", TOKEN, 5), ("zhihu", "/api/v4/me", 6)]
)
def test_over_https_every_connection_opened_ahead_is_used(
    tmp_path: Path,
    certificate: Certificate,
    monkeypatch: pytest.MonkeyPatch,
    platform: str,
    first_call: str,
    wanted: int,
) -> None:
    """A TLS 1.3 server's session tickets wait unread in a connection opened ahead; the
    connection is still good, and none is thrown away and set up again."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(certificate.cert))
    held = CountedFirstCall(platform, wanted)
    with Sandbox(sleep=held.sleep, tls=certificate.server_context()) as box:
        held.box = box
        box.faults.add(platform, first_call, "latency:1", count=1)
        world = build_world(tmp_path, box, time.time, lambda seconds: None)
        assert box.url(platform).startswith("https://")
        report, _ = world.publish(mode="draft", targets=(platform,))
        accepted = box.servers[platform].connections_accepted
    assert [r.exit_code for r in report.results] == [EXIT_OK]
    (when_answered,) = held.accepted_when_answered
    assert wanted <= when_answered <= wanted + 1
    assert accepted == when_answered  # the rest of the draft needed no new connection


def test_connections_that_cannot_be_opened_ahead_cost_the_post_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening ahead is a head start only: when it fails (no thread to be had), the
    uploads open their own connections and the post ends as it would have."""
    import crosspost.channels.http.policy as policy

    class NoThreads(ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(policy, "ThreadPoolExecutor", NoThreads)
    report, _ = world.publish(mode="draft")
    assert [r.exit_code for r in report.results] == [EXIT_OK, EXIT_OK]
    assert [r for r in world.box.requests if r.path == "/cgi-bin/media/uploadimg"]
