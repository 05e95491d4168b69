"""Pictures of formulas read as the formulas: where a picture's address carries its TeX.

Editors that draw a formula as a picture keep its TeX in the picture's address: Yuque's
``…/yuque/__latex/….svg#card=math&code=…`` (:mod:`crosspost.issue.yuque`), Zhihu's
``https://www.zhihu.com/equation?tex=…`` (:mod:`crosspost.issue.zhihu_formulas`). Each
tool says here how to read one address (:data:`FormulaOf`); what is read is the same for
both: a picture among words is an inline formula, one alone in its paragraph (or in a
raw ``<img>`` block of its own, or marked so by its tool) a display formula, as the
editor showed it.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import IMG_SOURCE, IMG_TAG, source_of

#: How one tool reads a picture's address: (TeX, whether the tool marked it a display
#: formula), or None when the address is no picture of a formula of that tool's.
FormulaOf = Callable[[str], "tuple[str, bool] | None"]
#: Children of a paragraph that a reader does not see: blanks and line breaks.
_BLANK = frozenset({"softbreak", "hardbreak"})


def formula_pictures(state: StateCore, formula_of: FormulaOf) -> None:
    """Each picture ``formula_of`` reads becomes the formula it shows (see the module):
    inline in its words, display alone in its paragraph or marked so."""
    tokens: list[Token] = []
    index = 0
    source = state.tokens
    while index < len(source):
        token = source[index]
        if token.type == "html_block" and "<img" in token.content.lower():
            formula = _tag_formula(token.content, formula_of)
            if formula is not None:
                tokens.append(_display(formula[0], token))
                index += 1
                continue
        if token.type == "paragraph_open" and index + 2 < len(source):
            replaced = _paragraph_formulas(source, index, formula_of)
            if replaced is not None:
                tokens += replaced
                index += 3
                continue
        elif token.type == "inline" and token.children:
            _read(token, formula_of)  # a heading's or a table cell's: inline, as in any words
        tokens.append(token)
        index += 1
    state.tokens = tokens


def _tag_formula(tag: str, formula_of: FormulaOf) -> tuple[str, bool] | None:
    """The formula of a raw ``<img>`` tag of a formula picture, or None."""
    if not IMG_TAG.fullmatch(tag.strip()):
        return None
    source = IMG_SOURCE.search(tag)
    return formula_of(html.unescape(source_of(source))) if source else None


def _child_formula(child: Token, formula_of: FormulaOf) -> tuple[str, bool] | None:
    if child.type == "image":
        return formula_of(str(child.attrGet("src") or ""))
    if child.type == "html_inline" and child.content[:4].lower() == "<img":
        return _tag_formula(child.content, formula_of)
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


def _read(inline: Token, formula_of: FormulaOf) -> list[tuple[int, str, bool]]:
    """Each formula picture among ``inline``'s children: (index, TeX, display), the
    inline ones already made formulas."""
    found = []
    for index, child in enumerate(inline.children or ()):
        formula = _child_formula(child, formula_of)
        if formula is None:
            continue
        tex, display = formula
        found.append((index, tex, display))
        (inline.children or [])[index] = Token(
            "math_inline", "math", 0, content=tex, markup="$", level=child.level
        )
    return found


def _paragraph_formulas(tokens: list[Token], at: int, formula_of: FormulaOf) -> list[Token] | None:
    """What the paragraph opened at ``at`` becomes when it holds a formula picture (its
    open, inline and close tokens' replacement), or None when it holds none."""
    opening, inline = tokens[at], tokens[at + 1]
    found = _read(inline, formula_of)
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
