"""Obsidian's ``[[links]]`` and ``![[embeds]]`` (Logseq, Foam and Dendron write them too).

A note links another as ``[[Note]]``, ``[[Note|the words shown]]`` or ``[[Note#Heading]]``,
and embeds a file as ``![[diagram.png]]`` (``![[diagram.png|300]]``: 300 pixels wide).
Markdown shows the brackets as written and never uploads the picture.

An embedded image is read as the image it is: looked for beside the issue like any other
image, uploaded, shown. A link to a note, which no reader outside the vault can follow,
shows its words (the alias, else the note's name, and its heading after a ``>``, as
Obsidian shows it); check says the link is gone. An embedded note, whose text lives in
another file, stays as written, and check names it.
"""

from __future__ import annotations

import re

from markdown_it.rules_inline import StateInline

from crosspost.issue.blocks import PICTURE_ENDING
from crosspost.patterns import pattern

_WIKI = pattern(r"(!?)\[\[([^\[\]\n|]+)(?:\|([^\[\]\n]*))?\]\](?!\()")
#: Files an embed shows as a picture (Obsidian's image formats).
IMAGE_FILE = pattern(rf".+{PICTURE_ENDING}", re.IGNORECASE)
#: ``|300`` or ``|300x200`` after an embedded image: its size in pixels.
_SIZE = pattern(r"\s*(\d+)(?:x(\d+))?\s*")
#: Table-of-contents markers that look like links (``[[toc]]``, ``[[_TOC_]]``): the
#: dialect leaves those lines out itself.
_TOC = pattern(r"_?toc_?", re.IGNORECASE)


def wiki_link(state: StateInline, silent: bool) -> bool:
    """Inline rule, before markdown-it's ``link``: an embedded image as an ``image``
    token, a link to a note as its words."""
    start = state.pos
    if not state.src.startswith("[[", start + (state.src[start] == "!")):
        return False
    if start and state.src[start - 1] == "!" and state.src[start] == "[":
        return False  # an embed this rule left as written: its link stays written too
    found = _WIKI.match(state.src, start, state.posMax)
    if found is None:
        return False
    embed, target, shown = found.group(1), found.group(2).strip(), found.group(3)
    if _TOC.fullmatch(target):
        return False
    if embed:
        file = target.split("#")[0].strip()
        if not IMAGE_FILE.fullmatch(file):
            return False  # a note's text, embedded: it is in another file
        if not silent:
            size = _SIZE.fullmatch(shown or "")
            token = state.push("image", "img", 0)
            alt = "" if size or shown is None else shown.strip()
            token.attrs = {"src": file, "alt": ""}
            token.children = []
            state.md.inline.parse(alt, state.md, state.env, token.children)
            token.content = alt
            if size:
                token.attrs["width"] = size.group(1)
                if size.group(2):
                    token.attrs["height"] = size.group(2)
    elif not silent:
        state.push("text", "", 0).content = link_words(target, shown)
    state.pos = found.end()
    return True


def link_words(target: str, shown: str | None) -> str:
    """What Obsidian shows for ``[[target|shown]]``: the alias, else the note's name and
    its heading (``Note > Heading``; a block reference ``#^id`` shows the name alone)."""
    if shown and shown.strip():
        return shown.strip()
    note, _, heading = target.partition("#")
    if heading and not heading.startswith("^"):
        return f"{note.strip()} > {heading.strip()}" if note.strip() else heading.strip()
    return note.strip()
