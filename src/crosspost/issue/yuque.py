"""Formulas in a Yuque (语雀) export.

Yuque exports a formula as a picture of it: an SVG on its CDN
(``https://cdn.nlark.com/yuque/__latex/<hash>.svg``, or a self-hosted Yuque's
``…/yuque/__latex/…``) whose address carries the TeX after ``#card=math&code=``,
percent-encoded. Read as a picture, it was an SVG that WeChat refuses and check called an
error, with advice (export it as PNG) the editor could not follow. The TeX is there, so
the formula is the formula: drawn on WeChat, Zhihu's own equation on Zhihu. One alone in
its paragraph is a display formula, as Yuque's block formula card is; one among words
is inline (:mod:`crosspost.issue.formula_pictures`).

An export without the ``code`` (older ones carry only the SVG's address) stays a picture.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from markdown_it.rules_core import StateCore

from crosspost.issue.formula_pictures import formula_pictures
from crosspost.patterns import pattern

#: A formula's picture: the ``__latex`` folder of a Yuque host, then its fragment.
_FORMULA_PICTURE = pattern(r"^https?://[^\s#]*/yuque/__latex/[0-9a-fA-F]+\.svg#(.+)$")


def formula_of(source: str) -> str | None:
    """The TeX a Yuque formula picture at ``source`` was drawn from, or None."""
    found = _FORMULA_PICTURE.match(source)
    if found is None:
        return None
    fields = parse_qs(found.group(1), keep_blank_values=True)
    if fields.get("card") != ["math"]:
        return None
    tex = " ".join(fields.get("code", [""])[0].split())
    return tex or None


def _formula(source: str) -> tuple[str, bool] | None:
    """A Yuque formula picture as :mod:`~crosspost.issue.formula_pictures` reads it:
    Yuque marks no formula display in its address (where it stands does)."""
    tex = formula_of(source)
    return None if tex is None else (tex, False)


def yuque_formulas(state: StateCore) -> None:
    """Each Yuque formula picture becomes the formula it shows (see the module)."""
    if "/__latex/" in state.src:
        formula_pictures(state, _formula)
