"""Four ways a post used to get stuck, each with the way out an editor now has.

* WeChat confirms a publication but cannot say where (the draft left 草稿箱, no list
  shows the article): the post is published with its URL unknown, never submitted twice;
* an issue with an image on a public web server: the image is fetched and uploaded;
* a permanent failure stands until the issue or the account (its credentials too) change;
* a WeChat draft deleted by hand: ``--new-draft`` makes a new one; a published post refuses.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from bs4 import BeautifulSoup
from PIL import Image

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_UNCONFIRMED
from publisher.world import World, calls_to, events_text, post_urls

from .conftest import WriteIssue

SUBMIT = "/cgi-bin/freepublish/submit"


def test_a_publication_wechat_cannot_locate_is_published_with_its_url_unknown(
    world: World, write_issue: WriteIssue
) -> None:
    issue = write_issue(1, channels=("wechat",))
    world.box.faults.add("wechat", SUBMIT, kind="reset", count=1)
    first, _ = world.publish([issue], mode="publish")
    assert first.exit_code == EXIT_UNCONFIRMED, first.as_dict()
    # Meanwhile the draft left 草稿箱 (published or deleted in the web console).
    world.box.wechat.account.drafts.clear()

    report, _ = world.publish([issue], mode="publish")
    (result,) = report.results
    assert (result.state, result.url, result.exit_code) == ("published", None, EXIT_OK)
    assert "URL unknown" in result.message and "发表记录" in result.message
    with world.ledger() as ledger:
        (record,) = ledger.posts("weekly-1")
    assert (record.state, record.url) == ("published", None)
    assert "发表记录" in events_text(world, record)

    again, _ = world.publish([issue], mode="publish")
    assert [r.state for r in again.results] == ["unchanged"]
    assert calls_to(world.box, SUBMIT) == 1  # never submitted a second time


class _PictureServer(ThreadingHTTPServer):
    png: bytes = b""
    fetched: int = 0


class _Picture(BaseHTTPRequestHandler):
    server: _PictureServer

    def do_GET(self) -> None:
        self.server.fetched += 1
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.server.png)))
        self.end_headers()
        self.wfile.write(self.server.png)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet test output


@pytest.fixture
def picture_server() -> Iterator[_PictureServer]:
    """A web server on 127.0.0.1 serving one PNG, as a public image host would."""
    buffer = io.BytesIO()
    Image.new("RGB", (400, 300), (30, 120, 200)).save(buffer, "PNG")
    server = _PictureServer(("127.0.0.1", 0), _Picture)
    server.png = buffer.getvalue()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_an_image_on_a_web_server_is_fetched_and_uploaded(
    world: World, write_issue: WriteIssue, picture_server: _PictureServer
) -> None:
    remote = f"http://127.0.0.1:{picture_server.server_address[1]}/figure.png"
    # The server is on loopback: like a company's own image server, it must be allowed.
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[images]\nprivate_hosts = true\n")
    issue = write_issue(2)
    issue.write_text(
        issue.read_text(encoding="utf-8") + f"\n![示意图]({remote})\n", encoding="utf-8"
    )
    report, _ = world.publish([issue], mode="publish")
    assert report.exit_code == EXIT_OK, report.as_dict()
    assert picture_server.fetched >= 1
    with world.ledger() as ledger:
        urls = {p.channel: str(p.url) for p in ledger.posts("weekly-2")}
    for channel in ("wechat", "zhihu"):
        post = next(p for p in world.published_on(channel) if urls[channel] in post_urls(p))
        body = post["content"] if channel == "zhihu" else post["articles"][0]["content"]
        sources = [img["src"] for img in BeautifulSoup(body, "html.parser").find_all("img")]
        assert sources and not any("127.0.0.1" in str(src) for src in sources), sources


def test_a_permanent_failure_waits_for_a_fixed_secret_then_publishes(
    world: World, write_issue: WriteIssue
) -> None:
    issue = write_issue(3, channels=("wechat",))
    right = world.env["WECHAT_APP_SECRET"]
    world.env["WECHAT_APP_SECRET"] = "0" * len(right)
    failed, _ = world.publish([issue], mode="publish")
    assert failed.exit_code == EXIT_CHANNEL_FAILED, failed.as_dict()
    asked = len(world.box.requests)

    again, _ = world.publish([issue], mode="publish")
    assert "not retried" in again.results[0].message
    assert len(world.box.requests) == asked  # nothing sent for the same attempt

    world.env["WECHAT_APP_SECRET"] = right  # the editor fixes .env
    fixed, _ = world.publish([issue], mode="publish")
    assert [r.state for r in fixed.results] == ["published"], fixed.as_dict()


def test_a_draft_deleted_by_hand_is_replaced_with_new_draft(
    world: World,
    write_issue: WriteIssue,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    issue = write_issue(4, channels=("wechat",))
    assert world.publish([issue], mode="draft")[0].exit_code == EXIT_OK
    world.box.wechat.account.drafts.clear()  # deleted in 公众号后台

    stuck, _ = world.publish([issue], mode="publish")
    message = stuck.results[0].message
    assert stuck.exit_code == EXIT_CHANNEL_FAILED
    assert "published or sent by hand, or deleted; check 发表记录 and 群发记录" in message
    assert "run with --new-draft" in message
    assert "not retried" in world.publish([issue], mode="publish")[0].results[0].message

    fresh, lines = world.publish([issue], mode="publish", new_draft=True)
    assert [r.state for r in fresh.results] == ["published"], fresh.as_dict()
    assert any("forgotten (--new-draft)" in line for line in lines)
    assert len(world.published_on("wechat")) == 1
    assert calls_to(world.box, "/cgi-bin/draft/add") == 2

    # A published post has no draft to replace: refused before anything is sent.
    world.use_env(monkeypatch)
    sent = len(world.box.requests)
    capsys.readouterr()
    code = main(["publish", str(issue), "--mode", "publish", "--new-draft", "-q"])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT
    assert err.count("\n") == 1 and "--new-draft only replaces the draft" in err
    assert len(world.box.requests) == sent


def test_new_draft_for_a_draft_published_by_hand_finds_the_article_instead_of_posting_again(
    world: World, write_issue: WriteIssue
) -> None:
    """The stuck post's advice reads "published by hand or deleted": an editor who runs
    --new-draft without looking in 发表记录 first must not get the issue out twice."""
    issue = write_issue(5, channels=("wechat",))
    assert world.publish([issue], mode="draft")[0].exit_code == EXIT_OK
    with world.ledger() as ledger:
        (record,) = ledger.posts("weekly-5")
    assert record.draft_id is not None
    world.box.wechat.by_hand(record.draft_id, "publish")  # 发表 in 公众号后台

    fresh, lines = world.publish([issue], mode="publish", new_draft=True)
    (result,) = fresh.results
    assert result.state == "published", (result, lines)
    assert len(world.published_on("wechat")) == 1  # the one published by hand
    assert calls_to(world.box, "/cgi-bin/draft/add") == 1  # no second draft was made
    assert calls_to(world.box, "/cgi-bin/freepublish/submit") == 0
    assert any("adopted, not made again" in line for line in lines), lines
