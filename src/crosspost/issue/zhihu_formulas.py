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

from urllib.parse import parse_qs

from markdown_it.rules_core import StateCore

from crosspost.issue.formula_pictures import formula_pictures
from crosspost.patterns import pattern

#: The address of a picture of Zhihu's equation service, its query after the ``?``.
_EQUATION = pattern(r"^(?:https?:)?//(?:www\.)?zhihu\.com/equation\?(.+)$")
#: Zhihu's mark of a display formula at the end of its TeX.
_DISPLAY_MARK = "\\\\"


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


def zhihu_formulas(state: StateCore) -> None:
    """Each picture of Zhihu's equation service becomes the formula it shows (see the
    module): inline in its words, display alone or marked so."""
    if "zhihu.com/equation" in state.src:
        formula_pictures(state, formula_of)
