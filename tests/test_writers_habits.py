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
from rendering import CHANNELS, BodyWarnings, CheckLines, issue_of, shown, words

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


def test_email_merge_tags_are_kept_as_written_and_named_once_each(
    body_warnings: BodyWarnings,
) -> None:
    # A newsletter's email through html2text: '%%FirstName%%' was left out as an Obsidian
    # comment and Mailchimp's '*|FNAME|*' came out as '|FNAME|' in italics, and check
    # said nothing. Comments (prose, Chinese, over lines) are still left out.
    body = (
        "Hi %%FirstName%%, your address is %%emailaddress%%.\n\n"
        "Hello *|FNAME|*, from *|LIST:COMPANY|*. Bye *|FNAME|*.\n\n"
        "正文%%私密%%继续，%% a note to self %% and on.\n\n%%\n草稿\n%%\n\n"
        "Again %%FirstName%% %%待核实\n\n私密的一段\n\n到这里%% 后面公开\n\n"
        "One-word comments %%TODO%% and %%draft%% stay hidden.\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        text = words(html)
        assert "Hi %%FirstName%%, your address is %%emailaddress%%." in text, channel
        assert "Hello *|FNAME|*, from *|LIST:COMPANY|*. Bye *|FNAME|*." in text, channel
        assert "正文继续， and on." in text and "Again %%FirstName%%" in text, channel
        assert "后面公开" in text and "<em" not in html and "<i>" not in html, channel
        spaced = re.sub(r" +", " ", text)  # WeChat shows a run of blanks as one space
        assert "One-word comments and stay hidden." in spaced, channel
        for private in ("私密", "note to self", "草稿", "待核实", "TODO", "draft"):
            assert private not in text, (channel, private)
    tags = [line for line in body_warnings(body) if "merge tag" in line]
    said = (
        " is a merge tag your email service fills in for each subscriber; WeChat and "
        "Zhihu do not, so readers would see it as written: write the words it stands for, "
        "or leave it out"
    )
    assert tags == [
        f"issue.md:4: warning: '%%FirstName%%' (and 1 more time){said}",
        f"issue.md:4: warning: '%%emailaddress%%'{said}",
        f"issue.md:6: warning: '*|FNAME|*' (and 1 more time){said}",
        f"issue.md:6: warning: '*|LIST:COMPANY|*'{said}",
    ]


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


# --- pictures ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "[![](https://e.com/a.png)](https://e.com/a.png)\n",
        "[![](https://e.com/thumb.png)](https://e.com/full.jpg)\n",  # the full-size file
        '<center><a data-fancybox href="https://e.com/a.png"><img src="https://e.com/a.png">'
        "</a></center>\n",
    ],
)
def test_a_picture_linked_to_itself_gets_no_reference_number(body: str) -> None:
    html = shown(f"正文。\n\n{body}", "wechat")
    assert "<img" in html and "[1]" not in html


def test_a_picture_linking_to_a_page_keeps_its_reference() -> None:
    for body in (
        "[![](https://e.com/a.png)](https://e.com/article)\n",
        '<a href="https://e.com/article"><img src="https://e.com/a.png"></a>\n',
    ):
        html = shown(f"正文。\n\n{body}", "wechat")
        assert "[1]" in html and "https://e.com/article" in html


def test_a_pelican_static_path_is_found_under_the_sites_content_folder(tmp_path: Path) -> None:
    from crosspost.images.sources import local_path

    posts, images = tmp_path / "content" / "posts", tmp_path / "content" / "images" / "2020"
    posts.mkdir(parents=True)
    images.mkdir(parents=True)
    (images / "p.png").write_bytes(b"png")
    (posts / "beside.png").write_bytes(b"png")
    issue = posts / "a.md"
    assert local_path("{static}/images/2020/p.png", issue) == images / "p.png"
    assert local_path("|static|/images/2020/p.png", issue) == images / "p.png"
    assert local_path("{static}beside.png", issue) == posts / "beside.png"
    assert local_path("/beside.png", issue) == posts / "beside.png"  # the issue's own first
    assert local_path("/images/none.png", issue) == posts / "images" / "none.png"


# --- MDX, Zola -----------------------------------------------------------------------------


def test_indented_children_of_a_component_are_markdown_not_code() -> None:
    body = (
        '<Tabs>\n  <Tab title="npm">\n    Install it:\n\n    ```bash\n    npm i foo\n    ```\n'
        '  </Tab>\n</Tabs>\n\n<Accordion title="Reasoning">\n    Reasoning is **inferred**.\n'
        "</Accordion>\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert re.search(r"<(strong|b)\b[^>]*>inferred</", html), channel
        assert "Install it:" in words(html) and "&lt;Tab" not in html and "<Tab" not in html
        assert html.count("<pre") == 1  # the fence, and only it, is code


def test_steps_keep_their_numbers() -> None:
    body = (
        '<Steps>\n<Step title="申请应用">\n拿到 AppID。\n</Step>\n'
        '<Step title="理解模型">\n三个对象。\n</Step>\n</Steps>\n'
    )
    text = words(shown(body, "zhihu"))
    assert text.index("1. 申请应用") < text.index("2. 理解模型")


def test_zolas_shortcodes_are_what_they_stand_for(body_warnings: BodyWarnings) -> None:
    body = (
        'Intro.\n\n{{ youtube(id="QDaqS7rL7kA") }}\n\n{% note(kind="warning") %}\n'
        "A body shortcode keeps **its markdown**.\n{% end %}\n\n"
        '{{ gist(url="https://gist.github.com/k/e5") }}\n\n```rs\n{{/* video(id="a") */}}\n```\n'
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "youtube.com/watch?v=QDaqS7rL7kA" in html and "gist.github.com/k/e5" in html
        assert "{%" not in html and "youtube(" not in html and "gist(" not in html
        assert "注意" in words(html)  # the warning's callout
        code = words(html).replace("&quot;", '"').replace("&nbsp;", " ")
        assert "{{ video(" in code and "/*" not in code  # shown, as Zola shows it
    unread = '{% chat(speaker="user") %}\n问题？\n{% end %}\n'
    assert any("a Zola shortcode" in w for w in body_warnings(unread))
    assert not any("Jekyll" in w for w in body_warnings(unread))


@pytest.mark.parametrize(
    ("written", "seen"),
    [
        ('{{/* youtube(id="a") */}}', '{{ youtube(id="a") }}'),
        ("{{/* page.title */}}", "{{ page.title }}"),
        ("{{</* youtube abc */>}}", "{{< youtube abc >}}"),
        ("{{%/* notice info */%}}", "{{% notice info %}}"),
    ],
)
def test_a_shortcode_shown_as_an_example_is_words_on_every_channel(
    body_warnings: BodyWarnings, written: str, seen: str
) -> None:
    # Zola's and Hugo's way to show a shortcode in a post about them: it was warned of as
    # a shortcode or template variable that goes out as literal text, which it should.
    body = f"写 {written} 即可。\n\n{written}\n\n```\n{written}\n```\n"
    for channel in CHANNELS:
        text = words(shown(body, channel)).replace("&quot;", '"').replace("&lt;", "<")
        text = text.replace("&gt;", ">").replace("&nbsp;", " ").replace("\\", "")
        assert text.count(seen) == 3 and "/*" not in text, (channel, text)
    assert body_warnings(body) == []


# --- Jupyter, WordPress, MyST --------------------------------------------------------------


def test_a_jupyter_tables_style_with_a_blank_line_is_left_out_whole() -> None:
    body = (
        "正文。\n\n<div>\n<style scoped>\n    .dataframe tbody tr th {\n        vertical-align: "
        "middle;\n    }\n\n    .dataframe thead th {\n        text-align: right;\n    }\n"
        "</style>\n<table><tr><th>a</th></tr><tr><td>1</td></tr></table>\n</div>\n\n"
        "```html\n<style>\np {}\n\nq {}\n</style>\n```\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert ".dataframe" not in html and re.search(r"<td\b[^>]*>1</td>", html), channel
        assert "q {}" in words(html).replace("&nbsp;", " ")  # code keeps its blank line


def test_a_style_tag_named_in_code_leaves_the_paragraphs_after_it_apart() -> None:
    # `<style>` in a code span and a later `</style>` read as one element: the blank lines
    # between were filled, the paragraphs merged, and '/**/' went out as words.
    body = "用 `<style>` 写样式。\n\n第二段。\n\n再用 `</style>` 关上。\n"
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "/**/" not in html and "/\\*\\*/" not in html, channel
        assert words(html).count("第二段") == 1
    zhihu = shown(body, "zhihu")
    assert "<p>第二段。</p>" in zhihu


def test_php_in_raw_html_is_named_for_every_channel(tmp_path: Path) -> None:
    from crosspost.check.lint import check_file

    path = tmp_path / "issue.md"
    path.write_text(
        "---\ntitle: wp\n---\n<p>类：\n<?php\nclass Usuario {</p>\n<p>}\n?></p>\n\n"
        '[gallery ids="1,2"]\n\nSee [video] here.\n',
        encoding="utf-8",
    )
    messages = [(p.line, p.channel, p.message) for p in check_file(path).problems]
    php = [m for m in messages if "'<?php' begins PHP's code" in m[2]]
    assert {(line, channel) for line, channel, _ in php} == {(5, "wechat"), (5, "zhihu")}
    wordpress = [line for line, _, message in messages if "WordPress shortcode" in message]
    assert wordpress == [10]  # '[video]' in a sentence is words


def test_wordpress_captions_code_and_embeds_read_as_wordpress_shows_them(
    body_warnings: BodyWarnings,
) -> None:
    # Each went out as written: the picture never uploaded, the code as a paragraph.
    body = (
        '[caption id="attachment_12" align="aligncenter" width="300"]<a href="https://e.com/'
        'big.png"><img class="size-medium" src="https://e.com/a.png" alt="图" width="300" />'
        "</a> 架构图说明[/caption]\n\n"
        '[caption id="" width="640"]![](https://e.com/b.png) Markdown 的图[/caption]\n\n'
        '[code language="python"]\ndef f(x):\n    return [x]\n[/code]\n\n'
        "[sourcecode lang=css]\na { color: red }\n[/sourcecode]\n\n"
        "[embed]https://www.youtube.com/watch?v=abc[/embed]\n\n"
        "[youtube https://www.youtube.com/watch?v=def]\n\n"
        '[audio mp3="https://e.com/a.mp3"]\n\n正文用 `[code]` 和 [caption] 两个词。\n'
    )
    zhihu = shown(body, "zhihu")
    assert '<img src="https://e.com/a.png" data-caption="架构图说明"' in zhihu
    assert '<img src="https://e.com/b.png" data-caption="Markdown 的图"' in zhihu
    assert '<pre lang="python">def f(x):\n    return [x]</pre><pre lang="css">' in zhihu
    for video in ("abc", "def"):
        assert f'<a href="https://www.youtube.com/watch?v={video}">▶ 视频</a>' in zhihu
    assert '<a href="https://e.com/a.mp3">' in zhihu
    assert "<p>正文用 <code>[code]</code> 和 [caption] 两个词。</p>" in zhihu
    assert "caption]" not in zhihu.replace("<code>[code]</code> 和 [caption]", "")
    wechat = shown(body, "wechat")
    assert "big.png" not in wechat and "[/code]" not in wechat
    assert not [w for w in body_warnings(body) if "shortcode" in w]


def test_myst_roles_targets_and_named_equations_read_as_the_book_shows_them() -> None:
    body = (
        "(sec:setup)=\n## Setting up\n\n$$\ny = a x\n$$ (eq:line)\n\n$$\nz = 1\n$$ (7)\n\n"
        "By {eq}`eq:line`, see {ref}`sec:setup`, {ref}`the intro <intro>`, {doc}`eigen_I`, "
        "{cite}`doe2020`, {math}`a^2` and {kbd}`Ctrl-C`.\n"
    )
    zhihu = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "sec:setup" not in zhihu and "{" not in zhihu.replace("\\tag{", "")
    assert "\\tag{1}" in zhihu and "\\tag{7}" in zhihu  # named: numbered; a number stays
    assert (
        "By (1), see Setting up, the intro, eigen\\_I, \\[doe2020\\], $a^2$ and `Ctrl-C`." in zhihu
    )
    wechat = shown(body, "wechat")
    assert "(1)" in words(wechat) and "eq:line" not in wechat and wechat.count("<svg") == 3


def test_obsidian_admonition_plugin_blocks_are_callouts_of_markdown() -> None:
    body = (
        "```ad-note\ntitle: 这是一个笔记\ncollapse: open\n\n定义一个函数，**注意**参数。\n```\n\n"
        "```ad-warning\n不要在生产环境这样做。\n```\n\n```ad-recipe\n自己的种类。\n```\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "<pre" not in html and "ad-note" not in html and "collapse" not in html
        assert re.search(r"<(strong|b)\b[^>]*>注意</", html)
        for title in ("这是一个笔记", "注意", "Recipe"):  # its title, its kind's label, its name
            assert title in words(html), (channel, title)


# --- sub- and superscripts -----------------------------------------------------------------


def test_sub_and_superscripts_where_they_are_one() -> None:
    body = "H~2~O, x^2^, 2^10^ = 1024, x^-1^, 1^st^ and A^T^.\n"
    wechat = shown(body, "wechat")
    for written in ("H<sub>2</sub>O", "x<sup>2</sup>", "2<sup>10</sup>", "x<sup>-1</sup>"):
        assert written in wechat
    zhihu = render(issue_of(body), "zhihu", RenderContext())
    for made in (zhihu.body, zhihu.files["zhihu.md"]):
        assert "H₂O, x², 2¹⁰ = 1024, x⁻¹, 1ˢᵗ and A^(T)." in made.replace("\\", "")


@pytest.mark.parametrize(
    "words_written",
    ["开心 ^_^ 哈哈 ^_^", "5~10分钟，或者 20~30分钟", "版本 ~1.2~ 之间", "cp ~/a.txt ~/b.txt"],
)
def test_tildes_and_carets_of_everyday_writing_stay(words_written: str) -> None:
    for channel in CHANNELS:
        html = shown(words_written + "\n", channel)
        assert words_written in html and "<sub" not in html and "<sup" not in html, channel


# --- links no reader can follow, diagrams ------------------------------------------------


def test_check_names_links_no_reader_can_follow(tmp_path: Path) -> None:
    from crosspost.check.lint import check_file

    path = tmp_path / "issue.md"
    path.write_text(
        "---\ntitle: 链接\n---\n正文 [a]({filename}/posts/a.md) 说明。\n\n"
        "[Share](%%share_url%%) 分享。\n\nSee [x](myst-parser:syntax) 和 [mail](mailto:a@b.c)。\n\n"
        '<p align="center"><a href="CONTRIBUTING.md">Contributing</a> · '
        '<a href="https://x.com">X</a></p>\n\n读 <a href="/parte-2">Parte 2</a> 吧。\n\n'
        "[ok](https://e.com) 与 [tel](tel:10086)。\n",
        encoding="utf-8",
    )
    named = {
        p.line: p.message for p in check_file(path).problems if p.message.startswith("the link to")
    }
    assert sorted(named) == [4, 6, 8, 10, 12]
    assert "path on your site" in named[4] and "path on your site" in named[10]
    assert "placeholder" in named[6] and "reference of the tool" in named[8]
    assert "Share" in words(shown("[Share](%%share_url%%) 分享。\n", "wechat"))


def test_a_diagram_in_raw_html_is_named(body_warnings: BodyWarnings) -> None:
    body = '正文。\n\n<pre class="mermaid">\ngraph TD\n  A-->B\n</pre>\n'
    assert any("a mermaid diagram" in w for w in body_warnings(body))


def test_logseq_page_properties_are_the_front_matter(tmp_path: Path) -> None:
    # The title was the file's name and the properties were left out as block ones.
    path = tmp_path / "page.md"
    path.write_text(
        "title:: Logseq 页面标题\ntags:: [[AI]], 周报, #[[机器 学习]]\n\n- 第一块内容。\n", "utf-8"
    )
    issue = read_issue(path)
    assert issue.title == "Logseq 页面标题"
    assert issue.settings("zhihu").options["topics"] == ("AI", "周报", "机器 学习")
    assert (issue.body, issue.body_line) == ("- 第一块内容。\n", 4)


def test_logseq_properties_logbooks_and_block_references_are_not_published() -> None:
    body = (
        "- 第一块内容。\n  id:: 6955f017-3afe-40ae-aace-e9135f5d8e62\n  collapsed:: true\n"
        "\t- 引用 ((6944e6d6-c813-41f6-becf-d915bfad330d)) 之后的话\n"
        "- Ctrl+Enter 切换\n  :LOGBOOK:\n  CLOCK: [2024-01-07 Sun 11:09:57]\n  :END:\n"
        "- C++ 的 std::vector 与 Haskell 的 map :: (a -> b) 照常。\n"
    )
    for channel in CHANNELS:
        text = words(shown(body, channel))
        for hidden in ("id::", "collapsed", "6944e6d6", "LOGBOOK", "CLOCK", ":END:"):
            assert hidden not in text, (channel, hidden)
        for kept in ("第一块内容。", "之后的话", "Ctrl+Enter 切换", "std::vector", "map :: (a"):
            assert kept in text.replace("&gt;", ">"), (channel, kept)


def test_a_logseq_block_of_properties_alone_leaves_no_empty_bullet() -> None:
    # '- tags:: 读书' went out as a bullet with nothing after it, on both channels.
    body = "- tags:: 读书, 效率\n- 正文一\n  collapsed:: true\n\n正文\n\n"
    body += "- id:: 6955f017-aaaa\n\n尾\n"  # a list of one such block goes altogether
    assert shown(body, "zhihu") == "<ul><li>正文一</li></ul><p>正文</p><p>尾</p>"
    assert shown(body, "wechat").count("•") == 1


def test_a_writers_own_properties_are_shown_one_to_a_line() -> None:
    # Roam's attributes and Dataview's fields ('Author:: Jane') were deleted with Logseq's
    # hidden properties, in any document and without a word; Chinese ones were kept but
    # ran into one line on WeChat.
    body = (
        "- How to Take Smart Notes\n    - Takeaway:: write every idea in your own words\n\n"
        "Author:: Jane\nStatus:: reading\n\n作者:: 李雷\n阅读时间:: 8 分钟\n\n"
        "- 正文\n  id:: 6955f017-aaaa\n  logseq.order-list-type:: number\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<li>Takeaway: write every idea in your own words</li>" in zhihu
    assert "<p>Author: Jane<br>Status: reading</p>" in zhihu
    assert "<p>作者: 李雷<br>阅读时间: 8 分钟</p>" in zhihu
    assert "6955f017" not in zhihu and "order-list" not in zhihu
    assert "作者: 李雷<br>阅读时间: 8 分钟" in shown(body, "wechat")


UUID = "6655f017-1a2b-4c3d-9e8f-0123456789ab"


def test_a_logseq_block_reference_leaves_a_mark_and_a_warning_at_its_line(
    body_warnings: BodyWarnings,
) -> None:
    # '参考了 ((uuid)) 的讨论' went out as '参考了 的讨论', and nothing said so, even with -v:
    # Logseq shows the referenced block's words there, and they are not in the file.
    body = f"- 正文\n- 参考了 (({UUID})) 的讨论，见 [上次的结论]((({UUID})))。\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "参考了 […] 的讨论，见 上次的结论。" in text, channel
        assert UUID not in text, channel
    assert body_warnings(body) == [
        f"issue.md:5: warning: '(({UUID}))' is a Logseq block reference: Logseq shows the "
        "words of that block here, which are in your graph, not in this file, so readers "
        "see '[…]' in their place; paste the block's text here",
        f"issue.md:5: warning: '[上次的结论]((({UUID})))' links to a block of your Logseq "
        "graph: no reader outside it can follow it, so only its words are shown; write "
        "[text](url) to link",
    ]


def test_logseqs_macros_read_as_logseq_shows_them_and_warn_quoting_the_source(
    body_warnings: BodyWarnings,
) -> None:
    # Each went out as written, check calling it a "static-site template variable" and
    # quoting '{{embed}}', which the file does not hold (the reference had been cut out).
    body = (
        "- {{embed [[推理优化笔记]]}}\n"
        f"- {{{{embed (({UUID}))}}}}\n"
        "- {{video https://www.youtube.com/watch?v=dQw4w9WgXcQ}}\n"
        "- 核心是 {{cloze 自注意力}}，代码 `{{cloze 不动}}` 不动。\n"
        "- {{query (task TODO DOING)}}\n"
        "- 尾\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu == (
        "<ul><li>推理优化笔记</li><li>[…]</li>"
        '<li><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">▶ 视频</a></li>'
        "<li>核心是 自注意力，代码 <code>{{cloze 不动}}</code> 不动。</li><li>尾</li></ul>"
    )
    wechat = shown(body, "wechat")
    assert "{{" not in words(wechat).replace("{{cloze 不动}}", "") and "query" not in wechat
    assert wechat.count("•") == 5  # the query's bullet went with it
    assert body_warnings(body) == [
        "issue.md:4: warning: '{{embed [[推理优化笔记]]}}' is Logseq's embed of the page "
        "'推理优化笔记', whose text is in your graph, not in this file, so readers see only "
        "the page's name in its place; paste the text here",
        f"issue.md:5: warning: '{{{{embed (({UUID}))}}}}' is Logseq's embed of a block, "
        "whose text is in your graph, not in this file, so readers see '[…]' in its place; "
        "paste the text here",
        "issue.md:8: warning: '{{query (task TODO DOING)}}' is filled in by Logseq from the "
        "rest of your graph, which is not in this file, so it is left out; copy in what it "
        "showed if readers need it",
    ]


def test_logseq_tasks_are_task_items_without_their_planning_lines() -> None:
    body = (
        "- TODO [#A] 发布新版\n  SCHEDULED: <2024-05-03 Fri>\n- DOING 整理对比表\n"
        "- DONE 修复 bug\n  DEADLINE: <2024-05-01 Wed 10:00>\n- CANCELED 迁移\n"
        "- LATER 看论文\n  collapsed:: true\n- ![图](a.png){:height 300, :width 500}\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith(
        "<ul><li>☐ 发布新版</li><li>☐ 整理对比表</li><li>☑ 修复 bug</li>"
        '<li>☐ 迁̶移̶</li><li>☐ 看论文</li><li><img src="a.png"'
    )
    wechat = shown(body, "wechat")
    assert "SCHEDULED" not in wechat and "DEADLINE" not in wechat and "{:" not in wechat
    assert "<s>迁移</s>" in re.sub(r' style="[^"]*"', "", wechat)
    assert "width:500px;height:300px" in wechat
    # Outside a page Logseq wrote, a list's first word is the writer's.
    assert shown("- NOW 上线了\n- TODO 这是词\n", "zhihu") == (
        "<ul><li>NOW 上线了</li><li>TODO 这是词</li></ul>"
    )


def test_pictures_among_words_or_badges_stay_in_their_line_on_wechat() -> None:
    body = (
        "Badges: [![ci](https://e.com/ci.svg)](https://e.com) ![v](https://e.com/v.svg) 文字\n\n"
        "![banner](https://e.com/b.png)\n老司机周报。\n\n"
        '<p align="center">\n  <a href="https://e.com/a"><img src="https://e.com/a.svg"></a>\n'
        '  <img height="20" src="https://e.com/flag.png">\n</p>\n\n'
        '<p align="center"><img src="https://e.com/logo.png"></p>\n\n'
        '点 <img src="https://e.com/gear.png" width="16"> 打开设置。\n\n'
        '<img src="https://e.com/alone.png">\n'
    )
    html = shown(body, "wechat")
    inline = re.findall(r'<img[^>]*display:inline-block[^>]*src="([^"]+)"', html)
    assert inline == [
        "https://e.com/ci.svg", "https://e.com/v.svg", "https://e.com/a.svg",
        "https://e.com/flag.png", "https://e.com/gear.png",
    ]  # fmt: skip
    lone = ("https://e.com/b.png", "https://e.com/logo.png", "https://e.com/alone.png")
    for alone in lone:  # a line of its own
        assert re.search(rf'<img[^>]*display:block[^>]*src="{re.escape(alone)}"', html)


def test_a_percent_sign_written_twice_after_a_number_is_no_comment() -> None:
    body = (
        "涨了 50%%，跌了 20%%。\n\n增长 50%% 以上\n\n中间段落。\n\n降低 20%% 以下\n\n"
        "面积 r ^2 与 2 ^10\n"
    )
    text = words(shown(body, "zhihu"))
    for kept in (
        "涨了 50%%，跌了 20%%。",
        "增长 50%% 以上",
        "中间段落。",
        "降低 20%% 以下",
        "r ^2 与 2 ^10",
    ):
        assert kept in text, kept


# --- a third sweep: knitr, pkgdown, GitBook, pumpkin-book -----------------------------------


def test_a_formula_closed_inside_a_line_keeps_the_paragraphs_after_it() -> None:
    # Everything up to the next line ending in '$$' was one formula: three paragraphs
    # drawn as TeX on WeChat and one equation image on Zhihu.
    body = "$$a\n+b$$其中文字\n\n第二段。\n\n第三段 $$r=1$$\n\n$$\nc=d\n$$ (1)\n"
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "第二段。" in text and "第三段" in text and "其中文字" in text, channel
    assert shown(body, "wechat").count("<svg") == 3


def test_code_in_raw_html_stays_code_with_its_blank_lines_and_language() -> None:
    # knitr's and pkgdown's chunks: a name linked to its docs got a reference number in
    # the code on WeChat ('library[1](ISLR)'), and a blank line ended the raw block, so
    # the rest of the code went out as paragraphs.
    body = (
        '<div class="layout-chunk">\n<div class="sourceCode"><pre class="sourceCode r">'
        "<code class=\"sourceCode r\"><a href='https://rdrr.io/r/base/library.html'>library"
        "</a>(ISLR)\n\nx &lt;- 1\n</code></pre></div>\n</div>\n\n之后。\n\n"
        '<pre class="language-bash"><code class="lang-bash">echo hi\n</code></pre>\n'
    )
    wechat = shown(body, "wechat")
    assert "library(ISLR)<br><br>x&nbsp;&lt;-&nbsp;1" in wechat
    assert "rdrr.io" not in wechat and "[1]" not in wechat
    zhihu = shown(body, "zhihu")
    assert '<pre lang="r">library(ISLR)\n\nx &lt;- 1</pre><p>之后。</p>' in zhihu
    assert '<pre lang="bash">echo hi</pre>' in zhihu
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "```r\nlibrary(ISLR)\n\nx <- 1\n```\n\n之后。\n\n```bash\necho hi\n```" in markdown
    # a raw block that is only code is a code block like a fence's: coloured on WeChat
    assert re.search(r'<span style="color:#[0-9A-Fa-f]+">echo</span>', wechat)


def test_what_kramdown_hides_is_not_published(body_warnings: BodyWarnings) -> None:
    # The comment was published (only its markers went), each abbreviation's definition
    # was a line of the article, and '{: .table}' one more row of the table.
    body = (
        "可见。\n\n{::comment}\n私下的备注\n{:/comment}\n\n句中{::comment}隐藏{:/}的词"
        '{::options parse_block_html="true" /}。\n\n{::nomarkdown}\n<p>原样的 HTML</p>\n'
        "{:/nomarkdown}\n\nW3C 和 HTML。\n\n*[W3C]: World Wide Web Consortium\n\n"
        "| A | B |\n|---|---|\n| 1 | 2 |\n{: .table}\n\n"
        "```\n{::comment}\n代码照旧\n{:/comment}\n*[X]: y\n```\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        text = words(html).replace("&nbsp;", " ")
        for hidden in ("私下的备注", "隐藏", "options", "nomarkdown", "World Wide", ".table"):
            assert hidden not in text.replace("代码照旧", ""), (channel, hidden)
        assert "句中的词。" in text and "原样的 HTML" in text and "*[X]: y" in text, channel
        assert html.count("<tr>") == 2, channel
    assert body_warnings(body) == []


def test_attribute_lists_with_spaces_in_their_values_are_left_out() -> None:
    body = (
        '![图](https://e.com/a.png){fig-alt="Screenshot of output."}\n\n'
        'See [docs](https://e.com){title="Open the docs"}, *red*{: style="color: red"} and '
        "`x`{.python}.\n"
    )
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "{" not in text and "Screenshot" not in text, (channel, text)
    assert 'data-caption="图"' in shown(body, "zhihu")  # a picture alone: a figure


def test_mkdocs_admonitions_hold_their_blank_lines_and_sit_inline() -> None:
    # Two blank lines closed the admonition, and the rest went out as code; 'inline end'
    # was not read, and the line was shown.
    body = (
        '!!! note "T"\n    First.\n\n\n    Second.\n\n'
        "!!! info inline end\n    Side text.\n\n"
        '??? tip inline "Folded"\n    Folded text.\n\nAfter.\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu == (
        "<blockquote><b>T</b><br>First.<br>Second.</blockquote>"
        "<blockquote><b>信息</b><br>Side text.</blockquote>"
        "<blockquote><b>Folded</b><br>Folded text.</blockquote><p>After.</p>"
    )


@pytest.mark.parametrize(
    ("tex", "bare", "number"),
    [("E=mc^2 \\tag{3}", "E=mc^2", "(3)"), ("\\tag*{A} x = 1", "x = 1", "A")],
)
def test_an_equations_number_is_drawn_beside_it_within_a_phones_width(
    tex: str, bare: str, number: str
) -> None:
    """ziamath put a \\tag at the right end of a 600-pixel line: on a phone (375 pixels
    wide, 16-pixel text) the number was scrolled off the screen."""
    wechat, plain = (shown(f"$$\n{each}\n$$\n", "wechat") for each in (tex, bare))
    found = re.search(r'<svg[^>]*style="width:([\d.]+)em', wechat)
    assert found and float(found.group(1)) * 16 < 343  # the phone less the margins
    assert wechat.count("<path") == plain.count("<path") + len(number)  # the number's glyphs
    assert f'aria-label="{tex}"' in wechat  # a reader's label keeps what was written


def test_an_equation_numbered_first_and_hexos_doubled_braces_are_drawn() -> None:
    # pumpkin-book writes '\tag{6.4}' first, which ziamath could not read; Hexo's posts
    # double the backslash of a set's brace. Both came out as TeX in code on WeChat.
    body = "$$\\tag{6.4} \\gamma =\\frac{2}{||w||}$$\n\n集合 $A = \\\\{1, 2\\\\}$ 的元素。\n"
    wechat = shown(body, "wechat")
    assert wechat.count("<svg") == 2 and "<code" not in wechat
    assert "A = \\{1, 2\\}" in render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]


def test_zhihu_keeps_an_email_address_a_highlight_and_the_levels_the_body_uses() -> None:
    # HelloGitHub's contact address was lost on Zhihu (it links to the web only), <mark>
    # became plain text, and '##' then '####' made the second level a bold line.
    body = (
        '联系 <a href="mailto:a@example.com">联系我</a>。\n\n'
        '<p>或 <a href="mailto:c@example.com">c@example.com</a></p>\n\n'
        "## 一\n\n#### 行注释\n\n文字 <mark>高亮</mark>。\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<p>联系 联系我（a@example.com）。</p><p>或 c@example.com</p>" in zhihu
    assert "<h2>一</h2><h3>行注释</h3><p>文字 <b>高亮</b>。</p>" in zhihu


def test_zhihus_markdown_writes_a_video_as_a_link_and_volantis_links_keep_their_words(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        "{% youtube FOXNlZFkbPk %}\n\n"
        "{% link 配置与使用, /site-settings/configuration/, https://cdn.e.com/icon.svg %}\n"
    )
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert markdown.startswith(
        "[▶ 视频](https://www.youtube.com/watch?v=FOXNlZFkbPk)\n\n配置与使用"
    )
    assert "icon.svg" not in markdown
    assert any("'/site-settings/configuration/' is a path" in w for w in body_warnings(body))


def test_what_raw_html_hides_from_the_reader_is_named(body_warnings: BodyWarnings) -> None:
    # A component or a Hexo tag inside a <div> went out as nothing, or as written,
    # and check said nothing.
    body = (
        '正文。\n\n<div class="options-api">\n  <VueSchoolLink href="https://v.io/l" />\n'
        '</div>\n\n<div align="center">\n<p>{% btn https://a.example.com,文字 %}</p>\n</div>\n\n'
        "<div>\n<pre>{% raw %} 代码 {% endraw %}</pre>\n</div>\n"
    )
    said = body_warnings(body)
    assert [w.split(": warning: ")[0] for w in said] == ["issue.md:7", "issue.md:11"]
    assert "'<VueSchoolLink />' is an MDX component inside raw HTML" in said[0]
    assert said[1].endswith(
        "(it stands inside raw HTML, where nothing is read as Markdown: a blank line above "
        "and below it lets crosspost read what it can)"
    )


def test_markdown_between_a_wrappers_tag_lines_is_read(body_warnings: BodyWarnings) -> None:
    # Typora's centred pictures, Notion's callouts and toggles: the picture went out as the
    # words '![图](…)', a list as one line, a tag as written.
    body = (
        '<div align="center">\n![图](https://e.com/a.png)\n</div>\n\n<details>\n'
        "<summary>展开</summary>\n- 列表一\n- 列表二\n</details>\n\n<aside>\n💡 **重点** 见 "
        "[博客](https://e.com/b)。\n</aside>\n\n<center>\n{% btn https://e.com/c,文字 %}\n"
        "</center>\n\n<div>\n<p>只是 *HTML*</p>\n</div>\n"
    )
    zhihu = shown(body, "zhihu")
    assert '<img src="https://e.com/a.png" data-caption="图"' in zhihu
    assert "<p><b>展开</b></p><ul><li>列表一</li><li>列表二</li></ul>" in zhihu
    assert '<p>💡 <b>重点</b> 见 <a href="https://e.com/b">博客</a>。</p>' in zhihu
    assert '<p><a href="https://e.com/c">文字</a></p>' in zhihu
    assert "<p>只是 *HTML*</p>" in zhihu  # a wrapper around HTML: CommonMark's block of HTML
    assert "![" not in shown(body, "wechat") and body_warnings(body) == []


def test_mkdocs_keys_and_code_annotation_marks_read_as_the_site_shows_them() -> None:
    # '++ctrl+alt+del++' was shown with its pluses; Quarto's '# <1>' and MkDocs's
    # '# (2)!' stayed in the code, unlike the numbers the list under it refers to.
    body = (
        "Press ++ctrl+alt+del++ or ++cmd+c++. C++ and i++ stay, `++a++` too.\n\n"
        '```python\nimport os # <1>\nx = 1 # (2)!\ny = "<3>"\n```\n\n1. imports\n2. sets\n'
    )
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "Press `Ctrl+Alt+Del` or `Cmd+C`. C++ and i++ stay, `++a++` too." in markdown
    assert 'import os # (1)\nx = 1 # (2)\ny = "<3>"' in markdown


def test_volantis_and_gitbook_blocks_read_as_the_site_shows_them(
    body_warnings: BodyWarnings,
) -> None:
    # Each went out as written ('{% timenode 2021/07/15 %}'), the date with it.
    body = (
        "{% timeline 建站史, blue %}\n\n{% timenode 2021/07/15 %}\n第一次部署。\n"
        "{% endtimenode %}\n\n{% endtimeline %}\n\n{% noteblock idea, 小提示 %}\n一段**提示**。\n"
        "{% endnoteblock %}\n\n{% btn, 文档, https://docs.example.com, fas fa-book %}\n\n"
        '{% content-ref url="setup.md" %}\n[setup.md](https://e.com/setup)\n'
        "{% endcontent-ref %}\n"
    )
    assert shown(body, "zhihu") == (
        "<p><b>建站史</b></p><p><b>2021/07/15</b></p><p>第一次部署。</p>"
        "<blockquote><b>小提示</b><br>一段<b>提示</b>。</blockquote>"
        '<p><a href="https://docs.example.com">文档</a></p>'
        '<p><a href="https://e.com/setup">setup.md</a></p>'
    )
    assert body_warnings(body) == []


def test_a_table_of_site_paths_is_one_warning_that_counts_them(
    body_warnings: BodyWarnings,
) -> None:
    # HelloGitHub's README table gave 45 warning lines, one per cell.
    body = "| a | b |\n|---|---|\n| [x](/a) | [y](/b) |\n| [z](/c) | w |\n\n[p](/d) 段落。\n"
    said = [w for w in body_warnings(body) if "is a path on your site" in w]
    assert [w.split(" is a path")[0] for w in said] == [
        "issue.md:6: warning: the link to '/a' (and 2 more in this table)",
        "issue.md:9: warning: the link to '/d'",
    ]


def test_a_tags_quote_keeps_its_code_and_an_empty_badge_leaves_nothing(
    body_warnings: BodyWarnings,
) -> None:
    body = '{% u 请点击上方`更新日志`按钮 %} 和 `{% x %}`。\n\n新功能 <sup class="vt-badge ts" />\n'
    said = [w for w in body_warnings(body) if "template tag" in w]
    assert len(said) == 1 and "'{% u 请点击上方`更新日志`按钮 %}'" in said[0]
    for channel in CHANNELS:
        assert "<sup" not in shown(body, channel).split("新功能")[1], channel


def test_a_raw_summary_is_a_bold_title_on_both_channels() -> None:
    # Notion's exports nest <details>; each summary read as one more paragraph.
    body = (
        "<details>\n<summary>外层标题</summary>\n\n外层内容。\n\n<details>\n"
        "<summary>内层标题</summary>\n\n内层内容。\n\n</details>\n\n</details>\n"
    )
    assert shown(body, "zhihu") == (
        "<p><b>外层标题</b></p><p>外层内容。</p><p><b>内层标题</b></p><p>内层内容。</p>"
    )
    assert shown(body, "wechat").count('<section style="font-weight:700">') == 2


def test_a_pandoc_grid_table_is_a_table(body_warnings: BodyWarnings) -> None:
    # It went out as one paragraph of '+', '-' and '|'.
    body = (
        "+-----------+--------+----------------+\n| Fruit     | Price  | Advantages     |\n"
        "+===========+=======:+================+\n| Bananas   | $1.34  | - wrapper      |\n"
        "|           |        | - bright color |\n+-----------+--------+----------------+\n"
        "| Oranges   | $2.10  | **cures**      |\n|           |        | scurvy         |\n"
        "+-----------+--------+----------------+\n\n+---+---+\n| a | b |\n+---+---+\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<tr><th>Fruit</th><th>Price</th><th>Advantages</th></tr>" in zhihu
    assert "<tr><td>Bananas</td><td>$1.34</td><td>- wrapper<br>- bright color</td></tr>" in zhihu
    assert "<tr><td>Oranges</td><td>$2.10</td><td>cures scurvy</td></tr>" in zhihu
    assert "<tbody><tr><td>a</td><td>b</td></tr></tbody>" in zhihu  # no header: a body
    wechat = shown(body, "wechat")
    assert "<thead>" in wechat and "text-align:right" in wechat and "+---" not in wechat
    assert body_warnings(body) == []


def test_a_pandoc_simple_table_is_a_table_aligned_as_its_header_stands(
    body_warnings: BodyWarnings,
) -> None:
    # Its header became a paragraph, its dashes a rule and its rows one line of words.
    body = (
        "  Right     Left     Center     Default\n-------     ------ ----------   -------\n"
        "     12     12        12            12\n    123     苹果   **甜**       x\n\n"
        "word over\n--- ---\n\n标题\n----\n\n正文\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<tr><th>Right</th><th>Left</th><th>Center</th><th>Default</th></tr>" in zhihu
    # A Chinese character is two columns wide, as Pandoc counts them.
    assert "<tr><td>123</td><td>苹果</td><td>甜</td><td>x</td></tr>" in zhihu
    assert zhihu.endswith("<p>word over</p><hr><h2>标题</h2><p>正文</p>")  # no row: no table
    aligns = re.findall(r"<th[^>]*?text-align:(\w+)", shown(body, "wechat"))
    assert aligns == ["right", "left", "center", "left"]  # Default: the theme's left
    assert body_warnings(body) == []


def test_a_pandoc_table_caption_is_the_tables_caption_above_or_below_it() -> None:
    # 'Table: 表一 价格' went out as a sentence of the article, prefix and all.
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    body = f"Table: 表一 *价格*\n\n{table}\n: 表二\n\n正文 Table: 不是说明\n\nTable: 也不是\n"
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith("<p>表一 <i>价格</i></p><table")
    assert "</table><p>表二</p><p>正文 Table: 不是说明</p><p>Table: 也不是</p>" in zhihu
    wechat = shown(body, "wechat")
    captions = re.findall(r'<p style="([^"]*)">(表[一二])', wechat)
    assert [words for _, words in captions] == ["表一", "表二"]
    assert all("text-align:center" in style and "font-size:.8em" in style for style, _ in captions)
    assert "Table:" not in words(wechat).replace("Table: 不是说明", "").replace("Table: 也不是", "")


def test_a_pandoc_line_block_keeps_its_lines_without_its_bars() -> None:
    body = (
        "| The limerick packs laughs anatomical\n| In space that is quite economical.\n"
        "|    But the good ones I've seen\n\n| a | b |\n"
    )
    assert shown(body, "zhihu").startswith(
        "<p>The limerick packs laughs anatomical<br>In space that is quite economical.<br>"
        "\u00a0\u00a0\u00a0But the good ones I've seen</p>"
    )
    # A line that begins with a space continues the one before it.
    continued = "| The Right Honorable Samuel L.\n  Constable, Jr.\n| 200 Main St.\n"
    assert shown(continued, "zhihu") == (
        "<p>The Right Honorable Samuel L. Constable, Jr.<br>200 Main St.</p>"
    )


# --- a fourth sweep: Juejin, Jianshu, Yuque, Youdao, mdnice, cnblogs --------------------------


def test_zhihu_shows_a_picture_linked_to_itself_as_the_picture_alone() -> None:
    # A reference to the picture's own file, or its address in a line under it.
    body = (
        "正文。\n\n[![](https://e.com/a.png)](https://e.com/a.png)\n\n"
        "[![](https://e.com/a.png)](https://e.com/big/a.jpg)\n\n"
        "[![logo](https://e.com/l.png)](https://e.com/site)\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.count("<img") == 3 and "big/a.jpg" not in zhihu and "[1]" not in zhihu
    assert '<a href="https://e.com/site">' in zhihu  # a page, not a picture: still linked
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "big/a.jpg" not in markdown and "https://e.com/site" in markdown


def test_jianshu_yuque_and_youdao_markup_reads_as_their_editors_show_it(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        'A <font style="color:#DF2A3F;">红字</font> 结束。\n\nA 行一</br>\n行二\n\n'
        "==**注意：同为64位**== 和 **粗==亮==体**。\n\n> ###把Block保存成属性\n"
    )
    wechat = shown(body, "wechat")
    assert '<span style="color:#DF2A3F">红字</span>' in wechat
    assert "A 行一<br>行二" in wechat
    zhihu = shown(body, "zhihu")
    assert "<b>注意：同为64位</b> 和 <b>粗亮体</b>" in zhihu and "<b><b>" not in zhihu
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "**注意：同为64位** 和 **粗亮体**" in markdown
    assert any("'###把Block保存成属性' is not a heading" in w for w in body_warnings(body))


def test_yuque_formula_pictures_are_their_formulas(check_lines: CheckLines) -> None:
    # Each was an SVG picture WeChat refuses: check called it an error and said to export
    # it as PNG. Its TeX rides in the address.
    latex = "https://cdn.nlark.com/yuque/__latex/e358efa489f58062f10dd7316b65649e.svg"
    body = (
        f"时步![]({latex}#card=math&code=t&id=JNXIO)，激活"
        f"![]({latex}#card=math&code=a%5E%7B%3Ct%3E%7D&id=N7XGK)。\n\n"
        "![](https://yuque.zju.edu.cn/images/yuque/__latex/8ec8f1234e.svg"
        "#card=math&code=10%5E7%0A&height=19&width=24)\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.count('eeimg="1"') == 2 and "cdn.nlark.com" not in zhihu
    assert 'eeimg="2"' in zhihu and 'alt="10^7\\\\"' in zhihu  # alone: a display formula
    wechat = shown(body, "wechat")
    assert wechat.count("<svg") == 3 and "<img" not in wechat
    assert 'aria-label="a^{&lt;t&gt;}"' in wechat
    lines = check_lines(f"---\ntitle: 公式\n---\n{body}")
    assert not [line for line in lines if "SVG" in line], lines


def test_yuque_font_colours_in_rgb_and_highlights_keep_their_look_on_wechat() -> None:
    body = (
        '<font style="background-color:#FBDE28;">黄底</font>、'
        '<font style="color:rgb(223, 42, 63);background-color:#FBDE28;">红字黄底</font>、'
        '<font style="color:#DF2A3F;">红字</font>。\n'
    )
    wechat = shown(body, "wechat")
    assert '<span style="background-color:#FBDE28">黄底</span>' in wechat
    assert '<span style="color:rgb(223,42,63);background-color:#FBDE28">红字黄底</span>' in wechat
    assert '<span style="color:#DF2A3F">红字</span>' in wechat
    assert "<p>黄底、红字黄底、红字。</p>" in shown(body, "zhihu")


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_bold_the_author_coloured_keeps_the_authors_colour(theme: str) -> None:
    body = "<font color=red>**重要**</font> 和 **普通**。\n"
    wechat = render(issue_of(body), "wechat", RenderContext(theme=theme)).body
    assert '<span style="color:red"><strong style="color:inherit">重要</strong></span>' in wechat
    assert re.search(r'<strong style="color:#\w+">普通</strong>', wechat)


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_bold_the_author_only_highlighted_keeps_the_themes_colour(theme: str) -> None:
    # The rule for coloured words matched any style with "color" in it: bold on a yellow
    # highlight lost the theme's colour, though its words had none of their own.
    body = (
        '<span style="background-color:#FBDE28">**黄底**</span>、'
        '<font style="color:#DF2A3F;background-color:#FBDE28">**红字黄底**</font>、'
        '<span style="background-color: #FBDE28; color: #DF2A3F">**黄底红字**</span>、'
        '<span style="border-color:red">**红框**</span>、**普通**。\n'
    )
    wechat = render(issue_of(body), "wechat", RenderContext(theme=theme)).body
    bold = {
        words: colour
        for colour, words in re.findall(r'<strong style="color:([^"]+)">([^<]+)<', wechat)
    }
    assert bold["普通"].startswith("#")
    assert bold["黄底"] == bold["红框"] == bold["普通"]
    assert bold["红字黄底"] == bold["黄底红字"] == "inherit"  # the words' own red


def test_mdnice_slides_and_rubies_and_indented_notes_with_links(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        "<![蓝](https://e.com/b.jpg),![绿](https://e.com/g.jpg)>\n\n"
        "简直是{喜大普奔|hē hē hē hē}呀！集合 {x|x>0} 不变。\n\n"
        "## 二\n\n    原理：给外层容器设置 `transform` 属性\n\n    详见：[源代码](https://github.com/a/b)\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith('<img src="https://e.com/b.jpg"') and zhihu.count("<img") == 2
    assert "&lt;" not in zhihu.split("<h2>")[0] and "," not in words(zhihu.split("<h2>")[0])
    assert "简直是喜大普奔（hē hē hē hē）呀！集合 {x|x&gt;0} 不变。" in zhihu
    assert any("indented four spaces" in w for w in body_warnings(body))


def test_a_pandoc_citation_is_named_and_a_handle_or_address_is_not(
    body_warnings: BodyWarnings,
) -> None:
    cited = body_warnings("As shown [@doe2020; see @roe99, p. 3].\n")
    assert any("is a Pandoc citation" in w for w in cited)
    quiet = "Ask [@foo](https://x.com/foo), write to [a@b.com] or [me](mailto:a@b.com).\n"
    assert not any("Pandoc citation" in w for w in body_warnings(quiet))


# --- a fifth sweep: English posts of Pandoc, Jekyll and Medium -----------------------------


def test_pandocs_fancy_list_lines_and_bracketed_spans_read_as_pandoc_shows_them() -> None:
    # CommonMark joins the lines of a fancy list into one, and keeps a span's brackets.
    body = (
        "a. one\nb. two\n\n(iv) x\n(v) y\n\n#. auto\n#. auto\n\n"
        "[Small caps]{.smallcaps} and [kept]{not attributes}\n\nwritten by\nA. Smith, e.g.\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<p>a. one<br>b. two</p><p>(iv) x<br>(v) y</p><p>1. auto<br>2. auto</p>" in zhihu
    assert "<p>Small caps and [kept]{not attributes}</p>" in zhihu
    assert "<p>written by A. Smith, e.g.</p>" in zhihu  # prose keeps being joined


def test_pandocs_attribute_lists_and_spans_wrapped_over_lines_are_left_out() -> None:
    # Pandoc and html2text wrap at 72 or 78 columns: a Medium picture's '{.graf-image' /
    # 'width="300"}' and '[27' / 'months]{.underline}' went out as written, and so did a
    # span whose words hold a link. Brackets that pair otherwise, or braces of words, stay.
    body = (
        'A picture ![](https://e.com/a.png){.graf-image\nwidth="300"} and words.\n\n'
        "It took [27\nmonths]{.underline} to ship.\n\n"
        'Read [see [here](https://x.y)]{.mark} now, [a *b*\nc]{.x\nkey="v w"} too.\n\n'
        "[a] b]{.x} and [kept\nas]{written here} stay.\n\n`[code]{.x}` is code.\n"
    )
    for channel in CHANNELS:
        text = " ".join(words(shown(body, channel)).split())
        for said in ("A picture and words.", "It took 27 months to ship.", "now, a b c too."):
            assert said in text, (channel, said)
        assert "[a] b]{.x} and [kept as]{written here} stay." in text, channel
        assert "[code]{.x} is code." in text and "graf-image" not in text, channel
    assert "width:300px" in shown(body, "wechat")  # the list's size is the picture's
    assert '<p>Read see <a href="https://x.y">here</a> now, a <i>b</i> c too.</p>' in shown(
        body, "zhihu"
    )


def test_addresses_without_a_scheme_are_https_and_a_gists_script_is_a_link(
    check_lines: CheckLines,
) -> None:
    # '//imgur.com/x' led nowhere outside its page; a gist's <script> went without a word.
    body = (
        "See [a](//imgur.com/x) and [b][1].\n\n[1]: //e.com/b\n\n"
        '<a href="//e.com/raw">raw</a>\n\n'
        '<script src="https://gist.github.com/jdoe/1a2b.js?file=a.py"></script>\n'
    )
    zhihu = shown(body, "zhihu")
    for address in ("https://imgur.com/x", "https://e.com/b", "https://e.com/raw"):
        assert f'<a href="{address}">' in zhihu
    assert '<p><a href="https://gist.github.com/jdoe/1a2b">▶ 嵌入内容</a></p>' in zhihu
    assert "https://gist.github.com/jdoe/1a2b" in words(shown(body, "wechat"))
    gist = [line for line in check_lines("---\ntitle: t\n---\n" + body) if "gist" in line]
    assert len(gist) == 2 and all("shown as a line linking to its source" in g for g in gist)


def test_a_reference_definition_with_attributes_still_defines_its_picture() -> None:
    # '{width=50%}' after the address kept the definition from being read: the picture
    # went out as the words '![Fig][img1]' and was never uploaded.
    body = (
        "![Fig][img1] and [l].\n\n[img1]: https://e.com/a.png {width=50%}\n"
        '[l]: https://e.com/l "T" {: .c}\n\n```\n[c]: x {y}\n```\n'
    )
    zhihu = shown(body, "zhihu")
    assert '<img src="https://e.com/a.png"' in zhihu and '<a href="https://e.com/l">l</a>' in zhihu
    assert "{width" not in zhihu and "[c]: x {y}" in zhihu  # code stays as written


def test_a_raw_figures_caption_is_its_pictures_caption_on_zhihu() -> None:
    # The caption was a paragraph under a picture captioned with nothing.
    body = (
        '<figure>\n<img src="https://e.com/a.png" alt="a">\n<figcaption>图一：架构</figcaption>\n'
        '</figure>\n\n<figure><img src="https://e.com/b.png"><figcaption>Photo by '
        '<a href="https://u.com/x">X</a></figcaption></figure>\n'
    )
    zhihu = shown(body, "zhihu")
    assert '<img src="https://e.com/a.png" data-caption="图一：架构"' in zhihu
    assert "<p>图一：架构</p>" not in zhihu
    # A caption holding a link stays a line of its own, linked.
    assert '<p>Photo by <a href="https://u.com/x">X</a></p>' in zhihu


def test_an_emoji_joined_of_several_stays_one_on_wechat() -> None:
    # WeChat's zero-width characters are left out, and the joiner went with them:
    # 🧑‍💻 came out as 🧑💻, two pictures.
    body = "程序员🧑\u200d💻，家庭👨\u200d👩\u200d👧。a\u200db\u200bc\n"
    wechat = words(shown(body, "wechat"))
    assert "程序员🧑\u200d💻，家庭👨\u200d👩\u200d👧。abc" in wechat


def test_a_formula_between_bracket_lines_is_drawn_under_text_in_lists_and_quotes() -> None:
    # ChatGPT sets display formulas so: under a line of text they were '[ a = b + c ]'.
    body = (
        "所以：\n\\[\na = b + c\n\\]\n\n- 项目：\n  \\[\n  x^2\n  \\]\n\n"
        "> 引用：\n> \\[\n> y\n> \\]\n\n```\n\\[\ncode\n\\]\n```\n"
    )
    zhihu = shown(body, "zhihu")
    for tex in ("a%20%3D%20b%20%2B%20c", "x%5E2", "tex=y"):
        assert tex in zhihu, tex
    assert "[ a" not in zhihu and '<pre lang="">\\[\ncode\n\\]</pre>' in zhihu
    assert shown(body, "wechat").count("<svg") == 3


def test_a_lazy_loaded_picture_is_the_picture_its_data_src_names(tmp_path: Path) -> None:
    # Copied from WeChat or CSDN: the picture was left out, or the 1×1 placeholder shown.
    gif = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
    body = (
        '<p><img class="rich_pages wxw-img" data-src="https://e.com/a.png"></p>\n\n'
        f'<img data-src="https://e.com/b.png" src="{gif}">\n\n'
        '<img src="https://e.com/real.png" data-src="https://e.com/other.png">\n'
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        for name in ("a", "b", "real"):
            assert f'src="https://e.com/{name}.png"' in html, (channel, name)
        assert "base64" not in html and "other.png" not in html


def test_a_lazy_pictures_first_real_address_wins_over_stand_ins() -> None:
    # An empty data-src before data-original read as the address '" data-original=',
    # and about:blank in src was kept, though both only stand in for the picture.
    body = (
        '<img data-src="" data-original="https://e.com/a.png">\n\n'
        '<img src="about:blank" data-src="https://e.com/b.png">\n'
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert 'src="https://e.com/a.png"' in html and 'src="https://e.com/b.png"' in html
        assert "about:blank" not in html and "&quot;" not in html


def _beside_a_spaced_picture(tmp_path: Path, body: str) -> Path:
    """An issue of ``body`` with the picture ``assets/my image.png`` beside it."""
    from PIL import Image

    (tmp_path / "assets").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "assets" / "my image.png")
    path = tmp_path / "issue.md"
    path.write_text(f"---\ntitle: t\n---\n{body}", encoding="utf-8")
    return path


def test_check_reads_a_raw_pictures_path_with_a_space(tmp_path: Path) -> None:
    from crosspost.check.lint import check_file

    path = _beside_a_spaced_picture(
        tmp_path, '<img src="assets/my image.png" alt="架构">\n\n<img data-src="assets/gone.png">\n'
    )
    found = [(p.line, p.message) for p in check_file(path).problems if "image '" in p.message]
    # It was cut at the space: "image 'assets/my' not found", and publish refused.
    assert [line for line, _ in found] == [6] and "'assets/gone.png' not found" in found[0][1]


def test_a_path_with_a_bare_space_is_read_as_typora_reads_it(tmp_path: Path) -> None:
    from crosspost.check.lint import check_file

    path = _beside_a_spaced_picture(
        tmp_path, '![图](assets/my image.png "标题") 与 [不是](这是 一句话)\n\n`![x](a b.png)`\n'
    )
    # The picture went out as the words '![图](assets/my image.png "标题")', unchecked.
    assert not [p for p in check_file(path).problems if "image '" in p.message]
    zhihu = render(read_issue(path), "zhihu", RenderContext()).body
    assert '<img src="assets/my image.png" data-caption="标题"' in zhihu
    assert "[不是](这是 一句话)" in zhihu and "<code>![x](a b.png)</code>" in zhihu


def test_a_web_address_with_a_bare_space_is_a_link_not_its_words() -> None:
    # A search pasted as typed: the sentence went out as '[搜索](https://…?q=hello world)'.
    body = (
        "看[搜索](https://a.com/s?q=hello world)，[c](https://a.com/q?x=a b 'c')，"
        "[d](https://a.com/d) (注意 空格)\n"
    )
    wechat = shown(body, "wechat")
    assert "看搜索[1]，c[2]，d[3] (注意 空格)" in words(wechat)
    assert "https://a.com/s?q=hello%20world" in words(wechat)
    zhihu = shown(body, "zhihu")
    assert '<a href="https://a.com/s?q=hello%20world">搜索</a>' in zhihu
    assert '<a href="https://a.com/q?x=a%20b">c</a>' in zhihu


def test_link_references_are_numbered_after_the_writers_own_reference_list() -> None:
    # The article had two different [1]: the writer's paper and the link's reference.
    body = (
        "论文提到[1]，另见 [博客](https://b.com)[^n]。\n\n参考文献\n\n"
        "[1] Vaswani et al. Attention is all you need.\n【2】 另一篇\n\n[^n]: 注\n"
    )
    text = words(shown(body, "wechat"))
    assert "论文提到[1]，另见 博客[3][4]。" in text
    assert "[3]&nbsp;博客: https://b.com" in text and "[4]&nbsp;注" in text
    # Without a list of the writer's own, a bracketed number in a sentence changes nothing.
    assert "博客[1]" in words(shown("见第[2]条与 [博客](https://b.com)。\n", "wechat"))


def test_a_raw_note_links_number_is_bracketed_not_run_into_the_figure() -> None:
    # Substack's and Ghost's footnotes: '90.0%1' on both channels.
    body = (
        '达到 90.0%<a class="footnote-anchor" href="#footnote-1">1</a>，超过。\n\n'
        '<p>块内 90%<a href="#fn2">2</a> 完</p>\n\n见 <a href="https://e.com">3</a>。\n'
    )
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "达到 90.0%[1]，超过。" in text and "块内 90%[2] 完" in text, channel
    assert '<a href="https://e.com">3</a>' in shown(body, "zhihu")  # a web link's words stay
    # The same notes as markdownify and turndown write them: 'grew 40%1 in 20232.'
    written = "增长 40%[1](#footnote-1)，在 2023[2](#fn2)。见 [3](https://e.com)。\n"
    for channel in CHANNELS:
        assert "增长 40%[1]，在 2023[2]。" in words(shown(written, channel)), channel


def test_a_video_sites_player_in_a_frame_is_a_video_linked_to_its_page() -> None:
    # It was '▶ 嵌入内容' linking to the bare player.
    body = (
        '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ?si=x"></iframe>\n\n'
        '<iframe src="//player.bilibili.com/player.html?aid=1&bvid=BV1xx411c7mD"></iframe>\n\n'
        '<iframe src="https://example.com/widget"></iframe>\n'
    )
    assert shown(body, "zhihu") == (
        '<p><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">▶ 视频</a></p>'
        '<p><a href="https://www.bilibili.com/video/BV1xx411c7mD">▶ 视频</a></p>'
        '<p><a href="https://example.com/widget">▶ 嵌入内容</a></p>'
    )


def test_a_raw_tables_spanned_cells_keep_every_cell_under_its_column_on_zhihu() -> None:
    # Zhihu's table spans nothing: '项目 C 第二行' slid under the number column.
    body = (
        '<table><tr><th colspan="2">本周榜单</th></tr>\n<tr><td rowspan="2">3</td>'
        "<td>C 第一行</td></tr>\n<tr><td>C 第二行</td></tr>\n<tr><td>4</td><td>D</td></tr>"
        "</table>\n"
    )
    assert (
        "<tr><th>本周榜单</th><th></th></tr><tr><td>3</td><td>C 第一行</td></tr>"
        "<tr><td></td><td>C 第二行</td></tr><tr><td>4</td><td>D</td></tr>"
    ) in shown(body, "zhihu")
    wechat = shown(body, "wechat")
    assert 'colspan="2"' in wechat and 'rowspan="2"' in wechat  # WeChat spans them


def test_a_linked_pictures_caption_is_shown_on_wechat_as_on_zhihu() -> None:
    # WeChat showed the picture and its reference mark, with no caption.
    body = (
        '[![](https://e.com/a.png "图三：链接到网页")](https://example.com/page3)\n\n'
        '[![](https://e.com/c.png "自链")](https://e.com/c.png)\n'
    )
    wechat = re.sub(r' (?:style|class)="[^"]*"', "", shown(body, "wechat"))
    assert (
        '<img alt="" src="https://e.com/a.png"><figcaption>图三：链接到网页<sup>[1]</sup>' in wechat
    )
    assert '<img alt="" src="https://e.com/c.png"><figcaption>自链</figcaption>' in wechat
    assert 'data-caption="图三：链接到网页"' in shown(body, "zhihu")


def test_a_link_around_blocks_keeps_its_words_apart_in_wechats_references() -> None:
    # Ghost's bookmark card: '[1] PagedAttentionEfficient memory management.…'.
    body = (
        '<figure class="kg-card"><a href="https://arxiv.org/abs/2309.06180"><div>'
        "<div>PagedAttention</div><div>Efficient memory management.</div></div></a></figure>\n"
    )
    wechat = words(shown(body, "wechat"))
    assert "[1]&nbsp;PagedAttention Efficient memory management.: https://arxiv.org" in wechat


def test_a_path_from_the_sites_root_is_found_in_its_static_folder(tmp_path: Path) -> None:
    from PIL import Image

    from crosspost.check.lint import check_file

    # Typora's typora-root-url: ./static, as Hugo keeps its files: '/img/pic.png' was
    # "not found", and the field was called unused.
    (tmp_path / "static" / "img").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "static" / "img" / "pic.png")
    path = tmp_path / "issue.md"
    path.write_text(
        "---\ntitle: t\ntypora-root-url: ./static\n---\n![图片](/img/pic.png)\n", "utf-8"
    )
    problems = [p.message for p in check_file(path).problems]
    assert not [m for m in problems if "pic.png" in m or "typora" in m], problems


def test_a_picture_with_no_address_is_named_as_such(tmp_path: Path) -> None:
    from crosspost.check.lint import check_file

    path = tmp_path / "issue.md"
    path.write_text("---\ntitle: t\n---\n正文。\n\n![]()\n", "utf-8")
    said = [(p.line, p.message) for p in check_file(path).problems if "image '" in p.message]
    # It was "image '' is a folder; name an image file".
    assert said == [(6, "image '' names no picture; write its path or address in the ( )")]


def test_markdown_in_a_one_line_wrapper_is_read_and_its_link_kept(
    body_warnings: BodyWarnings,
) -> None:
    # A centred footer's link went out as '[点击订阅](…)' on both channels, unsaid.
    body = (
        "<center>👉 [点击订阅](https://e.com/sub) 👈</center>\n\n"
        '<p align="center">**感谢阅读**，下周见！</p>\n\n<p>plain <b>x</b> [y]</p>\n'
    )
    zhihu = shown(body, "zhihu")
    assert '<p>👉 <a href="https://e.com/sub">点击订阅</a> 👈</p>' in zhihu
    assert "<p><b>感谢阅读</b>，下周见！</p><p>plain <b>x</b> [y]</p>" in zhihu
    wechat = words(shown(body, "wechat"))
    assert "👉 点击订阅[1] 👈" in wechat and "https://e.com/sub" in wechat
    assert re.search(r'<p style="[^"]*text-align:center[^"]*"><strong', shown(body, "wechat"))
    assert body_warnings(body) == []


def test_an_emails_layout_table_is_read_as_its_content_on_zhihu() -> None:
    # Each row went out as a table of one cell, its links turned into words.
    body = (
        '<table width="100%"><tr><td>\n<table><tr><td><h2>This week</h2></td></tr>\n'
        '<tr><td><p><a href="https://e.com/node">Node.js 24 Becomes LTS</a> — new.</p></td>'
        "</tr>\n</table>\n</td></tr></table>\n\n"
        "<table><tr><td>单格数据</td></tr><tr><td>第二行</td></tr></table>\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith(
        '<h2>This week</h2><p><a href="https://e.com/node">Node.js 24 Becomes LTS</a> — new.</p>'
    )
    assert "<tr><td>单格数据</td></tr><tr><td>第二行</td></tr>" in zhihu  # data stays a table


def test_a_pandoc_multiline_table_keeps_its_rows_and_makes_no_heading() -> None:
    # Pandoc writes one for any table with a line break in a cell (Word files): one row
    # was a table, the others paragraphs, and a row over the closing dashes a heading.
    body = (
        "  -------------------------------------------\n"
        "  Name                 Status\n"
        "  -------------------- ----------------------\n"
        "  Build                passing\n\n"
        "  Deploy               line one\\\n"
        "                       line two\n\n"
        "  Burn / month         $305k, up\n"
        "                       from $300k\n"
        "  -------------------------------------------\n\n"
        "正文\n\n---\n\n不是表\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.count("<tr>") == 4 and "<h2" not in zhihu
    assert "<tr><td>Deploy</td><td>line one<br>line two</td></tr>" in zhihu
    assert "<tr><td>Burn / month</td><td>$305k, up from $300k</td></tr>" in zhihu
    assert zhihu.endswith("<p>正文</p><hr><p>不是表</p>")


@pytest.mark.parametrize(
    ("body", "zhihu", "wechat"),
    [
        # Glued to its word: a subscript (ASCII), a superscript (ASCII or CJK); a tilde
        # between Chinese words joins them.
        ("水是 H~2~O。", "<p>水是 H₂O。</p>", "H<sub>2</sub>O"),
        ("化学~下标~ 和 数学^上标^。", "<p>化学~下标~ 和 数学^(上标)。</p>", "学<sup>上标</sup>"),
        ("杭州~黄山~婺源 一线。", "<p>杭州~黄山~婺源 一线。</p>", "杭州~黄山~婺源"),
        # After a space, punctuation or at a line's start: a strikethrough on GitHub, a
        # wavy line in doocs/md. Shown as written, and check says how to strike it out.
        ("这个 ~删除~ 的字，~旧价~。", "<p>这个 ~删除~ 的字，~旧价~。</p>", "这个 ~删除~"),
        ("~整行删除~", "<p>~整行删除~</p>", "~整行删除~"),
        # A range, a path, a smile: the writer's words.
        ("5~10分钟，20~30~", "<p>5~10分钟，20~30~</p>", "5~10分钟"),
        ("~/path 与 ~/other", "<p>~/path 与 ~/other</p>", "~/path"),
        ("好的^_^。", "<p>好的^_^。</p>", "^_^"),
    ],
)
def test_one_tilde_is_a_subscript_when_glued_to_its_word_else_the_words_written(
    body: str, zhihu: str, wechat: str
) -> None:
    assert shown(body, "zhihu") == zhihu
    assert wechat in shown(body, "wechat")


def test_one_tilde_around_words_is_named_once_with_how_to_strike_them_out(
    check_lines: CheckLines,
) -> None:
    document = "---\ntitle: 检查\n---\n这个 ~删除~ 的字，~旧价格~ 也是。\n"
    found = [line for line in check_lines(document) if "one tilde" in line]
    assert found == [
        "issue.md:4: note: '~删除~' (and 1 more) is shown as written: one tilde strikes "
        "words out on GitHub, makes a subscript in Typora and a wavy line in doocs/md; "
        "write '~~…~~' to strike them out"
    ]


# --- a fifth sweep: Google Docs, Pandoc from Word, Zhihu converters, 135editor, Joplin ---------


_REPORT = "2024 年第三季度报告"
_WEEKLY = "AI 周报 #42：模型、工具与观点"


@pytest.mark.parametrize(
    ("document", "title"),
    [
        # Pandoc's Word bookmark on the line above the title, or inside it.
        (f'<span id="_Toc151234567" class="anchor"></span>\n\n# {_REPORT}\n', _REPORT),
        (f'<a name="top"></a>\n# {_REPORT}\n', _REPORT),
        (f'# <span id="_Toc1" class="anchor"></span>{_REPORT}\n', _REPORT),
        # Google Docs' id of the heading's words: CJK, '#', '：' and '、'.
        ("# **AI 周报 \\#42：模型、工具与观点** {#ai-周报-#42：模型、工具与观点}\n", _WEEKLY),
    ],
)
def test_an_anchor_around_the_first_heading_leaves_it_the_title(
    tmp_path: Path, document: str, title: str
) -> None:
    path = tmp_path / "report.md"
    path.write_text(f"{document}\n正文。\n", encoding="utf-8")
    issue = read_issue(path, lenient=True)
    assert issue.title == title
    assert not [n for n in issue.notices if n.code == "no-title"]
    for channel in CHANNELS:
        assert "{#" not in words(render(issue, channel, RenderContext()).body)


def test_google_docs_heading_ids_of_any_characters_are_left_out() -> None:
    body = (
        "## **Plan (Q3)** {#plan-(q3)}\n\n## What’s new? {#what’s-new?}\n\n"
        "## 本周要点 {#h.3znysh7}\n\n## 集合 {a b}\n\n## 只有 {#}\n"
    )
    assert shown(body, "zhihu") == (
        "<h2><b>Plan (Q3)</b></h2><h2>What’s new?</h2><h2>本周要点</h2>"
        "<h2>集合 {a b}</h2><h2>只有 {#}</h2>"  # words in braces, and a lone '#', stay
    )


def test_empty_anchors_are_left_out_and_a_paragraph_of_them_with_them() -> None:
    body = (
        '<span id="_Toc1" class="anchor"></span>**摘要**：正文<a id="x"></a>。\n\n'
        '<a name="top"></a>\n\n第一行\n<a id="mid"></a>\n第二行\n\n'
        '`<a name="z"></a>` 是锚点的写法。\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu == (
        "<p><b>摘要</b>：正文。</p><p>第一行第二行</p>"
        "<p><code>&lt;a name=&quot;z&quot;&gt;&lt;/a&gt;</code> 是锚点的写法。</p>"
    )
    assert "<strong" in shown(body, "wechat").split("摘要")[0]


_EQUATION = "https://www.zhihu.com/equation?tex="


def test_zhihu_equation_pictures_are_their_formulas(check_lines: CheckLines) -> None:
    # Each was a picture of www.zhihu.com that check could not download.
    body = (
        f"其中 ![[公式]]({_EQUATION}%5Calpha+%2B+1) 是常数，"
        f'<img src="{_EQUATION}i" alt="i" eeimg="1"/> 是下标。\n\n'
        f"![[公式]]({_EQUATION}PE_%7B%28pos%2C2i%29%7D+%3D+x)\n\n"  # alone: display
        f"由此 ![[公式]]({_EQUATION}a%3Db+%5C%5C) 得证。\n\n"  # marked display: its own line
        f'<img src="{_EQUATION}E%3Dmc%5E2" alt="E=mc^2" eeimg="1">\n'
    )
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert markdown == (
        "其中 $\\alpha + 1$ 是常数，$i$ 是下标。\n\n$$PE_{(pos,2i)} = x\\\\$$\n\n"
        "由此\n\n$$a=b\\\\$$\n\n得证。\n\n$$E=mc^2\\\\$$\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.count('eeimg="1"') == 2 and zhihu.count('eeimg="2"') == 3
    wechat = shown(body, "wechat")
    assert wechat.count("<svg") == 5 and "zhihu.com" not in wechat and "<img" not in wechat
    lines = check_lines(f"---\ntitle: 公式\n---\n{body}")
    assert not [line for line in lines if "zhihu.com" in line], lines


def test_a_math_fence_is_a_display_formula() -> None:
    body = "欧拉公式：\n\n```math\ne^{i\\pi} + 1 = 0\n```\n"
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert markdown == "欧拉公式：\n\n$$e^{i\\pi} + 1 = 0\\\\$$\n"
    wechat = shown(body, "wechat")
    assert "<svg" in wechat and "<pre" not in wechat and "e^{i" not in words(wechat)


@pytest.mark.parametrize("empty", ["```math\n```", "$$\n$$", "见 $$ $$ 处"])
def test_an_empty_formula_is_left_out_and_named(empty: str, check_lines: CheckLines) -> None:
    # WeChat showed '$$$$' in code and Zhihu drew an empty equation ('\\').
    body = f"前文\n\n{empty}\n\n后文\n"
    for channel in CHANNELS:
        out = shown(body, channel)
        assert "$$" not in out and "eeimg" not in out and "<svg" not in out, (channel, out)
        assert "前文" in words(out) and "后文" in words(out)
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "$" not in markdown
    lines = check_lines(f"---\ntitle: 公式\n---\n{body}")
    assert (
        "issue.md:6: note: an empty formula is left out of every channel; write its TeX, "
        "or delete it" in lines
    ), lines


def test_html_indented_inside_raw_html_is_html_and_a_tutorials_stays_code(
    check_lines: CheckLines,
) -> None:
    # 135editor's HTML, indented: CommonMark reads the indented lines as code.
    pasted = (
        '<section data-role="outer" label="Powered by 135editor.com">\n'
        '    <section style="text-align: center;">\n'
        "        <span><strong>01 / 本期书单</strong></span>\n"
        "    </section>\n\n"
        '    <p style="text-indent: 2em;">\n'
        "        <span>秋天是读书的好季节。</span>\n"
        "    </p>\n"
        "</section>\n"
    )
    for channel in CHANNELS:
        shown_html = shown(pasted, channel)
        assert "&lt;" not in shown_html and "<pre" not in shown_html, channel
        assert "秋天是读书的好季节。" in words(shown_html)
    lines = check_lines(f"---\ntitle: 书单\n---\n{pasted}")
    # The outer section's first lines are one block of HTML as CommonMark reads it; the
    # lines after the blank line are the indented ones.
    assert "issue.md:9: note: these 3 lines are HTML indented four spaces" in "\n".join(lines)
    tutorial = '用这样的 HTML 居中：\n\n    <div align="center">\n      <p>文字</p>\n    </div>\n'
    assert "&lt;div align=&quot;center&quot;&gt;" in shown(tutorial, "zhihu")
    after_closed = "<section>\n<p>一</p>\n</section>\n\n    <p>代码</p>\n"
    assert "<pre" in shown(after_closed, "zhihu")


def test_a_pandoc_page_break_alone_on_its_line_is_left_out() -> None:
    body = "甲\n\n\\newpage\n\n乙\n\\pagebreak\n丙\n\n```tex\n\\newpage\n```\n"
    for channel in CHANNELS:
        seen = words(shown(body, channel))
        assert "pagebreak" not in seen and seen.count("newpage") == 1  # the code's


def test_inserted_text_is_underlined_and_keys_stay_keys() -> None:
    body = "++插入的文字++ and ++inserted++; ++ctrl+c++, ++enter++, C++ and g++.\n"
    wechat = shown(body, "wechat")
    assert "<ins>插入的文字</ins>" in wechat and "++inserted++" in wechat
    assert "Ctrl+C</code>" in wechat and "Enter</code>" in wechat
    assert "C++ and g++." in wechat
    assert "<u>插入的文字</u>" in shown(body, "zhihu")
    # A language, a compiler and code between two '++' are no inserted text.
    prose = "用C++写，用g++编译。C++语言和C++标准库。Use ++i and j++ in loops.\n"
    for channel in CHANNELS:
        assert "<ins>" not in shown(prose, channel) and "<u>" not in shown(prose, channel)


def test_obsidians_task_states_are_tasks() -> None:
    body = "- [>] 推迟\n- [/] 进行中\n- [!] 重要\n- [-] 取消\n- [x] 完成\n- [?]\n"
    wechat = shown(body, "wechat")
    for words_ in ("推迟", "进行中", "重要"):
        assert f"☐&nbsp;</span>{words_}" in wechat
    assert re.search(r"☐&nbsp;</span><s[^>]*>取消</s>", wechat)
    assert "☑&nbsp;</span>完成" in wechat and "[&gt;]" not in wechat
    assert "☐ 推迟" in shown(body, "zhihu")


def test_what_only_looks_like_an_id_or_a_notes_back_link_stays() -> None:
    # A heading about a pattern or a template's tag, and a link back to the page's top,
    # are the writer's; an id and a note's way back to its mark are not.
    body = "## 正则 {#[a-z]+}\n\n## Jinja {#comment#}\n\n## Plan (Q3) {#plan-(q3)}\n\n[↑](#top)\n"
    assert shown(body, "zhihu") == (
        "<h2>正则 {#[a-z]+}</h2><h2>Jinja {#comment#}</h2><h2>Plan (Q3)</h2><p>↑</p>"
    )


# --- a sixth sweep: CSDN, Feishu, Substack, Yuque, Roam, Logseq ------------------------------

_FAILED = "外链图片转存失败,源站可能有防盗链机制,建议将图片保存下来直接上传"


def test_csdns_note_that_it_could_not_copy_a_picture_is_the_picture_and_a_warning(
    body_warnings: BodyWarnings,
) -> None:
    # The note in the picture's place went out as CSDN's sentence on every channel, the
    # picture lost; as a picture's alt text it was the caption under it on WeChat. Nothing
    # said so.
    body = (
        "前文。\n\n"
        f"[{_FAILED}(img-Ab3dEfGh-1615775123456)(https://img-blog.csdnimg.cn/a.png)]\n\n"
        f"![{_FAILED}](https://img-blog.csdnimg.cn/img_convert/b.png)\n\n"
        "见图 ![外链图片转存中...(img-VRoIfQcB-1623229848000)(https://e.com/c.png)] 和"
        " ![外链图片转存中...(img-XyZ-1623229848000)]。\n\n"
        "`[外链图片转存失败(img-x)(https://e.com/d.png)]` 是代码。\n"
    )
    zhihu = shown(body, "zhihu")
    for picture in ("img-blog.csdnimg.cn/a.png", "img-blog.csdnimg.cn/img_convert/b.png"):
        assert f'<img src="https://{picture}" data-caption=""' in zhihu, picture
    assert '<img src="https://e.com/c.png" data-caption=""' in zhihu
    wechat = shown(body, "wechat")
    assert wechat.count("<img") == 3 and "<figcaption" not in wechat
    for channel, html in (("zhihu", zhihu), ("wechat", wechat)):
        text = words(html)
        assert "转存" not in text.replace("[外链图片转存失败(img-x)", ""), channel
        assert "img-Ab3d" not in html and "(img-x)(https://e.com/d.png)]" in text, channel
        assert "见图" in text and "和 。" in text, channel
    assert body_warnings(body) == [
        "issue.md:6: warning: '[外链图片转存失败,源站可能有防盗链机制,建议将图片保存下…' is "
        "CSDN's note that it could not copy this picture from its site (which may refuse "
        "other sites' requests): the picture at https://img-blog.csdnimg.cn/a.png is shown, "
        "without CSDN's words; check that the address shows it, or save the picture beside "
        "the issue and write ![](its-file.png) in its place",
        "issue.md:8: warning: '![外链图片转存失败,源站可能有防盗链机制,建议将图片保存…' is "
        "CSDN's note that it could not copy this picture from its site (which may refuse "
        "other sites' requests): the picture at "
        "https://img-blog.csdnimg.cn/img_convert/b.png is shown, without CSDN's words; check "
        "that the address shows it, or save the picture beside the issue and write "
        "![](its-file.png) in its place",
        "issue.md:10: warning: '![外链图片转存中...(img-VRoIfQcB-162…' is CSDN's note that "
        "it could not copy this picture from its site (which may refuse other sites' "
        "requests): the picture at https://e.com/c.png is shown, without CSDN's words; "
        "check that the address shows it, or save the picture beside the issue and write "
        "![](its-file.png) in its place",
        "issue.md:10: warning: '![外链图片转存中...(img-XyZ-16232298…' is CSDN's note that "
        "it was still copying a picture, and the file holds no address of it: nothing is "
        "shown in its place; save the picture beside the issue and write ![](its-file.png) "
        "there",
    ]


def test_a_yuque_formula_alone_in_its_paragraph_is_a_display_formula() -> None:
    # Yuque's block formula card, exported as a picture on a line of its own, was drawn in
    # a line of words on both channels: small, and left-aligned on WeChat.
    latex = "https://cdn.nlark.com/yuque/__latex/abcd.svg#card=math&code=%5Cfrac%7Ba%7D%7Bb%7D"
    body = (
        f"复杂度为 ![]({latex}&id=Zz9) 。\n\n![]({latex}&id=Zz9)\n\n"
        f'<img src="{latex.replace("&", "&amp;")}">\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.count('eeimg="1"') == 1 and zhihu.count('eeimg="2"') == 2
    assert zhihu.startswith('<p>复杂度为 <img eeimg="1"')
    wechat = shown(body, "wechat")
    centred = re.findall(r'<section style="[^"]*text-align:center">\s*<svg', wechat)
    assert len(centred) == 2 and re.search(r"<p[^>]*>复杂度为 <svg", wechat)


def test_a_fence_of_feishus_plain_text_shows_no_title_above_its_code() -> None:
    body = "```plain text\ncurl https://api.example.com/v1/health\n```\n"
    zhihu = shown(body, "zhihu")
    assert zhihu == '<pre lang="text">curl https://api.example.com/v1/health</pre>'
    wechat = shown(body, "wechat")
    assert words(wechat.split("<pre")[0]).replace("&nbsp;", "").strip() == ""  # no title


def test_org_blocks_in_a_logseq_page_are_a_quote_callouts_and_code(
    body_warnings: BodyWarnings,
) -> None:
    # Each went out as its '#+BEGIN_…' and '#+END_…' lines around its words, all joined
    # into one line: '#+BEGIN_QUOTE Premature optimization … #+END_QUOTE'.
    body = (
        "- 引用：\n  #+BEGIN_QUOTE\n  Premature optimization is the root of all evil.\n"
        "  #+END_QUOTE\n"
        "- #+BEGIN_NOTE\n  这是 Logseq 的 **note** 块。\n  #+END_NOTE\n"
        "- #+begin_warning\n  不要在生产环境运行。\n  #+end_warning\n"
        "- #+BEGIN_SRC python\n  print(1)\n  #+END_SRC\n"
        "- #+BEGIN_COMMENT\n  只给自己看\n  #+END_COMMENT\n"
        "- #+BEGIN_QUERY\n  {:query [:find (pull ?b [*])]}\n  #+END_QUERY\n"
        "- #+BEGIN_TIP\n  没有关闭\n"
    )
    assert shown(body, "zhihu") == (
        "<ul><li>引用：<blockquote>Premature optimization is the root of all evil."
        "</blockquote></li><li><blockquote><b>注</b><br>这是 Logseq 的 <b>note</b> 块。"
        "</blockquote></li><li><blockquote><b>注意</b><br>不要在生产环境运行。</blockquote>"
        '</li><li><pre lang="python">print(1)</pre></li><li>#+BEGIN_TIP 没有关闭</li></ul>'
    )
    wechat = shown(body, "wechat")
    assert re.search(r"引用：<blockquote[^>]*><p[^>]*>Premature optimization", wechat)
    for label in ("注", "注意"):  # each a callout box with its label on top
        assert re.search(rf"<section[^>]*>\s*<p[^>]*>{label}</p>", wechat), label
    assert "#+END" not in wechat and "只给自己看" not in wechat and ":query" not in wechat
    assert wechat.count("•") == 5  # the comment's and the query's bullets went with them
    assert body_warnings(body) == [
        "issue.md:20: warning: '#+BEGIN_QUERY' … '#+END_QUERY' is an advanced query, which "
        "Logseq fills in from the rest of your graph, not in this file, so it is left out; "
        "copy in what it showed if readers need it"
    ]
