"""Formulas in a Zhihu article converted to Markdown.

Zhihu draws each formula as a picture of its equation service, the TeX in the address:
``https://www.zhihu.com/equation?tex=PE_%7B%28pos%2C2i%29%7D+%3D+…``. Converters of its
articles write that picture as it is: ``![[公式]](https://www.zhihu.com/equation?tex=…)``,
or the raw ``<img src="…/equation?tex=i" alt="i" eeimg="1">`` of the page. Read as a
picture, check could not download it and WeChat showed a broken picture; the TeX is
there, so the formula is the formula (drawn on WeChat, Zhihu's own equation on Zhihu),
as :mod:`crosspost.issue.yuque` reads Yuque's.

Zhihu marks a display formula with a ``\\\\`` at the end of its TeX (its editor adds it)
and puts it in a paragraph of its own: either makes it a display formula here, the
``\\\\`` left out; any other is inline.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qs

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import IMG_SOURCE, IMG_TAG, source_of
from crosspost.patterns import pattern

#: The address of a picture of Zhihu's equation service, its query after the ``?``.
_EQUATION = pattern(r"^(?:https?:)?//(?:www\.)?zhihu\.com/equation\?(.+)$")
#: Zhihu's mark of a display formula at the end of its TeX.
_DISPLAY_MARK = "\\\\"
#: Children of a paragraph that a reader does not see: blanks and line breaks.
_BLANK = frozenset({"softbreak", "hardbreak"})


def formula_of(source: str) -> tuple[str, bool] | None:
    """(TeX, whether Zhihu marked it display) of an equation picture at ``source``, or
    None when ``source`` is no picture of Zhihu's equations. ``+`` is a blank in its
    query, as in any form's."""
    found = _EQUATION.match(source.strip())
    if found is None:
        return None
    tex = parse_qs(found.group(1), keep_blank_values=True).get("tex", [""])[0].strip()
    display = tex.endswith(_DISPLAY_MARK)
    if display:
        tex = tex[: -len(_DISPLAY_MARK)].rstrip()
    return (tex, display) if tex else None


def _tag_formula(tag: str) -> tuple[str, bool] | None:
    """The formula of a raw ``<img>`` tag of Zhihu's equations, or None."""
    if not IMG_TAG.fullmatch(tag.strip()):
        return None
    source = IMG_SOURCE.search(tag)
    return formula_of(html.unescape(source_of(source))) if source else None


def _child_formula(child: Token) -> tuple[str, bool] | None:
    if child.type == "image":
        return formula_of(str(child.attrGet("src") or ""))
    if child.type == "html_inline" and child.content[:4].lower() == "<img":
        return _tag_formula(child.content)
    return None


def _blank(child: Token) -> bool:
    return child.type in _BLANK or (child.type == "text" and not child.content.strip())


def _display(tex: str, like: Token) -> Token:
    """A display formula in the place of the block ``like`` begins."""
    token = Token("math_block", "math", 0, content=tex, markup="$$", level=like.level)
    token.map, token.block = like.map, True
    return token


def _paragraph(children: list[Token], opening: Token, inline: Token) -> list[Token]:
    """A paragraph of ``children`` shaped as ``opening``'s (none when they are blank)."""
    while children and _blank(children[0]):
        children = children[1:]
    while children and _blank(children[-1]):
        children = children[:-1]
    if not children:
        return []
    # The blank that stood between the words and the formula ends the line: left out.
    if children[0].type == "text":
        children[0].content = children[0].content.lstrip()
    if children[-1].type == "text":
        children[-1].content = children[-1].content.rstrip()
    words = Token("inline", "", 0, content=inline.content, level=inline.level)
    words.map, words.block, words.children = inline.map, True, children
    closing = Token("paragraph_close", "p", -1, level=opening.level)
    closing.block, closing.hidden = True, opening.hidden
    started = Token("paragraph_open", "p", 1, level=opening.level)
    started.map, started.block, started.hidden = opening.map, True, opening.hidden
    return [started, words, closing]


def _read(inline: Token) -> list[tuple[int, str, bool]]:
    """Each formula picture among ``inline``'s children: (index, TeX, display), the
    inline ones already made formulas."""
    found = []
    for index, child in enumerate(inline.children or ()):
        formula = _child_formula(child)
        if formula is None:
            continue
        tex, display = formula
        found.append((index, tex, display))
        (inline.children or [])[index] = Token(
            "math_inline", "math", 0, content=tex, markup="$", level=child.level
        )
    return found


def _paragraph_formulas(tokens: list[Token], at: int) -> list[Token] | None:
    """What the paragraph opened at ``at`` becomes when it holds a formula picture (its
    open, inline and close tokens' replacement), or None when it holds none."""
    opening, inline = tokens[at], tokens[at + 1]
    found = _read(inline)
    if not found:
        return None
    children = inline.children or []
    alone = len(found) == 1 and all(_blank(c) for i, c in enumerate(children) if i != found[0][0])
    displays = [(index, tex) for index, tex, display in found if display or alone]
    if not displays:
        return None  # inline formulas only: the paragraph stays, its pictures read
    replaced: list[Token] = []
    done = 0
    for index, tex in displays:  # the words between display formulas stay paragraphs
        replaced += _paragraph(children[done:index], opening, inline)
        replaced.append(_display(tex, opening))
        done = index + 1
    return replaced + _paragraph(children[done:], opening, inline)


def zhihu_formulas(state: StateCore) -> None:
    """Each picture of Zhihu's equation service becomes the formula it shows (see the
    module): inline in its words, display alone or marked so."""
    if "zhihu.com/equation" not in state.src:
        return
    tokens: list[Token] = []
    index = 0
    source = state.tokens
    while index < len(source):
        token = source[index]
        if token.type == "html_block" and "<img" in token.content.lower():
            formula = _tag_formula(token.content)
            if formula is not None:
                tokens.append(_display(formula[0], token))
                index += 1
                continue
        if token.type == "paragraph_open" and index + 2 < len(source):
            replaced = _paragraph_formulas(source, index)
            if replaced is not None:
                tokens += replaced
                index += 3
                continue
        elif token.type == "inline" and token.children:
            _read(token)  # a heading's or a table cell's: inline, as in any words
        tokens.append(token)
        index += 1
    state.tokens = tokens
