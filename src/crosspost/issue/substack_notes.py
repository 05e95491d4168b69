"""Substack's footnotes, and the empty lightbox link a page puts before its picture.

Substack marks a footnote with a link to the note at the end of the post, whose words
are the note's number: ``<a class="footnote-anchor" href="#footnote-1">1</a>``, and
writes the note as ``<div class="footnote"><a class="footnote-number"
href="#footnote-anchor-1">1</a><div class="footnote-content"><p>…</p></div></div>``.
An export that turns the page into Markdown keeps that HTML (Pandoc, between blank lines)
or writes it as Markdown (markdownify and turndown): ``this week.[1](#footnote-1)`` and,
at the end, ``[1](#footnote-anchor-1)`` on a line of its own, the note's words in the
paragraph under it. Shown as written, the mark was a bracketed ``[1]`` beside WeChat's
link references, numbered ``[1]``, ``[2]`` … too: two things carried [1]. Here a mark and
its note that pair up are a Markdown footnote (the mark in the text, the note's words at
the end), so WeChat numbers them in its one sequence and Zhihu writes its own reference;
a mark without its note, or a note without its mark, stays as written.

A page that shows a picture in a lightbox wraps it in a link to the full-size file; an
export that cannot put the picture inside the link (Pandoc's of Substack) leaves the link
empty just before it, ``<a class="image-link" href="….png"></a>`` or ``[](….png)``. It
leads to the picture the reader sees already, and WeChat numbered it as a reference of
its own: here it is left out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import PICTURE_FILE, escaped
from crosspost.patterns import pattern

#: A raw link and its words, when they are a number: ``<a …>1</a>``.
_NUMBERED_LINK = pattern(r"<a\b([^<>]*)>\s*(\d{1,4})\s*</a\s*>", re.IGNORECASE)
#: One attribute of a tag, quoted either way.
_ATTRIBUTE = pattern(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
#: The mark as markdownify and turndown write it: ``[1](#footnote-1)``.
_WRITTEN_MARK = pattern(r"\[(\d{1,4})\]\(#footnote-(\d{1,4})\)")
#: The note's line as they write it: ``[1](#footnote-anchor-1)`` alone.
_WRITTEN_NOTE = pattern(r"\s*\[(\d{1,4})\]\(#footnote-anchor-(\d{1,4})\)\s*")
#: The note as Substack's HTML on one line: its number's link, then what it says.
_RAW_NOTE = pattern(
    r"\s*<div\b([^<>]*)>\s*(<a\b[^<>]*>\s*\d{1,4}\s*</a\s*>)\s*"
    r"<div\b([^<>]*)>(.*)</div\s*>\s*</div\s*>\s*",
    re.IGNORECASE | re.DOTALL,
)
#: A note's opening and the opening of its words, each on a line of its own (Pandoc).
_DIV_OPEN = pattern(r"\s*<div\b([^<>]*)>\s*", re.IGNORECASE)
#: The lines that close them.
_DIV_CLOSES = pattern(r"(?:\s*</div\s*>)+\s*", re.IGNORECASE)
#: A paragraph of raw HTML on a line of its own, and what it holds.
_RAW_PARAGRAPH = pattern(r"\s*<p\b[^<>]*>(.*)</p\s*>\s*", re.IGNORECASE | re.DOTALL)
#: The paragraphs of a note's words.
_PARAGRAPH_BREAK = pattern(r"</p\s*>\s*<p\b[^<>]*>", re.IGNORECASE)
#: A raw link holding words alone, or any other tag.
_TAG_OR_LINK = pattern(r"<a\b([^<>]*)>([^<>]*)</a\s*>|<[^<>]*>", re.IGNORECASE)
_WEB = pattern(r"https?://", re.IGNORECASE)
#: An empty raw link (a lightbox's) and the picture after it in the same block.
_EMPTY_LINK = pattern(r"<a\b([^<>]*)>\s*</a\s*>", re.IGNORECASE)
_PICTURE_AFTER = pattern(r"<img\b|!\[", re.IGNORECASE)
#: The label a paired note gets as a Markdown footnote.
_LABEL = "substack-{}"


def _attributes(tag: str) -> dict[str, str]:
    return {
        name.lower(): html.unescape(double or single)
        for name, double, single in _ATTRIBUTE.findall(tag)
    }


def _classes(attributes: dict[str, str]) -> list[str]:
    return attributes.get("class", "").split()


def _raw_number(found: re.Match[str], target: str, kind: str) -> str | None:
    """The number of a raw ``<a …>N</a>`` of class ``kind`` that links to ``#target-N``."""
    attributes = _attributes(found.group(1))
    number = found.group(2)
    if kind in _classes(attributes) and attributes.get("href") == f"#{target}-{number}":
        return number
    return None


def _raw_marks(text: str) -> Iterator[tuple[re.Match[str], str]]:
    for found in _NUMBERED_LINK.finditer(text):
        number = _raw_number(found, "footnote", "footnote-anchor")
        if number is not None:
            yield found, number


def _written_marks(text: str) -> Iterator[tuple[re.Match[str], str]]:
    for found in _WRITTEN_MARK.finditer(text):
        if found.group(1) == found.group(2):
            yield found, found.group(1)


def _marked(text: str) -> set[str]:
    return {number for _, number in (*_raw_marks(text), *_written_marks(text))}


def _with_refs(text: str, paired: set[str]) -> str:
    """``text`` (Markdown) with each mark of a paired note as a footnote reference."""

    def ref(found: re.Match[str], number: str | None) -> str:
        return f"[^{_LABEL.format(number)}]" if number in paired else found.group(0)

    text = _NUMBERED_LINK.sub(lambda m: ref(m, _raw_number(m, "footnote", "footnote-anchor")), text)
    return _WRITTEN_MARK.sub(
        lambda m: ref(m, m.group(1) if m.group(1) == m.group(2) else None), text
    )


def _as_markdown(fragment: str) -> str:
    """A fragment of HTML as inline Markdown that shows it as the page did: its tags kept
    (raw HTML), its text escaped, its line breaks spaces."""
    parts: list[str] = []
    done = 0
    for tag in _TAG_OR_LINK.finditer(fragment):
        parts += [escaped(fragment[done : tag.start()]), _as_link(tag)]
        done = tag.end()
    parts.append(escaped(fragment[done:]))
    return " ".join("".join(parts).split())


def _as_link(found: re.Match[str]) -> str:
    """A raw link to a web page holding only words as a Markdown link, which each channel
    numbers or shows as it does a link written so (a note's address is Zhihu's
    reference's); any other tag as it is."""
    if found.group(1) is None:
        return found.group(0)
    href = _attributes(found.group(1)).get("href", "").strip()
    if not _WEB.match(href) or any(c in href for c in " <>"):
        return found.group(0)
    return f"[{escaped(html.unescape(found.group(2)))}](<{href}>)"


def _paragraph(markdown: str, line: int, level: int) -> list[Token]:
    opening = Token("paragraph_open", "p", 1, map=[line, line + 1], level=level, block=True)
    inline = Token("inline", "", 0, map=[line, line + 1], level=level + 1, content=markdown)
    inline.children = []
    closing = Token("paragraph_close", "p", -1, level=level, block=True)
    return [opening, inline, closing]


def _html_block(lines: Sequence[str], line: int) -> Token:
    return Token(
        "html_block", "", 0, map=[line, line + len(lines)], content="".join(lines), block=True
    )


@dataclass
class _Note:
    """One note found: where its tokens stand, and what it says as tokens."""

    number: str
    start: int  # first token index (of the top-level stream) it takes the place of
    end: int  # one past its last
    body: list[Token] = field(default_factory=list)


def _block_end(tokens: Sequence[Token], start: int) -> int:
    """One past the last token of the block that opens at ``start``."""
    depth = 0
    for index in range(start, len(tokens)):
        depth += tokens[index].nesting
        if depth <= 0:
            return index + 1
    return len(tokens)


def _paragraph_text(tokens: Sequence[Token], at: int) -> str | None:
    """The Markdown of the paragraph opening at ``at``, or None if none opens there."""
    if (
        at + 2 < len(tokens)
        and tokens[at].type == "paragraph_open"
        and tokens[at + 1].type == "inline"
    ):
        return tokens[at + 1].content
    return None


def _written_note(tokens: Sequence[Token], at: int) -> str | None:
    text = _paragraph_text(tokens, at)
    found = _WRITTEN_NOTE.fullmatch(text) if text is not None else None
    return found.group(1) if found and found.group(1) == found.group(2) else None


def _is_div(token: Token, kind: str) -> bool:
    found = _DIV_OPEN.fullmatch(token.content) if token.type == "html_block" else None
    return bool(found) and kind in _classes(_attributes(found.group(1) if found else ""))


def _pandoc_note(tokens: Sequence[Token], at: int) -> _Note | None:
    """Substack's note as Pandoc writes it, each part between blank lines: the note's
    ``<div>``, its number's link, the ``<div>`` of its words, the words as Markdown, and
    the two closing ``</div>``."""
    if not _is_div(tokens[at], "footnote"):
        return None
    number_text = _paragraph_text(tokens, at + 1)
    link = _NUMBERED_LINK.fullmatch(number_text.strip()) if number_text else None
    number = _raw_number(link, "footnote-anchor", "footnote-number") if link else None
    content = at + 4
    if number is None or content >= len(tokens) or not _is_div(tokens[at + 4], "footnote-content"):
        return None
    index, closed = content + 1, 0
    body: list[Token] = []
    while index < len(tokens) and closed < 2:
        token = tokens[index]
        if token.type == "html_block" and _DIV_CLOSES.fullmatch(token.content):
            closed += token.content.count("</")
            index += 1
            continue
        if closed:
            break
        end = _block_end(tokens, index)
        body += tokens[index:end]
        index = end
    return _Note(number, at, index, body) if closed == 2 and body else None


def _raw_note(line: str, row: int, level: int) -> tuple[str, list[Token]] | None:
    """The number and words of Substack's note written as HTML on one line."""
    found = _RAW_NOTE.fullmatch(line)
    if found is None or "footnote" not in _classes(_attributes(found.group(1))):
        return None
    if "footnote-content" not in _classes(_attributes(found.group(3))):
        return None
    link = _NUMBERED_LINK.fullmatch(found.group(2))
    number = _raw_number(link, "footnote-anchor", "footnote-number") if link else None
    if number is None:
        return None
    words = found.group(4).strip()
    inside = _RAW_PARAGRAPH.fullmatch(words)
    if inside is None:  # not paragraphs: shown as the HTML it is
        return number, [_html_block([words + "\n"], row)]
    body: list[Token] = []
    for paragraph in _PARAGRAPH_BREAK.split(inside.group(1)):
        body += _paragraph(_as_markdown(paragraph), row, level)
    return number, body


def _notes_and_marks(tokens: Sequence[Token]) -> tuple[list[_Note], set[str]]:
    """The notes of the top-level stream (Pandoc's and the written ones; the raw ones on
    one line are read with their block's lines) and the numbers marked anywhere."""
    notes: list[_Note] = []
    marked: set[str] = set()
    written: list[int] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "inline":
            marked |= _marked(token.content)
        elif token.type == "html_block":
            marked |= _marked(token.content)
            for line in token.content.splitlines():
                found = _raw_note(line, 0, 0)
                if found:
                    notes.append(_Note(found[0], index, index + 1))
        if token.level == 0 and token.nesting >= 0:
            pandoc = _pandoc_note(tokens, index)
            if pandoc is not None:
                notes.append(pandoc)
                index = pandoc.end
                continue
            if _written_note(tokens, index) is not None:
                written.append(index)
        index += 1
    # A written note's words are the blocks up to the next note; the last one's, the one
    # block after it (what follows may be the page's own, not the note's).
    for place, start in enumerate(written):
        words_at = _block_end(tokens, start)
        following = written[place + 1] if place + 1 < len(written) else None
        end = following if following is not None else _block_end(tokens, words_at)
        number = _written_note(tokens, start) or ""
        if words_at < end <= len(tokens):
            notes.append(_Note(number, start, end, list(tokens[words_at:end])))
    return notes, marked


def _split_html_block(token: Token, paired: set[str]) -> list[Token]:
    """An HTML block with the lines that hold a paired note or mark taken out of it: a
    note a footnote of its own, a ``<p>`` holding a mark a paragraph of Markdown."""
    start = token.map[0] if token.map else 0
    out: list[Token] = []
    kept: list[str] = []
    kept_from = start
    for row, line in enumerate(token.content.splitlines(keepends=True), start):
        note = _raw_note(line, row, token.level + 1)
        inside = _RAW_PARAGRAPH.fullmatch(line) if note is None else None
        replaced: list[Token] | None = None
        if note is not None and note[0] in paired:
            replaced = _footnote(note[0], note[1], token.level)
        elif inside is not None and _marked(line) & paired:
            replaced = _paragraph(
                _with_refs(_as_markdown(inside.group(1)), paired), row, token.level
            )
        if replaced is None:
            if not kept:
                kept_from = row
            kept.append(line)
            continue
        if kept:
            out.append(_html_block(kept, kept_from))
            kept = []
        out += replaced
    if kept:
        out.append(_html_block(kept, kept_from))
    return out


def _footnote(number: str, body: list[Token], level: int) -> list[Token]:
    opening = Token("footnote_reference_open", "", 1, level=level)
    opening.meta = {"label": _LABEL.format(number)}
    return [opening, *body, Token("footnote_reference_close", "", -1, level=level)]


def substack_footnotes(state: StateCore) -> None:
    """Core rule, after the block parse and before the inline one: Substack's marks and
    notes that pair up as Markdown footnotes (see the module)."""
    if "#footnote-" not in state.src:
        return
    tokens = state.tokens
    notes, marked = _notes_and_marks(tokens)
    numbers = [note.number for note in notes]
    # A number noted twice is not one note: both stay as written.
    paired = {number for number in marked if numbers.count(number) == 1}
    if not paired:
        return
    refs = state.env.setdefault("footnotes", {}).setdefault("refs", {})
    state.env["footnotes"].setdefault("list", {})
    for number in paired:
        refs[":" + _LABEL.format(number)] = -1
    starts = {note.start: note for note in notes if note.number in paired and note.body}
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        note = starts.get(index)
        if note is not None:
            out += _footnote(note.number, note.body, tokens[index].level)
            index = note.end
            continue
        token = tokens[index]
        if token.type == "html_block":
            out += _split_html_block(token, paired)
        else:
            if token.type == "inline" and _marked(token.content) & paired:
                token.content = _with_refs(token.content, paired)
            out.append(token)
        index += 1
    state.tokens = out


def lightbox_links(state: StateCore) -> None:
    """Core rule, after the inline parse: an empty link to a picture file right before
    a picture (a lightbox's, see the module) is left out."""
    if "](" not in state.src and "<a" not in state.src.lower():
        return
    for token in state.tokens:
        if token.type == "html_block" and "<a" in token.content.lower():
            token.content = _without_empty_links(token.content)
        children = token.children
        if not children:
            continue
        index = 0
        while index + 1 < len(children):
            opening, closing = children[index], children[index + 1]
            if _is_lightbox(children, index, opening, closing):
                del children[index : index + 2]
                continue
            index += 1


def _is_lightbox(children: Sequence[Token], index: int, opening: Token, closing: Token) -> bool:
    if opening.type == "link_open" and closing.type == "link_close":
        href = str(opening.attrGet("href") or "")
    elif (
        opening.type == "html_inline"
        and closing.type == "html_inline"
        and closing.content.lower().startswith("</a")
        and (found := _EMPTY_LINK.fullmatch(opening.content + closing.content)) is not None
    ):
        attributes = _attributes(found.group(1))
        if "image-link" in _classes(attributes):
            return _picture_next(children, index + 2)
        href = attributes.get("href", "")
    else:
        return False
    return bool(PICTURE_FILE.search(urlsplit(href).path)) and _picture_next(children, index + 2)


def _picture_next(children: Sequence[Token], at: int) -> bool:
    for token in children[at:]:
        if token.type in ("softbreak", "hardbreak") or (
            token.type == "text" and not token.content.strip()
        ):
            continue
        return token.type == "image" or (
            token.type == "html_inline" and token.content.lower().startswith("<img")
        )
    return False


def _without_empty_links(content: str) -> str:
    def kept(found: re.Match[str]) -> str:
        attributes = _attributes(found.group(1))
        lightbox = "image-link" in _classes(attributes) or PICTURE_FILE.search(
            urlsplit(attributes.get("href", "")).path
        )
        followed = _PICTURE_AFTER.search(content, found.end())
        return "" if lightbox and followed else found.group(0)

    return _EMPTY_LINK.sub(kept, content)
