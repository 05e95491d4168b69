"""Table cells a reader can read in a table wider than a phone.

A table wider than the screen scrolls in its ``.table-scroll`` box, and the browser then
lays it out at its narrowest: every column as narrow as its longest unbreakable piece.
A column of Chinese sentences, which break between any two characters, stood one
character a line, its row twenty lines tall beside a long link or number; a cell that is
one name with hyphens (``Llama-3-70B-Instruct``, ``2023-05-13``) broke at each hyphen.
Before the theme is inlined, such cells get a class the theme sizes:

- ``cell-prose``: words that can break (Chinese, or several words) longer than a narrow
  column, in a table that scrolls (estimated from its text); the theme gives the cell a
  least width, a few words a line. A table that fits gives them their room itself, and
  WeChat counts every byte of a style (issue #13);
- ``cell-token``: one name or number with hyphens and no space, not too long; the theme
  keeps it on one line.

A cell that is short, or one long word without a hyphen (a link: it cannot break
anyway), gets nothing.
"""

from __future__ import annotations

import lxml.html

from crosspost.issue.dialect import is_cjk

#: A cell's words take a least width only past this many ``em`` (about the width the
#: theme gives them): a shorter cell fits in its own width, which is narrower.
PROSE_EM = 7.0
#: A name with hyphens is kept on one line up to this many ``em``; a longer one (a long
#: link) may still break at its hyphens, or its column would be wider than two screens.
TOKEN_EM = 24.0
#: A phone's column in ``em`` of a table's text (343 px at 0.9 of 16 px is 23.8), less a
#: little for a table in a list or a quotation.
SCREEN_EM = 22.0
#: An average Latin letter, digit or space, in ``em``; a CJK character is one.
_LATIN_EM = 0.55
#: Characters a line may end after inside a word the browser otherwise keeps whole.
_HYPHENS = frozenset("-\u2010")


def _width_em(text: str) -> float:
    """About how wide ``text`` is on one line, in ``em`` of its own font."""
    return sum(1.0 if is_cjk(c) else _LATIN_EM for c in text)


def cell_class(text: str) -> str | None:
    """The class a cell with this text needs in a table that scrolls, if any."""
    text = " ".join(text.split())
    if not text:
        return None
    if " " in text or any(is_cjk(c) for c in text):
        return "cell-prose" if _width_em(text) > PROSE_EM else None
    if any(c in _HYPHENS for c in text.strip("-\u2010")) and _width_em(text) <= TOKEN_EM:
        return "cell-token"
    return None


def _least_em(text: str, kept_whole: bool) -> float:
    """About the narrowest ``text`` can be laid out, in ``em``: its widest piece that has
    no place to break (a line breaks at spaces, hyphens and between CJK characters)."""
    if kept_whole:
        return _width_em(text)
    widest, run = 0.0, 0.0
    for c in text:
        if c.isspace() or is_cjk(c):
            widest, run = max(widest, run), 0.0
            if is_cjk(c):
                widest = max(widest, 1.0)
        elif c in _HYPHENS:
            widest, run = max(widest, run + _LATIN_EM), 0.0
        else:
            run += _LATIN_EM
    return max(widest, run)


def _scrolls(rows: list[list[tuple[str, str | None]]]) -> bool:
    """Whether a table of these cells (text, class) is wider than a phone's column at
    its narrowest, so that it scrolls and its columns are squeezed to their least."""
    columns: dict[int, float] = {}
    for row in rows:
        for index, (text, name) in enumerate(row):
            least = _least_em(text, name == "cell-token")
            columns[index] = max(columns.get(index, 0.0), least)
    # Each column adds the theme's spacing (0.8em) and a cell padding WeChat's page may
    # add (10 px a side, about 1.4em of the table's text).
    return sum(columns.values()) + 2.2 * len(columns) > SCREEN_EM


def mark_cells(root: lxml.html.HtmlElement) -> None:
    """Give the cells of each table under ``root`` the class :func:`cell_class` says, in
    place: a name with hyphens in any table; words only in a table that scrolls, where
    the browser would squeeze them (a table that fits gives them their room itself)."""
    for table in root.iter("table"):
        rows = [
            [(" ".join(cell.text_content().split()), cell) for cell in row.iter("td", "th")]
            for row in table.iter("tr")
        ]
        named = [[(text, cell_class(text)) for text, _ in row] for row in rows]
        scrolls = _scrolls(named)
        for row, names in zip(rows, named, strict=True):
            for (_, cell), (_, name) in zip(row, names, strict=True):
                if name is None or (name == "cell-prose" and not scrolls):
                    continue
                classes = cell.get("class", "")
                if name not in classes.split():
                    cell.set("class", f"{classes} {name}".strip())
