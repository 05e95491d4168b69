"""Findings of the renderer review, each as what an editor would see in the output."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, Rendered, render

TITLE = "测试一期"


def issue_of(body: str, title: str = TITLE) -> Issue:
    return Issue(path=Path("/issues/demo/issue.md"), id="demo", title=title, body=body, body_line=1)


def rendered(channel: str, body: str) -> Rendered:
    return render(issue_of(body), channel, RenderContext())


def text_of(channel: str, body: str) -> str:
    return BeautifulSoup(rendered(channel, body).body, "html.parser").get_text()


# --- line breaks between CJK characters (findings 10, 21) -------------------------------


def test_a_line_break_after_bold_cjk_adds_no_space_on_either_channel() -> None:
    for channel in ("wechat", "zhihu"):
        assert "粗体接着写" in text_of(channel, "这是**粗体**\n接着写"), channel


def test_compatibility_ideographs_join_without_a_space_on_either_channel() -> None:
    for channel in ("wechat", "zhihu"):
        assert "豈\ufa00" in text_of(channel, "豈\n\ufa00"), channel


# --- a leading heading that repeats the title (finding 13) -------------------------------


def test_a_leading_title_heading_is_dropped_on_both_channels() -> None:
    for channel in ("wechat", "zhihu"):
        text = text_of(channel, f"# {TITLE}\n\n正文在这里。")
        assert TITLE not in text, channel
        assert "正文在这里" in text
    assert "另一个标题" in text_of("wechat", "# 另一个标题\n\n正文")


# --- whitespace beside an inline image (finding 14) --------------------------------------


def test_the_space_beside_an_inline_image_stays() -> None:
    body = rendered("wechat", "see ![icon](a.png) here").body
    assert 'src="a.png"> here' in body
    assert "see <img" in body


# --- raw HTML on WeChat (findings 5, 16, 17) ---------------------------------------------


def test_an_inline_script_or_style_in_a_paragraph_shows_none_of_its_code() -> None:
    body = "前文 <script>alert('x')</script> 中间 <style>p{color:red}</style> 后文"
    text = text_of("wechat", body)
    assert "alert" not in text and "color:red" not in text
    assert "前文" in text and "中间" in text and "后文" in text
    sneaky = rendered("wechat", '前 <script>var a = "[x](https://evil.example) **b**"</script> 后')
    assert "evil" not in sneaky.body and "[1]" not in sneaky.body


def test_raw_pre_does_not_start_with_an_empty_line() -> None:
    body = rendered("wechat", "<pre>\nline one\nline two</pre>\n").body
    pre = body[body.index("<pre") :]
    assert "<br>" not in pre[: pre.index("line&nbsp;one")], pre
    assert "line&nbsp;one<br>line&nbsp;two" in body


def test_a_raw_external_link_is_listed_by_its_text_not_its_title() -> None:
    for body in (
        '<p><a href="https://x.example/a" title="提示">可见文字</a></p>\n',
        '行内 <a href="https://x.example/a" title="提示">可见文字</a> 链接\n',
    ):
        text = text_of("wechat", body)
        assert "[1] 可见文字: https://x.example/a" in text.replace("\xa0", " "), text
    untitled = text_of("wechat", '行内 <a href="https://x.example/b" title="提示"></a> 链接\n')
    assert "提示" in untitled


# --- Zhihu images and formulas (findings 9, 11, 12) --------------------------------------


def test_a_linked_image_on_zhihu_is_a_block_of_its_own_followed_by_its_address() -> None:
    body = rendered("zhihu", "文字 [![图](b.png)](https://y.example) 后").body
    soup = BeautifulSoup(body, "html.parser")
    image = soup.find("img")
    assert image is not None and image.parent is soup, body  # not inside a <p>
    assert '<a href="https://y.example">https://y.example</a> 后' in body


def test_zhihu_markdown_alt_text_keeps_words_inside_emphasis() -> None:
    assert "![粗 字](a.png)" in rendered("zhihu", "![**粗** 字](a.png)").files["zhihu.md"]


def test_zhihu_markdown_inline_formula_is_written_like_the_html_one() -> None:
    out = rendered("zhihu", "比较 $a>b$ 与 $$x>y$$ 两式")
    assert "$a\\gt b$" in out.files["zhihu.md"]
    assert "$$x\\gt y$$" in out.files["zhihu.md"]
    assert 'alt="a\\gt b"' in out.body


# --- one renderer signature (finding 23) ----------------------------------------------


def test_every_channel_renderer_takes_the_issue_and_a_required_context() -> None:
    import inspect

    from crosspost.render.rendered import RENDERERS, renderer_for

    for channel in RENDERERS:
        parameters = list(inspect.signature(renderer_for(channel)).parameters.values())
        assert [p.name for p in parameters] == ["issue", "context"], channel
        assert all(p.default is inspect.Parameter.empty for p in parameters), channel
