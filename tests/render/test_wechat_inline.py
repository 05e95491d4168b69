"""The theme's CSS lands in ``style`` attributes by the cascade's rules, and lean reads
those attributes back declaration by declaration.

The fidelity tests prove it in Chromium for whole articles; these pin the rules on
fragments small enough to read.
"""

from __future__ import annotations

from crosspost.render.wechat import lean
from crosspost.render.wechat.document import _root_section, inline_theme

THEME = """
p { color: red; margin: 0 }
.note { color: blue }
#x { color: green }
p:hover { color: pink }
p:first-child { font-size: 20px }
@media (max-width: 10px) { p { color: gray } }
.strong { color: olive !important }
"""


def colours(page: str, css: str = THEME) -> dict[str, str]:
    """Each paragraph's text → the colour its inlined ``style`` gives it."""
    root = inline_theme(_root_section(page), css)
    found = {}
    for paragraph in root.iter("p"):
        declarations = dict(lean._declarations(paragraph.get("style", "")))
        found[paragraph.text_content()] = declarations.get("color", "")
    return found


def test_the_cascade_orders_specificity_importance_and_the_elements_own_style() -> None:
    page = (
        '<section><p class="note">class</p><p id="x" class="note">id</p>'
        '<p style="color: black">own</p><p class="strong" style="color: black">important</p>'
        "<p>type</p></section>"
    )
    assert colours(page) == {
        "class": "blue",  # a class beats a type selector
        "id": "green",  # an id beats a class
        "own": "black",  # the element's own style beats every rule without !important
        "important": "olive !important",
        "type": "red",  # :hover and @media never apply: WeChat keeps no stylesheet
    }


def test_structural_pseudo_classes_apply_and_the_rest_of_the_markup_is_kept() -> None:
    page = (
        '<section><p data-note="1">a &amp; &lt;b&gt;</p><p>c</p>'
        '<img src="images/图 2.png?a=1&amp;b=2"></section>'
    )
    root = inline_theme(_root_section(page), THEME)
    first, second = root.iter("p")
    assert "font-size: 20px" in first.get("style", "")
    assert "font-size" not in second.get("style", "")
    assert first.get("data-note") == "1" and first.text == "a & <b>"
    image = next(root.iter("img"))
    assert image.get("src") == "images/图 2.png?a=1&b=2", "the source as the issue wrote it"
    assert image.get("width") is None and image.get("style") is None


def test_a_table_gets_the_body_a_browser_gives_it() -> None:
    root = inline_theme(_root_section("<section><table><tr><td>x</td></tr></table></section>"), "")
    assert [element.tag for element in root.iter()] == ["section", "table", "tbody", "tr", "td"]


def test_lean_reads_declarations_in_order_written_short() -> None:
    style = (
        "COLOR: #AABBCC; margin:0  1px;bogus;background:linear-gradient(#ffffff,  #000001) ;"
        'content:"a  b";width:1px !important;/* a note */height:calc( 1px + 2px )'
    )
    assert lean._declarations(style) == (
        ("color", "#ABC"),
        ("margin", "0 1px"),
        ("background", "linear-gradient(#fff, #000001)"),
        ("content", '"a  b"'),  # a string keeps its spaces
        ("width", "1px !important"),
        ("height", "calc( 1px + 2px )"),
    )
