"""Attribute lists after a span, and Pandoc's bracketed spans: what a site reads, not words.

kramdown and Pandoc let a writer put attributes after a link, an image or emphasis
(``[docs](https://…){:target="_blank"}``, ``![](plane.png){#fig-plane width=60%}``), and
Pandoc wraps words in a span to give them a class (``[Small caps]{.smallcaps}``). A site
reads the attributes; CommonMark shows them as the article's words, under a picture or
after a link. Here they are left out (an image's ``width`` and ``height`` kept as its
size), and a bracketed span is its words.

Pandoc writes Markdown wrapped at 72 columns, and so do the converters that newsletter
pages go through (a Medium image's ``{.graf-image\\nwidth="300"}``, a span of
``[27\\nmonths]{.underline}``), so a list or a span may run over lines; a span's words may
hold a link or emphasis too (``[see [here](https://x.y)]{.mark}``). The text is read as
markdown-it left it, its line breaks and links tokens of their own, so this is a core
rule over each inline's children, after inline parsing: nothing is parsed twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.patterns import pattern

#: The words of an attribute list on one line, ``#id .class key=value``: runs of
#: characters with blanks between. Written ``(?:[ \t]*[^\s{}]+)+``, the blanks optional, a
#: run could be cut anywhere, and a line with no closing brace (``## Config: `{"retries":
#: 3, …``) made the search try every cut: a minute for one heading, hours for a longer one.
ATTRIBUTE_WORDS = r"[ \t]*[^\s{}]+(?:[ \t]+[^\s{}]+)*"
#: An attribute list that may run over lines: the same runs, any blank (a line break
#: too) between them. Each run ends at a blank or a brace, so there is one way to cut it
#: (see above).
_WRAPPED_LIST = pattern(r"\{:?((?:\s*[^\s{}]+(?:\s+[^\s{}]+)*)?)\s*\}")
#: The same after a bracketed span, never a bracket in it: the brackets of the text are
#: paired in one pass, and one inside a list would pair with the text's.
_SPAN_LIST = pattern(r"\{:?((?:\s*[^\s{}\[\]]+(?:\s+[^\s{}\[\]]+)*)?)\s*\}")
_ATTRIBUTE = pattern(r"[#.][\w:.-]+|-|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s\"'{}]+)")
#: The parts of an attribute list: quoted values whole, the rest split at blanks.
_ATTRIBUTE_PARTS = pattern(r"(?:\"[^\"]*\"|'[^']*'|[^\s\"'])+")
#: What an attribute list may follow: a link, an image, emphasis, code (kramdown's spans).
_SPANS = frozenset({"link_close", "image", "em_close", "strong_close", "s_close", "code_inline"})
_IMAGE_SIZE = pattern(r"(width|height)=[\"']?(\d+(?:\.\d+)?(?:px|%)?)[\"']?")
#: How many children after the one an attribute list starts in it may run over: two line
#: breaks and their lines. Longer, it is not a wrapped list (and the search stays short).
_WRAPPED_CHILDREN = 4
_BRACKET = pattern(r"[\[\]]")


def attribute_parts(words: str) -> list[str] | None:
    """The parts of an attribute list's ``words`` (``#id``, ``.class``, ``key=value``,
    Pandoc's ``-``), or None when one of them is none of those: ``{not attributes}`` is
    a writer's words in braces, and stays."""
    parts: list[str] = _ATTRIBUTE_PARTS.findall(words)
    return parts if all(_ATTRIBUTE.fullmatch(part) for part in parts) else None


@dataclass(frozen=True)
class _Cut:
    """Characters to leave out of an inline's children: from ``offset`` in the text of
    ``children[index]`` to ``end`` in the text of the run that starts there (see
    :func:`_run`)."""

    index: int
    offset: int
    end: int


def span_attributes(state: StateCore) -> None:
    """Core rule, after inline parsing: Pandoc's bracketed spans are their words, and an
    attribute list right after a link, an image, emphasis or code is left out (see the
    module's docstring); either may run over lines."""
    for token in state.tokens:
        if token.type != "inline" or not token.children or "{" not in token.content:
            continue
        if "]" in token.content:
            token.children = _applied(token.children, _bracketed_spans(token.children))
        token.children = _applied(token.children, _lists_after_spans(token.children))


def _run(children: list[Token], index: int) -> str:
    """The text of ``children[index]`` and of the text and line breaks after it (a line
    break as ``\\n``), up to another kind of child or :data:`_WRAPPED_CHILDREN` more."""
    parts = [children[index].content]
    for child in children[index + 1 : index + 1 + _WRAPPED_CHILDREN]:
        if child.type == "softbreak":
            parts.append("\n")
        elif child.type == "text":
            parts.append(child.content)
        else:
            break
    return "".join(parts)


def _attribute_list(
    run: str, at: int, listed: re.Pattern[str] = _WRAPPED_LIST
) -> tuple[re.Match[str], list[str]] | None:
    """The attribute list that starts at ``run[at]`` and its parts, if it is one."""
    found = listed.match(run, at)
    parts = attribute_parts(found.group(1)) if found else None
    return (found, parts) if found is not None and parts is not None else None


def _bracketed_spans(children: list[Token]) -> list[_Cut]:
    """The brackets and attribute lists of Pandoc's spans in ``children``: each ``]``
    followed by an attribute list of at least one part, with the ``[`` that opens it at
    the same level (not inside a link or emphasis that ends before the ``]``). Brackets
    are paired as they nest, in one pass: ``[a] b]{.x}`` has no span."""
    cuts: list[_Cut] = []
    openers: list[list[tuple[int, int]]] = [[]]  # the unpaired '[' at each level
    runs: dict[int, str] = {}
    for index, child in enumerate(children):
        if child.nesting == 1:
            openers.append([])
        elif child.nesting == -1 and len(openers) > 1:
            openers.pop()
        if child.type != "text" or ("[" not in child.content and "]" not in child.content):
            continue
        for bracket in _BRACKET.finditer(child.content):
            at = bracket.start()
            if bracket.group() == "[":
                openers[-1].append((index, at))
                continue
            if not openers[-1]:
                continue
            opener = openers[-1].pop()
            if not child.content.startswith("{", at + 1):
                continue
            run = runs.setdefault(index, _run(children, index))
            listed = _attribute_list(run, at + 1, _SPAN_LIST)
            if listed is not None and listed[1]:
                cuts += [_Cut(*opener, opener[1] + 1), _Cut(index, at, listed[0].end())]
    return cuts


def _lists_after_spans(children: list[Token]) -> list[_Cut]:
    """The attribute lists written right after a link, an image, emphasis or code (an
    empty one too); an image's ``width`` and ``height`` become its size."""
    cuts: list[_Cut] = []
    for index in range(1, len(children)):
        child, before = children[index], children[index - 1]
        if child.type != "text" or before.type not in _SPANS or not child.content.startswith("{"):
            continue
        listed = _attribute_list(_run(children, index), 0)
        if listed is None:
            continue
        found, parts = listed
        if before.type == "image":
            for part in parts:
                size = _IMAGE_SIZE.fullmatch(part)
                if size:
                    before.attrs[size.group(1)] = size.group(2)
        cuts.append(_Cut(index, 0, found.end()))
    return cuts


def _applied(children: list[Token], cuts: list[_Cut]) -> list[Token]:
    """``children`` with the characters of ``cuts`` left out, and the line breaks and
    texts that leaves nothing of. The last cut is made first, so that none moves the
    characters of another."""
    if not cuts:
        return children
    emptied: set[int] = set()
    for cut in sorted(cuts, key=lambda cut: (cut.index, cut.offset), reverse=True):
        index, start, end = cut.index, cut.offset, cut.end
        while start < end and index < len(children):
            child = children[index]
            text = "\n" if child.type == "softbreak" else child.content
            if child.type == "softbreak":
                emptied.add(index)
            else:
                child.content = text[:start] + text[min(end, len(text)) :]
                if not child.content:
                    emptied.add(index)
            # The rest of the cut, counted from the start of the next child's text.
            index, start, end = index + 1, 0, end - len(text)
    return [child for at, child in enumerate(children) if at not in emptied]
