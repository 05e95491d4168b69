"""The shared raw-HTML sanitiser: one mechanism, each channel's allowlist.

The channels' own output for raw HTML is pinned by the fixture files
(``fixtures/wechat/skeleton.txt``, ``fixtures/zhihu/*.txt``); these cases pin the
mechanism itself, table-driven, with WeChat's and Zhihu's real allowlists.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.issue.dialect import left_open
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render
from crosspost.render.sanitize import Allowlist, TagStream, clean
from crosspost.render.wechat.raw import ALLOWLIST as WECHAT
from crosspost.render.zhihu.sanitize import ALLOWLIST as ZHIHU

SMALL = Allowlist(
    tags=frozenset({"p", "a", "img", "span", "br"}),
    attributes={"a": frozenset({"href"}), "img": frozenset({"src"}), "*": frozenset({"style"})},
    dropped=frozenset({"video"}),
    styles=frozenset({"color"}),
)


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("<p>a<br>b</p>", "<p>a<br>b</p>"),
        ('<video><source src="a.mp4"></video>after', "after"),
        ('<input type="text"> a', " a"),
        ('<input type="checkbox"> a', "☐ a"),  # a task's box: its character
        ("<p>one<p>two", "<p>one</p><p>two</p>"),
        ("<marquee>m</marquee><canvas>c</canvas>", "mc"),
        ("<script>x()</script><style>p{}</style>text", "text"),
        ('<a href="javascript:x()">j</a><a href="vbscript:x">v</a>', "<a>j</a><a>v</a>"),
        ('<a href="data:text/html,x">d</a>', "<a>d</a>"),
        ('<img src="data:image/png;base64,AA">', '<img src="data:image/png;base64,AA">'),
        ('<span src="data:image/png;base64,AA">s</span>', "<span>s</span>"),
        ('<a href="images/x.png" onclick="x()">r</a>', '<a href="images/x.png">r</a>'),
        ('<span style="color:red;position:fixed">c</span>', '<span style="color:red">c</span>'),
        ("<!-- note -->kept", "kept"),
    ],
)
def test_clean_keeps_only_the_allowlist(fragment: str, expected: str) -> None:
    assert clean(fragment, SMALL) == expected


def test_a_void_tag_in_a_stream_opens_nothing() -> None:
    stream = TagStream(SMALL)
    pieces = ["<video>", '<source src="a.mp4">', "</video>", '<input type="text">']
    assert [stream.tag(piece) for piece in pieces] == ["", "", "", ""]
    assert stream.dropping == 0


def test_a_dropped_element_in_a_stream_hides_the_text_until_it_closes() -> None:
    stream = TagStream(SMALL)
    assert stream.tag("<video controls>") == "" and stream.dropping == 1
    assert stream.tag('<span style="color:red">') == ""  # inside the video: gone
    assert stream.tag("</video>") == "" and stream.dropping == 0


def test_a_stream_closes_only_what_it_opened() -> None:
    stream = TagStream(SMALL)
    assert stream.tag('<span style="color:red" onclick="x()">') == '<span style="color:red">'
    assert stream.tag("</span>") == "</span>"
    assert stream.tag("</span>") == ""
    assert stream.tag("<marquee>") == "" and stream.tag("</marquee>") == ""
    assert stream.tag('<img src="javascript:x()">') == "<img>"
    assert stream.tag("<br/>") == "<br>"


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        # A style's strikethrough is <s> around the element's content, to its own close.
        (
            '<span style="text-decoration: line-through">a<span>b</span>c</span>d',
            "<span><s>a<span>b</span>c</s></span>d",
        ),
        ('<p style="text-decoration-line:line-through">old</p>', "<p><s>old</s></p>"),
        # Nested, and written as a colour and two lines; <font> keeps its marks.
        (
            '<span style="text-decoration:line-through">a<span style="text-decoration: '
            'red underline line-through">b</span></span>c',
            "<span><s>a<span><u><s>b</s></u></span></s></span>c",
        ),
        ('<font style="text-decoration:underline">u</font>', "<span><u>u</u></span>"),
        # No line, or one the element draws already: nothing to add; one left open ends
        # where its element does.
        ('<span style="text-decoration:none">n</span>', "<span>n</span>"),
        ('<s style="text-decoration:line-through">s</s>', "<s>s</s>"),
        ('<p><span style="text-decoration:line-through">x</p>y', "<p><span><s>x</s></span></p>y"),
    ],
)
def test_clean_draws_a_styles_line_as_the_element_that_draws_it(
    fragment: str, expected: str
) -> None:
    assert clean(fragment, SMALL_MARKED) == expected


SMALL_MARKED = Allowlist(
    tags=SMALL.tags | {"s", "u"}, attributes={"a": frozenset({"href"})}, dropped=SMALL.dropped
)


@pytest.mark.parametrize(
    ("allowlist", "expected"),
    [
        (SMALL_MARKED, ["<span><s>", "a", "<span>", "b", "</span>", "</s></span>", "c"]),
        # An element the channel does not keep: its marks alone (Zhihu keeps no <span>).
        (ZHIHU, ["<s>", "a", "", "b", "", "</s>", "c"]),
    ],
)
def test_a_stream_draws_a_styles_line_to_the_elements_close(
    allowlist: Allowlist, expected: list[str]
) -> None:
    stream = TagStream(allowlist)
    pieces = ['<span style="text-decoration:line-through">', "a", "<span>", "b", "</span>",
              "</span>", "c"]  # fmt: skip
    assert [stream.tag(p) if p.startswith("<") else p for p in pieces] == expected


@pytest.mark.parametrize(
    ("tag", "shown"),
    [
        ('<en-todo checked="true"/>', "☑ "),
        ('<en-todo checked="false"/>', "☐ "),
        ("<en-todo/>", "☐ "),
        ('<input type="checkbox" checked disabled>', "☑ "),
        ("<INPUT TYPE=checkbox>", "☐ "),
        ('<input type="text">', ""),
        ("<en-crypt>", ""),
    ],
)
def test_a_stream_shows_a_tasks_box_as_its_character(tag: str, shown: str) -> None:
    assert TagStream(WECHAT).tag(tag) == shown


def test_wechat_keeps_inline_svg_tag_by_tag() -> None:
    stream = TagStream(WECHAT)
    pieces = ['<svg viewBox="0 0 8 8" onload="x()">', '<g fill="currentColor">',
              '<path d="M0 0L8 8"/>', "</g>", "</svg>"]  # fmt: skip
    assert "".join(stream.tag(piece) for piece in pieces) == (
        '<svg viewBox="0 0 8 8"><g fill="currentColor"><path d="M0 0L8 8"></path></g></svg>'
    )


@pytest.mark.parametrize("shape", ["circle", "ellipse", "line", "polyline", "polygon", "rect"])
def test_every_self_closed_svg_shape_is_drawn(shape: str) -> None:
    """A shape draws without words: a self-closed <polygon/> went as "holding nothing",
    and a drawing lost its triangles while its circles stayed."""
    stream = TagStream(WECHAT)
    pieces = ['<svg viewBox="0 0 8 8">', f'<{shape} fill="red"/>', "</svg>"]
    assert f"<{shape}" in "".join(stream.tag(piece) for piece in pieces)


@pytest.mark.parametrize(
    ("allowlist", "expected"),
    [
        (WECHAT, '<svg viewBox="0 0 8 8"><path d="M0 0"></path><text>x</text></svg>'),
        (ZHIHU, ""),
    ],
)
def test_svg_is_a_per_channel_choice(allowlist: Allowlist, expected: str) -> None:
    svg = '<svg viewBox="0 0 8 8"><path d="M0 0"/><text>x</text></svg>'
    assert clean(svg, allowlist) == expected


# --- an element that hides its content, never closed ---------------------------------


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (["<video src='a'>", " after"], [(1, "video")]),
        (["<video>", " ", "<source src='a'>", "\n", "<track>", "after"], [(5, "video")]),
        (["<video>", "x", "</video>", "after"], []),
        (["<span>", "<video src='a'>", " b", "</span>", " c"], [(2, "video")]),
        (["<video src='a'>", "<script>", "x", "</video>", "b"], [(2, "script")]),
        (["<span>", "red", "<b>", "</span>"], []),  # shown content: a browser's business
        (["<audio>", "<iframe src='f'>", "text"], [(2, "iframe"), (1, "audio")]),
    ],
)
def test_an_element_left_open_is_closed_after_its_own_children(
    pieces: list[str], expected: list[tuple[int, str]]
) -> None:
    assert left_open(pieces) == expected


def test_a_raw_block_keeps_the_text_after_a_video_left_open() -> None:
    fragment = '<p>前 <video src="https://v.example.com/a.mp4"> 后文</p><p>下一段</p>'
    for allowlist in (WECHAT, ZHIHU):
        cleaned = clean(fragment, allowlist)
        assert "后文" in cleaned and "下一段" in cleaned and "▶ 视频" in cleaned, cleaned


@pytest.mark.parametrize("channel", ["wechat", "zhihu"])
@pytest.mark.parametrize(
    "opening",
    ['<video src="https://v.example.com/a.mp4">', '<audio><source src="https://v.example.com/a.mp3">',
     '<iframe src="https://v.example.com/e">', "<script>"],
)  # fmt: skip
def test_an_inline_element_left_open_hides_nothing_after_it(channel: str, opening: str) -> None:
    body = f"前 {opening} 后文 **仍在** 行末\n\n下一段\n\n## 标题\n"
    issue = Issue(path=Path("/issues/x/issue.md"), id="x", title="t", body=body, body_line=1)
    rendered = render(issue, channel, RenderContext())
    for output in (rendered.body, *rendered.files.values()):
        for words in ("前", "后文", "仍在", "行末", "下一段", "标题"):
            assert words in output, (words, output)


# --- bold and italic written as a style ---------------------------------------------

SMALL_BOLD = Allowlist(
    tags=SMALL.tags | {"b", "i", "s", "strong"}, attributes={}, dropped=SMALL.dropped
)


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ('<span style="font-weight:700">a</span>b', "<span><b>a</b></span>b"),
        ('<span style="font-weight: bold !important">a</span>', "<span><b>a</b></span>"),
        ('<span style="font-style:italic">a</span>', "<span><i>a</i></span>"),
        # The shorthand, and the last word on the weight wins, as in CSS.
        ('<span style="font:italic bold 14px/1.5 serif">a</span>', "<span><b><i>a</i></b></span>"),
        ('<span style="font-weight:bold;font-weight:400">a</span>', "<span>a</span>"),
        ('<span style="font-weight:bold;font:12px serif">a</span>', "<span>a</span>"),
        # Bold and struck at once; an element bold already, or a header cell, needs no mark.
        (
            '<span style="font-weight:600;text-decoration:line-through">a</span>',
            "<span><b><s>a</s></b></span>",
        ),
        ('<strong style="font-weight:bold">a</strong>', "<strong>a</strong>"),
        ('<span style="font-family:Bold Sans">a</span>', "<span>a</span>"),
        # An element bold (italic) by its name whose own style takes that back is plain.
        ('<b style="font-weight:normal">a</b>b', "<span>a</span>b"),
        ('<strong style="font-weight: 400 !important">a</strong>', "<span>a</span>"),
        ('<b style="font:12px serif">a</b>', "<span>a</span>"),
        ('<em style="font-style:normal">a</em>', "<span>a</span>"),
        ('<b style="font-weight:normal"><b>a</b></b>', "<span><b>a</b></span>"),
        ('<b style="font-weight:inherit">a</b>', "<b>a</b>"),
        ('<b style="font:inherit">a</b>', "<b>a</b>"),
        ('<span style="font-weight:bold;font:inherit">a</span>', "<span>a</span>"),
    ],
)
def test_clean_draws_a_styles_weight_and_slant_as_the_element_that_draws_them(
    fragment: str, expected: str
) -> None:
    assert clean(fragment, SMALL_BOLD) == expected


def test_a_channel_that_keeps_the_weight_as_a_style_gets_no_mark() -> None:
    """WeChat keeps ``font-weight`` and ``font-style``: a <b> would add nothing there."""
    fragment = '<span style="font-weight:700;font-style:italic">a</span>'
    assert clean(fragment, WECHAT) == '<span style="font-weight:700;font-style:italic">a</span>'
    stream = TagStream(WECHAT)
    assert stream.tag('<span style="font-weight:700">') == '<span style="font-weight:700">'
    assert stream.tag("</span>") == "</span>"


def test_a_stream_draws_a_styles_weight_to_the_elements_close_on_zhihu() -> None:
    stream = TagStream(ZHIHU)
    pieces = ['<span style="font-weight:bold">', "a", "<span>", "b", "</span>", "</span>", "c"]
    assert [stream.tag(p) if p.startswith("<") else p for p in pieces] == [
        "<b>", "a", "", "b", "", "</b>", "c"
    ]  # fmt: skip


#: What Google Docs puts on the clipboard: one ``<b style="font-weight:normal">`` around
#: the whole paste (not bold), each run's weight in a ``<span>``'s style.
GOOGLE_DOCS = (
    '<b style="font-weight:normal;" id="docs-internal-guid-1a2b3c4d-7fff-1e2f-3a4b-5c6d">'
    '<p dir="ltr" style="line-height:1.38;margin-top:0pt;margin-bottom:0pt;">'
    '<span style="font-size:11pt;font-family:Arial;font-weight:400;">普通的字</span>'
    '<span style="font-size:11pt;font-family:Arial;font-weight:700;">粗的字</span></p>'
    '<p dir="ltr"><span style="font-weight:400;">第二段</span></p></b>'
)


def _weight(body: str, words: str) -> str:
    """How a browser draws ``words`` of ``body``: the nearest element around them that
    sets a weight (a style's ``font-weight``, else ``<b>``/``<strong>``) says."""
    from bs4 import BeautifulSoup

    text = BeautifulSoup(body, "html.parser").find(string=lambda s: words in s)
    assert text is not None, body
    for element in text.parents:
        style = str(element.get("style") or "") if element.name else ""
        for declaration in reversed(style.split(";")):
            prop, _, value = declaration.partition(":")
            if prop.strip() == "font-weight":
                return "bold" if value.strip() in ("bold", "bolder", "600", "700") else "plain"
        if element.name in ("b", "strong"):
            return "bold"
    return "plain"


@pytest.mark.parametrize(
    "body",
    [f"{GOOGLE_DOCS}\n", GOOGLE_DOCS.replace('"><p', '">\n<p', 1).replace("</b>", "\n</b>\n")],
    ids=["one line", "its own lines"],
)
def test_a_google_docs_paste_is_bold_only_where_the_document_was(body: str) -> None:
    """Zhihu keeps no style: it read the wrapper's <b> and bolded the whole paste."""
    issue = Issue(path=Path("/issues/x/issue.md"), id="x", title="t", body=body, body_line=1)
    zhihu = render(issue, "zhihu", RenderContext())
    assert "<p>普通的字<b>粗的字</b>" in zhihu.body
    assert "<b>普通" not in zhihu.body and "<b>第二段" not in zhihu.body
    assert "普通的字<b>粗的字</b>" in zhihu.files["zhihu.md"]
    assert "<b>普通" not in zhihu.files["zhihu.md"]
    wechat = render(issue, "wechat", RenderContext()).body
    drawn = {words: _weight(wechat, words) for words in ("普通的字", "粗的字", "第二段")}
    assert drawn == {"普通的字": "plain", "粗的字": "bold", "第二段": "plain"}


def test_a_stream_writes_an_element_its_style_makes_plain_as_its_words_on_zhihu() -> None:
    stream = TagStream(ZHIHU)
    pieces = ['<b style="font-weight:normal">', "a", '<span style="font-weight:700">', "b"]
    pieces += ["</span>", "</b>", "<strong>", "c", "</strong>"]
    assert [stream.tag(p) if p.startswith("<") else p for p in pieces] == [
        "", "a", "<b>", "b", "</b>", "", "<strong>", "c", "</strong>"
    ]  # fmt: skip


# --- hidden content -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ('<div style="display:none">预览</div><p>正文</p>', "<p>正文</p>"),
        ('<p>a<span style="display: none !important">b</span>c</p>', "<p>ac</p>"),
        ('<p>a<span style="visibility:hidden">b</span>c</p>', "<p>ac</p>"),
        ("<p hidden>a</p><p>b</p>", "<p>b</p>"),
        # Void or self-closed: nothing to hide but itself. Left open: to its element's end.
        ('<p>a<img src="p.gif" style="display:none">b</p>', "<p>ab</p>"),
        ('<p>a<span style="display:none">b</p><p>c</p>', "<p>a</p><p>c</p>"),
        # A table's row: its own, not its cell's text fostered out of the table.
        (
            '<table><tr style="display:none"><td>x</td></tr><tr><td>y</td></tr></table>',
            "<table><tbody><tr><td>y</td></tr></tbody></table>",
        ),
        # Outlook's mso-hide:all hides it in Outlook alone: every other reader sees it.
        ('<p style="mso-hide:all">a</p>', "<p>a</p>"),
        ('<p aria-hidden="true">a</p><input type="hidden" value="v">', "<p>a</p>"),
    ],
)
def test_clean_leaves_out_what_its_page_hides(fragment: str, expected: str) -> None:
    for allowlist in (WECHAT, ZHIHU):  # WeChat's empty style: what it kept of one
        assert clean(fragment, allowlist).replace(' style=""', "") == expected, allowlist


def test_a_hidden_element_the_channel_has_no_tag_for_still_goes_with_its_words() -> None:
    """Zhihu keeps no <span>: the mark could not ride on it, and the words showed."""
    fragment = '<p><span style="display:none">藏</span><span>见</span></p>'
    assert clean(fragment, ZHIHU) == "<p>见</p>"
    assert clean(fragment, WECHAT) == "<p><span>见</span></p>"


# --- tables that lay a page out -------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "laid_out"),
    [
        ('<table><tr><td><img src="a.png"></td></tr></table>', True),
        ('<table><tr><td><p><a href="u"><img src="a.png"></a></p></td></tr></table>', True),
        ('<table><tr><td><a href="u"><span>Buy</span></a></td></tr></table>', True),
        ('<table><tr><td><img src="a.png"></td><td></td><td><img src="b.png"></td></tr>'
         "</table>", True),
        ("<table><tr><td><p>text</p></td></tr><tr><td><h2>h</h2></td></tr></table>", True),
        # Data: words beside a link, a header, two links in a cell, rows and columns.
        ('<table><tr><td>Price</td><td><a href="u">$19</a></td></tr></table>', False),
        ('<table><tr><th>Shot</th></tr><tr><td><img src="a.png"></td></tr></table>', False),
        ('<table><tr><td><a href="u">a</a> <a href="v">b</a></td></tr></table>', False),
        ('<table><tr><td><img src="a.png"></td><td><img src="b.png"></td></tr>'
         '<tr><td><img src="c.png"></td><td><img src="d.png"></td></tr></table>', False),
        ("<table><tr><td>just words</td></tr></table>", False),
        ("<table><tr><td></td></tr></table>", False),
    ],
)  # fmt: skip
def test_a_table_that_lays_a_page_out_is_its_content(table: str, laid_out: bool) -> None:
    for allowlist in (WECHAT, ZHIHU):
        assert ("<table" not in clean(table, allowlist)) is laid_out, allowlist


def test_a_layout_tables_caption_is_a_block_before_its_cells() -> None:
    """Written as its cells, the table took its caption with it, on every channel."""
    table = "<table><caption>图注 <b>一</b></caption><tr><td><p>段落</p></td></tr></table>"
    for allowlist in (WECHAT, ZHIHU):
        assert clean(table, allowlist) == "<div>图注 <b>一</b></div><div><p>段落</p></div>"


@pytest.mark.parametrize(
    "body",
    [
        "<object>备用文字 words</object>\n",
        "前文 <object>备用文字 *words*</object> 后文\n",
        "<div><object>\n备用文字 words\n</object></div>\n",
    ],
)
def test_an_object_that_embeds_nothing_shows_the_words_it_holds(body: str) -> None:
    """A browser shows what an ``<object>`` holds when it embeds nothing; it went out as
    '▶ 嵌入内容' linking nowhere, its words gone, and check (which reads such an object
    as a wrapper) said nothing."""
    for channel in ("wechat", "zhihu"):
        issue = Issue(path=Path("/issues/o/issue.md"), id="o", title="t", body=body, body_line=1)
        shown = render(issue, channel, RenderContext()).body
        assert "备用文字" in shown and "words" in shown and "▶" not in shown, channel


def test_an_object_that_embeds_something_is_still_its_line() -> None:
    body = '前文 <object data="https://e.com/a.swf">备用</object> 后文 <object>包着 <video src="https://v.com/a.mp4">x</video></object>\n'
    for channel in ("wechat", "zhihu"):
        issue = Issue(path=Path("/issues/o/issue.md"), id="o", title="t", body=body, body_line=1)
        shown = render(issue, channel, RenderContext()).body
        assert "▶ 嵌入内容" in shown and "▶ 视频" in shown and "包着" in shown, channel


def test_a_mark_on_a_block_of_blocks_goes_inside_each_around_its_words() -> None:
    """Around the blocks, Zhihu read them as one line of bold words, a list's items run
    together; WeChat drew an empty mark before them."""
    fragment = '<div style="font-weight:bold"><p>a</p>b<ul><li>c</li></ul></div>'
    assert clean(fragment, ZHIHU) == "<div><p><b>a</b></p><b>b</b><ul><li><b>c</b></li></ul></div>"
