"""A site's marked code lines as a WeChat reader sees them, in both themes.

Chromium loads the WeChat output at phone width, as WeChat shows it (no ``<style>``, no
classes), and measures each line of a block a site marked (``// [!code --]``): a removed
or added line's tint reaches the block's edge, or the end of its longest line when it
scrolls; the tint and the sign are the theme's diff colours and can be told from the
block; a highlighted line differs from a plain one; the text holds no annotation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext
from crosspost.render.wechat import document as wechat
from fidelity.test_browser import PHONE_WIDTH, as_wechat_shows_it

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

BODY = """改动：

```js
const port = 3000 // [!code --]
const port = Number(process.env.PORT) // [!code ++]
app.listen(port) // [!code highlight]
plain()
```

```js
const veryLongName = someFunction(argumentNumberOne, argumentNumberTwo, three) // [!code --]
const b = 2 // [!code ++]
```
"""

#: Per code block: the block's box, its scroll width and background, and per line its
#: box, background, text and its sign's colour.
MEASURE = """() => [...document.querySelectorAll('pre > code')].map((code) => {
  const style = getComputedStyle(code);
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return {
    inner: code.clientWidth - padding, scroll: code.scrollWidth - padding,
    background: style.backgroundColor, text: code.innerText,
    lines: [...code.firstElementChild.children].map((line) => ({
      width: line.getBoundingClientRect().width,
      background: getComputedStyle(line).backgroundColor,
      text: line.innerText.replace(/\\u00a0/g, ' '),
      sign: line.firstElementChild ? getComputedStyle(line.firstElementChild).color : '',
    })),
  };
})"""


def _rgb(colour: str) -> tuple[float, ...]:
    return tuple(float(part) for part in colour[colour.index("(") + 1 : -1].split(","))


def _over(tint: str, background: str) -> tuple[float, ...]:
    """What the eye sees: ``tint`` (``rgba``) laid over an opaque ``background``."""
    *colour, alpha = _rgb(tint)
    return tuple(a * alpha + b * (1 - alpha) for a, b in zip(colour, _rgb(background), strict=True))


def _distance(one: tuple[float, ...], other: tuple[float, ...]) -> float:
    return sum(abs(a - b) for a, b in zip(one, other, strict=True))


@pytest.fixture(scope="module", params=["default", "grace"])
def blocks(request: pytest.FixtureRequest, browser: Browser) -> Any:
    from crosspost.preview.screenshot import new_page

    issue = Issue(path=Path("/issues/c/issue.md"), id="c", title="t", body=BODY, body_line=1)
    body = wechat.render(issue, RenderContext(theme=request.param)).body
    page = new_page(browser, PHONE_WIDTH)
    page.set_content(as_wechat_shows_it(body), wait_until="load")
    yield request.param, page.evaluate(MEASURE)
    page.close()


def test_a_diffs_lines_are_tinted_to_the_blocks_edge(blocks: Any) -> None:
    _, (short, long) = blocks
    assert long["scroll"] > long["inner"] + 100, "the long block scrolls"
    for block in (short, long):
        edge = max(block["inner"], block["scroll"])  # scrollWidth is rounded
        for line in block["lines"]:
            assert line["width"] == pytest.approx(edge, abs=1), line


def test_the_signs_and_tints_are_the_themes_diff_colours_and_stand_out(blocks: Any) -> None:
    theme, (short, _) = blocks
    removed, added, marked, plain = short["lines"]
    diff = {"default": ("rgb(160, 0, 0)", "rgb(0, 160, 0)"),
            "grace": ("rgb(224, 108, 117)", "rgb(152, 195, 121)")}[theme]  # fmt: skip
    assert (removed["sign"], added["sign"]) == diff
    block = short["background"]
    assert plain["background"] == "rgba(0, 0, 0, 0)"
    for line in (removed, added, marked):
        seen = _over(line["background"], block)
        assert 15 < _distance(seen, _rgb(block)) < 120, (theme, line)  # seen, not glaring
    assert _distance(_over(removed["background"], block), _over(added["background"], block)) > 20


def test_the_text_is_the_code_with_a_diffs_signs_and_no_annotation(blocks: Any) -> None:
    _, (short, _) = blocks
    assert [line["text"] for line in short["lines"]] == [
        "- const port = 3000",
        "+ const port = Number(process.env.PORT)",
        "  app.listen(port)",
        "  plain()",
    ]
    assert "[!code" not in short["text"]
