"""Zhihu's HTML dialect: what the article API receives as ``content`` (§7.1).

A markdown-it renderer whose rules are overridden per token type, so each rule says
what Zhihu's Draft.js editor keeps: the body's highest heading level becomes Zhihu's
"一级标题" (``<h2>``) and the next its "二级标题" (``<h3>``), callouts are quotes opening
with their label, struck text is drawn with combining strokes, code is ``<pre lang>``
with no inner ``<code>``, tables carry
``data-draft-type="table"`` with the header row inside ``<tbody>``, footnotes become
reference ``<sup>``s (Zhihu builds the 参考 list itself), and no newline separates
blocks, since the editor turns each one into a blank line (Z5).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it.common.utils import escapeHtml
from markdown_it.presets import commonmark
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from crosspost.issue.dialect import join_softbreak, tokens_after
from crosspost.patterns import pattern
from crosspost.render.captions import (
    alt_words,
    caption_of,
    links_to_its_picture,
    pictures_linked,
)
from crosspost.render.zhihu.common import (
    TABLE_CLOSE,
    TABLE_OPEN,
    TASK_MARKERS,
    Note,
    cell_html,
    code_parts,
    cut_footnotes,
    equation_html,
    explanation_note,
    goes_on_after_sublist,
    heading_tag,
    image_html,
    is_web_link,
    item_number,
    list_start,
    numbered,
    scripted,
    struck,
)
from crosspost.render.zhihu.sanitize import Sanitizer


def render_html(
    tokens: list[Token], levels: Sequence[int] = (1,), *, caption_chars: int | None
) -> tuple[str, tuple[str, ...]]:
    """Zhihu HTML for a token stream (which it may change), and its image sources.

    ``levels`` are the heading levels of the issue's own body: the highest becomes
    ``<h2>``, the next one used ``<h3>``. Captions are cut to ``caption_chars``."""
    tokens, notes, _ = cut_footnotes(tokens)
    renderer = ZhihuHtmlRenderer(notes, levels, caption_chars=caption_chars)
    body = renderer.render(_split_images(tokens), OptionsDict(commonmark.make()["options"]), {})
    body = body.replace("<p></p>", "")
    return body, tuple(dict.fromkeys(renderer.images))


@dataclass
class _Frame:
    """A list item or quote being written: Zhihu holds one text block per item/quote."""

    kind: str  # "li" or "quote"
    started: bool = False
    closed: bool = False  # a list item ended early so its sublist can be its sibling


@dataclass(frozen=True)
class _Link:
    mode: str  # "a": a real link; "after": link around an image; "url": the address of a
    # link whose image was lifted out before it; "note"; "text"
    href: str = ""
    note: Note | None = None


class ZhihuHtmlRenderer(RendererHTML):
    """markdown-it's HTML renderer with the Zhihu rules. One instance per render."""

    def __init__(
        self,
        notes: dict[int, Note],
        levels: Sequence[int] = (1,),
        *,
        caption_chars: int | None,
    ) -> None:
        super().__init__()
        self._levels = levels
        self._bold = 0
        self._strike = 0
        self.images: list[str] = []
        self._notes = notes
        self._numeros: dict[object, int] = {}
        self._frames: list[_Frame] = []
        #: One entry per open quote: whether it opened a ``<blockquote>`` (else it joined
        #: its parent quote's text), so each close undoes exactly what its open did.
        self._quote_opened: list[bool] = []
        self._links: list[_Link] = []
        #: One entry per open list: the number its next item shows as text (a numbered
        #: list that does not start at 1), else ``None`` (Zhihu's own list markers).
        self._numbers: list[int | None] = []
        self._in_cell = False
        #: The images of the open table's cells, shown after it (source, caption).
        self._after_table: list[tuple[str, str]] = []
        self._sanitizer = Sanitizer(self.images.append, levels, caption_chars=caption_chars)

    def renderInline(  # markdown-it's name
        self, tokens: Sequence[Token], options: OptionsDict, env: EnvType
    ) -> str:
        if self._in_cell:
            return cell_html(
                tokens,
                self._notes,
                self.images.append,
                self._sanitizer,
                self._after_table,
                self._sanitizer.caption_chars,
            )
        return super().renderInline(tokens, options, env)

    # --- helpers -----------------------------------------------------------------------

    def _separator(self) -> str:
        """``<br>`` between the blocks of one list item or quote, which Zhihu keeps as one."""
        if not self._frames:
            return ""
        frame = self._frames[-1]
        if frame.closed:  # more of an item after its sublist: the item goes on after it
            frame.closed, frame.started = False, True
            return "<li>"
        was_started, frame.started = frame.started, True
        return "<br>" if was_started else ""

    def _reference(self, key: object, note: Note) -> str:
        numero = self._numeros.setdefault(key, len(self._numeros) + 1)
        return (
            f'<sup data-text="{html.escape(note.text)}" data-url="{html.escape(note.url)}"'
            f' data-draft-node="inline" data-draft-type="reference"'
            f' data-numero="{numero}">[{numero}]</sup>'
        )

    # --- blocks --------------------------------------------------------------------------

    def paragraph_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        if self._frames:
            return self._separator()
        return "" if tokens[idx].hidden else "<p>"

    def paragraph_close(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return "" if self._frames or tokens[idx].hidden else "</p>"

    def heading_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        tag = heading_tag(tokens[idx].tag, self._levels)
        if self._frames:
            return f"{self._separator()}<b>"
        return f"<{tag}>" if tag else "<p><b>"

    def heading_close(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        tag = heading_tag(tokens[idx].tag, self._levels)
        if self._frames:
            return "</b>"
        return f"</{tag}>" if tag else "</b></p>"

    def callout_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        """A callout is a quote that opens with its label in bold (Zhihu has no callouts)."""
        title = f"<b>{escapeHtml(str(tokens[idx].meta['title']))}</b>"
        opening = self.blockquote_open()
        if opening:
            self._frames[-1].started = True
            return f"{opening}{title}"
        return f"{self._separator()}{title}"

    def callout_close(self, *_: object) -> str:
        return self.blockquote_close()

    def blockquote_open(self, *_: object) -> str:
        if self._frames and self._frames[-1].kind == "quote":
            self._quote_opened.append(False)  # a quote in a quote joins its parent's text
            return ""
        self._quote_opened.append(True)
        self._frames.append(_Frame("quote"))
        return "<blockquote>"

    def blockquote_close(self, *_: object) -> str:
        if not self._quote_opened.pop():
            return ""
        self._frames.pop()
        return "</blockquote>"

    def bullet_list_open(self, *_: object) -> str:
        self._numbers.append(None)
        return f"{self._lift_sublist()}<ul>"

    def ordered_list_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        start = list_start(tokens[idx].attrs)
        if start is None and goes_on_after_sublist(tokens, idx):
            start = 1  # see goes_on_after_sublist: the numbers are written as text
        self._numbers.append(start)
        return f"{self._lift_sublist()}{'<ol>' if start is None else '<ul>'}"

    def _lift_sublist(self) -> str:
        """Zhihu nests a list as a sibling of its parent item: ``<li>a</li><ul>…</ul>``."""
        if self._frames and self._frames[-1].kind == "li" and not self._frames[-1].closed:
            self._frames[-1].closed = True
            return "</li>"
        return ""

    def bullet_list_close(self, *_: object) -> str:
        self._numbers.pop()
        return "</ul>"

    def ordered_list_close(self, *_: object) -> str:
        return "</ol>" if self._numbers.pop() is None else "</ul>"

    def list_item_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        self._frames.append(_Frame("li"))
        number = self._numbers[-1] if self._numbers else None
        written = ""
        if number is not None:  # Zhihu numbers every list from 1: the number is text
            written = item_number(number)
            self._numbers[-1] = number + 1
        checked = tokens[idx].meta.get("checked")
        task = "" if checked is None else TASK_MARKERS[bool(checked)]
        return f"<li>{written}{task}"

    def list_item_close(self, *_: object) -> str:
        frame = self._frames.pop()
        return "" if frame.closed else "</li>"

    def fence(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        language, title, code = code_parts(tokens[idx])
        code = code.rstrip("\n")
        named = f"<p><code>{escapeHtml(title)}</code></p>" if title else ""
        block = f'<pre lang="{html.escape(language)}">{escapeHtml(code)}</pre>'
        return f"{self._separator()}{named}{block}"

    def code_block(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return self.fence(tokens, idx)

    def hr(self, *_: object) -> str:
        return "<hr>"

    def html_block(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        """A raw HTML block; one that is lists alone, written in a list item, follows the
        item as a Markdown sublist does (Zhihu's nesting, §7.1), not inside it."""
        out = self._sanitizer.block(tokens[idx].content)
        if self._frames and self._frames[-1].kind == "li" and _only_lists(out):
            return f"{self._lift_sublist()}{out}"
        return out

    def math_block(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        image = equation_html(numbered(tokens[idx].content, tokens[idx].info), display=True)
        return f"{self._separator()}{image}" if self._frames else f"<p>{image}</p>"

    math_block_label = math_block_eqno = math_block

    def zhihu_image(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        """An image standing alone: a block of its own, not wrapped in ``<p>`` (§7.1)."""
        return self._image((tokens[idx].children or [])[0])

    # --- tables --------------------------------------------------------------------------

    def table_open(self, *_: object) -> str:
        return f"{self._separator()}{TABLE_OPEN}"

    def table_close(self, *_: object) -> str:
        moved, self._after_table = self._after_table, []
        return TABLE_CLOSE + "".join(
            image_html(source, caption, self._sanitizer.caption_chars) for source, caption in moved
        )

    def thead_open(self, *_: object) -> str:
        return ""  # the header row goes into <tbody> as its first row; no <thead>

    thead_close = tbody_open = tbody_close = thead_open

    def tr_open(self, *_: object) -> str:
        return "<tr>"

    def tr_close(self, *_: object) -> str:
        return "</tr>"

    def th_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        self._in_cell = True
        return f"<{tokens[idx].tag}>"  # no alignment: Zhihu has none

    td_open = th_open

    def th_close(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        self._in_cell = False
        return f"</{tokens[idx].tag}>"

    td_close = th_close

    # --- inline --------------------------------------------------------------------------

    def text(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        if self._sanitizer.dropping:
            return ""
        if idx and tokens[idx - 1].type in ("sup_open", "sub_open"):
            return ""  # written by the script's opening, in its raised or lowered form
        content = tokens[idx].content
        striking = self._strike or self._sanitizer.striking
        return escapeHtml(struck(content) if striking else content)

    def softbreak(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        """A space, except between two CJK characters, where a space would show."""
        return join_softbreak(tokens, idx)

    def hardbreak(self, *_: object) -> str:
        return "<br>"

    def strong_open(self, *_: object) -> str:
        self._bold += 1  # bold within bold (==**注意**==) is one <b>
        return "<b>" if self._bold == 1 else ""

    def strong_close(self, *_: object) -> str:
        self._bold -= 1
        return "</b>" if self._bold == 0 else ""

    def em_open(self, *_: object) -> str:
        return "<i>"

    def em_close(self, *_: object) -> str:
        return "</i>"

    def mark_open(self, *_: object) -> str:
        return self.strong_open()  # Zhihu has no highlight: bold is the emphasis it has

    def mark_close(self, *_: object) -> str:
        return self.strong_close()

    def sup_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        """The script's text in Unicode's raised forms (see ``scripted``); the dialect lets
        a script hold one text, which :meth:`text` then leaves out."""
        return escapeHtml(scripted(tokens[idx + 1].content, raised=True))

    def sub_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return escapeHtml(scripted(tokens[idx + 1].content, raised=False))

    def sup_close(self, *_: object) -> str:
        return ""

    sub_close = sup_close

    def s_open(self, *_: object) -> str:
        self._strike += 1  # Zhihu has no strikethrough markup: the text is drawn struck
        return ""

    def s_close(self, *_: object) -> str:
        self._strike = max(0, self._strike - 1)
        return ""

    def code_inline(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return f"<code>{escapeHtml(tokens[idx].content)}</code>"

    def math_inline(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return equation_html(tokens[idx].content, display=False)

    math_inline_double = math_inline

    def html_inline(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return self._sanitizer.inline_tag(tokens[idx].content)

    def image(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        return self._image(tokens[idx])

    def _image(self, token: Token) -> str:
        source = str(token.attrGet("src") or "").strip()
        if not source:
            return ""
        self.images.append(source)
        alt = alt_words(token)
        caption = caption_of(alt, str(token.attrGet("title") or ""), source)
        return image_html(source, caption, self._sanitizer.caption_chars)

    def link_open(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "").strip()
        if links_to_its_picture(href, _pictures_linked(tokens, idx)):
            self._links.append(_Link("text"))  # its reader sees that picture already
            return ""
        if is_web_link(href):
            if token.meta.get("lifted_image"):  # its image went before as a block
                self._links.append(_Link("url", href))
                return ""
            if _wraps_image(tokens, idx):
                self._links.append(_Link("after", href))  # Zhihu has no linked images
                return ""
            if tokens[idx + 1].type == "link_close":  # [](url): its address is its text
                self._links.append(_Link("url", href))
                return ""
            self._links.append(_Link("a", href))
            return f'<a href="{html.escape(href)}">'
        if not href or href.startswith("#"):
            self._links.append(_Link("text"))  # an in-page anchor means nothing on Zhihu
            return ""
        title = str(token.attrGet("title") or "")
        self._links.append(_Link("note", note=explanation_note(href, title)))
        return ""

    def link_close(self, *_: object) -> str:
        link = self._links.pop() if self._links else _Link("text")
        if link.mode == "a":
            return "</a>"
        if link.mode == "url":
            return f'<a href="{html.escape(link.href)}">{escapeHtml(link.href)}</a>'
        if link.mode == "after":
            return f' <a href="{html.escape(link.href)}">{escapeHtml(link.href)}</a>'
        if link.mode == "note" and link.note is not None:
            return self._reference(("link", link.note), link.note)
        return ""

    def footnote_ref(self, tokens: Sequence[Token], idx: int, *_: object) -> str:
        key = int(tokens[idx].meta["id"])
        return self._reference(("footnote", key), self._notes.get(key, Note("")))


def _pictures_linked(tokens: Sequence[Token], idx: int) -> list[str]:
    """:func:`pictures_linked`, the picture lifted out before the link counted in."""
    held = pictures_linked(tokens, idx)
    lifted = tokens[idx].meta.get("lifted_image")
    if held is None:
        return []
    return [str(lifted), *held] if isinstance(lifted, str) and lifted else held


def _wraps_image(tokens: Sequence[Token], idx: int) -> bool:
    """Whether the link opening at ``idx`` holds an image."""
    for token in tokens_after(tokens, idx):
        if token.type == "link_close":
            return False
        if token.type == "image":
            return True
    return False


_LIST_TAG = pattern(r"<(/?)(?:ul|ol)>")


def _only_lists(out: str) -> bool:
    """Whether the sanitiser's ``out`` is one or more lists and nothing between them."""
    depth = 0
    last = 0
    for tag in _LIST_TAG.finditer(out):
        if depth == 0 and out[last : tag.start()].strip():
            return False
        depth += -1 if tag.group(1) else 1
        last = tag.end()
    return bool(out) and depth == 0 and not out[last:].strip()


def _split_images(tokens: list[Token]) -> list[Token]:
    """Lift images out of top-level paragraphs and headings: on Zhihu an image is a block
    of its own (a heading holding only a picture, a banner, is that picture)."""
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if (
            token.type in ("paragraph_open", "heading_open")
            and token.level == 0
            and index + 2 < len(tokens)
            and any(child.type == "image" for child in tokens[index + 1].children or [])
        ):
            out.extend(_paragraph_pieces(token, tokens[index + 1], tokens[index + 2]))
            index += 3
            continue
        out.append(token)
        index += 1
    return out


def _paragraph_pieces(opening: Token, inline: Token, closing: Token) -> list[Token]:
    pieces: list[Token] = []
    run: list[Token] = []
    depth = 0

    def flush() -> None:
        while run and _blank(run[0]):
            run.pop(0)
        while run and _blank(run[-1]):
            run.pop()
        if run and run[-1].type == "text":  # the space that stood before the picture
            run[-1] = run[-1].copy(content=run[-1].content.rstrip())
        if run:
            pieces.extend([opening, Token("inline", "", 0, children=list(run)), closing])
        run.clear()

    for child in inline.children or []:
        depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        # A linked image is lifted too when it opens its link: the link's address then
        # follows it in a paragraph of its own (Zhihu has no linked images).
        opens_link = depth == 1 and bool(run) and run[-1].type == "link_open"
        if child.type == "image" and (depth == 0 or opens_link):
            link = run.pop() if opens_link else None
            flush()
            pieces.append(Token("zhihu_image", "img", 0, children=[child]))
            if link is not None:
                source = str(child.attrGet("src") or "")
                run.append(link.copy(meta={**link.meta, "lifted_image": source or True}))
        else:
            run.append(child)
    flush()
    return pieces


def _blank(token: Token) -> bool:
    return token.type in {"softbreak", "hardbreak"} or (
        token.type == "text" and not token.content.strip()
    )
