"""Pandoc's grid and simple tables, read as the tables they draw.

Pandoc (and the RST documents converted by it) draws a grid table with ``+``, ``-`` and
``|``::

    +----------+--------+
    | Fruit    | Price  |
    +==========+========+
    | Bananas  | $1.34  |
    | (ripe)   |        |
    +----------+--------+

Markdown read it as a paragraph of those characters, joined into one line. Here it is the
tokens a pipe table makes, so every renderer shows it as the table it already knows how to
show: the row above the ``=`` line is the header (a table with none has only a body), a
colon in the ``=`` or first ``-`` line aligns a column, and a cell's lines are joined, as
a pipe table's cell is one line (a list's items each on a line of their own, with
``<br>``). A cell spanning columns is read in the first of them. A simple table (header
words over runs of dashes, a row a line) is read by :func:`simple_table`, a multiline
table (dashes over and under it, rows apart) by :func:`multiline_table`, and a
``Table: …`` line beside any table is its caption (:func:`table_captions`).
"""

from __future__ import annotations

import itertools
import unicodedata

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import line_text
from crosspost.patterns import pattern

#: A border line: ``+---+---+``, ``+===+===+`` under the header, colons for alignment.
_BORDER = pattern(r"\+(?:[-=:]+\+)+[ \t]*")
#: A content line: it opens and closes with ``|``.
_ROW = pattern(r"\|.*\|[ \t]*")


def grid_table(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a grid table from its first border line to its last."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    first = line_text(state, start)
    if not _BORDER.fullmatch(first) or "=" in first:
        return False
    columns = [at for at, char in enumerate(first) if char == "+"]
    last = start
    header_end = -1
    line = start + 1
    while line < end:
        text = line_text(state, line)
        if _BORDER.fullmatch(text):
            if [at for at, char in enumerate(text) if char == "+"] != columns:
                return False
            if "=" in text:
                header_end = line
            last = line
        elif not _ROW.fullmatch(text) or any(
            at >= len(text) or text[at] not in "|+" for at in (columns[0], columns[-1])
        ):
            break
        line += 1
    if last == start:
        return False
    if silent:
        return True
    rows = _rows(state, start, last, columns)
    aligns = _alignments(line_text(state, header_end if header_end > 0 else start), columns)
    token = state.push("table_open", "table", 1)
    token.map, token.markup = [start, last + 1], "+"
    header = [row for row in rows if row[0] < header_end]
    body = [row for row in rows if row[0] > header_end]
    if header:
        state.push("thead_open", "thead", 1).map = [start, header_end + 1]
        for row in header:
            _push_row(state, row, "th", aligns)
        state.push("thead_close", "thead", -1)
    if body:
        state.push("tbody_open", "tbody", 1).map = [body[0][0], last + 1]
        for row in body:
            _push_row(state, row, "td", aligns)
        state.push("tbody_close", "tbody", -1)
    state.push("table_close", "table", -1)
    state.line = last + 1
    return True


_Row = tuple[int, int, list[str]]


def _rows(state: StateBlock, start: int, last: int, columns: list[int]) -> list[_Row]:
    """Each row between two border lines: (its first line, its last, its cells' text)."""
    rows: list[_Row] = []
    opened = start + 1
    for line in range(start + 1, last + 1):
        if not _BORDER.fullmatch(line_text(state, line)):
            continue
        if opened < line:
            cells: list[list[str]] = [[] for _ in columns[1:]]
            for content in range(opened, line):
                text = line_text(state, content)
                for index, (left, right) in enumerate(itertools.pairwise(columns)):
                    piece = text[left + 1 : right].strip()
                    if piece:
                        cells[index].append(piece)
            rows.append((opened, line - 1, [_joined(cell) for cell in cells]))
        opened = line + 1
    return rows


#: A cell's line that begins an item of a list (``- a``, ``1. b``): on a line of its own.
_ITEM = pattern(r"(?:[-*+]|\d{1,3}[.)])\s")


def _joined(lines: list[str]) -> str:
    """A cell's lines as one line (a pipe table's cell is one), a list's items apart."""
    joined = lines[0] if lines else ""
    for line in lines[1:]:
        joined += ("<br>" if _ITEM.match(line) else " ") + line
    return joined


def _alignments(border: str, columns: list[int]) -> list[str]:
    """Each column's alignment from the colons of ``border`` (``:---:`` centred)."""
    aligns = []
    for left, right in itertools.pairwise(columns):
        part = border[left + 1 : right]
        if part.startswith(":") and part.endswith(":"):
            aligns.append("center")
        elif part.endswith(":"):
            aligns.append("right")
        elif part.startswith(":"):
            aligns.append("left")
        else:
            aligns.append("")
    return aligns


def _push_row(state: StateBlock, row: _Row, cell: str, aligns: list[str]) -> None:
    first, last, cells = row
    state.push("tr_open", "tr", 1).map = [first, last + 1]
    for text, align in zip(cells, aligns, strict=False):
        opening = state.push(f"{cell}_open", cell, 1)
        if align:
            opening.attrs = {"style": f"text-align:{align}"}
        inline = state.push("inline", "", 0)
        inline.content, inline.map, inline.children = text, [first, last + 1], []
        state.push(f"{cell}_close", cell, -1)
    state.push("tr_close", "tr", -1)


#: A simple table's dashed line: a run of dashes over each column, blanks between them.
_DASHES = pattern(r"[ \t]*-{2,}(?:[ \t]+-{2,})+[ \t]*")
_DASH_RUN = pattern(r"-+")


def simple_table(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: Pandoc's simple table, a header line over a line of dashes (one run
    per column, blanks between), then a row per line up to a blank line::

          Right     Left     Center
        -------     ------ ----------
             12     12        12

    Markdown read the header as a paragraph, the dashes as a rule and every row as one
    line of words. A row's columns are cut where each run of dashes begins; the header's
    place over its dashes aligns the column, as Pandoc reads it (flush right: right, flush
    left: left, neither: centred)."""
    if start + 2 >= end or state.sCount[start] - state.blkIndent >= 4:
        return False
    header, dashes = _raw_line(state, start), _raw_line(state, start + 1)
    if not header.strip() or not _DASHES.fullmatch(dashes) or state.isEmpty(start + 2):
        return False
    runs = [(found.start(), found.end()) for found in _DASH_RUN.finditer(dashes)]
    if sum(bool(cell.strip()) for cell in _cut(header, runs)) < 2:
        return False  # words over one column only: a paragraph and a rule
    last = start + 2
    while last + 1 < end and not state.isEmpty(last + 1):
        if state.sCount[last + 1] < state.blkIndent:
            break
        last += 1
    if silent:
        return True
    token = state.push("table_open", "table", 1)
    token.map, token.markup = [start, last + 1], "+"
    aligns = [_aligned(header, left, right) for left, right in runs]
    state.push("thead_open", "thead", 1).map = [start, start + 1]
    _push_row(state, (start, start, [cell.strip() for cell in _cut(header, runs)]), "th", aligns)
    state.push("thead_close", "thead", -1)
    state.push("tbody_open", "tbody", 1).map = [start + 2, last + 1]
    for line in range(start + 2, last + 1):
        cells = [cell.strip() for cell in _cut(_raw_line(state, line), runs)]
        _push_row(state, (line, line, cells), "td", aligns)
    state.push("tbody_close", "tbody", -1)
    state.push("table_close", "table", -1)
    state.line = last + 1
    return True


#: A multiline table's top or bottom: one run of dashes, nothing else on the line.
_FULL_DASHES = pattern(r"[ \t]{0,3}-{3,}[ \t]*")


def multiline_table(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: Pandoc's multiline table (what it writes for a table whose cells hold
    more than a line, from Word files and web pages)::

        -----------------------------------
        Name        Status
        ----------- -----------------------
        Build       passing

        Deploy      line one
                    line two
        -----------------------------------

    A line of dashes over it and under it; the header's lines (none in a table without
    a header) over a line of one run of dashes per column; rows of one or more lines,
    blank lines between them. Markdown read the rows as paragraphs and a row over the
    closing dashes as a heading. A cell's lines are joined with a space, as Pandoc joins
    them; columns are cut as a simple table's are."""
    if start + 3 >= end or state.sCount[start] - state.blkIndent >= 4:
        return False
    if not _FULL_DASHES.fullmatch(_raw_line(state, start)):
        return False
    line = start + 1
    while line < end and not _DASHES.fullmatch(_raw_line(state, line)):
        if state.isEmpty(line) or _FULL_DASHES.fullmatch(_raw_line(state, line)):
            return False
        line += 1
    if line >= end or line - start > 4:
        return False
    separator, header_lines = line, range(start + 1, line)
    closing = None
    for at in range(separator + 1, end):
        if _FULL_DASHES.fullmatch(_raw_line(state, at)):
            closing = at
            break
        if state.isEmpty(at) and (at + 1 >= end or state.isEmpty(at + 1)):
            return False  # rows are one blank line apart: this is no table's end
    if closing is None or closing == separator + 1:
        return False
    if silent:
        return True
    dashes = _raw_line(state, separator)
    runs = [(found.start(), found.end()) for found in _DASH_RUN.finditer(dashes)]
    header = [_raw_line(state, at) for at in header_lines]
    aligns = [_aligned(header[0] if header else "", left, right) for left, right in runs]
    token = state.push("table_open", "table", 1)
    token.map, token.markup = [start, closing + 1], "+"
    if header:
        state.push("thead_open", "thead", 1).map = [start, separator + 1]
        _push_row(state, (start + 1, separator - 1, _joined_cells(header, runs)), "th", aligns)
        state.push("thead_close", "thead", -1)
    state.push("tbody_open", "tbody", 1).map = [separator + 1, closing]
    row: list[int] = []
    for at in range(separator + 1, closing + 1):
        if at < closing and not state.isEmpty(at):
            row.append(at)
            continue
        if row:
            cells = _joined_cells([_raw_line(state, n) for n in row], runs)
            _push_row(state, (row[0], row[-1], cells), "td", aligns)
            row = []
    state.push("tbody_close", "tbody", -1)
    state.push("table_close", "table", -1)
    state.line = closing + 1
    return True


def _joined_cells(lines: list[str], runs: list[tuple[int, int]]) -> list[str]:
    """The cells of a row written over ``lines``: each column's pieces joined by a space
    (a piece ending in ``\\``, Pandoc's line break, keeps its break)."""
    columns: list[list[str]] = [[] for _ in runs]
    for text in lines:
        for index, piece in enumerate(_cut(text, runs)[: len(runs)]):
            if piece.strip():
                columns[index].append(piece.strip())
    return [
        "".join(part[:-1] + "<br>" if part.endswith("\\") else part + " " for part in parts).strip()
        for parts in columns
    ]


def _raw_line(state: StateBlock, line: int) -> str:
    """The line as written, its indent kept: columns are counted from the line's start."""
    return state.src[state.bMarks[line] : state.eMarks[line]].expandtabs(4)


def _cut(text: str, runs: list[tuple[int, int]]) -> list[str]:
    """``text`` in columns: each from where its run of dashes begins to where the next one's
    does (the first from the line's start, the last to its end). Columns are counted as a
    monospaced font draws them, a Chinese character two wide, as Pandoc counts them."""
    starts = [left for left, _ in runs[1:]]
    cells: list[str] = []
    cell: list[str] = []
    column = 0
    for char in text:
        while starts and column >= starts[0]:
            starts.pop(0)
            cells.append("".join(cell))
            cell = []
        cell.append(char)
        column += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    cells.append("".join(cell))
    return cells + [""] * (len(runs) - len(cells))


def _aligned(header: str, left: int, right: int) -> str:
    """A column's alignment from where its header's words stand over its dashes."""
    words = header[left:right]
    flush_left = bool(words) and not words[0].isspace()
    flush_right = len(header) >= right and bool(words) and not words[-1].isspace()
    if flush_left and flush_right:
        return ""
    if flush_right:
        return "right"
    if flush_left:
        return "left"
    return "center" if words.strip() else ""


#: Pandoc's table caption: a paragraph next to a table that begins ``Table:`` or ``:``.
_CAPTION = pattern(r"(?:[Tt]able)?:[ \t]+(?=\S)")
#: The attributes after a caption's words: ``{#tbl-perf}``, ``{#tbl-x .striped}`` (Quarto
#: and Pandoc cross-reference the table by them; a reader has nothing to do with them).
_CAPTION_LABEL = pattern(r"\{#[^\s{}]+(?:[ \t][^{}\n]*)?\}[ \t]*$")


def table_captions(state: StateCore) -> None:
    """Core rule: a paragraph just above or below a table that begins ``Table:`` (or a
    bare ``:``) is the table's caption, as Pandoc reads it: its words without the
    prefix, marked ``meta["table_caption"]`` for a renderer that styles captions. The
    words ``Table: 表一`` went out as written, read as a sentence of the article."""
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "paragraph_open" or index + 2 >= len(tokens):
            continue
        inline = tokens[index + 1]
        above = index + 3 < len(tokens) and tokens[index + 3].type == "table_open"
        below = index > 0 and tokens[index - 1].type == "table_close"
        found = _CAPTION.match(inline.content)
        if not (above or below) or found is None or not inline.children:
            continue
        first = inline.children[0]
        if first.type != "text" or not first.content.startswith(found.group(0)):
            continue
        first.content = first.content[found.end() :]
        inline.content = inline.content[found.end() :]
        token.meta["table_caption"] = True
        last = inline.children[-1]
        label = _CAPTION_LABEL.search(last.content) if last.type == "text" else None
        if label is not None and label.start():  # Quarto's ``{#tbl-perf}``: a link target
            last.content = last.content[: label.start()].rstrip()
            inline.content = _CAPTION_LABEL.sub("", inline.content).rstrip()
