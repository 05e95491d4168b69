"""The desk in Debian's Chromium: the page at phone and desk widths, a save shown within a
second without a reload, the copy buttons' clipboard, the week's table."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from crosspost.issue.loader import load_issue
from crosspost.preview.desk import Desk
from crosspost.render.rendered import render

from .conftest import NOW, QUICK, Served, clock_at, copy_example, plain_settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.browser

READ_HTML = """async () => {
  // Unsanitized: the bytes the page wrote (a sanitized read resolves relative sources).
  const items = await navigator.clipboard.read({unsanitized: ["text/html"]});
  const item = items[0];
  const html = await (await item.getType("text/html")).text();
  const plain = item.types.includes("text/plain") ? await item.getType("text/plain") : null;
  const text = plain ? await plain.text() : null;
  return {html, text, types: item.types};
}"""

#: Note the moment the page shows ``text`` (the live part swapped in).
LAYOUT_SETTLED = """async () => {
  await document.fonts.ready;
  return Array.from(document.images).every((img) => img.complete);
}"""

WATCH_FOR_UPDATE = """(text) => {
  window.updatedAt = null;
  new MutationObserver((changes, observer) => {
    if (document.getElementById("wechat").textContent.includes(text)) {
      window.updatedAt = Date.now();
      observer.disconnect();
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


@pytest.fixture
def context_for(browser: Browser) -> Iterator[Callable[[Served, int], BrowserContext]]:
    made: list[BrowserContext] = []

    def make(served: Served, width: int) -> BrowserContext:
        context = browser.new_context(
            viewport={"width": width, "height": 800},
            device_scale_factor=1,
            permissions=["clipboard-read", "clipboard-write"],
        )
        context.set_default_timeout(20_000)
        # Only the desk itself: an article's remote images or links are never fetched.
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith(served.base) else route.abort()
            ),
        )
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def open_issue(context: BrowserContext, served: Served) -> Page:
    page = context.new_page()
    page.goto(served.entry)  # the printed address: the token, then the cookie
    page.click("#schedule a")
    # The desk's script is deferred: a click before it ran is lost, and a stylesheet or
    # image still arriving moves the layout under a test's scroll.
    page.wait_for_selector("html[data-desk=ready] #live", state="attached")
    page.wait_for_load_state("load")
    return page


@pytest.fixture
def example(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "issues")


@pytest.fixture
def served(example: Path, tmp_path: Path, serve: Callable[[Desk], Served]) -> Served:
    desk = Desk([example.parent.parent], plain_settings(tmp_path), now=clock_at(NOW), watcher=QUICK)
    return serve(desk)


@pytest.mark.parametrize("width", [375, 1280])
def test_the_issue_page_at_phone_and_desk_widths(
    served: Served, context_for: Callable[[Served, int], BrowserContext], width: int
) -> None:
    page = open_issue(context_for(served, width), served)
    assert page.url.startswith(served.base + "/issue/") and "token" not in page.url
    phone = page.locator("#wechat").bounding_box()
    zhihu = page.locator("#zhihu").bounding_box()
    assert phone is not None and zhihu is not None
    assert phone["width"] == 375
    overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{overflow} px wider than the window"
    if width == 1280:
        assert zhihu["x"] >= phone["x"] + 375  # side by side
    else:
        assert zhihu["y"] > phone["y"] + phone["height"]  # one under the other
    assert page.locator("#problems li").first.inner_text().startswith("第 4 行")
    # The article's own image comes from the desk (a broken one would be 0 px wide).
    assert page.evaluate("document.querySelector('#wechat img').naturalWidth") > 0


def test_a_save_shows_within_a_second_without_a_reload_keeping_the_scroll(
    served: Served, example: Path, context_for: Callable[[Served, int], BrowserContext]
) -> None:
    page = open_issue(context_for(served, 1280), served)
    # Scroll once the page's layout settled: an image or font arriving after the scroll
    # makes the browser's scroll anchoring move scrollY, a load, not the update, moving it.
    page.wait_for_function(LAYOUT_SETTLED)
    page.evaluate("window.loadedOnce = true; window.scrollTo(0, 900)")
    page.wait_for_function("window.scrollY === 900")
    # The page's own clock (wall time, Date.now) stamps the moment the new text is in the
    # page; the save's moment is the file's own stamp. Neither includes the test's turns
    # (Playwright's waits look only every few hundred ms; a loaded machine runs the test
    # late), so this is the time from the editor's save to the preview showing it.
    page.evaluate(WATCH_FOR_UPDATE, "最值得关注")
    text = example.read_text("utf-8")
    example.write_text(
        text.replace("以下是他认为值得关注的四个方向", "以下是他认为最值得关注的四个方向"), "utf-8"
    )
    saved = example.stat().st_mtime
    deadline = time.monotonic() + 10
    while page.evaluate("window.updatedAt") is None and time.monotonic() < deadline:
        time.sleep(0.02)
    took = page.evaluate("window.updatedAt") / 1000 - saved
    print(f"the preview followed the save after {took:.2f} s")
    assert took < 1.0, f"the preview followed the save after {took:.2f} s"
    expect(page.locator("#wechat")).to_contain_text("最值得关注")
    assert page.evaluate("window.loadedOnce") is True  # swapped in place, not reloaded
    assert page.evaluate("window.scrollY") == 900
    assert "最值得关注" in page.locator("#zhihu").inner_text()


def test_copy_puts_exactly_the_rendered_wechat_html_on_the_clipboard(
    served: Served, example: Path, context_for: Callable[[Served, int], BrowserContext]
) -> None:
    page = open_issue(context_for(served, 1280), served)
    page.click("#copy-wechat")
    expect(page.locator("#desk-status")).to_contain_text("已复制公众号文章")
    copied = page.evaluate(READ_HTML)
    expected = render(load_issue(example), "wechat").body
    assert copied["html"] == expected
    assert (
        copied["text"] and "英伟达首席科学家" in copied["text"] and "<" not in copied["text"][:50]
    )

    page.click("#copy-zhihu")
    expect(page.locator("#desk-status")).to_contain_text("知乎 Markdown")
    markdown = page.evaluate("navigator.clipboard.readText()")
    assert markdown == render(load_issue(example), "zhihu").files["zhihu.md"]


def test_without_the_token_the_browser_gets_403(
    served: Served, context_for: Callable[[Served, int], BrowserContext]
) -> None:
    page = context_for(served, 1280).new_page()
    answer = page.goto(served.base + "/")
    assert answer is not None and answer.status == 403
    assert "AI系统" not in page.content()


def test_the_week_lists_a_due_a_missed_and_a_future_issue(
    tmp_path: Path,
    serve: Callable[[Desk], Served],
    context_for: Callable[[Served, int], BrowserContext],
) -> None:
    folder = tmp_path / "week"
    copy_example(folder, "a", id="due-one", publish_at="2026-11-23T08:00:00+08:00")
    copy_example(folder, "b", id="missed-one", publish_at="2026-11-21T08:00:00+08:00")
    copy_example(folder, "c", id="future-one", publish_at="2026-11-24T08:00:00+08:00")
    served = serve(Desk([folder], plain_settings(tmp_path), now=clock_at(NOW), watcher=QUICK))
    page = context_for(served, 375).new_page()
    page.goto(served.entry)
    rows = page.locator("#schedule tbody tr")
    seen = [
        (rows.nth(i).get_attribute("data-issue"), rows.nth(i).locator(".badge").inner_text())
        for i in range(rows.count())
    ]
    assert seen == [("missed-one", "missed"), ("due-one", "due"), ("future-one", "future")]


def test_upload_and_copy_asks_first_then_copies_html_with_the_uploaded_urls(
    sandbox_settings: tuple[Any, Any],
    tmp_path: Path,
    serve: Callable[[Desk], Served],
    context_for: Callable[[Served, int], BrowserContext],
) -> None:
    settings, box = sandbox_settings
    issue = copy_example(tmp_path / "issues")
    served = serve(Desk([issue], settings, now=clock_at(NOW), watcher=QUICK))
    page = open_issue(context_for(served, 1280), served)
    uploads = "/cgi-bin/media/uploadimg"

    page.once("dialog", lambda dialog: dialog.dismiss())  # the editor changes their mind
    page.click("#upload-copy")
    page.wait_for_timeout(300)
    assert not [r for r in box.requests if r.path == uploads]

    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click("#upload-copy")
    expect(page.locator("#desk-status")).to_contain_text("图片已上传到 wechat:main")
    assert asked and "wechat:main" in asked[0]
    assert len([r for r in box.requests if r.path == uploads]) == 1
    html = page.evaluate(READ_HTML)["html"]
    assert "mmbiz" in html and "images/hardware.png" not in html
