"""Content tabs, each shown as its title in bold with its content under it.

Documentation sites put one thing's variants side by side in tabs (the install command
for Linux, for macOS, for Windows): MkDocs Material as ``=== "Linux"`` with the content
indented four spaces, GitBook as ``{% tab title="Linux" %}`` … ``{% endtab %}`` inside
``{% tabs %}``, Hexo NexT as ``<!-- tab Linux -->`` … ``<!-- endtab -->``. No channel
has tabs, and Markdown showed MkDocs's content as code and the others' markers as text.
Every tab is shown, one after the other, its title a bold line of its own: what a reader
of the site would see by clicking through them.
"""

from __future__ import annotations

from markdown_it.rules_block import StateBlock

from crosspost.issue.blocks import escaped, inner, line_match, paragraph
from crosspost.patterns import pattern

#: MkDocs Material's tab line: ``=== "Title"`` (``===!`` starts a new set, ``===+``
#: selects the tab; both read the same here).
_MKDOCS_TAB = pattern(r"===[!+]?[ \t]+\"([^\"\n]*)\"[ \t]*")
#: Hexo NexT's tab inside ``{% tabs %}``: ``<!-- tab Title @icon -->`` and its end.
NEXT_TAB = pattern(r"<!--\s*tab\b(.*?)-->\s*")
NEXT_TAB_END = pattern(r"<!--\s*endtab\s*-->\s*")
#: Where a tab's content may be: inside ``{% tabs %}`` (see template_tags).
TABS = "tabs"


def tab_title(state: StateBlock, title: str, line: int) -> None:
    """A paragraph holding ``title`` in bold, for the tab that starts on ``line``."""
    paragraph(state, f"**{escaped(title.strip())}**", line)


def mkdocs_tab(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: ``=== "Title"`` and the lines indented under it."""
    found = line_match(state, start, "===", _MKDOCS_TAB)
    if found is None:
        return False
    if silent:
        return True
    indent = state.blkIndent
    state.blkIndent = state.sCount[start] + 4
    close = start + 1
    while close < end:
        empty = state.isEmpty(close)
        if not empty and state.sCount[close] < state.blkIndent:
            break
        close += 1
    while close > start + 1 and state.isEmpty(close - 1):
        close -= 1  # the blank lines after the content belong to what follows
    tab_title(state, found.group(1), start)
    inner(state, start, close, state.parentType)
    state.blkIndent = indent
    state.line = close
    return True


def next_tab(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: Hexo NexT's ``<!-- tab Title @icon -->`` inside ``{% tabs %}``, up to
    its ``<!-- endtab -->`` (else to the end of the tabs)."""
    found = line_match(state, start, "<!--", NEXT_TAB) if state.parentType == TABS else None
    if found is None:
        return False
    if silent:
        return True
    ends = (line for line in range(start + 1, end) if line_match(state, line, "<!--", NEXT_TAB_END))
    close = next(ends, end)
    title = " ".join(word for word in found.group(1).split() if not word.startswith("@"))
    if title:
        tab_title(state, title, start)
    inner(state, start, close)
    state.line = min(close + 1, end)
    return True
