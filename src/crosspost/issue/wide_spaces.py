"""A heading's hashes or a list item's marker followed by a space that is not ASCII's.

CommonMark wants an ASCII space (or a tab) after a heading's ``#`` and after a list
item's ``-``, ``*``, ``+`` or ``1.``. An answer pasted from a chat assistant (Gemini,
豆包), a Word document or a web page often has a non-breaking space there (U+00A0, or
the narrow U+202F), and a Chinese keyboard types the full-width U+3000:
``##\u00a0标题``, ``###\u3000标题``, ``-\u00a0**要点**：第一条``. They look the same in
the editor, and went out as a paragraph reading ``## 标题``, with no warning.

Before the block parse, such a space (or a run of them) after one to six hashes or a
list marker at the start of a line (inside a quote too) becomes one ASCII space, so the
line is read as the heading or the item it looks like. Code fences keep theirs.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import outside_fences
from crosspost.patterns import pattern

#: The spaces read as ASCII's after a marker.
_WIDE = "\u00a0\u202f\u3000"
#: A line's start (quote marks and indentation), a heading's hashes or a list marker,
#: then a wide space and whatever blanks follow it, before the line's words.
_MARKER = pattern(
    rf"^((?:[ \t]*>)*[ \t]*(?:#{{1,6}}|[-*+]|\d{{1,9}}[.)]))[{_WIDE}][ \t{_WIDE}]*(?=\S)",
    re.MULTILINE,
)


def wide_spaces(state: StateCore) -> None:
    """Core rule, before the block parse: a wide space after a heading's hashes or a list
    marker read as an ASCII one (see the module)."""
    if not any(space in state.src for space in _WIDE):
        return
    state.src = outside_fences(_MARKER, state.src, lambda found: found.group(1) + " ")
