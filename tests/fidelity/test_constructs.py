"""Callouts, formulas, task lists, wide tables and hanging lists as a reader sees them.

Chromium loads the WeChat output of ``fixtures/constructs.md`` at 375 px, as WeChat shows
it (no ``<style>``, no classes), and measures: formulas are drawn (glyphs with ink, in the
text's colour), a wide table scrolls instead of splitting words or numbers, an item's
second paragraph lines up with its first line's text. And the themed article and the
inlined output compute the same styles, in both themes.
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

from crosspost.issue.loader import load_issue
from crosspost.render.rendered import RenderContext
from crosspost.render.wechat import document as wechat
from fidelity.test_browser import PHONE_WIDTH, as_wechat_shows_it, assert_same_look

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

CONSTRUCTS = Path(__file__).parent / "fixtures" / "constructs.md"


@pytest.fixture(scope="module")
def page(browser: Browser) -> Any:
    """The constructs document's WeChat output, loaded at phone width."""
    from crosspost.preview.screenshot import new_page

    body = wechat.render(load_issue(CONSTRUCTS), RenderContext()).body
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(as_wechat_shows_it(body), wait_until="load")
    yield opened
    opened.close()


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_constructs_look_the_same_after_inlining(browser: Browser, theme: str) -> None:
    assert_same_look(browser, load_issue(CONSTRUCTS), theme)


def test_formulas_are_drawn_with_ink_in_the_text_colour(page: Page) -> None:
    formulas = page.evaluate(
        """() => [...document.querySelectorAll('svg')].map((svg) => {
            const box = svg.getBoundingClientRect();
            const glyph = svg.querySelector('path');
            return {label: svg.getAttribute('aria-label'), width: box.width,
                    height: box.height, paths: svg.querySelectorAll('path').length,
                    fill: getComputedStyle(glyph).fill,
                    text: getComputedStyle(svg.parentElement).color};
        })"""
    )
    assert [f["label"] for f in formulas][:2] == ["E=mc^2", "a^2+b^2=c^2"]
    assert len(formulas) == 4
    for formula in formulas:
        assert formula["width"] > 10 and formula["height"] > 8, formula
        assert formula["paths"] >= 3, formula
        assert formula["fill"] == formula["text"], "glyphs follow the text's colour"
    # Ink on screen: the first formula's pixels are not all background.
    shot = Image.open(io.BytesIO(page.locator("svg").first.screenshot())).convert("L")
    dark = sum(shot.histogram()[:128])
    assert dark > 20, "the formula's glyphs were not painted"


def test_an_inline_formula_sits_on_the_line_like_text(page: Page) -> None:
    sizes = page.evaluate(
        """() => {
            const svg = document.querySelector('svg');
            const line = parseFloat(getComputedStyle(svg.parentElement).fontSize);
            return {height: svg.getBoundingClientRect().height, font: line};
        }"""
    )
    assert 0.6 * sizes["font"] < sizes["height"] < 2 * sizes["font"], sizes


def test_a_wide_table_scrolls_and_never_splits_a_word_or_number(page: Page) -> None:
    found = page.evaluate(TABLE_LAYOUT)
    assert found["overflow"] == "auto"
    assert_scrolls_whole_words(found)


#: The first table's scrolling box and, per body cell, its words and how many lines they
#: take; and the first heading's weight.
TABLE_LAYOUT = """() => {
    const table = document.querySelector('table');
    const wrapper = table.parentElement;
    const lines = [...table.querySelectorAll('td')].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return [cell.textContent, tops.size];
    });
    const heading = getComputedStyle(document.querySelector('h2, h3')).fontWeight;
    return {overflow: getComputedStyle(wrapper).overflowX,
            scroll: wrapper.scrollWidth, width: wrapper.clientWidth, lines, heading};
}"""


def assert_scrolls_whole_words(found: dict[str, Any]) -> None:
    assert found["scroll"] > found["width"], "the table is wider than the screen: it scrolls"
    for text, lines in found["lines"]:
        assert lines == 1, f"{text!r} is broken over {lines} lines"


def test_list_items_hang_their_marker_and_align_their_paragraphs(page: Page) -> None:
    found = page.evaluate(
        """() => {
            const second = [...document.querySelectorAll('p')]
                .find((p) => p.textContent.startsWith('Its second paragraph'));
            const first = second.previousElementSibling;
            const marker = first.querySelector('span');
            const text = marker.nextSibling;
            const range = document.createRange();
            range.selectNodeContents(text);
            const rects = [...range.getClientRects()];
            return {marker: marker.textContent, firstLine: rects[0].left,
                    wrapped: rects[rects.length - 1].left, lines: rects.length,
                    second: second.getBoundingClientRect().left,
                    markerLeft: marker.getBoundingClientRect().left};
        }"""
    )
    assert found["marker"].startswith("1.")
    assert found["lines"] > 1, "the first item wraps at 375 px"
    assert abs(found["wrapped"] - found["firstLine"]) < 1, "wrapped lines align with the text"
    assert abs(found["second"] - found["firstLine"]) < 1, "the second paragraph aligns too"
    assert found["markerLeft"] < found["firstLine"] - 10, "the marker hangs to the left"


def test_callouts_and_tasks_show_their_labels(page: Page) -> None:
    text = page.evaluate("() => document.body.innerText")
    for label in ("小贴士", "信息", "注意", "危险", "展开", "注", "重要", "警告"):
        assert label in text
    assert "☐\xa0todo item" in text or "☐ todo item" in text
    assert "☑\xa0done item" in text or "☑ done item" in text
    assert "[!NOTE]" not in text and ":::" not in text
    assert "▶ 视频" in text


def test_a_raw_definition_stands_under_its_bold_term_not_indented(page: Page) -> None:
    # A browser indents a <dd> 40 px (WeChat's editor resets it, not every client does);
    # Markdown's definition is a paragraph under its bold term, and so is a raw one.
    found = page.evaluate(
        """() => {
            const term = document.querySelector('dt');
            const definition = document.querySelector('dd');
            return {term: term.getBoundingClientRect().left,
                    definition: definition.getBoundingClientRect().left,
                    weight: getComputedStyle(term).fontWeight};
        }"""
    )
    assert abs(found["definition"] - found["term"]) < 1, found
    assert found["weight"] == "700", "the term is bold"


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_numbers_past_nine_and_ninety_nine_stay_on_one_line_in_their_gap(
    browser: Browser, theme: str, tmp_path: Path
) -> None:
    # "10." did not fit the gap made for "9.": its "." broke onto a line of its own.
    from crosspost.preview.screenshot import new_page

    items = "\n".join(f"{n}. 第 {n} 项" for n in range(1, 13))
    issue = tmp_path / "issue.md"
    later = "99. 九十九\n100. 一百\n\n段落\n\n999. a\n1000. b\n"
    issue.write_text(f"---\ntitle: t\n---\n{items}\n\n段落\n\n{later}", "utf-8")
    body = wechat.render(load_issue(issue), RenderContext(theme=theme)).body
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(as_wechat_shows_it(body), wait_until="load")
    markers = opened.evaluate(
        """() => [...document.querySelectorAll('span')]
            .filter((s) => /^\\d+\\.\\s$/.test(s.textContent))
            .map((s) => {
                const range = document.createRange();
                range.selectNodeContents(s);
                const text = s.nextSibling;
                const after = document.createRange();
                after.selectNodeContents(text);
                return {marker: s.textContent.trim(), lines: range.getClientRects().length,
                        right: range.getBoundingClientRect().right,
                        text: after.getClientRects()[0].left,
                        top: range.getBoundingClientRect().top,
                        textTop: after.getClientRects()[0].top};
            })"""
    )
    opened.close()
    assert [m["marker"] for m in markers] == [f"{n}." for n in (*range(1, 13), 99, 100, 999, 1000)]
    for found in markers:
        assert found["lines"] == 1, f"{found['marker']} is broken over {found['lines']} lines"
        assert found["right"] <= found["text"] + 0.5, f"{found['marker']} runs into its words"
        assert abs(found["top"] - found["textTop"]) < 2, f"{found['marker']} sits beside them"


#: Rules of WeChat's article page as community copies of its stylesheet have them (its
#: editor's table rules among them): not published by WeChat, so the article must read
#: the same with them and without.
WECHAT_PAGE_RULES = (
    ".rich_media_content *{max-width:100%!important;word-wrap:break-word!important;"
    "box-sizing:border-box!important}"
    ".rich_media_content p{white-space:pre-wrap;min-height:1em}"
    "table{border-collapse:collapse;display:table;width:100%!important}"
    "td,th{word-wrap:break-word;word-break:break-all;padding:5px 10px;border:1px solid #DDD}"
    "h1,h2,h3,h4,h5,h6{font-weight:400}"
)


def test_under_wechats_page_rules_a_wide_table_still_scrolls_whole_words(
    browser: Browser,
) -> None:
    # Cells took WeChat's break-all over what they inherited: the table was squeezed to
    # the screen and its words and numbers broken a letter a line.
    from crosspost.preview.screenshot import new_page

    body = wechat.render(load_issue(CONSTRUCTS), RenderContext()).body
    document = as_wechat_shows_it(body).replace(
        "<body>", f'<body><style>{WECHAT_PAGE_RULES}</style><div class="rich_media_content">'
    )
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(document, wait_until="load")
    found = opened.evaluate(TABLE_LAYOUT)
    opened.close()
    assert_scrolls_whole_words(found)
    assert found["heading"] == "700", "headings stay bold"


#: A table of Chinese cells long enough to wrap at phone width, beside Latin ones.
CHINESE_TABLE = """---
title: 表格
---

| 维度 | 旧设计（GPT-2） | 收益与代价 |
| :--- | :--- | :--- |
| 正则化 | Dropout | 单轮训练场景无过拟合风险，提升效率，但需要更长的训练时间和更多的数据才能收敛 |
| 长上下文优化 | 无 | 滑动窗口注意力（128 token）进一步降低长文本推理成本，代价是信息需多层传递 |
| 한국어 | ＧＰＴ | 긴 문맥을 처리하는 방법은 여러 가지가 있으며 각각 장단점이 있습니다 |
"""

#: Every cell's box, in document order.
CELL_BOXES = """() => [...document.querySelectorAll('td, th')].map((cell) => {
    const box = cell.getBoundingClientRect();
    return [cell.textContent, box.left, box.top, box.width, box.height];
})"""


def test_chinese_cells_break_the_same_without_their_word_break(
    browser: Browser, tmp_path: Path
) -> None:
    # A cell of Chinese text is written without word-break: WeChat's page then breaks it
    # break-all, which for Chinese must lay it out exactly as normal does.
    from crosspost.preview.screenshot import new_page

    issue = tmp_path / "table.md"
    issue.write_text(CHINESE_TABLE, encoding="utf-8")
    body = wechat.render(load_issue(issue), RenderContext()).body
    assert '<td style="word-break:normal">Dropout</td>' in body
    assert "<td>单轮训练场景" in body and "<th>维度</th>" not in body  # a header keeps its look
    boxes = []
    for extra in ("", "td,th{word-break:normal!important}"):
        document = as_wechat_shows_it(body).replace(
            "<body>",
            f'<body><style>{WECHAT_PAGE_RULES}{extra}</style><div class="rich_media_content">',
        )
        opened = new_page(browser, PHONE_WIDTH)
        opened.set_content(document, wait_until="load")
        boxes.append(opened.evaluate(CELL_BOXES))
        opened.close()
    assert boxes[0] == boxes[1]
    tall = [cell for cell in boxes[0] if cell[0].startswith(("单轮", "긴"))]
    assert len(tall) == 2 and all(cell[4] > 40 for cell in tall), "long cells wrap"


#: A table wider than the screen: a long link and numbers beside Chinese sentences and
#: names with hyphens.
WIDE_TABLE = """---
title: 宽表
---

| # | 模型 | 参数量 | 日期 | 链接 | 备注 |
|---|---|---:|---|---|---|
| 1 | Llama-3-70B-Instruct | 70,553,706,496 | 2024-04-18 | https://huggingface.co/meta/Llama-3 \
| 长上下文优化后推理成本进一步降低，代价是信息需要多层传递 |
"""  # the row's one line, continued by the backslash

#: Per body cell of the first table: its text, its width and how many lines it takes.
CELL_LINES = """() => [...document.querySelectorAll('td')].map((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return [cell.textContent, cell.getBoundingClientRect().width, tops.size];
})"""


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_a_wide_tables_sentences_and_hyphenated_names_stay_readable(
    browser: Browser, theme: str, tmp_path: Path
) -> None:
    # Scrolling, the table was laid out at its narrowest: the Chinese note stood one
    # character a line (its row 540 px tall), the model's name and the date broke at
    # each hyphen.
    from crosspost.preview.screenshot import new_page

    issue = tmp_path / "table.md"
    issue.write_text(WIDE_TABLE, encoding="utf-8")
    body = wechat.render(load_issue(issue), RenderContext(theme=theme)).body
    document = as_wechat_shows_it(body).replace(
        "<body>", f'<body><style>{WECHAT_PAGE_RULES}</style><div class="rich_media_content">'
    )
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(document, wait_until="load")
    cells = {text: (width, lines) for text, width, lines in opened.evaluate(CELL_LINES)}
    scrolls = opened.evaluate(
        "() => { const box = document.querySelector('table').parentElement;"
        " return box.scrollWidth > box.clientWidth; }"
    )
    opened.close()
    assert scrolls, "the table is wider than the screen: it scrolls"
    for name in ("Llama-3-70B-Instruct", "2024-04-18", "70,553,706,496"):
        assert cells[name][1] == 1, f"{name!r} is broken over {cells[name][1]} lines"
    note = next(text for text in cells if text.startswith("长上下文"))
    width, lines = cells[note]
    assert width >= 90 and lines <= 7, f"the note is {width:.0f} px wide, {lines} lines"


def test_a_display_formula_wider_than_the_screen_scrolls_at_the_texts_size(
    browser: Browser, tmp_path: Path
) -> None:
    # WeChat's page gives every element max-width:100%: a long formula was squeezed to
    # the column, its glyphs a few pixels tall.
    from crosspost.preview.screenshot import new_page

    terms = " + ".join(f"a_{{{n}}} x^{{{n}}}" for n in range(12))
    issue = tmp_path / "formula.md"
    issue.write_text(
        f"---\ntitle: t\n---\n短的：\n\n$$\nx = 1\n$$\n\n长的：\n\n$$\nf(x) = {terms}\n$$\n",
        "utf-8",
    )
    body = wechat.render(load_issue(issue), RenderContext()).body
    document = as_wechat_shows_it(body).replace(
        "<body>", f'<body><style>{WECHAT_PAGE_RULES}</style><div class="rich_media_content">'
    )
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(document, wait_until="load")
    found = opened.evaluate(
        """() => [...document.querySelectorAll('svg')].map((svg) => {
            const box = svg.getBoundingClientRect();
            const block = svg.parentElement;
            return {width: box.width, height: box.height,
                    font: parseFloat(getComputedStyle(block).fontSize),
                    scrolls: block.scrollWidth > block.clientWidth,
                    page: document.documentElement.scrollWidth};
        })"""
    )
    opened.close()
    short, long = found
    assert long["height"] > 0.9 * long["font"], "the long formula is drawn at the text's size"
    assert long["width"] > PHONE_WIDTH and long["scrolls"], "it scrolls in its own box"
    assert long["page"] <= PHONE_WIDTH, "the page itself does not scroll sideways"
    assert short["width"] < PHONE_WIDTH and not short["scrolls"]


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_a_nested_list_stands_as_close_to_its_item_as_the_items_do(
    browser: Browser, theme: str, tmp_path: Path
) -> None:
    # A list in an item took the list's own margin: a gap above and below it two and a
    # half times the gap between items.
    from crosspost.preview.screenshot import new_page

    issue = tmp_path / "lists.md"
    issue.write_text("---\ntitle: t\n---\n- 一\n- 二\n  - 二之一\n  - 二之二\n- 三\n", "utf-8")
    body = wechat.render(load_issue(issue), RenderContext(theme=theme)).body
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(as_wechat_shows_it(body), wait_until="load")
    tops = opened.evaluate(
        """() => {
            const lines = {};
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            let node;
            while ((node = walker.nextNode())) {
                const text = node.textContent.trim();
                if (!text || text.length > 4) continue;
                const range = document.createRange();
                range.selectNodeContents(node);
                const box = range.getBoundingClientRect();
                lines[text] = [box.top, box.bottom];
            }
            return lines;
        }"""
    )
    opened.close()
    order = ["一", "二", "二之一", "二之二", "三"]
    gaps = [tops[b][0] - tops[a][1] for a, b in itertools.pairwise(order)]
    assert max(gaps) - min(gaps) < 3, f"gaps between the lines of the list: {gaps}"


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_a_references_words_are_never_split_and_its_number_keeps_its_title(
    browser: Browser, theme: str, tmp_path: Path
) -> None:
    # The reference list broke break-all: its titles' English words split mid-word
    # ("Xco" / "de") wherever a line ended.
    from crosspost.preview.screenshot import new_page

    title = "Why I'm Not Using Xcode's AI Chat Integration And What Could Change My Mind"
    issue = tmp_path / "refs.md"
    issue.write_text(
        f"---\ntitle: t\n---\n读 [{title}](https://example.com/posts/xcode-ai-chat-integration)"
        " 和 [b](https://example.com/a/very/long/path/that/has/no/end/at/all/index.html)。\n",
        "utf-8",
    )
    body = wechat.render(load_issue(issue), RenderContext(theme=theme)).body
    opened = new_page(browser, PHONE_WIDTH)
    opened.set_content(as_wechat_shows_it(body), wait_until="load")
    found = opened.evaluate(
        """() => {
            const list = [...document.querySelectorAll('section')].pop();
            const split = [];
            const walker = document.createTreeWalker(list, NodeFilter.SHOW_TEXT);
            let node;
            while ((node = walker.nextNode())) {
                if (node.parentElement.tagName === 'EM') continue;  // an address may break
                for (const m of node.textContent.matchAll(/[A-Za-z']+/g)) {
                    const range = document.createRange();
                    range.setStart(node, m.index);
                    range.setEnd(node, m.index + m[0].length);
                    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                    if (tops.size > 1) split.push(m[0]);
                }
            }
            return {split, width: document.documentElement.scrollWidth, text: list.innerText};
        }"""
    )
    opened.close()
    assert "[1]" in found["text"] and "Xcode" in found["text"]
    assert found["split"] == [], f"words split over lines: {found['split']}"
    assert found["width"] <= PHONE_WIDTH, "a long address still breaks inside the column"
