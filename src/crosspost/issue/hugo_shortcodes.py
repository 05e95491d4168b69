"""Hugo's shortcodes read as the Markdown they stand for.

Hugo blogs write figures, videos, highlighted code and their theme's notes as
``{{< name arguments >}}`` (or ``{{% … %}}``), closed by ``{{< /name >}}`` when they hold
content. Markdown showed every one as written, and a figure's picture was never uploaded.

Those crosspost knows come out as the tokens their Markdown form makes: ``figure`` as the
image with its caption; ``youtube``, ``vimeo``, ``bilibili``, ``tweet``/``x``, ``gist`` and
``instagram`` as a ``<video>``/``<iframe>`` the sanitiser shows as a line linking to it;
``highlight`` as a code block; the notes of Hugo itself and of its popular themes
(``details``, ``notice``, ``admonition``, ``alert``, ``hint``, ``callout``, and ``tip``,
``note``, ``warning`` … by name) as callouts; ``tabs``/``tab`` as one titled part after
another. Quarto writes its shortcodes alike: ``{{< video URL >}}`` is read as Hugo's,
``{{< kbd Ctrl-C >}}`` is the key, in code, and ``{{< pagebreak >}}`` is left out (an
article on a screen has no pages). Any other shortcode (``ref``, ``param``, Quarto's
``include``, a site's own) stays as written, and check names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    callout,
    closing_line,
    code,
    credit_line,
    destination,
    escaped,
    first_group,
    inner,
    line_match,
    outside_code,
    raw_media,
)
from crosspost.issue.callouts import callout_kind, is_callout_name
from crosspost.issue.tabs import TABS, tab_title
from crosspost.patterns import pattern

#: A shortcode: ``{{< name arguments >}}``, ``{{% name arguments %}}`` (``/>}}`` too).
_SHORTCODE = pattern(r"\{\{([<%])\s*([A-Za-z_][\w-]*)(.*?)\s*/?[>%]\}\}")
_SHORTCODE_LINE = pattern(_SHORTCODE.pattern + r"[ \t]*")
_ARGUMENT = pattern(r"(?:([\w-]+)=)?(?:\"([^\"]*)\"|'([^']*)'|`([^`]*)`|([^\s\"'`]+))")
#: Shortcodes whose content is code.
CODE_SHORTCODES = frozenset({"highlight"})
#: Shortcodes that are callouts whatever their arguments say (their kind: the arguments').
NOTES = frozenset({"details", "notice", "admonition", "alert", "hint", "callout", "spoiler"})


def _arguments(text: str) -> tuple[list[str], dict[str, str]]:
    """A shortcode's positional and named arguments."""
    positional: list[str] = []
    named: dict[str, str] = {}
    for found in _ARGUMENT.finditer(text):
        value = first_group(found, 1)
        if found.group(1):
            named[found.group(1).lower()] = value
        else:
            positional.append(value)
    return positional, named


def shortcode_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a shortcode this module knows, from its opening line to its closing."""
    opened = line_match(state, start, "{{", _SHORTCODE_LINE)
    name = opened.group(2) if opened else ""
    lowered = name.lower()
    if opened is None or not (
        lowered in CODE_SHORTCODES | NOTES | {"tabs", "tab"} or is_callout_name(name)
    ):
        return False
    close = _closing_line(state, start, end, name)
    if close is None:
        return False
    if silent:
        return True
    positional, named = _arguments(opened.group(3))
    if lowered in CODE_SHORTCODES:
        code(state, start, close, positional[0] if positional else named.get("lang", ""), "{{<")
    elif lowered == "tabs":
        inner(state, start, close, TABS)
    elif lowered == "tab":
        title = named.get("name") or named.get("title") or (positional[0] if positional else "")
        if title:
            tab_title(state, title, start)
        inner(state, start, close)
    else:
        note = note_of(lowered, positional, named)
        callout(state, start, close, note.kind, note.title, note.credit_line)
    state.line = close + 1
    return True


#: A note's arguments that title it, the first one written first.
_TITLES = ("title", "summary", "text", "header", "heading", "label")
#: A note's arguments that say how it looks or behaves: never words a reader sees.
_SETTINGS = frozenset({
    "type", "kind", "color", "colour", "icon", "emoji", "open", "class", "id", "style",
    "collapse", "collapsed", "closed", "expand", "expanded", "folded", "theme", "variant",
    "context", "size", "width", "lang", "markdown", "mode", "float", "align", "border",
})  # fmt: skip


#: A first argument that names a kind (``warning``, a theme's ``primary``), not words.
_KIND_WORD = pattern(r"[A-Za-z][\w-]*")


class Note(NamedTuple):
    """A note shortcode as a callout: its kind, its title, and the words of its other
    arguments (a quote's ``author`` and ``source``), shown under what it holds."""

    kind: str
    title: str
    credit: tuple[str, ...] = ()

    @property
    def credit_line(self) -> str:
        """The line shown under what the note holds for :attr:`credit`, in Markdown."""
        return credit_line(escaped(word) for word in self.credit)


def note_of(name: str, positional: list[str], named: dict[str, str]) -> Note:
    """A note shortcode read: ``{{< notice tip >}}``, ``{{< admonition type="warning"
    title="…" >}}``, ``{{< hint danger >}}``, ``{{< details summary="…" >}}``, ``{{< tip
    >}}``, ``{{< spoiler text="…" >}}``, ``{{< quote author="…" source="…" >}}``.
    Every argument that is not a setting (its kind, colour, icon…) is shown: one that
    titles it as its title, any other under it. Themes name their arguments as they
    like, and a note that read only ``title`` left a spoiler's ``text`` and a quote's
    ``author`` out, with no word from check."""
    titled = next((key for key in _TITLES if named.get(key, "").strip()), None)
    if name == "details":
        kind, used = "details", 0
    elif name not in NOTES:  # named by its kind: {{< warning >}}
        kind, used = callout_kind(name), 0
    else:
        written = next((named[key] for key in ("type", "color") if named.get(key)), None)
        # The first positional argument is the kind when it reads as one (``warning``,
        # a theme's ``primary``), not words (``"注意事项"``, ``"Read this"``).
        if written is None and positional and _KIND_WORD.fullmatch(positional[0]):
            written, used = positional[0], 1
        else:
            used = 0
        kind = callout_kind(written) if written and is_callout_name(written) else "note"
    rest = positional[used:]
    if titled:
        title = named[titled]
    elif name == "details" or name not in NOTES:
        title, rest = " ".join(rest), []
    else:
        title, rest = (rest[0], rest[1:]) if rest else ("", [])
    others = [
        value.strip()
        for key, value in named.items()
        if key != titled and key not in _SETTINGS and value.strip()
    ]
    return Note(kind, title.strip(), tuple(part for part in [*rest, *others] if part.strip()))


def _closing_line(state: StateBlock, start: int, end: int, name: str) -> int | None:
    """The line of ``{{< /name >}}`` closing the shortcode opened on ``start``."""
    opens = re.compile(rf"\{{\{{[<%]\s*{re.escape(name)}\b.*[>%]\}}\}}[ \t]*")
    closes = re.compile(rf"\{{\{{[<%]\s*/{re.escape(name)}\s*[>%]\}}\}}[ \t]*")
    return closing_line(state, start, end, "{{", opens, closes)


# --- shortcodes within a line --------------------------------------------------------------


def shortcodes(state: StateCore) -> None:
    """Core rule, before inline parsing: each one-line shortcode this module knows, in the
    text of a paragraph, heading or cell, becomes its Markdown (code spans left alone)."""
    if "{{" not in state.src:
        return
    for token in state.tokens:
        if token.type == "inline" and "{{" in token.content:
            token.content = outside_code(token.content, _read_shortcodes)
        elif token.type in ("fence", "code_block") and "/*" in token.content:
            token.content = _SHOWN.sub(r"{{\1 \2 \3}}", token.content)


#: ``{{</* name … */>}}`` and ``{{%/* … */%}}``: Hugo's way to show a shortcode as
#: written (an example in a post about Hugo) instead of calling it.
_SHOWN = pattern(r"\{\{([<%])/\*\s*(.*?)\s*\*/([>%])\}\}")


def _read_shortcodes(text: str) -> str:
    if "/*" in text:
        # The brace as an entity: shown as written, and no shortcode for check to name.
        text = _SHOWN.sub(r"&#123;{\1 \2 \3}}", text)
    return _SHORTCODE.sub(_markdown_of, text)


def _markdown_of(match: re.Match[str]) -> str:
    made = READINGS.get(match.group(2).lower())
    shown = made(*_arguments(match.group(3))) if made else None
    return match.group(0) if shown is None else shown


def _figure(positional: list[str], named: dict[str, str]) -> str | None:
    """``{{< figure src="a.png" title="…" caption="…" attr="…" alt="…" >}}``: the image,
    captioned with what Hugo's caption shows (its title, caption and credit, in that
    order), else with its ``alt``. Captioned by the first of them alone, a figure with
    a title lost its caption, and one with both a caption and a credit the credit.

    The picture links where Hugo's does (``link=``), else to its credit's page
    (``attrlink=``, which Hugo puts on the credit's words): a picture alone in its link
    is still a captioned figure, and WeChat numbers the address under the caption. With
    both, the credit's address is written after the credit: a picture has one link."""
    source = named.get("src") or (positional[0] if positional else "")
    if not source:
        return None
    link, credit = (named.get(key, "").strip() for key in ("link", "attrlink"))
    shown = [named[key].strip() for key in ("title", "caption", "attr") if named.get(key)]
    if link and credit:
        shown.append(credit)
    words = " · ".join(part for part in shown if part) or named.get("alt") or ""
    picture = f"![{escaped(words)}]({destination(source)})"
    target = link or credit
    return f"[{picture}]({destination(target)})" if target else picture


_Reading = Callable[[list[str], dict[str, str]], "str | None"]


def _media(tag: str, address: Callable[[list[str], dict[str, str]], str | None]) -> _Reading:
    """A shortcode naming a video or a page, as the raw element every channel shows as
    a line linking to it."""

    def made(positional: list[str], named: dict[str, str]) -> str | None:
        where = address(positional, named)
        if not where:
            return None
        return raw_media(tag, where)

    return made


def _first(positional: list[str], named: dict[str, str], key: str = "id") -> str:
    return named.get(key) or (positional[0] if positional else "")


def _tweet(positional: list[str], named: dict[str, str]) -> str | None:
    user = named.get("user") or (positional[0] if len(positional) > 1 else "")
    post = named.get("id") or (positional[-1] if positional else "")
    return f"https://x.com/{user or 'i'}/status/{post}" if post else None


def _gist(positional: list[str], named: dict[str, str]) -> str | None:
    if named.get("url"):  # Zola's gist(url="…")
        return named["url"]
    return (
        f"https://gist.github.com/{positional[0]}/{positional[1]}" if len(positional) > 1 else None
    )


def _keys(positional: list[str], named: dict[str, str]) -> str | None:
    """Quarto's ``{{< kbd Shift-Ctrl-P >}}`` (``mac=…``, ``win=…``, ``linux=…`` for each
    system's keys): the keys, in code, as MkDocs's keys are shown."""
    keys = " ".join(positional) or " / ".join(named.values())
    if not keys:
        return None
    fence = "`" * (max(map(len, re.findall(r"`+", keys)), default=0) + 1)
    return f"{fence} {keys} {fence}" if "`" in keys else f"`{keys}`"


#: The one-line shortcodes this module reads, by name.
READINGS: dict[str, _Reading] = {
    "figure": _figure,
    "youtube": _media(
        "video", lambda p, n: (v := _first(p, n)) and f"https://www.youtube.com/watch?v={v}"
    ),
    # Quarto's ``{{< video URL >}}`` (``src=`` too), and the same in Hugo themes.
    "video": _media("video", lambda p, n: _first(p, n, "src")),
    "vimeo": _media("video", lambda p, n: (v := _first(p, n)) and f"https://vimeo.com/{v}"),
    "bilibili": _media(
        "video", lambda p, n: (v := _first(p, n)) and f"https://www.bilibili.com/video/{v}"
    ),
    "instagram": _media(
        "iframe", lambda p, n: (v := _first(p, n)) and f"https://www.instagram.com/p/{v}"
    ),
    "tweet": _media("iframe", _tweet),
    "x": _media("iframe", _tweet),
    "gist": _media("iframe", _gist),
    # Quarto's: a key, and a page break (no pages on a screen: nothing).
    "kbd": _keys,
    "pagebreak": lambda positional, named: "",
}
