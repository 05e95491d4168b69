"""Markup of docs sites, chats and other writing tools that editors paste into an issue:
MkDocs Material's Markdown in HTML and its icons, Dev.to's raw tags, Slack's and
Discord's markup, reStructuredText and AsciiDoc, newsletter services' merge tags, and a
Medium export through ``crosspost import``. Each case is what the tool writes; the
assertions are what a reader of each channel sees and the line ``check`` prints."""

from __future__ import annotations

import re
from pathlib import Path

from crosspost.importers.article import import_article
from crosspost.issue.body import image_refs
from crosspost.issue.loader import load_issue
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, issue_of, shown, words


def _seen(body: str, channel: str) -> str:
    return " ".join(words(shown(body, channel)).replace("&nbsp;", " ").split())


# --- MkDocs Material: md_in_html ----------------------------------------------------------

#: A figure as MkDocs Material's documentation writes one, and a grid of cards.
FIGURE = (
    "正文。\n\n"
    '<figure markdown="span">\n'
    '  ![Image title](a.png){ width="300" }\n'
    "  <figcaption>Image **caption**</figcaption>\n"
    "</figure>\n\n"
    '<div class="grid cards" markdown>\n'
    "- **Fast** and ![](b.png)\n"
    "</div>\n\n"
    '<p markdown="1">A *paragraph*.</p>\n\n'
    '<div markdown="0">\nraw *text*\n</div>\n'
)


def test_markdown_inside_html_marked_markdown_is_read_and_its_pictures_uploaded(
    body_warnings: BodyWarnings,
) -> None:
    # The figure's picture was shown as '![Image title](a.png){ width="300" }' and never
    # uploaded; the list of the grid was one line of text with its asterisks.
    assert [ref.source for ref in image_refs(issue_of(FIGURE))] == ["a.png", "b.png"]
    zhihu = shown(FIGURE, "zhihu")
    assert '<img src="a.png" data-caption="Image caption"' in zhihu  # the figure's caption
    assert '<li><b>Fast</b> and <img src="b.png"' in zhihu
    assert "<p>A <i>paragraph</i>.</p>" in zhihu
    assert "raw *text*" in zhihu  # kramdown's markdown="0": HTML, as written
    for channel in CHANNELS:
        seen = _seen(FIGURE, channel)
        assert "![" not in seen and "{ width" not in seen, channel
        # Once, under the picture, not again as a paragraph (Zhihu's is an attribute).
        assert shown(FIGURE, channel).count("Image caption") == 1, channel
    assert "Image caption" in _seen(FIGURE, "wechat")
    assert body_warnings(FIGURE) == []


def test_a_figures_caption_is_kept_beside_its_pictures_own_title() -> None:
    # The <figcaption> was dropped as the picture's caption, but the picture kept its
    # title alone: the caption's words reached no channel, and check said nothing.
    body = (
        '<figure markdown>\n![替代](https://e.com/a.png "悬停的标题")\n'
        "<figcaption>图一：架构</figcaption>\n</figure>\n\n"
        '<figure markdown>\n![替代](https://e.com/b.png "同一句")\n'
        "<figcaption>同一句</figcaption>\n</figure>\n"
    )
    assert 'data-caption="图一：架构 · 悬停的标题"' in shown(body, "zhihu")
    assert 'data-caption="同一句"' in shown(body, "zhihu")  # said once
    assert ">图一：架构 · 悬停的标题</figcaption>" in shown(body, "wechat")
    markdown = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert '"图一：架构 · 悬停的标题")' in markdown


def test_markdown_inside_html_never_closed_on_a_line_of_its_own_is_named(
    body_warnings: BodyWarnings,
) -> None:
    body = '<div markdown="1">\n**Bold** and ![](a.png)</div>\n'
    assert body_warnings(body) == [
        "issue.md:4: warning: Markdown inside HTML (MkDocs's md_in_html, kramdown's "
        "markdown=\"1\") is read up to a '</div>' alone on a line, and none closes this one: "
        "its bold, links and images show as written and the images are not uploaded; put "
        "'</div>' on a line of its own where the element ends"
    ]


# --- MkDocs Material: icons ---------------------------------------------------------------

ICONS = (
    "- :material-check: 完成\n"
    "- :fontawesome-brands-github: GitHub 与 :simple-python:{ .lg } Python :tada:\n"
)


def test_mkdocs_icons_are_left_out_or_a_sign_and_named_once_per_line(
    body_warnings: BodyWarnings,
) -> None:
    # Both channels showed ':material-check:' and ':simple-python:{ .lg }', unnamed.
    assert shown(ICONS, "zhihu") == "<ul><li>✓ 完成</li><li>GitHub 与 Python 🎉</li></ul>"
    assert "GitHub 与 Python 🎉" in _seen(ICONS, "wechat")
    assert body_warnings(ICONS) == [
        "issue.md:4: warning: ':material-check:' is an icon of MkDocs Material's icon fonts, "
        "which neither WeChat nor Zhihu has: shown as signs of text (':material-check:' as "
        "✓); write a word or an emoji (:white_check_mark:) in its place if it matters",
        "issue.md:5: warning: ':fontawesome-brands-github:', ':simple-python:' are icons of "
        "MkDocs Material's icon fonts, which neither WeChat nor Zhihu has: left out of every "
        "channel; write a word or an emoji (:white_check_mark:) in their place if it matters",
    ]


def test_an_icon_in_code_stays_as_written() -> None:
    assert "<code>:material-check:</code>" in shown("写 `:material-check:` 即可。\n", "zhihu")


# --- Dev.to / Jekyll: raw ------------------------------------------------------------------


def test_a_template_variable_inside_raw_is_shown_and_not_named(
    body_warnings: BodyWarnings,
) -> None:
    # Shown right, but check called '{{ page.title }}' a variable to fill in.
    body = (
        "用 {% raw %}{{ page.title }}{% endraw %} 取标题。\n\n"
        "{% raw %}\n写 {{ site.url }} 即可。\n{% endraw %}\n\n没有 raw 的 {{ x }}。\n"
    )
    for channel in CHANNELS:
        seen = _seen(body, channel)
        assert "用 {{ page.title }} 取标题。" in seen and "写 {{ site.url }} 即可。" in seen
    assert [line.split(": warning: ")[0] for line in body_warnings(body)] == ["issue.md:10"]


# --- Slack and Discord ----------------------------------------------------------------------

CHAT = (
    "<@U024BE7LH> 推荐 <https://arxiv.org/abs/2401.00001|这篇论文>，"
    "<#C024BE7LR|general> 里 <!here>。\n\n"
    "剧透 ||结局是好的||，<@U0ABCDEF|ann> 在 <t:1700000000:D> 说 <:pepe:123456789012345678>。"
    "代码 `a || b` 与 `<@U024BE7LH>` 不动。\n"
)


def test_slack_and_discord_markup_reads_as_the_chat_shows_it(
    body_warnings: BodyWarnings,
) -> None:
    # The link went to '…/2401.00001|这篇论文', '<!here>' was left out, the rest as written.
    zhihu = shown(CHAT, "zhihu")
    assert '<a href="https://arxiv.org/abs/2401.00001">这篇论文</a>' in zhihu
    for channel in CHANNELS:
        seen = _seen(CHAT, channel)
        assert "@U024BE7LH 推荐" in seen and "#general 里 @here。" in seen, channel
        assert "剧透 结局是好的，@ann 在 2023-11-14 UTC 说 :pepe:。" in seen, channel
        assert "a || b" in seen and "<@U024BE7LH>" in seen.replace("&lt;", "<").replace(
            "&gt;", ">"
        ), channel
    assert body_warnings(CHAT) == [
        "issue.md:4: warning: '<@U024BE7LH>' is a chat's mention of a person by id, shown as "
        "'@U024BE7LH'; write the person's name",
        "issue.md:6: warning: '||结局是好的||' is a Discord spoiler (or Ulysses's deleted "
        "text), whose words no channel can hide: they are shown as plain text; leave them "
        "out if no reader should see them, or write ~~…~~ to strike them through",
    ]


# --- reStructuredText and AsciiDoc ------------------------------------------------------------

RST = (
    "见 `文档 <https://pytorch.org/docs>`_、`教程`_ 与 :ref:`intro`。\n\n"
    ".. _教程: https://e.com/tutorial\n\n"
    ".. note::\n\n   先读 **这个**。\n\n"
    ".. warning:: 不要在生产环境使用。\n\n"
    ".. code-block:: python\n\n   print(1)\n\n"
    ".. image:: a.png\n   :alt: 架构\n\n"
    ".. toctree::\n   :maxdepth: 2\n"
)


def test_restructured_text_pasted_into_markdown_reads_as_sphinx_shows_it(
    body_warnings: BodyWarnings,
) -> None:
    # The links were code followed by '_', the note and the code paragraphs, the picture
    # the words '.. image:: a.png', never uploaded.
    zhihu = shown(RST, "zhihu")
    assert (
        '<p>见 <a href="https://pytorch.org/docs">文档</a>、'
        '<a href="https://e.com/tutorial">教程</a> 与 intro。</p>'
        "<blockquote><b>注</b><br>先读 <b>这个</b>。</blockquote>"
        "<blockquote><b>注意</b><br>不要在生产环境使用。</blockquote>"
        '<pre lang="python">print(1)</pre><img src="a.png" data-caption="架构"'
    ) in zhihu
    assert "e.com/tutorial" not in words(zhihu)  # the target's line is left out
    assert [ref.source for ref in image_refs(issue_of(RST))] == ["a.png"]
    assert body_warnings(RST) == [
        "issue.md:21: warning: '.. toctree::' is a reStructuredText directive crosspost does "
        "not read (it reads admonitions, code-block and image): it goes out as literal text; "
        "write what it stands for in Markdown, or leave it out"
    ]


ASCIIDOC = (
    "[WARNING]\n====\n不要在生产环境使用。\n====\n\n"
    ".Careful\n[CAUTION]\n--\n开放块。\n--\n\n"
    "[source,python]\n----\ndef f():\n    return 1\n----\n\n"
    "image::a.png[架构图]\n\n"
    "见 link:https://asciidoc.org[官网] 与 https://e.com[示例]，[博客](https://b.com)[^n]。\n\n"
    "[^n]: 注\n"
)


def test_asciidoc_pasted_into_markdown_reads_as_asciidoctor_shows_it(
    body_warnings: BodyWarnings,
) -> None:
    # The warning block was two headings, the code a paragraph between two rules, the
    # picture its source, and the links went to 'https://asciidoc.org[官网'.
    zhihu = shown(ASCIIDOC, "zhihu")
    assert zhihu.startswith(
        "<blockquote><b>注意</b><br>不要在生产环境使用。</blockquote>"
        "<blockquote><b>Careful</b><br>开放块。</blockquote>"
        '<pre lang="python">def f():\n    return 1</pre><img src="a.png" data-caption="架构图"'
    )
    assert (
        '见 <a href="https://asciidoc.org">官网</a> 与 <a href="https://e.com">示例</a>，'
        '<a href="https://b.com">博客</a>'
    ) in zhihu
    assert "<h" not in zhihu and "[" not in re.sub(r"\[\d\]", "", words(zhihu))
    assert [ref.source for ref in image_refs(issue_of(ASCIIDOC))] == ["a.png"]
    assert body_warnings(ASCIIDOC) == []


# --- newsletter services' template tags ---------------------------------------------------------


def test_a_newsletter_services_merge_tags_are_named_as_such(body_warnings: BodyWarnings) -> None:
    # Buttondown's, Kit's and beehiiv's tags were called a static site's variables.
    body = (
        "Hi {{ subscriber.first_name }},\n\n"
        '{% if subscriber.tags contains "vip" %}VIP{% endif %}\n\n推荐 {{rp_refer_url}}\n'
    )
    said = body_warnings(body)
    # Line 6 once: its '{% endif %}' ends the newsletter's condition, no Jekyll tag.
    assert [line.split(": warning: ")[0] for line in said] == [
        "issue.md:4", "issue.md:6", "issue.md:8",
    ]  # fmt: skip
    assert said[0] == (
        "issue.md:4: warning: '{{ subscriber.first_name }}' is a merge tag or condition your "
        "newsletter service (Buttondown, Kit, beehiiv) fills in for each subscriber; WeChat "
        "and Zhihu do not, so readers would see it as written: write the words it stands "
        "for, or leave it out"
    )
    assert not any("static-site" in line for line in said)


# --- Medium: its export, through crosspost import ------------------------------------------------

MEDIUM = """<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html;
charset=utf-8"><title>Distributed training</title></head><body><article class="h-entry">
<header><h1 class="p-name">Distributed training</h1></header>
<section data-field="subtitle" class="p-summary">What it costs</section>
<section data-field="body" class="e-content"><section name="4f2a" class="section
section--body section--first"><div class="section-divider"><hr class="section-divider">
</div><div class="section-content"><div class="section-inner sectionLayout--insetColumn">
<h3 name="9c1e" class="graf graf--h3 graf--leading graf--title">Distributed training</h3>
<h4 name="b0a1" class="graf graf--h4 graf-after--h3 graf--subtitle">What it costs</h4>
<p name="e3d2" class="graf graf--p">Eight GPUs are not <strong class="markup--strong
markup--p-strong">eight times</strong> faster.</p>
<figure name="1a7c" class="graf graf--figure"><img class="graf-image"
data-image-id="1*Xq3d.png" data-width="1400" data-height="700"
src="https://cdn-images-1.medium.com/max/800/1*Xq3d.png"><figcaption
class="imageCaption">Throughput per GPU</figcaption></figure>
<pre name="77ab" class="graf graf--pre">torchrun train.py<br>python -c 1</pre>
<figure name="aa" class="graf graf--figure graf--iframe"><iframe
src="https://www.youtube.com/embed/abc123?feature=oembed" width="700"
height="393"></iframe></figure>
<div name="mx" class="graf graf--mixtapeEmbed"><a href="https://medium.com/p/other"
class="markup--anchor markup--mixtapeEmbed-anchor"><strong class="markup--strong">Another
post</strong><br><em class="markup--em">Its subtitle</em>medium.com</a></div>
</div></div></section></section>
<footer><p>By <a href="https://medium.com/@zhang" class="p-author h-card">Zhang San</a> on
<a href="https://medium.com/p/abc"><time class="dt-published"
datetime="2020-01-01T08:00:00.000Z">January 1, 2020</time></a>.</p><p><a
href="https://medium.com/@zhang/distributed-training-abc" class="p-canonical">Canonical
link</a></p><p>Exported from <a href="https://medium.com">Medium</a> on November 1,
2026.</p></footer></article></body></html>
"""


def test_a_medium_export_imports_its_fields_figures_code_and_video(tmp_path: Path) -> None:
    # The title came three times, the subtitle twice, the footer ('Exported from Medium')
    # was the article's end, no author, date or address; the video was left out unsaid,
    # the caption a paragraph and the code's lines ended in two spaces.
    page = tmp_path / "2020-01-01_Distributed-training-abc.html"
    page.write_text(MEDIUM, "utf-8")
    output = tmp_path / "issue.md"
    article = import_article(page, output)
    output.write_text(article.document, "utf-8")
    issue = load_issue(output)
    assert (issue.title, issue.author, issue.digest) == (
        "Distributed training", "Zhang San", "What it costs",
    )  # fmt: skip
    assert issue.source_url == "https://medium.com/@zhang/distributed-training-abc"
    assert "first_published: '2020-01-01T08:00:00+00:00'" in article.document
    assert issue.body == (
        "\nEight GPUs are not **eight times** faster.\n\n"
        '![](https://cdn-images-1.medium.com/max/800/1*Xq3d.png "Throughput per GPU")\n\n'
        "```\ntorchrun train.py\npython -c 1\n```\n\n"
        '<iframe src="https://www.youtube.com/embed/abc123?feature=oembed"></iframe>\n\n'
        "[Another post](https://medium.com/p/other) — Its subtitle\n"
    )
