"""Raw HTML in an issue, cut down to one channel's allowlist.

Each channel declares what it keeps (an :class:`Allowlist` next to its renderer); this
module applies it, the same way for every channel. The work is done by nh3, the Python
binding of Ammonia: it parses with html5ever, a complete HTML5 tree builder, so void
elements (``<source>``, ``<input>``, ``<br>``) never swallow what follows, unclosed
``<p>`` and nested tables end where a browser would end them, and the output is balanced
HTML that the channel's own code can then map onto its dialect. Being an allowlist,
anything a channel did not name (``<marquee>``, ``<canvas>``, an ``onclick``) is gone,
and its text stays unless the channel asked for the element to go with its content.
nh3 rather than bs4 with html5lib: sanitising is its whole job (URL schemes, CSS
properties, foreign SVG content included), so none of that is ours to get right, and
it is fast enough to run once per inline tag.

markdown-it hands inline HTML over one tag at a time (``<span>``, then Markdown text,
then ``</span>``), which no parser can balance on its own; :class:`TagStream` keeps the
little state that needs (which elements are open, how deep inside a dropped one the
text is) and lets nh3 clean each tag.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crosspost.issue.bare_links import with_scheme
from crosspost.issue.blocks import (
    LAZY_SOURCE_NAMES,
    PLACEHOLDER_SOURCE,
    TAG_ATTRIBUTES,
    TAG_NAME,
)
from crosspost.issue.dialect import VOID, left_open
from crosspost.patterns import pattern
from crosspost.render import hidden
from crosspost.render.layout import unwrap_layout_tables
from crosspost.render.tasks import written_boxes

if TYPE_CHECKING:
    from bs4 import BeautifulSoup
    from bs4.element import Tag

#: Attributes that hold a URL, whose scheme is checked.
URL_ATTRIBUTES = frozenset({"href", "src", "cite", "action", "poster", "background"})

#: Removed with everything inside them on every channel: their content is code, not text,
#: or (Evernote's ``<en-crypt>``) ciphertext no reader can read, which check names.
ALWAYS_DROPPED = frozenset({"script", "style", "en-crypt"})
#: Evernote's elements (ENML), as its exports leave them in a note's HTML: the note
#: (``<en-note>``, shown as its content), a task's box (``<en-todo>``, its character:
#: :func:`modern_tags`), encrypted text (``<en-crypt>``, left out with its ciphertext) and
#: an attachment (``<en-media>``: a file the export did not include, nothing to show).
#: check names the last two once, for every channel (``check.source``).
EVERNOTE = frozenset({"en-note", "en-todo", "en-crypt", "en-media"})

#: Media and embedded frames: no channel plays them, yet where they point is content.
#: Each becomes a line with a link to its source (and its poster as an image), the one
#: form every channel shows; the label says what the reader would have seen.
MEDIA_LABELS = {
    "video": "视频",
    "audio": "音频",
    "iframe": "嵌入内容",
    "embed": "嵌入内容",
    "object": "嵌入内容",
}
#: Where a media element names its source, first to last: ``src`` (``data`` for an
#: ``<object>``), then the attributes of a page that loads it as the reader scrolls, as
#: for pictures (WeChat's own video frames name their player only in ``data-src``);
#: ``<source>`` children are read after them.
_MEDIA_SOURCES = ("src", "data")
_LAZY_SOURCE = pattern(LAZY_SOURCE_NAMES, re.IGNORECASE)
#: The elements that frame another page.
FRAMES = frozenset({"iframe", "embed", "object"})

_TAG = pattern(r"^<(/?)([A-Za-z][A-Za-z0-9-]*)\b.*?(/?)>$", re.DOTALL)
_MEDIA_TAG = pattern(r"<(?:video|audio|iframe|embed|object)\b", re.IGNORECASE)
_PIECES = pattern(r"(<[^<>]*>)")
#: A picture carried in its address (``data:image/png;base64,…``): uploaded like a file.
DATA_IMAGE = pattern(r"^\s*data:image/", re.IGNORECASE)
#: HTML 4's presentational tags that editors still write (CSDN's and old WeChat
#: editors' ``<font color>``, ``<strike>``): each is read as the element it stands for,
#: so a colour and a strikethrough are not lost with a tag no channel keeps.
_LEGACY_TAG = pattern(r"<(/?)(font|strike|br)\b([^<>]*)>", re.IGNORECASE)
#: A ``<font>`` colour: a name, ``#hex`` or ``rgb(…)``, or hex without its ``#``
#: (``color="0000B9"``, which browsers read as ``#0000B9``); anything else is not kept.
_FONT_COLOR = pattern(
    r"""\bcolor\s*=\s*["']?\s*(#?[0-9a-f]{6}|#[0-9a-f]{3,8}|rgba?\([\d\s.,%]+\)|[a-z]{3,20})\s*["']?(?=[\s>/]|$)""",
    re.IGNORECASE,
)
#: A colour in a ``style`` attribute: ``style="color:rgb(223, 42, 63);"`` (Yuque's
#: ``<font>``), and its highlight, ``background-color:#FBDE28``.
_STYLE_COLOR = pattern(
    r"""(?<![\w-])color\s*:\s*(#[0-9a-f]{3,8}|rgba?\([\d\s.,%]+\)|[a-z]{3,20}\b(?!\())""",
    re.IGNORECASE,
)
_STYLE_HIGHLIGHT = pattern(
    r"""(?<![\w-])background(?:-color)?\s*:\s*(#[0-9a-f]{3,8}|rgba?\([\d\s.,%]+\)|[a-z]{3,20}\b(?!\())""",
    re.IGNORECASE,
)
_STYLE_ATTRIBUTE = pattern(r"""\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
#: A ``text-decoration`` (or ``-line``) in a style: what it draws in group 1.
_DECORATION = pattern(r"(?:^|;)\s*text-decoration(?:-line)?\s*:([^;]*)", re.IGNORECASE)
#: The lines a style may draw through or under text, each as the element that draws it
#: and the elements that draw it already.
_DECORATIONS = (
    ("underline", "u", frozenset({"u", "ins"})),
    ("line-through", "s", frozenset({"s", "del", "strike"})),
)
_DATA = pattern(r"^\s*data:", re.IGNORECASE)


@dataclass(frozen=True)
class Allowlist:
    """What one channel lets through of raw HTML.

    ``attributes`` maps a tag to the attributes it may keep (``"*"``: every tag);
    ``url_schemes`` are the schemes a URL attribute may use (relative URLs always pass,
    and ``data:`` only as an image source); ``dropped`` elements go with their content;
    ``styles`` are the CSS properties a ``style`` attribute keeps.
    """

    tags: frozenset[str]
    attributes: Mapping[str, frozenset[str]]
    url_schemes: frozenset[str] = frozenset({"http", "https", "mailto"})
    dropped: frozenset[str] = frozenset()
    styles: frozenset[str] = frozenset()
    #: Elements of :data:`MEDIA_LABELS` shown as a link to their source (see
    #: :func:`media_line`) instead of going in silence.
    media: frozenset[str] = frozenset()

    def allows(self, tag: str) -> bool:
        """Whether ``tag`` is kept (its attributes still filtered)."""
        return tag in self.tags

    def drops(self, tag: str) -> bool:
        """Whether ``tag`` is removed together with its content."""
        return tag in ALWAYS_DROPPED or (tag in self.dropped and tag not in self.tags)


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: ``data:`` URLs survive only as an image's source; an
    address without its scheme (``//imgur.com/a.png``, copied from a page's HTML) is the
    page's https, written out, so it can be fetched and followed outside that page."""
    if attribute in URL_ATTRIBUTES and _DATA.match(value):
        return value if tag == "img" and attribute == "src" and DATA_IMAGE.match(value) else None
    return with_scheme(value) if attribute in URL_ATTRIBUTES else value


#: A script that embeds a page of its site (a gist, an asciinema recording): the page is
#: its address without ``.js``. ``<script src="https://gist.github.com/u/1a2b.js">``.
_SCRIPT_EMBED = pattern(
    r"<script\b[^>]*?\bsrc\s*=\s*[\"']?((?:https?:)?//(?:gist\.github\.com|asciinema\.org/a)"
    r"/[^\"'\s>?]+?)\.js(?:\?[^\"'\s>]*)?[\"']?[^>]*>\s*</script\s*>",
    re.IGNORECASE,
)


def script_embeds(fragment: str) -> str:
    """``fragment`` with each script that embeds a gist or a recording written as a frame
    of its page, which the channels show as a link (:func:`media_line`): left out with
    every other script, the code it showed was gone without a word."""
    if "<script" not in fragment and "<SCRIPT" not in fragment:
        return fragment
    return _SCRIPT_EMBED.sub(lambda found: f'<iframe src="{found.group(1)}"></iframe>', fragment)


#: A Substack post embedded in another (``<div class="embedded-post-wrap"
#: data-attrs='{"url": …, "title": …}'>``): where it leads is said only in its data.
_EMBEDDED_POST = pattern(r"\bembedded-post-wrap\b")


def embedded_posts(fragment: str) -> str:
    """``fragment`` with each Substack post embedded in it that links nowhere (an export
    keeps its card, but not the link its script made of it) holding a link to the post:
    its title, linked (a line of its own when the card shows no title). Left as it was,
    the card showed the post's name, and where to read it was gone without a word."""
    if not _EMBEDDED_POST.search(fragment):
        return fragment
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(fragment, "html.parser")
    changed = False
    for card in soup.find_all(class_="embedded-post-wrap"):
        if card.find("a", href=True) is not None:
            continue  # a page's own card: linked already
        url, title = _post_data(str(card.get("data-attrs") or ""))
        if not url:
            continue
        link = soup.new_tag("a", href=url)
        shown = card.find(class_="embedded-post-title")
        if shown is not None and shown.get_text().strip():
            link.extend(list(shown.contents))
            shown.append(link)
        else:
            link.string = title or url
            line = soup.new_tag("p")
            line.append(link)
            card.append(line)
        changed = True
    return str(soup) if changed else fragment


def _post_data(written: str) -> tuple[str, str]:
    """The web address and title in an embedded post's ``data-attrs`` (JSON), if any."""
    import json

    try:
        data = json.loads(written)
    except ValueError:
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    url, title = str(data.get("url") or "").strip(), str(data.get("title") or "").strip()
    return (url, title) if url.lower().startswith(("https://", "http://")) else ("", "")


def modern_tags(fragment: str) -> str:
    """``fragment`` with ``<strike>`` written ``<s>``, ``<font color=X>`` (or Yuque's
    ``<font style="color:X;background-color:Y">``) written ``<span style="color:X">``
    with the highlight it had (a ``<font>`` without either: a plain ``<span>``), and
    ``</br>`` written ``<br>``, as browsers read it (Jianshu's and CSDN's posts end lines
    with it); a task's box (a checkbox, Evernote's ``<en-todo>``) is its character, ☑ or
    ☐, as a task item shows it: left out with the other form controls, done and not done
    read alike."""
    if "<" not in fragment:
        return fragment
    lowered = fragment.lower()
    if "<en-todo" in lowered or "<input" in lowered or "</en-todo" in lowered:
        fragment = written_boxes(fragment)
    if not _LEGACY_TAG.search(fragment):
        return fragment

    def modern(tag: re.Match[str]) -> str:
        closing, name, rest = tag.group(1), tag.group(2).lower(), tag.group(3)
        if name == "strike":
            return f"<{closing}s>"
        if name == "br":
            return tag.group(0) if not closing else "<br>"
        if closing:
            return "</span>"
        style = _STYLE_ATTRIBUTE.search(rest)
        declarations = (style.group(1) or style.group(2) or "") if style else ""
        color = _FONT_COLOR.search(rest) or _STYLE_COLOR.search(declarations)
        highlight = _STYLE_HIGHLIGHT.search(declarations)
        kept = []
        if color is not None:
            value = color.group(1)
            if len(value) == 6 and not value.isalpha():  # hex without its '#' ("0000B9")
                value = f"#{value}"
            kept.append(f"color:{value}")
        if highlight is not None:
            kept.append(f"background-color:{highlight.group(1)}")
        return f'<span style="{";".join(kept)}">' if kept else "<span>"

    return _LEGACY_TAG.sub(modern, fragment)


def decoration(tag: str, kept: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The elements the style of raw opening ``tag`` stands for, outermost first:
    ``<span style="font-weight:700">`` is bold as ``<b>`` is (``("b",)``), a style's
    italic is ``<i>``, ``<span style="text-decoration: line-through">`` is struck as
    ``<s>`` is, a style's underline is ``<u>``; none for any other tag, and none for an
    element that holds rows or items (a mark there would stand outside them). Zhihu
    keeps no style, and WeChat none of ``text-decoration-line``: an old price read as
    the current one, a warning as plain words. A weight or slant the channel's style
    properties keep (``kept``: WeChat's ``font-weight``) needs no mark."""
    lowered = tag.lower()
    found = _TAG.match(tag) if "text-decoration" in lowered or "font" in lowered else None
    if found is None or found.group(1) or found.group(3):
        return ()
    name = found.group(2).lower()
    if name in VOID or name in _HOLDS_PARTS:
        return ()
    style = _STYLE_ATTRIBUTE.search(tag)
    declarations = (style.group(1) or style.group(2) or "") if style else ""
    marks = [
        mark
        for mark, (written, words, shorthand_word, marked, plain) in _FONT_MARKS.items()
        if name not in marked
        and not _kept(written, kept)
        and _font_says(declarations, written, words, shorthand_word, plain)
    ]
    drawn = " ".join(value.group(1).lower() for value in _DECORATION.finditer(declarations))
    marks += [
        mark
        for line, mark, marked in _DECORATIONS
        if re.search(rf"(?<![\w-]){line}(?![\w-])", drawn) and name not in marked
    ]
    return tuple(marks)


#: A style's weight and slant, each as the element that draws it: its property, what
#: that property says for it, what the ``font`` shorthand says for it, the elements that
#: draw it already (a heading and a header cell are bold), and what the property says to
#: take it back (``normal``: Google Docs wraps a whole paste in ``<b style="font-weight:
#: normal">``).
_FONT_MARKS = {
    "b": (
        "font-weight",
        pattern(r"\s*(?:bold|bolder|[6-9]00)\s*(?:!important\s*)?$", re.IGNORECASE),
        pattern(r"(?<![\w-])(?:bold|bolder|[6-9]00)(?![\w-])", re.IGNORECASE),
        frozenset({"b", "strong", "th", "h1", "h2", "h3", "h4", "h5", "h6"}),
        pattern(r"\s*(?:normal|lighter|[1-5]00)\s*(?:!important\s*)?$", re.IGNORECASE),
    ),
    "i": (
        "font-style",
        pattern(r"\s*(?:italic|oblique)\b.*$", re.IGNORECASE),
        pattern(r"(?<![\w-])(?:italic|oblique)(?![\w-])", re.IGNORECASE),
        frozenset({"i", "em", "cite", "var", "dfn"}),
        pattern(r"\s*normal\s*(?:!important\s*)?$", re.IGNORECASE),
    ),
}
#: The inline elements that draw a mark by their name alone, which their own style may
#: take back (:func:`taken_back`); a heading's or a cell's weight is its structure.
_DRAWN_BY_NAME = {
    "b": frozenset({"b", "strong"}),
    "i": frozenset({"i", "em", "cite", "var", "dfn"}),
}
#: A ``font`` shorthand that sets nothing of its own: the weight and slant are the parent's.
_GLOBAL_VALUE = pattern(r"\s*(?:inherit|initial|unset|revert|revert-layer)\s*$", re.IGNORECASE)
#: One declaration of a style: its property (group 1) and value (group 2).
_DECLARATION = pattern(r"(?:^|;)\s*([\w-]+)\s*:([^;]*)")


def _font_says(
    declarations: str,
    written: str,
    says: re.Pattern[str],
    shorthand: re.Pattern[str],
    plain: re.Pattern[str],
) -> bool | None:
    """Whether the style ``declarations`` make text bold (or italic: ``written`` is the
    property), by the property or the ``font`` shorthand, whichever comes last, as CSS
    reads them: True, False when they make it plain (``plain``; a shorthand that does
    not say bold resets the weight to normal), None when they say nothing of it."""
    value = None
    for found in _DECLARATION.finditer(declarations):
        prop, given = found.group(1).lower(), found.group(2)
        if prop == written:
            value = True if says.match(given) else False if plain.match(given) else None
        elif prop == "font":  # "inherit" and the like: the parent's, nothing of its own
            value = None if _GLOBAL_VALUE.match(given) else bool(shorthand.search(given))
    return value


def _kept(written: str, kept: frozenset[str]) -> bool:
    """Whether the channel keeps the style property ``written`` (or the ``font`` shorthand)
    as it is: the style itself then draws, or takes back, the weight or slant."""
    return written in kept or "font" in kept


def taken_back(tag: str, kept: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The marks raw opening ``tag`` draws by its name and its own style takes back:
    ``<b style="font-weight:normal">`` (Google Docs' wrapper of a whole paste) is not
    bold, ``<em style="font-style:normal">`` not italic. None for any other tag, nor where
    the channel keeps the property (``kept``: WeChat's ``font-weight``), whose style
    says it."""
    lowered = tag.lower()
    found = _TAG.match(tag) if "font" in lowered else None
    if found is None or found.group(1) or found.group(3):
        return ()
    name = found.group(2).lower()
    style = _STYLE_ATTRIBUTE.search(tag)
    declarations = (style.group(1) or style.group(2) or "") if style else ""
    return tuple(
        mark
        for mark, (written, words, shorthand, _, plain) in _FONT_MARKS.items()
        if name in _DRAWN_BY_NAME[mark]
        and not _kept(written, kept)
        and _font_says(declarations, written, words, shorthand, plain) is False
    )


#: An opening or closing tag, quoted values read whole (they may hold ``>``).
_ANY_TAG = pattern(rf"<(/?)({TAG_NAME})\b{TAG_ATTRIBUTES}>")


def plain_by_style(fragment: str, kept: frozenset[str] = frozenset()) -> str:
    """``fragment`` with each element whose own style takes back the bold or italic its
    name draws (:func:`taken_back`) written as a ``<span>``, its closing tag too: a
    channel that keeps no style (Zhihu) read Google Docs' ``<b style="font-weight:
    normal">`` around a whole paste as bold, every paragraph of it."""
    if "font" not in fragment.lower():
        return fragment
    # Per name, whether each element of that name still open was made a span.
    opened: dict[str, list[bool]] = {}

    def renamed(found: re.Match[str]) -> str:
        tag, closing, name = found.group(0), found.group(1), found.group(2).lower()
        if name not in _DRAWN_BY_NAME["b"] | _DRAWN_BY_NAME["i"] or tag.endswith("/>"):
            return tag
        stack = opened.setdefault(name, [])
        if closing:
            return "</span>" if stack and stack.pop() else tag
        plain = bool(taken_back(tag, kept))
        stack.append(plain)
        return f"<span{tag[1 + len(name) :]}" if plain else tag

    return _ANY_TAG.sub(renamed, fragment)


#: Elements whose children are rows, cells or items, not text.
_HOLDS_PARTS = frozenset(
    {"table", "thead", "tbody", "tfoot", "tr", "colgroup", "ul", "ol", "dl", "select"}
)
#: Each mark :func:`decorated` writes, as the element the sanitiser keeps until its end.
_MARK_STANDS_IN = {"b": "crosspost-b", "i": "crosspost-i", "s": "crosspost-s", "u": "crosspost-u"}


def decorated(fragment: str, kept: frozenset[str] = frozenset()) -> str:
    """``fragment`` with a mark (:data:`_MARK_STANDS_IN`) opened at the start of each
    element whose style makes its text bold or italic, or draws a line through or under
    it (:func:`decoration`, ``kept`` the style properties the channel keeps), which
    :func:`clean` writes as the element that draws it:
    ``<span style="text-decoration:line-through">¥199</span>`` is
    ``<span …><s>¥199</s></span>``. The mark is an element of no kind to the parser, so
    it ends where its element ends, however that ends (``<p><span …>old</p>new``: "new"
    is not struck); ``<s>`` itself would be carried on into the text after it."""
    lowered = fragment.lower()
    if "text-decoration" not in lowered and "font" not in lowered:
        return fragment

    def marked(found: re.Match[str]) -> str:
        marks = decoration(found.group(0), kept)
        return found.group(0) + "".join(f"<{_MARK_STANDS_IN[mark]}>" for mark in marks)

    return _OPENING_TAG.sub(marked, fragment)


#: An opening tag, quoted values read whole (they may hold ``>``).
_OPENING_TAG = pattern(rf"<{TAG_NAME}\b{TAG_ATTRIBUTES}>")


#: The page of WeChat's own video player, which a frame of WeChat's video in an article
#: names (``<iframe data-mpvid="wxv_…" data-src="…/mp/readtemplate?t=pages/video_player_tmpl
#: &vid=wxv_…">``).
WECHAT_PLAYER = pattern(
    r"(https?://mp\.weixin\.qq\.com/mp/readtemplate\?(?:.*&)?t=pages/video_player_tmpl\b.*)"
)

#: Video sites' players, which a page embeds in a frame, and the page of the video each
#: plays (a reader opening the player's address gets a bare player, or nothing).
_PLAYERS = (
    (pattern(r"https://(?:www\.)?youtube(?:-nocookie)?\.com/embed/([\w-]+)"),
     "https://www.youtube.com/watch?v={}"),
    (pattern(r"https://player\.bilibili\.com/player\.html\?(?:.*&)?bvid=(BV\w+)"),
     "https://www.bilibili.com/video/{}"),
    (pattern(r"https://player\.bilibili\.com/player\.html\?(?:.*&)?aid=(\d+)"),
     "https://www.bilibili.com/video/av{}"),
    (pattern(r"https://player\.vimeo\.com/video/(\d+)"), "https://vimeo.com/{}"),
    (pattern(r"https://v\.qq\.com/(?:txp/)?iframe/(?:player|preview)\.html\?(?:.*&)?vid=(\w+)"),
     "https://v.qq.com/x/page/{}.html"),
    # WeChat's own player: its page is the only address a WeChat video has (and, on
    # mp.weixin.qq.com, a link WeChat lets readers follow).
    (WECHAT_PLAYER, "{}"),
)  # fmt: skip


def _video_page(source: str) -> str | None:
    """The page of the video a player's address plays, when it is a known site's player."""
    for player, page in _PLAYERS:
        found = player.match(source)
        if found:
            return page.format(found.group(1))
    return None


def _as_shown(name: str, source: str) -> tuple[str, str]:
    """What a media element's line calls it and links to, from what it is and where it
    points: a frame of a video site's player is a video, linked to the video's page."""
    page = _video_page(source) if name in FRAMES else None
    return ("video", page) if page is not None else (name, source)


def media_line(name: str, source: str, poster: str = "") -> str:
    """What a ``<video>``, ``<audio>`` or embedded frame becomes: its poster (an image)
    and a link to its source labelled with what it is (:func:`_as_shown`); the bare
    label when it has none.

    The result is raw HTML the channel's allowlist cleans like any other.
    """
    name, source = _as_shown(name, source)
    label = html.escape(f"▶ {MEDIA_LABELS.get(name, MEDIA_LABELS['embed'])}")
    image = f'<img src="{html.escape(poster)}" alt="{label}">' if poster else ""
    if not source:
        return f"{image}{label}"
    return f'{image}<a href="{html.escape(source)}">{label}</a>'


def _media_source(element: Tag) -> str:
    """Where a media element's content is. A protocol-relative source (``//player.
    bilibili.com/…``, as video sites hand out their embeds) means the page's own scheme,
    which on WeChat and Zhihu is https: written out, so the link works where it is shown
    as text (WeChat's list of links) or opened on its own. MDX's ``src={clip}`` that
    the issue stage could not read (:func:`javascript_source`) names none: linked, it
    sent readers to ``{clip}``."""
    from bs4.element import Tag

    written = [str(element.get(attribute) or "") for attribute in _MEDIA_SOURCES]
    written += [str(value) for name, value in element.attrs.items() if _LAZY_SOURCE.fullmatch(name)]
    found = next(
        (
            value.strip()
            for value in written
            if value.strip()
            and not PLACEHOLDER_SOURCE.match(value)
            and not javascript_source(value)
        ),
        "",
    )
    if not found:
        inner = element.find("source", src=True)
        found = str(inner["src"]).strip() if isinstance(inner, Tag) else ""
    return "" if javascript_source(found) else with_scheme(found)


#: A source written as JavaScript, as MDX writes it (``src={clip}``: the HTML parser reads
#: ``{clip}``), not a template's ``{{ site.url }}``.
_JAVASCRIPT_SOURCE = pattern(r"\s*\{(?!\{)")


def javascript_source(value: str) -> bool:
    """Whether a media element's source ``value`` is MDX's JavaScript, not an address."""
    return bool(_JAVASCRIPT_SOURCE.match(value))


def _media_name(element: Tag) -> str:
    """What a media element is, as its line names it: a frame of WeChat's own video
    (``<iframe data-mpvid="wxv_…">``) is a video, even when no address of it is left."""
    if element.name in FRAMES and element.get("data-mpvid"):
        return "video"
    return str(element.name)


@dataclass(frozen=True)
class Media:
    """A media element as its line shows it (see :func:`first_media`)."""

    #: What the line calls it: a key of :data:`MEDIA_LABELS` (``"video"`` for a known
    #: player's frame).
    name: str
    #: The address the line links to (``""``: none; the line links nowhere).
    source: str
    #: Whether it is WeChat's own video (``<iframe data-mpvid>`` or WeChat's player).
    wechat_video: bool
    #: Whether its ``src`` is MDX's JavaScript (``src={clip}``), which names no address.
    javascript: bool = False


def first_media(fragment: str) -> Media | None:
    """The first media element of ``fragment`` (raw HTML that starts at or before it) as
    its line shows it, for check, which must say whether the reader gets a link or a
    line linking nowhere."""
    from bs4 import BeautifulSoup
    from bs4.element import Tag

    element = BeautifulSoup(fragment, "html.parser").find(list(MEDIA_LABELS))
    if not isinstance(element, Tag):
        return None
    source = _media_source(element)
    wechat = bool(element.get("data-mpvid")) or bool(WECHAT_PLAYER.match(source))
    javascript = javascript_source(str(element.get("src") or ""))
    return Media(*_as_shown(_media_name(element), source), wechat, javascript)


def wrapper_object(element: Tag) -> bool:
    """Whether ``element`` is an ``<object>`` that embeds nothing and only wraps what it
    holds: Apple Notes writes every table inside one. Shown as a media line, the table
    was gone; unwrapped, it is the table. Words alone count too (``<object>words
    </object>``): a browser shows them, there being nothing to embed."""
    from bs4.element import NavigableString, Tag

    if element.name != "object" or _media_source(element):
        return False
    return any(
        (isinstance(child, Tag) and child.name != "param")
        or (isinstance(child, NavigableString) and bool(child.strip()))
        for child in element.children
    )


def _media_as_lines(fragment: str, media: frozenset[str]) -> str:
    """``fragment`` with each outermost media element replaced by its :func:`media_line`."""
    if not media or not _MEDIA_TAG.search(fragment):
        return fragment
    # BeautifulSoup is imported here, as in TagStream, because most issues have no media
    # element: `check` and `render` must not pay for it (~15 ms) when they do not need it.
    from bs4 import BeautifulSoup
    from bs4.element import Tag

    # An element left open (``<video src="a.mp4">`` written like an image) is closed after
    # its <source> children first, so the text after it is not taken for its content.
    pieces = _PIECES.split(fragment)
    for index, name in left_open(pieces):
        pieces.insert(index, f"</{name}>")
    soup = BeautifulSoup("".join(pieces), "html.parser")
    for element in soup.find_all(sorted(media)):
        if not isinstance(element, Tag) or element.find_parent(sorted(media)) is not None:
            continue
        if element.has_attr(hidden.MARK):  # left out with what it holds
            element.decompose()
            continue
        if wrapper_object(element):
            element.unwrap()
            continue
        line = media_line(
            _media_name(element), _media_source(element), str(element.get("poster") or "")
        )
        if element.parent is soup:  # a block of its own: the line is a paragraph
            line = f"<p>{line}</p>"
        element.replace_with(BeautifulSoup(line, "html.parser"))
    return str(soup)


def clean(fragment: str, allowlist: Allowlist) -> str:
    """``fragment`` as balanced HTML holding only what ``allowlist`` names; media the
    allowlist lists become links to their source (:func:`media_line`), a Substack post
    embedded links to it (:func:`embedded_posts`), an element whose style makes its text
    bold or italic or draws a line through or under it holds the element that does
    (:func:`decorated`), if the allowlist has it (inside each block it holds), what the
    page hides is left out (:mod:`~crosspost.render.hidden`), and a table that lays a
    page out is the blocks it holds (:func:`~crosspost.render.layout.unwrap_layout_tables`)."""
    fragment = decorated(plain_by_style(fragment, allowlist.styles), allowlist.styles)
    marks = {mark: name for mark, name in _MARK_STANDS_IN.items() if f"<{name}>" in fragment}
    cleaned = _clean(fragment, allowlist, frozenset(marks.values()))
    if marks and _marks_hold_blocks(cleaned, frozenset(marks.values())):
        cleaned = _marks_in_blocks(cleaned, frozenset(marks.values()))
    for mark, name in marks.items():
        shown = allowlist.allows(mark)
        cleaned = cleaned.replace(f"<{name}>", f"<{mark}>" if shown else "")
        cleaned = cleaned.replace(f"</{name}>", f"</{mark}>" if shown else "")
    return unwrap_layout_tables(cleaned)


#: Elements that hold blocks or lines of their own: a mark (``<b>``) cannot stand around
#: them, so it is put inside each (:func:`_marks_in_blocks`).
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "aside", "header", "footer", "nav", "main", "center",
     "blockquote", "figure", "figcaption", "details", "summary", "ul", "ol", "li", "dl", "dt",
     "dd", "table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th", "pre", "hr",
     "h1", "h2", "h3", "h4", "h5", "h6", "address"}
)  # fmt: skip
_TAG_NAMES = pattern(rf"<(/?)({TAG_NAME})")


def _marks_hold_blocks(cleaned: str, names: frozenset[str]) -> bool:
    """Whether a block opens inside one of the marks ``names`` in ``cleaned`` (balanced
    HTML): read tag by tag, without a parser, as most marks hold words alone."""
    depth = 0
    for closing, name in _TAG_NAMES.findall(cleaned):
        if name in names:
            depth += -1 if closing else 1
        elif depth > 0 and not closing and name.lower() in _BLOCKS:
            return True
    return False


def _marks_in_blocks(cleaned: str, names: frozenset[str]) -> str:
    """``cleaned`` with each mark of ``names`` that holds blocks (a style's bold on a
    ``<section>`` of paragraphs and a list) put inside each of those blocks, around its
    words: around them, Zhihu read the blocks as one line of bold words, the list's items
    run together; and WeChat drew an empty mark before them."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(cleaned, "html.parser")
    for mark in soup.find_all(sorted(names)):
        if mark.find(sorted(_BLOCKS)) is not None:
            _mark_words(soup, mark, str(mark.name))
            mark.unwrap()
    return str(soup)


def _mark_words(soup: BeautifulSoup, parent: Tag, name: str) -> None:
    """Wrap each run of words and inline elements among ``parent``'s children in a new
    ``<name>``; a block child holding blocks has its own runs wrapped, in turn."""
    from bs4.element import NavigableString, Tag

    run: list[NavigableString | Tag] = []

    def wrap() -> None:
        if any(isinstance(node, Tag) or node.strip() for node in run):
            mark = soup.new_tag(name)
            run[0].insert_before(mark)
            mark.extend([node.extract() for node in run])
        run.clear()

    for child in list(parent.children):
        if isinstance(child, Tag) and child.name in _BLOCKS:
            wrap()
            _mark_words(soup, child, name)
        elif isinstance(child, NavigableString | Tag):
            run.append(child)
    wrap()


def _clean(fragment: str, allowlist: Allowlist, marks: frozenset[str] = frozenset()) -> str:
    """:func:`clean`, the stand-ins of :func:`decorated`'s ``marks`` kept as they are
    (:class:`TagStream`, which cleans one tag at a time, writes marks itself); an element
    its page hides is left out with its content (:mod:`crosspost.render.hidden`)."""
    # Imported at the first raw HTML, like BeautifulSoup: most issues have none (~1 ms).
    import nh3

    dropped = {tag for tag in ALWAYS_DROPPED | allowlist.dropped if tag not in allowlist.tags}
    fragment, hiding = hidden.marked(embedded_posts(script_embeds(modern_tags(fragment))))
    hiding -= dropped  # gone with what it holds anyway
    attributes = {tag: set(names) for tag, names in allowlist.attributes.items()}
    if hiding:  # let in to carry the mark, then taken out or unwrapped (hidden.unmarked)
        attributes["*"] = {*attributes.get("*", ()), hidden.MARK}
    cleaned = nh3.clean(
        _media_as_lines(fragment, allowlist.media),
        tags=set(allowlist.tags | marks | hiding),
        clean_content_tags=dropped,
        attributes=attributes,
        attribute_filter=_attribute_filter,
        strip_comments=True,
        link_rel=None,
        url_schemes={*allowlist.url_schemes, "data"},  # data: narrowed by the filter
        filter_style_properties=set(allowlist.styles) if allowlist.styles else None,
    )
    return hidden.unmarked(cleaned, allowlist.tags | marks, hiding) if hiding else cleaned


@dataclass
class _MediaFrame:
    """A media element open in a :class:`TagStream`, and whether its line is written."""

    name: str
    poster: str
    written: bool
    #: An ``<object>`` that names nothing to embed: a wrapper, its content shown as it
    #: is (see :func:`wrapper_object`), no line written for it.
    wrapper: bool = False


#: Elements that show something though empty (``<td/>``, ``<polygon … />``): a table
#: cell, whose place counts, and an ``svg`` drawing and its shapes, which draw without
#: words. Any other empty ``<name/>`` shows nothing.
_SHOWN_EMPTY = frozenset(
    {"td", "th", "svg", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon"}
)


@dataclass
class TagStream:
    """Cleans raw inline HTML one tag at a time, as markdown-it delivers it.

    A closing tag comes out only if its opening did, so nothing closes an element the
    channel never opened. :attr:`dropping` says how deep inside a dropped element
    (``<script>``, ``<video>``…) the stream is: the Markdown text between such an
    opening and its closing is part of it and must go too. Void elements never open
    anything, so a ``<source>`` or an ``<input>`` cannot hide the rest of a document.
    """

    allowlist: Allowlist
    dropping: int = 0
    #: Per element open, innermost last: its name, what its closing tag writes, and
    #: whether that closes the marks its style stands for (:func:`decoration`).
    _open: list[tuple[str, str, bool]] = field(default_factory=list)
    #: How many elements with marks are open, by name: inside one, an element of its name
    #: the channel leaves out is followed too, so that its closing tag ends no marks.
    _marked: dict[str, int] = field(default_factory=dict)
    _media: list[_MediaFrame] = field(default_factory=list)
    #: How many ``<svg>`` of :attr:`_open` are open (counted, not searched: an issue of
    #: thousands of tags left open searched a longer list at every tag).
    _svg_open: int = 0

    def tag(self, raw: str) -> str:
        """The cleaned form of one raw tag: the tag itself, its closing, or ``""``; for a
        media element, the cleaned :func:`media_line` once its source is known."""
        # Read before a <font> becomes a <span>; marks the channel has no element for go.
        drawn = [
            mark
            for mark in decoration(raw.strip(), self.allowlist.styles)
            if self.allowlist.allows(mark)
        ]
        marks = "".join(f"<{mark}>" for mark in drawn)
        unmarks = "".join(f"</{mark}>" for mark in reversed(drawn))
        raw = modern_tags(raw.strip())
        match = _TAG.match(raw)
        if not match:
            # A task's box is its character; comments, declarations and processing
            # instructions are nothing.
            return "" if self.dropping or raw.startswith("<") else html.escape(raw)
        closing, name, self_closed = bool(match.group(1)), match.group(2).lower(), match.group(3)
        line = self._media_tag(raw, name, closing, bool(self_closed))
        if line is not None:
            return line
        if self.allowlist.drops(name):
            if closing:
                self.dropping = max(0, self.dropping - 1)
            elif name not in VOID and not self_closed:
                self.dropping += 1
            return ""
        if self.dropping:
            return ""
        if self_closed and name not in VOID and name not in _SHOWN_EMPTY:
            return ""  # '<sup class="badge" />' (a Vue docs badge): an element of nothing
        allowed = self.allowlist.allows(name)
        if closing:
            if not allowed and not self._marked.get(name):
                return ""
            for at in range(len(self._open) - 1, -1, -1):
                if self._open[at][0] == name:
                    _, written, marked = self._open.pop(at)
                    self._svg_open -= name == "svg"
                    self._marked[name] = self._marked.get(name, 0) - marked
                    return written
            return ""
        if allowed and taken_back(raw, self.allowlist.styles):
            # Its own style takes back the bold (italic) its name draws, and the channel
            # keeps no style to say so: its words plain, its closing tag nothing.
            self._open.append((name, unmarks, bool(marks)))
            self._marked[name] = self._marked.get(name, 0) + bool(marks)
            return marks
        written = self._opening(raw, name, bool(self_closed)) if allowed else ""
        if not marks:
            if not allowed and self._marked.get(name) and name not in VOID and not self_closed:
                self._open.append((name, "", False))
            return written
        # Its text is drawn as its style draws it, whether the channel keeps the element
        # (WeChat's <span>: the marks inside it) or not (Zhihu's: the marks alone).
        if written:
            self._open[-1] = (name, unmarks + self._open[-1][1], True)
        else:
            self._open.append((name, unmarks, True))
        self._marked[name] = self._marked.get(name, 0) + 1
        return written + marks

    def _media_tag(self, raw: str, name: str, closing: bool, self_closed: bool) -> str | None:
        """The line a media element becomes (``None``: not a media tag), written at the
        first tag that names its source (``<video src>``, or a ``<source>`` inside),
        else at its closing tag. Its content is skipped like a dropped element's."""
        allowlist = self.allowlist
        if name not in allowlist.media and name != "source":
            return None
        from bs4 import BeautifulSoup
        from bs4.element import Tag

        if name in allowlist.media and name in allowlist.dropped:
            if closing:
                if not self._media:
                    return ""
                frame = self._media.pop()
                if frame.wrapper:
                    return ""
                self.dropping = max(0, self.dropping - 1)
                if frame.written:
                    return ""
                return clean(media_line(frame.name, "", frame.poster), allowlist)
            element = BeautifulSoup(raw, "html.parser").find(name)
            source = _media_source(element) if isinstance(element, Tag) else ""
            poster = str(element.get("poster") or "") if isinstance(element, Tag) else ""
            shown_as = _media_name(element) if isinstance(element, Tag) else name
            nested = any(not frame.wrapper for frame in self._media)
            if name == "object" and not source and not self_closed and not self.dropping:
                # Embeds nothing: what it holds is shown (``Text <object>words</object>``
                # lost its words to a line linking nowhere; check says nothing of it).
                self._media.append(_MediaFrame(shown_as, poster, written=True, wrapper=True))
                return ""
            line = clean(media_line(shown_as, source, poster), allowlist)
            if name in VOID or self_closed:
                return "" if nested else line
            self.dropping += 1
            self._media.append(_MediaFrame(shown_as, poster, written=nested or bool(source)))
            return line if source and not nested else ""
        if name == "source" and self._media and not closing and not self._media[-1].written:
            element = BeautifulSoup(raw, "html.parser").find("source")
            source = str(element.get("src") or "").strip() if isinstance(element, Tag) else ""
            if source and not javascript_source(source):
                frame = self._media[-1]
                frame.written = True
                return clean(media_line(frame.name, source, frame.poster), allowlist)
        return None

    def _opening(self, raw: str, name: str, self_closed: bool) -> str:
        # Inside an open <svg> a tag such as <path> is SVG, not an unknown HTML element:
        # nh3 has to see it in that context to keep it.
        inside_svg = self._svg_open > 0 and name != "svg"
        cleaned = _clean(f"<svg>{raw}</svg>" if inside_svg else raw, self.allowlist)
        if inside_svg:
            cleaned = cleaned.removeprefix("<svg>").removesuffix("</svg>")
        if not cleaned.startswith(f"<{name}"):
            return ""  # not kept where it stands
        if name in VOID or self_closed:
            return cleaned  # nothing left open: a void element, or one written <x/>
        self._open.append((name, f"</{name}>", False))
        self._svg_open += name == "svg"
        return cleaned.removesuffix(f"</{name}>")
