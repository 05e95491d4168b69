"""Raw HTML in an issue, reduced to what Zhihu's editor keeps.

Zhihu's Draft.js editor drops unknown markup and strips ``style``, ``class`` and ``id``
(§7). Passing raw HTML through would make the article differ from what the editor
previewed, so raw HTML is first cut down to :data:`ALLOWLIST` by the shared sanitiser
(:mod:`crosspost.render.sanitize`) and then mapped onto the Zhihu element set: known
elements are rebuilt without attributes, layout wrappers (``div``, ``section``,
``center``…) give way to their content, and active content (scripts, frames, forms,
SVG, media) goes away with everything inside it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from markdown_it.token import Token

from crosspost.patterns import pattern
from crosspost.render.captions import caption_of
from crosspost.render.layout import table_rows
from crosspost.render.sanitize import DATA_IMAGE, MEDIA_LABELS, Allowlist, TagStream, clean
from crosspost.render.zhihu.common import (
    STRUCK_TAGS,
    TABLE_CLOSE,
    TABLE_OPEN,
    cell_link_text,
    code_language,
    heading_tag,
    image_html,
    is_web_link,
    item_number,
    moved_image_words,
    raw_list_start,
    struck,
)

if TYPE_CHECKING:
    from bs4 import BeautifulSoup
    from bs4.element import Tag

#: Removed together with their content (U-SPEC's list, plus other active content).
DROPPED = frozenset(
    {
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet",
        "svg", "math", "canvas", "form", "input", "button", "textarea", "select",
        "option", "link", "meta", "base", "noscript", "template", "head", "title",
        "video", "audio", "source", "track", "dialog",
    }
)  # fmt: skip
#: Inline elements Zhihu keeps, written back without attributes.
INLINE = {"b": "b", "strong": "b", "i": "i", "em": "i", "u": "u", "code": "code",
          "sup": "sup", "sub": "sub",
          # what Zhihu lacks, as its nearest: a highlight bold (as ``==x==``), a key code
          "mark": "b", "ins": "u", "kbd": "code"}  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCKS = frozenset(
    {"p", "blockquote", "ul", "ol", "li", "pre", "hr", "table", "h1", "h2", "h3", "h4",
     "h5", "h6", "figure", "figcaption", "div", "section", "center", "article", "header",
     "footer", "aside", "main", "nav", "details", "summary", "dl", "dt", "dd", "address"}
)  # fmt: skip

#: What raw HTML may bring to Zhihu: the elements mapped below, the attributes they keep.
#: Wrappers such as ``div`` are let in only so that their blocks stay apart.
ALLOWLIST = Allowlist(
    tags=frozenset(
        {
            *INLINE,
            *STRUCK_TAGS,
            *_BLOCKS,
            "a",
            "img",
            "br",
            "caption",  # its words become a line above the table (Sanitizer._blocks)
            "thead",
            "tbody",
            "tfoot",
            "tr",
            "th",
            "td",
        }
    ),
    attributes={
        "a": frozenset({"href"}),
        "img": frozenset({"src", "alt", "title"}),
        "pre": frozenset({"lang", "class", "data-lang"}),
        "code": frozenset({"class"}),  # the language of a raw <pre><code class="language-x">
        # read here: Zhihu itself keeps neither (§12), so the numbers are written as text
        "ol": frozenset({"start", "reversed"}),
        # read here too: Zhihu's table spans nothing, so a spanned cell is written empty
        "td": frozenset({"colspan", "rowspan"}),
        "th": frozenset({"colspan", "rowspan"}),
    },
    url_schemes=frozenset({"http", "https", "mailto"}),
    dropped=DROPPED,
    media=frozenset(MEDIA_LABELS),
)

_SCHEME = pattern(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: In the open raw tags: an ``<a>`` to an e-mail address, which its close writes out.
_MAILTO = "a mailto "
_TAG = pattern(r"^<(/?)([A-Za-z][A-Za-z0-9-]*)\b", re.DOTALL)
#: More than one tag, or text: the line a media element became (see TagStream), or a
#: task's box.
_FRAGMENT = pattern(r"^<[^/][^>]*>.*</|^[^<]")
_ANY_TAG = pattern(r"<[^<>]*>")


def _trim_br(value: str) -> str:
    value = value.strip()
    while value.endswith("<br>"):
        value = value[: -len("<br>")].rstrip()
    return value


def _soup(markup: str) -> BeautifulSoup:
    """``markup`` parsed by Beautiful Soup (``html.parser``), imported at the first raw
    HTML an issue has rather than with this module: most issues have none, and ``check``
    and ``render`` would pay ~13 ms of start-up for it. The methods that tell nodes apart
    import its node classes where they do, for the same reason."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(markup, "html.parser")


def _text(value: str) -> str:
    """Text with its whitespace collapsed: raw HTML's line breaks are layout, not content."""
    return html.escape(re.sub(r"\s+", " ", value))


@dataclass(frozen=True)
class NumberedList:
    """A raw ``<ol>`` numbered from other than 1, as it went to Zhihu (which numbers every
    list from 1): its first number, and whether it stayed a list (a bulleted one, its
    numbers written as text) or became lines of text, numbered the same way, because
    where it stands Zhihu holds no list (a quote, a table cell, a paragraph)."""

    start: int
    as_list: bool
    #: 1, or -1 for an ``<ol reversed>``, whose numbers count down.
    step: int = 1


_LISTS = frozenset({"ul", "ol"})


class Sanitizer:
    """Maps raw HTML (blocks and single inline tags) onto Zhihu's element set.

    ``on_image`` receives every image source met, so the caller can list it in
    ``Rendered.images``. ``levels`` are the body's heading levels (as Markdown's headings
    are mapped): a raw ``<h2>`` is the same Zhihu heading a ``##`` is. A raw image's
    caption is cut to ``caption_chars`` (None: kept whole), as a Markdown image's is.
    """

    def __init__(
        self,
        on_image: Callable[[str], None],
        levels: Sequence[int] = (1,),
        *,
        caption_chars: int | None = None,
    ) -> None:
        self._on_image = on_image
        self._levels = levels
        #: The longest image caption kept (the limit the render keeps to); None: whole. The
        #: renderer that holds this sanitiser reads it here, for its own images too.
        self.caption_chars = caption_chars
        #: Each raw list numbered from other than 1 met so far, in document order: what
        #: ``check`` says about such a list is read from here, so it says what was done.
        self.numbered: list[NumberedList] = []
        self._stream = TagStream(ALLOWLIST)
        #: Raw inline tags written out, so each closing tag is written only if its
        #: opening was (an ``<a>`` to a non-web address is not).
        self._open: list[str] = []
        #: The images of the raw table being written's cells, to follow it.
        self._moved: list[str] = []
        #: How many raw ``<s>``/``<del>`` the text is inside: the renderers draw Markdown
        #: text struck while it is not 0, as this class does with a raw block's text.
        self.striking = 0

    @property
    def dropping(self) -> int:
        """How deep inside a raw inline ``<script>``-like element the text is (then it
        is swallowed until the element closes)."""
        return self._stream.dropping

    # --- inline tags (markdown-it splits inline HTML into one token per tag) ---------

    def inline_tag(self, raw: str) -> str:
        """One raw inline tag (``html_inline`` token) as Zhihu HTML, often ``""``."""
        cleaned = self._stream.tag(raw)
        if _FRAGMENT.search(cleaned):  # a media element's line: a link, maybe an image
            from bs4.element import NavigableString, Tag

            soup = _soup(cleaned)
            return "".join(
                html.escape(str(node)) if isinstance(node, NavigableString) else self._inline(node)
                for node in soup.children
                if isinstance(node, NavigableString | Tag)
            )
        # Mostly one tag; a tag and its style's marks (``<a href="…"><s>``) are several.
        return "".join(self._tag(tag) for tag in _ANY_TAG.findall(cleaned))

    def _tag(self, cleaned: str) -> str:
        """One cleaned tag of :meth:`inline_tag`'s."""
        match = _TAG.match(cleaned)
        if not match:
            return ""
        closing, name = match.group(1), match.group(2).lower()
        if closing:
            for index in range(len(self._open) - 1, -1, -1):
                opened = self._open[index]
                if opened == name or (name == "a" and opened.startswith(_MAILTO)):
                    del self._open[index]
                    return self._close(opened)
            return ""
        from bs4.element import Tag

        element = _soup(cleaned).find(name)
        if not isinstance(element, Tag):
            return ""
        if name == "br":
            return "<br>"
        if name == "img":
            return self._image(element)
        if name in INLINE:
            self._open.append(name)
            return f"<{INLINE[name]}>"
        if name in STRUCK_TAGS:
            self._open.append(name)
            self.striking += 1
            return ""
        if name == "a":
            href = str(element.get("href") or "")
            if is_web_link(href):
                self._open.append(name)
                return f'<a href="{html.escape(href)}">'
            if href.lower().startswith("mailto:"):  # Zhihu links to the web only: the
                self._open.append(_MAILTO + href)  # address follows the words, as in a cell
        return ""

    def cell_image(self, raw: str) -> str:
        """A raw ``<img>`` in a Markdown table's cell, kept as a raw HTML table's cell
        keeps it: an image to upload (or nothing, for a source that cannot be one)."""
        return self.inline_tag(raw)

    def _close(self, name: str) -> str:
        if name.startswith(_MAILTO):
            return html.escape(f" ({name[len(_MAILTO) :]})")
        if name in INLINE:
            return f"</{INLINE[name]}>"
        if name in STRUCK_TAGS:
            self.striking = max(0, self.striking - 1)
            return ""
        return "</a>" if name == "a" else ""

    # --- blocks ----------------------------------------------------------------------

    def block(self, raw: str) -> str:
        """A raw HTML block as Zhihu blocks; loose text is wrapped in ``<p>``."""
        # nh3's output is balanced HTML5, so the forgiving html.parser reads it as a
        # browser would have read the raw source.
        soup = _soup(clean(raw, ALLOWLIST))
        out: list[str] = []
        run: list[str] = []
        self._blocks(soup, out, run)
        self._flush(out, run)
        return "".join(out)

    def _flush(self, out: list[str], run: list[str]) -> None:
        text = "".join(run).strip()
        run.clear()
        if not text:
            return
        if text.startswith("<img") and text.endswith(">") and text.count("<img") == 1:
            out.append(text)  # a standalone image is a block of its own (§7.1)
        else:
            out.append(f"<p>{text}</p>")

    def _blocks(self, parent: Tag, out: list[str], run: list[str]) -> None:
        from bs4.element import Comment, NavigableString, Tag

        for node in parent.children:
            if isinstance(node, Comment):
                continue
            if isinstance(node, NavigableString):
                run.append(_text(str(node)))
                continue
            if not isinstance(node, Tag):
                continue
            name = node.name.lower()
            if name not in _BLOCKS:
                run.append(self._inline(node))
                continue
            self._flush(out, run)
            if name == "summary":  # the title of what Zhihu shows open: a bold line
                title = _trim_br(self._inline_children(node))
                self._flush(out, [f"<b>{title}</b>" if title else ""])
            elif name == "figcaption" and _figure_caption(node) is not None:
                pass  # its picture's caption (see _caption)
            elif name in {"p", "figcaption", "dt", "address"}:
                self._flush(out, [_trim_br(self._inline_children(node))])
            elif name in _HEADINGS:
                heading = _trim_br(self._inline_children(node))
                tag = heading_tag(name, self._levels)
                if heading.strip():  # an empty one is left out, as Markdown's is
                    out.append(f"<{tag}>{heading}</{tag}>" if tag else f"<p><b>{heading}</b></p>")
            elif name == "blockquote":
                out.append(f"<blockquote>{_trim_br(self._inline_children(node))}</blockquote>")
            elif name in {"ul", "ol"}:
                lead: list[str] = []
                listed = self._list(node, name, lead)
                self._flush(out, lead)  # words before its first item: a paragraph
                out.append(listed)
            elif name == "pre":
                language = code_language(written_language(node))
                code = node.get_text().rstrip("\n")
                out.append(f'<pre lang="{html.escape(language)}">{html.escape(code)}</pre>')
            elif name == "hr":
                out.append("<hr>")
            elif name == "table":  # one that laid a page out is its blocks already
                # Zhihu's table has no caption: its words are a line above it, where a
                # browser shows them.
                for caption in node.find_all("caption", recursive=False):
                    self._flush(out, [_trim_br(self._inline_children(caption))])
                out.append(self._table(node))
            else:  # layout wrappers: their content stands in their place
                self._blocks(node, out, run)
                self._flush(out, run)

    def _start(self, node: Tag, name: str, *, as_list: bool) -> NumberedList | None:
        """:func:`_numbering` of a raw list, noted in :attr:`numbered` with what became
        of it (``as_list``: it stayed a list)."""
        numbering = _numbering(node, as_list=as_list) if name == "ol" else None
        if numbering is not None:
            self.numbered.append(numbering)
        return numbering

    def _list(self, node: Tag, name: str, lead: list[str] | None = None) -> str:
        """A list; one numbered from other than 1 shows its numbers as text in a bulleted
        list, as a Markdown one does (Zhihu numbers every ``<ol>`` from 1). A list nested
        in an item follows the item as its sibling, Zhihu's own nesting (§7.1), as a
        Markdown sublist does; one written that way already stays so.

        Words written in the list outside any item (``<ul>text</ul>``, an old way to
        indent) are kept: after an item, as a line of that item (its number stays
        right); before the first, in ``lead`` when given (a list that stands alone,
        whose caller writes them as a paragraph before it), else as an item of their
        own. ``""`` when nothing is left to be a list."""
        numbering = self._start(node, name, as_list=True)
        children = list(_list_children(node, self._inline))
        if numbering is None and name == "ol" and lead is None and _words_first(children):
            # Those words become an item of their own, which Zhihu would number: every
            # item after them would show one more than written. The numbers go as text.
            numbering = NumberedList(1, as_list=True)
        number = 1 if numbering is None else numbering.start
        items: list[str] = []
        loose: list[str] = []

        def place_loose() -> None:
            text = _trim_br("".join(loose))
            loose.clear()
            if not text:
                return
            if lead is not None and not items:
                lead.append(text)
            elif items and items[-1].endswith("</li>"):
                items[-1] = f"{items[-1][: -len('</li>')]}<br>{text}</li>"
            else:
                items.append(f"<li>{text}</li>")

        for child in children:
            if isinstance(child, str):
                loose.append(child)
                continue
            place_loose()
            if child.name.lower() in _LISTS:
                items.append(self._list(child, child.name.lower()))
            else:
                written = "" if numbering is None else item_number(number)
                items.append(self._item(child, written))
                number += 1 if numbering is None else numbering.step
        place_loose()
        tag = "ul" if numbering is not None else name
        return f"<{tag}>{''.join(items)}</{tag}>" if items else ""

    def _item(self, li: Tag, written: str) -> str:
        """One list item: ``<li>`` with its words, each list nested in it lifted out to
        follow it, and its words after such a list in an ``<li>`` of their own."""
        from bs4.element import Comment, NavigableString, Tag

        out: list[str] = []
        run: list[str] = []
        lifted = False
        for node in li.children:
            if isinstance(node, Comment):
                continue
            if isinstance(node, Tag) and node.name.lower() in _LISTS:
                text = _trim_br("".join(run))
                if text or written:
                    out.append(f"<li>{written}{text}</li>")
                written, run, lifted = "", [], True
                out.append(self._list(node, node.name.lower()))
            elif isinstance(node, NavigableString):
                run.append(_text(str(node)))
            elif isinstance(node, Tag):
                run.append(self._inline(node))
        text = _trim_br("".join(run))
        if text or written or not lifted:
            out.append(f"<li>{written}{text}</li>")
        return "".join(out)

    def _lines(self, node: Tag, name: str, *, cell: bool = False) -> str:
        """A list where Zhihu holds no list (a quote, a table cell, a heading): a line
        per item, numbered as text when it does not start at 1, so the numbers the
        reader was meant to see are still there. Words written in the list outside any
        item (``<ul>text</ul>``, an old way to indent) are a line of their own, without
        a number. In a ``cell`` the words are a cell's plain text."""
        numbering = self._start(node, name, as_list=False)
        number = 1 if numbering is None else numbering.start
        words, one = (
            (self._cell_children, self._cell_node)
            if cell
            else (self._inline_children, self._inline)
        )
        lines: list[str] = []
        loose: list[str] = []  # words outside any item, since the last item
        for child in _list_children(node, one):
            if isinstance(child, str):
                loose.append(child)
                continue
            lines.append(_trim_br("".join(loose)))
            loose.clear()
            if child.name.lower() in _LISTS:
                lines.append(_trim_br(self._lines(child, child.name.lower(), cell=cell)))
            else:
                written = "" if numbering is None else item_number(number)
                lines.append(f"{written}{_trim_br(words(child))}")
                number += 1 if numbering is None else numbering.step
        lines.append(_trim_br("".join(loose)))
        return "".join(f"{line}<br>" for line in lines if line)

    def _inline_children(self, parent: Tag) -> str:
        return self._children(parent, self._inline)

    def _children(self, parent: Tag, piece_of: Callable[[Tag], str], *, cell: bool = False) -> str:
        """``parent``'s children written inline: text escaped, comments left out, each
        element as ``piece_of`` writes it, a list starting on a line of its own. In a
        ``cell`` a table nested in it becomes its rows, one line each (Zhihu has no
        nested tables)."""
        from bs4.element import Comment, NavigableString, Tag

        out: list[str] = []
        for node in parent.children:
            if isinstance(node, Comment):
                continue
            if isinstance(node, NavigableString):
                out.append(_text(struck(str(node)) if self.striking else str(node)))
            elif isinstance(node, Tag) and cell and node.name == "table":
                spanned: dict[int, tuple[int, str]] = {}
                cells = [self._cells(row, spanned) for row in table_rows(node)]
                words = [[_CELL_TAGS.sub("", cell) for cell in row] for row in cells]
                captions = node.find_all("caption", recursive=False)
                lines = [_trim_br(self._cell_children(caption)) for caption in captions]
                lines += [" ".join(word for word in row if word) for row in words]
                before = _trim_br("".join(out))
                out = [before, "<br>"] if before else []
                out.append("<br>".join(line.strip() for line in lines))
            elif isinstance(node, Tag):
                piece = piece_of(node)
                if piece and node.name.lower() in _LISTS:
                    _new_line(out)
                out.append(piece)
        return "".join(out)

    def _inline(self, node: Tag) -> str:
        name = node.name.lower()
        if name == "br":
            return "<br>"
        if name == "img":
            return self._image(node)
        if name in _LISTS:
            return self._lines(node, name)
        if name in STRUCK_TAGS:
            with self._struck():
                return self._inline_children(node)
        inner = self._inline_children(node)
        if name in INLINE:
            return f"<{INLINE[name]}>{inner}</{INLINE[name]}>"
        if name == "a" and is_web_link(str(node.get("href") or "")):
            return f'<a href="{html.escape(str(node.get("href")))}">{inner}</a>'
        if name == "a" and str(node.get("href") or "").lower().startswith("mailto:"):
            return cell_link_text(inner, str(node.get("href")))  # "写信 (mailto:…)"
        if name in _BLOCKS and inner.strip():
            return f"{inner}<br>" if name in {"p", "div", "li"} else inner
        return inner

    @contextmanager
    def _struck(self) -> Iterator[None]:
        """Text written in the block is drawn struck through (a raw ``<s>``/``<del>``)."""
        self.striking += 1
        try:
            yield
        finally:
            self.striking -= 1

    def _image(self, element: Tag) -> str:
        source = str(element.get("src") or "").strip()
        uploadable = is_web_link(source) or DATA_IMAGE.match(source)
        if not source or (_SCHEME.match(source) and not uploadable):
            return ""  # web, relative and data: images are uploaded; never javascript: etc.
        self._on_image(source)
        return image_html(source, _caption(element), self.caption_chars)

    def _table(self, table: Tag) -> str:
        """A raw table, the images of its cells after it (a cell holds plain text, §7.1)."""
        outer, self._moved = self._moved, []
        spanned: dict[int, tuple[int, str]] = {}
        try:
            rows = "".join(
                f"<tr>{''.join(self._cells(row, spanned))}</tr>" for row in table_rows(table)
            )
            images = "".join(self._moved)
        finally:
            self._moved = outer
        return f"{TABLE_OPEN}{rows}{TABLE_CLOSE}{images}"

    def _cells(self, row: Tag, spanned: dict[int, tuple[int, str]]) -> list[str]:
        """A row's cells. Zhihu's table spans nothing: a cell over several columns or rows
        (``colspan``, ``rowspan``) is written in the first and leaves the others empty,
        so every cell after it stays under its own column. ``spanned`` carries, from row
        to row, the columns a cell above still covers (how many rows more, its tag)."""
        out: list[str] = []
        column = 0

        def covered() -> None:
            nonlocal column
            while column in spanned:
                rows, name = spanned.pop(column)
                if rows > 1:
                    spanned[column] = (rows - 1, name)
                out.append(f"<{name}></{name}>")
                column += 1

        for cell in row.find_all(["th", "td"], recursive=False):
            covered()
            out.append(f"<{cell.name}>{_trim_br(self._cell_children(cell))}</{cell.name}>")
            across, down = _span(cell, "colspan"), _span(cell, "rowspan")
            for offset in range(across):
                if offset:
                    out.append(f"<{cell.name}></{cell.name}>")
                if down > 1:
                    spanned[column + offset] = (down - 1, cell.name)
            column += across
        covered()
        return out

    def _cell_children(self, parent: Tag) -> str:
        """A cell's content as Zhihu keeps it (§7.1): text, line breaks and images; a
        link's words are followed by its address, as in a pipe table's cell (the cell
        holds plain text, so an ``<a>`` would show its words alone); other marks give
        way to their text, and a table nested in the cell to its rows, one line each
        (Zhihu has no nested tables)."""
        return self._children(parent, self._cell_node, cell=True)

    def _cell_node(self, node: Tag) -> str:
        name = node.name.lower()
        if name == "br":
            return "<br>"
        if name == "img":  # it follows the table; the cell says its words and where
            shown = self._image(node)
            if shown:
                self._moved.append(shown)
                return html.escape(moved_image_words(_caption(node)))
            return ""
        if name in _LISTS:  # a cell holds no list: a line per item, as in a quote
            return self._lines(node, name, cell=True)
        if name in STRUCK_TAGS:
            with self._struck():
                return self._cell_children(node)
        inner = self._cell_children(node)
        if name == "a":
            return cell_link_text(inner, str(node.get("href") or "").strip())
        return inner


def _caption(image: Tag) -> str:
    """The caption of a raw ``<img>``: the ``<figcaption>`` of the figure it stands in
    alone, else its title, else its alt text unless a tool filled that in, as for a
    Markdown image."""
    source = str(image.get("src") or "").strip()
    figure = image.find_parent("figure")
    caption = figure.find("figcaption") if figure is not None else None
    written = _figure_caption(caption) if caption is not None else None
    title = written if written is not None else str(image.get("title") or "")
    return caption_of(str(image.get("alt") or ""), title, source)


def _figure_caption(caption: Tag) -> str | None:
    """The words of a ``<figcaption>`` when they are its figure's one picture's caption
    (a caption holds no link: one that does stays a line under the picture, linked)."""
    figure = caption.find_parent("figure")
    if figure is None or len(figure.find_all("img")) != 1 or caption.find("a") is not None:
        return None
    words = " ".join(caption.get_text(" ").split())
    return words or None


def _list_children(node: Tag, inline: Callable[[Tag], str]) -> Iterator[str | Tag]:
    """What stands in a list, in order: each ``<li>`` and each list nested in it as its
    tag; anything else (words written outside any item) as its text, ``inline`` mapping
    a tag to it. Comments are left out."""
    from bs4.element import Comment, NavigableString, Tag

    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            yield _text(str(child))
        elif isinstance(child, Tag):
            yield child if child.name.lower() in {"li", *_LISTS} else inline(child)


_CELL_TAGS = pattern(r"</?t[hd]>")


def _new_line(out: list[str]) -> None:
    """End the line ``out`` holds so far, if any, before a list's lines begin: a list
    where Zhihu holds none is lines (a quote, a cell, an item's words), and its first
    line must not run into the words before it ("2. two" then "sub a", not "twosub a")."""
    before = "".join(out).rstrip()
    out[:] = [before, "<br>"] if before and not before.endswith("<br>") else [before]


def _words_first(children: Sequence[str | Tag]) -> bool:
    """Whether a list's :func:`_list_children` begin with words outside any item."""
    for child in children:
        if not isinstance(child, str):
            return False
        if _trim_br(child).strip():
            return True
    return False


def _numbering(ol: Tag, *, as_list: bool) -> NumberedList | None:
    """How a raw ``<ol>`` is numbered when Zhihu, which numbers every list from 1 and up,
    would show other numbers (else None): from other than 1, or counting down
    (``reversed``, from its item count unless it says where)."""
    written = str(ol.get("start") or "")
    start = raw_list_start(written)
    if not ol.has_attr("reversed"):
        return None if start is None else NumberedList(start, as_list)
    items = len(ol.find_all("li", recursive=False))
    if start is None and not written.strip():
        start = items
    if start in (None, 1) and items <= 1:
        return None  # one item numbered 1 is what Zhihu shows anyway
    return NumberedList(1 if start is None else start, as_list, step=-1)


#: Where a raw list is not the renderer's to note: its text is dropped or kept as code.
_UNLISTED = DROPPED | {"pre"}


#: A raw list tag written inside a line of text (markdown-it's ``html_inline`` token).
_INLINE_LIST_TAG = pattern(r"^<(/?)(ol|ul|li)\b[^>]*>$", re.IGNORECASE)


def _list_tag(token: Token) -> tuple[bool, str] | None:
    """(closing, name) of a raw ``<ol>``, ``<ul>`` or ``<li>`` tag token, else None."""
    if token.type != "html_inline":
        return None
    found = _INLINE_LIST_TAG.match(token.content.strip())
    return (bool(found.group(1)), found.group(2).lower()) if found else None


def _shows(token: Token) -> bool:
    return token.type != "softbreak" and not (token.type == "text" and not token.content.strip())


def inline_lists(children: Sequence[Token]) -> tuple[list[Token], list[NumberedList]]:
    """Raw list tags inside a line of text (``文字 <ol start="3"><li>三</li></ol>``, as in
    a pipe table's cell), where Zhihu holds no list: the items ran into one word and lost
    their numbers. Each item now begins a line of its own (a hard break), numbered as
    text when the list does not start at 1, as a raw list in a quote or a raw table's
    cell is (:meth:`Sanitizer._lines`), and words after the list begin another; the
    list's tags are left out. Returns the new children and each list numbered otherwise
    than from 1 (for ``check``)."""
    tags = [_list_tag(child) for child in children]
    if not any(tags):
        return list(children), []
    out: list[Token] = []
    numbered: list[NumberedList] = []
    counters: list[list[int] | None] = []  # per open list: [next number, step], or None
    pending = False  # the list ended: the next words begin a line
    for index, (child, tag) in enumerate(zip(children, tags, strict=True)):
        if tag is None:
            if pending and _shows(child):
                _break_line(out)
                pending = False
                if child.type == "text":  # a line does not begin with a blank
                    child = Token("text", "", 0, content=child.content.lstrip())
            out.append(child)
            continue
        closing, name = tag
        if name == "li":
            if not closing:
                if any(_shows(token) for token in out):
                    _break_line(out)
                pending = False
                counter = counters[-1] if counters else None
                if counter is not None:
                    out.append(Token("text", "", 0, content=item_number(counter[0])))
                    counter[0] += counter[1]
        elif closing:
            if counters:
                counters.pop()
            pending = True
        else:
            numbering = None
            if name == "ol":
                ol = _soup(_list_span(children, tags, index)).find("ol")
                numbering = _numbering(ol, as_list=False) if ol is not None else None
            if numbering is not None:
                numbered.append(numbering)
            counters.append(None if numbering is None else [numbering.start, numbering.step])
            pending = True
    return out, numbered


def _break_line(out: list[Token]) -> None:
    """End the line ``out`` holds with a hard break, the blank before it left out (the
    tokens may be a shared document's: a changed one is a new token)."""
    if out and out[-1].type == "text":
        out[-1] = Token("text", "", 0, content=out[-1].content.rstrip())
    out.append(Token("hardbreak", "br", 0))


def with_inline_lists(tokens: list[Token]) -> list[Token]:
    """``tokens`` with every line's raw list tags made lines (:func:`inline_lists`), in
    place: the tokens are the renderer's own copy."""
    for token in tokens:
        if token.type == "inline" and token.children and "<" in token.content:
            token.children = inline_lists(token.children)[0]
    return tokens


def _list_span(
    children: Sequence[Token], tags: Sequence[tuple[bool, str] | None], first: int
) -> str:
    """The list tags alone of the raw list opening at ``children[first]``, to its close:
    enough to read its numbering (an ``<ol reversed>`` counts its items)."""
    name = (tags[first] or (False, ""))[1]
    depth = 0
    span: list[str] = []
    for child, tag in zip(children[first:], tags[first:], strict=True):
        if tag is None:
            continue
        span.append(child.content)
        if tag[1] == name:
            depth += -1 if tag[0] else 1
            if depth == 0:
                break
    return "".join(span)


def numbered_lists(raw: str) -> list[tuple[NumberedList, int]]:
    """Each raw list of the HTML block ``raw`` that Zhihu would number otherwise, as
    :class:`Sanitizer` wrote it, with the line of ``raw`` (from 0) that holds its tag.

    The sanitiser reads ``raw`` cleaned, where no tag keeps its place; its notes come in
    document order, so each is matched to the next list tag of ``raw`` itself that is
    numbered the same way, found by a parser (not a pattern), so that a tag in a comment,
    a ``<script>`` or a ``<pre>`` is not taken for one."""
    sanitizer = Sanitizer(lambda _: None)
    sanitizer.block(raw)
    notes = iter(sanitizer.numbered)
    note = next(notes, None)
    found: list[tuple[NumberedList, int]] = []
    for ol in _soup(raw).find_all("ol"):
        if note is None:
            break
        if any(parent.name.lower() in _UNLISTED for parent in ol.parents if parent.name):
            continue
        numbering = _numbering(ol, as_list=note.as_list)
        if numbering == note:
            found.append((note, (ol.sourceline or 1) - 1))
            note = next(notes, None)
    return found


def _span(cell: Tag, attribute: str) -> int:
    """How many columns or rows a cell spans (1 when unsaid or unreadable; at most 50)."""
    try:
        return max(1, min(50, int(str(cell.get(attribute) or "1").strip())))
    except ValueError:
        return 1


#: A code block's language in its class, as highlighters write it: ``language-bash``
#: (Prism, highlight.js, GitBook), ``lang-bash``, ``highlight-source-python`` (GitHub).
_CLASS_LANGUAGE = pattern(r"^(?:language|lang|highlight-source|highlight)-([\w+#.-]+)$")


def written_language(node: Tag) -> str:
    """The language a raw ``<pre>`` (or its ``<code>``) names: ``lang``, ``data-lang``,
    a class such as ``language-bash``, or Pandoc's and knitr's ``sourceCode r``."""
    from bs4.element import Tag

    for element in (node, node.find("code")):
        if not isinstance(element, Tag):
            continue
        for attribute in ("lang", "data-lang", "data-language"):
            if element.get(attribute):
                return str(element.get(attribute))
        classes = element.get("class")
        names = classes.split() if isinstance(classes, str) else [str(c) for c in classes or ()]
        for name in names:
            found = _CLASS_LANGUAGE.match(name)
            if found:
                return found.group(1)
        if "sourceCode" in names and len(names) > 1:
            return next(name for name in names if name != "sourceCode")
    return ""
