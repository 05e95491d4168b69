"""Formulas on WeChat: TeX laid out by ziamath as inline SVG that WeChat keeps.

WeChat's editor has no formulas, keeps inline ``<svg>`` but strips ids (so ``<symbol>``
and ``<use>`` glyph sharing would vanish: specs wechat-api.md §8, rules 22–23), and its
dark mode recolours text but not hard-coded fills. So each formula is one ``<svg>`` of
plain ``<path>``/``<rect>`` glyph outlines filled with ``currentColor``, sized in ``em``
so it follows the surrounding text, and dropped below the baseline by its own depth.

The layout is ziamath's (TeX → MathML by latex2mathml, MathML → outlines of the STIX
Two Math font it ships); nothing here typesets. TeX it cannot read, or whose commands
it does not know (mhchem's ``\\ce``), is reported as ``None``: the renderer then shows
the source as code and lint names the line.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any

#: The font size ziamath lays out at; the SVG is then scaled to ``em`` of the text.
LAYOUT_PX = 16.0

#: latex2mathml keeps a command it does not know as an identifier named ``\\name``
#: (``\\ce``, ``\\newcommand``): drawn, it would show the backslash and the name.
_UNKNOWN_COMMAND = re.compile(r"<mi>\\[A-Za-z]")
_SIZE = re.compile(r'\s(width|height)="([\d.]+)"')
_VIEWBOX = re.compile(r'viewBox="([-\d. ]+)"')
_XLINK = re.compile(r'\sxmlns:xlink="[^"]*"')
# "M 1 -2 L 3 4" → "M1-2L3 4": a path's numbers need a separator only where no sign or
# command letter already separates them.
_PATH = re.compile(r'\sd="([^"]*)"')
_AROUND_COMMAND = re.compile(r"\s*([MLQCZHVmlqczhv])\s*")
_BEFORE_MINUS = re.compile(r"\s+-")


def _tight_path(match: re.Match[str]) -> str:
    path = _AROUND_COMMAND.sub(r"\1", match.group(1))
    return f' d="{_BEFORE_MINUS.sub("-", path).strip()}"'


@functools.cache
def _layout() -> tuple[Callable[[str], str], Any]:
    """latex2mathml's ``convert`` and ziamath's ``Latex``, imported at the first formula:
    with its font, ziamath is the slowest import of a render, and most issues have none."""
    from latex2mathml.converter import convert
    from ziafont.config import config as font_config
    from ziamath.zmath import Latex

    # Glyphs as paths, not <symbol>/<use> (WeChat strips the ids those need); coordinates
    # to a tenth of a pixel at 16 px, as fine as a phone screen shows (each formula costs
    # WeChat's HTML budget some 3,000–6,000 characters; two decimals would add a fifth).
    font_config.svg2 = False
    font_config.precision = 1
    return convert, Latex


def _em(px: float) -> str:
    return f"{px / LAYOUT_PX:.3f}".rstrip("0").rstrip(".") + "em"


@functools.lru_cache(maxsize=1024)
def formula_svg(tex: str, *, display: bool) -> str | None:
    """The ``<svg>`` of ``tex``, or ``None`` when ziamath cannot read it.

    Inline formulas sit on the text's baseline (their depth below it becomes a negative
    ``vertical-align``); display formulas are blocks the caller centres.
    """
    convert, Latex = _layout()
    try:
        if _UNKNOWN_COMMAND.search(convert(tex.strip())):
            return None
        svg = Latex(tex.strip(), size=LAYOUT_PX, color="currentColor", inline=not display).svg()
    except Exception:  # latex2mathml and ziamath raise many types for unreadable TeX
        return None
    sizes = dict(_SIZE.findall(svg[: svg.index(">")]))
    box = _VIEWBOX.search(svg)
    if "width" not in sizes or "height" not in sizes or box is None:
        return None
    width, height = float(sizes["width"]), float(sizes["height"])
    top = float(box.group(1).split()[1])
    depth = max(0.0, height + top)  # viewBox starts at -ascent: what is left is below
    style = f"width:{_em(width)};height:{_em(height)}"
    style += ";display:block;margin:0 auto" if display else f";vertical-align:-{_em(depth)}"
    head_end = svg.index(">")
    head = _XLINK.sub("", _SIZE.sub("", svg[:head_end]))
    label = html.escape(" ".join(tex.split()))
    head += f' role="img" aria-label="{label}" style="{style}"'
    return _PATH.sub(_tight_path, head + svg[head_end:])
