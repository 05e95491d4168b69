"""Habits of newsletters met in a sweep of real ones: Substack's footnotes and its
lightbox links, links typed with a Chinese keyboard's full-width brackets, email links,
and the names screenshot tools give their files. Each comes out as the writer meant, the
same on both channels."""

from __future__ import annotations

import importlib
import time

import pytest

from crosspost.render.captions import caption_of
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, CheckLines, issue_of, shown, words

# --- Substack's footnotes ------------------------------------------------------------------

WRITTEN_NOTES = (
    "All three shipped this week.[1](#footnote-1) Read [the comparison](https://e.com/a).\n\n"
    "Latency is in the re-ranker.[2](#footnote-2)\n\n"
    "[1](#footnote-anchor-1)\n\nAutoGen 0.4 is a full rewrite.\n\n"
    "[2](#footnote-anchor-2)\n\nMeasured on [our benchmark](https://e.com/b).\n"
)
RAW_NOTES = (
    '<p>Shipped this week.<a class="footnote-anchor" id="footnote-anchor-1" '
    'href="#footnote-1" target="_self">1</a> Read <a href="https://e.com/a">the comparison'
    "</a>.</p>\n"
    '<h3 class="header-anchor-post">Why</h3>\n'
    '<p>In the <strong>re-ranker</strong>.<a class="footnote-anchor" href="#footnote-2">2</a>'
    " 5 * 3</p>\n"
    '<div class="footnote"><a id="footnote-1" href="#footnote-anchor-1" '
    'class="footnote-number" target="_self">1</a><div class="footnote-content"><p>AutoGen '
    "0.4 is a full rewrite.</p></div></div>\n"
    '<div class="footnote"><a id="footnote-2" href="#footnote-anchor-2" '
    'class="footnote-number">2</a><div class="footnote-content"><p>Measured on <a '
    'href="https://e.com/b">our benchmark</a>.</p></div></div>\n'
)
PANDOC_NOTES = (
    'Shipped this week.<a href="#footnote-1" class="footnote-anchor" id="footnote-anchor-1" '
    'target="_self">1</a> Read [the comparison](https://e.com/a).\n\n'
    'In the re-ranker.<a href="#footnote-2" class="footnote-anchor">2</a>\n\n'
    '<div class="footnote" data-component-name="FootnoteToDOM">\n\n'
    '<a href="#footnote-anchor-1" class="footnote-number" contenteditable="false">1</a>\n\n'
    '<div class="footnote-content">\n\nAutoGen 0.4 is a full rewrite.\n\n</div>\n\n</div>\n\n'
    '<div class="footnote">\n\n<a href="#footnote-anchor-2" class="footnote-number">2</a>\n\n'
    '<div class="footnote-content">\n\nMeasured on [our benchmark](https://e.com/b).\n\n'
    "</div>\n\n</div>\n"
)


@pytest.mark.parametrize("body", [WRITTEN_NOTES, RAW_NOTES, PANDOC_NOTES])
def test_substacks_footnotes_are_footnotes_numbered_with_the_links(body: str) -> None:
    # The mark was '[1]' beside the link reference [1]: two things carried one number.
    wechat = words(shown(body, "wechat"))
    assert "this week.[1] Read the comparison[2]." in wechat
    assert "re-ranker.[3]" in wechat
    assert "[1]&nbsp;AutoGen 0.4 is a full rewrite." in wechat
    assert "[3]&nbsp;Measured on our benchmark[4]." in wechat
    assert "[2]&nbsp;the comparison: https://e.com/a" in wechat
    assert "[4]&nbsp;our benchmark: https://e.com/b" in wechat
    assert wechat.count("AutoGen") == 1 and "footnote" not in shown(body, "wechat")
    zhihu = shown(body, "zhihu")
    assert 'data-text="AutoGen 0.4 is a full rewrite."' in zhihu
    assert 'data-url="https://e.com/b"' in zhihu and 'data-numero="2"' in zhihu
    assert "AutoGen" not in words(zhihu)  # the note is the reference, not a paragraph too


def test_a_raw_paragraph_with_a_mark_keeps_its_words_and_tags() -> None:
    wechat = shown(RAW_NOTES, "wechat")
    assert "In the re-ranker.[3] 5 * 3" in words(wechat).replace("&nbsp;", " ")
    assert "<strong" in wechat or "<b" in wechat
    assert "Why" in words(wechat)


def test_substacks_mark_without_its_note_stays_a_bracketed_number() -> None:
    body = "Grew 40%[1](#footnote-1). See [x](https://e.com).\n\n[2](#footnote-anchor-2)\n\nNote.\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "Grew 40%[1]." in text, channel


def test_the_last_written_note_takes_one_paragraph_only() -> None:
    body = "A.[1](#footnote-1)\n\n[1](#footnote-anchor-1)\n\nThe note.\n\nThanks for reading!\n"
    wechat = words(shown(body, "wechat"))
    assert wechat.index("Thanks for reading!") < wechat.index("The note.")


def test_an_empty_lightbox_link_before_its_picture_adds_no_reference() -> None:
    body = (
        "<figure>\n"
        '<a href="https://cdn.e.com/fetch/https%3A%2F%2Fe.com%2Fabc.png" class="image-link">'
        "</a>\n"
        '<picture><img src="https://cdn.e.com/w_1456/abc.png" alt=""></picture>\n'
        "</figure>\n\n"
        "[](https://e.com/b.png)\n![](https://e.com/b.png)\n\n"
        "[](https://e.com/page) keeps its address.\n"
    )
    wechat = words(shown(body, "wechat"))
    assert "abc.png" not in wechat.split("引用链接")[-1].replace("w_1456/abc.png", "")
    assert "[1]" not in wechat and "引用链接" not in wechat  # no reference at all
    assert "https://e.com/page keeps its address." in wechat  # a link with no picture
    assert shown(body, "wechat").count("<img") == 2
    zhihu = shown(body, "zhihu")
    assert "https://e.com/b.png</a>" not in zhihu


# --- a Chinese keyboard's full-width brackets -------------------------------------------------

TYPED = (
    "1. 全角括号：[Rspack 官网]（https://rspack.dev）\n"
    "2. 全角方括号：【Rspack 官网】(https://rspack.dev)\n"
    "3. 图片全角：![架构图]（https://example.com/a.png）\n"
    "4. 全角叹号：！[架构图](https://example.com/b.png)\n"
)


def test_links_and_pictures_typed_full_width_are_read_as_meant() -> None:
    for channel in CHANNELS:
        html = shown(TYPED, channel)
        text = words(html)
        assert "（https://rspack.dev）" not in text and "(https://rspack.dev)" not in text
        assert "【Rspack 官网】" in text  # the brackets' words stay
        assert "https://example.com/a.png" in html and "https://example.com/b.png" in html
        assert "！" not in text and "![" not in text, channel
    zhihu = render(issue_of(TYPED), "zhihu", RenderContext()).files["zhihu.md"]
    assert "[Rspack 官网](https://rspack.dev)" in zhihu
    assert "[【Rspack 官网】](https://rspack.dev)" in zhihu
    assert "![架构图](https://example.com/a.png)" in zhihu
    assert "![架构图](https://example.com/b.png)" in zhihu
    wechat = words(shown(TYPED, "wechat"))
    assert "全角括号：Rspack 官网[1]" in wechat and "全角方括号：【Rspack 官网】[1]" in wechat


def test_what_is_not_plainly_a_link_stays_as_written() -> None:
    body = (
        "太棒了！[官网](https://example.com/b.png) 和 【标题】（见 https://a.com）\n\n"
        "`[代码]（https://a.com）` 与 [相对]（docs/a.md）\n\n"
        "```\n[代码]（https://a.com）\n```\n\n"
        "<p>【标题】(https://a.com)</p>\n"
    )
    zhihu = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "太棒了！[官网](https://example.com/b.png)" in zhihu  # an exclamation, a link
    assert "【标题】（见" in zhihu and "\\[相对\\]（docs/a.md）" in zhihu
    assert "`[代码]（https://a.com）`" in zhihu and "\n[代码]（https://a.com）\n" in zhihu
    assert "【标题】(https://a.com)" in words(shown(body, "wechat"))


def test_check_names_each_full_width_reading(check_lines: CheckLines) -> None:
    lines = [line for line in check_lines("---\ntitle: t\n---\n" + TYPED) if "warning" in line]
    assert lines == [
        "issue.md:4: warning: '[Rspack 官网]（https://rspack.dev）' has a Chinese keyboard's "
        "full-width brackets, so Markdown would show it as written; it is read as the link "
        "[Rspack 官网](https://rspack.dev): write it so, with half-width [ ] ( )",
        "issue.md:5: warning: '【Rspack 官网】(https://rspack.dev)' is read as a link whose "
        "words keep their 【】, [【Rspack 官网】](https://rspack.dev) (Markdown would show it "
        "as written); write it so, or [Rspack 官网](https://rspack.dev) for a link without "
        "the brackets",
        "issue.md:6: warning: '![架构图]（https://example.com/a.png）' has a Chinese "
        "keyboard's full-width marks, so Markdown would show it as written (or as a link to "
        "the file); it is read as the picture ![架构图](https://example.com/a.png): write it "
        "so, with half-width ! [ ] ( )",
        "issue.md:7: warning: '！[架构图](https://example.com/b.png)' has a Chinese keyboard's "
        "full-width marks, so Markdown would show it as written (or as a link to the file); "
        "it is read as the picture ![架构图](https://example.com/b.png): write it so, with "
        "half-width ! [ ] ( )",
    ]


def test_no_full_width_warning_for_markdown_written_half_width(
    body_warnings: BodyWarnings,
) -> None:
    body = "见 [官网](https://a.com)（英文）和【公告】见 https://a.com。\n\n太棒了！[官网](https://a.com)\n"
    assert not [line for line in body_warnings(body) if "full-width" in line]


# --- email links ----------------------------------------------------------------------------

MAIL = (
    "合作请[邮件联系](mailto:yifeng.ruan@gmail.com)。\n\n"
    '合作请<a href="mailto:yifeng.ruan@gmail.com">邮件联系</a>。\n\n'
    "投稿：<hello@example.com>\n\n"
    "Write [to us](mailto:a@b.com?subject=Hi) or <a href='mailto:c@d.com'>c@d.com</a>.\n\n"
    '<p>或 <a href="mailto:e@f.com">写信</a></p>\n'
)


@pytest.mark.parametrize("channel", CHANNELS)
def test_an_email_link_is_its_words_and_the_address_on_every_channel(channel: str) -> None:
    html = shown(MAIL, channel)
    text = words(html)
    assert text.count("合作请邮件联系（yifeng.ruan@gmail.com）。") == 2
    assert "投稿：hello@example.com" in text and text.count("hello@example.com") == 1
    assert "Write to us (a@b.com) or c@d.com." in text and text.count("c@d.com") == 1
    assert "或 写信（e@f.com）" in text
    assert "mailto" not in html and 'data-url=""' not in html
    assert "引用链接" not in text and "[1]" not in text


def test_an_email_link_in_zhihus_markdown_is_words_and_address() -> None:
    zhihu = render(issue_of(MAIL), "zhihu", RenderContext()).files["zhihu.md"]
    assert "合作请邮件联系（yifeng.ruan@gmail.com）。" in zhihu and "mailto" not in zhihu


# --- screenshot tools' names as alt text ---------------------------------------------------


@pytest.mark.parametrize(
    "alt",
    [
        "截屏2024-05-01 上午10.22.13",
        "屏幕快照 2019-01-01 下午3.22.13",
        "Screenshot 2024-05-01 at 10.22.13",
        "Screen Shot 2024-05-01 at 10.22.13 AM",
        "Screenshot_20240501_102213",
        "Screenshot from 2024-05-01 10-22-13",
        "WX20240501-102213@2x",
        "QQ20240501-102213@2x",
        "QQ截图20240501102213",
        "CleanShot 2024-05-01 at 10.22.13@2x",
        "企业微信截图_17145312345678",
        "PixPin_2024-05-01_10-22-13",
        "Pasted Graphic",
        "Pasted Graphic 2",
        "unnamed",
        "unnamed (1)",
        "截屏2024-05-01 10.22.13 (2)",
    ],
)
def test_a_screenshot_tools_file_name_is_no_caption(alt: str) -> None:
    assert caption_of(alt, "", "https://e.com/x.png") == ""
    for channel in CHANNELS:
        assert alt not in words(shown(f"正文。\n\n![{alt}](https://e.com/x.png)\n", channel))


@pytest.mark.parametrize(
    "alt",
    [
        "图 1：架构",
        "Screenshot of the settings page",
        "Screenshot: settings",
        "Screenshot at noon",
        "截图：设置页面",
        "WX 公众号后台",
        "PM 2.5",
        "Rspack 1.0",
        "2024 年度回顾",
        "unnamed bird",
        "Pasted Graphic of the API",
    ],
)
def test_words_about_the_picture_stay_its_caption(alt: str) -> None:
    assert caption_of(alt, "", "https://e.com/x.png") == alt


# --- the new patterns stay fast ----------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "name", "line"),
    [
        ("crosspost.render.captions", "_STAMPED", "Screenshot " + "1 at " * 2_000 + "x"),
        ("crosspost.render.captions", "_STAMPED", "wx" + "1-" * 5_000 + "x"),
        ("crosspost.issue.fullwidth_links", "_TYPED", "[" * 10_000),
        ("crosspost.issue.fullwidth_links", "_TYPED", "【a】（" * 2_000),
        ("crosspost.issue.substack_notes", "_NUMBERED_LINK", "<a " * 3_333),
        ("crosspost.issue.substack_notes", "_RAW_NOTE", '<div class="footnote">' * 500),
        ("crosspost.issue.substack_notes", "_EMPTY_LINK", "<a href=x>" + " " * 10_000),
        ("crosspost.issue.mail_links", "_RAW_MAIL_LINK", '<a href="mailto:x">' * 500),
        ("crosspost.issue.mail_links", "_RAW_OPEN", "<a " * 3_333),
    ],
)
def test_a_new_pattern_stays_fast_on_a_line_made_to_trip_it(
    module: str, name: str, line: str
) -> None:
    found = getattr(importlib.import_module(module), name)
    started = time.perf_counter()
    for at in range(0, len(line), 50):
        found.match(line, at)
    list(found.finditer(line))
    assert time.perf_counter() - started < 1.0


# --- what a before/after review of these rules found -----------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "合作请[邮件联系](mailto:a@b.com)（a@b.com）。\n",  # 阮一峰's weekly header
        '合作请<a href="mailto:a@b.com">邮件联系</a>（a@b.com）。\n',
    ],
)
def test_an_address_written_after_its_mail_link_is_not_written_twice(body: str) -> None:
    for channel in CHANNELS:
        seen = words(shown(body, channel))
        assert seen.count("a@b.com") == 1 and "合作请邮件联系（a@b.com）。" in seen, channel


@pytest.mark.parametrize(
    ("body", "linked"),
    [
        ("访问官网https://www.python.org/下载安装包\n", "https://www.python.org/"),
        ("或者https://example.com/了解详情\n", "https://example.com/"),
        ("见 https://zh.wikipedia.org/wiki/微信\n", "https://zh.wikipedia.org/wiki/微信"),
    ],
)
def test_words_after_a_sites_root_are_the_sentences(body: str, linked: str) -> None:
    assert f'<a href="{linked}">' in shown(body, "zhihu")


def test_a_blank_spacer_paragraph_stays_on_wechat() -> None:
    # The writer's blank line, as WeChat's editor and Word write it, was deleted.
    body = "第一段\n\n<p>&nbsp;</p>\n\n第二段\n\n<p>\u3000</p>\n\n"
    body += '<div style="margin-top:40px"></div>\n'
    out = shown(body, "wechat")
    assert out.count("\xa0") + out.count("&nbsp;") >= 3, out  # two guards and the spacer
    assert "\u3000" in out and "margin-top:40px" in out


@pytest.mark.parametrize("wrapper", ["<details>\n<summary>安装命令</summary>", "<div>"])
def test_commands_indented_under_a_wrapper_stay_code(wrapper: str) -> None:
    closing = "</details>" if "details" in wrapper else "</div>"
    body = f"{wrapper}\n    pip install foo\n    foo --init\n{closing}\n"
    for channel in CHANNELS:
        assert "<pre" in shown(body, channel), channel


@pytest.mark.parametrize(
    "body", ["这本书的作者是\n【美】约瑟夫·海勒，他写了很多书。\n", "按下按键\n1️⃣ 即可开始\n"]
)
def test_one_label_under_a_line_is_prose_wrapped_there(body: str) -> None:
    for channel in CHANNELS:
        assert "<br" not in shown(body, channel), channel


@pytest.mark.parametrize("alt", ["QQ 123456789", "Photo from 1989"])
def test_a_number_or_a_year_beside_a_tools_word_is_a_caption(alt: str) -> None:
    assert caption_of(alt, "", "https://e.com/qr.png") == alt


def test_a_link_written_right_around_full_width_words_stays_that_link() -> None:
    body = "见[【官方】(https://a.com)](https://b.com)。\n"
    assert '<a href="https://b.com">' in shown(body, "zhihu")
    assert "](" not in words(shown(body, "wechat"))
