"""Helpers for block rules that stand for other tools' syntax with Markdown's own tokens.

A tag, a tab or a directive read by the dialect (``template_tags``, ``tabs``) comes out
as the tokens its Markdown form would make, so every renderer shows it with the rules it
already has; these are the few steps all of them take.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import html
import re
from collections.abc import Callable, Iterable, Iterator

from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from crosspost.patterns import offsets_of, pattern

#: Where a rule notes, in the parse's ``env``, what it read in another tool's way for
#: check to say: (0-based body line, a code, the message). See ``Document.notes``.
NOTES = "crosspost_dialect_notes"

_SPECIAL = pattern(r"([\\`*_\[\]<>!|~=$])")
#: A fence's line: three backticks or tildes, indented at most three spaces.
FENCE_LINE = pattern(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
#: A code span of a line of Markdown: what it holds is shown as written.
CODE_SPAN = pattern(r"(`+).+?\1", re.DOTALL)
#: A code span or a formula (``$…$``, ``$$…$$``, ``\(…\)``): what a rule that reads
#: marks also found in formulas (``f^{2}(x)``, a norm's ``||v||``) keeps as written.
CODE_OR_MATH = pattern(
    rf"{CODE_SPAN.pattern}|\$\$.+?\$\$|\$(?![\s$])[^$\n]*?(?<![\s\\])\$|\\\(.+?\\\)",
    re.DOTALL,
)


def fence_starts(source: str) -> list[int]:
    """Where each fence line of ``source`` begins, for :func:`in_fence`: a rule that reads
    the source before the block parse has no tokens to tell code from text."""
    return [found.start() for found in FENCE_LINE.finditer(source)]


def in_fence(starts: list[int], at: int) -> bool:
    """Whether offset ``at`` lies inside a code fence, ``starts`` from :func:`fence_starts`
    (an odd number of fence lines before it: one opened and not yet closed)."""
    return bisect.bisect_left(starts, at) % 2 == 1


def outside_fences(
    found_by: re.Pattern[str], source: str, rewrite: Callable[[re.Match[str]], str]
) -> str:
    """``source`` with each match of ``found_by`` outside a code fence rewritten, the ones
    inside kept: a rule that rewrites the source before the block parse leaves the code
    an issue shows alone. The fences are found in this ``source`` (a rewrite before may
    have moved them), and only once something is found."""
    fences: list[int] | None = None

    def rewritten(found: re.Match[str]) -> str:
        nonlocal fences
        fences = fence_starts(source) if fences is None else fences
        return found.group(0) if in_fence(fences, found.start()) else rewrite(found)

    return found_by.sub(rewritten, source)


def outside_code(
    text: str, rewrite: Callable[[str], str], spans: re.Pattern[str] = CODE_SPAN
) -> str:
    """``text`` (an inline's Markdown) with ``rewrite`` applied to all but its code spans:
    a tag written in backticks is an example of the tag, not the tag. ``spans``: what is
    kept as written, when it is not every code span."""
    parts: list[str] = []
    done = 0
    for span in spans.finditer(text):
        parts += [rewrite(text[done : span.start()]), span.group(0)]
        done = span.end()
    return "".join(parts) + rewrite(text[done:])


def inline_lines(
    tokens: Iterable[Token],
    wanted: Callable[[str], bool],
    rewrite: Callable[..., str],
    spans: re.Pattern[str] = CODE_SPAN,
) -> Iterator[tuple[Token, list[str]]]:
    """Each inline token whose text ``wanted`` picks, with its lines rewritten outside
    their code spans (``spans``: see :func:`outside_code`) by ``rewrite(text, line=…)``,
    ``line`` being the line's offset in the body (0-based), so a note for check names the
    source's line. The caller writes the lines back (``token.content``), after any change
    of its own."""
    for token in tokens:
        if token.type != "inline" or not wanted(token.content):
            continue
        first = token.map[0] if token.map else 0
        lines = token.content.split("\n")
        for number, text in enumerate(lines):
            lines[number] = outside_code(
                text, functools.partial(rewrite, line=first + number), spans
            )
        yield token, lines


def line_text(state: StateBlock, line: int) -> str:
    """The text of ``line`` of a block rule's source, its indent left out."""
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def line_match(
    state: StateBlock, line: int, opening: str, whole: re.Pattern[str]
) -> re.Match[str] | None:
    """``whole`` matched against all of ``line`` (its indent left out), when the line
    starts with ``opening`` and is not indented into code; else None."""
    if state.sCount[line] - state.blkIndent >= 4:
        return None
    begin = state.bMarks[line] + state.tShift[line]
    if not state.src.startswith(opening, begin):
        return None
    return whole.fullmatch(state.src, begin, state.eMarks[line])


def escaped(text: str) -> str:
    """``text`` as Markdown that shows it as written."""
    return _SPECIAL.sub(r"\\\1", text)


def credit_line(parts: Iterable[str]) -> str:
    """The line under a quote or a note that says whose words they are and where from
    (``— author, source``, as Hexo's quote ends), of ``parts`` in Markdown; none without
    them."""
    shown = [part for part in parts if part]
    return "— " + ", ".join(shown) if shown else ""


def destination(address: str) -> str:
    """``address`` as a link's or a picture's destination in Markdown, in angle brackets
    (a space or a parenthesis in a file's name is then no end of it), its ``>`` escaped."""
    return "<" + address.replace(">", "%3E") + ">"


def paragraph(state: StateBlock, markdown: str, line: int) -> None:
    """A paragraph of ``markdown`` (its inline is parsed with the rest), for ``line``."""
    state.push("paragraph_open", "p", 1).map = [line, line + 1]
    inline = state.push("inline", "", 0)
    inline.content, inline.map, inline.children = markdown, [line, line + 1], []
    state.push("paragraph_close", "p", -1)


def inner(
    state: StateBlock,
    start: int,
    close: int,
    parent: str = "container",
    *,
    dedent: bool = False,
) -> None:
    """The lines after ``start`` up to ``close`` read as Markdown, nothing past ``close``
    (no lazy line runs on); ``parent`` is what rules see as the block they are in. With
    ``dedent``, the lines' common indent is the block's own, as in a list item: JSX
    indents a component's children, which MDX reads as Markdown, not as code."""
    was, line_max, indent = state.parentType, state.lineMax, state.blkIndent
    state.parentType, state.lineMax = parent, close
    if dedent:
        written = [state.sCount[n] for n in range(start + 1, close) if not state.isEmpty(n)]
        state.blkIndent = max(indent, min(written, default=indent))
    state.md.block.tokenize(state, start + 1, close)
    state.parentType, state.lineMax, state.blkIndent = was, line_max, indent


def callout(
    state: StateBlock, start: int, close: int, kind: str, title: str = "", credit: str = ""
) -> None:
    """The lines between ``start`` and ``close`` as a callout of ``kind`` (the tokens
    ``::: kind title`` makes), titled ``title`` or, without one, by its kind; ``credit``
    (Markdown) a paragraph under those lines."""
    token = state.push("container_callout_open", "div", 1)
    token.info, token.markup, token.map = f"{kind} {title}".strip(), ":::", [start, close + 1]
    inner(state, start, close)
    if credit:
        paragraph(state, credit, close)
    state.push("container_callout_close", "div", -1).markup = ":::"


@contextlib.contextmanager
def quoted(state: StateBlock, start: int, close: int) -> Iterator[None]:
    """A quote of the lines between ``start`` and ``close`` (the tokens ``>`` makes)
    around what the rule pushes inside the ``with``: those lines read as Markdown
    (:func:`inner`, or a rule's own reading), and what it adds (a credit under them)."""
    token = state.push("blockquote_open", "blockquote", 1)
    token.markup, token.map = ">", [start, close + 1]
    yield
    state.push("blockquote_close", "blockquote", -1).markup = ">"


def code(state: StateBlock, start: int, close: int, info: str, markup: str) -> None:
    """The lines between ``start`` and ``close`` as a code block (``info``: its language
    and title). ``markup`` is the tag that opened it: check looks for no closing fence."""
    token = state.push("fence", "code", 0)
    token.info = info
    token.content = state.getLines(start + 1, close, state.sCount[start], True)
    token.markup, token.map = markup, [start, close + 1]


def closing_line(
    state: StateBlock,
    start: int,
    end: int,
    opening: str,
    opens: re.Pattern[str],
    closes: re.Pattern[str],
) -> int | None:
    """The line that closes the block opened on ``start``: the first whole line ``closes``
    matches that no nested opening (a line ``opens`` matches) still waits for; ``opening``
    is what both kinds of line start with. None when there is none before ``end``, or a
    line less indented than the block comes first (the list or quote it sat in ended)."""
    depth = 0
    for line in range(start + 1, end):
        if not state.isEmpty(line) and state.sCount[line] < state.blkIndent:
            return None
        if line_match(state, line, opening, closes):
            if not depth:
                return line
            depth -= 1
        elif line_match(state, line, opening, opens):
            depth += 1
    return None


#: The containers a block left out may leave with nothing in them: a list item (a bullet
#: with nothing after it), then the list it was alone in.
_EMPTIED = frozenset({"list_item_open", "bullet_list_open", "ordered_list_open"})


def emptied(opening: Token, closing: Token) -> bool:
    """Whether ``closing`` closes ``opening`` right after it, a list item or a list with
    nothing left in it: a rule that leaves a block out (a comment, a note, a query) leaves
    out with it the item that held it alone, and a list so left empty, as the tool it
    was written in shows no empty bullet."""
    return opening.type in _EMPTIED and closing.type == opening.type.replace("_open", "_close")


#: The sites whose pages are a video's (an address there is a video, not a page to frame).
VIDEO_HOST = pattern(r"youtube\.com|youtu\.be|vimeo\.com|bilibili\.com")


def raw_media(tag: str, address: str) -> str:
    """A ``<video>`` or ``<iframe>`` of ``address``: the sanitiser shows it as a line linking
    to it on every channel, and check says so, as for one written in HTML."""
    return f'<{tag} src="{html.escape(address, quote=True)}"></{tag}>'


# --- raw pictures ---------------------------------------------------------------------

#: A raw ``<img>`` tag.
IMG_TAG = pattern(r"<img\b[^>]*>", re.IGNORECASE)
#: A raw tag's ``src``: quoted (spaces and all) or not; see :func:`source_of`.
IMG_SOURCE = pattern(r"""\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.IGNORECASE)
#: The attributes a page that loads its pictures as the reader scrolls names them by.
LAZY_SOURCE_NAMES = r"data-(?:src|original|lazy-src|actualsrc)"
#: A source that stands in for the real one until a script swaps it (``about:blank``).
PLACEHOLDER_SOURCE = pattern(r"^\s*(?:about|javascript|blob):", re.IGNORECASE)


def source_of(found: re.Match[str]) -> str:
    """The address an :data:`IMG_SOURCE` match holds, as written (entities and all)."""
    return first_group(found)


#: A raw HTML tag's name (``div``, ``h2``, Evernote's ``en-todo``).
TAG_NAME = r"[A-Za-z][A-Za-z0-9-]*"
#: An attribute's value in quotes, read whole: it may hold ``>`` (``title="a > b"``). Two
#: alternatives, for a group of the pattern that uses it.
QUOTED_VALUE = r""""[^"]*"|'[^']*'"""
#: What a raw opening tag holds between its name and its ``>``, its quoted values read
#: whole: ``<{TAG_NAME}\b{TAG_ATTRIBUTES}>`` is an opening tag.
TAG_ATTRIBUTES = rf"""(?:[^<>"']|{QUOTED_VALUE})*"""

#: One attribute of a raw HTML tag: its name (group 1), its value in one of three groups
#: (HTML quotes it two ways, or not at all). Read attribute by attribute, so that
#: ``data-href`` is not ``href`` and a ``>`` inside a quoted value does not end the tag.
HTML_ATTRIBUTE = r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?"""
_HTML_ATTRIBUTE = pattern(HTML_ATTRIBUTE)


def html_attributes(written: str) -> Iterator[tuple[str, str]]:
    """A raw tag's attributes (``written``: the text after its name) in order, as (name
    in lower case, value as written; ``""`` for one without a value)."""
    for found in _HTML_ATTRIBUTE.finditer(written):
        yield found.group(1).lower(), first_group(found, 1)


def first_group(found: re.Match[str], start: int = 0) -> str:
    """The first of ``found``'s groups from ``start`` on (0-based) that took part in the
    match, ``""`` if none: the value of an attribute that may be written with any of
    several quotes, each quote a group of its own."""
    return next((part for part in found.groups()[start:] if part is not None), "")


def line_at(text: str, at: int) -> int:
    """The 0-based line of ``text`` offset ``at`` stands on (``text.count("\\n", 0, at)``),
    by a binary search over where its line breaks are (:func:`~crosspost.patterns.offsets_of`,
    read once for all the offsets asked about)."""
    return bisect.bisect_left(offsets_of("\n", text), at)


def line_bounds(text: str, at: int) -> tuple[int, int]:
    """Where the line offset ``at`` of ``text`` stands on begins and ends (its line break
    left out), as ``text.rfind("\\n", 0, at) + 1`` and ``text.find("\\n", at)`` (or the
    end) say, without reading the line."""
    breaks = offsets_of("\n", text)
    line = bisect.bisect_left(breaks, at)
    return (breaks[line - 1] + 1 if line else 0), (
        breaks[line] if line < len(breaks) else len(text)
    )


def within(spans: Iterable[tuple[int, int]]) -> Callable[[int], bool]:
    """``inside(at)``: whether offset ``at`` lies in one of ``spans`` (``start <= at <
    end``; they may overlap), in a binary search over their union rather than a look at
    each span for each offset."""
    starts: list[int] = []
    ends: list[int] = []
    for start, end in sorted(spans):
        if ends and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        elif start < end:
            starts.append(start)
            ends.append(end)

    def inside(at: int) -> bool:
        index = bisect.bisect_right(starts, at) - 1
        return index >= 0 and at < ends[index]

    return inside


def in_code_span(text: str, at: int) -> bool:
    """Whether offset ``at`` of ``text`` (Markdown before the block parse) stands in a
    code span of its line: an odd number of backticks before it on the line. A rule that
    rewrites the source leaves an example of the markup, written in backticks, alone."""
    begin, _ = line_bounds(text, at)
    ticks = offsets_of("`", text)
    return (bisect.bisect_left(ticks, at) - bisect.bisect_left(ticks, begin)) % 2 == 1


def copy_token(token: Token) -> Token:
    """A deep copy of ``token`` (children, attributes, meta), several times cheaper than
    :func:`copy.deepcopy`."""
    children = token.children
    return Token(
        type=token.type,
        tag=token.tag,
        nesting=token.nesting,
        attrs=dict(token.attrs),
        map=list(token.map) if token.map is not None else None,
        level=token.level,
        children=[copy_token(child) for child in children] if children is not None else None,
        content=token.content,
        markup=token.markup,
        info=token.info,
        meta=dict(token.meta),
        block=token.block,
        hidden=token.hidden,
    )


def shortened(text: str, width: int = 40) -> str:
    """``text`` as a message quotes it: at most ``width`` characters, "…" for the rest."""
    return text if len(text) <= width else text[: width - 1] + "…"


#: A picture file's ending (``.png``), as a regular expression: every pattern of a
#: picture's file name is built on this one list.
PICTURE_ENDING = r"\.(?:png|jpe?g|gif|webp|svg|bmp|avif)"
#: A picture file's name at the end of an address's path (``…/a.png``).
PICTURE_FILE = pattern(rf"{PICTURE_ENDING}$", re.IGNORECASE)
