"""The WeChat renderer: every rule of issue #2 item 3, on small documents, the example
and the shared corpus. Structure is checked with BeautifulSoup on the real output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from hypothesis import given, settings
from hypothesis import strategies as st

from crosspost.errors import UsageError
from crosspost.issue.dialect import new_markdown, parse
from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.platforms.wechat import WECHAT
from crosspost.render.rendered import PreviousIssue, RenderContext, Rendered, render
from crosspost.render.wechat import document as wechat
from crosspost.render.wechat.raw import is_mp_link

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
CORPUS = sorted((SHARED / "corpus").glob("*.md")) if (SHARED / "corpus").is_dir() else []
EXAMPLE = REPO / "examples" / "ai-systems-48" / "issue.md"
BLOCKS = "section|p|h[1-6]|ul|ol|li|blockquote|pre|table|thead|tbody|tr|td|th|figure|figcaption"


def issue_of(body: str, folder: Path = Path("/issues/demo")) -> Issue:
    return Issue(path=folder / "issue.md", id="demo", title="测试一期", body=body, body_line=1)


def render_body(body: str, **context: object) -> tuple[Rendered, BeautifulSoup]:
    rendered = wechat.render(issue_of(body), RenderContext(**context))  # type: ignore[arg-type]
    return rendered, BeautifulSoup(rendered.body, "html.parser")


def style_of(tag: Tag) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in str(tag.get("style", "")).split(";") if ":" in part)
    return {name.strip(): value.strip() for name, value in pairs}


def references(soup: BeautifulSoup) -> dict[int, str]:
    """The reference list at the end: number → the entry's text."""
    found: dict[int, str] = {}
    for heading in soup.find_all("h3"):
        if heading.get_text() == "引用链接":
            # One entry a line: the lines are separated by <br>, not wrapped one by one.
            listing = heading.find_next_sibling("section")
            assert not listing.find("section"), listing
            lines = "".join(
                "\n" if getattr(node, "name", None) == "br" else node.get_text()
                for node in listing.children
            )
            for text in lines.replace("\xa0", " ").split("\n"):
                number = re.match(r"\[(\d+)\]", text)
                assert number, text
                found[int(number.group(1))] = text
    return found


def content_text(soup: BeautifulSoup) -> str:
    """The words a reader sees; a formula (an SVG) reads as the TeX it was made from."""
    soup = BeautifulSoup(str(soup), "html.parser")
    for svg in soup.find_all("svg"):
        svg.replace_with(str(svg.get("aria-label") or ""))
    return soup.get_text().replace("\xa0", " ")


def assert_wechat_safe(body: str) -> None:
    """What WeChat needs of every article, whatever the document."""
    soup = BeautifulSoup(body, "html.parser")
    roots = [node for node in soup.contents if isinstance(node, Tag) or str(node).strip()]
    assert len(roots) == 1 and roots[0].name == "section", "exactly one root <section>"
    assert not soup.find_all(["style", "script", "iframe", "form"])
    for tag in soup.find_all(True):
        assert "class" not in tag.attrs and "id" not in tag.attrs, tag.name
        assert not any(name.startswith("on") for name in tag.attrs), tag.attrs
        if tag.name == "a":
            assert is_mp_link(str(tag.get("href", ""))), tag
    assert not re.search(r"<[a-z][^>]*\s(?:class|id)=", body), "class/id in a tag"
    assert "\n" not in body, "no newline anywhere: WeChat shows gaps between block tags"
    assert not re.search(rf"</?(?:{BLOCKS})\b[^>]*>\s+<", body), "whitespace between tags"
    assert "var(" not in body


# --- root, inlining, guards -----------------------------------------------------------


def test_one_root_section_carries_the_font_and_every_element_has_its_style() -> None:
    rendered, soup = render_body("# 标题\n\n一段**正文**。\n\n> 引用\n")
    assert_wechat_safe(rendered.body)
    root = soup.contents[0]
    assert isinstance(root, Tag)
    assert {"font-family", "font-size", "color", "line-height"} <= style_of(root).keys()
    for name in ("h1", "p", "strong", "blockquote"):
        assert style_of(soup.find(name)), f"<{name}> got no inline style"
    assert rendered.files == {"wechat.html": rendered.body}
    assert rendered.channel == "wechat" and rendered.title == "测试一期"


def test_empty_guard_paragraphs_wrap_the_content() -> None:
    _, soup = render_body("```python\nprint(1)\n```\n")
    root = soup.contents[0]
    first, last = root.contents[0], root.contents[-1]
    for guard in (first, last):
        assert guard.name == "p" and guard.get_text() == "\xa0"
        assert style_of(guard)["font-size"] == "0"


@pytest.mark.parametrize(
    "markdown",
    [
        "<style>p{color:red}</style>\n\n<script>alert(1)</script>\n\n正文",
        '<div class="box" id="x" onclick="steal()">盒子</div>\n\n正文',
        '<iframe src="https://example.com"></iframe>\n\n<form><input name="q">表单</form>',
        'text <span class="hl" onmouseover="x()">inline</span> more',
        "一段 <script>alert(1)</script> 正文 <style>p{steal:1}</style> 结束",
    ],
)
def test_raw_html_is_sanitised(markdown: str) -> None:
    rendered, _soup = render_body(markdown)
    assert_wechat_safe(rendered.body)
    assert "alert" not in rendered.body and "steal" not in rendered.body


def test_raw_div_becomes_section_and_keeps_its_text_and_style() -> None:
    _, soup = render_body('<div style="color:red">红色\n文字</div>\n\n<center>居中</center>\n')
    sections = [s for s in soup.find_all("section") if "红色" in s.get_text()]
    assert sections and style_of(sections[-1])["color"] == "red"
    assert "红色文字" in soup.get_text()  # the newline between CJK characters joins them
    centred = [s for s in soup.find_all("section") if s.get_text() == "居中"]
    assert centred and style_of(centred[0])["text-align"] == "center"
    assert not soup.find_all(["div", "center"])


# --- links ---------------------------------------------------------------------------

LINK_CASES = [
    # (markdown, visible text, reference entries expected)
    ("看[官网](https://example.com/a)。", "看官网[1]。", {1: "[1] 官网: https://example.com/a"}),
    ("<https://example.com/b>", "https://example.com/b", {}),
    ("[https://example.com/c](https://example.com/c)", "https://example.com/c", {}),
    ("[example.com/d/](https://example.com/d)", "example.com/d/", {}),
    ("[跳到第二节](#second)", "跳到第二节", {}),
    ("[公众号文章](https://mp.weixin.qq.com/s/abc)", "公众号文章", {}),
    (
        "[甲](https://a.example) 与 [乙](https://b.example) 再看[甲2](https://a.example)",
        "甲[1] 与 乙[2] 再看甲2[1]",
        {1: "[1] 甲: https://a.example", 2: "[2] 乙: https://b.example"},
    ),
]


@pytest.mark.parametrize(("markdown", "visible", "entries"), LINK_CASES)
def test_links_become_numbered_references(
    markdown: str, visible: str, entries: dict[int, str]
) -> None:
    rendered, soup = render_body(markdown)
    assert_wechat_safe(rendered.body)
    paragraph = soup.find_all("p")[1]  # after the guard
    assert paragraph.get_text() == visible
    assert references(soup) == entries


def test_mp_weixin_links_stay_clickable() -> None:
    _, soup = render_body("[往期](https://mp.weixin.qq.com/s/abc) 和 [外链](https://x.example)")
    links = soup.find_all("a")
    assert [a["href"] for a in links] == ["https://mp.weixin.qq.com/s/abc"]
    assert style_of(links[0])["color"]
    assert "[1]" in soup.find_all("p")[1].get_text()


def test_raw_html_links_follow_the_same_policy() -> None:
    rendered, soup = render_body(
        'a <a href="https://x.example" title="X站">站</a> b '
        '<a href="https://mp.weixin.qq.com/s/q">文</a> <a href="#top">顶</a>'
    )
    assert_wechat_safe(rendered.body)
    assert soup.find_all("p")[1].get_text() == "a 站[1] b 文 顶"
    assert references(soup) == {1: "[1] 站: https://x.example"}  # its text, not its title


@pytest.mark.parametrize(
    "markdown",
    [
        'a <a href="https://x.example/p">https://x.example/p</a> b <a href="https://y.example">乙</a>',
        '<p>a <a href="https://x.example/p">https://x.example/p</a> b '
        '<a href="https://y.example">乙</a></p>',
    ],
)
def test_a_raw_link_whose_text_is_its_address_needs_no_number(markdown: str) -> None:
    # Inline pieces know the text when the <a> opens, a block knows it at </a>: either
    # way the address is the text, as for a Markdown link, and numbers stay in order.
    _, soup = render_body(markdown)
    assert soup.find_all("p")[1].get_text() == "a https://x.example/p b 乙[1]"
    assert references(soup) == {1: "[1] 乙: https://y.example"}


def test_footnotes_are_numbered_with_the_links_and_have_no_anchors() -> None:
    rendered, soup = render_body(
        "见[文档](https://docs.example)[^n]。\n\n[^n]: 这是脚注，参见 [规范](https://spec.example)。\n"
    )
    assert_wechat_safe(rendered.body)
    assert 'href="#' not in rendered.body and "↩" not in rendered.body
    assert soup.find_all("p")[1].get_text() == "见文档[1][2]。"
    notes = next(h for h in soup.find_all("h3") if h.get_text() == "注释").parent
    assert notes.get_text().replace("\xa0", " ").endswith("[2] 这是脚注，参见 规范[3]。")
    assert references(soup) == {
        1: "[1] 文档: https://docs.example",
        3: "[3] 规范: https://spec.example",
    }


def test_a_footnote_that_starts_with_a_list_keeps_its_number() -> None:
    _, soup = render_body("正文[^x]\n\n[^x]:\n    - 项一\n    - 项二\n")
    notes = next(h for h in soup.find_all("h3") if h.get_text() == "注释").parent
    assert notes.get_text().replace("\xa0", " ") == "注释[1] • 项一• 项二"


# --- lists ---------------------------------------------------------------------------


def test_lists_are_sections_with_markers_in_the_text() -> None:
    markdown = "- 甲\n- 乙\n  1. 乙一\n  2. 乙二\n     - 更深\n- 丙\n\n3. 三\n4. 四\n"
    rendered, soup = render_body(markdown)
    assert_wechat_safe(rendered.body)
    assert not soup.find_all(["ul", "ol", "li"]), "WeChat adds its own bullets to ul/ol"
    text = content_text(soup)
    assert "• 甲" in text and "• 乙" in text and "• 丙" in text
    assert "1. 乙一" in text and "2. 乙二" in text and "◦ 更深" not in text
    assert "▪ 更深" in text  # third level: its own bullet
    assert "3. 三" in text and "4. 四" in text, "an ordered list keeps its start number"
    nested_item = next(s for s in soup.find_all("section") if s.get_text() == "1.\xa0乙一")
    # A list indents its items once and each marker hangs in that indent, so a nested list
    # indents by its own, inside its item's text.
    marker = nested_item.find("span")
    assert style_of(marker).get("margin-left") == "-1.6em", "items have a hanging indent"
    assert "padding-left" not in style_of(nested_item), "the list's indent, not each item's"
    assert style_of(nested_item.parent).get("padding-left") == "1.6em", "nested lists indent"
    assert style_of(nested_item.parent.parent.parent).get("padding-left") == "1.6em"


def test_loose_list_items_keep_the_marker_in_their_first_paragraph() -> None:
    _, soup = render_body("1. 第一段\n\n   第二段\n\n2. 下一项\n")
    paragraphs = [p.get_text().replace("\xa0", " ") for p in soup.find_all("p")]
    assert "1. 第一段" in paragraphs and "第二段" in paragraphs and "2. 下一项" in paragraphs


# --- code ----------------------------------------------------------------------------

CODE = 'def greet(name):\n\tif name:\n        return f"hi {name}"  # comment\n\n    return None\n'


def test_a_raw_html_list_is_drawn_as_markdowns_lists_are() -> None:
    # WeChat's editor resets ul/ol: a pasted list's bullets and step numbers were gone.
    markdown = (
        "<ol>\n<li>第一步</li>\n<li><p>第二步</p><p>说明</p></li>\n"
        "<li>第三步<ul><li>子项</li></ul></li>\n</ol>\n\n"
        '<ol start="9"><li>九</li><li>十</li></ol>\n'
    )
    rendered, soup = render_body(markdown)
    assert not soup.find_all(["ul", "ol", "li"]), rendered.body
    text = content_text(soup)
    for line in ("1. 第一步", "2. 第二步", "3. 第三步", "◦ 子项", "9. 九", "10. 十"):
        assert line in text, (line, text)
    second = next(p for p in soup.find_all("p") if "第二步" in p.get_text())
    assert second.get_text().startswith("2.\xa0"), "the marker opens the item's paragraph"
    tenth = next(s for s in soup.find_all("span") if s.get_text() == "10.\xa0")
    assert style_of(tenth)["margin-left"] == "-2.5em", "numbers past 9 hang in a wider gap"
    assert style_of(tenth.parent.parent)["padding-left"] == "2.5em"


@pytest.mark.parametrize("kind", ["ul", "ol"])
def test_a_centred_paragraph_in_a_raw_list_item_is_centred(kind: str) -> None:
    # The item's first paragraph, written with its marker, kept align="center" as it
    # came, which WeChat's pages do not keep: it stood at the left, unlike any other
    # <p align="center">.
    _, soup = render_body(f'<{kind}><li><p align="center">居中的一项</p></li></{kind}>\n')
    item = next(p for p in soup.find_all("p") if "居中的一项" in p.get_text())
    assert style_of(item).get("text-align") == "center" and not item.has_attr("align"), item


def test_a_raw_figure_is_themed_as_a_markdown_figure_is() -> None:
    # Ghost's and WordPress's <figure> kept the browser's 40 px indent each side and a
    # caption in body text.
    raw = '<figure><img src="https://e.com/a.png"><figcaption>说明</figcaption></figure>\n'
    _, soup = render_body(raw)
    _, markdown = render_body("![说明](https://e.com/a.png)\n")
    for tag in ("figure", "figcaption"):
        assert style_of(soup.find(tag)) == style_of(markdown.find(tag)), tag


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_a_raw_key_is_drawn_as_markdowns_keys_are(theme: str) -> None:
    # WeChat's editor resets <kbd>: a key was a plain word beside MkDocs's keys in code.
    _, soup = render_body(
        "按 <kbd>Ctrl</kbd> 键，或 ++ctrl++ 键；复制是 <kbd><kbd>Ctrl</kbd>+<kbd>C</kbd></kbd>。\n",
        theme=theme,
    )
    paragraph = next(p for p in soup.find_all("p") if "复制是" in p.get_text())
    key, combination = paragraph.find_all("kbd", recursive=False)
    assert style_of(key) and style_of(key) == style_of(soup.find("code"))
    # Keys in a key (MDN's way to write a combination) are one key, not boxes in a box.
    assert style_of(combination) == style_of(key)
    for inner in combination.find_all("kbd"):
        assert "background" not in style_of(inner) and "padding" not in style_of(inner)


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_a_raw_definition_list_is_drawn_as_markdowns_is(theme: str) -> None:
    # WeChat's editor resets <dt> and <dd>: the term was plain words, and some clients
    # indented the definition 40 px.
    _, raw = render_body("<dl><dt>术语</dt><dd>它的定义。</dd></dl>\n", theme=theme)
    _, markdown = render_body("术语\n: 它的定义。\n", theme=theme)
    term = next(p for p in markdown.find_all("p") if p.get_text() == "术语")
    definition = next(p for p in markdown.find_all("p") if p.get_text() == "它的定义。")
    dt, dd = style_of(raw.find("dt")), style_of(raw.find("dd"))
    assert dt["margin"] == style_of(term)["margin"] and dt["font-weight"] == "700"
    assert dt["color"] == style_of(term.find("strong"))["color"]
    assert dd == style_of(definition), "a paragraph's margins: no indent"


def test_an_abbreviations_title_is_said_once_after_its_words() -> None:
    # WeChat shows no tooltip: what the writer spelled out in the title was lost.
    rendered, soup = render_body(
        '<abbr title="World Wide Web Consortium">W3C</abbr> 的标准，'
        '再说 <abbr title="World Wide Web Consortium">W3C</abbr>。\n\n'
        '<p>The <abbr title="Large  Language Model">LLM</abbr> and <abbr title="HTML">HTML</abbr>,'
        ' <abbr title="大语言模型">大模型</abbr>.</p>\n'
    )
    text = content_text(soup)
    assert "W3C (World Wide Web Consortium) 的标准，再说 W3C。" in text
    assert "The LLM (Large Language Model) and HTML, 大模型（大语言模型）." in text
    assert "title=" not in rendered.body, "no tooltip promised by a dotted underline"


def test_a_list_numbered_past_nine_hangs_its_numbers_in_a_wider_gap() -> None:
    markdown = "\n".join(f"{n}. 项" for n in range(1, 11)) + "\n\n段\n\n- 甲\n"
    _, soup = render_body(markdown)
    lists = [s for s in soup.find_all("section") if "padding-left" in style_of(s)]
    numbered, bulleted = lists
    assert style_of(numbered)["padding-left"] == "2.5em"
    markers = numbered.find_all("span")
    assert {style_of(m)["margin-left"] for m in markers} == {"-2.5em"}
    assert style_of(bulleted)["padding-left"] == "1.6em", "a list of bullets keeps its gap"


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_every_heading_says_it_is_bold(theme: str) -> None:
    # WeChat's article page has set headings to normal weight: a heading that counted on
    # the browser's bold read as a coloured line of text.
    body = "# 一\n\n## 二\n\n### 三\n\n#### 四\n\n正文[^1]，[链接](https://e.com)\n\n[^1]: 注\n"
    _, soup = render_body(body, theme=theme)
    headings = soup.find_all(re.compile(r"^h[1-6]$"))
    assert len(headings) >= 5, headings  # the four, and the notes' and links' titles
    for heading in headings:
        assert style_of(heading).get("font-weight") in ("700", "bold"), heading


def test_code_is_coloured_inline_and_keeps_every_space_and_line() -> None:
    rendered, soup = render_body(f"```python\n{CODE}```\n")
    assert_wechat_safe(rendered.body)
    pre = soup.find("pre")
    code = pre.find("code")
    assert style_of(code)["overflow-x"] == "auto" and style_of(code)["white-space"] == "nowrap"
    coloured = [span for span in code.find_all("span") if "color" in style_of(span)]
    assert len(coloured) >= 4, "Pygments colours keywords, strings, comments"
    assert "&nbsp;&nbsp;&nbsp;&nbsp;" in rendered.body and "<br>" in rendered.body
    for br in code.find_all("br"):
        br.replace_with("\n")
    assert code.get_text().replace("\xa0", " ") == CODE.replace("\t", "    ").rstrip("\n")


def test_unknown_language_and_indented_code_stay_plain_text() -> None:
    rendered, soup = render_body("```nosuchlang\na  <b>\n```\n\n    indented\n")
    codes = soup.find_all("code")
    assert codes[0].get_text() == "a\xa0\xa0<b>" and codes[1].get_text() == "indented"
    assert_wechat_safe(rendered.body)


#: Languages whose Pygments lexers read a session a line at a time (a terminal, a REPL,
#: literate code): each lost a block's last line when it had no newline after it, so a
#: command's output (```console\n$ ls\nfile1\nfile2```) went to WeChat without file2.
SESSION_LANGUAGES = (
    "console", "shell-session", "doscon", "pwsh-session", "tcshcon", "psql", "sqlite3",
    "pycon", "rconsole", "rbcon", "nodejsrepl", "iex", "erl", "psysh", "matlabsession",
    "literate-haskell", "literate-agda", "dylan-console",
)  # fmt: skip


@pytest.mark.parametrize("language", SESSION_LANGUAGES)
def test_a_sessions_last_line_of_output_is_kept(language: str) -> None:
    session = "$ ls -l\nfile1\n>>> x = 1\n  two  spaces\nfile2 (the last line)"
    _, soup = render_body(f"```{language}\n{session}\n```\n")
    code = soup.find("code")
    for br in code.find_all("br"):
        br.replace_with("\n")
    assert code.get_text().replace("\xa0", " ") == session


def test_code_that_mentions_the_placeholder_word_survives() -> None:
    _, soup = render_body("crosspostcode0x\n\n```\nx = 1\n```\n")
    assert "crosspostcode0x" in soup.get_text() and "x\xa0=\xa01" in soup.get_text()


def test_many_code_blocks_each_land_in_their_own_place() -> None:
    """Blocks 1, 10 and 100 have placeholders that begin alike; each gets its own code."""
    body = "".join(f"第{k}段\n\n```\nblock_{k} = {k}\n```\n\n" for k in range(120))
    _, soup = render_body(body)
    codes = [code.get_text().replace("\xa0", " ") for code in soup.find_all("code")]
    assert codes == [f"block_{k} = {k}" for k in range(120)]
    assert "crosspostcode" not in soup.get_text()


# --- tables, images ------------------------------------------------------------------


def test_tables_scroll_and_are_ruled_once_not_per_cell() -> None:
    markdown = "| 名 | 数 | 注 |\n| :-- | :-: | --: |\n| 甲 | 1 | 右 |\n"
    rendered, soup = render_body(markdown)
    assert_wechat_safe(rendered.body)
    table = soup.find("table")
    wrapper = table.parent
    assert wrapper.name == "section" and style_of(wrapper)["overflow-x"] == "auto"
    cells = table.find_all(["th", "td"])
    # A body cell aligned left inherits that from the article; a header cell centres
    # unless told, so it says so.
    assert style_of(soup.contents[0])["text-align"] == "left"
    aligned = [style_of(cell).get("text-align", "inherited") for cell in cells]
    assert aligned == ["left", "center", "right", "inherited", "center", "right"]
    # Rules, not a grid: the table spaces its cells and ends with a line; a header cell
    # has its rule under it; a body cell carries no border or padding of its own.
    assert style_of(table)["border-spacing"] and "border-bottom" in style_of(table)
    assert style_of(tbody := table.find("tbody"))["vertical-align"] == "top", tbody
    assert all("border-bottom" in style_of(cell) for cell in table.find_all("th"))
    body_styles = [style_of(cell) for cell in table.find_all("td")]
    assert not any(("border" in s or "padding" in s) for style in body_styles for s in style)


def test_images_keep_their_source_and_move_sizes_into_style() -> None:
    markdown = (
        "![图](<images/图 2.png>) 行内\n\n"
        '<img src="images/raw.png?a=1&amp;b=2" width="120" height="60">\n\n![再](<images/图 2.png>)'
    )
    rendered, soup = render_body(markdown)
    assert_wechat_safe(rendered.body)
    images = soup.find_all("img")
    sources = ["images/图 2.png", "images/raw.png?a=1&b=2", "images/图 2.png"]
    assert [img["src"] for img in images] == sources, "src exactly as the issue wrote it"
    assert rendered.images == ("images/图 2.png", "images/raw.png?a=1&b=2"), "each once, in order"
    # the first shares its line with words: it stays in the line
    displays = [style_of(img)["display"] for img in images]
    assert displays == ["inline-block", "block", "block"]
    for img in images:
        assert style_of(img)["max-width"] == "100%"
        assert "width" not in img.attrs and "height" not in img.attrs
    raw = style_of(images[1])
    assert raw["width"] == "120px" and raw["height"] == "60px"
    swapped = rendered.with_image_urls({"images/raw.png?a=1&b=2": "https://mmbiz.qpic.cn/x"})
    assert 'src="https://mmbiz.qpic.cn/x"' in swapped.body


def test_an_image_alone_in_its_paragraph_becomes_a_figure_with_caption() -> None:
    rendered, soup = render_body("![资料图](images/a.png)\n")
    figure = soup.find("figure")
    assert figure.find("img")["src"] == "images/a.png"
    assert figure.find("figcaption").get_text() == "资料图"
    assert rendered.images == ("images/a.png",)


# --- newlines, text, channels --------------------------------------------------------


def test_no_newline_between_blocks_even_from_raw_html_and_pre_keeps_its_lines() -> None:
    markdown = (
        "<section>\n  <p>一</p>\n  <p>二</p>\n</section>\n\n<pre>a  b\nc</pre>\n\n行一\n行二\n"
    )
    rendered, soup = render_body(markdown)
    assert_wechat_safe(rendered.body)
    assert "a&nbsp;&nbsp;b<br>c" in rendered.body
    assert "行一行二" in soup.get_text()  # a soft break between CJK joins without a space


def test_soft_breaks_after_markup_between_cjk_join_too() -> None:
    _, soup = render_body("这是**粗体**\n接着写\n`code`\n结束")
    assert "这是粗体接着写 code 结束" in soup.get_text()


def test_an_empty_issue_body_still_gives_one_root_section() -> None:
    rendered, soup = render_body("")
    assert_wechat_safe(rendered.body)
    assert soup.get_text().strip("\xa0") == "" and rendered.images == ()


def test_soft_breaks_between_latin_words_become_spaces() -> None:
    _, soup = render_body("hello\nworld ~~gone~~\n")
    assert "hello world gone" in soup.get_text()
    assert soup.find("s") is not None and "line-through" in style_of(soup.find("s")).values()


def test_only_blocks_for_other_channels_are_left_out() -> None:
    _, soup = render_body(
        "共同\n\n::: only zhihu\n知乎专用\n:::\n\n::: only wechat\n微信专用\n:::\n"
    )
    text = soup.get_text()
    assert "共同" in text and "微信专用" in text and "知乎专用" not in text


def test_previous_issues_link_only_to_wechat_articles() -> None:
    previous = (
        PreviousIssue("ai-47", "第47期", "https://mp.weixin.qq.com/s/p47"),
        PreviousIssue("ai-46", "第46期", "https://zhuanlan.zhihu.com/p/46"),
        PreviousIssue("ai-45", "第45期", None),
    )
    rendered, soup = render_body("正文", previous=previous)
    assert_wechat_safe(rendered.body)
    assert [a.get_text() for a in soup.find_all("a")] == ["第47期"]
    assert "第46期" in soup.get_text() and "第45期" in soup.get_text()


# --- themes and templates ------------------------------------------------------------


def test_the_grace_theme_looks_different_and_uses_its_own_code_colours() -> None:
    body = "## 小节\n\n```python\nimport os\n```\n"
    _, default = render_body(body)
    _, grace = render_body(body, theme="grace")
    assert style_of(default.find("h2")) != style_of(grace.find("h2"))
    assert style_of(grace.find("h2"))["background"] == "#b35c1e"
    assert str(default.find("code")) != str(grace.find("code"))


def test_unknown_theme_is_a_usage_error_naming_the_themes() -> None:
    with pytest.raises(
        UsageError, match=r"unknown wechat theme 'nope'; use one of: .*default.*grace"
    ):
        render_body("正文", theme="nope")


def test_user_templates_and_themes_override_the_shipped_ones(tmp_path: Path) -> None:
    (tmp_path / "wechat" / "themes").mkdir(parents=True)
    (tmp_path / "wechat" / "themes" / "mine.css").write_text(
        ":root { --accent: #123456; }\np { color: var(--accent); }\n/* pygments-style: monokai */",
        "utf-8",
    )
    (tmp_path / "wechat" / "article.html.j2").write_text(
        '<section class="article"><h1>{{ settings.title }}</h1>{{ content }}'
        '<img src="https://cdn.example/qr.png"></section>\n',
        "utf-8",
    )
    rendered, soup = render_body("正文\n\n![图](a.png)", theme="mine", template_dirs=(tmp_path,))
    assert_wechat_safe(rendered.body)
    assert soup.find("h1").get_text() == "测试一期"
    assert rendered.images == ("a.png", "https://cdn.example/qr.png"), "template images too"
    assert style_of(soup.find_all("p")[0])["color"] == "#123456"


def test_a_template_with_several_roots_is_wrapped_in_one_section(tmp_path: Path) -> None:
    (tmp_path / "wechat").mkdir()
    (tmp_path / "wechat" / "article.html.j2").write_text("<p>前</p>{{ content }}<p>后</p>", "utf-8")
    rendered, _ = render_body("正文", template_dirs=(tmp_path,))
    assert_wechat_safe(rendered.body)


def test_theme_naming_an_unknown_code_style_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "wechat" / "themes").mkdir(parents=True)
    (tmp_path / "wechat" / "themes" / "bad.css").write_text("/* pygments-style: nope */", "utf-8")
    with pytest.raises(UsageError, match="code style 'nope'"):
        render_body("正文", theme="bad", template_dirs=(tmp_path,))


# --- limits ---------------------------------------------------------------------------


def test_content_size_counts_characters_and_utf8_bytes_of_the_whole_html() -> None:
    assert wechat.content_size("<p>中a</p>") == (9, 11)
    assert wechat.content_fits("x" * 19_999) and not wechat.content_fits("x" * 20_000)
    assert not wechat.content_fits("中" * 10_000 + "x" * 10_000), "20,000 characters is too many"
    assert wechat.content_size("😀") == (1, 4)
    limits = WECHAT.limits
    assert (limits.title_chars, limits.title_bytes, limits.digest_chars) == (64, 64, 120)
    assert limits.content_chars == 20_000 and limits.content_bytes == 1_048_576


# --- real documents: the example and the shared corpus --------------------------------


def visible_runs(body: str) -> list[str]:
    """The text a reader sees in a plain rendering of ``body``, as whitespace-free runs."""
    md = new_markdown()
    soup = BeautifulSoup(
        md.renderer.render(parse(body, "wechat", md), md.options, {}), "html.parser"
    )
    for tag in soup.find_all(["script", "style", "iframe", "form", "textarea", "select"]):
        tag.decompose()
    for tag in soup.select("sup.footnote-ref, a.footnote-backref"):
        tag.decompose()
    runs = (
        re.sub(r"[\s\u200b\u200c\u200d\u2060\ufeff]+", "", s) for s in soup.find_all(string=True)
    )
    return [run for run in runs if run]


def assert_text_preserved(source: str, output: str) -> None:
    text = re.sub(
        r"[\s\u200b\u200c\u200d\u2060\ufeff]+",
        "",
        content_text(BeautifulSoup(output, "html.parser")),
    )
    cursor = 0
    for run in visible_runs(source):
        found = text.find(run, cursor)
        assert found >= 0, f"text lost or out of order: {run[:60]!r}"
        cursor = found + len(run)


def external_links(source: str) -> set[str]:
    md = new_markdown()
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    urls: set[str] = set()
    for token in parse(source, "wechat", md):
        children = token.children or []
        for index, child in enumerate(children):
            if child.type != "link_open":
                continue
            href = str(child.attrGet("href") or "").strip()
            text = ""
            for inner in children[index + 1 :]:
                if inner.type == "link_close":
                    break
                text += inner.content
            bare = re.sub(r"^https?://", "", text.strip().lower()).rstrip("/") == re.sub(
                r"^https?://", "", href.lower()
            ).rstrip("/")
            if href and not href.startswith("#") and not is_mp_link(href) and not bare:
                urls.add(href)
    return urls


def check_document(issue: Issue) -> Rendered:
    body = issue.body
    rendered = wechat.render(issue, RenderContext())
    assert_wechat_safe(rendered.body)
    assert_text_preserved(body, rendered.body)
    soup = BeautifulSoup(rendered.body, "html.parser")
    entries = references(soup)
    for url in external_links(body):
        assert any(
            entry.endswith(f": {url}") or entry.endswith(f" {url}") for entry in entries.values()
        ), url
    sups = {sup.get_text() for sup in soup.find_all("sup")}
    assert {f"[{n}]" for n in entries} <= sups, "every entry is cited in the text"
    return rendered


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_every_corpus_document_renders_wechat_safe_with_its_text(path: Path) -> None:
    text = path.read_text("utf-8")
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    check_document(issue_of(text))


def test_corpus_is_there_or_skipped() -> None:
    if not CORPUS:
        pytest.skip("../shared/corpus is not beside this checkout")
    assert len(CORPUS) >= 4


@pytest.fixture
def example() -> Issue:
    if not EXAMPLE.is_file():
        pytest.skip("examples/ai-systems-48/issue.md is not there yet")
    return load_issue(EXAMPLE)


def test_the_example_renders_wechat_safe_within_the_size_limits(example: Issue) -> None:
    rendered = check_document(example)
    assert rendered.title == example.settings("wechat").title
    assert wechat.content_fits(rendered.body)
    assert rendered.images and all(not src.startswith("http") for src in rendered.images)
    via_registry = render(example, "wechat")
    assert via_registry.body == rendered.body
    assert via_registry.title == rendered.title


# --- any document at all -------------------------------------------------------------

MARKDOWN_PIECES = [
    "# ", "## ", "- ", "1. ", "3. ", "  ", "    ", "> ", "\n", "\n\n", "```", "```py\n", "~~",
    "**", "*", "`", "|", "| --- |", "[", "](", ")", "https://x.example", "#a", "![", "<",
    ">", "<div>", "</div>", "<script>", "<p class=x>", "&amp;", "[^1]", "[^1]: ", "\t", "中文",
    "text", "mp.weixin.qq.com/s/a", "https://", ":::", " only zhihu", " only wechat", "<pre>",
    "<img src=a.png width=3>", "</a>", "<a href='https://q.example'>", "<!-- c -->", "<![",
    "<a href=https://mp.weixin.qq.com/s/x>", "<![CDATA[x", "<br/>", "<table><tr><td>", "\u200b",
    "&nbsp;", "<center>", "<span/>",
]  # fmt: skip


@pytest.mark.parametrize(
    "markdown",
    ["<div><![# ", ">  <div>", "[^1]: - [^1]: ", "```<p class=x>```", "a\xa0\n<b>\xa0</b>"],
)
def test_documents_that_once_broke_the_renderer(markdown: str) -> None:
    assert_wechat_safe(wechat.render(issue_of(markdown), RenderContext()).body)


@given(st.lists(st.sampled_from(MARKDOWN_PIECES), max_size=40).map("".join))
@settings(max_examples=150, deadline=None)
def test_any_document_renders_wechat_safe(markdown: str) -> None:
    rendered = wechat.render(issue_of(markdown), RenderContext())
    assert_wechat_safe(rendered.body)


TEXT_PIECES = [
    "# ", "- ", "1. ", "5) ", "  ", "    ", "> ", "\n", "\n\n", "```\n", "~~", "**", "*", "_",
    "`", "| a | b |\n| - | - |\n", "|", "[", "](", ")", "[t](https://y.example)", "[u](#z)",
    "![alt](p.png)", "[^1]", "\n\n[^1]: note", "中文", "字", "text", "word", "\\", "\t",
    "<https://z.example>", "***", "---", "1",
]  # fmt: skip


@given(st.lists(st.sampled_from(TEXT_PIECES), max_size=40).map("".join))
@settings(max_examples=100, deadline=None)
def test_any_document_keeps_its_visible_text_in_order(markdown: str) -> None:
    rendered = wechat.render(issue_of(markdown), RenderContext())
    assert_text_preserved(markdown, rendered.body)


def _luminance(colour: str) -> float:
    """WCAG's relative luminance of a ``#rgb`` or ``#rrggbb`` colour."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_small_grey_captions_are_readable_on_white(theme: str) -> None:
    # Captions are 0.8em (12 px) grey on white: #999 was 2.8:1 and #8c8c8c 3.4:1, faint
    # on a phone outdoors. WCAG asks 4.5:1 of text this small.
    _, soup = render_body(
        "![图注](a.png)\n\n| a |\n|---|\n| b |\n\nTable: 表注\n\n~~删去~~\n", theme=theme
    )
    for tag in (soup.find("figcaption"), soup.find("p", string="表注"), soup.find("s")):
        assert tag is not None
        colour = style_of(tag)["color"]
        contrast = 1.05 / (_luminance(colour) + 0.05)
        assert contrast >= 4.5, f"{tag.name} {colour}: {contrast:.2f}:1"
