"""Tables that lay a page out, not data: an email's, read as the blocks they hold.

An email is laid out in tables, as Mailchimp and newsletter services write it: the text
in a one-column table (``mcnTextBlock``), a picture alone in a one-cell table
(``mcnImageBlock``), a button as a link alone in one (``mcnButtonBlock``), a row of
icons as a one-row table; often nested, often ``role="presentation"``. Kept as tables,
Zhihu showed each as a table of one cell (its picture moved after it, "（图见表后）",
its button a link's words and address) and WeChat drew a ruled data table around the
whole newsletter. Each channel's raw HTML is cleaned first (:func:`.sanitize.clean`),
which then writes such a table as its cells' content, a block (``<div>``) each, in
order; a table that holds data stays a table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString, Tag

#: What a cell holds when it lays out a block of a page: paragraphs, headings, tables.
_BLOCK_CONTENT = ["table", "p", "div", "h1", "h2", "h3", "h4"]
#: What a cell may hold besides a picture or a link and still hold only that: wrappers
#: and line breaks, which show nothing of their own.
_NOTHING_ELSE = frozenset({"br", "span", "div", "p", "center", "section", "strong", "b",
                           "font", "figure", "picture", "source"})  # fmt: skip
#: Cell attributes kept on the block a cell becomes: how its content is aligned.
_KEPT = ("style", "align", "dir")


def table_rows(table: Tag) -> list[Tag]:
    """The rows of ``table`` itself, not those of a table nested in one of its cells."""
    rows: list[Tag] = []
    for child in table.find_all(["thead", "tbody", "tfoot", "tr"], recursive=False):
        if child.name == "tr":
            rows.append(child)
        else:
            rows.extend(child.find_all("tr", recursive=False))
    return rows


def _cells_by_row(table: Tag) -> list[list[Tag]]:
    """The cells of ``table`` itself, a list per row."""
    return [row.find_all(["th", "td"], recursive=False) for row in table_rows(table)]


def laid_out(table: Tag) -> bool:
    """Whether ``table`` lays a page out rather than holding data. No header cell, and
    either one column whose cells hold paragraphs, headings or tables (an email's block
    of text), or one row, or one column, whose cells each hold only a picture or a link
    (an email's picture, button or row of icons; an empty cell is a spacer). A data
    table has a header, or words in its cells beside each other and under each other."""
    rows = _cells_by_row(table)
    cells = [cell for row in rows for cell in row]
    if not cells or any(cell.name == "th" for cell in cells):
        return False
    one_column = all(len(row) == 1 for row in rows)
    if one_column and any(cell.find(_BLOCK_CONTENT) is not None for cell in cells):
        return True
    filled = [cell for cell in cells if _shows_something(cell)]
    return (
        bool(filled)
        and (one_column or len(rows) == 1)
        and all(_picture_or_link(cell) for cell in filled)
    )


def _shows_something(cell: Tag) -> bool:
    return bool(cell.get_text().strip()) or cell.find("img") is not None


def _picture_or_link(cell: Tag) -> bool:
    """Whether ``cell`` holds only pictures (linked or not), or one link of words (a
    button), nothing else but wrappers."""
    from bs4.element import NavigableString, Tag

    links = cell.find_all("a")
    worded = [link for link in links if link.get_text().strip()]
    if len(worded) > 1 or (worded and cell.find("img") is not None):
        return False
    for node in cell.descendants:
        if isinstance(node, Tag):
            if node.name not in _NOTHING_ELSE and node.name not in ("a", "img"):
                return False
        elif isinstance(node, NavigableString) and node.strip() and not _in_link(node, cell):
            return False
    return bool(links) or cell.find("img") is not None


def _in_link(node: NavigableString, cell: Tag) -> bool:
    """Whether ``node`` lies inside a link of ``cell``."""
    for parent in node.parents:
        if parent is cell:
            return False
        if parent.name == "a":
            return True
    return False


def unwrap_layout_tables(cleaned: str) -> str:
    """``cleaned`` (balanced HTML) with each table that lays a page out (:func:`laid_out`)
    written as its cells' content, a ``<div>`` each (with the cell's alignment), in
    order."""
    if "<table" not in cleaned:
        return cleaned
    # Imported here, as in sanitize: most raw HTML holds no table.
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(cleaned, "html.parser")
    tables = [table for table in soup.find_all("table") if laid_out(table)]
    if not tables:
        return cleaned
    for table in tables:
        table.replace_with(*_blocks(soup, table))
    return str(soup)


def _blocks(soup: BeautifulSoup, table: Tag) -> list[Tag]:
    """A layout table's caption and cells as blocks, in order; empty cells (spacers) left
    out. The caption is words a browser shows above the table: with the table gone,
    they went with it."""
    blocks = []
    for caption in table.find_all("caption", recursive=False):
        if caption.get_text().strip():
            block = soup.new_tag("div")
            block.extend(list(caption.contents))
            blocks.append(block)
    for cell in (cell for row in _cells_by_row(table) for cell in row):
        if not _shows_something(cell):
            continue
        block = soup.new_tag("div", attrs={k: str(cell[k]) for k in _KEPT if cell.has_attr(k)})
        block.extend(list(cell.contents))
        blocks.append(block)
    return blocks


def pictures_in_cells(raw: str) -> list[int]:
    """The lines of ``raw`` (from 0) holding a picture in a table's cell that stays a
    table (not one that lays a page out: :func:`laid_out`), in order, each once."""
    from bs4 import BeautifulSoup

    lines: list[int] = []
    for image in BeautifulSoup(raw, "html.parser").find_all("img"):
        tables = image.find_parents("table")
        if image.find_parent(["td", "th"]) is None or all(laid_out(t) for t in tables):
            continue
        line = (image.sourceline or 1) - 1
        if line not in lines:
            lines.append(line)
    return lines
