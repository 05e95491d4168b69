"""What an editor pastes from a chat assistant or a WeChat article saved as Markdown: a
script's links in the page's header, WeChat's placeholder pictures, a reasoning model's
thinking, 通义千问's and Kimi's citations, and spaces that are not ASCII's after a
heading's hashes or a list's marker. Each comes out as the answer meant it, the same on
both channels, and check says what was left out."""

from __future__ import annotations

import base64

import pytest

from rendering import CHANNELS, BodyWarnings, CheckLines, shown, words

# --- links to a script ----------------------------------------------------------------------

SCRIPT_LINKS = (
    "原创 张三 [AI前线](javascript:void\\(0\\);) _2023-05-12_\n\n"  # html2text's escapes
    "甲 [Got It](javascript:;) 乙 [取消](javascript:void(0);) 丙\n\n"
    "丁 [阅读原文][more] 戊\n\n"
    "[more]: javascript:void(0)\n"
)


def test_a_link_to_a_script_is_its_words_alone_and_never_a_formula() -> None:
    # WeChat showed '[AI前线](javascript:void', a drawn 0 and ';)'.
    for channel in CHANNELS:
        html = shown(SCRIPT_LINKS, channel)
        text = words(html)
        assert "原创 张三 AI前线 2023-05-12" in text, channel
        assert "甲 Got It 乙 取消 丙" in text and "丁 阅读原文 戊" in text, channel
        assert "javascript" not in html and "<svg" not in html, channel
        assert "equation" not in html and "<a " not in html, channel


def test_a_script_written_with_entities_and_a_link_to_an_svg_are_words_too(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        "甲 [x](javascript&#58;alert(1)) 乙\n\n丙 [圆](data:image/svg+xml,%3Csvg%3E%3C/svg%3E) 丁\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "甲 x 乙" in words(html) and "丙 圆 丁" in words(html), channel
        assert "javascript" not in html and "data:" not in html, channel
    said = body_warnings(body)
    assert said[0].startswith("issue.md:4: warning: the link to 'javascript:alert(1)' runs")
    assert said[1].startswith(
        "issue.md:6: warning: the link to 'data:image/svg+xml,%3Csvg%3E%3C/svg%3E' opens a "
        "drawing written into the address, which no reader can follow"
    )


def test_each_paragraph_with_a_script_link_gets_one_warning(body_warnings: BodyWarnings) -> None:
    said = body_warnings(SCRIPT_LINKS + '\n己 <a href="javascript:void(0);">点我</a> 庚\n')
    assert said[0] == (
        "issue.md:4: warning: the link to 'javascript:void(0);' runs a script of the page it "
        "was copied from (such as a WeChat article's buttons), which no reader can follow: "
        "its words 'AI前线' are shown, with no link; delete it, or link the page's address "
        "(https://…)"
    )
    assert said[1].startswith(
        "issue.md:6: warning: the link to 'javascript:;' (and 1 more in this paragraph) runs"
    )
    assert said[2].startswith("issue.md:8: warning: the link to 'javascript:void(0)' runs")
    # A raw <a> to a script was named before, once, and still is.
    assert said[3].startswith("issue.md:12: warning: the link to 'javascript:void(0);' is a")
    assert len(said) == 4


def test_a_bracket_in_an_address_is_never_a_formula_and_one_after_a_link_is() -> None:
    # A link refused for another reason (a blank in its address) stays text: its '\(1\)'
    # is the brackets the converter escaped.
    body = "见 [附件](file:///C:/a b\\(1\\).pdf) 与 [官网](https://e.com) \\(x^2\\)\n"
    wechat = shown(body, "wechat")
    assert "(1).pdf)" in words(wechat)
    assert wechat.count("<svg") == 1  # x^2 alone


# --- WeChat's placeholder pictures ------------------------------------------------------------

#: The placeholder as each converter writes it: html2text (blanks unencoded), the page's
#: own encoding, html2text wrapping its lines, base64.
WECHAT_PLACEHOLDER = (
    "data:image/svg+xml,%3C%3Fxml version='1.0' encoding='UTF-8'%3F%3E%3Csvg width='1px' "
    "height='1px' viewBox='0 0 1 1' version='1.1' xmlns='http://www.w3.org/2000/svg'%3E"
    "%3Ctitle%3E%3C/title%3E%3Cg stroke='none' fill='none' fill-opacity='0'%3E%3Cg "
    "transform='translate(-249.000000, -126.000000)' fill='%23FFFFFF'%3E%3Crect x='249' "
    "y='126' width='1' height='1'%3E%3C/rect%3E%3C/g%3E%3C/g%3E%3C/svg%3E"
)
ENCODED_PLACEHOLDER = (
    "data:image/svg+xml,%3C%3Fxml%20version%3D%271.0%27%3F%3E%3Csvg%20width%3D%271px%27%20"
    "height%3D%271px%27%20xmlns%3D%27http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%27%3E%3C%2Fsvg%3E"
)
WRAPPED_PLACEHOLDER = (
    "data:image/svg+xml,%3C%3Fxml version=%271.0%27\nencoding=%27UTF-8%27%3F%3E%3Csvg "
    "width=%271px%27 height=%271px%27 viewBox=%270\n0 1 1%27 "
    "xmlns=%27http://www.w3.org/2000/svg%27%3E%3C/svg%3E"
)
EMPTY_BASE64 = (
    "data:image/svg+xml;base64,"
    + base64.b64encode(
        b'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"></svg>'
    ).decode()
)
CIRCLE = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='20' height='20'%3E"
    "%3Ccircle cx='10' cy='10' r='8'/%3E%3C/svg%3E"
)


@pytest.mark.parametrize(
    "address", [WECHAT_PLACEHOLDER, ENCODED_PLACEHOLDER, WRAPPED_PLACEHOLDER, EMPTY_BASE64]
)
def test_a_placeholder_picture_is_left_out_and_named(
    address: str, body_warnings: BodyWarnings
) -> None:
    # Both channels printed the SVG's source, whole, as the article's text.
    body = f"导读。\n\n![图片]({address})\n\n正文[^9]。\n"
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "svg" not in html and "导读。" in words(html) and "正文" in words(html), channel
    said = body_warnings(body)
    assert said[0].startswith("issue.md:6: warning: the picture 'data:image/svg+xml")
    assert said[0].endswith(
        "is a placeholder (an SVG of one pixel, or one that draws nothing: a WeChat article "
        "shows it until the real picture loads), so it is left out of every channel; delete "
        "it from the issue to silence this"
    )
    # The lines after it keep their numbers.
    after = 8 + address.count("\n")
    assert said[1].startswith(f"issue.md:{after}: warning: [^9] refers to a footnote")


def test_a_drawn_svg_picture_is_a_picture_as_any_svg_is(check_lines: CheckLines) -> None:
    wrapped = CIRCLE.replace(" height", "\nheight")
    body = f"图：![圆]({wrapped}) 后文\n\n第二段[^9]\n"
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "<img" in html and 'src="data:image/svg+xml,%3Csvg%20xmlns=' in html, channel
        assert "circle" not in words(html) and "后文" in words(html), channel
    lines = check_lines("---\ntitle: t\n---\n" + body)
    assert any(
        line.startswith('issue.md:4: error: image "data:image/svg+xml,%3Csvg%20xmlns=')
        and line.endswith(
            "is not an image crosspost can read (SVG is not supported); export PNG or JPEG"
        )
        for line in lines
    )
    assert any(line.startswith("issue.md:7: warning: [^9] refers") for line in lines)


def test_a_placeholder_in_code_stays_code() -> None:
    body = f"```\n![]({ENCODED_PLACEHOLDER})\n```\n\n`![]({EMPTY_BASE64})`\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert ENCODED_PLACEHOLDER in text and EMPTY_BASE64 in text, channel


# --- a reasoning model's thinking ---------------------------------------------------------

THINKING = (
    "<think>\n好的，用户想知道 **RAG** 是什么。\n\n我应该先给定义：\n\n1. 定义\n2. 例子\n"
    "</think>\n\n"
    "RAG 是**检索增强生成**。\n\n"
    "```html\n<think>\n代码里的标签\n</think>\n```\n\n"
    "写作 `<think>` 标签。\n\n"
    "正文[^9]。\n"
)


def test_a_reasoning_block_is_left_out_of_every_channel() -> None:
    # DeepSeek-R1's thinking went out as the article's first paragraphs, Markdown unread.
    for channel in CHANNELS:
        html = shown(THINKING, channel)
        text = words(html)
        assert "用户想知道" not in text and "先给定义" not in text, channel
        assert "RAG 是检索增强生成。" in text, channel
        assert "代码里的标签" in text and "写作 &lt;think&gt; 标签" in text, channel


def test_check_says_the_reasoning_was_left_out_and_keeps_its_line_numbers(
    body_warnings: BodyWarnings,
) -> None:
    assert body_warnings(THINKING) == [
        "issue.md:4: warning: <think> … </think> on these 8 lines is the model's reasoning "
        "before its answer (DeepSeek-R1, QwQ and 豆包 write it so), not part of the answer, "
        "so it is left out of every channel; delete it from the issue to silence this",
        "issue.md:23: warning: [^9] refers to a footnote that is never defined, so it is "
        "shown as written; add a line '[^9]: …' with the note, or remove the mark",
    ]


def test_reasoning_closed_on_the_line_of_the_answer_keeps_the_answer() -> None:
    body = "<thinking>\n用户要一句话。\n</thinking>答案是 42。\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "答案是 42。" in text and "用户要" not in text, channel


@pytest.mark.parametrize(
    "body",
    [
        # A mention in prose, and a closing tag in a tutorial's code span, are the writer's.
        "<thinking>Claude 的</thinking> 也这样写。\n",
        "<think>\n## 解析方法\n\n用正则匹配到 `</think>` 为止，之后才是答案。\n",
    ],
)
def test_a_reasoning_tag_the_writer_talks_about_stays(body: str) -> None:
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "也这样写" in text or "解析方法" in text, channel


# --- 通义千问's citations ---------------------------------------------------------------------

TONGYI = (
    "阿里云发布了 Qwen2.5 [[1]](https://qwenlm.github.io/blog/qwen2.5/)，领先 "
    "[[2]](https://github.com/QwenLM/Qwen2.5)[[3]](https://huggingface.co/Qwen)。\n\n"
    "又引用了 [[2]](https://github.com/QwenLM/Qwen2.5)。\n"
)


def test_a_citation_link_is_wechats_reference_mark_alone() -> None:
    # It was 'Qwen2.5 [1][1]', its entry '[1] [1]: https://…'.
    wechat = words(shown(TONGYI, "wechat"))
    assert "Qwen2.5 [1]，领先 [2][3]。" in wechat and "又引用了 [2]。" in wechat
    assert "[1]&nbsp;https://qwenlm.github.io/blog/qwen2.5/" in wechat
    assert "[3]&nbsp;https://huggingface.co/Qwen" in wechat and "[1]:" not in wechat


def test_a_citation_link_follows_the_issues_own_numbers() -> None:
    # With the issue's own source list the mark read '[1][4]': two numbers, two sources.
    body = TONGYI + "\n来源：\n[1] 甲\n[2] 乙\n[3] 丙\n"
    wechat = words(shown(body, "wechat"))
    assert "Qwen2.5 [4]，领先 [5][6]。" in wechat
    assert "[4]&nbsp;https://qwenlm.github.io/blog/qwen2.5/" in wechat


def test_zhihu_keeps_a_citation_link() -> None:
    zhihu = shown(TONGYI, "zhihu")
    assert '<a href="https://qwenlm.github.io/blog/qwen2.5/">[1]</a>' in zhihu
    assert '<a href="https://huggingface.co/Qwen">[3]</a>' in zhihu


def test_a_link_whose_words_are_a_bare_number_keeps_them() -> None:
    # '本期是第 [3](…) 期' lost its 3 on WeChat: a bare number is the writer's word.
    body = "本期是第 [3](https://e.com/3) 期，共 [100](https://e.com/all) 个。\n"
    assert "本期是第 3[1] 期，共 100[2] 个。" in words(shown(body, "wechat"))
    assert '<a href="https://e.com/3">3</a>' in shown(body, "zhihu")


def test_a_link_of_other_words_keeps_them() -> None:
    body = "见 [第 1 版](https://e.com/a) 与 [12a](https://e.com/b)。\n"
    wechat = words(shown(body, "wechat"))
    assert "见 第 1 版[1] 与 12a[2]。" in wechat
    assert "[1]&nbsp;第 1 版: https://e.com/a" in wechat


# --- Kimi's notes ---------------------------------------------------------------------------

KIMI = (
    "AI 投资增长迅速[^1^]，中国占比 15%[^2^]，另有[^3^]。\n\n"
    "参考资料：\n\n"
    "[^1^]: 斯坦福 AI 指数报告 https://aiindex.stanford.edu/report/\n"
    "[^2^]: [IDC 报告](https://www.idc.com/a)\n\n"
    "代码 `[^1^]` 照旧。\n"
)


def test_kimis_marks_are_footnotes_where_the_issue_defines_them() -> None:
    wechat = words(shown(KIMI, "wechat"))
    assert "AI 投资增长迅速[1]，中国占比 15%[2]，另有。" in wechat
    assert "[1]&nbsp;斯坦福 AI 指数报告 https://aiindex.stanford.edu/report/" in wechat
    assert "[2]&nbsp;IDC 报告[3]" in wechat and "代码 [^1^] 照旧。" in wechat
    zhihu = shown(KIMI, "zhihu")
    assert 'data-text="斯坦福 AI 指数报告" data-url="https://aiindex.stanford.edu/report/"' in zhihu
    assert 'data-numero="2"' in zhihu and "[^2^]" not in zhihu
    assert "另有。" in words(zhihu) and "代码 [^1^] 照旧。" in words(zhihu)


def test_check_names_only_the_kimi_mark_never_defined(body_warnings: BodyWarnings) -> None:
    # It said each definition was "never referenced … not shown" although it was shown.
    assert body_warnings(KIMI) == [
        "issue.md:4: warning: citation marks an AI assistant left (such as '[^3^]') on line "
        "4 are left out of every channel: they point at the assistant's search results, "
        "which the issue does not hold; link the sources readers need"
    ]


def test_check_names_the_marks_the_dialect_left_out(body_warnings: BodyWarnings) -> None:
    # Check read the source again: a definition inside a reasoning block, which is left
    # out before the marks are read, made it take line 4's mark for a footnote, and it
    # named a mark inside the block that went with the block.
    body = "有一个标记[^7^]。\n\n<think>\n[^7^]: 定义 [citation:2]\n</think>\n\n答案。\n"
    assert "有一个标记。" in words(shown(body, "wechat"))
    assert [line for line in body_warnings(body) if "citation marks" in line] == [
        "issue.md:4: warning: citation marks an AI assistant left (such as '[^7^]') on line "
        "4 are left out of every channel: they point at the assistant's search results, "
        "which the issue does not hold; link the sources readers need"
    ]


def test_kimis_marks_with_no_definitions_are_left_out_as_before() -> None:
    body = "增长迅速[^1^]，占比 15%[^2^]。\n"
    for channel in CHANNELS:
        assert "增长迅速，占比 15%。" in words(shown(body, channel)), channel


# --- a space that is not ASCII's after the marks ------------------------------------------------


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u202f"])
def test_a_heading_and_an_item_with_a_wide_space_are_read_as_such(space: str) -> None:
    body = (
        f"##{space}标题\n\n###{space}{space}小标题\n\n"
        f"-{space}**要点**：第一条\n-{space}**要点**：第二条\n\n1.{space}一\n2.{space}二\n\n"
        f"> ##{space}引文标题\n\n```\n##{space}代码\n```\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<h2>标题</h2>" in zhihu and "<h3>小标题</h3>" in zhihu
    assert "<blockquote><b>引文标题</b></blockquote>" in zhihu  # Zhihu's heading in a quote
    assert "<ul><li><b>要点</b>：第一条</li><li><b>要点</b>：第二条</li></ul>" in zhihu
    assert "<ol><li>一</li><li>二</li></ol>" in zhihu
    assert f"##{space}代码" in zhihu  # code keeps what it shows
    wechat = shown(body, "wechat")
    assert "<h2" in wechat and "<h3" in wechat and words(wechat).count("##") == 1
    assert "•&nbsp;" in words(wechat)


def test_an_svg_picture_that_runs_a_script_is_left_out_and_named(
    body_warnings: BodyWarnings,
) -> None:
    svg = "%3Csvg xmlns='http://www.w3.org/2000/svg' width='90' height='40'%3E%3Cscript%3E"
    body = f"前文\n\n![图](data:image/svg+xml,{svg}alert(1)%3C/script%3E%3C/svg%3E)\n\n后文\n"
    for channel in CHANNELS:
        out = shown(body, channel)
        assert "svg+xml" not in out and "alert" not in out, channel
    (said,) = [line for line in body_warnings(body) if "runs something" in line]
    assert said.startswith("issue.md:6: warning: the picture 'data:image/svg+xml,")
