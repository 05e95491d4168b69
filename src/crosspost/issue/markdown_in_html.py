"""Markdown inside raw HTML that says it is Markdown: ``<div markdown="1">``.

Python-Markdown's ``md_in_html`` (which MkDocs and MkDocs Material use) and kramdown
(Jekyll) read the content of an HTML element as Markdown when its opening tag carries a
``markdown`` attribute (``markdown``, ``"1"``, ``"block"`` or ``"span"``; kramdown's
``"0"`` says the opposite). MkDocs Material writes its figures and grids so::

    <figure markdown="span">
      ![Image title](img.png){ width="300" }
      <figcaption>Image caption</figcaption>
    </figure>

CommonMark reads an HTML block to its first blank line, Markdown and all, as HTML: both
channels showed ``![Image title](img.png){ width="300" }`` as written and the picture
was never uploaded. Here an element opened by a tag with the attribute, alone on its
line, and closed by its closing tag, alone on a later line, is its tags (the attribute
left out) around its content read as Markdown: its lines' common indent is no code
block's (HTML indents what an element holds). A paragraph's or a heading's content
(``<p markdown="1">``, ``<h2 markdown>``; ``md_in_html``'s "span" elements) is that
paragraph or heading, on one line or several. An element whose content is raw
(``<pre>``, ``<script>``, ``<textarea>`` …) is HTML as before.

A figure of one picture and a ``<figcaption>`` (written this way or any other) gives
the picture that caption, as the figure shows it, instead of showing the caption's
words as a paragraph of their own under a caption made from the alt text.
"""

from __future__ import annotations

import html
import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import (
    TAG_ATTRIBUTES,
    TAG_NAME,
    closing_line,
    html_attributes,
    inner,
    line_match,
    line_text,
    paragraph,
)
from crosspost.patterns import pattern

#: An opening tag alone on its line (group 1 its name, group 2 its attributes), or an
#: element on one line (group 3 its content).
_OPENING = pattern(
    rf"<({TAG_NAME})((?:\s{TAG_ATTRIBUTES})?)>[ \t]*(?:(.*?)</\1\s*>[ \t]*)?", re.IGNORECASE
)
#: The ``markdown`` attribute itself, to leave out of the tag the channels get.
_ATTRIBUTE = pattern(r"""\s+markdown(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?(?=[\s/>]|$)""")
#: Elements whose content md_in_html never reads as Markdown.
_RAW = frozenset({"canvas", "math", "option", "pre", "script", "style", "textarea"})
#: Raw HTML whose Markdown MkDocs (md_in_html) and kramdown read, ``<div markdown="1">``,
#: that :func:`markdown_block` left as HTML (its closing tag is not alone on a line
#: below), for check: the element's name (group 1). kramdown's ``markdown="0"`` asks for
#: HTML, and neither reads Markdown in an element of raw text (``<pre>``).
UNREAD_MARKDOWN = pattern(
    rf"\s*<(?!(?:{'|'.join(sorted(_RAW))})\b)([A-Za-z][\w-]*)\b[^>]*"
    r"\smarkdown\b(?!\s*=\s*[\"']?0)",
    re.IGNORECASE,
)
#: Elements md_in_html reads as a line of text ("span"), which crosspost has tokens for.
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_LINES = frozenset({"p", "address", "legend"}) | _HEADINGS
#: The ``meta`` key of an opening tag's token whose element's content is Markdown.
MARKDOWN = "markdown_in_html"
#: Values of the attribute that keep the content raw (kramdown's "0").
_OFF = frozenset({"0", "off", "false"})


def markdown_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: an element whose opening tag has a ``markdown`` attribute, its
    content read as Markdown (see the module)."""
    opened = line_match(state, start, "<", _OPENING)
    if opened is None or "markdown" not in opened.group(2).lower():
        return False
    name = opened.group(1).lower()
    value = dict(html_attributes(opened.group(2))).get("markdown")
    if value is None or value.strip().lower() in _OFF or name in _RAW:
        return False
    one_line = opened.group(3) is not None
    close = start if one_line else _closing_line(state, start, end, opened.group(1))
    if close is None:
        return False
    if silent:
        return True
    tag = _ATTRIBUTE.sub("", opened.group(0)[: opened.end(2) - opened.start() + 1])
    as_line = name in _LINES and value.strip().lower() != "block"
    if as_line:
        lines = [opened.group(3)] if one_line else _lines(state, start + 1, close)
        _line(state, name, tag, "\n".join(lines).strip(), [start, close + 1])
    else:
        _raw(state, tag, [start, start + 1]).meta[MARKDOWN] = True
        if one_line:
            inline = (opened.group(3) or "").strip()
            if inline:
                paragraph(state, inline, start)
        else:
            inner(state, start, close, dedent=True)
        _raw(state, f"</{opened.group(1)}>", [close, close + 1])
    state.line = close + 1
    return True


def _closing_line(state: StateBlock, start: int, end: int, name: str) -> int | None:
    """The line of ``</name>`` alone that closes the element opened on ``start`` (one of
    its name opened alone on a line between nests), or None."""
    opens = re.compile(rf"<{re.escape(name)}(?:\s[^<>]*)?>[ \t]*", re.IGNORECASE)
    closes = re.compile(rf"</{re.escape(name)}\s*>[ \t]*", re.IGNORECASE)
    return closing_line(state, start, end, "<", opens, closes)


def _lines(state: StateBlock, first: int, close: int) -> list[str]:
    return [line_text(state, n) for n in range(first, close)]


def _raw(state: StateBlock, content: str, lines: list[int]) -> Token:
    token = state.push("html_block", "", 0)
    token.content, token.map = content + "\n", lines
    return token


def _line(state: StateBlock, name: str, tag: str, content: str, lines: list[int]) -> None:
    """A paragraph's or a heading's content as that paragraph or heading."""
    if not content:
        return
    kind, element = ("heading", name) if name in _HEADINGS else ("paragraph", "p")
    token = state.push(f"{kind}_open", element, 1)
    token.map = lines
    if kind == "heading":
        token.markup = "#" * int(name[1])
    elif name != "p":  # an <address> or a <legend>: kept around its words
        _raw(state, tag, lines)
    inline = state.push("inline", "", 0)
    inline.content, inline.map, inline.children = content, lines, []
    state.push(f"{kind}_close", element, -1).markup = token.markup


# --- a figure's caption -----------------------------------------------------------------

_FIGURE_OPEN = pattern(r"\s*<figure\b[^<>]*>\s*", re.IGNORECASE)
_FIGURE_CLOSE = pattern(r"\s*</figure\s*>\s*", re.IGNORECASE)
_CAPTION = pattern(r"\s*<figcaption\b[^<>]*>(.*?)</figcaption\s*>\s*", re.IGNORECASE | re.DOTALL)
_TAGS = pattern(r"<[^<>]*>")


def figure_captions(state: StateCore) -> None:
    """Core rule, after inline parsing: a ``<figure>`` of raw HTML around one picture of
    Markdown and a ``<figcaption>`` gives the picture its caption (see the module)."""
    if "figcaption" not in state.src.lower():
        return
    tokens = state.tokens
    dropped: set[int] = set()
    for at, token in enumerate(tokens):
        if token.type != "html_block" or not _FIGURE_OPEN.fullmatch(token.content):
            continue
        close = next(
            (
                n
                for n in range(at + 1, len(tokens))
                if tokens[n].type == "html_block" and _FIGURE_CLOSE.fullmatch(tokens[n].content)
            ),
            None,
        )
        if close is None:
            continue
        inside = range(at + 1, close)
        captions = [n for n in inside if tokens[n].type == "html_block"]
        pictures = [n for n in inside if tokens[n].type == "inline"]
        if len(captions) != 1 or len(pictures) != 1 or len(inside) != 4:
            continue
        caption = _CAPTION.fullmatch(tokens[captions[0]].content)
        image = _picture(tokens[pictures[0]])
        if caption is None or image is None:
            continue
        written = _TAGS.sub("", caption.group(1))
        if token.meta.get(MARKDOWN):  # its words are Markdown too: **bold** is bold
            written = _words(state, written)
        words = " ".join(html.unescape(written).split())
        # A picture with a title of its own keeps it after the caption the figure shows:
        # the caption is not dropped for it (both words are the editor's).
        titled = " ".join(str(image.attrs.get("title") or "").split())
        if words and titled and titled != words:
            words = f"{words} · {titled}"
        if words:
            image.attrs["title"] = words
        dropped.add(captions[0])
    if dropped:
        state.tokens = [token for at, token in enumerate(tokens) if at not in dropped]


def _picture(inline: Token) -> Token | None:
    """The one image an inline holds and nothing else but blanks, or None."""
    children = [
        child
        for child in inline.children or ()
        if not (
            child.type in ("softbreak", "hardbreak")
            or (child.type == "text" and not child.content.strip())
        )
    ]
    if len(children) == 1 and children[0].type == "image":
        return children[0]
    return None


def _words(state: StateCore, markdown: str) -> str:
    """The words a line of Markdown shows, its marks left out (a caption is words)."""
    shown: list[Token] = []
    state.md.inline.parse(markdown, state.md, {}, shown)
    return "".join(
        child.content
        if child.type in ("text", "code_inline")
        else " "
        if "break" in child.type
        else ""
        for child in shown
    )
