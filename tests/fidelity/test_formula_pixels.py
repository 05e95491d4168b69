"""A formula's shorter SVG draws the same picture as ziamath's own, at 1× and 3×.

:func:`crosspost.render.wechat.math.formula_svg` rewrites ziamath's outlines (relative
commands, one fill on the root); Chromium paints both versions side by side, in black on
white at the size WeChat shows them, on a plain screen and a phone's 3× one, and the
pictures must agree pixel for pixel up to anti-aliasing.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

import pytest
from PIL import Image, ImageChops
from ziamath.zmath import Latex

from crosspost.render.wechat.math import LAYOUT_PX, formula_svg
from render.test_wechat_math import FORMULAS

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

_SIZE = re.compile(r'\s(?:width|height)="[^"]*"')


def as_ziamath_draws_it(tex: str, style: str) -> str:
    """ziamath's SVG of ``tex`` as it comes, sized like the compact one."""
    svg = Latex(tex, size=LAYOUT_PX, color="currentColor", inline=False).svg()
    head_end = svg.index(">")
    return f'{_SIZE.sub("", svg[:head_end])} style="{style}"{svg[head_end:]}'


def picture(browser: Browser, svg: str, scale: int) -> Image.Image:
    page = browser.new_page(viewport={"width": 375, "height": 300}, device_scale_factor=scale)
    try:
        page.set_content(
            '<!DOCTYPE html><html><body style="margin:0;background:#fff;color:#000;'
            f'font-size:16px"><div style="padding:8px;display:inline-block">{svg}</div>'
            "</body></html>"
        )
        shot = page.locator("div").screenshot()
        return Image.open(io.BytesIO(shot)).convert("L")
    finally:
        page.close()


@pytest.mark.parametrize("scale", [1, 3])
@pytest.mark.parametrize("tex", FORMULAS)
def test_the_compact_formula_looks_like_ziamaths(browser: Browser, tex: str, scale: int) -> None:
    compact = formula_svg(tex, display=True)
    assert compact is not None
    style = re.search(r'style="([^"]*)"', compact)
    assert style is not None
    before = picture(browser, as_ziamath_draws_it(tex, style.group(1)), scale)
    after = picture(browser, compact, scale)
    assert before.size == after.size
    difference = ImageChops.difference(before, after)
    changed = sum(difference.histogram()[33:])  # grey levels apart by more than an eighth
    ink = sum(before.histogram()[:128])
    assert ink > 20 * scale, "ziamath's formula was not painted"
    assert changed <= 0.005 * before.size[0] * before.size[1], (tex, scale, changed)
