"""The desk's application without a browser: the token, the pages, the upload, the week."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from werkzeug.test import Client

from crosspost.issue.loader import load_issue
from crosspost.preview.desk import COOKIE, TOKEN_HEADER, Desk, issue_key
from crosspost.render.rendered import render

from .conftest import NOW, clock_at, copy_example, entered, plain_settings


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    copy_example(tmp_path / "issues")
    return Desk([tmp_path / "issues"], plain_settings(tmp_path), now=clock_at(NOW))


def key_of(desk: Desk, tmp_path: Path) -> str:
    return issue_key((tmp_path / "issues" / "ai-systems-48" / "issue.md").resolve())


# --- the token -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/"),
        ("GET", "/issue/{key}"),
        ("GET", "/issue/{key}/changes?since=x"),
        ("GET", "/issue/{key}/files/images/hardware.png"),
        ("GET", "/ledger/ai-systems-48"),
        ("GET", "/static/desk.js"),
        ("POST", "/issue/{key}/upload"),
        ("GET", "/no-such-page"),
    ],
)
def test_every_request_without_the_token_gets_403(
    desk: Desk, tmp_path: Path, method: str, path: str
) -> None:
    url = path.format(key=key_of(desk, tmp_path))
    client = Client(desk)
    answer = client.open(url, method=method)
    assert answer.status_code == 403
    client.set_cookie(COOKIE, "not-the-token")
    assert client.open(url, method=method).status_code == 403
    assert client.open(url + ("&" if "?" in url else "?") + "token=nope").status_code == 403


def test_the_token_in_the_address_becomes_a_strict_httponly_cookie(desk: Desk) -> None:
    client = Client(desk)
    answer = client.get(f"/?token={desk.token}&theme=grace")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/?theme=grace"  # out of the address bar
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}={desk.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]


# --- the issue page -------------------------------------------------------------------------


def test_the_issue_page_shows_both_articles_and_the_problems_with_their_lines(
    desk: Desk, tmp_path: Path
) -> None:
    page = entered(desk).get(f"/issue/{key_of(desk, tmp_path)}").get_data(as_text=True)
    assert 'class="phone" id="wechat"' in page and 'id="zhihu"' in page
    assert '<span class="line">第 4 行</span> [wechat] warning: author' in page
    assert 'id="copy-wechat"' in page and 'id="copy-zhihu"' in page
    # No credentials: no upload button, and the page says which images to insert by hand.
    assert 'id="upload-copy"' not in page
    assert "<code>images/hardware.png</code>" in page
    # Images come from the desk, beside the issue; the copy holds them as the issue names them.
    assert f'src="/issue/{key_of(desk, tmp_path)}/files/images/hardware.png"' in page
    assert "approve" not in page.lower()  # approvals have not landed: nothing to show


def test_the_copy_sources_hold_exactly_what_render_produces(desk: Desk, tmp_path: Path) -> None:
    from html import unescape

    path = tmp_path / "issues" / "ai-systems-48" / "issue.md"
    page = entered(desk).get(f"/issue/{key_of(desk, tmp_path)}").get_data(as_text=True)
    issue = load_issue(path)
    for channel, name in (("wechat", None), ("zhihu", "zhihu.md")):
        output = render(issue, channel)
        expected = output.files[name] if name else output.body
        start = page.index(f'id="copy-{channel}-source" readonly hidden>')
        text = page[page.index(">", start) + 1 : page.index("</textarea>", start)]
        assert unescape(text) == expected


def test_the_live_part_alone_and_a_theme_switch(desk: Desk, tmp_path: Path) -> None:
    client = entered(desk)
    key = key_of(desk, tmp_path)
    part = client.get(f"/issue/{key}?part=live&theme=grace").get_data(as_text=True)
    assert part.startswith('<div id="live" data-version="')
    assert '<option value="grace" selected>' in part
    unknown = client.get(f"/issue/{key}?theme=nope").get_data(as_text=True)
    assert "unknown wechat theme &#39;nope&#39;" in unknown and 'id="failure"' in unknown


def test_files_outside_the_issue_folder_are_not_served(desk: Desk, tmp_path: Path) -> None:
    client = entered(desk)
    key = key_of(desk, tmp_path)
    (tmp_path / "secret.txt").write_text("no", "utf-8")
    assert client.get(f"/issue/{key}/files/images/hardware.png").status_code == 200
    for name in ("../../secret.txt", "%2e%2e/%2e%2e/secret.txt", "images/none.png"):
        assert client.get(f"/issue/{key}/files/{name}").status_code == 404
    assert client.get("/issue/000000000000").status_code == 404


def test_changes_answers_at_once_when_the_version_is_old(desk: Desk, tmp_path: Path) -> None:
    client = entered(desk)
    key = key_of(desk, tmp_path)
    page = client.get(f"/issue/{key}").get_data(as_text=True)
    version = page.split('data-version="', 1)[1].split('"', 1)[0]
    answer = client.get(f"/issue/{key}/changes?since=old")
    assert json.loads(answer.get_data(as_text=True)) == {"version": version}


# --- what changes a platform: POST, token header, confirmation --------------------------------


def test_the_upload_is_a_post_with_the_token_header_and_a_confirmation(
    desk: Desk, tmp_path: Path
) -> None:
    client = entered(desk)
    url = f"/issue/{key_of(desk, tmp_path)}/upload"
    assert client.get(url).status_code == 405
    assert client.post(url, data={"confirm": "yes"}).status_code == 403  # cookie alone
    headers = {TOKEN_HEADER: desk.token}
    assert client.post(url, headers=headers).status_code == 400  # not confirmed
    refused = client.post(url, headers=headers, data={"confirm": "yes"})
    assert refused.status_code == 409
    assert "no WeChat account with API credentials" in refused.get_data(as_text=True)


def test_upload_and_copy_uploads_each_image_once_through_the_ledger_cache(
    sandbox_settings: tuple[Any, Any], tmp_path: Path
) -> None:
    settings, box = sandbox_settings
    issue = copy_example(tmp_path / "issues")
    desk = Desk([issue], settings, now=clock_at(NOW))
    client = entered(desk)
    key = issue_key(issue.resolve())
    page = client.get(f"/issue/{key}").get_data(as_text=True)
    assert 'id="upload-copy" data-account="wechat:main"' in page
    assert 'id="manual-images"' not in page
    url, headers = f"/issue/{key}/upload", {TOKEN_HEADER: desk.token}
    first = json.loads(client.post(url, headers=headers, data={"confirm": "yes"}).get_data())
    assert first["account"] == "wechat:main"
    uploads = [r for r in box.requests if r.path == "/cgi-bin/media/uploadimg"]
    assert len(uploads) == 1  # the example has one inline image
    assert "mmbiz" in first["html"] and 'src="images/hardware.png"' not in first["html"]
    again = json.loads(client.post(url, headers=headers, data={"confirm": "yes"}).get_data())
    assert again["html"] == first["html"]
    assert len([r for r in box.requests if r.path == "/cgi-bin/media/uploadimg"]) == 1
    for secret in (s for s in box.wechat.secrets() if s):
        assert secret not in page and secret not in first["html"]


# --- the week at a glance ---------------------------------------------------------------------


def test_the_week_lists_due_missed_and_future_issues_in_local_time(tmp_path: Path) -> None:
    folder = tmp_path / "issues"
    copy_example(folder, "due", id="due", publish_at="2026-11-23T09:00:00+08:00")
    copy_example(folder, "missed", id="missed", publish_at="2026-11-20T09:00:00+08:00")
    copy_example(folder, "future", id="future", publish_at="2026-11-27T01:00:00+00:00")
    copy_example(folder, "by-hand", id="by-hand", publish_at="null")
    (folder / "README.md").write_text("# notes, not an issue\n", "utf-8")
    settings = plain_settings(tmp_path)
    assert settings.grace == timedelta(hours=24)
    desk = Desk([folder], settings, now=clock_at(NOW))
    page = entered(desk).get("/").get_data(as_text=True)
    rows = [line for line in page.splitlines() if "<tr data-issue=" in line]
    assert rows == [
        '  <tr data-issue="missed" data-status="missed">',
        '  <tr data-issue="due" data-status="due">',
        '  <tr data-issue="future" data-status="future">',
        '  <tr data-issue="by-hand" data-status="by hand">',
    ]
    # publish_at in the desk's time zone: 01:00 UTC is 09:00 in Beijing.
    assert '<td class="when">2026-11-27 Fri 09:00</td>' in page
    assert "README" not in page


def test_the_week_and_the_ledger_say_what_went_where(tmp_path: Path) -> None:
    from crosspost.ledger.store import Ledger, PostKey

    copy_example(tmp_path / "issues")
    settings = plain_settings(tmp_path)
    settings.state_dir.mkdir(parents=True)
    with Ledger.open(settings.ledger_path) as ledger:
        path = str(tmp_path / "issues" / "ai-systems-48" / "issue.md")
        wechat = PostKey("ai-systems-48", "wechat", "main")
        zhihu = PostKey("ai-systems-48", "zhihu", "main")
        ledger.ensure(wechat, issue_path=path)
        ledger.record(wechat, state="published", url="https://mp.weixin.qq.com/s/abc")
        ledger.ensure(zhihu, issue_path=path)
        ledger.record(
            zhihu,
            state="failed",
            error_code="401",
            error_message="the Zhihu cookie has expired; log in again",
            error_permanent=True,
        )
    desk = Desk([tmp_path / "issues"], settings, now=clock_at(NOW))
    client = entered(desk)
    week = client.get("/").get_data(as_text=True)
    assert "wechat:main: published" in week and "https://mp.weixin.qq.com/s/abc" in week
    assert "zhihu:main: failed" in week and "the Zhihu cookie has expired" in week
    story = client.get("/ledger/ai-systems-48").get_data(as_text=True)
    assert "exit 0: done" in story
    assert "exit 1: the channel refused it" in story
    assert "last error (401): the Zhihu cookie has expired; log in again" in story


def test_the_previous_issues_and_cross_links_are_shown_as_they_will_be_sent(
    tmp_path: Path,
) -> None:
    from crosspost.ledger.store import Ledger, PostKey

    folder = tmp_path / "issues"
    folder.mkdir()
    body = "\n正文第一段,足够长的文字让知乎接受它。\n"
    (folder / "weekly-1.md").write_text(
        "---\nid: weekly-1\ntitle: 周刊 第1期\nseries: weekly\n---\n" + body, "utf-8"
    )
    second = folder / "weekly-2.md"
    second.write_text(
        "---\nid: weekly-2\ntitle: 周刊 第2期\nseries: weekly\nprevious: 3\n"
        "channels: [zhihu]\nzhihu: {source_url: '{wechat.url}'}\n---\n" + body,
        "utf-8",
    )
    settings = plain_settings(tmp_path)
    settings.state_dir.mkdir(parents=True)
    with Ledger.open(settings.ledger_path) as ledger:
        first = PostKey("weekly-1", "zhihu", "main")
        ledger.ensure(first, issue_path=str(folder / "weekly-1.md"))
        ledger.record(first, state="published", url="https://zhuanlan.zhihu.com/p/111")
    desk = Desk([folder], settings, now=clock_at(NOW))
    page = entered(desk).get(f"/issue/{issue_key(second.resolve())}").get_data(as_text=True)
    zhihu = page[page.index('id="zhihu"') :]
    assert "往期回顾" in zhihu and "https://zhuanlan.zhihu.com/p/111" in zhihu
    assert "周刊 第1期" in zhihu
    assert "[zhihu] zhihu.source_url: <code>{wechat.url}</code> → 发布时填入" in page


def test_a_folder_that_went_away_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "issues"
    copy_example(folder)
    desk = Desk([folder], plain_settings(tmp_path), now=clock_at(NOW))
    shutil.rmtree(folder)
    answer = entered(desk).get("/")
    assert answer.status_code == 500
    assert answer.get_data(as_text=True).startswith("crosspost: error: ")
    assert "no such file or folder of issues" in answer.get_data(as_text=True)


def test_a_bug_behind_a_page_is_one_line_naming_its_report_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An exception the desk did not expect answers 500 with the one line the CLI would
    print (what stopped, that it is a bug, the report file), on the page and in the
    terminal serve runs in; the traceback is in that file only."""
    copy_example(tmp_path / "issues")
    desk = Desk([tmp_path / "issues"], plain_settings(tmp_path), now=clock_at(NOW))

    def broken(request: object) -> None:
        raise RuntimeError("the week could not be drawn")

    monkeypatch.setattr(desk, "_week", broken)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    answer = entered(desk).get("/")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 500 and "Traceback" not in page
    assert page.startswith(
        "crosspost: error: the page / stopped on an internal error (RuntimeError: the week "
        "could not be drawn); this is a crosspost bug"
    )
    assert capsys.readouterr().err.strip() == page.strip()
    report = next(tmp_path.glob("crosspost-crash-*.txt"))
    assert "Traceback" in report.read_text("utf-8") and str(report) in page
