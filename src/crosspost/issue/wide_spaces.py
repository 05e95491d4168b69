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


#: A front matter line's key (in a list item too) and its colon, then a wide space, where
#: YAML needs an ASCII one: ``title:\u00a0第48期``. YAML reads ``title:\u00a0…`` as no
#: key but words, and refused the whole block: ``render`` showed the issue without its
#: title, and ``check`` named a later line, the one where YAML gave up. A wide space after
#: a plain one, ``digest: \u3000\u3000本期``, is the value's own (a paragraph's indent),
#: which YAML reads as it is.
_FIELD = pattern(
    rf"^([ \t{_WIDE}]*(?:-[ \t{_WIDE}]+)?[A-Za-z_][\w-]*[ \t]*:)[{_WIDE}][ \t{_WIDE}]*",
    re.MULTILINE,
)
#: A front matter line's indent, or a list item's dash, holding a wide space.
_INDENT = pattern(rf"^[ \t]*[{_WIDE}][ \t{_WIDE}]*|^([ \t]*-)[{_WIDE}][ \t{_WIDE}]*", re.MULTILINE)


def front_matter_spaces(source: str) -> tuple[str, int | None]:
    """YAML front matter ``source`` with the wide spaces after a key's colon read as
    ASCII ones (see :data:`_FIELD`), and the line (0-based) of the first such space, or
    None when there was none. A value's own no-break spaces (``digest: 第\u00a0一``) stay."""
    if not any(space in source for space in _WIDE):
        return source, None
    spaced = _FIELD.sub(lambda found: found.group(1) + " ", source)
    return spaced, _first_changed(source, spaced)


def front_matter_indents(source: str) -> tuple[str, int | None]:
    """YAML front matter ``source`` with wide spaces in its lines' indents and after a list
    item's dash read as ASCII ones, and the line (0-based) of the first, or None. For front
    matter YAML refused as it was: one that parses keeps its indents' meaning."""
    if not any(space in source for space in _WIDE):
        return source, None

    def spaced(found: re.Match[str]) -> str:
        if found.group(1) is not None:
            return found.group(1) + " "
        return "".join(" " if char in _WIDE else char for char in found.group())

    result = _INDENT.sub(spaced, source)
    return result, _first_changed(source, result)


def _first_changed(before: str, after: str) -> int | None:
    """The first line (0-based) that differs between ``before`` and ``after``, or None."""
    if before == after:
        return None
    pairs = zip(before.split("\n"), after.split("\n"), strict=False)
    return next(number for number, (old, new) in enumerate(pairs) if old != new)
