"""Habits of the tools writers keep their newsletters in, met in real documents nobody here
wrote: Obsidian's callouts of every kind, its private comments, block ids and image
sizes; CSDN's table-of-contents line and picture placeholder; Zhihu writers' formulas
ending in ``\\\\``; the line Zhihu On VSCode writes on top; ``<font color>`` without its
``#``; a ``# `` heading that is a section, not the title. Each comes out as the writer's
tool shows it, on both channels."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crosspost.issue.loader import read_issue
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, shown, words

# --- Obsidian ------------------------------------------------------------------------------


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize(
    ("first_line", "title"),
    [
        ("> [!info]", "信息"),  # a kind crosspost knows, alone: its label
        ("> [!question] 可以嵌套吗？", "可以嵌套吗？"),
        ("> [!todo]", "Todo"),  # another tool's name for a kind: the name, as Obsidian
        ("> [!ATTENTION]-", "Attention"),
        ("> [!AI_SUMMARY]+", "Ai summary"),  # the writer's own kind: a plain note
    ],
)
def test_every_obsidian_callout_is_a_callout_titled_as_obsidian_titles_it(
    channel: str, first_line: str, title: str
) -> None:
    html = shown(f"正文。\n\n{first_line}\n> 标注的内容。\n", channel)
    assert "[!" not in html
    assert title in words(html) and "标注的内容。" in words(html)
    if channel == "wechat":
        assert re.search(r"<section[^>]*>\s*<p[^>]*>" + re.escape(title) + "</p>", html)


def test_a_callout_in_a_callout_is_one_too() -> None:
    html = shown("> [!question] 可以嵌套吗？\n> > [!todo] 可以。\n> > 里面\n", "wechat")
    assert "[!" not in html and html.count("<section") >= 2


def test_private_comments_and_block_ids_are_not_published() -> None:
    body = (
        "公开的一段。 ^intro\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n^table1\n\n"
        "%%只给自己看的注释%%\n\n正文继续。%%行内私密注释%% 这里是公开内容。\n\n"
        "%%\n> [!example] 草稿\n> 不想让读者看到的答案\n\n- 也不想\n\n%%\n\n"
        "前面公开 %%从这里开始私密\n\n私密的一段\n\n到这里结束%% 后面公开\n\n"
        "`代码里的 %%d 留着` 和\n\n```\nprintf('%%d')\n```\n"
    )
    for channel in CHANNELS:
        text = words(shown(body, channel))
        for private in ("注释", "私密", "草稿", "答案", "也不想", "^intro", "^table1", "%%"):
            assert private not in text.replace("%%d", ""), (channel, private)
        for public in ("公开的一段。", "正文继续。", "这里是公开内容。", "前面公开", "后面公开"):
            assert public in text, (channel, public)
        assert text.count("%%d") == 2  # code is code


def test_a_percent_sign_written_twice_and_never_closed_stays() -> None:
    assert "增长 100%% 以上" in words(shown("增长 100%% 以上。\n\n下一段。\n", "zhihu"))


@pytest.mark.parametrize(
    ("image", "alt", "width"),
    [
        ("![|675](https://e.com/a.png)", "", "675"),
        ("![架构图|300x200](https://e.com/b.png)", "架构图", "300"),
    ],
)
def test_an_obsidian_size_after_the_alt_text_is_the_pictures_width(
    image: str, alt: str, width: str
) -> None:
    html = shown(f"正文。\n\n{image}\n", "wechat")
    assert f"width:{width}px" in html
    assert "|" not in words(html)
    assert f'alt="{alt}"' in html


# --- CSDN, Zhihu's writers -----------------------------------------------------------------


def test_csdns_table_of_contents_line_is_left_out_and_named(body_warnings: BodyWarnings) -> None:
    body = "@[TOC](这里写自定义目录标题)\n\n# 标题\n\n正文。\n\n![图](https://e.com/x.png)\n[TOC]\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "TOC" not in text and "目录标题" not in text
    named = [w for w in body_warnings(body) if "table of contents" in w]
    assert len(named) == 2 and "@[TOC]" in named[0]


@pytest.mark.parametrize("alt", ["在这里插入图片描述", "这里写图片描述"])
def test_csdns_picture_placeholder_is_no_caption(alt: str) -> None:
    html = shown(f"正文。\n\n![{alt}](https://img-blog.csdnimg.cn/x.png#pic_center)\n", "wechat")
    assert alt not in words(html)


def test_a_zhihu_writers_display_formula_ending_in_a_line_break_is_drawn() -> None:
    body = "$$\np(x_1)=\\prod_{n=2}^{N} p(x_n \\mid x_{n-1})\\\\\n$$\n"
    html = shown(body, "wechat")
    assert "<svg" in html and "prod" not in words(html)


def test_zhihu_on_vscodes_own_line_on_top_is_left_out() -> None:
    body = "#! https://zhuanlan.zhihu.com/p/213271759\n正文第一段。\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "zhuanlan" not in text and "正文第一段。" in text
    # further down it is the writer's words
    later = "正文。\n\n#! https://example.com/a\n"
    assert "#! https://example.com/a" in words(shown(later, "zhihu"))


@pytest.mark.parametrize("written", ["0000B9", "#0000B9"])
def test_a_font_colour_without_its_hash_is_kept(written: str) -> None:
    html = shown(f'<font color="{written}">作者的点评</font>\n', "wechat")
    assert re.search(r'<span style="color:#0000B9">作者的点评', html)


# --- the title -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "开头的介绍。\n\n# 第一部分\n\n内容。\n",  # after the body's first words
        "- 第一块\n- # 基本操作\n  - 内容\n",  # in a list (Logseq)
    ],
)
def test_a_heading_that_is_a_section_stays_in_its_place(tmp_path: Path, body: str) -> None:
    path = tmp_path / "weekly-12.md"
    path.write_text(body, encoding="utf-8")
    issue = read_issue(path, lenient=True)
    assert issue.title == "weekly-12"
    heading = "第一部分" if "第一部分" in body else "基本操作"
    assert heading in words(render(issue, "zhihu", RenderContext()).body)


def test_a_heading_under_a_banner_and_badges_is_the_title(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    banner = "![banner](https://e.com/b.png)\n[![ci](https://e.com/ci.svg)](https://e.com)\n"
    path.write_text(f"<!-- 草稿 -->\n{banner}\n# 周刊第 12 期\n\n正文。\n", encoding="utf-8")
    issue = read_issue(path, lenient=True)
    assert issue.title == "周刊第 12 期"
    assert "周刊第 12 期" not in words(render(issue, "zhihu", RenderContext()).body)
