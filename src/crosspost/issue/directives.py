"""remark-directive's leaf and text directives (Docusaurus, Starlight): ``::youtube[…]{#id}``
and ``:abbr[HTML]{title="…"}``.

A site built with remark-directive reads a line ``::name[label]{attributes}`` as a block
its plugin draws (an embedded video) and ``:name[words]{attributes}`` within a line as
its words, marked up (an abbreviation, a keyboard key). Read as Markdown, the braces
were taken for a Pandoc span's and left out, the rest went out glued together:
``::youtube演示视频``, ``:abbrHTML``.

Here a leaf directive that names an embed (by the names Hugo's shortcodes use) is that
embed, shown as the line every channel shows a video or a page as; any other is its
label's words, and check says so. A text directive that names an element of HTML
(``:kbd[Ctrl]``, a key) is its words in that element, with attributes or without; any
other with attributes is its words. One without (``:abbr[HTML]``) stays as written:
nothing then marks it off from a colon before words in brackets, and as written it keeps
every word. The container directives (``:::tip{icon="heart"}``) are callouts, read with
the others.
"""

from __future__ import annotations

import html
import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, first_group, outside_code
from crosspost.issue.hugo_shortcodes import READINGS
from crosspost.patterns import pattern

#: A leaf directive, a line of its own: ``::name[label]{attributes}`` (at least one of the
#: two: ``::before`` alone is CSS's pseudo-element in someone's sentence).
_LEAF = pattern(
    r"[ \t]*::([A-Za-z][\w-]*)(?:\[([^\[\]\n]*)\](?:\{([^{}\n]*)\})?|\{([^{}\n]*)\})[ \t]*"
)
#: A text directive with attributes, never right after a letter or a colon (``a:b[c]{d}``,
#: ``::leaf``): ``:abbr[HTML]{title="…"}``.
_TEXT = pattern(r"(?<![\w:]):([A-Za-z][\w-]*)\[([^\[\]\n]*)\]\{([^{}\n]*)\}")
#: A text directive that is an element of HTML, its name being the element's (``kbd``,
#: which WeChat draws as a key and Zhihu as code), with attributes or without:
#: ``:kbd[Ctrl]``, never right after a letter or a colon (``a:kbd[x]``).
_ELEMENT = pattern(r"(?<![\w:]):(kbd)\[([^\[\]\n]+)\](?:\{[^{}\n]*\})?")
#: A directive's attributes: ``#id``, ``.class``, ``key=value``, ``key="value"``, ``key``.
_ATTRIBUTE = pattern(r"([#.])([\w-]+)|([\w-]+)(?:=(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'{}]+)))?")
#: What :func:`directives` notes of a leaf directive it shows as its words alone.
UNKNOWN_DIRECTIVE = "unknown-directive"


def directives(state: StateCore) -> None:
    """Core rule, before inline parsing: each leaf directive line of a paragraph becomes
    the embed it names or its label's words, each text directive naming an element that
    element, and any other with attributes its words (code spans left alone)."""
    if "::" not in state.src and "]{" not in state.src and ":kbd[" not in state.src:
        return
    for token in state.tokens:
        if token.type != "inline" or ":" not in token.content:
            continue
        lines = token.content.split("\n")
        first = token.map[0] if token.map else 0
        for number, line in enumerate(lines):
            leaf = _LEAF.fullmatch(line)
            if leaf is not None:
                lines[number] = _leaf(state, leaf, first + number)
            elif "]{" in line or ":kbd[" in line:
                lines[number] = outside_code(line, _words_of_text_directives)
        token.content = "\n".join(lines)


def _leaf(state: StateCore, found: re.Match[str], line: int) -> str:
    """What a leaf directive's line shows: its embed, else its label (and a note)."""
    name, label = found.group(1), found.group(2) or ""
    named = _attributes(found.group(3) or found.group(4) or "")
    reading = READINGS.get(name.lower())
    shown = reading([], named) if reading and named else None
    if shown:
        return shown
    state.env.setdefault(NOTES, []).append(
        (
            line,
            UNKNOWN_DIRECTIVE,
            f"'{found.group(0).strip()}' is a directive of the site's (remark-directive) that "
            f"crosspost does not know, so {'only its words are' if label else 'nothing is'} "
            "shown; write what it shows on the site in Markdown",
        )
    )
    return label


def _attributes(written: str) -> dict[str, str]:
    """A directive's attributes by name: ``#x`` is the ``id``, a class is left out."""
    named: dict[str, str] = {}
    for found in _ATTRIBUTE.finditer(written):
        marker, value, key = found.group(1), found.group(2), found.group(3)
        if marker == "#":
            named["id"] = value
        elif key:
            named[key.lower()] = first_group(found, 3)
    return named


def _words_of_text_directives(text: str) -> str:
    text = _ELEMENT.sub(_element, text)
    return _TEXT.sub(lambda found: found.group(2), text) if "]{" in text else text


def _element(found: re.Match[str]) -> str:
    """A text directive that names an element as that element of raw HTML, its words
    escaped (``:kbd[<]`` is the key, no tag)."""
    name = found.group(1)
    return f"<{name}>{html.escape(found.group(2), quote=False)}</{name}>"
