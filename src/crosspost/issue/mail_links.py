"""Links that write an email: their words, then the address.

A newsletter's header asks readers to write (阮一峰's weekly: ``[邮件联系](mailto:…)``),
as a Markdown link, an autolink ``<hello@example.com>`` or a raw ``<a href="mailto:…">``.
Neither channel opens a mail program from an article (WeChat links nowhere outside its
own pages, Zhihu only to web pages), and each of the three came out its own way: on
Zhihu a reference with an empty address, the address then a reference repeating it as
``mailto:…``, and ``邮件联系 (mailto:…)``; on WeChat a numbered reference to ``mailto:…``.
Here every one is its words with the address after them, ``邮件联系（a@b.com）``, the
address alone when the words are the address: the same on every channel, readable, and
never the ``mailto:`` a reader cannot use.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from urllib.parse import unquote

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.patterns import pattern

_MAILTO = "mailto:"
#: A raw link that writes an email, with its address and words (no link inside a link).
_OPENING = r"""<a\b[^<>]*?\bhref\s*=\s*(?:"\s*mailto:([^"]*)"|'\s*mailto:([^']*)')[^<>]*>"""
_RAW_MAIL_LINK = pattern(_OPENING + r"(.*?)</a\s*>", re.IGNORECASE | re.DOTALL)
_RAW_OPEN = pattern(_OPENING, re.IGNORECASE)
_TAG = pattern(r"<[^<>]*>")
#: Characters after which the address goes in full-width brackets (Chinese words).
_CJK = pattern(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]$")


def mail_address(target: str) -> str:
    """The address (or addresses) a ``mailto:`` target writes to, without the scheme
    and the subject or body after ``?``."""
    target = target.strip()
    if target.lower().startswith(_MAILTO):
        target = target[len(_MAILTO) :]
    addresses = unquote(target.split("?", 1)[0]).split(",")
    return ", ".join(address.strip() for address in addresses if address.strip())


def after_words(words: str, address: str, following: str = "") -> str:
    """What follows a mail link's ``words``: the address in brackets (full-width after
    Chinese words), nothing when the words are the address already or the writer wrote
    it right after the link (阮一峰's ``[邮件联系](mailto:…)（yifeng.ruan@gmail.com）``)."""
    shown = words.strip()
    if not address or shown.lower().removeprefix(_MAILTO) == address.lower():
        return ""
    if address.lower() in following[: len(address) + 4].lower():
        return ""
    if not shown:
        return address
    return f"（{address}）" if _CJK.search(shown) else f" ({address})"


def mail_links(state: StateCore) -> None:
    """Core rule, after the inline parse: every link to ``mailto:`` as its words and its
    address (see the module)."""
    if _MAILTO not in state.src.lower() and "@" not in state.src:
        return
    for token in state.tokens:
        if token.type == "html_block" and _MAILTO in token.content.lower():
            token.content = _RAW_MAIL_LINK.sub(_raw_as_words, token.content)
        if token.children:
            _unlinked(token.children)


def _raw_as_words(found: re.Match[str]) -> str:
    address = mail_address(html.unescape(found.group(1) or found.group(2) or ""))
    inner = found.group(3)
    words = html.unescape(_TAG.sub("", inner))
    following = html.unescape(_TAG.sub("", found.string[found.end() : found.end() + 200]))
    return inner + html.escape(after_words(words, address, following), quote=False)


def _unlinked(children: list[Token]) -> None:
    """The mail links among ``children`` (an inline's) as their words and address."""
    index = 0
    while index < len(children):
        token = children[index]
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            close = _link_closing(children, index)
        elif token.type == "html_inline" and (raw := _RAW_OPEN.fullmatch(token.content)):
            href = _MAILTO + html.unescape(raw.group(1) or raw.group(2) or "")
            close = _raw_closing(children, index)
        else:
            index += 1
            continue
        if close is None or not href.strip().lower().startswith(_MAILTO):
            index += 1
            continue
        words = "".join(
            child.content
            for child in children[index + 1 : close]
            if child.type in ("text", "code_inline", "text_special")
        )
        after = children[close + 1] if close + 1 < len(children) else None
        following = after.content if after is not None and after.type == "text" else ""
        ending = after_words(words, mail_address(href), following)
        children[close] = Token("text", "", 0, content=ending, level=token.level)
        del children[index]


def _link_closing(children: Sequence[Token], start: int) -> int | None:
    """The index of the ``link_close`` of the ``link_open`` at ``start`` (links may nest)."""
    depth = 0
    for index in range(start, len(children)):
        if children[index].type == "link_open":
            depth += 1
        elif children[index].type == "link_close":
            depth -= 1
            if depth == 0:
                return index
    return None


def _raw_closing(children: Sequence[Token], start: int) -> int | None:
    for index in range(start + 1, len(children)):
        child = children[index]
        if child.type == "html_inline" and child.content.lower().startswith("</a"):
            return index
        if child.type == "html_inline" and child.content.lower().startswith("<a"):
            return None
    return None
