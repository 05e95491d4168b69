"""Zhihu Markdown: what the editor's 导入文档 (document import) reads well (§9).

Written in the mdformat style: the token stream becomes a syntax tree and a table of
functions keyed by node type writes each node back as normalised Markdown. The rules
are Zhihu's importer's: only two heading levels survive (deeper ones become bold
paragraphs), tables go as HTML because its Markdown tables are unreliable, footnotes
become numbered markers with a reference list at the end (the importer knows no
footnotes), struck text is drawn with combining strokes (Zhihu has no strikethrough),
callouts are quotes opening with their label in bold, raw HTML is reduced to what
the editor keeps, and formulas stay ``$…$`` with display formulas ending in ``\\\\``
so they are centred.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from crosspost.patterns import pattern
from crosspost.render.captions import alt_words, caption_of, links_to_its_picture
from crosspost.render.zhihu.common import (
    TABLE_CLOSE,
    TABLE_OPEN,
    TASK_MARKERS,
    Note,
    cell_html,
    code_parts,
    cut_footnotes,
    explanation_note,
    heading_tag,
    is_web_link,
    item_number,
    list_start,
    numbered,
    scripted,
    struck,
    zhihu_tex,
)
from crosspost.render.zhihu.sanitize import Sanitizer

#: Heading of the reference list that stands in for footnotes.
REFERENCES_HEADING = "参考"

_ESCAPED = pattern(r"([\\`*_\[\]<$~|])")
_ENTITY = pattern(r"&(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);", re.IGNORECASE)
_LINE_START = pattern(r"^(\s*)(?:(\d+)([.)])|([#>+=-]))", re.MULTILINE)
_BACKTICKS = pattern(r"`+")


def render_markdown(
    tokens: list[Token], levels: Sequence[int] = (1,), *, caption_chars: int | None
) -> str:
    """Zhihu importer Markdown for a token stream (which it may change); ``levels`` are
    the body's heading levels, the highest written as ``#``. A raw image kept as Zhihu's
    HTML has its caption cut to ``caption_chars``, as in the API's HTML."""
    tokens, notes, bodies = cut_footnotes(tokens)
    sanitizer = Sanitizer(lambda _: None, levels, caption_chars=caption_chars)
    context = _Context(notes, bodies, levels=levels, sanitizer=sanitizer)
    tree = SyntaxTreeNode(tokens)
    text = _blocks(tree.children, context)
    _untie(tree)
    if context.entries:
        entries = "\n".join(f"{n}. {entry}" for n, entry in enumerate(context.entries, 1))
        text = f"{text}\n\n**{REFERENCES_HEADING}**\n\n{entries}"
    return text.strip() + "\n"


def _untie(tree: SyntaxTreeNode) -> None:
    """Drop each node's link to its parent, the only cycle in a syntax tree, so that
    the tree is freed as soon as it is no longer used instead of waiting for the cyclic
    collector, which then had a whole issue's nodes to walk (see crosspost.issue.collector)."""
    for node in tree.walk():
        node.parent = None


@dataclass
class _Context:
    """What one render accumulates: note numbers and the reference list."""

    notes: dict[int, Note]
    bodies: dict[int, Token]
    numeros: dict[object, int] = field(default_factory=dict)
    entries: list[str] = field(default_factory=list)
    sanitizer: Sanitizer = field(default_factory=lambda: Sanitizer(lambda _: None))
    levels: Sequence[int] = (1,)
    strike: int = 0

    def reference(self, key: object, entry: Callable[[], str]) -> str:
        """The ``[n]`` marker of a note, adding it to the list on first use. Its place
        in the list is taken before its words are written: a note citing another
        (``[^1]: see [^2]``) numbers that one next, and listed it first."""
        if key not in self.numeros:
            self.numeros[key] = len(self.numeros) + 1
            self.entries.append("")
            self.entries[self.numeros[key] - 1] = entry()
        return f"\\[{self.numeros[key]}\\]"


Render = Callable[[SyntaxTreeNode, _Context], str]


# --- blocks ----------------------------------------------------------------------------


def _blocks(nodes: list[SyntaxTreeNode], context: _Context, *, tight: bool = False) -> str:
    written: list[str] = []
    previous = ""
    for node in nodes:
        text = RENDERERS[node.type](node, context)
        kind = _written_kind(node)
        if kind == previous and kind in {"bullet_list", "ordered_list"}:
            written.append("<!-- -->")  # two lists in a row would merge when read back
        if text:
            written.append(text)
            previous = kind
    return ("\n" if tight else "\n\n").join(written)


def _paragraph(node: SyntaxTreeNode, context: _Context) -> str:
    return _LINE_START.sub(_escape_line_start, _inline(node.children[0], context))


def _escape_line_start(match: re.Match[str]) -> str:
    indent, digits, delimiter, mark = match.groups()
    return f"{indent}{digits}\\{delimiter}" if digits else f"{indent}\\{mark}"


def _heading(node: SyntaxTreeNode, context: _Context) -> str:
    text = _inline(node.children[0], context).replace("\n", " ").strip()
    tag = heading_tag(node.tag, context.levels)
    if tag is not None:
        return f"{'#' * (int(tag[1]) - 1)} {text}"
    return f"**{text}**"  # Zhihu keeps two heading levels; deeper ones become bold text


def _blockquote(node: SyntaxTreeNode, context: _Context) -> str:
    inner = _blocks(node.children, context)
    return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))


def _callout(node: SyntaxTreeNode, context: _Context) -> str:
    """A quote opening with the callout's label in bold (Zhihu has no callouts)."""
    title = f"**{escape_text(str(node.meta['title']))}**"
    inner = "\n\n".join(part for part in (title, _blocks(node.children, context)) if part)
    return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))


def _strike(node: SyntaxTreeNode, context: _Context) -> str:
    context.strike += 1  # Zhihu has no strikethrough: the text is drawn struck
    try:
        return _inline(node, context)
    finally:
        context.strike -= 1


def _list(node: SyntaxTreeNode, context: _Context) -> str:
    tight = all(
        child.hidden
        for item in node.children
        for child in item.children
        if child.type == "paragraph"
    )
    start = list_start(node.attrs) if node.type == "ordered_list" else None
    number = 1 if start is None else start
    items: list[str] = []
    for item in node.children:
        marker = f"{number}." if node.type == "ordered_list" and start is None else "-"
        body = _blocks(item.children, context, tight=tight)
        checked = item.meta.get("checked")
        if checked is not None:
            body = TASK_MARKERS[bool(checked)] + body
        if start is not None:  # Zhihu numbers every list from 1: the number is text
            written = _LINE_START.sub(_escape_line_start, item_number(number))
            if item.children and item.children[0].type not in ("paragraph", "html_block"):
                # A block opening the item (code, a quote, a heading, a list) starts a line
                # of its own: after the number, "5\. ```html" was words, and the code under
                # it raw HTML (a <script> in it left out with the lines after it). Raw HTML
                # reads the same inline.
                written = written.rstrip() + "\n\n"
            body = written + body
        number += 1
        pad = " " * (len(marker) + 1)
        lines = body.split("\n")
        rest = [f"{pad}{line}" if line else "" for line in lines[1:]]
        items.append("\n".join([f"{marker} {lines[0]}".rstrip(), *rest]))
    return ("\n" if tight else "\n\n").join(items)


def _written_kind(node: SyntaxTreeNode) -> str:
    """The node's type, as a list is written: an ordered list numbered as text is a
    bulleted list (and so merges with one right before it when read back)."""
    if node.type == "ordered_list" and list_start(node.attrs) is not None:
        return "bullet_list"
    return node.type


def _fence(node: SyntaxTreeNode, context: _Context) -> str:
    language, title, code = code_parts(node)
    return _fenced(code, language, title)


def _fenced(code: str, language: str, title: str = "") -> str:
    """``code`` in a fence longer than any run of backticks it holds."""
    code = code if code.endswith("\n") or not code else code + "\n"
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    named = f"`{title}`\n\n" if title and "`" not in title else ""
    return f"{named}{fence}{language}\n{code}{fence}"


def _table(node: SyntaxTreeNode, context: _Context) -> str:
    """A table as Zhihu's HTML (Markdown tables are unreliable on import, §9), the images
    of its cells after it (its cells hold plain text, §7.1)."""
    rows: list[str] = []
    moved: list[tuple[str, str]] = []
    for section in node.children:
        for row in section.children:
            cells = "".join(
                f"<{cell.tag}>"
                + cell_html(
                    _inline_tokens(cell), context.notes, tags=context.sanitizer, after=moved
                )
                + f"</{cell.tag}>"
                for cell in row.children
            )
            rows.append(f"<tr>{cells}</tr>")
    images = "".join(f"\n\n{_moved_image(source, caption)}" for source, caption in moved)
    return f"{TABLE_OPEN}{''.join(rows)}{TABLE_CLOSE}{images}"


def _moved_image(source: str, caption: str) -> str:
    """An image of a table's cell, as it follows the table."""
    alt = _ESCAPED.sub(r"\\\1", " ".join(caption.split()))
    return f"![{alt}]({_destination(source)})"


def _inline_tokens(cell: SyntaxTreeNode) -> list[Token]:
    if not cell.children:
        return []
    return list(cell.children[0].token.children or []) if cell.children[0].token else []


def _math_block(node: SyntaxTreeNode, context: _Context) -> str:
    label = node.token.info if node.token else ""
    return f"$${zhihu_tex(numbered(node.content, label), display=True)}$$"


# --- inline ----------------------------------------------------------------------------


def _inline(node: SyntaxTreeNode, context: _Context) -> str:
    return "".join(RENDERERS[child.type](child, context) for child in node.children)


def escape_text(text: str) -> str:
    """Text as Markdown that reads back as exactly that text."""
    escaped = _ESCAPED.sub(r"\\\1", text)
    return _ENTITY.sub(lambda match: "\\" + match.group(0), escaped)


def _text(node: SyntaxTreeNode, context: _Context) -> str:
    if context.sanitizer.dropping:
        return ""
    striking = context.strike or context.sanitizer.striking
    return escape_text(struck(node.content) if striking else node.content)


def _code_inline(node: SyntaxTreeNode, context: _Context) -> str:
    code = node.content
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def _link(node: SyntaxTreeNode, context: _Context) -> str:
    href = str(node.attrs.get("href", "")).strip()
    text = _inline(node, context)
    pictures = [str(child.attrs.get("src", "")) for child in node.children if child.type == "image"]
    alone = all(
        child.type in ("image", "softbreak", "hardbreak") or not child.content.strip()
        for child in node.children
    )
    if alone and links_to_its_picture(href, pictures):
        return text  # a picture linked to itself: its reader sees that picture already
    if is_web_link(href):
        address = _ESCAPED.sub(r"\\\1", href)
        if any(child.type == "image" for child in node.children):
            return f"{text} [{address}]({_destination(href)})"  # Zhihu has no linked images
        shown = text if text.strip() else address  # [](url): its address is its text
        return f"[{shown}]({_destination(href)}{_title(node)})"
    if not href or href.startswith("#"):
        return text  # an in-page anchor means nothing on Zhihu
    note = explanation_note(href, str(node.attrs.get("title", "")))
    return text + context.reference(("link", note), lambda: _ESCAPED.sub(r"\\\1", note.text))


def _image(node: SyntaxTreeNode, context: _Context) -> str:
    source = str(node.attrs.get("src", ""))
    # Zhihu's importer shows the alt text as the caption: only words meant as one.
    assert node.token is not None  # an image is a token of its own, never a nesting
    shown = caption_of(alt_words(node.token), "", source)
    alt = _ESCAPED.sub(r"\\\1", shown)
    return f"![{alt}]({_destination(source)}{_title(node)})"


def _plain(node: SyntaxTreeNode) -> str:
    """The words under ``node``, emphasis and all (an image's alt text keeps them)."""
    return "".join(
        child.content if not child.children else _plain(child) for child in node.children
    )


def _destination(url: str) -> str:
    if re.search(r"[\s()<>]", url):
        return "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
    return url


def _title(node: SyntaxTreeNode) -> str:
    title = str(node.attrs.get("title", ""))
    return ' "' + title.replace("\\", "\\\\").replace('"', '\\"') + '"' if title else ""


def _footnote_ref(node: SyntaxTreeNode, context: _Context) -> str:
    key = int(node.meta["id"])

    def entry() -> str:
        body = context.bodies.get(key)
        if body is None:
            return ""
        tree = SyntaxTreeNode([body])
        text = _inline(tree.children[0], context).replace("\n", " ")
        _untie(tree)
        return text

    return context.reference(("footnote", key), entry)


def _html_block(node: SyntaxTreeNode, context: _Context) -> str:
    """Raw HTML as Zhihu's, on one line (a blank line cannot end the block early); a
    ``<pre>`` standing on its own (not in a quote, list or table) as a fenced block,
    which Zhihu's import reads as code with its language."""
    cleaned = context.sanitizer.block(node.content)
    parts: list[str] = []
    at = 0
    for found in _RAW_PRE.finditer(cleaned):
        before = cleaned[: found.start()]
        if len(_OPENED.findall(before)) != len(_CLOSED.findall(before)):
            continue  # inside a quote, a list or a table: stays that element's HTML
        parts.append(cleaned[at : found.start()].strip().replace("\n", "&#10;"))
        parts.append(_fenced(html.unescape(found.group(2)), found.group(1)))
        at = found.end()
    parts.append(cleaned[at:].strip().replace("\n", "&#10;"))
    return "\n\n".join(_markdown_link(_unwrapped(part)) for part in parts if part)


def _unwrapped(block: str) -> str:
    """A block that is one paragraph of one link, without its ``<p>``."""
    inner = block.removeprefix("<p>").removesuffix("</p>")
    return inner if inner != block and _LONE_LINK.fullmatch(inner) else block


_RAW_PRE = pattern(r'<pre lang="([^"]*)">(.*?)</pre>', re.DOTALL)
_OPENED = pattern(r"<(blockquote|ul|ol|table)\b")
_CLOSED = pattern(r"</(blockquote|ul|ol|table)>")


def _html_inline(node: SyntaxTreeNode, context: _Context) -> str:
    return _markdown_link(context.sanitizer.inline_tag(node.content))


def _markdown_link(cleaned: str) -> str:
    """The line a video or a frame became (``<a href="…">▶ 视频</a>``) as a Markdown
    link, as the file writes every other link; any other HTML as it is."""
    found = _LONE_LINK.fullmatch(cleaned)
    if found is None:
        return cleaned
    href, words = html.unescape(found.group(1)), html.unescape(found.group(2))
    shown = _ESCAPED.sub(r"\\\1", words)
    return f"[{shown}]({_destination(href)})"


_LONE_LINK = pattern(r'<a href="([^"<>]*)">([^<>]*)</a>')


def _wrap(mark: str) -> Render:
    """Emphasis marks around their words, Chinese punctuation at either edge moved just
    outside them: ``**注意**：这里``, ``“**引号**”内容``.

    Under CommonMark's own rules, which an importer may follow, ``**注意：**这里`` is no
    bold at all (a closing mark after punctuation needs a space or punctuation after it);
    the dialect reads it as bold (:func:`crosspost.issue.dialect._cjk_friendly_delimiters`)
    and the file must say the same to every reader of Markdown."""

    def render(node: SyntaxTreeNode, context: _Context) -> str:
        words = _inline(node, context)
        if mark == "**" and _within_bold(node):
            return words  # bold within bold (==**注意**==): one pair of marks
        lead, trail = 0, len(words)
        if _word_beside(node.previous_sibling, -1):
            while lead < trail and _wide_punctuation(words[lead]):
                lead += 1
        if _word_beside(node.next_sibling, 0):
            while trail > lead and _wide_punctuation(words[trail - 1]):
                trail -= 1
        if lead >= trail:  # punctuation alone: nothing to move it from
            return f"{mark}{words}{mark}"
        return f"{words[:lead]}{mark}{words[lead:trail]}{mark}{words[trail:]}"

    return render


def _within_bold(node: SyntaxTreeNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("strong", "mark"):
            return True
        parent = parent.parent
    return False


def _wide_punctuation(char: str) -> bool:
    """Punctuation beyond ASCII (，。：“”《》…); ASCII marks may be Markdown's escapes."""
    return ord(char) > 0x7F and unicodedata.category(char).startswith("P")


def _word_beside(sibling: SyntaxTreeNode | None, end: int) -> bool:
    """Whether the text ``sibling`` (before the marks: ``end`` -1, after: 0) touches them
    with a letter, which CommonMark needs no punctuation against. Another mark, a link's
    bracket or a line's end is punctuation or space to it."""
    if sibling is None or sibling.type != "text" or not sibling.content:
        return False
    char = sibling.content[end]
    return not (char.isspace() or unicodedata.category(char).startswith(("P", "S")))


RENDERERS: Mapping[str, Render] = {
    "paragraph": _paragraph,
    "heading": _heading,
    "blockquote": _blockquote,
    "bullet_list": _list,
    "ordered_list": _list,
    "fence": _fence,
    "code_block": _fence,
    "hr": lambda node, context: "---",
    "html_block": _html_block,
    "table": _table,
    "math_block": _math_block,
    "math_block_label": _math_block,
    "math_block_eqno": _math_block,
    "callout": _callout,
    "text": _text,
    "softbreak": lambda node, context: "\n",
    "hardbreak": lambda node, context: "  \n",
    "strong": _wrap("**"),
    "mark": _wrap("**"),  # Zhihu has no highlight: bold, as in its HTML
    "em": _wrap("*"),
    "s": _strike,
    "sup": lambda node, context: escape_text(scripted(_plain(node), raised=True)),
    "sub": lambda node, context: escape_text(scripted(_plain(node), raised=False)),
    "link": _link,
    "image": _image,
    "code_inline": _code_inline,
    "html_inline": _html_inline,
    "math_inline": lambda node, context: f"${zhihu_tex(node.content, display=False)}$",
    "math_inline_double": lambda node, context: f"$${zhihu_tex(node.content, display=False)}$$",
    "footnote_ref": _footnote_ref,
}
