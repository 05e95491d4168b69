"""MkDocs Material's icon shortcodes: ``:material-check:``, ``:fontawesome-brands-github:``.

MkDocs Material (through pymdownx's ``emoji`` extension) draws ``:material-…:``,
``:fontawesome-brands|regular|solid-…:``, ``:octicons-…-16:`` and ``:simple-…:`` as
pictures from the icon fonts it ships, sized by an attribute list right after them
(``:material-clock-fast:{ .lg .middle }``). Neither WeChat nor Zhihu has those fonts:
both channels showed the shortcode and its attribute list as written, and check said
nothing. An icon that stands for a sign text has (a check mark, a cross, an arrow, a
heart, a star) is that sign; any other is left out, with its attribute list, and check
warns once per line, naming the icons. GitHub's emoji shortcodes (``:tada:``) are not
icons of these sets and are read as before (see ``shortcodes``).
"""

from __future__ import annotations

import functools
import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, inline_lines, shortened
from crosspost.patterns import pattern

#: The code check files its warning under.
CODE = "mkdocs-icon"
#: One icon of MkDocs Material's sets (group 2 its name within the set), its attribute
#: list, and the blanks before (group 1) and after (group 3) it.
_ICON = pattern(
    r"([ \t]*)(?<![\w:]):((?:material|fontawesome-(?:brands|regular|solid)|octicons|simple)"
    r"-[a-z0-9]+(?:-[a-z0-9]+)*):(?![\w])(?:\{[^{}\n]*\})?([ \t]*)"
)
_SETS = pattern(r"^(?:material|fontawesome-(?:brands|regular|solid)|octicons|simple)-")
#: The words of an icon's name that say how it is drawn, not what it shows.
_STYLE_WORDS = frozenset(
    {"outline", "bold", "thick", "thin", "circle", "box", "square", "fill", "solid", "sharp",
     "rounded", "variant"}
)  # fmt: skip
#: Icons whose meaning a sign of text carries, by the words left of their name.
_SIGNS = {
    "check": "✓", "close": "✗", "x": "✗", "xmark": "✗", "times": "✗",
    "arrow-right": "→", "arrow-left": "←", "arrow-up": "↑", "arrow-down": "↓",
    "heart": "♥", "star": "★",
}  # fmt: skip


def sign_of(icon: str) -> str:
    """The sign of text an icon's name (``material-check-circle-outline``,
    ``octicons-x-16``) stands for, ``""`` when none says the same."""
    words = _SETS.sub("", icon).split("-")
    if words and words[-1].isdigit():  # octicons' size
        words = words[:-1]
    return _SIGNS.get("-".join(word for word in words if word not in _STYLE_WORDS), "")


def mkdocs_icons(state: StateCore) -> None:
    """Core rule, before inline parsing: MkDocs Material's icons as signs or left out
    (see the module), one note for check per line that held one."""
    if ":" not in state.src or not _ICON.search(state.src):
        return
    found: dict[int, list[str]] = {}
    rewrite = functools.partial(_rewritten, found=found)
    for token, lines in inline_lines(state.tokens, lambda text: bool(_ICON.search(text)), rewrite):
        token.content = "\n".join(lines)
    notes = state.env.setdefault(NOTES, [])
    for line, icons in found.items():
        notes.append((line, CODE, _message(icons)))


def _rewritten(text: str, line: int, found: dict[int, list[str]]) -> str:
    """One line of an inline's text (no code span in it), its icons read."""

    def read(match: re.Match[str]) -> str:
        found.setdefault(line, []).append(match.group(2))
        before, after = match.group(1), match.group(3)
        sign = sign_of(match.group(2))
        if sign:
            return before + sign + after
        # One space where the icon stood between two words; none beside a bracket, a
        # line's end or punctuation it touched.
        at_edge = match.start() == 0 or match.end() == len(text)
        return " " if before and after and not at_edge else ""

    return _ICON.sub(read, text)


def _message(icons: list[str]) -> str:
    """What check says of a line's icons."""
    icons = list(dict.fromkeys(icons))
    named = ", ".join(f"':{shortened(icon, 40)}:'" for icon in icons)
    signs = ", ".join(f"':{icon}:' as {sign_of(icon)}" for icon in icons if sign_of(icon))
    if not signs:
        shown = "left out of every channel"
    elif all(sign_of(icon) for icon in icons):
        shown = f"shown as signs of text ({signs})"
    else:
        shown = f"left out of every channel, but for signs of text ({signs})"
    many = len(icons) > 1
    return (
        f"{named} {'are icons' if many else 'is an icon'} of MkDocs Material's icon fonts, "
        f"which neither WeChat nor Zhihu has: {shown}; write a word or an emoji "
        f"(:white_check_mark:) in {'their' if many else 'its'} place if it matters"
    )
