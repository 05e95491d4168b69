"""Lists as WeChat keeps them: ``<section>`` items with the marker written into the text.

WeChat's editor resets ``ul``/``ol`` (no bullets, no numbers, no indent) and adds bullets
of its own to a list nested in a list, so a list, written in Markdown or in raw HTML, is
drawn with sections: the list indents once, and each item's marker hangs in that indent
(base.css). Shared by the Markdown rules and the raw HTML sanitiser.
"""

from __future__ import annotations

import html

from crosspost.render.tasks import BOXES

#: Bullets by depth: the third and deeper levels share the last.
BULLETS: tuple[str, ...] = ("•", "◦", "▪")
#: The marker of a task item (``- [ ]`` / ``- [x]``) in place of its bullet.
TASK_MARKERS = BOXES
#: The hanging indent's size by the digits of a list's longest number: "10." does not fit
#: the indent made for "9.", and broke onto two lines beside its item (base.css sizes
#: ``list-wide`` and ``list-marker-wide`` alike).
_SIZES = {1: "", 2: "wide", 3: "wider"}


def bullet(depth: int) -> str:
    """The bullet of a list ``depth`` lists deep (1 for a list in no list)."""
    return BULLETS[min(max(depth, 1), len(BULLETS)) - 1]


def marker_width(last: int) -> str:
    """The indent's size for a list whose longest number is ``last`` ("" for one digit)."""
    return _SIZES.get(len(str(last)), "widest")


def list_class(size: str) -> str:
    """The list's own class: its indent matches its markers' size."""
    return f"list list-{size}" if size else "list"


def marker_class(size: str) -> str:
    return f"list-marker list-marker-{size}" if size else "list-marker"


def marker_html(text: str, size: str = "") -> str:
    """An item's marker, hanging in the list's indent."""
    return f'<span class="{marker_class(size)}">{html.escape(text)}&nbsp;</span>'
