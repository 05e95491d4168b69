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

from crosspost.patterns import pattern

# Glyphs as paths, not <symbol>/<use> (WeChat strips the ids those need); coordinates to
# a tenth of a pixel at 16 px, as fine as a phone screen shows (two decimals would add a
# fifth to every formula). The SVG is then drawn in those tenths (see _in_units): with
# relative path commands a formula costs WeChat's HTML budget about half of what ziamath
# writes (E=mc^2: 2,814 characters as it came, 1,483 now). ziafont is told so in _layout.
_PRECISION = 1
#: Path coordinates are whole multiples of this (ziafont's ``precision`` digits).
_GRID = 10**_PRECISION

#: The font size ziamath lays out at; the SVG is then scaled to ``em`` of the text.
LAYOUT_PX = 16.0

#: latex2mathml keeps a command it does not know as an identifier named ``\\name``
#: (``\\ce``, ``\\newcommand``): drawn, it would show the backslash and the name.
_UNKNOWN_COMMAND = pattern(r"<mi>\\[A-Za-z]")
#: Line breaks that end a formula: Zhihu's writers end each display formula with ``\\\\``
#: (Zhihu centres a formula so marked); TeX breaks to an empty line, which the layout
#: library refuses.
_TRAILING_BREAKS = pattern(r"(?:\s*\\\\)+\s*$")
_SIZE = pattern(r'\s(width|height)="([\d.]+)"')
_VIEWBOX = pattern(r'viewBox="([-\d. ]+)"')
_XLINK = pattern(r'\sxmlns:xlink="[^"]*"')
_PATH = pattern(r'\sd="([^"]*)"')
# ziamath paints glyphs in the colour it is given and a few rules (\\overline) in black;
# the root's fill reaches every shape, so the text's colour and dark mode reach them all.
_FILL = pattern(r'\sfill="(?:currentColor|black)"')
_SELF_CLOSING = pattern(r"\s+/>")
# Drawn in tenths of a pixel (the viewBox scaled to match), a path needs no decimal point:
# ``.3.1`` becomes ``3 1``, ``-.5`` ``-5``, and the whole a fifth shorter.
_ELEMENT = pattern(r"<([A-Za-z][\w:-]*)")
_UNSCALED = pattern(r"\s(?:transform|stroke[\w-]*|r|rx|ry|cx|cy|points)=")
_RECT_NUMBER = pattern(r'\b(x|y|width|height)="(-?[\d.]+)"')

# --- path data in fewer characters ---------------------------------------------------
# ziafont writes absolute commands (``M9.2-3L9.2-3L8.3 0Q0.7-0.5 1-0.6``); the same outline
# reads shorter relative to the pen (``m9.2-3-.9 3q.6 0 .9-.1``): small steps, no leading
# zero, a command letter only when it changes. The coordinates stay on ziafont's grid
# and every point is where it was: only the writing changes, never the glyph.
_TOKEN = pattern(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)")
#: Numbers each absolute command takes; an outline with any other command is kept as is.
_ARITY = {"M": 2, "L": 2, "H": 1, "V": 1, "Q": 4, "T": 2, "C": 6, "S": 4, "Z": 0}


def _number(units: int, whole: bool = False) -> str:
    """Grid units as the shortest SVG number (``-5`` tenths is ``-.5``), or as the whole
    number of units when the drawing is measured in them."""
    if whole:
        return str(units)
    text = f"{abs(units) / _GRID:.{_PRECISION}f}".rstrip("0").rstrip(".")
    text = text[1:] if text.startswith("0.") else text
    return f"-{text}" if units < 0 else text


def _numbers(values: list[int], previous: str, whole: bool = False) -> str:
    """``values`` written after the number ``previous`` ("" after a letter) with only the
    separators needed: a minus sign separates, and so does a second dot (``1.5.3`` is 1.5
    then .3)."""
    out = ""
    for value in values:
        text = _number(value, whole)
        joined = text.startswith("-") or (text.startswith(".") and "." in previous)
        out += text if joined or not previous else f" {text}"
        previous = text
    return out


def _segments(path: str) -> list[tuple[str, list[int]]] | None:
    """Absolute commands and their grid coordinates, or ``None`` for an outline this
    does not read (relative commands, arcs): such a path is written as it came."""
    tokens = _TOKEN.findall(path)
    if "".join(tokens) != re.sub(r"[\s,]+", "", path):
        return None
    found: list[tuple[str, list[int]]] = []
    command, index = "", 0
    while index < len(tokens):
        token = tokens[index]
        if token.isalpha():
            if token not in _ARITY:
                return None
            command, index = token, index + 1
            if command == "Z":
                found.append(("Z", []))
                continue
        elif command in ("", "Z"):
            return None
        arity = _ARITY[command]
        values = tokens[index : index + arity]
        if len(values) < arity or any(value.isalpha() for value in values):
            return None
        found.append((command, [round(float(value) * _GRID) for value in values]))
        index += arity
        command = "L" if command == "M" else command  # pairs after a moveto are linetos
    return found


def compact_path(path: str, whole: bool = False) -> str:
    """The outline ``path`` in as few characters as SVG allows, every point unchanged;
    ``whole``: measured in grid units (tenths of a pixel), so with no decimal points."""
    segments = _segments(path)
    if segments is None:
        return path
    out, letter, number = "", "", ""
    x = y = start_x = start_y = 0
    for command, values in segments:
        if command == "Z":
            out, letter, number, x, y = out + "z", "z", "", start_x, start_y
            continue
        if command == "L" and values == [x, y]:
            continue  # ziafont opens each contour with a line to where the pen is
        if command == "L" and values[0] == x:
            command, values = "V", values[1:]
        elif command == "L" and values[1] == y:
            command, values = "H", values[:1]
        if command == "H":
            relative = [values[0] - x]
        elif command == "V":
            relative = [values[0] - y]
        else:
            relative = [value - (y if i % 2 else x) for i, value in enumerate(values)]
        best = ""
        for name, numbers in ((command, values), (command.lower(), relative)):
            # A repeated letter is implied, and so is a lineto after a moveto.
            implied = (name == letter and name not in "Mm") or (letter, name) in (
                ("M", "L"),
                ("m", "l"),
            )
            previous = number if implied else ""
            written = ("" if implied else name) + _numbers(numbers, previous, whole)
            if not best or len(written) < len(best):
                best, chosen = written, name
        out += best
        letter, number = chosen, _number((values if chosen.isupper() else relative)[-1], whole)
        if command == "H":
            x = values[0]
        elif command == "V":
            y = values[0]
        else:
            x, y = values[-2], values[-1]
        if command == "M":
            start_x, start_y = x, y
    return out


def _in_units(shapes: str) -> str | None:
    """``shapes`` (ziamath's ``<path>`` and ``<rect>`` elements) measured in grid units:
    every coordinate a whole number, ten times what it was, none lost (``None`` when
    ziamath drew anything else, whose numbers this does not know)."""
    if set(_ELEMENT.findall(shapes)) - {"path", "rect", "g"} or _UNSCALED.search(shapes):
        return None
    shapes = _RECT_NUMBER.sub(
        lambda m: f'{m.group(1)}="{round(float(m.group(2)) * _GRID)}"', shapes
    )
    return _PATH.sub(lambda m: f' d="{compact_path(m.group(1), whole=True)}"', shapes)


@functools.cache
def _layout() -> tuple[Callable[[str], str], Any]:
    """latex2mathml's ``convert`` and ziamath's ``Latex``, imported at the first formula:
    with its font, ziamath is the slowest import of a render, and most issues have none."""
    from latex2mathml.converter import convert
    from ziafont.config import config as font_config
    from ziamath.zmath import Latex

    font_config.svg2 = False
    font_config.precision = _PRECISION
    return convert, Latex


def _em(px: float) -> str:
    return f"{px / LAYOUT_PX:.3f}".rstrip("0").rstrip(".") + "em"


#: The longest TeX drawn. ziamath lays out ~3 ms a glyph and its rows take time in the
#: square of their length: a 2,000-character formula (CommonMark's ``$$$$…``) took 4 s,
#: 8,000 took 40. A formula written to be read is a small fraction of this; a longer one
#: is shown as its TeX in code, as unreadable TeX is, and lint says why.
MAX_FORMULA_CHARS = 1_000


#: Operators ziamath does not draw as written: ``\mathop{\arg\min}`` came out empty and
#: ``\operatorname*{argmax}`` with a stray ``*``. Both are ``\operatorname`` to it, with
#: the limits set after (a ``\limits`` on a group is what it refuses).
_OPERATOR = pattern(r"\\mathop(?![A-Za-z])|\\operatorname\*")
_GROUP_LIMITS = pattern(r"(?<=\})\s*\\(?:no)?limits(?![A-Za-z])")
#: An equation's number: ``\tag{6.4}`` (``\tag*{…}`` without brackets).
_TAG = pattern(r"\\tag(\*?)\{([^{}]*)\}")


#: Characters the formula font (STIX Two Math) has no glyph for: Chinese, Japanese and
#: Korean script and their punctuation. Drawn, each was the font's empty box, so
#: ``\text{准确率} = …`` read ``□□□ = …``; such a formula is shown as its TeX instead.
NO_GLYPH = pattern(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


@functools.lru_cache(maxsize=1024)
def formula_svg(tex: str, *, display: bool) -> str | None:
    """The ``<svg>`` of ``tex``, or ``None`` when ziamath cannot read it, it is longer
    than :data:`MAX_FORMULA_CHARS`, or it holds characters the font cannot draw
    (:data:`NO_GLYPH`).

    Inline formulas sit on the text's baseline (their depth below it becomes a negative
    ``vertical-align``); display formulas are blocks the caller centres.
    """
    tex = written = _TRAILING_BREAKS.sub("", tex).strip()
    if len(tex) > MAX_FORMULA_CHARS or NO_GLYPH.search(tex):
        return None
    if "\\mathop" in tex or "\\operatorname*" in tex:
        tex = _GROUP_LIMITS.sub("", _OPERATOR.sub(r"\\operatorname", tex))
    tag = _TAG.search(tex)
    if tag is not None:
        # The number is drawn a wide space after the formula, upright and in brackets as
        # \tag shows it. ziamath draws its own \tag at the right of a 600-pixel line:
        # past a phone's 375 pixels, the number was off the screen. MathJax and KaTeX
        # take a tag anywhere (books write it first: '\tag{6.4} \gamma = …').
        starred, number = tag.groups()
        number = number if starred else f"({number})"
        tex = f"{tex[: tag.start()]} {tex[tag.end() :]}".strip()
        tex = f"{tex} \\qquad \\mathrm{{{number}}}"
    convert, Latex = _layout()
    try:
        if _UNKNOWN_COMMAND.search(convert(tex)):
            return None
        svg = Latex(tex, size=LAYOUT_PX, color="currentColor", inline=not display).svg()
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
    # A display formula wider than the column scrolls in its box at the text's size:
    # WeChat's page gives every element max-width:100%, which squeezed a long one to a
    # line of glyphs a few pixels tall. A least width beats a greatest one.
    shown = f";min-width:{_em(width)};display:block;margin:0 auto"
    style += shown if display else f";vertical-align:-{_em(depth)}"
    head_end = svg.index(">")
    head = _XLINK.sub("", _SIZE.sub("", svg[:head_end]))
    label = html.escape(" ".join(written.split()))  # what the writer wrote, for a reader
    head += f' fill="currentColor" role="img" aria-label="{label}" style="{style}"'
    shapes = _SELF_CLOSING.sub("/>", _FILL.sub("", svg[head_end:]))
    in_units = _in_units(shapes)
    if in_units is None:
        return head + _PATH.sub(lambda m: f' d="{compact_path(m.group(1))}"', shapes)
    view = " ".join(str(round(float(n) * _GRID)) for n in box.group(1).split())
    return _VIEWBOX.sub(f'viewBox="{view}"', head) + in_units
