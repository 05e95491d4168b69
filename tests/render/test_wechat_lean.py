"""The WeChat HTML says each style once, where it changes something.

Chromium proves the look is unchanged (``tests/fidelity``); these tests show what is no
longer written, on documents small enough to read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext
from crosspost.render.wechat import document as wechat

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ai-systems-48" / "issue.md"
INHERITED = ("color", "font-family", "line-height", "text-align", "word-break")


def render(body: str, theme: str = "default") -> BeautifulSoup:
    issue = Issue(path=Path("/issues/x/issue.md"), id="x", title="t", body=body, body_line=1)
    return BeautifulSoup(wechat.render(issue, RenderContext(theme=theme)).body, "html.parser")


def style_of(tag: Tag) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in str(tag.get("style", "")).split(";") if ":" in part)
    return {name.strip(): value.strip() for name, value in pairs}


def repeated(soup: BeautifulSoup) -> list[str]:
    """Declarations of an inherited property equal to what the element inherits."""
    found = []
    for tag in soup.find_all(True):
        if tag.name in ("th", "a", "code", "pre"):  # their own defaults differ
            continue
        for name in INHERITED:
            value = style_of(tag).get(name)
            holder = next((t for t in tag.parents if name in style_of(t)), None)
            if value and holder is not None and style_of(holder)[name] == value:
                found.append(f"<{tag.name} style={tag.get('style')}>")
    return found


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_no_element_repeats_what_it_inherits(theme: str) -> None:
    soup = BeautifulSoup(
        wechat.render(load_issue(EXAMPLE), RenderContext(theme=theme)).body, "html.parser"
    )
    assert repeated(soup) == []
    paragraphs = [p for p in soup.find_all("p") if p.get_text().strip()]
    assert paragraphs and all("color" not in style_of(p) for p in paragraphs)


def test_a_raw_html_colour_equal_to_the_articles_is_left_out() -> None:
    soup = render('<div style="color:#333333">同色</div>\n\n<div style="color:#c00">红色</div>\n')
    same = next(s for s in soup.find_all("section") if s.get_text() == "同色")
    red = next(s for s in soup.find_all("section") if s.get_text() == "红色")
    assert "color" not in style_of(same) and style_of(red)["color"] == "#c00"


def test_bold_is_left_to_strong_only_in_normal_text() -> None:
    soup = render("## 标题 **重点**\n\n正文 **重点**\n")
    heading, in_heading = soup.find("h2"), soup.find("h2").find("strong")
    in_text = next(p for p in soup.find_all("p") if "正文" in p.get_text()).find("strong")
    # WeChat's page may reset a heading's weight, so the theme's stays; <strong> is bold
    # wherever WeChat shows it (its own editor writes a bare <strong>).
    assert style_of(heading)["font-weight"] == "700"  # bold, one character shorter
    assert "font-weight" not in style_of(in_text)
    # Inside a bold heading <strong> would be bolder still (900): the theme's 700 stays.
    assert style_of(in_heading)["font-weight"] == "700"


def test_a_border_in_the_elements_own_colour_leaves_the_colour_out() -> None:
    soup = render("## 标题\n\n> 引用\n")
    heading, quote = soup.find("h2"), soup.find("blockquote")
    # default theme: the h2 is drawn in the primary colour and underlined in it too.
    assert style_of(heading)["color"] == "#0f4c81"
    assert style_of(heading)["border-bottom"] == "2px solid"
    # The quote's bar is the primary colour on grey text: its colour stays.
    assert style_of(quote)["border-left"] == "4px solid #0f4c81"
    # Raw HTML: an inherited colour is not the element's own (WeChat's page might set
    # another), and a colour inside a function is left alone.
    raw = render(
        '<p style="color:#c00;border:1px solid #C00">甲</p>\n\n'
        '<section style="color:#c00"><p style="border-top:1px solid #c00">乙</p></section>\n\n'
        '<p style="color:#c00;border:1px solid rgb(1, 2, 3)">丙</p>\n'
    )
    first, second, third = (p for p in raw.find_all("p") if p.get_text() in ("甲", "乙", "丙"))
    assert style_of(first)["border"] == "1px solid"
    assert style_of(second)["border-top"] == "1px solid #c00"
    assert style_of(third)["border"] == "1px solid rgb(1,2,3)"


def test_margins_are_one_shorthand_and_values_short() -> None:
    soup = render("- 一\n  - 二\n\n段落\n")
    styles = [str(tag.get("style")) for tag in soup.find_all(style=True)]
    assert not [s for s in styles if re.search(r"(?:^|;)margin:.*;margin-", s)]
    assert not [s for s in styles if re.search(r"(?<![\d.])0\.\d", s)]
    margins = [style_of(tag).get("margin", "") for tag in soup.find_all(style=True)]
    margins = [m for m in margins if m]
    assert margins and all(1 <= len(m.split()) <= 4 for m in margins), margins


def test_a_span_the_theme_left_unstyled_is_taken_out_a_styled_one_stays() -> None:
    soup = render('见[文档](https://docs.example) <span style="color:#c00">红</span>\n')
    references = soup.find(string=re.compile("文档: ")).parent
    assert references.name == "section" and references.get_text().startswith("[1]")
    assert all(span.get("style") for span in soup.find_all("span")), soup
    assert [span.get_text() for span in soup.find_all("span")] == ["红"]


def test_auto_side_margins_of_a_full_width_block_are_zero_of_a_narrow_one_stay() -> None:
    soup = render("## 标题\n", theme="grace")  # grace centres its h2 with margin …auto…
    assert style_of(soup.find("h2"))["margin"] == "2.2em 0 1.2em"
    raw = render('<p style="margin:0 auto;max-width:50%">窄</p>\n')
    narrow = next(p for p in raw.find_all("p") if p.get_text() == "窄")
    assert style_of(narrow)["margin"] == "0 auto"
    # Taken out before the whitespace between blocks is, so none is left between them.
    empty = render("<p>一</p>\n<span></span>  \n<p>二</p>\n\n<span/>  \n")
    assert not re.search(r"</p>\s+<", str(empty)), str(empty)


def test_a_table_cell_says_word_break_only_where_it_has_a_word_to_break() -> None:
    soup = render(
        "| 维度 | 模型 |\n| --- | --- |\n| 正则化（训练） | GPT2 |\n| 한국어 | ＡＢＣ |\n"
        "| 模型名 | GPT-2 |\n"
    )
    kept = {cell.get_text(): "word-break" in style_of(cell) for cell in soup.find_all(["td", "th"])}
    # WeChat's page breaks cells anywhere: only letters and digits outside CJK care, and
    # not in a cell kept on one line (a name with hyphens: white-space:nowrap).
    assert kept == {
        "维度": False,
        "模型": False,
        "正则化（训练）": False,
        "GPT2": True,
        "한국어": False,
        "ＡＢＣ": False,
        "模型名": False,
        "GPT-2": False,
    }
    one_line = soup.find(lambda tag: tag.name == "td" and tag.get_text() == "GPT-2")
    assert style_of(one_line) == {"white-space": "nowrap"}
