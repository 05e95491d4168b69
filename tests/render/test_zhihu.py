"""The Zhihu renderer: Zhihu's HTML dialect for the API, Markdown for the document import.

Small documents with their exact expected outputs live in ``fixtures/zhihu/`` (one
case per rule of specs/zhihu-api.md §7.1); the example issue and every document in
``../shared/corpus`` are checked for the dialect's rules, for their visible text (in
order) and for every link target.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from bs4.element import NavigableString, Tag
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from crosspost.issue.dialect import new_markdown, parse
from crosspost.issue.loader import load_issue, split_front_matter
from crosspost.issue.model import Issue
from crosspost.platforms.zhihu import ZHIHU
from crosspost.render.rendered import PreviousIssue, RenderContext, Rendered, render
from crosspost.render.zhihu import document as zhihu

FIXTURES = Path(__file__).parent / "fixtures" / "zhihu"
REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT / ".." / "shared" / "corpus"
TITLE = "测试一期"


def make_issue(body: str, title: str = TITLE, **fields: object) -> Issue:
    return Issue(path=Path("/issues/t/issue.md"), id="t", title=title, body=body, body_line=1,
                 **fields)  # type: ignore[arg-type]  # fmt: skip


def render_zhihu(body: str, title: str = TITLE) -> Rendered:
    return render(make_issue(body, title), "zhihu", RenderContext())


# --- fixture files: markdown-it's format (title, '.', input, '.', expected, '.') --------


def read_cases(name: str) -> Iterator[tuple[str, str, str]]:
    lines = (FIXTURES / name).read_text("utf-8").split("\n")
    index = 0
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        title = lines[index]
        source, index = _until_dot(lines, index + 2)
        expected, index = _until_dot(lines, index)
        yield title, source + "\n", expected


def _until_dot(lines: list[str], start: int) -> tuple[str, int]:
    end = lines.index(".", start)
    return "\n".join(lines[start:end]), end + 1


HTML_CASES = list(read_cases("html.txt"))
MARKDOWN_CASES = list(read_cases("markdown.txt"))


@pytest.mark.parametrize(
    ("title", "source", "expected"), HTML_CASES, ids=[c[0] for c in HTML_CASES]
)
def test_api_html_follows_the_element_map(title: str, source: str, expected: str) -> None:
    rendered = render_zhihu(source)
    assert rendered.body == expected
    assert_zhihu_dialect(rendered.body)


@pytest.mark.parametrize(
    ("title", "source", "expected"), MARKDOWN_CASES, ids=[c[0] for c in MARKDOWN_CASES]
)
def test_import_markdown_follows_the_import_rules(title: str, source: str, expected: str) -> None:
    markdown = render_zhihu(source).files["zhihu.md"]
    assert markdown == expected + "\n"
    assert_markdown_keeps_text(source, markdown)


# --- the Rendered contract ---------------------------------------------------------------


def test_rendered_carries_the_zhihu_title_and_both_files_and_leaves_the_title_out() -> None:
    issue = make_issue(
        "# 知乎标题\n\n正文第一段，足够长。\n", overrides={"zhihu": {"title": "知乎标题"}}
    )
    rendered = render(issue, "zhihu")
    assert rendered.channel == "zhihu"
    assert rendered.title == "知乎标题"
    assert set(rendered.files) == {"zhihu.html", "zhihu.md"}
    assert rendered.files["zhihu.html"] == rendered.body == "<p>正文第一段，足够长。</p>"
    assert rendered.files["zhihu.md"] == "正文第一段，足够长。\n"


def test_a_first_heading_that_is_not_the_title_stays() -> None:
    assert render_zhihu("# 另一个标题\n\n正文\n").body == "<h2>另一个标题</h2><p>正文</p>"


@pytest.mark.parametrize(
    ("body", "html"),
    [
        # A raw <h2> was always an <h3>, while a '##' beside it was an <h2>.
        ("<h2>甲</h2>\n\n## 乙\n\n### 丙\n", "<h2>甲</h2><h2>乙</h2><h3>丙</h3>"),
        ("<h3>只有</h3>\n\n正文\n", "<h2>只有</h2><p>正文</p>"),
        ("# 一\n\n## 二\n\n<h3>三</h3>\n", "<h2>一</h2><h3>二</h3><p><b>三</b></p>"),
    ],
)
def test_raw_html_headings_take_the_level_markdowns_would(body: str, html: str) -> None:
    assert render_zhihu(body).body == html


def test_a_picture_in_a_heading_is_a_block_of_its_own() -> None:
    # Zhihu got <h2><img …></h2>: a banner heading is its picture.
    html = render_zhihu(
        "# 一\n\n## ![](https://e.com/b.png)\n\n## 标题 ![图标](https://e.com/i.png)\n"
    ).body
    assert html.startswith('<h2>一</h2><img src="https://e.com/b.png"')
    assert '<h3>标题</h3><img src="https://e.com/i.png" data-caption="图标"' in html
    assert "<h3><img" not in html and "<h2><img" not in html


def test_images_are_listed_once_in_order_and_swapped_for_uploaded_urls() -> None:
    body = (
        "![a](images/a.png)\n\n行内 ![b](images/b&c.jpg) 图 $x$\n\n![a again](images/a.png)\n\n"
        '<p><img src="https://example.com/raw.gif"></p>\n'
    )
    rendered = render_zhihu(body)
    assert rendered.images == ("images/a.png", "images/b&c.jpg", "https://example.com/raw.gif")
    uploaded = rendered.with_image_urls(
        {
            "images/a.png": "https://pic4.zhimg.com/v2-aaa.png",
            "images/b&c.jpg": "https://pic4.zhimg.com/v2-bbb.jpg",
        }
    )
    soup = BeautifulSoup(uploaded.body, "html.parser")
    pictures = [img for img in soup.find_all("img") if not img.get("eeimg")]
    assert [img["src"] for img in pictures] == [
        "https://pic4.zhimg.com/v2-aaa.png",
        "https://pic4.zhimg.com/v2-bbb.jpg",
        "https://pic4.zhimg.com/v2-aaa.png",
        "https://example.com/raw.gif",
    ]
    assert all(img["data-original-src"] == img["src"] for img in pictures)
    formula = soup.find("img", eeimg="1")
    assert isinstance(formula, Tag) and formula["src"] == "//www.zhihu.com/equation?tex=x"


def test_a_raw_image_in_a_pipe_table_cell_is_listed_for_upload() -> None:
    body = '![a](images/a.png)\n\n| 图 |\n|---|\n| <img src="images/cell.png"> |\n'
    rendered = render_zhihu(body)
    assert rendered.images == ("images/a.png", "images/cell.png")
    uploaded = rendered.with_image_urls({"images/cell.png": "https://pic4.zhimg.com/v2-c.png"})
    # It follows the table (a cell holds plain text), uploaded all the same.
    assert '</table><img src="https://pic4.zhimg.com/v2-c.png"' in uploaded.body


def test_earlier_issues_follow_the_body_with_links_where_they_are_on_zhihu() -> None:
    previous = (
        PreviousIssue("ai-47", "第47期 *特辑*", "https://zhuanlan.zhihu.com/p/47"),
        PreviousIssue("ai-46", "第46期", None),
    )
    issue = make_issue("正文[^1]\n\n[^1]: 注释\n")
    rendered = render(issue, "zhihu", RenderContext(previous=previous))
    assert rendered.body.endswith(
        '<h2>往期回顾</h2><ul><li><a href="https://zhuanlan.zhihu.com/p/47">第47期 *特辑*</a></li>'
        "<li>第46期</li></ul>"
    )
    assert rendered.files["zhihu.md"] == (
        "正文\\[1\\]\n\n# 往期回顾\n\n- [第47期 \\*特辑\\*](https://zhuanlan.zhihu.com/p/47)\n"
        "- 第46期\n\n**参考**\n\n1. 注释\n"
    )


def test_captions_are_cut_to_zhihus_limit() -> None:
    rendered = render_zhihu(f"![{'长' * 200}](a.png)\n")
    image = BeautifulSoup(rendered.body, "html.parser").img
    assert image is not None and image["data-caption"] == "长" * (ZHIHU.limits.caption_chars or 0)


def test_body_length_counts_text_without_tags() -> None:
    body = render_zhihu("**八个字**的正文 $x$\n\n```\ncode\n```\n").body
    assert zhihu.plain_text(body) == "八个字的正文 xcode"
    assert zhihu.body_chars(body) == 11


def test_a_table_in_a_list_and_a_list_in_a_quote_keep_the_dialect() -> None:
    body = "- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n\n> - q1\n> - q2\n"
    rendered = render_zhihu(body)
    assert_zhihu_dialect(rendered.body)
    assert "<tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr>" in rendered.body


def test_an_item_numbered_as_text_that_opens_with_code_keeps_it_code_in_the_markdown() -> None:
    # Zhihu numbers every list from 1, so "5." is written as the item's text; written on
    # the fence's line ("- 5\\. ```html"), the fence was words and the code under it raw
    # HTML: zhihu.md lost the <script> line and the lines after it, and check said nothing.
    body = (
        "4. 前一项\n5. ```html\n   <script>var k = 1;</script>\n   <div>x &amp; y</div>\n   ```\n"
        "6. > 引用的一项\n"
    )
    markdown = render_zhihu(body).files["zhihu.md"]
    assert "- 5\\.\n\n  ```html\n  <script>var k = 1;</script>\n" in markdown
    page = BeautifulSoup(new_markdown().render(markdown), "html.parser")
    code = page.find("code")
    assert code is not None and "<script>var k = 1;</script>" in code.get_text()
    assert page.find("blockquote") is not None and "引用的一项" in page.get_text()


def test_a_raw_tables_caption_is_a_line_above_it() -> None:
    # Zhihu's table has no <caption>: its words were gone with the tag, in silence.
    body = (
        "<table><caption>表 1：<b>结果</b></caption><tr><th>列</th></tr><tr><td>格</td></tr>"
        "</table>\n\n前文\n\n<table><tr><th>外</th></tr><tr><td>外格<table><caption>内表"
        "</caption><tr><td>内格</td></tr></table></td></tr></table>\n"
    )
    rendered = render_zhihu(body)
    assert rendered.body.startswith("<p>表 1：<b>结果</b></p><table")
    assert "外格<br>内表<br>内格" in rendered.body  # a nested table: a line each
    assert "<caption" not in rendered.body
    assert_zhihu_dialect(rendered.body)
    assert rendered.files["zhihu.md"].startswith("<p>表 1：<b>结果</b></p><table")


# --- the example and the corpus ----------------------------------------------------------


def corpus_documents() -> list[object]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus is absent"))]
    return [pytest.param(path, id=path.name) for path in sorted(CORPUS.glob("*.md"))
            if path.name != "SOURCES.md"]  # fmt: skip


@pytest.mark.parametrize("path", corpus_documents())
def test_corpus_documents_render_in_the_dialect_with_text_and_links_kept(path: Path) -> None:
    text = path.read_text("utf-8")
    if text.startswith("---"):
        _, _, text, _ = split_front_matter(path, text)
    issue = make_issue(text, title=path.stem)
    assert_faithful(issue, render(issue, "zhihu"))


def test_the_example_renders_in_the_dialect_with_text_and_links_kept(example_issue: Path) -> None:
    if not example_issue.is_file():
        pytest.skip("examples/ai-systems-48/issue.md is not there yet")
    issue = load_issue(example_issue)
    rendered = render(issue, "zhihu")
    assert_faithful(issue, rendered)
    assert rendered.images and all(not src.startswith("http") for src in rendered.images)
    assert zhihu.body_chars(rendered.body) >= (ZHIHU.limits.text_min_chars or 0)


# --- any document: the dialect holds -----------------------------------------------------

SNIPPETS = [
    "# 标题", "## Sub", "#### deep", "plain text 中文", "**b** *i* ~~s~~ `c`", "- item",
    "  - nested", "1. first", "> quote", "> > deeper", "```py\nx = 1\n```", "---",
    "| a | b |\n|---|:-:|\n| [l](https://x.org) | **2** |", "[link](https://e.com/p?q=1)",
    "[anchor](#a)", "[note](说明文字)", "note[^1]", "[^1]: def https://d.org", "$x^2$",
    "$$\na > b\n$$", '<div style="c">raw <script>x()</script></div>', "![i](img/a.png)",
    "line  \nbreak", "<span class=x>s</span>", "&amp; &lt;", "* star", "\\* escaped",
]  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(SNIPPETS), max_size=12), st.lists(st.sampled_from(["\n", "\n\n"])))
# Found by this property: a note's bare address, words after it, the note cited in a table
# cell. The cell moved the address after those words.
@example(
    parts=[
        "[^1]: def https://d.org",
        "plain text 中文",
        "| a | b |\n|---|:-:|\n| [l](https://x.org) | **2** |",
        "note[^1]",
    ],
    joins=["\n", "\n\n", "\n"],
)
def test_any_document_stays_in_the_dialect(parts: list[str], joins: list[str]) -> None:
    body = "".join(part + (joins[i] if i < len(joins) else "\n\n") for i, part in enumerate(parts))
    rendered = render_zhihu(body)
    assert_zhihu_dialect(rendered.body)
    assert_markdown_keeps_text(body, rendered.files["zhihu.md"])


# --- assertions --------------------------------------------------------------------------

_WORDS = re.compile(r"[A-Za-z0-9]+|[^\W\x00-\x7f]")


def words(text: str) -> list[str]:
    """Visible text as comparable units: ASCII words, and each non-ASCII letter alone.

    A struck-through letter (followed by U+0336, Zhihu's strikethrough) is the letter."""
    return _WORDS.findall(text.replace("\u0336", ""))


def source_words(body: str, title: str = TITLE) -> tuple[list[str], list[list[str]]]:
    """What a reader of the issue sees: the text, and each footnote's text apart.

    Rendered by the plain issue dialect. A first ``# title`` repeating the title is left
    out: the title is a field of its own.
    """
    if body.lstrip().startswith(f"# {title}\n"):
        body = body.lstrip()[len(f"# {title}\n") :]
    md = new_markdown()
    soup = BeautifulSoup(
        md.renderer.render(parse(body, "zhihu", md), md.options, {}), "html.parser"
    )
    # A note counts when a reader can reach it: referenced from the text, or from a note
    # that is (one referenced only from itself is never shown).
    items = {str(item.get("id")): item for item in soup.select("section.footnotes li")}
    reached: list[str] = []
    pending = [sup for sup in soup.select("sup.footnote-ref") if not sup.find_parent("section")]
    while pending:
        link = pending.pop(0).find("a")
        target = str(link.get("href", "")).lstrip("#") if link else ""
        if target in items and target not in reached:
            reached.append(target)
            pending += items[target].select("sup.footnote-ref")
    for marker in soup.select("sup.footnote-ref"):
        marker.decompose()  # numbering is the renderer's own notation, not the author's text
    notes = [words(items[target].get_text(" ")) for target in reached]
    for section in soup.select("section.footnotes"):
        section.decompose()
    return words(soup.get_text(" ")), notes


def output_words(body: str) -> list[str]:
    """Visible text of Zhihu HTML; formulas count by their TeX."""
    soup = BeautifulSoup(body, "html.parser")
    for formula in soup.find_all("img", eeimg=True):
        formula.replace_with(f" {formula['alt']} ")
    return words(soup.get_text(" "))


def assert_in_order(expected: list[str], actual: list[str], what: str) -> None:
    position = 0
    for count, word in enumerate(expected):
        try:
            position = actual.index(word, position) + 1
        except ValueError:
            context = " ".join(expected[max(0, count - 5) : count + 5])
            pytest.fail(f"{what}: {word!r} missing or out of order near: {context}")


def assert_markdown_keeps_text(source: str, markdown: str, title: str = TITLE) -> None:
    """Reading zhihu.md back gives the source's visible text, in order."""
    md = new_markdown()
    reread = BeautifulSoup(md.render(markdown), "html.parser").get_text(" ")
    text, notes = source_words(source, title)
    assert_in_order(text, words(reread), "zhihu.md")
    for note in notes:  # in the reference list, or inside a table cell
        assert_in_order(note, words(reread), "zhihu.md note")


def assert_zhihu_dialect(body: str) -> None:
    soup = BeautifulSoup(body, "html.parser")
    forbidden = ["h1", "h4", "h5", "h6", "thead", "colgroup", "del", "s", "strike", "script",
                 "style", "iframe", "div", "span", "section", "font", "svg"]  # fmt: skip
    assert not soup.find_all(forbidden), soup.find_all(forbidden)[0]
    for tag in soup.find_all(True):
        bad = {
            name for name in tag.attrs if name in {"class", "style", "id"} or name.startswith("on")
        }
        assert not bad, f"<{tag.name}> keeps {bad}"
    for pre in soup.find_all("pre"):
        assert pre.find("code") is None and pre.has_attr("lang")
    for table in soup.find_all("table"):
        assert table["data-draft-type"] == "table" and table["data-draft-node"] == "block"
        assert [getattr(child, "name", None) for child in table.children] == ["tbody"]
    for sublist in soup.find_all(["ul", "ol"]):
        assert sublist.parent is None or sublist.parent.name != "li", "sublist inside an item"
    for img in soup.find_all("img"):
        if not img.get("eeimg"):
            assert img["data-original-src"] == img["src"] and img.has_attr("data-caption")
    for node in soup.children:
        assert isinstance(node, Tag) or not str(node).strip(), f"loose text {node!r}"
    assert not isinstance(soup, NavigableString)
    assert "\n" not in re.sub(r"<pre\b.*?</pre>", "", body, flags=re.DOTALL)
    assert "<p></p>" not in body


def assert_faithful(issue: Issue, rendered: Rendered) -> None:
    """Dialect rules hold, visible text survives in order, every link target is there."""
    assert_zhihu_dialect(rendered.body)
    soup = BeautifulSoup(rendered.body, "html.parser")
    expected, _ = source_words(issue.body, issue.title)
    assert_in_order(expected, output_words(rendered.body), "html")
    assert_markdown_keeps_text(issue.body, rendered.files["zhihu.md"], issue.title)
    places = {a["href"] for a in soup.find_all("a")} | {
        sup["data-url"] for sup in soup.find_all("sup") if sup.get("data-url")
    }
    text = zhihu.plain_text(rendered.body)
    tokens = parse(issue.body, "zhihu")
    for token in tokens:
        for child in token.children or []:
            href = str(child.attrGet("href") or "")
            if child.type == "link_open" and href.startswith(("http://", "https://")):
                assert href in places or href in text, f"link {href} lost in HTML"
                assert href in rendered.files["zhihu.md"], f"link {href} lost in zhihu.md"
    shown = [img["src"] for img in soup.find_all("img") if not img.get("eeimg")]
    assert rendered.images == tuple(dict.fromkeys(shown))
