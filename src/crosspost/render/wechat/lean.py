"""Lean inline styles: every declaration where it changes something, and only once.

The inliner writes each matching rule onto each element, so a theme's ``p { color }`` lands
on every paragraph although the article root already sets that colour, and ``strong {
font-weight: bold }`` repeats what the browser does anyway. WeChat counts every character
of the HTML, so after inlining this pass walks the tree with the cascade in mind:

1. a declaration equal to what the element would have without it (its parent's value for
   an inherited property, the browser's default for the element otherwise) is dropped;
2. margin and padding longhands fold into their shorthand, and values lose the bytes CSS
   does not need (``0.5`` is ``.5``, no space after a comma, ``bold`` is ``700``, an
   ``auto`` side margin of a block that fills its container is ``0``);
3. a border drawn in the element's own ``color`` leaves its colour out, since a border's
   colour is ``currentColor`` unless told otherwise (``color:#0f4c81;border-bottom:2px
   solid``). Only a ``color`` on the element itself counts: an inline declaration beats
   any stylesheet WeChat's page may have, an inherited colour might not.

Nothing the browser computes changes, on any element, with one exception that changes no
pixel: a table cell's ``word-break`` is left out where its text has no word to break, or
where the cell is kept on one line.
WeChat's page breaks cells ``break-all``, which differs from ``normal`` only inside runs of
letters and digits; Chinese and Japanese text breaks between any two characters either
way, so a cell of it lays out the same (``tests/fidelity`` lays both out under the page's
rules). In a table of Chinese cells that is a third of the table's HTML.

Values relative to the element
(``em``, ``%``) are never compared, and an element whose defaults are not all known keeps
every declaration. Values are not moved up to a parent here, as that would change the
parent's own computed style; a theme sets an inherited value once on the container
instead (``.reference-list``). The fidelity tests compare Chromium's computed styles
before inlining and after this pass.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import lxml.html
import tinycss2

from crosspost.issue.dialect import is_cjk
from crosspost.patterns import pattern

Style = dict[str, str]

#: Inherited properties this pass may leave out (CSS 2.1 and CSS Text). ``list-style-type``
#: is not among them: a list in a list changes its marker by itself.
INHERITED = frozenset(
    {
        "color", "font-family", "font-size", "font-style", "font-weight", "font-variant",
        "line-height", "letter-spacing", "word-spacing", "text-align", "text-indent",
        "text-transform", "white-space", "word-break", "overflow-wrap", "word-wrap",
        "visibility",
    }
)  # fmt: skip

#: A default no declaration is ever taken to equal.
UNKNOWN = "-unknown"
#: Chromium's own stylesheet (html.css) for inherited properties, per element. An element
#: listed here starts from these values instead of its parent's. Bold ``<strong>`` and
#: italic ``<em>`` are what WeChat's own editor writes, so those defaults are relied on.
_CHROMIUM: dict[str, Style] = {
    "strong": {"font-weight": "bolder"},
    "b": {"font-weight": "bolder"},
    **{tag: {"font-style": "italic"} for tag in ("em", "i", "cite", "var", "dfn", "address")},
    # A monospace element's size follows the browser's monospace setting, not its parent.
    **{
        tag: {"font-family": "monospace", "font-size": "-internal-monospace"}
        for tag in ("code", "kbd", "samp", "tt")
    },
    "pre": {"font-family": "monospace", "font-size": "-internal-monospace", "white-space": "pre"},
    "a": {"color": "-webkit-link"},
    "mark": {"color": "black"},
    "hr": {"color": "gray"},
    "sup": {"font-size": "smaller"},
    "sub": {"font-size": "smaller"},
    "small": {"font-size": "smaller"},
    "big": {"font-size": "larger"},
    "center": {"text-align": "center"},
    "caption": {"text-align": "center"},
    "table": {"text-indent": "initial"},
}
#: What WeChat's article page may set for an element over the browser's defaults. Its
#: stylesheet is not published (community copies show its editor's ``td, th { word-break:
#: break-all }`` and headings set to normal weight), so each is :data:`UNKNOWN`: no
#: declaration is taken to equal it, and the theme's stays.
_WECHAT_PAGE: dict[str, Style] = {
    **{f"h{n}": {"font-weight": UNKNOWN, "font-size": UNKNOWN} for n in range(1, 7)},
    "th": {"font-weight": UNKNOWN, "text-align": UNKNOWN, "word-break": UNKNOWN},
    "td": {"word-break": UNKNOWN},
}
#: Where an element starts: Chromium's defaults, WeChat's page over them.
_UA: dict[str, Style] = {
    tag: {**_CHROMIUM.get(tag, {}), **_WECHAT_PAGE.get(tag, {})}
    for tag in (*_CHROMIUM, *_WECHAT_PAGE)
}
#: Elements whose defaults are all known: the UA table above, else their parent's values.
#: Anything else (form controls, raw HTML oddities) keeps every declaration it has.
_KNOWN = frozenset(_UA) | frozenset(
    {
        "section", "div", "p", "span", "li", "ul", "ol", "blockquote", "figure",
        "figcaption", "thead", "tbody", "tfoot", "tr", "td", "img", "br", "s", "del", "u",
        "ins", "details", "summary", "dl", "dt", "dd", "header", "footer", "article",
    }
)  # fmt: skip

_BLOCK = frozenset(
    {
        "section", "div", "p", "ul", "ol", "li", "blockquote", "pre", "table", "figure",
        "figcaption", "hr", "details", "summary", "dl", "dt", "dd", "header", "footer",
        "article", "h1", "h2", "h3", "h4", "h5", "h6",
    }
)  # fmt: skip
_INLINE = frozenset({"span", "a", "strong", "b", "em", "i", "code", "s", "del", "sup", "sub"})
#: Tags the browser (or a page's reset) may give a margin, padding or border: their box
#: declarations always stay, ``0`` and the browser's own ``1em 0`` on a paragraph alike.
_UA_BOX = frozenset(
    {
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "figure", "ul", "ol", "dl",
        "dd", "pre", "hr", "menu", "td", "th", "table", "fieldset", "legend", "body",
        "iframe", "input", "button", "select", "textarea",
    }
)  # fmt: skip
_BOX = pattern(r"^(?:margin|padding|border)(?:-(?:top|right|bottom|left))?$")
#: Non-inherited properties at their initial value, on any element without a UA value.
_INITIAL: dict[str, frozenset[str]] = {
    "background": frozenset({"none", "transparent"}),
    "background-color": frozenset({"transparent"}),
    "text-decoration": frozenset({"none"}),
    "max-width": frozenset({"none"}),
}
_DECORATED = frozenset({"a", "s", "del", "strike", "u", "ins"})
_RELATIVE = pattern(
    r"(?:\d(?:em|ex|ch|lh|%)|\b(?:smaller|larger|bolder|lighter|inherit|initial|unset|revert"
    r"|currentcolor|var|calc)\b)",
    re.I,
)
_SIDES = ("top", "right", "bottom", "left")
_WEIGHTS = {"normal": 400, "bold": 700}
_PAIRED_HEX = pattern(r"^([0-9a-fA-F])\1([0-9a-fA-F])\2([0-9a-fA-F])\3$")


@functools.lru_cache(maxsize=4096)
def _declarations(style: str) -> tuple[tuple[str, str], ...]:
    """A ``style`` attribute's declarations in order, as (lower-case name, value); a value
    keeps ``!important``, and what does not parse as a declaration is skipped, as a
    browser skips it. Each value is written short (see :func:`_compact`).

    Kept per attribute text: the inliner writes the same few styles on element after
    element (every paragraph's), and parsing is most of this pass's time."""
    pairs = []
    for item in tinycss2.parse_declaration_list(style, skip_comments=True, skip_whitespace=True):
        if item.type == "declaration":
            value = tinycss2.serialize(_compact(item.value)).strip()
            pairs.append((item.lower_name, value + " !important" if item.important else value))
    return tuple(pairs)


def _compact(tokens: list[Any]) -> list[Any]:
    """``tokens`` with every run of whitespace one space and each colour ``#aabbcc`` as
    ``#abc``, inside functions too (``linear-gradient(…)``): the same value, fewer bytes."""
    for token in tokens:
        if token.type == "whitespace":
            token.value = " "
        elif token.type == "hash" and _PAIRED_HEX.match(token.value):
            token.value = token.value[::2]
        elif token.type == "function":
            _compact(token.arguments)
        elif token.type in ("() block", "[] block"):
            _compact(token.content)
    return tokens


def _parse(style: str) -> Style:
    """Declarations in order, the last of each property winning; longhands folded into
    their shorthand (``margin:1em 0;margin-left:2em`` is ``margin:1em 0 1em 2em``)."""
    out: Style = {}
    for name, value in _declarations(style):
        out.pop(name, None)
        out[name] = value.replace('"', "'")
        for box in ("margin", "padding"):
            if name.startswith(box + "-") and box in out and name[len(box) + 1 :] in _SIDES:
                sides = _four(out[box])
                if sides is not None and not any("!" in v for v in sides):
                    sides[_SIDES.index(name[len(box) + 1 :])] = out.pop(name)
                    out[box] = " ".join(sides)
    for box in ("margin", "padding"):
        if box not in out and all(f"{box}-{side}" in out for side in _SIDES):
            out[box] = " ".join(out.pop(f"{box}-{side}") for side in _SIDES)
    return out


def _four(value: str) -> list[str] | None:
    """A margin or padding shorthand as four values (top, right, bottom, left)."""
    parts = value.split()
    if not 1 <= len(parts) <= 4 or "(" in value:
        return None
    top, right, bottom, left = (parts * 4)[:4] if len(parts) == 1 else [None] * 4
    if len(parts) == 2:
        top, right, bottom, left = parts[0], parts[1], parts[0], parts[1]
    elif len(parts) == 3:
        top, right, bottom, left = parts[0], parts[1], parts[2], parts[1]
    elif len(parts) == 4:
        top, right, bottom, left = parts
    return [str(top), str(right), str(bottom), str(left)]


def _short_box(value: str) -> str:
    """The fewest values a margin or padding shorthand needs."""
    sides = _four(value)
    if sides is None:
        return value
    top, right, bottom, left = sides
    if right == left:
        if top == bottom:
            return top if top == right else f"{top} {right}"
        return f"{top} {right} {bottom}"
    return value


_LEADING_ZERO = pattern(r"(?<![\w.#-])0\.(\d)")
_COMMA = pattern(r",\s+")
_BORDER = pattern(r"^border(?:-(?:top|right|bottom|left))?$")


def _minify(name: str, value: str) -> str:
    """The same value in fewer characters (strings in quotes and URLs are left alone)."""
    if "url(" in value.lower():
        return value
    # Font names are quoted whole, so their commas sit between names, never inside one.
    if ("'" not in value and '"' not in value) or name == "font-family":
        value = _COMMA.sub(",", value)
    value = _LEADING_ZERO.sub(r".\1", value)
    if name in ("margin", "padding"):
        value = _short_box(value)
    if name == "font-weight":
        value = str(_WEIGHTS.get(value.strip().lower(), value))
    return value


def _auto_margins(element: lxml.html.HtmlElement, name: str, value: str, style: Style) -> str:
    """``auto`` side margins as ``0`` on a block whose width fills its container (no width
    of its own, and not a table or an image, which shrink to fit): there ``auto`` is
    computed as 0, and it is three characters longer."""
    if name != "margin" or "auto" not in value or element.tag not in _BLOCK - {"table"}:
        return value
    sizing = ("width", "max-width", "min-width", "float", "position")
    if any(key in style for key in sizing) or style.get("display", "block") != "block":
        return value
    return " ".join("0" if part == "auto" else part for part in value.split())


def _shortest(element: lxml.html.HtmlElement, name: str, value: str, style: Style) -> str:
    """The kept declaration's value as short as it computes the same on ``element``."""
    value = _without_colour(name, value, style.get("color"))
    return _minify(name, _auto_margins(element, name, value, style))


def _without_colour(name: str, value: str, colour: str | None) -> str:
    """A border shorthand without its colour when that is ``colour``, the element's own."""
    if colour is None or not _BORDER.match(name) or "(" in value:
        return value
    parts = value.split()
    kept = [part for part in parts if part.lower() != colour.strip().lower()]
    return " ".join(kept) if kept and len(kept) < len(parts) else value


def _absolute(value: str) -> bool:
    return not _RELATIVE.search(value)


def _weight(value: str, inherited: int) -> int | None:
    """A font-weight as a number, ``bolder``/``lighter`` resolved as Chromium does."""
    value = value.strip().lower()
    if value == "bolder":
        return 400 if inherited < 400 else 700 if inherited < 600 else 900
    if value == "lighter":
        return 100 if inherited < 600 else 400 if inherited < 800 else 700
    if value in _WEIGHTS:
        return _WEIGHTS[value]
    return int(value) if value.isdigit() else None


class _Cascade:
    """Each element's declarations, and the inherited values it computes from them."""

    def __init__(self, root: lxml.html.HtmlElement) -> None:
        self.root = root
        self.styles: dict[lxml.html.HtmlElement, Style] = {}
        self.values: dict[lxml.html.HtmlElement, Style] = {}
        for element in root.iter():
            if isinstance(element.tag, str):
                style = element.get("style")
                self.styles[element] = _parse(style) if style else {}
        for element in self.styles:  # document order: a parent before its children
            parent = element.getparent()
            self.values[element] = self._computed(
                element, self.values[parent] if element is not root and parent is not None else {}
            )

    def _computed(self, element: lxml.html.HtmlElement, inherited: Style) -> Style:
        values = dict(inherited)
        for name, value in _UA.get(element.tag, {}).items():
            values[name] = self._resolve(name, value, inherited)
        for name, value in self.styles[element].items():
            if name in INHERITED:
                values[name] = self._resolve(name, value, inherited)
        return values

    @staticmethod
    def _resolve(name: str, value: str, inherited: Style) -> str:
        if name == "font-weight":
            parent = inherited.get(name, "400")
            if not parent.isdigit():  # under a weight WeChat may have reset
                known = value.strip().lower() in _WEIGHTS or value.isdigit()
                return str(_weight(value, 400)) if known else UNKNOWN
            weight = _weight(value, int(parent))
            return str(weight) if weight is not None else value
        return value.lower() if name == "color" else value

    def default(self, element: lxml.html.HtmlElement, name: str) -> str | None:
        """The value ``element`` has for inherited ``name`` without a declaration of its own."""
        parent = element.getparent()
        inherited = self.values[parent] if parent is not None and parent in self.values else {}
        ua = _UA.get(element.tag, {}).get(name)
        if ua is not None:
            return self._resolve(name, ua, inherited)
        return inherited.get(name)

    def redundant(self, element: lxml.html.HtmlElement, name: str, value: str) -> bool:
        """Whether the declaration changes nothing the browser computes for ``element``."""
        if element is self.root or element.tag not in _KNOWN:
            return False
        if name == "word-break" and element.tag in ("td", "th"):
            return self._unbreakable_cell(element, value)
        if name in INHERITED:
            if not _absolute(value) and name != "font-weight":
                return False
            default = self.default(element, name)
            parent = element.getparent()
            inherited = self.values.get(parent, {}) if parent is not None else {}
            resolved = self._resolve(name, value, inherited)
            return default is not None and default == resolved and _absolute(default)
        if _BOX.match(name):
            return element.tag not in _UA_BOX and value.strip() in ("0", "0px", "none", "0 none")
        if name == "display":
            return (value == "block" and element.tag in _BLOCK) or (
                value == "inline" and element.tag in _INLINE
            )
        if name in ("height", "width") and value == "auto":
            return element.get(name) is None  # an HTML width/height attribute is overridden
        if name == "text-decoration" and element.tag in _DECORATED:
            return False
        return value.strip().lower() in _INITIAL.get(name, frozenset())

    def _unbreakable_cell(self, element: lxml.html.HtmlElement, value: str) -> bool:
        """Whether a cell's ``word-break`` (WeChat's page may set one) changes nothing laid out:
        the cell is kept on one line (``nowrap``), or it restates what the cell inherits and
        its text has no letter or digit outside the CJK ranges, the only characters
        ``break-all`` breaks where ``normal`` does not."""
        if self.values.get(element, {}).get("white-space", "").startswith("nowrap"):
            return True  # a cell kept on one line breaks nowhere, break-all or not
        parent = element.getparent()
        inherited = self.values.get(parent, {}) if parent is not None else {}
        if value != "normal" or inherited.get("word-break") != value:
            return False
        return not any(c.isalnum() and not is_cjk(c) for c in element.text_content())

    def write(self) -> None:
        """Each element's remaining declarations back into its ``style`` attribute."""
        for element, style in self.styles.items():
            kept = [
                f"{name}:{_shortest(element, name, value, style)}"
                for name, value in style.items()
                if not self.redundant(element, name, value)
            ]
            if kept:
                element.set("style", ";".join(kept))
            elif "style" in element.attrib:
                del element.attrib["style"]


def lean_styles(root: lxml.html.HtmlElement) -> None:
    """Rewrite the inlined ``style`` attributes under ``root`` as few as they can be."""
    _Cascade(root).write()
