"""How a task's box is shown on every channel: neither WeChat nor Zhihu has checkboxes,
so a box is a character, ☑ done and ☐ open, whether the task was written ``- [x]`` in
Markdown or came as HTML (``<input type="checkbox" checked>``, Evernote's ``<en-todo>``).

A list item that opens with a box written as HTML (``- <input type="checkbox" checked>
a``, as GitHub's, Typora's and Obsidian's HTML write a task list) is a task item, as
``- [x] a`` is: the box stands in place of its bullet (WeChat showed ``• ☑ a``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from crosspost.issue.blocks import TAG_ATTRIBUTES, html_attributes
from crosspost.patterns import pattern

#: A task's box by whether it is done.
BOXES = {False: "☐", True: "☑"}

#: A task's box written as HTML, and the blanks after it: Evernote's ``<en-todo
#: checked="true"/>``, a page's ``<input type="checkbox" checked>`` (Apple Notes; the HTML
#: GitHub, Typora and Obsidian write for a task list). Its attributes are in group 3.
_BOX_TAG = pattern(rf"<(/?)(en-todo|input)\b({TAG_ATTRIBUTES})>[ \t]*", re.IGNORECASE)


def written_boxes(fragment: str) -> str:
    """``fragment`` with each task's box written as HTML (:data:`_BOX_TAG`) as the
    character a task item shows, then a blank; any other ``<input>`` as it was."""
    return _BOX_TAG.sub(_box, fragment)


def _box(tag: re.Match[str]) -> str:
    if tag.group(1) and tag.group(2).lower() == "en-todo":
        return ""  # Evernote's closing tag: nothing to show
    done = _done(tag)
    return tag.group(0) if done is None else f"{BOXES[done]} "


def _done(tag: re.Match[str]) -> bool | None:
    """Whether the box ``tag`` opens is ticked; None when it opens no box."""
    closing, name, attributes = tag.group(1), tag.group(2).lower(), _attributes(tag.group(3))
    if closing:
        return None
    if name == "en-todo":
        return attributes.get("checked", "").strip().lower() == "true"  # "true" or "false"
    if attributes.get("type", "").strip().lower() != "checkbox":
        return None
    return "checked" in attributes  # HTML's: a box is checked if it says so


def _attributes(written: str) -> dict[str, str]:
    """A raw tag's attributes (the text after its name), names in lower case."""
    return dict(html_attributes(written))


def boxed_items(tokens: Sequence[Token]) -> None:
    """Make each list item that opens with a box written as HTML a task item, as
    markdown-it makes ``- [x]`` one (``meta["checked"]`` on its ``list_item_open``), the
    box's tag taken out of its first line: every channel then shows it as it shows a
    task item. ``tokens`` are a channel's own copy, changed in place."""
    for index in range(len(tokens) - 2):
        item, opening, line = tokens[index], tokens[index + 1], tokens[index + 2]
        if item.type != "list_item_open" or "checked" in item.meta:
            continue
        if opening.type != "paragraph_open" or line.type != "inline" or not line.children:
            continue
        first = line.children[0]
        found = _BOX_TAG.fullmatch(first.content.strip()) if first.type == "html_inline" else None
        done = _done(found) if found is not None else None
        if done is None:
            continue
        item.meta = {**item.meta, "checked": done}
        del line.children[0]
        if line.children and line.children[0].type == "text":
            line.children[0].content = line.children[0].content.lstrip()
