"""Formulas cost WeChat's size budget as little as their outlines allow, every point kept.

ziafont writes each glyph as absolute commands; :func:`compact_path` writes the same
outline relative to the pen. These tests read both back with a parser of their own and
require the same points in the same order (Chromium compares the pictures in
``tests/fidelity/test_formula_pixels.py``).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ziamath.zmath import Latex

from crosspost.render.wechat.math import LAYOUT_PX, compact_path, formula_svg

FORMULAS = (
    "E=mc^2",
    "a^2+b^2=c^2",
    r"\frac{-b\pm\sqrt{b^2-4ac}}{2a}",
    r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}",
    r"\begin{pmatrix}1&2\\3&4\end{pmatrix}\overline{x}",
    r"\int_0^\infty e^{-x^2}\,dx=\frac{\sqrt{\pi}}{2}",
    r"\underbrace{a+b}_{2}",  # grouped in a <g>
    r"\boxed{x}+\cancel{y}",  # stroked: drawn in decimals, as ziamath measures it
)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)")
_ARITY = {"m": 2, "l": 2, "h": 1, "v": 1, "q": 4, "t": 2, "c": 6, "s": 4, "z": 0}


def points(path: str) -> list[tuple[str, tuple[float, ...]]]:
    """Every command of ``path`` as an absolute one with its points (an independent reader:
    relative steps added up, H/V as lines, zero-length lines left out)."""
    out: list[tuple[str, tuple[float, ...]]] = []
    x = y = start_x = start_y = 0.0
    for letter, body in re.findall(r"([A-Za-z])([^A-Za-z]*)", path):
        kind, relative = letter.lower(), letter.islower()
        numbers = [float(n) for n in _NUMBER.findall(body)]
        if kind == "z":
            out.append(("z", ()))
            x, y = start_x, start_y
            continue
        arity = _ARITY[kind]
        for at in range(0, len(numbers), arity):
            values = numbers[at : at + arity]
            if kind == "h":
                values = [values[0] + (x if relative else 0), y]
            elif kind == "v":
                values = [x, values[0] + (y if relative else 0)]
            elif relative:
                values = [v + (y if i % 2 else x) for i, v in enumerate(values)]
            command = "l" if kind in "hv" or (kind == "m" and at) else kind
            absolute = tuple(round(v, 6) for v in values)
            if not (command == "l" and absolute == (round(x, 6), round(y, 6))):
                out.append((command, absolute))
            x, y = values[-2], values[-1]
            if command == "m":
                start_x, start_y = x, y
    return out


@pytest.fixture(autouse=True)
def ziamath_set_as_the_renderer_sets_it() -> None:
    """The renderer configures ziafont (paths, tenths of a pixel) at its first formula;
    these tests read ziamath's own output beside ours, so that first formula comes first,
    whatever ran before in this process."""
    formula_svg("x", display=False)


def raw_paths(tex: str) -> list[str]:
    svg = Latex(tex, size=LAYOUT_PX, color="currentColor").svg()
    return re.findall(r'\sd="([^"]*)"', svg)


def in_pixels(found: list[tuple[str, tuple[float, ...]]]) -> list[tuple[str, tuple[float, ...]]]:
    """Points read from a path drawn in tenths of a pixel, in pixels again."""
    return [(command, tuple(round(v / 10, 6) for v in values)) for command, values in found]


def test_every_glyph_keeps_every_point_and_the_formula_shrinks_by_half() -> None:
    before = decimal = whole = 0
    for tex in FORMULAS:
        for path in raw_paths(tex):
            compact, in_units = compact_path(path), compact_path(path, whole=True)
            assert points(compact) == points(path), (tex, path, compact)
            assert in_pixels(points(in_units)) == points(path), (tex, path, in_units)
            assert "." not in in_units
            before, decimal, whole = (
                before + len(path),
                decimal + len(compact),
                whole + len(in_units),
            )
    assert decimal < 0.7 * before and whole < 0.85 * decimal, (before, decimal, whole)


def test_a_formula_is_drawn_in_tenths_of_a_pixel_and_keeps_its_size() -> None:
    svg = formula_svg(r"\frac{a}{b}", display=True)
    raw = Latex(r"\frac{a}{b}", size=LAYOUT_PX, color="currentColor", inline=False).svg()
    assert svg is not None
    ours, theirs = (re.search(r'viewBox="([^"]*)"', s) for s in (svg, raw))
    assert ours and theirs
    assert [float(n) / 10 for n in ours.group(1).split()] == [
        float(n) for n in theirs.group(1).split()
    ]
    rects = re.findall(r"<rect[^>]*>", svg)
    assert rects and all("." not in rect for rect in rects), rects


_COORDINATE = st.integers(min_value=-400, max_value=400).map(lambda n: n / 10)


@st.composite
def outlines(draw: st.DrawFn) -> str:
    """Absolute outlines as ziafont writes them: contours of lines and curves on its grid."""
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        parts.append("M{} {}".format(*draw(st.tuples(_COORDINATE, _COORDINATE))))
        for _ in range(draw(st.integers(0, 6))):
            command = draw(st.sampled_from("LQCHV"))
            arity = {"L": 2, "Q": 4, "C": 6, "H": 1, "V": 1}[command]
            values = draw(st.lists(_COORDINATE, min_size=arity, max_size=arity))
            parts.append(command + " ".join(f"{v:g}" for v in values))
        if draw(st.booleans()):
            parts.append("Z")
    return " ".join(parts)


@given(outlines())
def test_any_outline_on_the_grid_is_written_with_the_same_points(path: str) -> None:
    assert points(compact_path(path)) == points(path)
    assert in_pixels(points(compact_path(path, whole=True))) == points(path)


def test_an_outline_it_does_not_read_is_kept_as_written() -> None:
    for path in ("M0 0A5 5 0 0 1 10 10", "m1 1l2 2", "L1 1", "M1", "M1 1 nonsense"):
        assert compact_path(path) == path


def test_every_shape_takes_the_text_colour_from_the_root_even_ziamaths_black_rules() -> None:
    svg = formula_svg(r"\overline{x}+\frac{a}{b}", display=True)
    assert svg is not None
    head, shapes = svg.split(">", 1)
    assert 'fill="currentColor"' in head
    assert "fill=" not in shapes and " />" not in shapes
    assert shapes.count("<rect") >= 2
