"""WeChat's own cards in an article copied back to Markdown, shown as lines of words.

An article saved from WeChat (wechat-article-exporter, or a page run through html2text,
markdownify or turndown) keeps the elements WeChat's editor inserts for its cards as raw
HTML: an Official Account's card (``<mp-common-profile data-nickname="…">``, older
``<mpprofile>``), a Channels video (``<mp-common-videosnap data-desc="…" data-url="…">``),
a Mini Program (``<mp-miniprogram data-miniprogram-title="…">``), an audio (``<mpvoice
name="…">``, ``<mp-common-mpaudio>``) or a QQ Music song (``<qqmusic music_name="…">``).
Their words are in attributes, so every channel left them out as elements of no HTML it
knows, without a word (and check advised writing ``<mpvoice>`` as code).

Each becomes a line naming what it was, with its words: "公众号名片：AI前线",
"▶ 视频号：…" (linked, when the card names a web address), "小程序：…", "🎧 音频：…".
The cards themselves cannot be sent on: WeChat's editor makes them, and WeChat's API
documents no way to create one (its draft's content is HTML; nothing in it names these
elements), so check says where each was, to insert again in WeChat's editor.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import (
    CODE_SPAN,
    NOTES,
    destination,
    escaped,
    first_group,
    line_at,
    within,
)
from crosspost.patterns import pattern

#: The code check's finding has (see ``check.source._NOTES_TO_LOOK_AT``).
WECHAT_CARD = "wechat-card"


@dataclass(frozen=True)
class _Card:
    """What one of WeChat's card elements is, and where it keeps its words."""

    #: What its line calls it, in the article's language.
    label: str
    #: What check calls it.
    what: str
    #: The attributes its words are in, the first one written wins.
    words: tuple[str, ...]
    #: Before the label: what a reader of the line can do with it (play, listen).
    mark: str = ""
    #: The attribute its web address is in, if it may have one.
    link: str = ""


_PROFILE = _Card("公众号名片", "an Official Account's card", ("data-nickname", "data-alias"))
_AUDIO = _Card("音频", "an audio", ("name", "data-title", "title"), mark="🎧 ")
#: WeChat's card elements, by tag.
CARDS = {
    "mp-common-profile": _PROFILE,
    "mpprofile": _PROFILE,
    "mp-common-videosnap": _Card(
        "视频号", "a Channels (视频号) video", ("data-desc", "data-nickname"), "▶ ", "data-url"
    ),
    "mp-miniprogram": _Card("小程序", "a Mini Program", ("data-miniprogram-title",)),
    "mpvoice": _AUDIO,
    "mp-common-mpaudio": _AUDIO,
    "qqmusic": _Card("音乐", "a QQ Music song", ("music_name", "data-music_name"), mark="🎧 "),
}

_ANY_CARD = pattern(r"<(?:mp|qqmusic)", re.IGNORECASE)
#: Nothing but blanks (matched within bounds: the text beside a card, not a copy of it).
_BLANK = pattern(r"\s*")
#: One card element: its opening tag, and what it holds up to its closing tag (written
#: ``<x/>``, or never closed: the opening alone).
_CARD = pattern(
    rf"<({'|'.join(CARDS)})\b((?:[^>\"'/]|/(?!>)|\"[^\"]*\"|'[^']*')*)"
    r"(?:/>|>(?:((?:(?!<\1\b).)*?)</\1\s*>)?)",
    re.IGNORECASE | re.DOTALL,
)
_ATTRIBUTE = pattern(r"""([^\s=/>"']+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
#: What an audio card's ``name`` holds when it names the editor's plugin, not the audio.
_PLUGIN_NAMES = frozenset({"insertaudio", "mpvoice", "audio"})
_ENCODED = pattern(r"%[0-9A-Fa-f]{2}")
_TAGS = pattern(r"<[^>]*>")


def wechat_cards(state: StateCore) -> None:
    """Core rule, after the block parse: each of WeChat's card elements (:data:`CARDS`)
    in raw HTML or in a paragraph's Markdown written as the line it stands for, noted for
    check. Code (fences, indented blocks, code spans) shows the tag as written."""
    if not _ANY_CARD.search(state.src):
        return
    line = 0
    for token in state.tokens:
        line = token.map[0] if token.map else line
        if token.type in ("html_block", "inline") and "<" in token.content:
            token.content = _written(token, line, state.env.setdefault(NOTES, []))


def _written(token: Token, first_line: int, notes: list[tuple[int, str, str]]) -> str:
    content = token.content
    in_html = token.type == "html_block"
    in_code = within([] if in_html else [span.span() for span in CODE_SPAN.finditer(content)])
    parts: list[str] = []
    done = 0
    for found in _CARD.finditer(content):
        if in_code(found.start()):
            continue
        tag = found.group(1).lower()
        words, link = _read(CARDS[tag], found.group(2), found.group(3) or "")
        line = first_line + line_at(content, found.start())
        notes.append((line, WECHAT_CARD, _message(tag, words, link)))
        alone = in_html and bool(
            _BLANK.fullmatch(content, 0, found.start()) and _BLANK.fullmatch(content, found.end())
        )
        parts += [content[done : found.start()], _line(words, link, in_html, alone)]
        done = found.end()
    return "".join(parts) + content[done:] if parts else content


def _read(card: _Card, attributes: str, inner: str) -> tuple[str, str]:
    """The line's words for ``card`` (its label, then its own words) and its web address
    (``""``: none), from the opening tag's ``attributes`` and what it held."""
    values = {
        found.group(1).lower(): html.unescape(first_group(found, 1))
        for found in _ATTRIBUTE.finditer(attributes)
    }
    own = next(
        (
            _decoded(values[name])
            for name in card.words
            if values.get(name, "").strip() and values[name].strip().lower() not in _PLUGIN_NAMES
        ),
        "",
    )
    if not own and card is _AUDIO:  # WeChat's newer audio names it in its player's query
        query = parse_qs(urlsplit(values.get("src", "")).query)
        own = query.get("name", [""])[0]
    if not own:  # a Mini Program's title, written between its tags
        own = html.unescape(_TAGS.sub("", inner))
    own = " ".join(own.split())
    words = f"{card.mark}{card.label}：{own}" if own else f"{card.mark}{card.label}"
    address = values.get(card.link, "").strip() if card.link else ""
    return words, address if address.lower().startswith(("https://", "http://")) else ""


def _decoded(value: str) -> str:
    """``value``, URL-decoded when WeChat wrote it so (an audio's name often is)."""
    return unquote(value) if _ENCODED.search(value) else value


def _line(words: str, link: str, in_html: bool, alone: bool) -> str:
    """The card as what it stands in: raw HTML (a paragraph of its own when it was the
    whole block) or a paragraph's Markdown."""
    if in_html:
        shown = html.escape(words, quote=False)
        if link:
            shown = f'<a href="{html.escape(link)}">{shown}</a>'
        return f"<p>{shown}</p>" if alone else shown
    if link:
        return f"[{escaped(words)}]({destination(link)})"
    return escaped(words)


def _message(tag: str, words: str, link: str) -> str:
    card = CARDS[tag]
    linked = ", linking to its address," if link else ""
    return (
        f"<{tag}> is WeChat's own card ({card.what}), which crosspost cannot send as a card "
        "(WeChat's editor makes them, and WeChat's API documents no way to create one): "
        f"every channel shows the line '{words}'{linked} in its place; insert the card "
        "again in WeChat's editor if readers need it"
    )
