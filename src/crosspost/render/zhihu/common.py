"""What Zhihu's two outputs (API HTML and importer Markdown) share.

The tokens the Zhihu channel reads an issue as, how a formula becomes Zhihu's
equation image, how a table becomes the one table shape Zhihu keeps, and how notes
(footnotes and links that carry an explanation instead of a URL) are collected.
Facts come from ``specs/zhihu-api.md`` §7.1 and ``anchors-and-rendering-rules.md`` Z1–Z5.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import quote

import lxml.etree
import lxml.html
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from crosspost.issue.blocks import HTML_ATTRIBUTE, TAG_NAME, copy_token, html_attributes
from crosspost.issue.code_annotations import DIFF_SIGNS, LineMark, line_marks
from crosspost.issue.dialect import (
    VOID,
    Document,
    code_title,
    drop_title_heading,
    only_for,
    tokens_after,
)
from crosspost.patterns import pattern
from crosspost.platforms.zhihu import ZHIHU
from crosspost.render.captions import caption_of
from crosspost.render.prepare import as_every_channel_reads
from crosspost.render.sanitize import ALWAYS_DROPPED, decoration
from crosspost.render.sections import heading_levels as body_heading_levels
from crosspost.render.tasks import BOXES, written_boxes

CHANNEL = ZHIHU.name

#: The editor's own, protocol-relative form of the formula renderer (§7.1).
EQUATION_URL = "//www.zhihu.com/equation?tex="

#: The attributes that make Zhihu's Draft.js editor keep a table (§7.1, Z2).
TABLE_OPEN = (
    '<table data-draft-node="block" data-draft-type="table" data-size="normal"'
    ' data-row-style="normal"><tbody>'
)
TABLE_CLOSE = "</tbody></table>"

#: Display names people write after ``` → the language ids Zhihu highlights by (§7.1).
LANGUAGE_IDS = {
    "c++": "cpp",
    "c#": "csharp",
    "cs": "csharp",
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "ts": "typescript",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "objective-c": "objectivec",
    "objc": "objectivec",
    "golang": "go",
    "yml": "yaml",
    "md": "markdown",
}

_WEB_LINK = pattern(r"^(https?:)?//", re.IGNORECASE)
_BARE_URL = pattern(r"https?://[^\s<>\"'）)]+", re.IGNORECASE)
_BREAK = pattern(r"^<br\s*/?>$", re.IGNORECASE)
#: Raw media tags: a cell cannot hold the line media become elsewhere, so the address
#: of their ``src`` follows in brackets, as a link's does.
_MEDIA_TAGS = frozenset({"video", "audio", "iframe", "embed", "source"})
_UNESCAPED_GT = pattern(r"(?<!\\)>\s*")
#: A raw inline image in a cell: kept, as a raw HTML table's cell keeps it.
_CELL_IMAGE = pattern(r"^<img\b", re.IGNORECASE)
#: A raw opening tag: its name, then its attributes (:data:`~crosspost.issue.blocks.
#: HTML_ATTRIBUTE` each).
_RAW_OPEN_TAG = pattern(rf"^<({TAG_NAME})((?:\s+{HTML_ATTRIBUTE})*)\s*/?>", re.IGNORECASE)
#: Any raw closing tag, its name in group 1.
_RAW_CLOSE_TAG = pattern(rf"^</({TAG_NAME})\s*>", re.IGNORECASE)


def body_tokens(document: Document, titles: Sequence[str]) -> list[Token]:
    """The body's tokens as Zhihu sees it, without a leading ``# title``: the document's
    own, shared, to read and never to change (no copy: a long issue has many)."""
    return drop_title_heading(only_for(document.tokens, CHANNEL), titles)


def zhihu_tokens(
    document: Document, titles: Sequence[str], tail: Document | None = None
) -> list[Token]:
    """A fresh copy of :func:`body_tokens`, with ``tail``'s tokens (a section crosspost
    adds, such as 往期回顾) after the text and before the footnotes, which close the
    article; then read as every channel reads them (hidden raw HTML left out, an item
    opening with a raw checkbox a task item: :func:`.prepare.as_every_channel_reads`)."""
    tokens = [copy_token(token) for token in body_tokens(document, titles)]
    if tail is not None:
        notes = next((i for i, t in enumerate(tokens) if t.type == "footnote_block_open"), None)
        at = len(tokens) if notes is None else notes
        tokens = tokens[:at] + tail.for_channel(CHANNEL) + tokens[at:]
    as_every_channel_reads(tokens)
    return tokens


# --- headings, tasks, strikethrough ------------------------------------------------------

#: Zhihu's two heading levels ("一级标题", "二级标题"); deeper headings are bold paragraphs.
HEADING_TAGS = ("h2", "h3")
#: What a task item (``- [ ]`` / ``- [x]``) starts with: Zhihu has no checkboxes.
TASK_MARKERS = {checked: f"{box} " for checked, box in BOXES.items()}
#: U+0336 COMBINING LONG STROKE OVERLAY: Zhihu keeps no strikethrough markup, and
#: dropping the mark would flip the meaning of "~~free~~ paid"; struck characters stay
#: visibly struck through wherever the text goes.
STROKE = "\u0336"


def heading_levels(tokens: Sequence[Token]) -> tuple[int, ...]:
    """The levels of the body's own headings, highest first (see
    :func:`crosspost.render.sections.heading_levels`); ``(1,)`` when it has none."""
    return body_heading_levels(tokens) or (1,)


def heading_tag(tag: str, levels: Sequence[int]) -> str | None:
    """The Zhihu tag of a heading ``tag`` (``"h3"``…) in a body whose headings use
    ``levels``: the highest becomes ``<h2>``, the next one used ``<h3>`` (``##`` then
    ``####`` are two levels, not three), deeper ones ``None`` (bold). A level the body
    does not use (a heading in a quote) counts its distance from the highest."""
    level = int(tag[1])
    depth = levels.index(level) if level in levels else max(0, level - levels[0])
    return HEADING_TAGS[depth] if depth < len(HEADING_TAGS) else None


def list_start(attrs: Mapping[str, str | int | float]) -> int | None:
    """The first number of an ordered list (its ``attrs``) when it is not 1, else ``None``.

    Zhihu's editor numbers every ``<ol>`` from 1 and no source says it keeps ``start``
    (§7, §12 list ``ol`` without attributes), so such a list is written as a bulleted
    list whose items show their numbers as text: the reader still sees 7, 8, 9.
    """
    start = int(attrs.get("start", 1))
    return None if start == 1 else start


#: A raw HTML block that opens with a list (the sanitiser decides; this is the guess made
#: before it runs, for :func:`goes_on_after_sublist`).
_RAW_LIST = pattern(r"\s*<(?:ul|ol)\b", re.IGNORECASE)
_LIST_OPENS = frozenset({"bullet_list_open", "ordered_list_open"})
_LIST_CLOSES = frozenset({"bullet_list_close", "ordered_list_close"})


def goes_on_after_sublist(tokens: Sequence[Token], idx: int) -> bool:
    """Whether an item of the numbered list opening at ``idx`` goes on after its sublist.

    Zhihu nests by siblings (``<li>a</li><ul>…</ul>``), so what follows the sublist in
    the same item becomes an ``<li>`` of its own, and in an ``<ol>`` Zhihu would give it
    the next number: every later item would show one more than the editor wrote. Such a
    list is written with its numbers as text instead (as one not starting at 1 is): the
    words after the sublist stay where they were, under a bullet of their own, and every
    number is the editor's.
    """
    level = tokens[idx].level
    after_sublist = False
    for token in tokens_after(tokens, idx):
        if token.level == level:
            return False  # the list's own close: nothing went on after a sublist
        if token.level == level + 1 and token.type == "list_item_open":
            after_sublist = False
        if token.level != level + 2:
            continue  # the item's own blocks only, not what is inside them
        raw_list = token.type == "html_block" and _RAW_LIST.match(token.content) is not None
        sublist = raw_list or token.type in _LIST_OPENS
        if after_sublist and token.nesting >= 0 and not sublist:
            return True
        after_sublist = after_sublist or raw_list or token.type in _LIST_CLOSES
    return False


def raw_list_start(value: str) -> int | None:
    """:func:`list_start` of a raw ``<ol start="…">`` (``""``: none written)."""
    value = value.strip()
    return list_start({"start": int(value)}) if re.fullmatch(r"-?\d{1,9}", value) else None


def item_number(number: int) -> str:
    """How an item of a list numbered as text begins (as WeChat and browsers show it)."""
    return f"{number}. "


def struck(text: str) -> str:
    """``text`` drawn struck through: each visible character followed by :data:`STROKE`."""
    return "".join(char if char.isspace() else char + STROKE for char in text)


#: Unicode's superscript and subscript forms, for Zhihu, which has no markup for either
#: (only its references are raised).
_SUPERSCRIPT = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyz",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ",
        strict=True,
    )
)
_SUBSCRIPT = dict(
    zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)


def scripted(text: str, *, raised: bool) -> str:
    """A superscript (``raised``) or a subscript as Zhihu can show it: in Unicode's raised
    or lowered characters when each has one (x², H₂O, 2¹⁰), else marked as TeX would
    (``^(…)``, ``_(…)``): written plainly, "x^2^" read "x2", another number."""
    table = _SUPERSCRIPT if raised else _SUBSCRIPT
    if all(char in table for char in text):
        return "".join(table[char] for char in text)
    return f"{'^' if raised else '_'}({text})"


def is_web_link(href: str) -> bool:
    """Whether a link target is a web address a reader can follow."""
    return bool(_WEB_LINK.match(href.strip()))


def code_language(info: str) -> str:
    """The language id for a fence's info string (``""`` when none was given)."""
    word = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
    return LANGUAGE_IDS.get(word, word)


def code_parts(block: Token | SyntaxTreeNode) -> tuple[str, str, str]:
    """A code block's language id, title (a fence's) and code as both Zhihu outputs
    write it (:func:`signed_code`)."""
    fenced = block.type == "fence"
    language = code_language(block.info) if fenced else ""
    title = code_title(block.info) if fenced else ""
    return language, title, signed_code(block.content, line_marks(block.meta))


def signed_code(code: str, marks: Sequence[LineMark]) -> str:
    """``code`` with a diff's sign before each added and removed line (``+ ``, ``- ``)
    and two spaces before the others, which keeps the code aligned. Zhihu keeps code
    plain, so the sign is what says which line went and which came; a highlighted
    line looks like the rest. Code with no diff in it stays as it is."""
    if not any(mark in DIFF_SIGNS for mark in marks):
        return code
    lines = code.split("\n")
    signed = []
    for number, line in enumerate(lines):
        sign = DIFF_SIGNS.get(marks[number] if number < len(marks) else "", " ")
        signed.append(f"{sign} {line}" if line else sign.strip())
    return "\n".join(signed)


# --- formulas -------------------------------------------------------------------------


def zhihu_tex(tex: str, *, display: bool) -> str:
    """TeX as Zhihu's formula renderer needs it.

    Newlines become spaces (they turn into ``<br>`` inside formulas), an unescaped
    ``>`` becomes ``\\gt`` (a raw ``>`` in ``alt`` breaks a following ``\\}``), and a
    display formula ends in ``\\\\``, which is how Zhihu knows to centre it, unless it
    is numbered with ``\\tag``.
    """
    one_line = " ".join(part.strip() for part in tex.strip().splitlines() if part.strip())
    one_line = _UNESCAPED_GT.sub(r"\\gt ", one_line)
    if display and not one_line.endswith("\\\\") and "\\tag" not in one_line:
        one_line += "\\\\"
    return one_line


def numbered(tex: str, label: str) -> str:
    """A display formula with its equation label (``$$…$$ (1)``) as Zhihu numbers one:
    ``\\tag``, which its renderer draws at the right, as WeChat shows the label."""
    return f"{tex.strip()} \\tag{{{label.strip()}}}" if label.strip() else tex


def equation_html(tex: str, *, display: bool) -> str:
    """An equation image (``eeimg="2"`` for display formulas, ``"1"`` inline)."""
    source = zhihu_tex(tex, display=display)
    encoded = quote(source, safe="!~*'()")  # what encodeURIComponent leaves alone
    mark = "2" if display else "1"
    return f'<img eeimg="{mark}" src="{EQUATION_URL}{encoded}" alt="{html.escape(source)}">'


# --- images ---------------------------------------------------------------------------


def image_html(source: str, caption: str, caption_chars: int | None) -> str:
    """An image in the form Zhihu's editor stores (§7.1, Z4).

    ``data-original-src`` repeats ``src`` on purpose: ``Rendered.with_image_urls``
    replaces every ``src="…"``, so both end up pointing at the uploaded copy. Width and
    height are unknown to a pure renderer, so ``data-size`` is ``normal``. A caption
    longer than ``caption_chars`` (the limit the render keeps to: the declaration's, or
    the config's, ``RenderContext.limits``) is cut; None keeps it whole (limit off).
    """
    src = html.escape(source)
    words = " ".join(caption.split())
    text = html.escape(words[:caption_chars] if caption_chars else words)
    return (
        f'<img src="{src}" data-caption="{text}" data-size="normal"'
        f' data-watermark="original" data-original-src="{src}"'
        ' data-watermark-src="" data-private-watermark-src="">'
    )


# --- tables ---------------------------------------------------------------------------


class CellTags(Protocol):
    """What a cell does with a raw inline ``<img>``: the Zhihu sanitiser's
    :meth:`~crosspost.render.zhihu.sanitize.Sanitizer.cell_image` (a protocol, as the
    sanitiser is built on this module)."""

    def cell_image(self, raw: str) -> str: ...


#: Raw tags of struck-through text. Zhihu keeps no mark for it, so the text inside is
#: drawn struck (:func:`struck`), in a cell as anywhere, as for ``~~…~~``: dropping the
#: mark would show "<s>免费</s> 付费" as "免费 付费".
STRUCK_TAGS = frozenset({"s", "del", "strike"})

#: Where a table cell's image went: Zhihu's cells hold plain text (§7.1), so the image
#: follows its table, and the cell says so after the image's words.
MOVED_IMAGE = "（图见表后）"


def moved_image_words(caption: str) -> str:
    """What a table cell shows in place of an image that follows the table."""
    return f"{' '.join(caption.split())}{MOVED_IMAGE}"


def cell_html(
    children: Sequence[Token],
    notes: Mapping[int, Note] | None = None,
    on_image: Callable[[str], None] | None = None,
    tags: CellTags | None = None,
    after: list[tuple[str, str]] | None = None,
    caption_chars: int | None = None,
) -> str:
    """A table cell's inline content as Zhihu keeps it: plain text, ``<br>`` for breaks.

    Zhihu's cells hold plain text (§7.1), so emphasis and code lose their marks, a
    formula shows its TeX, and a link keeps its address after its text so the reader
    can still find it, whether written ``[text](url)`` or ``<a href>`` (a link sent as
    ``<a>`` would show its text alone); so does a note, which cannot be a reference
    inside a cell. An image cannot stay either: its (source, caption) goes to ``after``,
    for the caller to show after the table, and the cell says its words and where it
    went (:func:`moved_image_words`); ``on_image`` hears of each, to upload it, and a
    raw ``<img>`` goes to ``tags``, which checks it as a raw HTML table's cell does.
    Without ``after`` an image stays in the cell, its caption cut to ``caption_chars``.
    """
    parts: list[str] = []
    link: _CellLink | None = None
    hidden = 0  # inside a raw <script> or <style>: code, not words, as anywhere else
    striking = 0  # inside ~~…~~ or a raw <s>/<del>/<strike>, or one its style strikes
    styled: list[tuple[str, bool]] = []  # per raw element open: name, whether it strikes
    for token in children:
        raw = token.content if token.type == "html_inline" else ""
        opened = _RAW_OPEN_TAG.match(raw) if raw else None
        closed = _RAW_CLOSE_TAG.match(raw) if raw and not opened else None
        tag = opened or closed
        name = tag.group(1).lower() if tag else ""
        if name in ALWAYS_DROPPED:
            hidden = max(0, hidden + (-1 if closed else 1))
            continue
        if hidden:
            continue
        box = written_boxes(raw.strip()) if opened else ""
        if box and not box.startswith("<"):  # a task's box, as its character (☑, ☐)
            parts.append(html.escape(box))
            continue
        if opened and name not in VOID and not raw.rstrip().endswith("/>"):
            strikes = "s" in decoration(raw)  # <span style="…line-through">
            styled.append((name, strikes))
            striking += strikes
        elif closed:
            at = next((i for i in range(len(styled) - 1, -1, -1) if styled[i][0] == name), None)
            striking -= styled.pop(at)[1] if at is not None else 0
        if raw and tags is not None and _CELL_IMAGE.match(raw):
            shown = tags.cell_image(raw)
            if shown and after is not None and opened is not None:
                source = _raw_attribute(opened, "src")
                caption = caption_of(
                    _raw_attribute(opened, "alt"), _raw_attribute(opened, "title"), source
                )
                after.append((source, caption))
                shown = html.escape(moved_image_words(caption))
            parts.append(shown)
            continue
        if token.type == "link_open" or (opened and name == "a"):
            if link is not None:  # a link inside a link: the outer one ends here
                parts.append(link.address())
            href = token.attrGet("href") if opened is None else _raw_attribute(opened, "href")
            link = _CellLink(str(href or ""))
            continue
        if token.type == "link_close" or (closed and name == "a"):
            if link is not None:  # a raw </a> that closes no link of this cell says nothing
                parts.append(link.address())
            link = None
            continue
        if token.type == "image" and str(token.attrGet("src") or "").strip():
            source = str(token.attrGet("src")).strip()
            if on_image is not None:
                on_image(source)  # uploaded all the same: it follows the table
            caption = caption_of(token.content, str(token.attrGet("title") or ""), source)
            if after is not None:
                after.append((source, caption))
                parts.append(html.escape(moved_image_words(caption)))
            else:
                parts.append(image_html(source, caption, caption_chars))
            continue
        if token.type in ("s_open", "s_close") or name in STRUCK_TAGS:
            striking = max(0, striking + (-1 if token.type == "s_close" or closed else 1))
            continue
        if striking and token.type == "text":  # struck, as outside a table
            piece = html.escape(struck(token.content))
        else:
            piece = _cell_piece(token, notes or {})
        if link is not None and token.type != "hardbreak":
            link.shown.append(html.unescape(piece))
        parts.append(piece)
    if link is not None:  # a raw <a> left open ends with its cell
        parts.append(link.address())
    return "".join(parts).strip()


def _raw_attribute(opened: re.Match[str], name: str) -> str:
    """The value of attribute ``name`` of a raw tag matched by :data:`_RAW_OPEN_TAG`
    (``""`` if it has none): its first, as a browser (and a raw HTML table's cell)
    reads it, so ``data-href`` is not ``href``."""
    value = next((v for key, v in html_attributes(opened.group(2)) if key == name), "")
    return html.unescape(value).strip()


@dataclass(frozen=True)
class _CellLink:
    """A link being read inside a table cell: where it points, and the words it shows."""

    href: str
    shown: list[str] = field(default_factory=list)

    def address(self) -> str:
        """What follows the link's words in the cell: `` (target)`` when those words are
        not already it. A target that is no web address (a path, ``mailto:``, mdnice's
        explanation written as a link) is shown too, as a paragraph's link becomes a
        note; an in-page anchor and a script are not."""
        href = self.href.strip()
        if not href or href.startswith("#") or _NOT_SHOWN_SCHEME.match(href):
            return ""
        if "".join(self.shown).strip() not in (href, href.removeprefix("mailto:")):
            return html.escape(f" ({href})")
        return ""


#: Link targets a cell does not write out: code to run, not a place to go.
_NOT_SHOWN_SCHEME = pattern(r"\s*(?:javascript|vbscript|data):", re.IGNORECASE)


def cell_link_text(text: str, href: str) -> str:
    """A link in a raw HTML table's cell as a pipe table's cell shows it: its words,
    then its address in brackets when those words are not already it (``text`` is
    HTML already; ``href`` is not)."""
    link = _CellLink(href, [html.unescape(text)])
    return f"{text}{link.address()}"


def _cell_piece(token: Token, notes: Mapping[int, Note]) -> str:
    if token.type in {"text", "code_inline"}:
        return html.escape(token.content)
    if token.type in {"math_inline", "math_inline_double"}:
        return html.escape(f"${token.content}$")
    if token.type == "softbreak":
        return " "
    if token.type == "hardbreak":
        return "<br>"
    if token.type == "image":
        return html.escape(token.content)
    if token.type == "footnote_ref":
        note = notes.get(int(token.meta["id"]), Note(""))
        said = note.written or note.text
        if note.url and note.url not in said:
            said = " ".join(part for part in (said, note.url) if part)
        return html.escape(f" ({said})") if said else ""
    tag = _RAW_OPEN_TAG.match(token.content) if token.type == "html_inline" else None
    source = _raw_attribute(tag, "src") if tag and tag.group(1).lower() in _MEDIA_TAGS else ""
    if source:
        return html.escape(f" ({source})")
    if token.type == "html_inline" and _BREAK.match(token.content):
        return "<br>"
    return ""


# --- notes (footnotes and explanation links) -------------------------------------------


@dataclass(frozen=True)
class Note:
    """One entry of Zhihu's reference list: what it says, and where it points."""

    text: str
    url: str = ""
    #: The note's words as written, a bare URL in its place (what a table cell shows).
    written: str = ""


def cut_footnotes(tokens: list[Token]) -> tuple[list[Token], dict[int, Note], dict[int, Token]]:
    """Split the footnote block off the token stream.

    Returns the tokens without it, each note's text and URL by footnote id (for the
    API's reference ``<sup>``), and each note's content as one ``inline`` token (for
    the Markdown reference list).
    """
    kept: list[Token] = []
    notes: dict[int, Note] = {}
    bodies: dict[int, Token] = {}
    current: int | None = None
    inside = False
    for token in tokens:
        if token.type == "footnote_block_open":
            inside = True
        elif token.type == "footnote_block_close":
            inside = False
        elif token.type == "footnote_open":
            current = int(token.meta["id"])
            bodies[current] = Token("inline", "", 0, children=[])
        elif token.type == "footnote_close":
            current = None
        elif current is not None and token.type in {"inline", *_NOTE_BLOCKS}:
            children = bodies[current].children or []
            if children:
                children.append(Token("hardbreak", "br", 0))
            children.extend(note_line(token))
            bodies[current].children = children
        elif not inside:
            kept.append(token)
    for key, body in bodies.items():
        notes[key] = note_of(body.children or [])
    return kept, notes, bodies


#: Blocks a note holds that have no inline children: a note is one run of text on
#: Zhihu (a reference's ``data-text``, a line of the 参考 list), so their text joins it.
_NOTE_BLOCKS = frozenset({"fence", "code_block", "math_block", "math_block_label",
                          "math_block_eqno", "html_block"})  # fmt: skip


def note_line(token: Token) -> list[Token]:
    """What block ``token`` of a note adds to the note's one run of text: its inline
    children, a code block's lines as inline code (one span a line, so they stay apart),
    a display formula as an inline one, a raw HTML block's words."""
    if token.type in {"fence", "code_block"}:
        lines = [line.rstrip() for line in token.content.split("\n") if line.strip()]
        code = [Token("code_inline", "code", 0, content=line, markup="`") for line in lines]
        spaced: list[Token] = []
        for span in code:
            spaced += [Token("text", "", 0, content=" "), span] if spaced else [span]
        return spaced
    if token.type.startswith("math_block"):
        return [Token("math_inline", "math", 0, content=token.content.strip(), markup="$")]
    if token.type == "html_block":  # its words, as a reader of the page would see them
        return [Token("text", "", 0, content=_html_words(token.content))]
    return list(token.children or [])


def _html_words(html_text: str) -> str:
    """The text of a raw HTML block, tags, scripts and styles left out."""
    try:
        root = lxml.html.fragment_fromstring(html_text, create_parent="div")
    except (ValueError, lxml.etree.ParserError):
        return ""
    for hidden in root.xpath("//script|//style|//template"):
        hidden.drop_tree()
    return " ".join(root.text_content().split())


def note_of(children: Sequence[Token]) -> Note:
    """A note's text and the first web address in it (a link's target, an image's source
    or a bare URL).

    A note is one run of plain text on Zhihu, with room for one address: every other
    link's address follows its words in brackets (as in a table cell), and an image is
    its alt text (``图片`` without one), its source the address or in brackets, so
    nothing of the note goes missing."""
    url = ""
    words: list[str] = []
    link: _CellLink | None = None  # a web link read whose address is not the note's
    bare = False  # inside a link that is its own address (<https://…>, or written bare)
    placed: int | None = None  # where in ``words`` that address stood
    for token in children:
        if token.type == "link_open":
            href = str(token.attrGet("href") or "").strip()
            if is_web_link(href) and not url:
                url = href
                bare = token.info == "auto"  # the address is the note's: not its words
                placed = len(words) if bare else None
            elif href != url:  # its address follows its words (a path, a mailto: too)
                link = _CellLink(href)
        elif token.type == "link_close":
            bare = False
            if link is not None:
                words.append(link.address())
                link = None
        elif bare:
            continue
        elif token.type == "image":
            source = str(token.attrGet("src") or "").strip()
            words.append(token.content or "图片")
            if is_web_link(source) and not url:
                url = source
            elif is_web_link(source) and source != url:
                words.append(f" ({source})")
        elif token.type in {"text", "code_inline", "math_inline", "math_inline_double"}:
            words.append(token.content)
            if link is not None:
                link.shown.append(token.content)
        elif token.type in {"softbreak", "hardbreak"}:
            words.append(" ")
    text = " ".join("".join(words).split())
    if not url:
        match = _BARE_URL.search(text)
        if match:
            url = match.group(0)
            text = " ".join((text[: match.start()] + text[match.end() :]).split())
    if not text and not url:
        text = "".join(words).strip()
    text = text.strip(" :：,，;；-—")
    shown = words if placed is None else [*words[:placed], url, *words[placed:]]
    return Note(text=text, url=url, written=" ".join("".join(shown).split()))


def explanation_note(target: str, title: str) -> Note:
    """The note a link stands for when its target is not a web address.

    mdnice writes footnotes as ``[term](explanation "name")``; a relative path is
    meaningless on Zhihu too. Either way the reader gets the target as a note.
    """
    text = target.strip()
    if title.strip() and title.strip() != text:
        text = f"{title.strip()}：{text}"
    return Note(text=text)
