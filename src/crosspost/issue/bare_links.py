"""Web addresses written bare in the text (``参考：https://example.com/a``) as links.

GitHub, GitLab, Hexo, Typora and Obsidian link them (GFM's extended autolinks), so
newsletters list their sources that way; CommonMark does not, and Zhihu showed an
address no reader could click. Each becomes the link ``<https://…>`` would have made:
Zhihu links it, and WeChat, which lets readers follow no outside link, shows the
address as it is (an address that is its own text needs no numbered reference).

Only addresses with their scheme are links: ``setup.py`` or ``example.com`` in a
sentence are words. An address ends at a space, a quote or angle bracket, or the first
character outside ASCII, as Chinese writes no space before the words that follow
(``见https://a.com/x。后文``); punctuation that ends the sentence, and a closing bracket
with no opening one in the address, are not part of it. One exception: words written in
their own script where a path segment, a query value or a fragment begins
(``https://zh.wikipedia.org/wiki/微信 了解``), letters and digits only, up to a space or
the end of the text, are the address's: browsers show such addresses so, and cut there
the link led to the wiki's front page. Not after the site's root alone
(``https://www.python.org/下载安装包``): those are the sentence's words.
"""

from __future__ import annotations

import re
import unicodedata

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.patterns import pattern

#: Case-sensitive on purpose: ignoring case would fold "k" and "i" into the range of
#: non-ASCII characters that end an address (the Kelvin sign, the dotted capital I).
_ADDRESS = pattern(r"(?<![A-Za-z0-9@/])[Hh][Tt][Tt][Pp][Ss]?://[!#-&(-;=?-_a-~]+")
#: Punctuation that ends a sentence after an address rather than the address itself.
_TRAILING = ".,:;!?*_~"
_CLOSING = {")": "(", "]": "[", "}": "{"}
#: Text just before an address that makes it part of a link Markdown did not read
#: (mdnice's ``![logo](https://… =150x150)``): shown as written, not linked in the middle.
_BROKEN_LINK = ("](", "]( ", "](<")
_LINK_OPEN = pattern(r"<a\s", re.IGNORECASE)
_LINK_CLOSE = pattern(r"</a\s*>", re.IGNORECASE)


#: Where an address's own words in another script may begin: a path segment, a query
#: value, a fragment.
_SEGMENT_STARTS = ("/", "=", "#")
_ADDRESS_CHARACTER = pattern(r"[!#-&(-;=?-_a-~]")
#: An address past its site's root: a path segment (``/wiki/``), a query or a fragment.
#: Words right after the root's ``/`` are the sentence's far more often than a page's.
_WITHIN = pattern(r"://[^/?#\s]+/[^/?#\s]+/|[?#]")


def _whole(text: str, start: int, end: int) -> int:
    """Where the address at ``text[start:end]`` (its ASCII part) really ends: past words
    in another script that begin one of its segments, when the address runs on to a
    space or the text's end with nothing but letters, digits and address characters."""
    if end >= len(text) or text[end].isascii() or not text[start:end].endswith(_SEGMENT_STARTS):
        return end
    if not _WITHIN.search(text, start, end):
        return end  # https://www.python.org/下载安装包: the site's root, then the sentence
    at = end
    while at < len(text) and not text[at].isspace():
        character = text[at]
        if character.isascii():
            if not _ADDRESS_CHARACTER.match(character):
                return end
        elif unicodedata.category(character)[0] not in "LNM":
            return end  # 。，、 and the like: the sentence goes on after the address
        at += 1
    return end if "://" in text[end:at] else at  # 和https://…: the next address


def _trimmed(address: str) -> str:
    """``address`` without the sentence's punctuation and unmatched brackets at its end."""
    while address:
        last = address[-1]
        if last in _TRAILING or (
            last in _CLOSING and address.count(_CLOSING[last]) < address.count(last)
        ):
            address = address[:-1]
        else:
            break
    return address


def _split(token: Token) -> list[Token]:
    """``token`` (text) as text and link tokens, one link per bare address in it."""
    text = token.content
    pieces: list[Token] = []
    done = 0
    for match in _ADDRESS.finditer(text):
        start = match.start()
        if start < done:
            continue  # within the words of the address before it
        address = _trimmed(text[start : _whole(text, start, match.end())])
        if address.endswith("://") or text[:start].endswith(_BROKEN_LINK):
            continue
        if start > done:
            pieces.append(_text(text[done:start], token.level))
        opening = Token("link_open", "a", 1, attrs={"href": address}, markup="linkify")
        opening.info = "auto"
        opening.level = token.level
        closing = Token("link_close", "a", -1, markup="linkify", info="auto")
        closing.level = token.level
        pieces += [opening, _text(address, token.level + 1), closing]
        done = start + len(address)
    if not pieces:
        return [token]
    if done < len(text):
        pieces.append(_text(text[done:], token.level))
    return pieces


def _text(content: str, level: int) -> Token:
    piece = Token("text", "", 0, content=content)
    piece.level = level
    return piece


def bare_links(state: StateCore) -> None:
    """Core rule: bare web addresses in text outside links become links."""
    if "://" not in state.src:
        return
    for token in state.tokens:
        if token.type != "inline" or not token.children or "://" not in token.content:
            continue
        children: list[Token] = []
        inside = 0  # within a Markdown link, or a raw <a>…</a>
        for child in token.children:
            if child.type == "link_open":
                inside += 1
            elif child.type == "link_close":
                inside = max(0, inside - 1)
            elif child.type == "html_inline":
                if _LINK_OPEN.match(child.content):
                    inside += 1
                elif _LINK_CLOSE.match(child.content):
                    inside = max(0, inside - 1)
            found = child.type == "text" and not inside and "://" in child.content
            children += _split(child) if found else [child]
        token.children = children


def with_scheme(address: str) -> str:
    """``address`` with its scheme: one written without (``//imgur.com/a.png``, copied
    from a page's HTML) means that page's, and WeChat's and Zhihu's pages are https."""
    return f"https:{address}" if address.startswith("//") else address


def schemeless_addresses(state: StateCore) -> None:
    """Core rule: a link's or an image's address without its scheme (``//imgur.com/a.png``,
    copied from a page's HTML) is the page's https, written out. Outside that page it
    leads nowhere: WeChat's list of links showed ``//imgur.com/…`` and the picture could
    not be fetched."""
    if "](//" not in state.src and "]: //" not in state.src:
        return
    for token in state.tokens:
        for child in token.children or ():
            name = "href" if child.type == "link_open" else "src" if child.type == "image" else ""
            if name and str(child.attrs.get(name, "")).startswith("//"):
                child.attrs[name] = with_scheme(str(child.attrs[name]))
