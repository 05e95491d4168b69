"""Documentation sites' MDX (Mintlify, Nextra, Starlight, Docusaurus) and GitHub's release
notes, as a sweep of them found them: the words a component's attributes carry reach the
reader on both channels, a directive's attributes are the site's alone, a GitHub handle
is no citation, and the keys of a site's authors file are no author's name."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from crosspost.issue.loader import read_issue
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, CheckLines, issue_of, shown, words

WriteIssue = Callable[..., Path]
BODY = "正文足够长，可以通过检查，也足够让知乎接受。\n"

# --- a component's attributes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "bold", "content"),
    [
        # Mintlify's changelog: the date and the version (each was the date alone).
        (
            '<Update label="2024 年 10 月 12 日" description="v1.2.0" tags={["新功能"]}>\n'
            "  - 新增 Go SDK\n</Update>\n",
            "2024 年 10 月 12 日 · v1.2.0",
            "<ul><li>新增 Go SDK</li></ul>",
        ),
        # Mintlify's API fields: the field's name, type and whether it is required (each
        # was its description alone, then its name alone).
        (
            '<ResponseField name="id" type="string" required>\n  请求的唯一标识。\n'
            "</ResponseField>\n",
            "id · string · required",
            "<p>请求的唯一标识。</p>",
        ),
        (
            '<ParamField body="model" type="string" required>\n  要使用的模型。\n</ParamField>\n',
            "model · string · required",
            "<p>要使用的模型。</p>",
        ),
        (
            '<Frame caption="控制台首页">\n  ![](a.png)\n</Frame>\n',
            "控制台首页",
            '<img src="a.png"',
        ),
        # Nextra's <Details>: was read as HTML's <details>, its summary lost.
        (
            '<Details summary="高级选项">\n  折叠的内容。\n</Details>\n',
            "高级选项",
            "<p>折叠的内容。</p>",
        ),
    ],
)
def test_a_components_title_like_attribute_is_its_bold_line(
    body: str, bold: str, content: str, body_warnings: BodyWarnings
) -> None:
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith(f"<p><b>{bold}</b></p>{content}")
    wechat = shown(body, "wechat")
    assert bold in words(wechat) and "<strong" in wechat
    assert body_warnings(body) == []


def test_a_buttons_words_and_an_authors_name_are_their_link(body_warnings: BodyWarnings) -> None:
    # The buttons showed their words unlinked; the author the address alone.
    body = (
        '<LinkButton href="https://starlight.astro.build/">开始使用</LinkButton>\n\n'
        '<Button variant="primary" href="https://e.com/download">\n  下载客户端\n</Button>\n\n'
        '<Authors date="2022年12月9日">\n'
        '  <Author name="Shu Ding" link="https://twitter.com/shuding_" />\n</Authors>\n\n'
        '<Button href="https://e.com/x">\n  - 一\n  - 二\n</Button>\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu == (
        '<p><a href="https://starlight.astro.build/">开始使用</a></p>'
        '<p><a href="https://e.com/download">下载客户端</a></p>'
        '<p><a href="https://twitter.com/shuding_">Shu Ding</a></p>'
        "<ul><li>一</li><li>二</li></ul>"  # blocks, not words: shown as they are
    )
    wechat = words(shown(body, "wechat"))  # each linked by a numbered reference
    for said, address in (
        ("开始使用", "https://starlight.astro.build/"),
        ("下载客户端", "https://e.com/download"),
        ("Shu Ding", "https://twitter.com/shuding_"),
    ):
        assert said in wechat and f"{said}: {address}" in wechat
    assert body_warnings(body) == []


@pytest.mark.parametrize(
    ("body", "labels"),
    [
        # Nextra: the labels in the <Tabs>, the tabs bare (no label was shown).
        (
            "<Tabs items={['pnpm', 'npm']}>\n  <Tab>\n    pnpm add swr\n  </Tab>\n"
            "  <Tab>\n    npm i swr\n  </Tab>\n</Tabs>\n",
            ["pnpm", "npm"],
        ),
        # Docusaurus 2: the labels by value (the value was shown, 'apple').
        (
            "<Tabs\n  defaultValue=\"apple\"\n  values={[\n    {label: '苹果', value: 'apple'},\n"
            "    {label: '橙子', value: 'orange'},\n  ]}>\n"
            '<TabItem value="apple">这是苹果</TabItem>\n'
            '<TabItem value="orange">这是橙子</TabItem>\n'
            "</Tabs>\n",
            ["苹果", "橙子"],
        ),
    ],
)
def test_tabs_label_their_tabs_from_the_tabs_own_attributes(
    body: str, labels: list[str], body_warnings: BodyWarnings
) -> None:
    zhihu = shown(body, "zhihu")
    assert [found for found in labels if f"<p><b>{found}</b></p>" in zhihu] == labels
    assert "apple" not in zhihu
    assert all(label in words(shown(body, "wechat")) for label in labels)
    assert body_warnings(body) == []


def test_a_labelled_tab_and_a_card_keep_their_own_titles() -> None:
    body = (
        "<Tabs items={['a', 'b']}>\n<Tab title=\"Python\">\n\nx\n\n</Tab>\n<Tab>\n\ny\n\n</Tab>\n"
        '</Tabs>\n\n<Card title="文档" href="https://e.com" description="全部">\n卡片。\n</Card>\n'
    )
    assert shown(body, "zhihu") == (
        "<p><b>Python</b></p><p>x</p><p><b>b</b></p><p>y</p>"
        '<p><a href="https://e.com"><b>文档</b></a></p><p>卡片。</p>'
    )


# --- remark-directive: attributes in braces, leaf and text directives -------------------------


DIRECTIVES = """开头。

:::tip{icon="heart"}
Starlight 的自定义图标。
:::

:::note[自定义标题]{icon="rocket"}
带图标和标题。
:::

::youtube[演示视频]{#dQw4w9WgXcQ}

:abbr[HTML]{title="HyperText Markup Language"} 是网页的语言，`:abbr[x]{y}` 是代码。

::card[看这里]{.big}
"""


def test_a_directives_attributes_are_the_sites_and_its_words_are_shown(
    body_warnings: BodyWarnings,
) -> None:
    zhihu = shown(DIRECTIVES, "zhihu")
    assert zhihu == (
        "<p>开头。</p>"
        "<blockquote><b>提示</b><br>Starlight 的自定义图标。</blockquote>"
        "<blockquote><b>自定义标题</b><br>带图标和标题。</blockquote>"
        '<p><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">▶ 视频</a></p>'
        "<p>HTML 是网页的语言，<code>:abbr[x]{y}</code> 是代码。</p>"
        "<p>看这里</p>"
    )
    wechat = words(shown(DIRECTIVES, "wechat"))
    assert "icon" not in wechat and "::" not in wechat and ":abbr" not in wechat.split("，")[0]
    assert "自定义标题" in wechat and "HTML 是网页的语言" in wechat
    assert body_warnings(DIRECTIVES) == [
        "issue.md:18: warning: '::card[看这里]{.big}' is a directive of the site's "
        "(remark-directive) that crosspost does not know, so only its words are shown; write "
        "what it shows on the site in Markdown"
    ]


def test_a_colon_before_words_in_brackets_is_no_directive() -> None:
    body = "时间 12:30[注]{.x}，键 a:b[c]{d}，还有 ::before 伪元素。\n\n:abbr[HTML] 留着。\n"
    zhihu = shown(body, "zhihu")
    assert "12:30注" in zhihu and "a:b" in zhihu and "::before" in zhihu
    assert "<p>:abbr[HTML] 留着。</p>" in zhihu


def test_a_kbd_directive_is_a_key(body_warnings: BodyWarnings) -> None:
    # It stayed as written, brackets and all (":kbd[Ctrl]", on Zhihu ":kbd\[Ctrl\]").
    body = (
        "按 :kbd[Ctrl] + :kbd[C]{.mac} 复制，:kbd[<] 缩进，`:kbd[x]` 是代码，"
        "a:kbd[y] 与 ::kbd 不是。\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu == (
        "<p>按 <code>Ctrl</code> + <code>C</code> 复制，<code>&lt;</code> 缩进，"
        "<code>:kbd[x]</code> 是代码，a:kbd[y] 与 ::kbd 不是。</p>"
    )
    wechat = shown(body, "wechat")
    assert wechat.count("<kbd") == 3 and ">Ctrl</kbd>" in wechat and ">&lt;</kbd>" in wechat
    assert body_warnings(body) == []


def test_an_api_fields_type_and_required_are_shown_beside_its_name(
    body_warnings: BodyWarnings,
) -> None:
    # Each was its name alone; the self-closing one was left out, and check said so.
    body = (
        '<ParamField path="id" type="string" required>\n  用户的唯一标识。\n</ParamField>\n\n'
        '<ParamField query="limit" type="integer" default="20">\n  每页条数。\n</ParamField>\n\n'
        '<ResponseField name="ok" type="boolean" required={true} deprecated>是否成功。'
        "</ResponseField>\n\n"
        '<ResponseField name="tags" type="string[]" required={false} post={["可选"]}>\n'
        "  标签。\n</ResponseField>\n\n"
        '<ParamField header="Authorization" type="string" required />\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu == (
        "<p><b>id · string · required</b></p><p>用户的唯一标识。</p>"
        "<p><b>limit · integer · default: 20</b></p><p>每页条数。</p>"
        "<p><b>ok · boolean · required · deprecated</b></p><p>是否成功。</p>"
        "<p><b>tags · string[]</b></p><p>标签。</p>"
        "<p><b>Authorization · string · required</b></p>"
    )
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "**tags · string\\[\\]**" in markdown and "**id · string · required**" in markdown
    wechat = words(shown(body, "wechat"))
    assert "id · string · required" in wechat and "Authorization · string · required" in wechat
    assert body_warnings(body) == []


# --- MDX: a video's or a frame's source in JavaScript ---------------------------------------


VIDEO = ("a video (<video>, or a site's video tag)", "视频")
FRAME = ("an embedded page (<iframe>, a gist's <script>, or a site's embed tag)", "嵌入内容")


@pytest.mark.parametrize(
    ("written", "what", "label"),
    [
        ("<Video src={clip} />", *VIDEO),
        ("<video src={clip} controls />", *VIDEO),
        ("<iframe src={clip} />", *FRAME),
        ("<Video src={require('./demo.mp4').default} />", *VIDEO),
    ],
)
def test_a_video_imported_in_mdx_is_a_line_with_its_path(
    written: str, what: str, label: str, body_warnings: BodyWarnings
) -> None:
    # Each linked to '{clip}' (WeChat's list of links said so) and check said the line
    # linked to its source; Zhihu showed '▶ 视频' linking nowhere, without a word.
    body = f"import clip from './demo.mp4'\n\n介绍。\n\n{written}\n"
    assert shown(body, "zhihu") == f"<p>介绍。</p><p>▶ {label}</p>"
    wechat = words(shown(body, "wechat"))
    assert f"▶ {label}: ./demo.mp4" in wechat and "{" not in wechat
    assert body_warnings(body) == [
        f"issue.md:8: warning: {what} cannot play on any channel, and its source "
        f"'./demo.mp4' is no web address: the line '▶ {label}' shown in its place leads "
        "nowhere a reader can follow; put the file on the web and write its address (https://…)"
    ]


def test_a_source_the_post_binds_to_a_string_is_that_address() -> None:
    body = (
        "export const url = 'https://www.youtube.com/embed/dQw4w9WgXcQ'\n"
        'export const logo = "https://e.com/logo.png"\n\n'
        '<iframe src={url} />\n\n<img src={logo} alt="标志" />\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith(
        '<p><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">▶ 视频</a></p>'
        '<img src="https://e.com/logo.png"'
    )


@pytest.mark.parametrize(
    "body",
    [
        "<iframe src={props.url} />\n",
        # In a line of text, by a name nothing binds.
        "文字 <video src={clip}></video> 行内。\n",
        # Not beside the post: the site's static files, which crosspost has not.
        "import clip from '@site/static/demo.mp4'\n\n<video src={clip} controls />\n",
        # An import shown in a fence binds nothing.
        "```js\nimport clip from './demo.mp4'\n```\n\n<video src={clip}></video>\n",
    ],
)
def test_a_source_mdx_cannot_read_links_nowhere_and_is_named_once(
    body: str, body_warnings: BodyWarnings
) -> None:
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "▶ " in html and "{" not in words(html).split("▶")[-1], channel
    (warning,) = body_warnings(body)
    assert (
        "takes its address from JavaScript (src={…}), which crosspost does not run, so it is "
        "lost on every channel: only the line '▶ "
    ) in warning
    assert warning.endswith('write its web address in quotes (src="https://…")')


# --- nbconvert: a table's stylesheet ---------------------------------------------------------


def test_a_notebook_tables_stylesheet_is_named_once(body_warnings: BodyWarnings) -> None:
    # Named twice, once per channel, for one thing that both leave out alike.
    body = (
        "结果如下：\n\n<div>\n<style scoped>\n    .dataframe thead th {\n        text-align: "
        'right;\n    }\n</style>\n<table border="1" class="dataframe">\n  <tr><th>a</th>'
        "</tr>\n  <tr><td>1</td></tr>\n</table>\n</div>\n"
    )
    assert body_warnings(body) == [
        "issue.md:7: warning: <style> is shown on no channel; it is left out with what it contains"
    ]


def test_a_stylesheet_on_one_channel_only_is_that_channels(check_lines: CheckLines) -> None:
    document = "---\ntitle: T\n---\n::: only zhihu\n<style>p {}</style>\n:::\n"
    said = [line for line in check_lines(document) if "<style>" in line]
    assert said == [
        "issue.md:5: [zhihu] warning: <style> is shown on no channel; it is left out with "
        "what it contains"
    ]


# --- GitHub's release notes and Keep a Changelog: handles, not citations --------------------


RELEASE_NOTES = """## What's Changed
* feat: add `server.cors.origin` default by @sapphi2 in https://github.com/vitejs/vite/pull/19001

## New Contributors
* @newbie123 made their first contribution in https://github.com/vitejs/vite/pull/18950
"""


def test_a_github_attachment_alone_on_its_line_stays_a_link(check_lines: CheckLines) -> None:
    address = "https://github.com/user-attachments/assets/3f2b9c1e-8a4d-4e5b-9c7f-1a2b3c4d5e6f"
    body = f"## What's Changed\n\n新的拖拽上传演示：\n\n{address}\n\n见 {address} 。\n"
    assert shown(body, "zhihu") == (
        "<h2>What's Changed</h2><p>新的拖拽上传演示：</p>"
        f'<p><a href="{address}">{address}</a></p><p>见 <a href="{address}">{address}</a> 。</p>'
    )
    assert f"<p>{address}</p>" in re.sub(r' style="[^"]*"', "", shown(body, "wechat"))
    notes = [line for line in check_lines(f"---\ntitle: T\n---\n{body}") if "GitHub" in line]
    assert notes == [
        "issue.md:8: note: 'https://github.com/user-attachments/assets/3f2b9c1e-8a4d-4e…' "
        "alone on its line is a file attached on GitHub, which GitHub shows in its place (a "
        "video, most often); WeChat and Zhihu show its address (a link on Zhihu), the file's "
        "kind being unknown without a download; if it is a picture, write "
        "![caption](address) to show it"
    ]


@pytest.mark.parametrize(
    "body",
    [
        RELEASE_NOTES,
        # No address: the words GitHub writes are enough.
        "## New Contributors\n\n* @octo123 made their first contribution\n",
        # The pull request named, not linked (in code): the line says whose it is.
        "* fix: a typo by @dev42 in `https://github.com/o/r/pull/7`\n",
        # Keep a Changelog: a handle linked by a reference definition.
        "- Support for Python 3.12 (thanks [@octocat]).\n\n[@octocat]: https://github.com/octocat\n",
        "- Thanks [@Octo  Cat2024].\n\n[@octo cat2024]: https://e.com/o\n",
    ],
)
def test_a_github_handle_in_release_notes_is_no_citation(
    body: str, body_warnings: BodyWarnings
) -> None:
    assert not [w for w in body_warnings(body) if "citation" in w]
    for channel in CHANNELS:
        assert "@" in words(shown(body, channel))


def test_a_citation_in_a_paper_is_still_named(body_warnings: BodyWarnings) -> None:
    body = (
        "As @smith2004 says, and others agree [@doe2020].\n\n"
        "* @jones1999 made a point in https://example.org/x\n"
    )
    assert [w.split(" is a Pandoc")[0].split(" citations and")[0] for w in body_warnings(body)] == [
        "issue.md:4: warning: '[@doe2020]'",
        "issue.md:4: warning: '@…'",
    ]
    assert "(lines 4, 6)" in body_warnings(body)[1]


# --- Docusaurus's authors: keys into authors.yml ------------------------------------------


@pytest.mark.parametrize(
    ("written", "author", "keys"),
    [
        ("authors: [slorber, yangshun]", None, "slorber, yangshun"),
        ("authors: slorber", None, "slorber"),
        (
            "authors:\n  - slorber\n  - name: Guest Writer\n    url: https://e.com",
            "Guest Writer",
            "slorber",
        ),
        ("authors: [Shu Ding, jdoe]", "Shu Ding, jdoe", None),
        ("authors: [张三]", "张三", None),
        ("authors:\n  - name: Sébastien Lorber\n    title: maintainer", "Sébastien Lorber", None),
    ],
)
def test_keys_into_a_sites_authors_file_are_no_authors_name(
    write_issue: WriteIssue,
    check_lines: CheckLines,
    written: str,
    author: str | None,
    keys: str | None,
) -> None:
    document = f"---\ntitle: T\n{written}\n---\n{BODY}"
    issue = read_issue(write_issue(raw=document))
    assert issue.author == author
    noted = [n.message for n in issue.notices if n.code == "alias-ignored"]
    assert noted == (
        [
            f"'authors' names the site's authors by their keys in its authors file ({keys}), "
            "not by name, so no author is taken from it; set 'author:' to the name readers "
            "should see"
        ]
        if keys
        else []
    )
    lines = check_lines(document)
    assert not [line for line in lines if "author has" in line]
    said = [line for line in lines if "'authors' names" in line]
    assert said == ([f"issue.md:3: note: {noted[0]}"] if keys else [])
