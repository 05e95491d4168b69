"""Task items other tools write beyond GitHub's ``- [ ]`` and ``- [x]``.

Obsidian (with the task themes most of its writers use) marks a task's state with other
characters in the box: ``- [>] 推迟``, ``- [/] 进行中``, ``- [!] 重要``, ``- [?] 待定``,
``- [-] 取消``. Roam writes a task as ``- {{[[TODO]]}} …`` and ``- {{[[DONE]]}} …``.
markdown-it knows only the first two boxes, so these went out as written, ``[>]`` and
``{{TODO}}`` before the words. Logseq opens a task's block with its state, ``TODO``,
``DOING``, ``LATER``, ``NOW``, ``WAITING``, ``DONE``, ``CANCELED`` (a priority, ``[#A]``,
may follow). Here each is a task item, shown as crosspost shows task lists (☐ open, ☑
done): a task put off, begun, flagged or in question is still open, a cancelled one is
open with its words struck out, as Obsidian draws it.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.logseq import logseqs
from crosspost.patterns import pattern

#: A box at the start of an item's text: Obsidian's (its character in group 1) or Roam's
#: (``TODO`` or ``DONE`` in group 2), and the blank after it.
_BOX = pattern(r"\[([>/!?<-])\][ \t]+|\{\{(?:\[\[)?(TODO|DONE)(?:\]\])?\}\}[ \t]*")
_CANCELLED = "-"
#: Logseq's state at the start of a task's block, and its priority (``[#A]``), if any.
_LOGSEQ_STATE = pattern(
    r"(TODO|DOING|LATER|NOW|WAITING|WAIT|IN-PROGRESS|STARTED|DONE|CANCELED|CANCELLED)"
    r"(?:[ \t]+\[#[A-Z]\])?[ \t]+"
)
#: A GitHub task item anywhere in the file: ``- [ ] …``, ``* [x] …``.
_TASK_ITEM = pattern(r"^[ \t]*[-*+][ \t]+\[[ xX]\][ \t]", re.MULTILINE)


def task_states(state: StateCore) -> None:
    """Core rule, before inline parsing: an item opening with one of those boxes is a
    task item (``meta["checked"]`` on its ``list_item_open``, as markdown-it sets it for
    ``[ ]`` and ``[x]``), the box left out of its words."""
    # Logseq's states only in a page Logseq wrote: elsewhere '- NOW 上线' is words.
    logseq = logseqs(state.src)
    if "[" not in state.src and "{{" not in state.src and not logseq:
        return
    # Obsidian's boxes only where the writer keeps tasks (a [ ] or [x] item in the file):
    # a changelog's '- [-] Removed bar' or '- [!] Breaking' is no task.
    tasks = _TASK_ITEM.search(state.src) is not None
    tokens = state.tokens
    for index in range(len(tokens) - 2):
        item, paragraph, inline = tokens[index : index + 3]
        if (
            item.type != "list_item_open"
            or "checked" in (item.meta or {})
            or paragraph.type != "paragraph_open"
            or inline.type != "inline"
        ):
            continue
        found = _BOX.match(inline.content)
        if found is not None and found.group(1) and (not tasks or item.markup in ".)"):
            continue  # an ordered list's item keeps its number
        if found is not None:
            state_of = found.group(2) or ("CANCELED" if found.group(1) == _CANCELLED else "")
        elif logseq and (found := _LOGSEQ_STATE.match(inline.content)) is not None:
            state_of = found.group(1)
        else:
            continue
        words = inline.content[found.end() :]
        if not words.strip():
            continue  # a box alone: nothing to show as a task
        item.meta = {**(item.meta or {}), "checked": state_of == "DONE"}
        if state_of in ("CANCELED", "CANCELLED"):
            words = f"~~{words.strip()}~~"
        inline.content = words
