"""Other tools' syntax read as what their sites show: Jekyll's, Hexo's and GitBook's
``{% tags %}``, Obsidian's links and embeds, definition lists, content tabs and MDX. Each
construct crosspost knows comes out as the site would have shown it (code, a callout, a
quote, an image, a link, a line for a video, a bold title) on both channels, and check
names only what it leaves as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

from crosspost.check.lint import check_file
from crosspost.issue.loader import read_issue
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, CheckLines, issue_of, shown, words

# --- code ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "language"),
    [
        ("{% highlight ruby linenos %}\ndef foo\n  puts 'foo'\nend\n{% endhighlight %}\n", "ruby"),
        ("{% codeblock lang:ruby %}\ndef foo\n  puts 'foo'\nend\n{% endcodeblock %}\n", "ruby"),
        ("{%- highlight ruby -%}\ndef foo\n  puts 'foo'\nend\n{%- endhighlight -%}\n", "ruby"),
    ],
)
def test_a_code_tag_is_a_code_block_with_its_indent_on_both_channels(
    body: str, language: str
) -> None:
    zhihu = shown(body, "zhihu")
    assert f'<pre lang="{language}">' in zhihu
    assert "def foo\n  puts 'foo'\nend" in zhihu  # the indent is the code's
    wechat = shown(body, "wechat")
    assert "<pre" in wechat and "{%" not in wechat and "highlight" not in words(wechat)


def test_markdown_in_a_code_tag_stays_code() -> None:
    body = "{% highlight md %}\n# not a heading\n**not bold**\n{% endhighlight %}\n"
    zhihu = shown(body, "zhihu")
    assert "# not a heading\n**not bold**" in zhihu and "<h2>" not in zhihu


def test_a_hexo_code_block_keeps_its_title_and_its_link() -> None:
    body = (
        "{% codeblock _.compact http://underscorejs.org/#compact Underscore.js %}\n"
        "_.compact([0, 1, false, 2, '', 3]);\n"
        "{% endcodeblock %}\n"
    )
    for channel in CHANNELS:
        out = shown(body, channel)
        assert "_.compact([0, 1, false, 2, &#x27;&#x27;, 3]);" in out or "_.compact([0" in out
        assert "_.compact" in words(out.split("<pre")[0]), channel  # the title above the code
        assert "Underscore.js" in words(out), channel
    assert '<a href="http://underscorejs.org/#compact">Underscore.js</a>' in shown(body, "zhihu")


# --- notes and quotes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "label"),
    [
        ("{% note warning %}\n小心 **这里**。\n{% endnote %}\n", "注意"),
        ("{% note info no-icon %}\n小心 **这里**。\n{% endnote %}\n", "信息"),
        ("{% note danger 别这样做 %}\n小心 **这里**。\n{% endnote %}\n", "别这样做"),
        ("{% note red 'fas fa-fan' simple %}\n小心 **这里**。\n{% endnote %}\n", "危险"),
        ('{% hint style="success" %}\n小心 **这里**。\n{% endhint %}\n', "提示"),
    ],
)
def test_a_note_is_a_callout_with_its_markdown_read(body: str, label: str) -> None:
    zhihu = shown(body, "zhihu")
    assert f"<blockquote><b>{label}</b><br>小心 <b>这里</b>。</blockquote>" in zhihu
    assert "{%" not in zhihu
    wechat = shown(body, "wechat")
    assert label in words(wechat) and "<strong" in wechat and "{%" not in wechat
    assert "fa-fan" not in words(wechat)


def test_a_note_may_follow_a_paragraph_line_and_hold_a_list() -> None:
    body = "开头一句。\n{% note tip %}\n- 一\n- 二\n{% endnote %}\n结尾。\n"
    zhihu = shown(body, "zhihu")
    assert "<p>开头一句。</p>" in zhihu and "<li>一</li>" in zhihu and "<p>结尾。</p>" in zhihu


def test_a_quote_tag_credits_its_author_and_links_its_source() -> None:
    body = (
        "{% blockquote Seth Godin http://sethgodin.typepad.com/a.html Welcome to Island %}\n"
        "Every interaction is both precious and an opportunity to delight.\n"
        "{% endblockquote %}\n\n"
        "{% blockquote David Levithan, Wide Awake %}\nDo not just.\n{% endblockquote %}\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<blockquote>Every interaction" in zhihu
    assert '— Seth Godin, <a href="http://sethgodin.typepad.com/a.html">Welcome to Island</a>' in (
        zhihu
    )
    assert "— David Levithan, Wide Awake" in zhihu
    wechat = words(shown(body, "wechat"))
    assert "— Seth Godin, Welcome to Island" in wechat and "sethgodin.typepad.com/a.html" in wechat


def test_raw_shows_its_content_and_comment_hides_it() -> None:
    body = (
        "{% raw %}\nUse {{ page.title }} in a layout.\n{% endraw %}\n\n"
        "Inline {% raw %}{{ site.url }}{% endraw %} too.\n\n"
        "{% comment %}\nA note to myself.\n{% endcomment %}\n"
    )
    for channel in CHANNELS:
        out = words(shown(body, channel))
        assert "Use {{ page.title }} in a layout." in out and "Inline {{ site.url }} too." in out
        assert "note to myself" not in out and "raw" not in out, channel


def test_a_paired_tag_never_closed_stays_as_written_and_is_named(
    body_warnings: BodyWarnings,
) -> None:
    body = "{% note warning %}\n没有结尾的提示。\n\n后文。\n"
    zhihu = shown(body, "zhihu")
    assert "{% note warning %}" in zhihu and "<p>后文。</p>" in zhihu
    assert body_warnings(body) == [
        "issue.md:4: warning: '{% note warning %}' is a Jekyll or Hexo template tag, not "
        "Markdown: it goes out as literal text; write what it stands for in Markdown (an "
        "image is ![caption](path))"
    ]


def test_a_tag_in_code_stays_code() -> None:
    body = "Write `{% raw %}` then:\n\n```\n{% note info %}\nx\n{% endnote %}\n```\n"
    zhihu = shown(body, "zhihu")
    assert "<code>{% raw %}</code>" in zhihu and "{% note info %}\nx\n{% endnote %}" in zhihu


# --- one-line tags -------------------------------------------------------------------------


def test_links_and_media_become_links_on_both_channels() -> None:
    body = (
        "读 {% link 官方文档 https://hexo.io/docs/ external %} 再看 {% youtube dQw4w9WgXcQ %}。\n\n"
        "{% bilibili 170001 %}\n\n{% gist octocat/6cad326836d38bd3a7ae %}\n\n"
        '{% embed url="https://www.youtube.com/watch?v=abc" %}\n'
    )
    zhihu = shown(body, "zhihu")
    assert '<a href="https://hexo.io/docs/">官方文档</a>' in zhihu
    assert '<a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">▶ 视频</a>' in zhihu
    assert '<a href="https://www.bilibili.com/video/av170001">▶ 视频</a>' in zhihu
    assert '<a href="https://gist.github.com/octocat/6cad326836d38bd3a7ae">' in zhihu
    assert '<a href="https://www.youtube.com/watch?v=abc">' in zhihu
    wechat = words(shown(body, "wechat"))
    assert "https://www.youtube.com/watch?v=dQw4w9WgXcQ" in wechat  # in the reference list
    assert "{%" not in wechat


def test_tags_crosspost_does_not_read_stay_and_are_named(body_warnings: BodyWarnings) -> None:
    body = "见 {% post_link hello-world %}。\n\n{% include note.html %}\n"
    assert "{% post_link hello-world %}" in shown(body, "zhihu")
    assert [line.split(" is a ")[0] for line in body_warnings(body)] == [
        "issue.md:4: warning: '{% post_link hello-world %}'",
        "issue.md:6: warning: '{% include note.html %}'",
    ]


def test_an_asset_image_is_read_from_the_posts_asset_folder(tmp_path: Path) -> None:
    folder = tmp_path / "a-post"
    folder.mkdir()
    Image.new("RGB", (60, 40), "teal").save(folder / "cat.png")
    Image.new("RGB", (60, 40), "navy").save(tmp_path / "beside.png")
    path = tmp_path / "a-post.md"
    path.write_text(
        "---\ntitle: 猫\n---\n\n{% asset_img cat.png 一只猫 %}\n\n"
        '{% img /no/where.png 300 200 \'"标题" "替代"\' %}\n\n'
        "![](beside.png) ![](cat.png)\n",
        encoding="utf-8",
    )
    zhihu = render(read_issue(path), "zhihu", RenderContext()).body
    assert '<img src="cat.png"' in zhihu and "一只猫" in zhihu
    assert '<img src="/no/where.png"' in zhihu and "替代" in zhihu
    lines = [problem.message for problem in check_file(path).problems]
    # the asset folder's image and the one beside the issue are found; the missing one named
    assert not any("cat.png" in line or "beside.png" in line for line in lines), lines
    assert any("/no/where.png" in line for line in lines), lines


# --- Obsidian's links and embeds -----------------------------------------------------------


def test_an_embedded_image_is_an_image_and_a_note_link_shows_its_words(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        "见 [[笔记]]、[[笔记|别名]]、[[笔记#第二节]] 与 [[笔记#^abc123]]。\n\n"
        "![[图.png]]\n\n![[图.png|120]] 和 ![[另一篇]]\n\n`[[代码]]`\n"
    )
    zhihu = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "见 笔记、别名、笔记 > 第二节 与 笔记。" in zhihu
    assert "![](图.png)\n\n![](图.png) 和 !\\[\\[另一篇\\]\\]" in zhihu
    assert "`[[代码]]`" in zhihu
    wechat = shown(body, "wechat")
    assert 'src="图.png"' in wechat and "width:120px" in wechat
    assert [line.split(" is ")[0] for line in body_warnings(body)] == [
        "issue.md:4: warning: '[[笔记]]'",
        "issue.md:8: warning: '![[另一篇]]'",
    ]
    assert "only its words are shown" in body_warnings(body)[0]


# --- definition lists (kramdown, Pandoc, PHP Markdown Extra, MkDocs) ------------------------


def test_a_definition_list_is_a_bold_term_and_its_paragraphs() -> None:
    body = (
        "Apple\n:   Pomaceous **red**.\n\n    Second paragraph.\n\nOrange\n: Citrus.\n: Another.\n"
    )
    assert shown(body, "zhihu") == (
        "<p><b>Apple</b></p><p>Pomaceous <b>red</b>.</p><p>Second paragraph.</p>"
        "<p><b>Orange</b></p><p>Citrus.</p><p>Another.</p>"
    )
    wechat = shown(body, "wechat")
    assert re.search(r"<p[^>]*><strong[^>]*>Orange</strong></p><p[^>]*>Citrus\.</p>", wechat)


def test_a_definition_list_leaves_tight_lists_tight() -> None:
    # One definition list anywhere made every list of the issue loose: a blank line
    # between each item in zhihu.md, a paragraph's margins around each on WeChat.
    body = "- a\n- b\n\nTerm\n: Def\n\n  - x\n  - y\n"
    assert render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"] == (
        "- a\n- b\n\n**Term**\n\nDef\n\n- x\n- y\n"
    )
    assert "•&nbsp;</span>a</section>" in shown(body, "wechat")  # no paragraph in the item


def test_a_line_beginning_with_a_tilde_is_a_sentence_not_a_definition() -> None:
    # Pandoc also reads '~' as a definition's marker; sentences begin with it ("about").
    assert shown("工期\n~ 5 天\n", "zhihu") == "<p>工期 ~ 5 天</p>"


# --- content tabs (MkDocs Material, GitBook, Hexo NexT) ------------------------------------


TABS = {
    "mkdocs": '=== "Linux"\n\n    ```bash\n    apt install x\n    ```\n\n'
    '    Then **run** it.\n\n=== "macOS"\n\n    brew install x\n\nAfter.\n',
    "gitbook": '{% tabs %}\n{% tab title="Linux" %}\n```bash\napt install x\n```\n\n'
    'Then **run** it.\n{% endtab %}\n{% tab title="macOS" %}\nbrew install x\n'
    "{% endtab %}\n{% endtabs %}\n\nAfter.\n",
    "next": "{% tabs install, 2 %}\n<!-- tab Linux @linux -->\n```bash\napt install x\n```\n\n"
    "Then **run** it.\n<!-- endtab -->\n<!-- tab macOS -->\nbrew install x\n"
    "<!-- endtab -->\n{% endtabs %}\n\nAfter.\n",
}


@pytest.mark.parametrize("tool", sorted(TABS))
def test_every_tab_is_shown_under_its_title_in_bold(tool: str, body_warnings: BodyWarnings) -> None:
    zhihu = shown(TABS[tool], "zhihu")
    assert zhihu == (
        '<p><b>Linux</b></p><pre lang="bash">apt install x</pre><p>Then <b>run</b> it.</p>'
        "<p><b>macOS</b></p><p>brew install x</p><p>After.</p>"
    )
    assert body_warnings(TABS[tool]) == []


# --- MDX (Docusaurus, Astro, Nextra, Mintlify) ---------------------------------------------


MDX = """import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

开头。

<Tabs>
  <TabItem value="npm" label="npm" default>

```bash
npm install x
```

  </TabItem>
  <TabItem value="yarn">

yarn add x

  </TabItem>
</Tabs>

:::tip[标题]
Docusaurus 的提示。
:::

<Admonition type="danger" title="小心">
**别**这样。
</Admonition>

<Callout type="info">一行的 *提示*。</Callout>

<Card title="文档" href="https://docs.example.com">
卡片。
</Card>

{/* 给自己的备注 */}

import x from 'y'; 留在中间的一行
"""


def test_a_directive_callouts_title_attribute_is_its_title() -> None:
    # Rspress writes :::tip{title="…"}: the title was taken for an attribute the site
    # reads and left out, with no word from check. Other attributes still are.
    body = ':::danger{title="别这样"}\n正文。\n:::\n\n:::tip[方括号]{title="属性"}\n二。\n:::\n'
    body += ':::note{icon="heart"}\n三。\n:::\n'
    zhihu = shown(body, "zhihu")
    assert "<b>别这样</b><br>正文。" in zhihu and "<b>方括号</b><br>二。" in zhihu
    assert "<b>注</b><br>三。" in zhihu and "heart" not in zhihu
    assert "别这样" in words(shown(body, "wechat"))


def test_mdx_components_are_blocks_of_markdown_and_its_javascript_is_left_out(
    body_warnings: BodyWarnings,
) -> None:
    zhihu = shown(MDX, "zhihu")
    assert zhihu.startswith('<p>开头。</p><p><b>npm</b></p><pre lang="bash">npm install x</pre>')
    assert "<p><b>yarn</b></p><p>yarn add x</p>" in zhihu
    assert "<blockquote><b>标题</b><br>Docusaurus 的提示。</blockquote>" in zhihu
    assert "<blockquote><b>小心</b><br><b>别</b>这样。</blockquote>" in zhihu
    assert "<blockquote><b>信息</b><br>一行的 <i>提示</i>。</blockquote>" in zhihu
    assert '<a href="https://docs.example.com"><b>文档</b></a>' in zhihu
    assert "备注" not in zhihu and "@theme" not in zhihu
    assert zhihu.endswith("<p>import x from 'y'; 留在中间的一行</p>")  # not the opening lines
    for channel in CHANNELS:
        assert "TabItem" not in shown(MDX, channel)
    assert body_warnings(MDX) == []


def test_a_component_inside_a_line_or_never_closed_is_still_named(
    body_warnings: BodyWarnings,
) -> None:
    body = "新 <Badge>beta</Badge> 功能。\n\n<Tabs>\n没有结尾。\n"
    assert [w.split(" is read")[0] for w in body_warnings(body)] == [
        "issue.md:4: warning: '<Badge>'",
        "issue.md:6: warning: '<Tabs>'",
    ]


def test_a_self_closing_component_shows_what_its_attributes_name(
    body_warnings: BodyWarnings,
) -> None:
    # Each was left out as a tag of no element, the video and the picture with it.
    body = (
        '<YouTube videoId="dQw4w9WgXcQ" />\n\n<Image src="https://x.example/a.png" alt="架构图" />'
        '\n\n<LinkCard title="文档" href="https://docs.example.com" />\n\n<Tweet id="42" />\n\n'
        "<Support />\n\n结尾。\n"
    )
    zhihu = shown(body, "zhihu")
    assert '<a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">▶ 视频</a>' in zhihu
    assert '<img src="https://x.example/a.png" data-caption="架构图"' in zhihu
    assert '<a href="https://docs.example.com">文档</a>' in zhihu
    assert '<a href="https://x.com/i/status/42">▶ 嵌入内容</a>' in zhihu
    assert "Support" not in zhihu and zhihu.endswith("<p>结尾。</p>")
    assert [w for w in body_warnings(body) if "Support" in w] == [
        "issue.md:12: warning: '<Support />' is an MDX component that names nothing crosspost "
        "can show (no video, picture or link), so every channel leaves it out; write what it "
        "shows on the site here in Markdown if the issue needs it"
    ]


# --- what a sweep of English posts (Hashnode, Jekyll, Quarto, Docusaurus) turned up -------


def test_hashnode_images_and_embeds() -> None:
    body = (
        '![](https://cdn.hashnode.com/a.png align="center")\n\n'
        "%[https://www.youtube.com/watch?v=abc]\n\n%[https://gist.github.com/u/1]\n"
    )
    zhihu = shown(body, "zhihu")
    assert '<img src="https://cdn.hashnode.com/a.png"' in zhihu  # was the line as text
    assert '<a href="https://www.youtube.com/watch?v=abc">▶ 视频</a>' in zhihu
    assert '<a href="https://gist.github.com/u/1">▶ 嵌入内容</a>' in zhihu
    assert "%[" not in words(shown(body, "wechat"))


def test_attributes_after_a_link_or_an_image_are_left_out_and_a_width_kept() -> None:
    body = (
        'See [the docs](https://e.com/docs){:target="_blank"} now.\n\n'
        '![logo](https://e.com/logo.png){: width="50%"}\n\n'
        "![A caption](https://e.com/fig.png){#fig-a width=60%}\n\n"
        "Words {in braces} and [a](https://e.com/a) {kept as words}.\n"
    )
    for channel in CHANNELS:
        out = words(shown(body, channel))
        assert "{" not in out.replace("{in braces}", "").replace("{kept as words}", "")
        assert "{in braces}" in out and "{kept as words}" in out
    wechat = shown(body, "wechat")
    assert "width:50%" in wechat and "width:60%" in wechat


def test_a_display_formula_under_a_line_of_text_is_a_formula() -> None:
    body = (
        "Therefore:\n$$\n\\begin{align*}\na &= b\n\\end{align*}\n$$\n\nDone.\n\n"
        "Labelled:\n$$\nx = 1\n$$ {#eq-one}\n\nPrice $$5 and $$ more.\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<p>Therefore:</p><p><img eeimg=" in zhihu and "<p>Done.</p>" in zhihu
    assert "<p>Labelled:</p><p><img eeimg=" in zhihu and "eq-one" not in zhihu
    assert "$$" not in words(zhihu).replace("Price $$5 and $$ more.", "")


def test_a_link_to_a_page_by_its_name_is_named(body_warnings: BodyWarnings) -> None:
    body = (
        "Read [setup](setup).\n\n[c](webdriverio#config)\n\n[ok](example.com/x) "
        "[ok](#top) [ok]({zhihu.url}) [ok](mailto:a@b.c)\n"
    )
    assert [w.split(" is a path")[0] for w in body_warnings(body)] == [
        "issue.md:4: warning: the link to 'setup'",
        "issue.md:6: warning: the link to 'webdriverio#config'",
    ]


def test_an_image_mapping_or_an_empty_slug_is_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text(
        "---\ntitle: 学术\nslug: []\nimage:\n  caption: 'credit'\n  focal_point: ''\n---\n"
        "\n正文。\n",
        encoding="utf-8",
    )
    problems = check_file(path).problems
    assert [(p.line, p.severity) for p in problems if p.code == "alias-ignored"] == [(4, "warning")]
    assert not any("must be text" in p.message for p in problems)
    Image.new("RGB", (900, 383), "teal").save(tmp_path / "featured.jpg")
    path.write_text(
        "---\ntitle: 学术\nimage:\n  filename: featured.jpg\n---\n\n正文。\n", encoding="utf-8"
    )
    assert read_issue(path).cover == tmp_path / "featured.jpg"


def test_an_mdx_import_of_a_local_file_is_left_out_anywhere() -> None:
    body = (
        '开头。\n\n---\n\nimport Support from "../_support.mdx";\n\n'
        "import React from 'react'; 仍是一句话\n"
    )
    zhihu = shown(body, "zhihu")
    assert "_support" not in zhihu and "<p>import React from 'react'; 仍是一句话</p>" in zhihu


def test_a_component_whose_opening_tag_runs_over_lines_is_a_block() -> None:
    body = (
        '<Tabs groupId="pm"\n  values={[\n    {label: "npm", value: "npm"},\n  ]}>\n'
        '<TabItem value="npm">\n\nnpm test\n\n</TabItem>\n</Tabs>\n\n结尾。\n'
    )
    assert shown(body, "zhihu") == "<p><b>npm</b></p><p>npm test</p><p>结尾。</p>"


def test_a_picture_imported_or_required_is_the_picture_its_src_names(
    tmp_path: Path, body_warnings: BodyWarnings
) -> None:
    # Both went out as <img src="{diagram}">: publish stopped on an image '{diagram}' not
    # found, and check said the component named nothing, so every channel left it out.
    Image.new("RGB", (40, 30), "teal").save(tmp_path / "diagram.png")
    body = (
        "import diagram from './diagram.png';\nimport { Image } from 'astro:assets';\n\n"
        '<Image src={diagram} alt="架构图" />\n\n'
        "<img src={require('./diagram.png').default} alt=\"图二\" />\n\n"
        '行内 <img src={require("./diagram.png")} /> 图。\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith('<img src="./diagram.png" data-caption="架构图"')
    assert '<img src="./diagram.png" data-caption="图二"' in zhihu
    assert zhihu.count('<img src="./diagram.png"') == 3 and "{" not in zhihu
    wechat = shown(body, "wechat")
    assert wechat.count('src="./diagram.png"') == 3 and "{" not in wechat
    assert body_warnings(body) == []
    assert not [p for p in check_file(tmp_path / "issue.md").problems if "image" in p.code]


def test_a_picture_whose_src_needs_javascript_is_left_out_and_named(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        "import logo from '@site/static/img/logo.png';\n\n"
        '<Image src={logo} alt="标志" />\n\n'
        '<p align="center">\n  <img src={useBaseUrl(\'/img/x.png\')} alt="Logo" />\n</p>\n\n'
        "结尾。\n"
    )
    assert shown(body, "zhihu") == "<p>结尾。</p>"  # was <img src="{logo}"> and the other
    assert "<img" not in shown(body, "wechat")
    assert body_warnings(body) == [
        "issue.md:6: warning: '<Image src={logo}>' takes its picture from JavaScript, which "
        "crosspost does not run ('logo' is imported from '@site/static/img/logo.png', no path "
        "beside the issue), so every channel leaves it out; write the picture as "
        "![标志](path), the path beside the issue",
        "issue.md:9: warning: '<img src={useBaseUrl('/img/x.png')}>' takes its picture from "
        "JavaScript, which crosspost does not run, so every channel leaves it out; write the "
        "picture as ![Logo](path), the path beside the issue",
    ]


def test_a_capitalised_callout_or_aside_over_lines_is_a_callout(
    body_warnings: BodyWarnings,
) -> None:
    # Read as Feishu's <callout> and Notion's <aside>: a paragraph, the title lost, and
    # check said to escape the bracket.
    body = (
        'import { Callout } from "nextra/components"\n\n'
        '<Callout type="warning">\n  不再支持 React 16。\n</Callout>\n\n'
        '<Aside type="tip" title="小技巧">\n用 **pnpm**。\n</Aside>\n'
    )
    assert shown(body, "zhihu") == (
        "<blockquote><b>注意</b><br>不再支持 React 16。</blockquote>"
        "<blockquote><b>小技巧</b><br>用 <b>pnpm</b>。</blockquote>"
    )
    assert "小技巧" in words(shown(body, "wechat"))
    assert body_warnings(body) == []


def test_javascript_over_several_lines_is_left_out(body_warnings: BodyWarnings) -> None:
    body = (
        "import { ArticleLayout } from '@/components/ArticleLayout'\n\n"
        "export const article = {\n  author: 'Adam Wathan',\n  description:\n"
        "    'Most companies try to stay ahead of the curve.',\n}\n\n"
        "export default (props) => <ArticleLayout article={article} {...props} />\n\n"
        "正文第一段。\n\n"
        "export const Highlight = ({children, color}) => (\n  <span\n    style={{\n"
        "      backgroundColor: color,\n    }}>\n    {children}\n  </span>\n);\n\n"
        "结尾。\n"
    )
    assert shown(body, "zhihu") == "<p>正文第一段。</p><p>结尾。</p>"
    assert "Wathan" not in words(shown(body, "wechat"))
    assert body_warnings(body) == []
    # Never closed, or prose right below it, or a post that is not MDX: the lines stay.
    unclosed = "export const a = {\n  b: 1,\n\n正文。\n"
    assert shown(unclosed, "zhihu") == "<p>export const a = { b: 1,</p><p>正文。</p>"
    prose = "开头。\n\nexport const a = {\n  b: 1,\n};\n\n结尾。\n"
    assert shown(prose, "zhihu") == "<p>开头。</p><p>export const a = { b: 1, };</p><p>结尾。</p>"


def test_jsx_spaces_are_spaces() -> None:
    body = (
        "import X from 'x';\n\n阅读{' '}\n<a href=\"https://docusaurus.io/docs\">官方文档</a>"
        "{\" \"}\n了解更多。\n\n{' '}\n\n用 `{' '}` 写空格。\n"
    )
    assert shown(body, "zhihu") == (
        '<p>阅读 <a href="https://docusaurus.io/docs">官方文档</a> 了解更多。</p>'
        "<p>用 <code>{' '}</code> 写空格。</p>"
    )
    assert "{" not in words(shown(body, "wechat")).replace("{' '}", "")


def test_dev_to_and_eleventy_tags(tmp_path: Path) -> None:
    body = (
        "{% details 点开看 %}\n隐藏的 **答案**。\n{% enddetails %}\n\n"
        "{% katex %}\nc = \\sqrt{a^2 + b^2}\n{% endkatex %}\n\n"
        "{% github forem/forem %} 与 {% twitter 1234567890 %}\n\n"
        '{% image "./cat.png", "一只猫" %}\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith("<blockquote><b>点开看</b><br>隐藏的 <b>答案</b>。</blockquote>")
    assert 'alt="c = \\sqrt{a^2 + b^2}' in zhihu and 'eeimg="2"' in zhihu
    assert '<a href="https://github.com/forem/forem">▶ 嵌入内容</a>' in zhihu
    assert '<a href="https://twitter.com/i/status/1234567890">' in zhihu
    assert '<img src="./cat.png"' in zhihu and "一只猫" in zhihu


# --- what a sweep of Chinese blogs and docs (Hexo, Docsify, Quarto, VitePress, Yuque) found


def test_shell_variables_beside_chinese_punctuation_stay_text() -> None:
    body = (
        "变量 $HOME、$PWD、$USER等。\n\n$1-$9表示参数，第十个用${10}。\n\n"
        "公式 $x^2$ 与 $E=mc^2$。\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<p>变量 $HOME、$PWD、$USER等。</p><p>$1-$9表示参数，第十个用${10}。</p>" in zhihu
    assert zhihu.count('eeimg="1"') == 2


def test_butterflys_comma_link_and_button_and_label() -> None:
    body = (
        "{% link MySQL 8.4 Indexes, https://dev.mysql.com/x.html, https://m.com/i.ico %}\n\n"
        "这是 {% label 标签 blue %} 和 {% btn https://e.com/x,按钮,far fa-hand,outline %}。\n"
    )
    zhihu = shown(body, "zhihu")
    assert '<a href="https://dev.mysql.com/x.html">MySQL 8.4 Indexes</a>' in zhihu
    assert '这是 标签 和 <a href="https://e.com/x">按钮</a>。' in zhihu


@pytest.mark.parametrize(
    ("info", "language"),
    [("{r}", "r"), ("{r, fig.width=5}", "r"), ("{.python .cell-code}", "python"),
     ("{code-cell} ipython3", "ipython3"), ("js{2,5,13}", "javascript"),
     ("ts:line-numbers", "typescript"), ("{#mycode .go .numberLines}", "go"),
     ('{.haskell startFrom="100"}', "haskell"), ("go {linenos=table,hl_lines=[8]}", "go")],
)  # fmt: skip
def test_a_chunks_or_highlighted_fences_language_is_read(
    info: str, language: str, body_warnings: BodyWarnings
) -> None:
    body = f"```{info}\nx <- 1\n```\n"
    assert f'<pre lang="{language}">x &lt;- 1</pre>' in shown(body, "zhihu")
    assert body_warnings(body) == []  # no "MyST directive"


def test_pandocs_raw_html_is_html_and_raw_blocks_for_other_formats_are_named(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        '```{=html}\n<p>原样 <a href="https://e.com/a">链接</a></p>\n```\n\n'
        "```{=latex}\n\\newpage\n```\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith('<p>原样 <a href="https://e.com/a">链接</a></p>')
    found = body_warnings(body)
    assert len(found) == 1 and found[0].startswith("issue.md:8: warning: '```{=latex}'")
    assert "raw block for another output format" in found[0]


def test_docsify_notes_are_callouts() -> None:
    body = "?> 注意：很多反馈。\n\n!> **重要** 的话\n\n普通 ?> 不是。\n"
    assert shown(body, "zhihu") == (
        "<blockquote><b>提示</b><br>注意：很多反馈。</blockquote>"
        "<blockquote><b>注意</b><br><b>重要</b> 的话</blockquote><p>普通 ?&gt; 不是。</p>"
    )


def test_grouping_containers_show_their_content_and_yuque_tips_is_a_tip(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        ":::tips\n语雀提示。\n:::\n\n::: code-group\n\n```js [a.js]\na\n```\n\n:::\n\n"
        "::: {.cell}\n```{r}\nx\n```\n:::\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith("<blockquote><b>提示</b><br>语雀提示。</blockquote>")
    assert "<blockquote>" not in zhihu[20:] and '<pre lang="r">x</pre>' in zhihu
    assert body_warnings(body) == []


def test_juejin_alignment_wrappers_show_their_content_without_a_label(
    body_warnings: BodyWarnings,
) -> None:
    # Juejin's ::: hljs-center / hljs-left / hljs-right set text aside: no note, no "注".
    body = (
        "::: hljs-center\n**前言**\n:::\n\n正文。\n\n::: hljs-left\n左对齐的说明。\n:::\n\n"
        "::: hljs-right\n—— 尤雨溪\n:::\n"
    )
    shown_zhihu = "<p><b>前言</b></p><p>正文。</p><p>左对齐的说明。</p><p>—— 尤雨溪</p>"
    assert shown(body, "zhihu") == shown_zhihu
    wechat = shown(body, "wechat")
    assert "注" not in words(wechat) and "<blockquote" not in wechat
    assert body_warnings(body) == []


def test_hexo_folds_mermaid_and_galleries(body_warnings: BodyWarnings) -> None:
    body = (
        "{% hideToggle 点击展开,bg,color %}\n隐藏内容。\n{% endhideToggle %}\n\n"
        "{% folding yellow open, 折叠标题 %}\n折叠内容。\n{% endfolding %}\n\n"
        "{% mermaid %}\ngraph TD\nA --> B\n{% endmermaid %}\n\n"
        "{% gallery %}\n![猫](cat.png)\n{% endgallery %}\n"
    )
    zhihu = shown(body, "zhihu")
    assert "<blockquote><b>点击展开</b><br>隐藏内容。</blockquote>" in zhihu
    assert "<blockquote><b>折叠标题</b><br>折叠内容。</blockquote>" in zhihu
    assert '<pre lang="mermaid">graph TD\nA --&gt; B</pre>' in zhihu
    assert '<img src="cat.png"' in zhihu
    # The diagram is named as a diagram, and no tag's code block is called unclosed.
    assert [w.split(": warning: ")[1][:16] for w in body_warnings(body)] == ["a mermaid diagra"]


def test_short_indented_chinese_is_named_as_prose_shown_as_code(
    body_warnings: BodyWarnings,
) -> None:
    body = "前文。\n\n\t## 折叠二级标题\n\t\t折叠内容\n"
    assert any("indented" in w for w in body_warnings(body))


# --- Hugo's shortcodes ---------------------------------------------------------------------


def test_hugo_shortcodes_come_out_as_what_the_site_shows(body_warnings: BodyWarnings) -> None:
    body = (
        '{{< figure src="cat.png" caption="一只猫" >}}\n\n'
        "{{< youtube w7Ft2ymGmfc >}} 与 {{< gist spf13 7896402 >}}\n\n"
        '{{< highlight go "linenos=table" >}}\nfunc main() {}\n{{< /highlight >}}\n\n'
        "{{< notice tip >}}\n主题的 **提示**。\n{{< /notice >}}\n\n"
        '{{< admonition type="warning" title="小心" >}}\n警告。\n{{< /admonition >}}\n\n'
        '{{% alert title="Docsy" color="warning" %}}\nDocsy.\n{{% /alert %}}\n\n'
        '{{< details summary="展开" >}}\n细节。\n{{< /details >}}\n\n'
        '{{< tabs "id" >}}\n{{< tab "MacOS" >}}\nbrew\n{{< /tab >}}\n{{< /tabs >}}\n\n'
        '见 {{< ref "other.md" >}}。\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith('<img src="cat.png" data-caption="一只猫"')
    assert '<a href="https://www.youtube.com/watch?v=w7Ft2ymGmfc">▶ 视频</a>' in zhihu
    assert '<a href="https://gist.github.com/spf13/7896402">' in zhihu
    assert '<pre lang="go">func main() {}</pre>' in zhihu
    for callout in (
        "<blockquote><b>提示</b><br>主题的 <b>提示</b>。</blockquote>",
        "<blockquote><b>小心</b><br>警告。</blockquote>",
        "<blockquote><b>Docsy</b><br>Docsy.</blockquote>",
        "<blockquote><b>展开</b><br>细节。</blockquote>",
    ):
        assert callout in zhihu
    assert "<p><b>MacOS</b></p><p>brew</p>" in zhihu
    # Only the shortcode crosspost does not read is named (once, as Hugo's).
    assert [w.split(" is ")[0] for w in body_warnings(body)] == [
        "issue.md:34: warning: '{{< ref \"other.md\" >}}'"
    ]


def test_a_hugo_figures_title_caption_and_credit_are_all_its_caption() -> None:
    # Hugo's figure shows its title over its caption and credit; the first of them alone
    # was kept, so a figure with a title lost its caption (and the credit went always).
    body = '{{< figure src="cat.png" title="猫" caption="一只猫" attr="摄影：张三" alt="图" >}}\n'
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith('<img src="cat.png" data-caption="猫 · 一只猫 · 摄影：张三"')
    assert ">猫 · 一只猫 · 摄影：张三</figcaption>" in shown(body, "wechat")
    assert 'data-caption="图"' in shown('{{< figure src="cat.png" alt="图" >}}\n', "zhihu")


def test_a_hugo_figures_links_reach_the_reader() -> None:
    # Hugo links the picture (link=) and the credit's words (attrlink=); both went.
    credited = (
        '{{< figure src="cat.png" caption="一只猫" attr="张三" '
        'attrlink="https://z.example.com/a" >}}\n'
    )
    wechat = shown(credited, "wechat")
    assert ">一只猫 · 张三<sup" in wechat  # still a captioned figure, its mark closing it
    assert "一只猫 · 张三: <em>https://z.example.com/a</em>" in wechat
    assert 'href="https://z.example.com/a"' in shown(credited, "zhihu")
    linked = '{{< figure src="cat.png" caption="一只猫" link="https://shop.example.com/cat" >}}\n'
    assert "一只猫: <em>https://shop.example.com/cat</em>" in shown(linked, "wechat")
    # One link per picture: with both, the credit's address is written in the caption.
    both = credited.replace(" >}}", ' link="https://shop.example.com/cat" >}}')
    assert ">一只猫 · 张三 · https://z.example.com/a<sup" in shown(both, "wechat")


@pytest.mark.parametrize(
    ("shortcode", "title", "under"),
    [
        # A quote's author and source (Hugo themes' quote) were left out with no word.
        ('{{< quote author="鲁迅" source="《故乡》" >}}', None, "— 鲁迅, 《故乡》"),
        # A spoiler's words are its text (hugo-shortcode-spoiler), not a title.
        ('{{< spoiler text="点开看答案" >}}', "点开看答案", None),
        # A notice titled by its one argument: that argument is words, not a kind.
        ('{{< notice "阅读之前" >}}', "阅读之前", None),
        ('{{< tip "小窍门" >}}', "小窍门", None),
        # Settings are no words: a kind, a colour, an icon.
        ('{{< alert icon="👉" context="warning" >}}', None, None),
        ('{{< notice warning "标题" >}}', "标题", None),
    ],
)
def test_every_word_a_hugo_notes_arguments_hold_is_shown(
    shortcode: str, title: str | None, under: str | None
) -> None:
    name = shortcode.split()[1]
    body = f"{shortcode}\n正文。\n{{{{< /{name} >}}}}\n"
    zhihu = shown(body, "zhihu")
    if title:
        assert f"<b>{title}</b><br>正文。" in zhihu
    if under:
        assert f"正文。<br>{under}</blockquote>" in zhihu
        assert under in words(shown(body, "wechat"))
    if not (title or under):
        assert "👉" not in zhihu and "warning" not in zhihu


def test_a_formula_in_doubled_backslash_brackets_is_a_formula() -> None:
    # Hexo and Hugo posts write \\( … \\): their Markdown leaves \( … \) for MathJax.
    body = "其中\\\\( c\\approx 3 \\\\)，而 \\\\ 单独不是。\n"
    zhihu = shown(body, "zhihu")
    assert 'alt="c\\approx 3"' in zhihu and "，而 \\ 单独不是。" in zhihu


def test_a_bracketed_formula_in_the_middle_of_a_sentence_is_a_formula() -> None:
    # ChatGPT's display formula mid-sentence showed '[\frac{a+b}{2} \ge \sqrt{ab}]'.
    body = "由不等式 \\[\\frac{a+b}{2} \\ge \\sqrt{ab}\\] 可知。见 \\[1\\] 与 \\[文字\\]。\n"
    zhihu = shown(body, "zhihu")
    assert 'alt="\\frac{a+b}{2} \\ge \\sqrt{ab}"' in zhihu
    assert "可知。见 [1] 与 [文字]。" in words(zhihu)
    wechat = shown(body, "wechat")
    assert wechat.count("<svg") == 1 and "\\frac" not in words(wechat)


def test_brackets_a_converter_escaped_stay_brackets_not_formulas() -> None:
    # turndown (MarkDownload, web clippers) writes every '[' as '\\[': the words went out
    # as formulas, '--max_retries=3' with an index, and the sentence lost them.
    body = (
        "\\[Sponsored\\]\nSet \\[--max\\_retries=3\\] or see \\[docs/release\\_notes.md\\].\n"
        "Tags: \\[machine\\_learning\\]\n\n\\[a+b=c\\]\n"
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        text = words(html)
        assert "[Sponsored] Set [--max_retries=3] or see [docs/release_notes.md]." in text
        assert "Tags: [machine_learning]" in text, channel
    assert shown(body, "wechat").count("<svg") == 1  # a+b=c is a formula still


def test_html2texts_padded_list_markers_and_addresses_cut_at_a_hyphen_read_as_meant() -> None:
    # Word's lists through html2text were code boxes with their '**' showing; a long
    # address wrapped at a hyphen left the link as written, '[…](https://…tiny- bloom)'.
    body = (
        "1.      Log in before **15 October**.\n2.      Change your password.\n\n"
        "[lkovac/tiny-bloom](https://github.com/lkovac/tiny-\nbloom) is nice.\n\n"
        "```\n1.      code stays\n[x](https://e.com/in-\ncode)\n```\n"
    )
    zhihu = shown(body, "zhihu")
    assert (
        "<ol><li>Log in before <b>15 October</b>.</li><li>Change your password.</li></ol>" in zhihu
    )
    assert '<a href="https://github.com/lkovac/tiny-bloom">lkovac/tiny-bloom</a>' in zhihu
    assert "1.      code stays\n[x](https://e.com/in-\ncode)" in zhihu  # a fence shows it all
    assert shown(body, "wechat").count("<pre") == 1  # the fence's, not the items'


def test_a_number_sign_html2text_wrapped_to_a_lines_start_is_no_heading() -> None:
    # html2text wraps "ranked # 2 in the charts" at 78 columns; the line '# 2 in the
    # charts' was a heading cutting the sentence in two. Headings written by hand (after a
    # short line, a sentence's end, a blank line), and code, stay as they were.
    body = (
        "Their third album in the spring was, as expected, quickly ranked at number\n"
        "# 2 in the charts for weeks.\n\n"
        "A short line\n# 2 things we learned\n\n"
        "This paragraph ends with a long sentence that takes up the whole line.\n"
        "# 5 tips for better sleep\n\n# 3 wishes\n\n"
        "```\nThis code line is long enough to have been wrapped by html2text, in\n"
        "# 2 places\n```\n"
    )
    zhihu = shown(body, "zhihu")
    assert (
        "<p>Their third album in the spring was, as expected, quickly ranked at number "
        "# 2 in the charts for weeks.</p>"
    ) in zhihu
    assert re.findall(r"<h2>([^<]*)</h2>", zhihu) == [
        "2 things we learned", "5 tips for better sleep", "3 wishes",
    ]  # fmt: skip
    assert "in\n# 2 places" in zhihu  # code is code
    assert shown(body, "wechat").count("<h1") == 3


def test_an_emails_tracking_pixels_are_left_out_and_named(body_warnings: BodyWarnings) -> None:
    # A newsletter's email through a converter keeps its open-tracking pixels: each was
    # downloaded and uploaded to WeChat as a picture of its own. Pictures named or sized
    # otherwise stay.
    body = (
        "Hello.\n\n![](https://list.e.com/track/open.php?u=1&id=2)\n\n"
        'Text ![](https://e.com/b.gif){width="1" height="1"} more.\n\n'
        '<img src="https://mail.e.com/spacer.gif" width="1" height="1" alt="">\n\n'
        "[![](https://u1.ct.e.net/wf/open?upn=abc)](https://e.com)\n\n"
        "![](https://eotrx.e.com/open?token=x) ![](https://e.com/o.gif?x=1)\n\n"
        "![logo](https://e.com/logo.png) ![](https://e.com/icons/open.png?v=2) "
        "![](https://e.com/phones/pixel.jpg?w=800) ![](https://e.com/a.png =1x)\n\n"
        '<img src="data:image/gif;base64,R0lGOD" data-src="https://e.com/c.png" width="1" '
        'height="1">\n'
    )
    kept = ("logo.png", "icons/open.png", "phones/pixel.jpg", "e.com/a.png", "e.com/c.png")
    for channel in CHANNELS:
        html = shown(body, channel)
        assert html.count("<img") == len(kept), channel
        assert all(name in html for name in kept), channel
        assert "Text more." in " ".join(words(html).split()), channel
    pixels = [line for line in body_warnings(body) if "tracking pixel" in line]
    left_out = "so it is left out of every channel; delete it from the issue to silence this"
    named, sized = "its address is an email service's open-tracking pixel", "a 1×1 picture"
    assert pixels == [
        f"issue.md:6: warning: the image 'https://list.e.com/track/open.php?u=1&id=2' is a "
        f"tracking pixel of the email the issue came from ({named}), {left_out}",
        f"issue.md:8: warning: the image 'https://e.com/b.gif' is a tracking pixel of the "
        f"email the issue came from ({sized}), {left_out}",
        f"issue.md:10: warning: the image 'https://mail.e.com/spacer.gif' is a tracking "
        f"pixel of the email the issue came from ({sized}), {left_out}",
        f"issue.md:12: warning: the image 'https://u1.ct.e.net/wf/open?upn=abc' is a "
        f"tracking pixel of the email the issue came from ({named}), {left_out}",
        f"issue.md:14: warning: the image 'https://eotrx.e.com/open?token=x' is a tracking "
        f"pixel of the email the issue came from ({named}), {left_out}",
        f"issue.md:14: warning: the image 'https://e.com/o.gif?x=1' is a tracking pixel of "
        f"the email the issue came from ({named}), {left_out}",
    ]


def test_turndowns_picture_linked_over_lines_is_a_linked_picture() -> None:
    # Every Substack figure clipped with turndown: paragraphs '[' and '](https://…)'.
    body = "前文\n\n[\n\n![图表](https://e.com/chart.png)\n\n](https://e.com/post)\n\n后文\n"
    assert words(shown(body, "wechat")).startswith("&nbsp;前文图表[1]后文引用链接")
    zhihu = shown(body, "zhihu")
    assert "](" not in zhihu and '<a href="https://e.com/post">' in zhihu


def test_a_picture_of_a_videos_page_is_the_video(check_lines: CheckLines) -> None:
    # Obsidian's web clipper: check refused it as an image that is not one, and WeChat
    # left it out.
    document = (
        "---\ntitle: 视频\n---\n看 ![](https://www.youtube.com/watch?v=V3pzxngeLqw) 这段。\n\n"
        "![演示](https://www.bilibili.com/video/BV1xx411c7mD)\n\n`![](https://youtu.be/x)`\n"
    )
    lines = check_lines(document)
    assert not [line for line in lines if "image '" in line or "not an image" in line]
    assert len([line for line in lines if "cannot play on wechat" in line]) == 2
    body = document.split("---\n", 2)[2]
    zhihu = shown(body, "zhihu")
    assert zhihu.count(">▶ 视频</a>") == 2 and "<code>![](https://youtu.be/x)</code>" in zhihu


def test_blocks_nested_with_fences_of_one_length_nest_as_quarto_reads_them(
    body_warnings: BodyWarnings,
) -> None:
    # The note ended at the tip's closing line; its own closing line and the words
    # between went out as a paragraph ending in ':::'. Quarto's columns were notes.
    body = (
        "::: {.callout-note}\n## 标题\n\n外层。\n\n::: {.callout-tip}\n内层。\n:::\n\n"
        '仍在外层。\n:::\n\n之后。\n\n:::: {.columns}\n::: {.column width="50%"}\n左栏。\n'
        ':::\n::: {.column width="50%"}\n右栏。\n:::\n::::\n\n```md\n::: {.x}\n:::\n```\n'
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith(
        "<blockquote><b>注</b><br><b>标题</b><br>外层。<br><b>提示</b><br>内层。<br>仍在外层。"
        "</blockquote><p>之后。</p><p>左栏。</p><p>右栏。</p>"
    )
    assert "::: {.x}\n:::" in zhihu  # code keeps its colons as written
    assert body_warnings(body) == []


def test_an_ai_assistants_citation_marks_are_left_out_and_named_once(
    body_warnings: BodyWarnings,
) -> None:
    # Pasted answers showed '50%[^4^]', 'citeturn0search3' (and private-use boxes) and
    # ':contentReference…' in the middle of sentences, pointing nowhere.
    body = (
        "增长了 50%[^4^]，见 :contentReference[oaicite:0]{index=0} 文献【3†source】。\n\n"
        "[cite_start]模型很强[cite: 1, 4]，DeepSeek 说[citation:3]。\n\n"
        "ChatGPT\ue200cite\ue202turn0search3\ue201 提到 "
        '\ue200entity\ue202["人物","李白"]\ue201。\n\n'
        "```\n[^1^] 代码里照旧\n```\n"
    )
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "增长了 50%，见 文献。" in text, channel
        assert "模型很强，DeepSeek 说。" in text and "ChatGPT 提到 李白。" in text, channel
        assert "代码里照旧" in text and "[^1^]" in text and "\ue200" not in text, channel
    (said,) = body_warnings(body)
    assert said.startswith(
        "issue.md:4: warning: citation marks an AI assistant left (such as '[^4^]') on "
        "lines 4, 6, 8 are left out of every channel"
    )


def test_siyuans_block_ids_before_an_items_words_and_under_a_table_are_left_out() -> None:
    # SiYuan's export: '{: id="…"}深度工作' on each bullet; under a table the ids' pipes
    # (colgroup="||") made an extra row that showed '{: colgroup="'.
    body = (
        '* {: id="20240311092931-nq8w4c2"}**深度工作**：专注\n'
        '  {: id="20240311092931-abc"}\n* {: id="x2"}第二项\n{: id="list1"}\n\n'
        "|准则|执行度|\n| ---| ---|\n|工作要深入|7/10|\n"
        '{: colgroup="||" id="20231225122041-vt569q7"}\n'
    )
    for channel in CHANNELS:
        html = shown(body, channel)
        assert "{:" not in html and "colgroup" not in html, channel
        assert "深度工作" in words(html) and "第二项" in words(html), channel
    assert shown(body, "zhihu").count("<tr>") == 2  # the header and the one row


def test_feishus_deep_headings_and_callout_tags_and_logseqs_dotted_properties() -> None:
    body = (
        "## 二级\n\n####### 附：字段命名规范\n\n"
        '<callout emoji="💡">\n评审结论：**按期发布**，见 [v2.4](https://e.com/v24)。\n</callout>\n\n'
        "- 第一步\n  logseq.order-list-type:: number\n"
    )
    wechat = shown(body, "wechat")
    assert "<h6" in wechat and "#######" not in wechat  # shown as written before
    assert "<strong" in wechat and "**" not in wechat and "e.com/v24" in words(wechat)
    assert "logseq.order-list-type" not in wechat and "第一步" in words(wechat)
    zhihu = shown(body, "zhihu")
    assert "<b>按期发布</b>" in zhihu and 'href="https://e.com/v24"' in zhihu


# --- note apps: iA Writer, Bear, Notion ---------------------------------------------------


def _issue_with(folder: Path, body: str, name: str = "issue.md") -> Path:
    path = folder / name
    path.write_text("---\ntitle: 笔记\n---\n\n" + body, "utf-8")
    return path


def test_ia_writer_content_blocks_show_the_files_they_name(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    Image.new("RGB", (40, 30), "red").save(tmp_path / "chart.png")
    (tmp_path / "data.csv").write_text("name,score\nA,1\n", "utf-8")
    (tmp_path / "part.md").write_text("---\ntitle: x\n---\n被包含的 **文字**。\n", "utf-8")
    (tmp_path / "fib.py").write_text("def f():\n    return 1\n", "utf-8")
    body = (
        '/chart.png "一张图"\n\n/data.csv\n\n/part.md\n\n/fib.py\n\n/issue.md\n\n'
        "/usr/bin 是系统目录\n"
    )
    path = _issue_with(tmp_path, body)
    issue = read_issue(path)
    zhihu = render(issue, "zhihu", RenderContext()).body
    assert 'src="chart.png"' in zhihu and 'data-caption="一张图"' in zhihu
    assert "<th>name</th><th>score</th>" in zhihu and "<td>A</td><td>1</td>" in zhihu
    assert "被包含的 <b>文字</b>" in zhihu and "title: x" not in zhihu
    assert '<pre lang="python">def f():\n    return 1</pre>' in zhihu
    assert "<p>/issue.md</p>" in zhihu  # itself: never included
    assert "<p>/usr/bin 是系统目录</p>" in zhihu  # no such file: the writer's words
    wechat = render(issue, "wechat", RenderContext()).body
    assert "<sub" not in wechat and "/chart.png" not in wechat and "<table" in wechat
    lines = [line for line in check_lines(path.read_text("utf-8")) if "content block" in line]
    assert lines == [
        "issue.md:5: note: '/chart.png' is a content block: the picture from chart.png is shown",
        "issue.md:7: note: '/data.csv' is a content block: a table from data.csv is shown",
        "issue.md:9: warning: '/part.md' is a content block: its text from part.md is shown; "
        "check that it is meant for readers",
        "issue.md:11: warning: '/fib.py' is a content block: its code from fib.py is shown; "
        "check that it is meant for readers",
        "issue.md:13: note: '/issue.md' would include itself, so the content block is shown "
        "as the line it is",
    ]


def test_ia_writer_content_blocks_that_include_each_other_stop_at_the_loop(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.md").write_text("甲\n\n/b.md\n", "utf-8")
    (tmp_path / "b.md").write_text("乙\n\n/a.md\n", "utf-8")
    (tmp_path / "big.txt").write_text("字" * 150_001, "utf-8")
    outside = tmp_path.parent / f"{tmp_path.name}-secret.txt"
    outside.write_text("不该发布", "utf-8")
    (tmp_path / "link.txt").symlink_to(outside)  # a link out of the issue's folder
    issue = read_issue(_issue_with(tmp_path, "/a.md\n\n/big.txt\n\n/link.txt\n"))
    zhihu = render(issue, "zhihu", RenderContext()).body
    assert zhihu == "<p>甲</p><p>乙</p><p>/a.md</p><p>/big.txt</p><p>/link.txt</p>"


def test_bears_attachments_highlights_and_tags(tmp_path: Path, check_lines: CheckLines) -> None:
    (tmp_path / "笔记").mkdir()
    Image.new("RGB", (40, 30), "blue").save(tmp_path / "笔记" / "IMG_0231.png")
    (tmp_path / "笔记" / "report.pdf").write_bytes(b"%PDF")
    body = (
        "[image:IMG_0231.png]\n\n[file:report.pdf] 与 [image:missing.png]\n\n"
        "这是 ::重点:: 与 std::vector::size。\n\n#tag #multi word tag# #nested/tag\n\n"
        "正文里的 #tag 不动，#话题# 也不动。\n\n#1\n\n# 真标题\n"
    )
    path = _issue_with(tmp_path, body)
    zhihu = render(read_issue(path), "zhihu", RenderContext()).body
    assert 'src="笔记/IMG_0231.png"' in zhihu
    assert "report.pdf" in zhihu and "[image:missing.png]" in zhihu
    assert "这是 <b>重点</b> 与 std::vector::size。" in zhihu
    assert "multi word" not in zhihu and "#nested/tag" not in zhihu
    assert "<p>正文里的 #tag 不动，#话题# 也不动。</p><p>#1</p><h2>真标题</h2>" in zhihu
    assert "<mark" in shown("这是 ::重点::。", "wechat")
    assert [line for line in check_lines(path.read_text("utf-8")) if "tags" in line] == [
        "issue.md:11: warning: this line holds only tags (Bear's, for filing the note), so it is "
        "left out of every channel; write the words out of the '#' if readers should see them"
    ]


def test_a_bear_attachment_naming_no_file_is_named_at_its_line(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    # '[image:missing-photo.jpg]' went out as written, and check said nothing.
    Image.new("RGB", (40, 30), "blue").save(tmp_path / "IMG_0231.png")
    body = "[image:IMG_0231.png]\n\n附件 [file:missing.pdf]。\n\n[image:missing-photo.jpg]\n"
    path = _issue_with(tmp_path, body)
    zhihu = render(read_issue(path), "zhihu", RenderContext()).body
    assert zhihu.startswith('<img src="IMG_0231.png"')
    assert "<p>附件 [file:missing.pdf]。</p><p>[image:missing-photo.jpg]</p>" in zhihu
    where = "next to the issue (nor in a folder named after the note, as Bear exports it)"
    assert [line for line in check_lines(path.read_text("utf-8")) if "Bear" in line] == [
        f"issue.md:7: warning: '[file:missing.pdf]' is a Bear attachment, but its file is not "
        f"{where}, so it is shown as written; add the file there, or remove the line",
        f"issue.md:9: warning: '[image:missing-photo.jpg]' is a Bear attachment, but its "
        f"picture is not {where}, so it is shown as written; add the picture there, or remove "
        "the line",
    ]


NOTION_PAGE = """# 周报 第 3 期

Created: January 5, 2024 3:04 PM
Tags: a, b
Status: Published

正文第一段。

<aside>
<img src="https://www.notion.so/icons/star_yellow.svg" alt="icon" width="40px" /> **本周重点**

发布了 1.0。

</aside>

参考 [](https://www.notion.so/abc-123456) 页面。
"""


def test_a_line_of_hashtags_is_the_writers_where_nothing_says_bear() -> None:
    body = "正文。\n\n#人工智能 #深度学习 #LLM\n\n#话题# #话题二#\n"
    zhihu = shown(body, "zhihu")
    assert "#人工智能 #深度学习 #LLM" in zhihu and "#话题# #话题二#" in zhihu
    assert "#LLM" not in shown(body + "\n#notes/inbox\n", "zhihu")  # Bear's nested tag


def test_a_notion_export_loses_its_properties_and_callout_icon(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    path = tmp_path / "issue.md"
    path.write_text(NOTION_PAGE, "utf-8")
    issue = read_issue(path)
    zhihu = render(issue, "zhihu", RenderContext()).body
    assert zhihu.startswith("<p>正文第一段。</p><p><b>本周重点</b></p>")
    assert "Created" not in zhihu and "notion.so/icons" not in zhihu
    address = "https://www.notion.so/abc-123456"
    assert f'<a href="{address}">{address}</a>' in zhihu
    wechat = render(issue, "wechat", RenderContext()).body
    assert "参考 https://www.notion.so/abc-123456 页面" in words(wechat)
    assert "[1]" not in wechat and "<strong" in wechat
    lines = check_lines(NOTION_PAGE)
    assert not [line for line in lines if "svg" in line.lower() or "icons" in line]
    assert [line for line in lines if "properties" in line] == [
        "issue.md:3: warning: these 3 lines look like a Notion page's properties (Created, Tags, "
        "Status), so they are left out of every channel (they would be the article's first "
        "words and its digest); write them as a sentence if readers should see them"
    ]


def test_one_key_line_or_a_credits_block_at_the_top_is_prose() -> None:
    assert shown("注意: 本期延后。\n\n正文。\n", "zhihu") == "<p>注意: 本期延后。</p><p>正文。</p>"
    # Lines of 'Key: value' that name none of Notion's own properties and hold no date
    # as Notion writes one are the writer's: the issue's credits.
    credits = "主编: 张三\n责编: 李四\n\n正文。\n"
    assert shown(credits, "zhihu") == "<p>主编: 张三责编: 李四</p><p>正文。</p>"  # CJK lines join
    notice = "时间: 2024年3月1日 14:00\n地点: 北京中关村\n\n正文。\n"  # a date is no sign
    assert shown(notice, "zhihu").startswith("<p>时间: 2024年3月1日 14:00")
    release = "Status: shipped on time\nType: maintenance release\n\n正文。\n"
    assert shown(release, "zhihu").startswith("<p>Status: shipped on time")
    chinese = "创建时间: 2024年1月5日 15:04\n标签: 周报\n\n正文。\n"
    assert shown(chinese, "zhihu") == "<p>正文。</p>"


# --- Quarto and R Markdown -----------------------------------------------------------------

QUARTO = """```{python}
#| label: fig-plot
#| echo: true
print(1)
```

```{r setup, include=FALSE}
library(x)
```

```{python}
#| include: false
secret = 1
```

```{r, echo=FALSE}
plot(1)
```

```python
#| shown: as written
```

| a | b |
|---|---|
| 1 | 2 |

: 性能对比 {#tbl-perf}

{{< video https://www.youtube.com/watch?v=abc >}}

均值是 `r mean(x)`，见 @fig-plot 和 @smith2020，感谢 @张三。

::: {#refs}
:::
"""


def test_quarto_chunks_options_captions_videos_and_the_bibliography_div(
    body_warnings: BodyWarnings, check_lines: CheckLines
) -> None:
    zhihu = shown(QUARTO, "zhihu")
    assert '<pre lang="python">print(1)</pre>' in zhihu
    assert "library" not in zhihu and "secret" not in zhihu and "plot(1)" not in zhihu
    assert "#| shown: as written" in zhihu  # not a chunk: shown as written
    assert "<p>性能对比</p>" in zhihu and "tbl-perf" not in zhihu
    assert '<a href="https://www.youtube.com/watch?v=abc">▶ 视频</a>' in zhihu
    assert "`r mean(x)`" not in zhihu and "<code>r mean(x)</code>" in zhihu  # as written
    assert "<blockquote>" not in zhihu and "注" not in words(zhihu)
    render = "render the document first (quarto render FILE --to gfm writes the output in)"
    assert body_warnings(QUARTO) == [
        # A figure's label: the code is shown, the figure it draws is not (no code runs).
        "issue.md:4: warning: this code chunk makes the figure 'fig-plot', which the site "
        "shows under its code, but crosspost runs no code, so readers see the code alone; "
        f"{render} or paste the figure here",
        # echo=FALSE: the site shows the output alone, and readers here saw nothing.
        "issue.md:19: warning: this code chunk has 'echo=FALSE': the site shows its output in "
        "its place, but crosspost runs no code, so readers see nothing of it; "
        f"{render} or paste the output here",
        "issue.md:35: warning: inline R code (`r …`, line 35) is run by R Markdown or Quarto "
        "when the site is built; crosspost runs nothing, so readers see the code: write its "
        "value",
        "issue.md:35: warning: '@…' citations and cross references (line 35) are filled in by "
        "Pandoc or Quarto from the bibliography and the figures' numbers; crosspost shows "
        'them as written: write the reference out ("Smith, 2020", "图 1")',
    ]
    document = "---\ntitle: q\n---\n" + QUARTO
    hidden = [line for line in check_lines(document) if "note:" in line and "chunk" in line]
    assert hidden == [
        f"issue.md:{line}: note: this code chunk has '{option}', so the site hides it and it "
        "is left out of every channel (crosspost runs no code: its output is not shown either)"
        for line, option in ((10, "include=FALSE"), (14, "#| include: false"))
    ]


def test_a_chunk_whose_figure_the_site_shows_is_a_warning_not_a_note(
    body_warnings: BodyWarnings,
) -> None:
    # The chunk went with its figure, and only 'check -v' said so: the reader lost it.
    body = (
        '```{r}\n#| label: fig-sales\n#| fig-cap: "各区域销售额"\n#| echo: false\nplot(x)\n```\n\n'
        '```{r, echo=FALSE, fig.cap="趋势图"}\nplot(trend)\n```\n\n'
        "```{python}\n#| echo: false\n#| output: false\nsetup()\n```\n"
    )
    assert shown(body, "zhihu") == ""
    advice = "render the document first (quarto render FILE --to gfm writes the output in)"
    assert body_warnings(body) == [
        "issue.md:4: warning: this code chunk has '#| echo: false': the site shows the figure "
        "'各区域销售额' in its place, but crosspost runs no code, so readers see nothing of "
        f"it; {advice} or paste the figure here",
        "issue.md:11: warning: this code chunk has 'echo=FALSE': the site shows the figure "
        "'趋势图' in its place, but crosspost runs no code, so readers see nothing of it; "
        f"{advice} or paste the figure here",
    ]  # the last one shows nothing on the site either: a note, for check -v


def test_quarto_cross_references_shortcodes_and_layout_divs(
    body_warnings: BodyWarnings,
) -> None:
    body = (
        "如 @fig-mau 所示。见 [@fig-mau] 和 [-@fig-mau]，另见 [@doe2020; @fig-mau]。\n\n"
        "{{< pagebreak >}}\n\n按 {{< kbd Ctrl-C >}} 复制{{< pagebreak >}}。\n\n"
        "{{< include _footer.qmd >}}\n\n::: {layout-ncol=2}\n![A](a.png)\n\n![B](b.png)\n:::\n"
    )
    zhihu = shown(body, "zhihu")
    assert "pagebreak" not in zhihu and "<p>按 <code>Ctrl-C</code> 复制。</p>" in zhihu
    assert "<blockquote>" not in zhihu and "layout" not in zhihu  # a layout is no note
    assert zhihu.count("<img") == 2
    found = body_warnings(body)
    assert found == [
        # A bracket with a citation in it is Pandoc's citation; one warning for the cross
        # references, bracketed or not.
        "issue.md:4: warning: '[@doe2020; @fig-mau]' is a Pandoc citation, which needs the "
        "bibliography Pandoc fills it from: it goes out as written; write the reference out "
        '("Doe, 2020") and list the works at the end',
        "issue.md:4: warning: Quarto's cross references ('@fig-mau', line 4) are numbered by "
        "Quarto when it renders the document; crosspost shows them as written: write the "
        'reference out ("图 1", "表 2")',
        "issue.md:10: warning: '{{< include _footer.qmd >}}' is a shortcode (Quarto's, a "
        "site's) that includes another file, whose text is not in this file: it goes out as "
        "literal text; paste that file's text in its place",
    ]


def test_a_callout_never_closed_is_quoted_as_written(check_lines: CheckLines) -> None:
    # '::: {.callout-note}' was quoted as '::: note', which the file does not hold.
    lines = check_lines("---\ntitle: t\n---\n正文。\n\n::: {.callout-note}\n## 口径\n本周起。\n")
    assert [line for line in lines if "never closed" in line] == [
        "issue.md:6: warning: '::: {.callout-note}' is never closed, so it runs to the end of "
        "the issue; add a ':::' line where it ends"
    ]


# --- Hexo labels and timelines, Typora's root ----------------------------------------------


def test_hexo_labels_show_their_text_and_timeline_nodes_their_titles() -> None:
    body = (
        "新版 {% label primary@新特性 %} 与 {% label 文字 blue %}。\n\n"
        "{% timeline 2024,blue %}\n<!-- timeline 3月 -->\n发布 1.0\n<!-- endtimeline -->\n"
        "<!-- timeline 5月 -->\n发布 2.0\n<!-- endtimeline -->\n{% endtimeline %}\n"
    )
    assert shown(body, "zhihu") == (
        "<p>新版 新特性 与 文字。</p><p><b>2024</b></p><p><b>3月</b></p><p>发布 1.0</p>"
        "<p><b>5月</b></p><p>发布 2.0</p>"
    )


def test_typoras_root_url_is_where_a_path_from_the_root_is_found(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    (tmp_path / "assets").mkdir()
    Image.new("RGB", (40, 30), "red").save(tmp_path / "assets" / "image-x.png")
    document = "---\ntitle: t\ntypora-root-url: assets\n---\n\n文字\n\n![](/image-x.png)\n"
    assert not [line for line in check_lines(document) if "image-x" in line]
    elsewhere = document.replace("assets\n", "other\n")
    assert [line for line in check_lines(elsewhere) if "image-x" in line]


# --- converted references and footnotes (Zhihu, mammoth) ------------------------------------


def test_a_zhihu_reference_is_a_note_numbered_with_the_links() -> None:
    # Its title and address were lost, and WeChat's link reference [1] stood beside it.
    body = (
        'RoPE<sup data-text="论文标题" data-url="https://arxiv.org/abs/1706.03762" '
        'data-draft-node="inline" data-draft-type="reference" data-numero="1">[1]</sup> '
        "见 [主页](https://example.com/home)。\n"
    )
    wechat = shown(body, "wechat")
    assert "论文标题 https://arxiv.org/abs/1706.03762" in words(wechat)
    assert words(wechat).count("[1]") == 2 and "[2]" in words(wechat)  # mark and note; the link
    assert "主页: https://example.com/home" in words(wechat)
    zhihu = shown(body, "zhihu")
    assert 'data-text="论文标题" data-url="https://arxiv.org/abs/1706.03762"' in zhihu
    assert 'data-draft-type="reference"' in zhihu


def test_mammoths_footnotes_are_footnotes_without_their_back_links() -> None:
    body = (
        "上线了新版帮助中心[\\[1\\]](#footnote-1)，详见[文档](https://wiki.example.com)。\n\n"
        '1. <a id="footnote-1"></a> 帮助中心地址：help.example.com [↑](#footnote-ref-1)\n'
    )
    wechat = words(shown(body, "wechat"))
    assert "帮助中心[1]，详见文档[2]" in wechat
    assert "[1]&nbsp;帮助中心地址：help.example.com" in wechat
    assert "↑" not in wechat and "1. " not in wechat
    assert 'data-text="帮助中心地址：help.example.com"' in shown(body, "zhihu")
    # A mark without its note stays as written.
    assert "[1]" in words(shown("文字[\\[1\\]](#footnote-1)\n", "wechat"))


def test_zhihus_redirect_is_the_address_it_leads_to() -> None:
    body = (
        "[原文](https://link.zhihu.com/?target=https%3A//github.com/a/b) 和 "
        '<a href="https://link.zhihu.com/?target=https%3A//example.com/x%3Fa%3D1">x</a>\n\n'
        "```\nhttps://link.zhihu.com/?target=https%3A//kept.example\n```\n"
    )
    wechat = shown(body, "wechat")
    assert "https://github.com/a/b" in wechat and "https://example.com/x?a=1" in wechat
    assert "link.zhihu.com/?target=https%3A//kept.example" in wechat  # code is code
    assert 'href="https://github.com/a/b"' in shown(body, "zhihu")


def test_a_zhihu_notes_back_link_is_left_out() -> None:
    body = "1. [^](#ref_1_0)Su J, et al. RoFormer\n"
    for channel in CHANNELS:
        assert "^" not in words(shown(body, channel))


# --- Roam Research -----------------------------------------------------------------------------


def test_roams_tasks_highlights_and_italics(body_warnings: BodyWarnings) -> None:
    body = (
        "- {{[[TODO]]}} Send the deck to [[Alice]]\n"
        "- {{[[DONE]]}} Review the draft\n"
        "- I learned that __spaced repetition__ works with ^^active recall^^.\n"
    )
    wechat = shown(body, "wechat")
    assert "☐&nbsp;</span>Send the deck" in wechat and "☑&nbsp;</span>Review" in wechat
    assert re.search(r"<em[^>]*>spaced repetition</em>", wechat)
    assert re.search(r"<mark[^>]*>active recall</mark>", wechat)
    assert "{{" not in words(wechat)
    assert "☐ Send" in shown(body, "zhihu")
    assert not [w for w in body_warnings(body) if "template variable" in w]


def test_outside_a_roam_export_two_underscores_stay_bold() -> None:
    # Obsidian writes wiki links too, and means bold by __words__.
    assert re.search(r"<strong[^>]*>粗体</strong>", shown("见 [[笔记]]，__粗体__。\n", "wechat"))


def test_roams_references_aliases_and_macros_are_left_out_and_named(
    check_lines: CheckLines,
) -> None:
    body = (
        "- Key quote ((aB3dE_fGh)) and ((Gx7s-k9aL))\n"
        "- [this alias]([[Zettelkasten]]) and [block alias](((aB3dE_fGh)))\n"
        "- {{embed: ((Gx7s-k9aL))}}\n"
        "- {{[[query]]: {and: [[TODO]] [[newsletter]]}}} after\n"
        "- ((important)) stays, as does {{ site.title }}\n"
    )
    for channel in CHANNELS:
        seen = words(shown(body, channel))
        assert "Key quote […] and […]" in seen
        assert "((" not in seen.replace("((important))", "")
        assert "this alias and block alias" in seen and "Zettelkasten" not in seen
        assert "query" not in seen and "embed" not in seen and "after" in seen
    lines = check_lines("---\ntitle: t\n---\n" + body)
    assert any(
        "issue.md:4: warning: '((aB3dE_fGh))' (and 1 more on this line) is a Roam block "
        "reference" in line
        for line in lines
    )
    assert any("issue.md:5: warning: '[this alias]([[Zettelkasten]])'" in line for line in lines)
    embed = "issue.md:6: warning: '{{embed: ((Gx7s-k9aL))}}' is Roam's embed of a block"
    assert any(embed in line for line in lines)
    assert any("issue.md:7: warning: Roam's {{query}}" in line for line in lines)


def test_a_roam_block_reference_or_embed_leaves_a_mark_and_a_warning_as_logseqs_do(
    body_warnings: BodyWarnings,
) -> None:
    # '参考了 ((aB3dE_fGh)) 的讨论' went out as '参考了 的讨论', noted only with -v; an
    # embed went without a trace. Logseq's leave a visible mark and a warning; so do Roam's.
    body = (
        "- {{[[TODO]]}} 读完\n"
        "- 参考了 ((aB3dE_fGh)) 的讨论\n"
        "- {{[[embed]]: ((Gx7s-k9aL))}}\n"
        "- {{embed: [[读书笔记]]}}\n"
    )
    for channel in CHANNELS:
        text = words(shown(body, channel))
        assert "参考了 […] 的讨论" in text and text.count("[…]") == 2, channel
        assert "读书笔记" in text and "embed" not in text and "Gx7s" not in text, channel
    assert body_warnings(body) == [
        "issue.md:5: warning: '((aB3dE_fGh))' is a Roam block reference: Roam shows the "
        "words of that block here, which are in your graph, not in this file, so readers "
        "see '[…]' in their place; paste the block's text here",
        "issue.md:6: warning: '{{[[embed]]: ((Gx7s-k9aL))}}' is Roam's embed of a block, "
        "whose text is in your graph, not in this file, so readers see '[…]' in its place; "
        "paste the text here",
        "issue.md:7: warning: '{{embed: [[读书笔记]]}}' is Roam's embed of the page '读书笔记', "
        "whose text is in your graph, not in this file, so readers see only the page's name "
        "in its place; paste the text here",
    ]


def test_roams_and_obsidians_marks_only_where_those_tools_wrote_the_file() -> None:
    # A writer's double parentheses, an emoticon and a changelog's boxes are no Roam block
    # reference, highlight or Obsidian task.
    assert shown("学年((2023-2024))的计划 ((follow-up)) 和 __粗__\n", "zhihu") == (
        "<p>学年((2023-2024))的计划 ((follow-up)) 和 <b>粗</b></p>"
    )
    assert shown("谢谢^^下次见^^\n", "zhihu") == "<p>谢谢^^下次见^^</p>"
    changelog = "- [-] Removed bar\n- [!] Breaking change\n\n1. [>] x\n"
    assert shown(changelog, "zhihu") == (
        "<ul><li>[-] Removed bar</li><li>[!] Breaking change</li></ul><ol><li>[&gt;] x</li></ol>"
    )
