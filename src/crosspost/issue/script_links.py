"""Links that run a script of the page they were copied from, read as their words.

A WeChat article saved as Markdown (html2text, markdownify) keeps the page's buttons and
its account's name as links to a script: ``原创 张三 [AI前线](javascript:void\\(0\\);)``,
``[Got It](javascript:;)``, ``[取消](javascript:void(0);)``. markdown-it refuses such an
address, so the link went out as its Markdown, and the ``\\(0\\)`` inside it was read as
a formula: WeChat showed ``[AI前线](javascript:void``, a drawn 0 and ``;)``.

The parse accepts a script's address (``javascript:``, ``vbscript:``) as a link's or a
picture's, so the link is read whole, and :func:`script_links`, straight after the inline
parse, takes every such link out and keeps its words: nothing that runs a script
reaches a renderer, as a raw ``<a href="javascript:…">`` never does. Each paragraph that
had one is noted once for check. So is a link to an SVG written into its address, which
the parse accepts for a picture's (:mod:`crosspost.issue.svg_pictures`). A picture whose
source is a script is text again, its Markdown as written, which check refuses as it did
before (no picture to upload).

A link that is refused for another reason stays text, and a ``\\(`` in its address is
still no formula (:func:`_escapes_in_addresses`).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from crosspost.issue.blocks import NOTES, shortened
from crosspost.issue.svg_pictures import SVG_ADDRESS
from crosspost.patterns import pattern

#: The address of a script (markdown-it compares it trimmed and in lower case).
SCRIPT_ADDRESS = pattern(r"^\s*(?:javascript|vbscript):", re.IGNORECASE)
#: The code check files the notes under (a warning).
CODE = "script-link"
#: Text before a ``\\(`` that puts it inside a link's address: ``](`` and no ``)``
#: since on the line, but an escaped one (``void\\(0\\);``).
_IN_ADDRESS = pattern(r"\]\((?:[^)\n\\]|\\.)*$")
#: How far back an address's opening is looked for.
_ADDRESS_REACH = 2000


def script_links_plugin(md: MarkdownIt) -> None:
    """Register the reading of script links on ``md`` (see the module): the parse
    accepts their addresses, a core rule straight after the inline parse (and again
    after the footnotes' tail, for inline notes; footnotes must be registered first) takes
    them out, and a backslash-bracket in a link's address is an escape, not a formula."""
    validate = md.validateLink

    def validate_link(url: str) -> bool:
        return bool(SCRIPT_ADDRESS.match(url)) or validate(url)

    md.validateLink = validate_link  # type: ignore[method-assign]
    md.core.ruler.after("inline", "script_links", script_links)
    # An inline note's words (^[…]) reach the tokens only at the footnotes' tail.
    md.core.ruler.after("footnote_tail", "script_links_in_notes", script_links)
    md.inline.ruler.before("math_inline", "escapes_in_addresses", _escapes_in_addresses)


def script_links(state: StateCore) -> None:
    """Core rule: every link whose address is a script's (or an SVG's) out of the inline
    tokens, its words kept, and a picture whose source is a script's as its Markdown;
    each paragraph (or table cell) that had a link noted once. Every inline is looked at:
    an address written with entities (``javascript&#58;…``) is a script's too."""
    lines: list[str] = []
    for token in state.tokens:
        if token.type != "inline" or not token.children or not any(map(_unsafe, token.children)):
            continue
        found: list[tuple[str, str]] = []
        token.children = _without_scripts(token.children, found)
        if found and token.map:
            lines = lines or state.src.split("\n")
            _note(state, lines, token.map, found)


def _unsafe(token: Token) -> bool:
    """Whether ``token`` is a link to an address no link may lead to, or a picture of a
    script's."""
    if token.type == "link_open":
        # No link leads to a script, nor to an SVG written into the address (which the
        # parse accepts for a picture: a drawing opened as a page may run a script).
        href = str(token.attrGet("href") or "")
        return bool(SCRIPT_ADDRESS.match(href) or SVG_ADDRESS.match(href))
    return token.type == "image" and bool(SCRIPT_ADDRESS.match(str(token.attrGet("src") or "")))


def _without_scripts(children: list[Token], found: list[tuple[str, str]]) -> list[Token]:
    """``children`` with script links unwrapped, each one's (address, words) added to
    ``found``, and script pictures as their Markdown (check refuses them)."""
    kept: list[Token] = []
    open_at = -1  # where the words of the script link being unwrapped begin in ``kept``
    for child in children:
        if child.type == "link_open" and _unsafe(child):
            found.append((str(child.attrGet("href")).strip(), ""))
            open_at = len(kept)
            continue
        if child.type == "link_close" and open_at >= 0:
            words = "".join(t.content for t in kept[open_at:] if t.type.startswith("text")).strip()
            found[-1] = (found[-1][0], words)
            open_at = -1
            continue
        if child.type == "image" and _unsafe(child):
            # As markdown-it left it before: text, which check refuses as a picture.
            written = Token("text", "", 0)
            written.content = f"![{child.content}]({child.attrGet('src')})"
            kept.append(written)
            continue
        kept.append(child)
    return kept


def _note(
    state: StateCore, lines: list[str], where: list[int], found: list[tuple[str, str]]
) -> None:
    """One note for the block at ``where``: the first script link, and how many more."""
    start, end = where
    address, words = found[0]
    scheme = address.split(":", 1)[0].lower()
    what = (
        "opens a drawing written into the address"
        if scheme == "data"
        else "runs a script of the page it was copied from (such as a WeChat article's buttons)"
    )
    address = shortened(address, 50)
    line = next(
        (n for n in range(start, min(end, len(lines))) if f"{scheme}:" in lines[n].lower()),
        start,
    )
    shown = f"its words '{words}' are" if words else "it had no words, so nothing is"
    more = len(found) - 1
    others = f" (and {more} more in this paragraph)" if more else ""
    message = (
        f"the link to '{address}'{others} {what}, which no reader can follow: "
        f"{shown} shown, with no link; delete it, or link the page's address (https://…)"
    )
    state.env.setdefault(NOTES, []).append((line, CODE, message))


def _escapes_in_addresses(state: StateInline, silent: bool) -> bool:
    """Inline rule, before the formulas': ``\\(`` or ``\\[`` inside a link's address
    (``](…`` before it on the line, not closed) is the escaped bracket, as
    CommonMark reads it, never the start of a formula. The link may still be refused
    (a blank in its address): its text then shows ``(0)``, not a drawn 0."""
    src, pos = state.src, state.pos
    if not src.startswith(("\\(", "\\["), pos):
        return False
    if not _IN_ADDRESS.search(src, max(0, pos - _ADDRESS_REACH), pos):
        return False
    if not silent:
        state.pending += src[pos + 1]
    state.pos += 2
    return True
