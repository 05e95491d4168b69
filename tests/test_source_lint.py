"""Markdown that parses, but not as its editor meant: `check` names each slip with its line.

Each case is text a real newsletter had (or a tool of another publication writes) and
that markdown-it accepts quietly: the warning is all that stands between the editor and
a post that lost its second half.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from crosspost.issue.loader import load_issue
from crosspost.render.rendered import render
from rendering import words

FRONT = "---\ntitle: 检查\n---\n"
#: The ``body_warnings`` fixture (conftest.py): the file-wide warnings of a body.
BodyWarnings = Callable[[str], list[str]]
#: The ``check_lines`` fixture (conftest.py): every line check prints for a document.
CheckLines = Callable[[str], list[str]]


def test_an_unclosed_fence_is_named_where_it_opens(
    tmp_path: Path, body_warnings: BodyWarnings
) -> None:
    body = "开头。\n\n```python\nprint(1)\n\n## 被吞掉的标题\n\n最后一段。\n"
    assert body_warnings(body) == [
        "issue.md:6: warning: the code block opened with ``` is never closed, so every line "
        "after it (to the end of the issue, or of the list, quote or callout it is in) is "
        "shown as code; add a ``` line where the code ends"
    ]
    # what the warning is about: the heading went into the code block
    assert "<h2" not in render(load_issue(tmp_path / "issue.md"), "wechat").body


@pytest.mark.parametrize(
    "body",
    [
        "```\ncode\n```\n",
        "~~~~\ncode\n~~~~~\n",
        "> ```\n> quoted code\n> ```\n",
        "- item\n\n  ```\n  listed code\n  ```\n",
        "::: tip\n```\n::: not a close\n```\n:::\n",
    ],
)
def test_closed_fences_say_nothing(body_warnings: BodyWarnings, body: str) -> None:
    assert body_warnings("文字。\n\n" + body) == []


def test_an_unclosed_comment_or_script_takes_the_rest_and_says_so(
    body_warnings: BodyWarnings,
) -> None:
    assert body_warnings("可见。\n\n<!-- 待写\n\n这一段读者看不到。\n") == [
        "issue.md:6: warning: the HTML comment '<!--' is never closed with '-->', so every "
        "line after it is hidden from readers; close it or remove it"
    ]
    assert body_warnings('可见。\n\n<script src="a.js">\n\n看不到。\n') == [
        "issue.md:6: warning: <script> is never closed, so every line after it is taken as "
        "part of it; add </script> where it ends"
    ]
    assert body_warnings("可见。\n\n<!-- 注释 -->\n\n<pre>\nx\n</pre>\n") == []


def test_a_pipe_in_code_splits_a_table_cell_and_the_extra_cell_is_named(
    body_warnings: BodyWarnings,
) -> None:
    body = "| cmd | note |\n|---|---|\n| `ls | wc -l` | counts |\n| `ls \\| wc` | ok |\n"
    assert body_warnings(body) == [
        "issue.md:6: warning: this table row has 3 cells but its header has 2, so the cells "
        "past the last column are not shown; a '|' inside a cell, even inside `code`, must "
        "be written '\\|'"
    ]


def test_footnotes_defined_twice_or_never_referenced(body_warnings: BodyWarnings) -> None:
    body = "正文[^a]。\n\n[^a]: 第一条\n[^a]: 又一条\n[^b]: 没人引用\n\n```\n[^c]: 代码里的\n```\n"
    assert body_warnings(body) == [
        "issue.md:7: warning: footnote [^a] is defined again here (first on line 6); only "
        "one of the definitions is shown: give each its own label",
        "issue.md:8: warning: footnote [^b] is never referenced in the text, so it is not "
        "shown; refer to it with [^b] or remove it",
    ]


def test_a_footnote_reference_never_defined_is_named(body_warnings: BodyWarnings) -> None:
    # Shown as '正文[^2]' on both channels, and check said nothing.
    body = "前文。\n\n正文[^2]与[^1]。\n\n[^1]: 注一\n\n`[^3]` 是代码，[^4^] 是 Kimi 的。\n"
    assert [w for w in body_warnings(body) if "never defined" in w] == [
        "issue.md:6: warning: [^2] refers to a footnote that is never defined, so it is shown "
        "as written; add a line '[^2]: …' with the note, or remove the mark"
    ]


def test_syntax_of_other_tools_is_named_once_per_line(body_warnings: BodyWarnings) -> None:
    body = (
        '{{< relref "a.md" >}}\n\n'
        "{% include b.html %} 与 {{ site.baseurl }}/c.png\n\n"
        "![[d.md]] 见 [[另一篇]]，代码 `{{ 不算 }}` 不算。\n"
    )
    found = body_warnings(body)
    assert [line.split(": warning: ")[1].split("' is ")[0] for line in found] == [
        '\'{{< relref "a.md" >}}',
        "'{% include b.html %}",
        "'{{ site.baseurl }}",
        "'![[d.md]]",
        "'[[另一篇]]",
    ]
    assert [line.split(":")[1] for line in found] == ["4", "6", "6", "8", "8"]
    assert "shortcode (Hugo's, Quarto's)" in found[0] and "Obsidian's embed" in found[3]


def test_a_callout_left_open_inside_another_is_named_with_the_one_it_ends_with(
    check_lines: CheckLines,
) -> None:
    body = "::: tip\n提示的正文\n\n::: warning\n警告\n:::\n\n后文。\n"
    lines = check_lines(FRONT + body)
    assert (
        "issue.md:7: warning: '::: warning' is never closed, so it ends where the "
        "'::: tip' it sits in (line 4) ends; if that one should end first, add a ':::' "
        "line before line 7"
    ) in lines
    assert not any("runs to the end of the issue" in line for line in lines)


def test_a_callout_closed_by_a_line_inside_its_code_says_how_to_keep_it_open(
    body_warnings: BodyWarnings,
) -> None:
    body = "::: tip\n示例：\n\n```markdown\n::: warning\n注意\n:::\n```\n\n:::\n\n之后。\n"
    assert body_warnings(body)[0] == (
        "issue.md:7: warning: the ':::' on line 10 inside this code block closes the "
        "callout around it, so the code block and the callout end there; open the callout "
        "with more colons ('::::: tip' … ':::::')"
    )
    wider = body.replace(":::\n\n之后", ":::::\n\n之后").replace("::: tip", "::::: tip")
    assert body_warnings(wider) == []


def test_a_bracketed_link_text_and_a_table_in_a_nested_quote_say_nothing(
    body_warnings: BodyWarnings,
) -> None:
    body = "论文 [[PDF]](https://arxiv.org/abs/1) 与 [[代码]](https://github.com/x)。\n\n"
    body += "> > | 列 | 值 |\n> > |---|---|\n> > | a | b |\n"
    assert body_warnings(body) == []


@pytest.mark.parametrize(
    ("body", "line", "quoted"),
    [
        # A space inside the closing mark: the commonest slip, bold on no channel.
        ("前文。\n\n**好的** 和 **坏的 **结尾\n", 6, "'**坏的 **结'"),
        ("第一行\n这是 **未闭合的粗体\n", 5, "'**未闭合的粗体'"),
        ("a**'b'**c\n", 4, "'**'b'**c'"),
    ],
)
def test_bold_marks_left_as_asterisks_are_named_on_their_line(
    body_warnings: BodyWarnings, tmp_path: Path, body: str, line: int, quoted: str
) -> None:
    (said,) = body_warnings(body)
    assert said.startswith(f"issue.md:{line}: warning: {quoted} shows its two asterisks")
    assert "'**加粗**', not '**加粗 **'" in said
    # What the reader gets, on both channels: the asterisks themselves.
    (tmp_path / "issue.md").write_text(FRONT + body, "utf-8")
    for channel in ("wechat", "zhihu"):
        assert "**" in render(load_issue(tmp_path / "issue.md"), channel).body


@pytest.mark.parametrize(
    ("body", "line", "quoted", "advice"),
    [
        ("前文。\n\n这是__强调__中文\n", 6, "'__强调__' shows its two underscores", "'**强调**'"),
        ("_斜体_字与 __init__\n", 4, "'_斜体_' shows its underscores", "'*斜体*'"),
    ],
)
def test_underscores_left_as_written_beside_chinese_are_named(
    body_warnings: BodyWarnings, tmp_path: Path, body: str, line: int, quoted: str, advice: str
) -> None:
    (said,) = body_warnings(body)
    assert said.startswith(f"issue.md:{line}: warning: {quoted}, not emphasis")
    assert f"write {advice}, which works beside any character" in said
    (tmp_path / "issue.md").write_text(FRONT + body, "utf-8")
    for channel in ("wechat", "zhihu"):  # what readers get: the marks themselves
        shown = words(render(load_issue(tmp_path / "issue.md"), channel).body)
        assert quoted.split("'")[1] in shown


@pytest.mark.parametrize(
    "body",
    [
        "**好的** 和 __也好__。\n",  # bold, on every channel
        "数据_清洗_脚本、__init__ 与 \\_\\_转义\\_\\_中\n",  # names, escapes
        "a \\*\\*b\\*\\* c\n",  # asterisks the editor escaped
        "5 ** 2 = 25\n",  # an operator between spaces reads as meant
        "`a**b` 与 ```c ** d```\n",  # code
    ],
)
def test_bold_that_worked_escaped_or_spaced_asterisks_say_nothing(
    body_warnings: BodyWarnings, body: str
) -> None:
    assert body_warnings(body) == []


def test_a_diagram_written_as_code_is_named(body_warnings: BodyWarnings) -> None:
    body = "流程如下：\n\n```mermaid\ngraph TD\n  A-->B\n```\n\n```python\nprint(1)\n```\n"
    assert body_warnings(body) == [
        "issue.md:6: warning: a mermaid diagram is shown as its source code on every channel "
        "(neither WeChat nor Zhihu draws diagrams); export it from your editor as an image "
        "and write ![…](diagram.png) in its place"
    ]


def test_text_indented_into_code_is_named_once_and_code_is_not(
    body_warnings: BodyWarnings,
) -> None:
    # 奇舞周刊 indents every item's description: each one went out as a code block.
    prose = "    如果你也想写一个插件，却苦于没有相关文档，那么这篇文章会一步一步告诉你。\n"
    body = f"### 一\n\n{prose}\n### 二\n\n{prose}\n    def f():\n        return '中文'\n"
    (said,) = body_warnings(body)
    assert said.startswith(
        "issue.md:6: warning: 2 blocks of text indented four spaces or more (lines 6, 10) "
        "are shown as code"
    )
    assert body_warnings("    x = 1  # 一个变量\n    y = 2\n") == []


def test_a_footnote_label_with_a_space_is_named_where_written(
    body_warnings: BodyWarnings,
) -> None:
    # Typora writes such labels; the notes fused: "身份认证 [^Access Control]: 访问控制".
    body = "认证[^Auth] 与 授权[^Access Control]。\n\n[^Auth]: 身份认证\n"
    body += "[^Access Control]: 访问控制\n"
    said = body_warnings(body)
    assert [line.split(":")[1] for line in said] == ["4", "7"]
    assert said[0].endswith(
        "'[^Access Control]' is not read as a footnote: a label cannot hold a space, so the "
        "reference shows as written and a definition joins the note before it; write it "
        "without spaces ('[^Access-Control]') in both places"
    )
    assert body_warnings("见[^a]。\n\n[^a]: 注 [^b c 不是] 文字 `[^d e]`\n")[0].startswith(
        "issue.md:6: warning: '[^b c 不是]'"
    )


def test_a_link_to_a_path_of_the_writers_site_is_named(body_warnings: BodyWarnings) -> None:
    # WeChat listed "[1] 轮值主编制度参考: ./editors.md" and Zhihu a note with no address.
    body = "见[轮值主编制度参考](./editors.md)。\n\n"
    body += "[上一期](https://e.org/weekly-1.html) 与 [全栈](会很多)\n"
    assert body_warnings(body) == [
        "issue.md:4: warning: the link to './editors.md' is a path on your site or disk, not "
        "a web address: WeChat and Zhihu readers cannot follow it (it is shown as a note, or "
        "its words alone); write the page's full address (https://…)"
    ]


def test_every_unfollowable_link_of_a_paragraph_is_named_at_once(
    body_warnings: BodyWarnings,
) -> None:
    # Only the first was named: the editor fixed it, and the next run named the next.
    body = "见 [笔记](notes/a%20b.md) 和 [数据](data.csv)、[再一次](data.csv)。\n"
    (said,) = body_warnings(body)
    assert "the link to 'notes/a%20b.md' (and 'data.csv' in the same paragraph) is" in said


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("budget.csv", "is a path on your site or disk"),
        ("附件/预算.pdf", "is a path on your site or disk"),
        ("%E4%BB%BB%E5%8A%A1%20a1b2c3d4.csv", "is a path on your site or disk"),  # Notion's
        (":/1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d", "is a reference of the tool"),  # Joplin's
    ],
)
def test_a_link_to_an_attached_file_or_a_notes_id_is_named(
    body_warnings: BodyWarnings, target: str, why: str
) -> None:
    # Each went out as a numbered note on WeChat with no warning.
    said = body_warnings(f"见[附件]({target})。\n\n[网页](example.com/a.pdf)\n")
    assert len(said) == 1 and f"the link to '{target}' {why}" in said[0]


def test_a_placeholder_in_a_raw_links_address_is_named_and_kept(
    body_warnings: BodyWarnings,
) -> None:
    # Read as an Obsidian comment, it was left out of the address: no link, no warning.
    said = body_warnings('<a href="%%unsubscribe_url%%">退订</a> 与 正文%%私密%%继续\n')
    assert len(said) == 1 and "'%%unsubscribe_url%%' is a placeholder" in said[0]


@pytest.mark.parametrize(
    ("body", "line", "said"),
    [
        ("```{figure} images/plane.png\nThe plane.\n```\n", 4, "'```{figure}' is a MyST directive"),
        ('<div markdown="1">\n**Bold** and ![](a.png)</div>\n', 4, "Markdown inside HTML"),
        ("=== 'Linux'\n\n    Install with apt.\n", 4, "'=== 'Linux'' is a MkDocs content tab"),
        ("定义\n\\begin{equation}\nz=x+iy\n", 4, "'\\begin{equation}' is never closed"),
        ("\\begin{itemize}\n\\item x\n\\end{itemize}\n", 4, "'\\begin{itemize}' is LaTeX"),
    ],
)
def test_other_tools_blocks_that_markdown_shows_otherwise_are_named(
    body_warnings: BodyWarnings, body: str, line: int, said: str
) -> None:
    # Each went out as code or as written, images lost, with no warning.
    found = [w for w in body_warnings(body) if said in w]
    assert [w.split(":")[1] for w in found] == [str(line)]


def test_latex_in_code_or_a_formula_is_not_named(body_warnings: BodyWarnings) -> None:
    body = "写作 `\\begin{equation}` 即可。\n\n$$\n\\begin{aligned} a &= b \\end{aligned}\n$$\n"
    assert body_warnings(body) == []


def test_a_sentence_with_a_rule_right_under_it_is_named(body_warnings: BodyWarnings) -> None:
    # A footer's '本期完，感谢阅读！' became a heading and its rule was gone, unsaid.
    body = "正文。\n\n本期完，感谢阅读！\n---\n订阅：https://e.com/rss\n\n章节标题\n---\n\n正文。\n"
    said = body_warnings(body)
    assert len(said) == 1 and said[0].startswith("issue.md:6: warning: '本期完，感谢阅读！'")
    assert "leave a blank line between them for a rule" in said[0]


def test_a_sub_list_indented_less_than_the_words_above_is_named(
    body_warnings: BodyWarnings,
) -> None:
    # feishu2md's two spaces: '3. 设置视图' was shown as '5.', and check said nothing.
    body = "1. 新建\n2. 导入\n  1. 删除\n  2. 上传\n3. 设置\n\n正文\n\n"
    body += "1. a\n2. b\n   1. 对齐\n3. c\n"  # three spaces: a sub-list, as meant
    (said,) = body_warnings(body)
    assert said.startswith("issue.md:6: warning: '1. 删除' is indented 2 spaces, less than the 3")
    assert said.endswith("indent the sub-list's lines to the words above (3 spaces)")
