"""Callouts, formulas, media and other constructs: what `check` says, and what each
channel shows, for the lines an editor wrote."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import lxml.html
import pytest

from crosspost.check.lint import check_file
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render
from crosspost.render.sanitize import TagStream
from crosspost.render.wechat.math import formula_svg
from crosspost.render.zhihu.sanitize import ALLOWLIST as ZHIHU_HTML

#: The ``check_lines`` fixture (conftest.py): every line check prints for a document.
CheckLines = Callable[[str], list[str]]

DOCUMENT = """\
---
title: 构造
---
正文 $x^$ 与 $E=mc^2$。

::: foo 标题
未知的容器。
:::

before
<video poster="images/poster.jpg"><source src="https://v.example.com/a.mp4"></video>

<svg viewBox="0 0 1 1"><path d="M0 0"/></svg>

- <input type="text"> 表单

::: tip
没有结尾
"""


def issue_of(body: str) -> Issue:
    return Issue(path=Path("/issues/x/issue.md"), id="x", title="t", body=body, body_line=1)


@pytest.fixture
def checked_lines(tmp_path: Path) -> list[str]:
    path = tmp_path / "issue.md"
    path.write_text(DOCUMENT, "utf-8")
    checked = check_file(path)
    return [str(p).replace(str(path), "issue.md") for p in checked.problems]


def test_check_names_each_construct_shown_otherwise_with_its_line(
    checked_lines: list[str],
) -> None:
    expected = [
        "issue.md:4: [wechat] warning: formula 'x^' cannot be drawn on wechat (a TeX error "
        "or a command it does not know); it is shown as its TeX in code",
        "issue.md:6: warning: '::: foo 标题' is not a callout crosspost knows (tip, info, "
        "note, important, warning, caution, danger, details); it is shown as a plain note",
        "issue.md:11: [wechat] warning: a video (<video>, or a site's video tag) cannot play "
        "on wechat; it is shown as a line linking to its source",
        "issue.md:11: [zhihu] warning: a video (<video>, or a site's video tag) cannot play "
        "on zhihu; it is shown as a line linking to its source",
        "issue.md:13: [zhihu] warning: <svg> is not shown on zhihu; it is left out with what "
        "it contains",
        "issue.md:15: [wechat] warning: <input> (a form control) is not shown on wechat; it "
        "is left out",
        "issue.md:15: [zhihu] warning: <input> (a form control) is not shown on zhihu; it is "
        "left out",
        "issue.md:17: warning: '::: tip' is never closed, so it runs to the end of the issue; "
        "add a ':::' line where it ends",
    ]
    for line in expected:
        assert line in checked_lines
    assert not any("<svg> is not shown on wechat" in line for line in checked_lines)


def test_check_names_what_an_evernote_export_lost_once_at_its_line(
    check_lines: CheckLines,
) -> None:
    # Evernote's elements (ENML) went without a word: an attachment the export left out
    # showed nothing, encrypted text went out as its ciphertext. A task's box and a
    # checkbox are their characters now (☑, ☐), so nothing is lost there to name.
    document = (
        "---\ntitle: 笔记\n---\n<en-note>\n"
        '<div><en-todo checked="true"/>确认预算</div>\n'
        '<div><en-media hash="7a8b9c0d" type="image/jpeg" /></div>\n'
        '<en-crypt hint="生日" cipher="AES" length="128">RU5DMI1mnQ7f</en-crypt>\n'
        "</en-note>\n\n"
        '- <input type="checkbox" checked disabled> 已完成\n'
    )
    said = [line for line in check_lines(document) if "warning" in line]
    assert said == [
        "issue.md:6: warning: '<en-media>' is an Evernote attachment (image/jpeg) that this "
        "export left out: there is no file to show, so every channel shows nothing in its "
        "place; export the note from Evernote as HTML, which keeps its attachments, or put "
        "the file beside the issue and link it (![](images/…) for a picture, [name](url) for "
        "any other file)",
        "issue.md:7: warning: '<en-crypt>' is text encrypted in Evernote: no reader can read "
        "its ciphertext, so every channel leaves it out; decrypt it in Evernote and export "
        "the note again if it belongs in the issue",
    ]


def test_an_element_split_by_blank_lines_is_one_and_check_keeps_its_lines(
    check_lines: CheckLines,
) -> None:
    # WordPress writes a blank line between a list's items: each item after the first
    # stood in no list (its number gone, on Zhihu a paragraph). The blocks are one now,
    # and what check says of a line in them is said at that line.
    body = (
        '<ol start="3"><!-- wp:list-item -->\n<li>一二三</li>\n<!-- /wp:list-item -->\n\n'
        '<!-- wp:list-item -->\n<li>四五六 <input type="text"></li>\n'
        "<!-- /wp:list-item --></ol>\n"
    )
    said = [line for line in check_lines("---\ntitle: 拆开\n---\n" + body) if "warning" in line]
    assert said == [
        "issue.md:4: [zhihu] warning: zhihu numbers every list from 1, so this list (from 3) "
        "is shown as a bulleted list with each item's number written before it",
        "issue.md:9: [wechat] warning: <input> (a form control) is not shown on wechat; it is "
        "left out",
        "issue.md:9: [zhihu] warning: <input> (a form control) is not shown on zhihu; it is "
        "left out",
    ]
    assert (
        "<ul><li>3. 一二三</li><li>4. 四五六</li></ul>"
        in render(issue_of(body), "zhihu", RenderContext()).body
    )


def test_pandoc_wrapper_divs_of_one_class_are_named_once_with_their_count(
    check_lines: CheckLines,
) -> None:
    # A page through Pandoc wraps every section in '::: {.section}': one warning per div
    # buried the others. One per class now, on its first line, with how many there are.
    document = (
        "---\ntitle: 分节\n---\n::: {.section}\n一\n:::\n\n::: {#b .section}\n二\n:::\n\n"
        "::: {.note-box}\n三\n:::\n\n::: section\n四\n:::\n"
    )
    unknown = [line for line in check_lines(document) if "not a callout" in line]
    known = "(tip, info, note, important, warning, caution, danger, details)"
    assert unknown == [
        # The first one's line as written: what the editor finds in the file.
        f"issue.md:4: warning: '::: {{.section}}' (3 blocks of this name, the first here) is "
        f"not a callout crosspost knows {known}; each is shown as a plain note",
        f"issue.md:12: warning: '::: {{.note-box}}' is not a callout crosspost knows {known}; "
        "it is shown as a plain note",
    ]


def test_a_video_becomes_a_line_with_its_poster_and_link_on_both_channels() -> None:
    video = '<video poster="p.jpg"><source src="https://v.example.com/a.mp4"></video>'
    body = f"before\n{video}\n\nafter **gone**\n"
    issue = issue_of(body)
    zhihu = render(issue, "zhihu", RenderContext())
    assert '<a href="https://v.example.com/a.mp4">▶ 视频</a>' in zhihu.body
    assert "after <b>gone</b>" in zhihu.body and zhihu.images == ("p.jpg",)
    wechat = render(issue, "wechat", RenderContext())
    assert "▶ 视频" in wechat.body and "https://v.example.com/a.mp4" in wechat.body
    assert wechat.images == ("p.jpg",) and "gone" in wechat.body


def test_wechat_formulas_are_self_contained_svg_in_the_text_colour() -> None:
    body = render(issue_of("质能 $E=mc^2$\n\n$$\n\\frac{a}{b}\n$$\n"), "wechat").body
    assert body.count("<svg") == 2
    assert 'fill="currentColor"' in body and 'fill="black"' not in body
    for refused in ("<use", "<symbol", "<defs", " id=", "xlink"):
        assert refused not in body
    assert "viewBox=" in body, "the SVG keeps its case-sensitive attributes"


def test_a_bracketed_display_formula_is_drawn_once_and_a_label_is_kept() -> None:
    body = render(issue_of("前\n\n\\[\nE = mc^2\n\\]\n\n$$\na+b\n$$ (1)\n\n后\n"), "wechat").body
    assert body.count("<svg") == 2
    text = lxml.html.fragment_fromstring(body, create_parent="div").text_content()
    assert "mc^2" not in text, "the formula's TeX is not printed beside its drawing"
    assert "(1)" in text, "a $$ formula's own label stays"


def test_tex_that_cannot_be_drawn_is_shown_as_code() -> None:
    assert formula_svg("\\ce{H2O}", display=False) is None
    assert formula_svg("x^", display=False) is None
    body = render(issue_of("坏 $x^$ 公式\n"), "wechat").body
    assert "$x^$</code>" in body and "<svg" not in body


def test_zhihu_headings_follow_the_bodys_own_top_level() -> None:
    body = render(issue_of("### 第一节\n\n#### 小节\n\n##### 更深\n"), "zhihu").body
    assert body == "<h2>第一节</h2><h3>小节</h3><p><b>更深</b></p>"


def test_zhihu_keeps_the_meaning_of_struck_text() -> None:
    zhihu = render(issue_of("~~免费~~ 付费\n"), "zhihu")
    assert "免\u0336费\u0336 付费" in zhihu.body
    assert "免\u0336费\u0336 付费" in zhihu.files["zhihu.md"]


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        (['<video src="https://v.example/a.mp4">', "</video>"],
         ['<a href="https://v.example/a.mp4">▶ 视频</a>', ""]),
        (['<video poster="p.jpg">', '<source src="https://v.example/a.mp4">', "</video>"],
         ["", '<img src="p.jpg" alt="▶ 视频"><a href="https://v.example/a.mp4">▶ 视频</a>', ""]),
        (['<video poster="p.jpg">', "</video>"], ["", '<img src="p.jpg" alt="▶ 视频">▶ 视频']),
        (['<audio><source src="https://a.example/x.mp3">', "</audio>"],
         ['<a href="https://a.example/x.mp3">▶ 音频</a>', ""]),
        (['<embed src="https://e.example/x">'], ['<a href="https://e.example/x">▶ 嵌入内容</a>']),
    ],
)  # fmt: skip
def test_inline_media_become_one_line_and_hide_nothing_after_them(
    tags: list[str], expected: list[str]
) -> None:
    stream = TagStream(ZHIHU_HTML)
    assert [stream.tag(tag) for tag in tags] == expected
    assert stream.dropping == 0, "the text after the element is shown again"


def test_shell_variables_stay_text_and_formulas_next_to_cjk_are_drawn() -> None:
    body = "运行 `x` 后 echo $HOME/$USER 与 ${PATH}:$PWD，而 $x$的值是 $y$。\n"
    zhihu = render(issue_of(body), "zhihu", RenderContext()).body
    assert "$HOME/$USER" in zhihu and "${PATH}:$PWD" in zhihu
    assert zhihu.count('eeimg="1"') == 2
    wechat = render(issue_of(body), "wechat", RenderContext()).body
    assert "$HOME/$USER" in wechat and wechat.count("<svg") == 2
    ordinal = render(issue_of("第 $n$th 行与 $k$s。\n"), "zhihu", RenderContext()).body
    assert ordinal.count('eeimg="1"') == 2, "a formula followed by a word stays a formula"


def test_a_bracketed_formula_keeps_its_own_equation_number() -> None:
    body = "前\n\n\\[\nx+y\n\\] (3)\n\n后\n"
    wechat = render(issue_of(body), "wechat", RenderContext()).body
    assert "(3)" in lxml.html.fragment_fromstring(wechat, create_parent="div").text_content()
    assert "%5Ctag%7B3%7D" in render(issue_of(body), "zhihu", RenderContext()).body


def test_an_alert_with_its_own_title_is_a_callout_with_that_title() -> None:
    body = "> [!tip] 省时间的办法\n> 先读 **摘要**。\n\n> [!warning]-\n> 折叠的警告\n"
    wechat = render(issue_of(body), "wechat", RenderContext()).body
    assert "省时间的办法" in wechat and "<strong" in wechat and "[!tip]" not in wechat
    assert "注意" in wechat and "[!warning]" not in wechat and "折叠的警告" in wechat
    zhihu = render(issue_of(body), "zhihu", RenderContext()).body
    assert "<b>省时间的办法</b>" in zhihu and "[!tip]" not in zhihu
    # another tool's kind (MkDocs', Obsidian's) is a callout of the kind it stands for
    abstract = render(issue_of("> [!abstract] 摘要\n> 正文\n"), "zhihu").body
    assert "[!abstract]" not in abstract and "<b>摘要</b>" in abstract


def test_an_alerts_lines_written_without_the_quote_marker_are_the_alerts() -> None:
    # Feishu and hand-written notes: the callout went out empty, its text after it.
    body = ">[!TIP] \n本文适用于 7.0 以上版本。\n第二行\n- 列表在外\n\n```\n> [!NOTE]\n代码\n```\n"
    zhihu = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert zhihu.startswith("> **提示**\n>\n> 本文适用于 7.0 以上版本。\n> 第二行\n\n- 列表在外\n")
    assert "```\n> [!NOTE]\n代码\n```" in zhihu  # code shows what it holds
    wechat = lxml.html.fragment_fromstring(
        render(issue_of(body), "wechat", RenderContext()).body, create_parent="div"
    )
    [callout] = [s for s in wechat.iter("section") if s.text_content().startswith("提示")]
    assert "本文适用于 7.0 以上版本。" in callout.text_content()
    assert "列表在外" not in callout.text_content()


def test_check_names_a_numbered_list_zhihu_shows_as_bullets_with_its_numbers(
    check_lines: CheckLines,
) -> None:
    document = (
        "---\ntitle: 列表\n---\n1. A\n\n![x](images/a.png)\n\n2. B\n3. C\n\n1. 从一开始\n\n"
        '<ol start="7"><li>七</li></ol>\n'
    )
    lines = check_lines(document)
    said = "is shown as a bulleted list with each item's number written before it"
    assert [line for line in lines if "numbers every list" in line] == [
        f"issue.md:{line}: [zhihu] warning: zhihu numbers every list from 1, so this list "
        f"(from {start}) {said}"
        for line, start in ((8, 2), (13, 7))
    ]


def test_check_says_what_became_of_an_ol_start_nested_in_a_raw_list_or_a_quote(
    check_lines: CheckLines,
) -> None:
    """Nested in a raw list's item, an ``<ol start>`` is a list of its own on Zhihu (its
    numbers written as text); in a quote or a table cell, where Zhihu holds no list, it
    is lines. The warning says which, on the line of the tag, and the render agrees."""
    body = (
        '<ul>\n<li>第一项\n<ol start="4">\n<li>四</li>\n<li>五</li>\n</ol>\n</li>\n'
        "<li>第二项</li>\n</ul>\n\n"
        '<blockquote>\n<ol start="9"><li>九</li></ol>\n</blockquote>\n\n'
        '<script>\n<ol start="2"><li>不显示</li></ol>\n</script>\n'
    )
    lines = check_lines("---\ntitle: 嵌套\n---\n" + body)
    assert [line for line in lines if "list (from" in line] == [
        "issue.md:6: [zhihu] warning: zhihu numbers every list from 1, so this list (from 4) "
        "is shown as a bulleted list with each item's number written before it",
        "issue.md:15: [zhihu] warning: zhihu holds no list where this one stands (in a "
        "quote, a table cell or a paragraph), so this list (from 9) is shown as lines of "
        "text, each with its item's number written before it",
    ]
    zhihu = render(issue_of(body), "zhihu", RenderContext()).body
    assert "<ul><li>第一项</li><ul><li>4. 四</li><li>5. 五</li></ul><li>第二项</li></ul>" in zhihu
    assert "<blockquote>9. 九</blockquote>" in zhihu and "不显示" not in zhihu


def test_check_puts_each_raw_list_warning_on_the_line_of_its_own_tag(
    check_lines: CheckLines,
) -> None:
    """A ``<ol start>`` in a comment, a ``<script>`` or a ``<pre>`` is no list; the
    warnings go to the lists the reader sees, each on its own tag's line, saying what
    became of it (lines in a quote, a bulleted list alone), reversed lists included."""
    body = (
        "<div>\n<p>前文</p>\n</div>\n"  # lines 4-6
        '<!-- <ol start="3"> -->\n'  # 7: a comment, no list
        "<script>var s = '<ol start=\"3\">';</script>\n"  # 8
        '<blockquote><ol start="3"><li>三</li></ol></blockquote>\n'  # 9: lines
        '<ol start="3"><li>三</li></ol>\n'  # 10: a bulleted list
        '<pre><ol start="3"></pre>\n'  # 11: code
        "<ol reversed><li>二</li><li>一</li></ol>\n"  # 12: counts down
    )
    lines = check_lines("---\ntitle: 行号\n---\n" + body)
    assert [line for line in lines if "list (from" in line] == [
        "issue.md:9: [zhihu] warning: zhihu holds no list where this one stands (in a "
        "quote, a table cell or a paragraph), so this list (from 3) is shown as lines of "
        "text, each with its item's number written before it",
        "issue.md:10: [zhihu] warning: zhihu numbers every list from 1, so this list (from 3) "
        "is shown as a bulleted list with each item's number written before it",
        "issue.md:12: [zhihu] warning: zhihu numbers every list from 1, so this list (from 2, "
        "counting down) is shown as a bulleted list with each item's number written before it",
    ]
    zhihu = render(issue_of(body), "zhihu", RenderContext()).body
    assert "<blockquote>3. 三</blockquote><ul><li>3. 三</li></ul>" in zhihu
    assert "<ul><li>2. 二</li><li>1. 一</li></ul>" in zhihu


def test_check_names_a_code_block_or_formula_a_zhihu_footnote_keeps_as_text(
    check_lines: CheckLines,
) -> None:
    document = (
        "---\ntitle: 脚注\n---\n见[^1]。\n\n[^1]: 代码：\n\n    ```python\n    x = 1\n    ```\n\n"
        "    $$\n    E = mc^2\n    $$\n"
    )
    lines = check_lines(document)
    said = "[zhihu] warning: zhihu shows a footnote as one line of plain text: the"
    assert [line for line in lines if "footnote as one line" in line] == [
        f"issue.md:8: {said} code block in this footnote is kept as text on that line, "
        "without its line breaks and indentation",
        f"issue.md:12: {said} display formula in this footnote is kept as its TeX, not drawn",
    ]
    zhihu = render(issue_of(document.split("---\n", 2)[2]), "zhihu", RenderContext())
    assert 'data-text="代码： x = 1 E = mc^2"' in zhihu.body


def test_an_image_title_is_its_caption_on_both_channels() -> None:
    body = '前文。\n\n![示意图](images/a.png "图 1：训练吞吐")\n\n![只有替代文字](images/b.png)\n'
    zhihu = render(issue_of(body), "zhihu", RenderContext()).body
    assert 'data-caption="图 1：训练吞吐"' in zhihu and 'data-caption="只有替代文字"' in zhihu
    wechat = render(issue_of(body), "wechat", RenderContext()).body
    captions = lxml.html.fragment_fromstring(wechat, create_parent="div").iter("figcaption")
    assert [c.text for c in captions] == ["图 1：训练吞吐", "只有替代文字"]
    assert 'alt="示意图"' in wechat


def test_a_callout_title_shows_its_words_without_markdown_markers() -> None:
    body = "> [!tip] **先读** `摘要`\n> 正文。\n\n::: warning 注意 *这里*\n内容\n:::\n"
    for channel in ("wechat", "zhihu"):
        shown = render(issue_of(body), channel, RenderContext()).body
        assert "先读 摘要" in shown and "注意 这里" in shown
        assert "**先读**" not in shown and "*这里*" not in shown


def test_raw_html_and_a_list_in_a_footnote_keep_their_words_on_zhihu(
    check_lines: CheckLines,
) -> None:
    body = "正文[^1]。\n\n[^1]: 注释开头\n\n    <div>原始 <b>HTML</b> 内容</div>\n\n"
    body += "    - 列表一\n    - 列表二\n"
    zhihu = render(issue_of(body), "zhihu", RenderContext()).body
    assert 'data-text="注释开头 原始 HTML 内容 列表一 列表二"' in zhihu
    lines = check_lines("---\ntitle: 脚注\n---\n" + body)
    said = "[zhihu] warning: zhihu shows a footnote as one line of plain text: the"
    assert [line for line in lines if "footnote as one line" in line] == [
        f"issue.md:8: {said} raw HTML in this footnote is kept as its words, without its tags",
        f"issue.md:10: {said} list in this footnote is kept as its items' text, without markers",
    ]


@pytest.mark.parametrize(
    ("written", "drawn_as"),
    [
        # The operator came out empty: 'θ̂ = L(θ)', the argmin gone.
        (r"\mathop{\arg\min}\limits_{\theta} L", r"\arg\min_{\theta} L"),
        (r"\mathop{\mathrm{argmax}}_{y} p", r"\operatorname{argmax}_{y} p"),
        # A stray '*' before the operator.
        (r"\operatorname*{arg\,min}_{\theta} L", r"\operatorname{arg\,min}_{\theta} L"),
    ],
)
def test_operators_written_with_mathop_or_a_star_are_drawn_like_operatorname(
    written: str, drawn_as: str
) -> None:
    svg, expected = formula_svg(written, display=True), formula_svg(drawn_as, display=True)
    assert svg is not None and expected is not None
    assert svg.count("<path") == expected.count("<path") >= 6


def test_check_names_a_formula_in_a_table_cell_once_per_row_for_zhihu(
    check_lines: CheckLines,
) -> None:
    # Zhihu's cells showed '$S = \pi r^2$' and check said nothing; WeChat draws them.
    document = (
        "---\ntitle: 公式表\n---\n| 名称 | 公式 | 另 |\n|---|---|---|\n"
        "| 面积 | $S = \\pi r^2$ | $a$ |\n| 均值 | \\( \\bar{x} \\) | x |\n| 无 | 文字 | 字 |\n"
    )
    said = [line for line in check_lines(document) if "formula in this cell" in line]
    assert [line.split(":")[1] for line in said] == ["6", "7"]
    assert all("[zhihu] warning: zhihu's table cells hold plain text" in line for line in said)
