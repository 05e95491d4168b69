"""Notes and links as converters write them: Zhihu's references, mammoth's footnotes, and
the redirect Zhihu wraps every outside link in.

A Zhihu article converted to Markdown keeps each of its references as Zhihu's own markup,
``<sup data-text="论文标题" data-url="https://…" data-draft-type="reference"
data-numero="1">[1]</sup>``. Read as raw HTML, only the ``[1]`` was shown: the title and
the address were lost, and on WeChat, whose link references are numbered ``[1]``, ``[2]``
… too, that ``[1]`` then stood beside a reference [1] that pointed somewhere else. Here it
is a note whose words are the title and the address: WeChat numbers it in its one
sequence, Zhihu writes it back as its own reference.

mammoth (a Word document to Markdown) writes a footnote as a link to its place at the end,
``text[\\[1\\]](#footnote-1)``, and the note as an item of a numbered list there,
``1. <a id="footnote-1"></a> 注释 [↑](#footnote-ref-1)``. Shown as written, the ``[1]``
was plain text that WeChat's own reference [1] contradicted, and the list ended in an
``↑`` that leads nowhere off the page. Here a pair of them (a mark and its note) is a
Markdown footnote; a mark without its note, or a note without its mark, stays as written.

Zhihu sends every outside link through ``https://link.zhihu.com/?target=<address>``; an
article copied from Zhihu keeps that address, which on WeChat showed in the list of
references in place of the real one. Here it is the address it leads to, on every channel.
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from crosspost.issue.blocks import in_code_span, outside_fences
from crosspost.patterns import pattern

#: Zhihu's reference: a ``<sup>`` with its attributes and the number it shows.
_REFERENCE = pattern(r"<sup\b([^<>]*)>\s*\[?\d{1,4}\]?\s*</sup\s*>", re.IGNORECASE)
#: One ``data-text`` or ``data-url`` attribute of it, quoted either way.
_DATA = pattern(r"""\sdata-(text|url)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_WEB = pattern(r"https?://\S+", re.IGNORECASE)
#: Where the inline rule keeps the notes it made, by (words, address): one note for a
#: reference cited twice.
_MADE = "crosspost_zhihu_references"


def zhihu_reference(state: StateInline, silent: bool) -> bool:
    """Inline rule, before raw HTML: Zhihu's reference ``<sup>`` as a note (see the module).
    A ``<sup>`` without a web address in ``data-url`` stays raw HTML."""
    start = state.pos
    if state.src[start] != "<" or not state.src.startswith(("<sup", "<SUP"), start):
        return False
    found = _REFERENCE.match(state.src, start, state.posMax)
    if found is None:
        return False
    attributes = {
        name.lower(): html.unescape(double or single).strip()
        for name, double, single in _DATA.findall(found.group(1))
    }
    url, text = attributes.get("url", ""), attributes.get("text", "")
    if not _WEB.fullmatch(url):
        return False
    if not silent:
        notes = state.env.setdefault("footnotes", {})
        listed = notes.setdefault("list", {})
        notes.setdefault("refs", {})
        made: dict[tuple[str, str], int] = state.env.setdefault(_MADE, {})
        key = made.get((text, url))
        if key is None:
            key = made[(text, url)] = len(listed)
            words = [Token("text", "", 0, content=text), Token("text", "", 0, content=" ")]
            listed[key] = {
                "content": f"{text} {url}".strip(),
                "tokens": [*(words if text else []), Token("text", "", 0, content=url)],
            }
        state.push("footnote_ref", "", 0).meta = {"id": key}
    state.pos = found.end()
    return True


#: mammoth's footnote mark (an anchor before it, if any): its kind and number.
_MARK = pattern(
    r'(?:<a id="(?:foot|end)note-ref-\d{1,4}"></a>)?'
    r"\[\\\[(\d{1,4})\\\]\]\(#((?:foot|end)note)-(\d{1,4})\)"
)
#: mammoth's note: an item of the numbered list at the end, its anchor, its words, and
#: the back-link that ends it.
_NOTE = pattern(
    r'^[ \t]{0,3}\d{1,4}[.)][ \t]+<a id="((?:foot|end)note)-(\d{1,4})"></a>'
    r"([^\n]*?)\[↑\]\(#(?:foot|end)note-ref-\d{1,4}\)[ \t]*$",
    re.MULTILINE,
)


def mammoth_footnotes(state: StateCore) -> None:
    """Core rule, before the block parse: mammoth's marks and notes that pair up as
    Markdown footnotes (``[^footnote-1]``), the anchors and back-links left out."""
    if "note-" not in state.src or "[↑](#" not in state.src:
        return
    notes = {(kind, number) for kind, number, _ in _NOTE.findall(state.src)}
    marks = {(kind, number) for _, kind, number in _MARK.findall(state.src)}
    paired = notes & marks
    if not paired:
        return

    def mark(found: re.Match[str]) -> str:
        key = (found.group(2), found.group(3))
        return f"[^{key[0]}-{key[1]}]" if key in paired else found.group(0)

    def note(found: re.Match[str]) -> str:
        key = (found.group(1), found.group(2))
        words = found.group(3).strip()
        return f"[^{key[0]}-{key[1]}]: {words}" if key in paired else found.group(0)

    state.src = outside_fences(_NOTE, outside_fences(_MARK, state.src, mark), note)


#: Zhihu's redirect and the address it carries (percent-encoded), up to what ends a URL
#: in Markdown or HTML.
_REDIRECT = pattern(r"https?://link\.zhihu\.com/?\?target=([^\s\"'<>()\[\]]+)", re.IGNORECASE)
_UNSAFE = pattern(r"[\s\"'<>()\[\]]")


def zhihu_redirects(state: StateCore) -> None:
    """Core rule, before the block parse: each ``link.zhihu.com/?target=…`` address as
    the one it leads to. One whose target would not stay one address once decoded (a
    space, a bracket) is kept as written."""
    if "link.zhihu.com" not in state.src:
        return

    def target(found: re.Match[str]) -> str:
        text, at = found.string, found.start()
        indented = text.startswith("    ", text.rfind("\n", 0, at) + 1)
        if indented or in_code_span(text, at):
            return found.group(0)  # in code (indented, or a span): an example, as written
        address = unquote(found.group(1))
        if not _WEB.fullmatch(address) or _UNSAFE.search(address):
            return found.group(0)
        return address

    state.src = outside_fences(_REDIRECT, state.src, target)
