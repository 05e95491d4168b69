"""Raw HTML that its page hides: left out on every channel, with what it holds.

An email carries its preheader (the line an inbox shows beside the subject) in an
element the message itself hides, ``<div style="display:none">``; an article copied from
WeChat keeps blocks its page hides the same way. WeChat keeps the style and hid them;
Zhihu keeps no style and showed them, so the two channels said different things. Every
channel now leaves out an element hidden by its ``hidden`` attribute or by a style of
``display:none`` or ``visibility:hidden``, with everything in it; check says so
(:mod:`crosspost.check.constructs`), quoting its words.

Outlook's ``mso-hide:all`` alone is not read as hidden: it hides an element in Outlook
only (an email's button for every other reader, whose Outlook form sits in a comment),
and every other reader sees it.

A block of raw HTML is cleaned as a whole (:func:`.sanitize.clean`): each hidden
element's opening tag is marked (:func:`marked`) and the element, its end found by the
sanitiser's own HTML5 parser, is taken out of the cleaned HTML (:func:`unmarked`). Inline
HTML comes one tag a token, so a line's hidden element is taken out of its tokens,
through its closing tag, before a channel renders them (:func:`without_hidden`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from markdown_it.token import Token

from crosspost.issue.blocks import QUOTED_VALUE, TAG_NAME, html_attributes
from crosspost.issue.dialect import VOID
from crosspost.patterns import pattern

#: The attribute that marks a hidden element between the two steps of a clean.
MARK = "data-crosspost-hidden"

#: A style that hides its element and its content.
_HIDING_STYLE = pattern(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)",
    re.IGNORECASE,
)
#: An opening tag, quoted values read whole: its name (group 1), its attributes (2: the
#: blocks' TAG_ATTRIBUTES but for a ``/`` that closes the tag), and that ``/`` (3).
_OPENING = pattern(rf"""<({TAG_NAME})((?:[^<>"'/]|{QUOTED_VALUE}|/(?!\s*>))*)(/?)\s*>""")
_CLOSING = pattern(rf"^</({TAG_NAME})\s*>$")
#: What a fragment holds when it may hide something: read tag by tag only then.
_MAY_HIDE = pattern(r"hidden|display\s*:\s*none", re.IGNORECASE)


def hides(attributes: str) -> bool:
    """Whether an opening tag's ``attributes`` (the text after its name) hide its
    element: ``hidden``, or a style of ``display:none`` or ``visibility:hidden``."""
    if not _MAY_HIDE.search(attributes):
        return False
    for name, value in html_attributes(attributes):
        if name == "hidden":
            return True
        if name == "style" and _HIDING_STYLE.search(value):
            return True
    return False


def marked(fragment: str) -> tuple[str, frozenset[str]]:
    """``fragment`` with the opening tag of each hidden element marked (:data:`MARK`),
    and the names of the elements marked; a hidden element that holds nothing (a void
    ``<img style="display:none">``, a self-closed one) is left out already."""
    if not _MAY_HIDE.search(fragment):
        return fragment, frozenset()
    names: set[str] = set()

    def mark(found: re.Match[str]) -> str:
        name, attributes, self_closed = found.group(1), found.group(2), found.group(3)
        if not hides(attributes):
            return found.group(0)
        if name.lower() in VOID or self_closed:
            return ""
        names.add(name.lower())
        return f"<{name} {MARK}{attributes}>"

    return _OPENING.sub(mark, fragment), frozenset(names)


def unmarked(cleaned: str, shown: frozenset[str], names: frozenset[str]) -> str:
    """``cleaned`` (balanced HTML) without each element :func:`marked` marked, and the
    other elements of ``names`` the channel does not show (``shown``: its allowlist's
    tags), which its clean let in only to carry the mark, their content kept."""
    if MARK not in cleaned and not names - shown:
        return cleaned
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(cleaned, "html.parser")
    for element in soup.find_all(True, attrs={MARK: True}):
        element.decompose()
    for element in soup.find_all(sorted(names - shown)):
        element.unwrap()
    return str(soup)


def hidden_spans(children: Sequence[Token]) -> Iterator[tuple[int, int]]:
    """Each hidden element among a line's inline ``children``: the index of its opening
    tag's token and of the token after its closing tag (the line's end, if it is never
    closed: a browser ends it with its paragraph), in order."""
    index = 0
    while index < len(children):
        child = children[index]
        found = _OPENING.fullmatch(child.content.strip()) if child.type == "html_inline" else None
        if found is None or not hides(found.group(2)):
            index += 1
            continue
        name = found.group(1).lower()
        if name in VOID or found.group(3):
            yield index, index + 1
            index += 1
            continue
        end = _closed_at(children, index, name)
        yield index, end
        index = end


def _closed_at(children: Sequence[Token], opening: int, name: str) -> int:
    """The index after the token that closes the element ``name`` opened at ``opening``
    (elements of its name inside it counted), or the line's end."""
    depth = 0
    for index in range(opening, len(children)):
        child = children[index]
        if child.type != "html_inline":
            continue
        tag = child.content.strip()
        closing = _CLOSING.match(tag)
        if closing is not None and closing.group(1).lower() == name:
            depth -= 1
            if not depth:
                return index + 1
            continue
        opened = _OPENING.fullmatch(tag)
        if opened is not None and opened.group(1).lower() == name and not opened.group(3):
            depth += 1
    return len(children)


def without_hidden(tokens: Iterable[Token]) -> None:
    """Take each line's hidden inline elements out of its tokens (a channel's own copy),
    with their content."""
    for token in tokens:
        if token.type != "inline" or not token.children or "<" not in token.content:
            continue
        spans = list(hidden_spans(token.children))
        for start, end in reversed(spans):
            del token.children[start:end]


def hidden_words(raw: str) -> list[tuple[int, str, str]]:
    """Each outermost hidden element of the raw HTML block ``raw``: its line (from 0),
    its name and its words, for check."""
    if not _MAY_HIDE.search(raw):
        return []
    from bs4 import BeautifulSoup
    from bs4.element import Tag

    found: list[tuple[int, str, str]] = []
    for element in BeautifulSoup(raw, "html.parser").find_all(_hidden_element):
        if any(_hidden_element(parent) for parent in element.parents if isinstance(parent, Tag)):
            continue
        words = " ".join(element.get_text(" ").split())
        found.append(((element.sourceline or 1) - 1, str(element.name), words))
    return found


def inline_hidden_words(children: Sequence[Token]) -> list[tuple[str, str]]:
    """Each hidden element among a line's inline ``children``: its name and its words."""
    found = []
    for start, end in hidden_spans(children):
        name = _OPENING.match(children[start].content.strip())
        words = "".join(child.content for child in children[start:end] if child.type == "text")
        found.append((name.group(1).lower() if name else "", " ".join(words.split())))
    return found


def _hidden_element(element: object) -> bool:
    from bs4.element import Tag

    if not isinstance(element, Tag) or element.name == "[document]":
        return False
    if element.has_attr("hidden"):
        return True
    return bool(_HIDING_STYLE.search(str(element.get("style") or "")))
