"""Every word an editor wrote reaches the reader on each channel, or check names its line.

A differential check: the words a reader should see are those of the body's plain HTML
(markdown-it's own renderer over the dialect's tokens: no channel's rules), counted as a
multiset of words and CJK characters; each channel's output is read as a reader reads it
(``wechat.html`` and ``zhihu.html`` as pages, ``zhihu.md`` as the page Markdown makes of
it; a formula as its TeX, a Zhihu reference's words and an image's caption included).
Words missing from an output are lost unless ``check`` names a line of the body for that
channel. WeChat's reference numbers, a task's box and a callout's label are words the
channel adds: more is never a loss, only less.

The cases are the constructs that once lost words in silence (a ```` ```console ````
block's last line, a raw ``<table>``'s ``<caption>``, an ``<object>`` holding only words,
a code block opening an item Zhihu numbers as text), and their neighbours: code of many
languages in every container, raw HTML of every common kind, other tools' syntax.
"""

from __future__ import annotations

import collections
import functools
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Comment
from markdown_it.token import Token

from crosspost.check.lint import INFO, lint
from crosspost.issue.dialect import new_markdown, parse
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render

#: A word, a number, or one character of a script without spaces (CJK).
_UNITS = re.compile(r"[A-Za-z0-9]+|[^\W\x00-\x7f]")
#: Problems that say nothing of words left out: the whole body's, and Zhihu's numbers
#: written as text (the numbers are shown; what the items hold must be too).
_SAYS_NOTHING_LOST = frozenset(
    {"content-too-long", "content-too-large", "body-too-short", "body-too-long", "no-cover",
     "list-numbers-written"}
)  # fmt: skip
#: Blocks whose edges separate words (a reader sees a line break, not one word).
_BLOCKS = [
    "p", "div", "section", "li", "td", "th", "tr", "caption", "pre", "blockquote",
    "figure", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "summary",
]  # fmt: skip


def _words(markup: str) -> collections.Counter[str]:
    """The words a reader sees in ``markup`` (HTML)."""
    soup = BeautifulSoup(markup, "html.parser")
    for comment in soup.find_all(string=lambda node: isinstance(node, Comment)):
        comment.extract()
    for tag in soup.find_all(["script", "style", "template"]):
        tag.decompose()
    for svg in soup.find_all("svg"):  # a formula reads as its TeX
        svg.replace_with(f" {svg.get('aria-label') or ''} ")
    for tag in soup.find_all(True):
        # A Zhihu formula's and reference's words, an image's caption on Zhihu.
        said = [str(tag.get(name) or "") for name in ("data-text", "data-url", "data-caption")]
        if tag.name == "img" and tag.get("eeimg"):
            said.append(str(tag.get("alt") or ""))
        if any(said):
            tag.append(f" {' '.join(said)} ")
    for tag in soup.find_all("br"):
        tag.replace_with("\n")
    for tag in soup.find_all(_BLOCKS):
        tag.insert(0, " ")
        tag.append(" ")
    text = soup.get_text("").replace("\xa0", " ").replace("\u0336", "")
    return collections.Counter(_UNITS.findall(text))


@functools.cache
def _plain() -> object:
    md = new_markdown()
    for rule in ("math_inline", "math_block", "math_block_label", "math_block_eqno"):
        md.add_render_rule(rule, lambda self, tokens, idx, *_: f" {tokens[idx].content} ")
    return md


def expected_words(body: str, channel: str) -> collections.Counter[str]:
    """The words of ``body`` as ``channel`` reads it, by markdown-it's own HTML rules;
    a footnote's back-link and number left out (each channel numbers notes its way)."""
    md = _plain()
    tokens: list[Token] = parse(body, channel, md)  # type: ignore[arg-type]
    markup = md.renderer.render(tokens, md.options, {})  # type: ignore[attr-defined]
    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup.select("sup.footnote-ref, a.footnote-backref"):
        tag.decompose()
    return _words(str(soup))


def missing_words(body: str) -> tuple[dict[str, collections.Counter[str]], set[str]]:
    """Output file → the words of ``body`` it does not show; and the channels for which
    check names a line of the body."""
    issue = Issue(path=Path("/issues/w/issue.md"), id="w", title="T", body=body, body_line=1)
    outputs = {channel: render(issue, channel, RenderContext()) for channel in ("wechat", "zhihu")}
    named = {
        channel
        for problem in lint(issue, outputs)
        if problem.line is not None and problem.severity != INFO
        if problem.code not in _SAYS_NOTHING_LOST
        for channel in ([problem.channel] if problem.channel else outputs)
    }
    missing: dict[str, collections.Counter[str]] = {}
    for channel, output in outputs.items():
        wanted = expected_words(body, channel)
        for name, text in output.files.items():
            page = _plain().render(text) if name.endswith(".md") else text  # type: ignore[attr-defined]
            if lost := wanted - _words(page):
                missing[name] = lost
    return missing, named


def lost_in_silence(body: str) -> dict[str, collections.Counter[str]]:
    """Output file → the words of ``body`` it does not show, where check names no line
    of the body for its channel."""
    missing, named = missing_words(body)
    return {name: lost for name, lost in missing.items() if name.split(".")[0] not in named}


# --- the cases -----------------------------------------------------------------------------

CODE = {
    "python": "print('alpha')  # 注释\n\tif a < b:\n    return x\nlastpython",
    "console": "$ ls -l\nfileone\nfiletwo",
    "pycon": ">>> x = 1\n>>> x\nonelast",
    "html": "<script>var k = '<b>';</script>\n<div>divtext &amp;</div>",
    "diff": "- removedword\n+ addedword\n contextword",
    "markdown": "# headword\n*emword* [linkword](u)",
    "yaml": "keyword: valueword\n---\nlistword:\n  - itemword",
    "json": '{"jkey": "jvalue", "n": [1, 2]}',
    "sh": "run \\\n  --flagword \\",
    "text": "中文代码 😀 trailing   \nlongword " + "wide " * 60,
    "nosuchlanguage": "unknownword",
}


def _indented(text: str, prefix: str, first: str | None = None) -> str:
    lines = text.split("\n")
    head = prefix if first is None else first
    return "\n".join([head + lines[0], *((prefix + line) if line else "" for line in lines[1:])])


CONTAINERS = {
    "alone": lambda block: block,
    "bullet": lambda block: _indented(block, "  ", "- "),
    "ordered": lambda block: _indented(block, "   ", "1. "),
    # Zhihu numbers every list from 1: this one's numbers are written as text.
    "numbered from 5": lambda block: "4. before\n" + _indented(block, "   ", "5. "),
    "quote": lambda block: _indented(block, "> "),
    "callout": lambda block: f"::: tip 提示\n{block}\n:::",
    "alert": lambda block: "> [!WARNING]\n" + _indented(block, "> "),
    "details": lambda block: f"<details>\n<summary>summaryword</summary>\n\n{block}\n\n</details>",
}


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("language", CODE)
def test_code_of_any_language_in_any_container_reaches_every_channel(
    language: str, container: str
) -> None:
    fence = f"```{language}\n{CODE[language]}\n```"
    body = f"Lead para.\n\n{CONTAINERS[container](fence)}\n\nTail para.\n"
    assert lost_in_silence(body) == {}


RAW_HTML = [
    "A <span>spanword</span> <kbd>kbdword</kbd> <sup>supword</sup> <sub>subword</sub> "
    "<mark>markword</mark> <u>uword</u> <del>delword</del> <ins>insword</ins> <small>smallword"
    "</small> <q>qword</q> <cite>citeword</cite> <abbr title='t'>abbrword</abbr>.",
    "<ruby>東京<rp>(</rp><rt>とうきょう</rt><rp>)</rp></ruby>, <bdo dir='rtl'>bdoword</bdo>",
    "Text <code>rawcode &lt;x&gt; <b>boldincode</b></code> after.",
    "A <a href='https://a.example.com'>anchor *emword* `codeword`</a>, <a>nohrefword</a>.",
    "<pre>\npreone\n\npretwo after blank\n</pre>",
    "<pre><code>codeone <b>codebold</b>\ncodetwo</code></pre>",
    "<pre><span style='color:red'>redword</span> plainword\n<span>secondline</span></pre>",
    "<div>\ndivblockword\n</div>",
    "<table><tr><td colspan='2'>spanword</td></tr><tr><td>c1word</td><td>c2word</td></tr></table>",
    "<table><thead><tr><th>thword</th></tr></thead><tbody><tr><td>tdword<br>tdline</td></tr>"
    "</tbody><tfoot><tr><td>footword</td></tr></tfoot></table>",
    # A table's caption: Zhihu's table has none, and a table laying a page out is its cells.
    "<table><caption>capword <b>boldcap</b></caption><tr><td>cellword</td></tr></table>",
    "<table><tr><td>outer<table><caption>innercap</caption><tr><td>innercell</td></tr></table>"
    "</td></tr></table>",
    "<table><caption>layoutcap</caption><tr><td><p>para one</p></td></tr>"
    "<tr><td><p>para two</p></td></tr></table>",
    # An <object> that embeds nothing: what it holds is shown, words alone too.
    "<object>objectfallback words</object>",
    "Text <object>objectinline *emword*</object> after.",
    "<ul><li>liword<ul><li>innerword</li></ul></li></ul>",
    "<ol start='3'><li>olthree</li><li>olfour</li></ol>",
    "<dl><dt>dtword</dt><dd>ddword</dd></dl>",
    "<details><summary>sumword</summary>\n\ndetailbody *emword*\n\n</details>",
    "<figure><img src='https://i.example.com/f.png'><figcaption>figcapword</figcaption></figure>",
    "<figure><blockquote>figquote</blockquote><figcaption>figcap2word</figcaption></figure>",
    "<blockquote><p>bqword</p><footer>— <cite>bqcite</cite></footer></blockquote>",
    "<center>centerword</center> <font color='red'>fontword</font> <strike>strikeword</strike>",
    "<h2>rawheading</h2>\n\n<address>addrword<br>addrline</address>",
    "Entities &lt;ltword&gt; &amp; &#x4E2D; &#20013; &copy; &nbsp;nbspword.",
    "keep <!-- dropped --> keepword, a <b and c> d, 1 < 2 > 0, x<y",
]


@pytest.mark.parametrize("raw", RAW_HTML)
def test_raw_html_shows_its_words_on_every_channel(raw: str) -> None:
    assert lost_in_silence(f"Lead para.\n\n{raw}\n\nTail para.\n") == {}


OTHER_TOOLS = [
    '{{< figure src="https://i.example.com/a.png" title="标题" caption="说明" attr="摄影" >}}',
    "+----------+--------+\n| fruit    | price  |\n+==========+========+\n| banana   | 1.34   |\n"
    "+----------+--------+",
    "term\n: definition one",
    "[WARNING]\n====\nwarnbody\n====",
    ".. note::\n\n   rstnotebody",
    "#+BEGIN_QUOTE\norgquote\n#+END_QUOTE",
    '!!! note "mkdocstitle"\n    mkdocsbody',
    "> [!tip]- foldtitle\n> foldbody",
    "||spoilerword|| and ==highword== and H~2~O",
    "Escapes \\*star\\* \\_under\\_ \\`tick\\` \\\\ and a hard  \nbreak\\\nthird.",
    "## Heading [linkword](https://h.example.com) `codeword` *emword*\n\nsetext\n---",
    "| a | b |\n|---|---|\n| `c\\|d` | cellword |",
]


@pytest.mark.parametrize("written", OTHER_TOOLS)
def test_other_tools_syntax_shows_its_words_on_every_channel(written: str) -> None:
    assert lost_in_silence(f"Lead para.\n\n{written}\n\nTail para.\n") == {}


def test_the_checker_sees_what_a_channel_leaves_out() -> None:
    # What the checker is for: a form control is left out on Zhihu, which check names;
    # without check's line it would be a loss.
    body = "Lead para.\n\n<textarea>formword</textarea>\n"
    missing, named = missing_words(body)
    assert missing["zhihu.html"] == {"formword": 1} and "zhihu" in named
    assert lost_in_silence(body) == {}
