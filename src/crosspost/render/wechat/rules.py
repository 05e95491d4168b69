"""WeChat's markdown-it rules: a renderer that is a table of rules keyed by token type.

It turns one issue's token stream into HTML that WeChat keeps: no in-document anchors,
no external ``<a>`` (a ``text[n]`` marker and a reference entry instead), lists as
``<section>`` items with the marker written into the text, code coloured by Pygments,
tables in a scroll wrapper, raw HTML sanitised. The output still carries ``class``
attributes: they are only hooks for the theme's CSS, and the inliner in
:mod:`crosspost.render.wechat.document` removes them after applying the styles.

Code blocks are not in this HTML: each is a placeholder the inliner replaces at the
very end, so neither the CSS inliner nor the whitespace clean-up touches them.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from crosspost.issue.code_annotations import LineMark, line_marks
from crosspost.issue.dialect import (
    code_title,
    join_softbreak,
    new_markdown,
    tokens_after,
)
from crosspost.patterns import pattern
from crosspost.render.captions import (
    alt_words,
    caption_of,
    links_to_its_picture,
    pictures_linked,
)
from crosspost.render.sanitize import TagStream, clean
from crosspost.render.wechat.code import highlight_code
from crosspost.render.wechat.lists import (
    TASK_MARKERS,
    bullet,
    list_class,
    marker_html,
    marker_width,
)
from crosspost.render.wechat.raw import (
    ALLOWLIST,
    Reference,
    css_size,
    is_bare_url,
    is_mp_link,
)

#: Zero-width characters, which WeChat's editor mishandles; a joiner between two emoji
#: is kept, as it makes them one (🧑‍💻 is 🧑, the joiner and 💻).
_EMOJI = "\u2600-\u27bf\ufe0f\U0001f000-\U0001faff"
ZERO_WIDTH = pattern(f"[\u200b\u200c\u2060\ufeff]|(?<![{_EMOJI}])\u200d|\u200d(?![{_EMOJI}])")


@dataclass(frozen=True)
class Note:
    """One Markdown footnote, numbered in the same sequence as the references."""

    number: int
    html: str


@dataclass
class _ListFrame:
    ordered: bool
    next_number: int
    #: Its hanging indent's size (:func:`lists.marker_width`): "" unless numbered past 9.
    size: str = ""


@dataclass
class RenderState:
    """What one render collects while the rules run (kept in ``env["wechat"]``)."""

    code_style: str
    placeholder: str
    counter: int = 0
    #: Reference entries by URL, in the order of their numbers.
    by_url: dict[str, Reference] = field(default_factory=dict)
    note_numbers: dict[int, int] = field(default_factory=dict)
    code_blocks: list[str] = field(default_factory=list)
    #: Per open link: its reference entry, or the closing tag to write ("</a>" or "").
    links: list[Reference | str] = field(default_factory=list)
    #: The same for raw ``<a>`` tags, and per open raw ``<abbr>`` its title
    #: (:class:`~crosspost.render.wechat.raw.RawHtmlState`).
    raw_links: list[Reference | str] = field(default_factory=list)
    raw_abbreviations: list[str] = field(default_factory=list)
    #: The abbreviations' titles said so far, each once.
    titles_said: set[str] = field(default_factory=set)
    #: Inline raw HTML, cleaned tag by tag; it knows how deep inside a raw ``<script>``,
    #: ``<video>``… the stream is: their content is dropped even when it arrives as
    #: Markdown text between two inline HTML pieces.
    raw_tags: TagStream = field(default_factory=lambda: TagStream(ALLOWLIST))
    lists: list[_ListFrame] = field(default_factory=list)
    figures: list[bool] = field(default_factory=list)
    #: The list marker (or note number) the item's first paragraph opens with, as HTML.
    pending_marker: str = ""
    #: The caption of a linked figure's picture, written after its link's reference mark.
    pending_caption: str = ""

    def reference(self, url: str, text: str) -> Reference:
        """The numbered entry for ``url``; a URL seen before keeps its first number."""
        known = self.by_url.get(url)
        if known is not None:
            if not known.text and text:  # a raw <a> had no text; a later link names it
                self.by_url[url] = known = replace(known, text=text)
            return known
        self.counter += 1
        self.by_url[url] = entry = Reference(self.counter, text, url)
        return entry

    def first_said(self, title: str) -> bool:
        """Whether an abbreviation's ``title`` is said here for the first time (then it
        is marked said); an empty title never is."""
        if not title or title in self.titles_said:
            return False
        self.titles_said.add(title)
        return True

    @property
    def references(self) -> list[Reference]:
        """The reference list, ``[1]`` first."""
        return list(self.by_url.values())

    def note_number(self, footnote_id: int) -> int:
        if footnote_id not in self.note_numbers:
            self.counter += 1
            self.note_numbers[footnote_id] = self.counter
        return self.note_numbers[footnote_id]

    def take_marker(self) -> str:
        marker, self.pending_marker = self.pending_marker, ""
        return marker

    def code_placeholder(self, code_html: str) -> str:
        self.code_blocks.append(code_html)
        return f"{self.placeholder}{len(self.code_blocks) - 1}x"


def _state(env: EnvType) -> RenderState:
    state: RenderState = env["wechat"]
    return state


#: Raw HTML that shows nothing: tags with no words, picture, rule, break or box of their
#: own. A wrapper's tag on a line of its own (``<p align="center">`` over Markdown, a
#: ``</p>`` under it) came out as empty paragraphs, each a blank band on WeChat's page.
_SHOWS_NOTHING = pattern(
    r"(?:[ \t\r\n]|<(?!(?:img|svg|hr|br|video|audio|iframe|input)\b)"
    r"/?[a-z][a-z0-9]*\b(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>)*",
    re.IGNORECASE,
)
_BOX = pattern(r"(?:border|background|height|padding|margin)[\w-]*\s*:", re.IGNORECASE)
_BLANKS = pattern(r"[ \t]*\t[ \t]*| {2,}")


def _shows_nothing(cleaned: str) -> bool:
    """Whether cleaned raw HTML shows nothing on the page (see :data:`_SHOWS_NOTHING`)."""
    return bool(_SHOWS_NOTHING.fullmatch(cleaned)) and not _BOX.search(cleaned)


def _after_words(tokens: Sequence[Token], idx: int) -> bool:
    """Whether the tight list item's paragraph opening at ``idx`` comes after another
    of its paragraphs with nothing shown between: raw HTML tags alone on their lines,
    such as the ``<div markdown>`` and ``</div>`` of MkDocs's md_in_html around a
    paragraph, or a plain ``<div>`` of several lines. Its words would run into the
    other's (Zhihu breaks the line there, as a browser does at the ``<div>``)."""
    at = idx - 1
    while at >= 0 and tokens[at].type == "html_block":
        if not _shows_nothing(clean(tokens[at].content, ALLOWLIST)):
            return False
        at -= 1
    return at >= 0 and tokens[at].type == "paragraph_close" and tokens[at].hidden


def _marker_width(tokens: Sequence[Token], idx: int, start: int) -> str:
    """The indent's size for the ordered list opening at ``idx``: its last number's."""
    level, items = tokens[idx].level, 0
    for token in tokens[idx + 1 :]:
        if token.level == level:  # the list's close
            break
        if token.type == "list_item_open" and token.level == level + 1:
            items += 1
    return marker_width(start + max(items - 1, 0))


def link_text(tokens: Sequence[Token], start: int) -> str:
    """The plain text between the ``link_open`` at ``start`` and its ``link_close``."""
    parts: list[str] = []
    for token in tokens_after(tokens, start):
        if token.type == "link_close":
            break
        if token.type in ("text", "code_inline", "image"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return ZERO_WIDTH.sub("", "".join(parts)).strip()


#: Tokens of a line that show nothing of their own.
_UNSEEN = frozenset({"link_open", "link_close", "html_inline"})


def _shares_its_line(tokens: Sequence[Token], idx: int) -> bool:
    """Whether the image at ``idx`` has words or other pictures beside it on its line of
    the source (a line break ends a line): an icon in a sentence, a row of badges. A
    picture alone on its line stays a block of its own, as an editor meant it."""
    for step in (-1, 1):
        at = idx + step
        while 0 <= at < len(tokens) and tokens[at].type not in ("softbreak", "hardbreak"):
            token = tokens[at]
            if token.type == "image" or (token.type not in _UNSEEN and token.content.strip()):
                return True
            if token.type == "html_inline" and _RAW_PICTURE.match(token.content):
                return True
            at += step
    return False


_RAW_LINK_OPEN = pattern(r"<a[\s>]", re.IGNORECASE)
_RAW_PICTURE = pattern(r"<img[\s/>]", re.IGNORECASE)
_RAW_LINK_CLOSE = pattern(r"</a\s*>", re.IGNORECASE)
_RAW_ABBREVIATION_OPEN = pattern(r"<abbr[\s>]", re.IGNORECASE)
_RAW_ABBREVIATION_CLOSE = pattern(r"</abbr\s*>", re.IGNORECASE)


def raw_link_text(tokens: Sequence[Token], start: int) -> str:
    """The plain text between an inline raw ``<a …>`` at ``start`` and its ``</a>``."""
    inside = itertools.takewhile(
        lambda token: not _is_raw(token, _RAW_LINK_CLOSE), tokens_after(tokens, start)
    )
    return _plain_text(inside)


def raw_abbreviation_words(tokens: Sequence[Token], end: int) -> str:
    """The plain text between an inline raw ``<abbr …>`` and its ``</abbr>`` at ``end``."""
    start = end - 1
    while start >= 0 and not _is_raw(tokens[start], _RAW_ABBREVIATION_OPEN):
        start -= 1
    return _plain_text(tokens[start + 1 : end])


def _is_raw(token: Token, tag: re.Pattern[str]) -> bool:
    """Whether ``token`` is the piece of inline raw HTML ``tag`` matches."""
    return token.type == "html_inline" and bool(tag.match(token.content))


def _plain_text(tokens: Iterable[Token]) -> str:
    parts: list[str] = []
    for token in tokens:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join(ZERO_WIDTH.sub("", "".join(parts)).split())


class WeChatRenderer(RendererHTML):
    """markdown-it rules for WeChat; each method is the rule of the token type it names."""

    # Block tags come out with no newline after them: WeChat turns one into a gap.
    def renderToken(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        if token.hidden:
            return ""
        if token.nesting == -1:
            return f"</{token.tag}>"
        return f"<{token.tag}{self.renderAttrs(token)}>"

    # --- text ------------------------------------------------------------------
    def renderInline(  # markdown-it's name
        self, tokens: Sequence[Token], options: OptionsDict, env: EnvType
    ) -> str:
        """Inline tokens, except those inside a raw ``<script>``/``<style>``/… that spans
        several tokens: its contents are dropped, links and emphasis in them included."""
        state = _state(env)
        out: list[str] = []
        for index, token in enumerate(tokens):
            if state.raw_tags.dropping and token.type != "html_inline":
                continue
            rule = self.rules.get(token.type)
            out.append(
                rule(tokens, index, options, env)
                if rule
                else self.renderToken(tokens, index, options, env)
            )
        return "".join(out)

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        content = ZERO_WIDTH.sub("", tokens[idx].content)
        if "\t" in content or "  " in content:
            # A browser shows a run of blanks as one space, as the writer's preview did;
            # WeChat's page may keep them (its paragraphs have kept tabs as wide gaps).
            content = _BLANKS.sub(" ", content)
        return html.escape(content, quote=False)

    def softbreak(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return join_softbreak(tokens, idx)

    def hardbreak(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return "<br>"

    def code_inline(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        content = html.escape(tokens[idx].content, quote=False)
        return f'<code class="code-inline">{content}</code>'

    # --- paragraphs and figures ---------------------------------------------------
    def paragraph_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        state = _state(env)
        marker = state.take_marker()
        if tokens[idx].hidden:  # a tight list item: the marker goes straight before the text
            return marker + ("<br>" if _after_words(tokens, idx) else "")
        inline = tokens[idx + 1] if idx + 1 < len(tokens) else None
        kinds = [child.type for child in inline.children or ()] if inline is not None else []
        # A picture alone, or alone in its link: a figure, captioned as Zhihu captions it.
        figure = kinds in (["image"], ["link_open", "image", "link_close"])
        state.figures.append(figure)
        if figure:
            return marker + '<figure class="figure">'
        opening = '<p class="table-caption">' if tokens[idx].meta.get("table_caption") else "<p>"
        return opening + marker

    def paragraph_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        if tokens[idx].hidden:
            return ""
        state = _state(env)
        return "</figure>" if state.figures and state.figures.pop() else "</p>"

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        state = _state(env)
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = ZERO_WIDTH.sub("", alt_words(token))
        sizes = ";".join(  # ![](a.png =150x150): the size the editor gave
            f"{name}:{css_size(str(token.attrGet(name)))}"
            for name in ("width", "height")
            if token.attrGet(name)
        )
        sized = f' style="{sizes}"' if sizes else ""
        kind = "image image-inline" if _shares_its_line(tokens, idx) else "image"
        tag = f'<img class="{kind}" src="{html.escape(src)}" alt="{html.escape(alt)}"{sized}>'
        caption = caption_of(alt, str(token.attrGet("title") or ""), src)
        if state.figures and state.figures[-1] and caption:
            shown = f'<figcaption class="figcaption">{html.escape(caption, quote=False)}'
            if idx + 1 < len(tokens) and tokens[idx + 1].type == "link_close":
                state.pending_caption = shown  # the reference mark closes the caption
            else:
                tag += f"{shown}</figcaption>"
        return tag

    # --- links and footnotes ------------------------------------------------------
    def link_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        state = _state(env)
        href = str(tokens[idx].attrGet("href") or "").strip()
        text = link_text(tokens, idx)
        if is_mp_link(href):
            state.links.append("</a>")
            return f'<a class="link" href="{html.escape(href)}">'
        if (
            not href
            or href.startswith("#")
            or is_bare_url(text, href)
            or links_to_its_picture(href, pictures_linked(tokens, idx) or [])
        ):
            state.links.append("")  # dropped: the text stays, nothing to number
            return ""
        if tokens[idx].meta.get("citation"):  # [[1]](https://…): the mark alone
            for word in itertools.takewhile(
                lambda token: token.type != "link_close", tokens_after(tokens, idx)
            ):
                word.content = ""
            text = ""  # the entry is the address alone
        state.links.append(state.reference(href, text))
        return ""

    def link_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        state = _state(env)
        entry = state.links.pop() if state.links else ""
        mark = (
            entry if isinstance(entry, str) else f'<sup class="footnote-ref">[{entry.number}]</sup>'
        )
        if state.pending_caption:  # a linked figure: its caption, the mark at its end
            caption, state.pending_caption = state.pending_caption, ""
            if isinstance(entry, str):
                return f"{entry}{caption}</figcaption>"
            return f"{caption}{mark}</figcaption>"
        return mark

    def footnote_ref(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        number = _state(env).note_number(int(tokens[idx].meta["id"]))
        return f'<sup class="footnote-ref">[{number}]</sup>'

    def footnote_anchor(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return ""  # the "↩" back-link is an in-document anchor WeChat refuses

    # --- lists: <section> items, the marker written into the text ------------------
    def bullet_list_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        _state(env).lists.append(_ListFrame(ordered=False, next_number=0))
        return '<section class="list">'

    def ordered_list_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        start = int(tokens[idx].attrGet("start") or 1)
        size = _marker_width(tokens, idx, start)
        _state(env).lists.append(_ListFrame(ordered=True, next_number=start, size=size))
        return f'<section class="{list_class(size)}">'

    def bullet_list_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        lists = _state(env).lists
        if lists:  # footnote definitions nested in lists can leave a close without its open
            lists.pop()
        return "</section>"

    ordered_list_close = bullet_list_close

    def list_item_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        state = _state(env)
        frame = state.lists[-1] if state.lists else _ListFrame(ordered=False, next_number=0)
        checked = tokens[idx].meta.get("checked")
        if checked is not None:
            marker = TASK_MARKERS[bool(checked)]
        elif frame.ordered:
            marker = f"{frame.next_number}."
            frame.next_number += 1
        else:
            marker = bullet(len(state.lists))
        following = tokens[idx + 1].type if idx + 1 < len(tokens) else ""
        shown = marker_html(marker, frame.size)
        if following == "paragraph_open":
            state.pending_marker = shown
            return '<section class="list-item">'
        return '<section class="list-item">' + shown

    def list_item_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        _state(env).pending_marker = ""
        return "</section>"

    # --- code ---------------------------------------------------------------------
    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        language = token.info.strip().split()[0] if token.info.strip() else ""
        title = code_title(token.info)
        shown = f'<section class="code-title">{html.escape(title)}</section>' if title else ""
        return shown + self._code(token.content, language, env, line_marks(token.meta))

    def code_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return self._code(tokens[idx].content, "", env)

    def _code(self, code: str, language: str, env: EnvType, marks: Sequence[LineMark] = ()) -> str:
        state = _state(env)
        coloured = highlight_code(code, language, state.code_style, marks)
        placeholder = state.code_placeholder(coloured)
        return f'<pre class="code"><code class="code-body">{placeholder}</code></pre>'

    # --- formulas: inline SVG laid out by ziamath; unreadable TeX shown as code ---------
    # crosspost.render.wechat.math is imported at the first formula, as ziamath is there:
    # most issues have none, and its module costs each ``check`` ~1.5 ms.
    def math_inline(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        from crosspost.render.wechat.math import formula_svg

        token = tokens[idx]
        svg = formula_svg(token.content, display=False)
        if svg is None:  # lint names the line; the reader still sees what was meant
            tex = f"${token.content}$"
            return f'<code class="code-inline">{html.escape(tex, quote=False)}</code>'
        # Kept out of the HTML like code blocks: neither the inliner nor lxml's HTML
        # writer (which lower-cases viewBox) may touch it.
        return _state(env).code_placeholder(svg)

    math_inline_double = math_inline

    def math_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        from crosspost.render.wechat.math import formula_svg

        token = tokens[idx]
        label = f" ({html.escape(token.info)})" if token.info else ""
        svg = formula_svg(token.content, display=True)
        if svg is None:
            tex = html.escape(f"$${token.content.strip()}$$", quote=False)
            return f'<p><code class="code-inline">{tex}</code>{label}</p>'
        placeholder = _state(env).code_placeholder(svg)
        return f'<section class="math-block">{placeholder}{label}</section>'

    math_block_label = math_block
    math_block_eqno = math_block

    # --- callouts: ``::: tip`` containers and ``> [!NOTE]`` alerts -----------------------
    def callout_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        meta = tokens[idx].meta
        title = html.escape(str(meta["title"]), quote=False)
        return (
            f'<section class="callout callout-{meta["kind"]}"><p class="callout-title">{title}</p>'
        )

    def callout_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return "</section>"

    # --- tables -------------------------------------------------------------------
    def table_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return '<section class="table-scroll"><table class="table">'

    def table_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return "</table></section>"

    # --- raw HTML (its tag mapper, and html.parser, load at the first piece) --------
    def html_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        from crosspost.render.wechat.tags import RawHtmlSanitiser

        state = _state(env)
        cleaned = RawHtmlSanitiser(state).clean(clean(tokens[idx].content, ALLOWLIST))
        return "" if _shows_nothing(cleaned) else cleaned

    def html_inline(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        from crosspost.render.wechat.tags import RawHtmlSanitiser

        state = _state(env)
        source = tokens[idx].content
        if _RAW_LINK_OPEN.match(source):
            words = raw_link_text(tokens, idx)
        elif _RAW_ABBREVIATION_CLOSE.match(source):
            words = raw_abbreviation_words(tokens, idx)
        else:
            words = ""
        cleaned = RawHtmlSanitiser(state, words=words).clean(state.raw_tags.tag(source))
        if _RAW_PICTURE.match(source) and _shares_its_line(tokens, idx):
            # A raw picture in a sentence (an icon) stays in its line, as Markdown's does.
            cleaned = cleaned.replace('class="image"', 'class="image image-inline"', 1)
        return cleaned


# --- one render -------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def wechat_markdown() -> MarkdownIt:
    """The issue dialect with WeChat's rules (built once; rendering keeps state in ``env``)."""
    md = new_markdown()
    md.renderer = WeChatRenderer(md)
    return md


def render_body(tokens: list[Token], state: RenderState) -> tuple[str, list[Note]]:
    """The HTML of the body's ``tokens`` (WeChat's own copy, without a leading ``#
    heading`` that repeats the title: :func:`~crosspost.issue.dialect.drop_title_heading`)
    and its footnotes, filling ``state`` on the way."""
    md = wechat_markdown()
    env: EnvType = {"wechat": state}
    split = next((i for i, t in enumerate(tokens) if t.type == "footnote_block_open"), len(tokens))
    content = md.renderer.render(tokens[:split], md.options, env)
    notes: list[Note] = []
    start, number = 0, 0
    for index in range(split, len(tokens)):
        token = tokens[index]
        if token.type == "footnote_open":
            start, number = index + 1, state.note_number(int(token.meta["id"]))
        elif token.type == "footnote_close":
            # The note's number goes in front of its first paragraph, like a list marker;
            # a note that starts with anything else gets it on a line of its own.
            marker = f"[{number}]"
            first = tokens[start].type if start < index else ""
            state.pending_marker = marker_html(marker) if first == "paragraph_open" else ""
            note_html = md.renderer.render(tokens[start:index], md.options, env)
            if first != "paragraph_open":
                note_html = marker_html(marker) + note_html
            notes.append(Note(number, note_html))
            state.pending_marker = ""
    notes.sort(key=lambda note: note.number)
    return content, notes
