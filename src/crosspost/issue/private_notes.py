"""What Obsidian and Logseq hide from a reader: comments, block ids, block properties.

A writer keeps notes to self between ``%%`` marks, inside a line (``正文%%待核实%%继续``)
or around whole blocks (a ``%%`` line, a draft paragraph, a callout, a ``%%`` line);
Obsidian shows none of it. A block a note links to carries an id at the end of its last
line (``…一段话。 ^intro``), or on a line of its own under a table or a list (``^table1``).
Read as Markdown, every one of them was published, private notes included. Logseq writes
each block's properties on lines under it (``id:: 6955f017-…``, ``collapsed:: true``),
and a time log between ``:LOGBOOK:`` and ``:END:``: none of it is for a reader (a
reference to a block by its id, ``((6944e6d6-…))``, stands for words a reader misses:
see :mod:`crosspost.issue.logseq`).
A property of the writer's own (``作者:: 李雷``, Roam's ``Author:: Jane``, Dataview's
``rating:: 9``) is shown by each of those tools, and so it is here: ``Author: Jane``, on a
line of its own.

Here they are left out before anything reads the words (renderers, lint, the size
checks). Code is code: a ``%%`` in a code span or block stays. An email service's merge
tag, ``%%FirstName%%``, is no comment (see :mod:`crosspost.issue.merge_tags`): it stays,
and check names it.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import emptied, outside_code
from crosspost.issue.merge_tags import PERCENT_TAG
from crosspost.patterns import pattern

MARK = "%%"
#: A comment inside one inline's text (it may run over its lines), after what it is not
#: in: a raw tag and a link's target, where ``%%share_url%%`` is a newsletter service's
#: placeholder (check names it), and a merge tag (``%%FirstName%%``), taken whole first
#: so that no comment starts inside one. Not after a digit either (``50%%``, a percent
#: sign written twice).
_COMMENT = pattern(
    rf"(<[A-Za-z/][^<>]*>|\]\([^()\s]*\)|{PERCENT_TAG.pattern})|(?<!\d)%%.*?%%", re.DOTALL
)
#: A block id at the end of a line: a blank, ``^``, letters, digits and dashes, a letter
#: among them (``x ^2`` is a power).
_ID = r"\^(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9-]+"
_BLOCK_ID = pattern(rf"[ \t]+{_ID}[ \t]*$", re.MULTILINE)
#: A block id alone on its line (under a table or a list, Obsidian's way).
_ID_LINE = pattern(_ID)
#: A property line (Logseq's ``collapsed:: true``, Roam's ``Author:: Jane``): its name and
#: its value. Logseq's own are hidden (:data:`_HIDDEN_PROPERTIES`), the writer's shown.
_PROPERTY = pattern(r"[ \t]*([^\W\d_][\w.-]*)::(?:[ \t]+(.*))?")
#: The properties Logseq keeps for itself and never shows (a block's id, its folding,
#: heading and colour, the list's numbering, flashcards' and queries' state), and a page's
#: own (its title, aliases and tags: the page's data, as front matter is an issue's).
_HIDDEN_PROPERTIES = frozenset(
    {"title", "alias", "aliases", "tags", "id", "collapsed", "heading", "background-color",
     "ls-type", "hl-type", "hl-page", "hl-color", "hl-stamp", "filters", "public",
     "exclude-from-graph-view", "template", "template-including-parent", "query-table",
     "query-properties", "query-sort-by", "query-sort-desc"}
)  # fmt: skip
#: Logseq's drawer's lines.
_DRAWER = pattern(r"^[ \t]*:LOGBOOK:[ \t]*\n(?:.*\n)*?[ \t]*:END:[ \t]*$", re.MULTILINE)


def private_notes(state: StateCore) -> None:
    """Core rule, before inline parsing: comments between ``%%`` marks, in a line or
    around blocks, and block ids, left out of the body (see the module's docstring)."""
    # '{{' and 'SCHEDULED:': a Logseq macro or planning line left out (see logseq) may
    # have emptied a block, which goes as one of notes alone does.
    marks = (MARK, "^", "::", ":LOGBOOK:", "{{", "SCHEDULED:", "DEADLINE:")
    if not any(mark in state.src for mark in marks):
        return
    state.tokens = _without_comment_blocks(state.tokens)
    kept: list[Token] = []
    index = 0
    tokens = state.tokens
    while index < len(tokens):
        token = tokens[index]
        inline = tokens[index + 1] if index + 1 < len(tokens) else None
        if inline is not None and inline.type == "inline":
            content = outside_code(inline.content, _without_notes)
            if token.type == "paragraph_open" and not content.strip():
                index += 3  # the paragraph held nothing but notes
                # A Logseq block of properties alone (``- tags:: 读书``): no empty bullet.
                while kept and index < len(tokens) and emptied(kept[-1], tokens[index]):
                    kept.pop()
                    index += 1
                continue
            inline.content = content
        kept.append(token)
        index += 1
    state.tokens = kept


def _properties(text: str) -> str:
    """``text`` without Logseq's own property lines, and each of the writer's written
    ``name: value`` on a line of its own (a hard break after it: Chinese lines would
    otherwise join into one)."""
    lines = text.split("\n")
    kept: list[str] = []
    for number, line in enumerate(lines):
        found = _PROPERTY.fullmatch(line)
        if found is None:
            kept.append(line)
            continue
        name, value = found.group(1), (found.group(2) or "").strip()
        if name.lower() in _HIDDEN_PROPERTIES or name.lower().startswith(("logseq.", "card-")):
            continue
        if not value:
            continue  # a name with nothing set: nothing to show
        indent = line[: len(line) - len(line.lstrip())]
        last = number == len(lines) - 1
        kept.append(f"{indent}{name}: {value}{'' if last else chr(92)}")
    return "\n".join(kept)


def _without_notes(text: str) -> str:
    if MARK in text:
        text = _COMMENT.sub(lambda found: found.group(1) or "", text)
    if "::" in text or ":LOGBOOK:" in text:
        text = _DRAWER.sub("", text)
        text = _properties(text)
    if "^" in text:
        text = _BLOCK_ID.sub("", text)
        lines = text.split("\n")
        text = "\n".join(line for line in lines if not _ID_LINE.fullmatch(line.strip()))
    return text


def _without_comment_blocks(tokens: list[Token]) -> list[Token]:
    """``tokens`` without a comment that spans blocks: from the ``%%`` left open in one
    paragraph (an odd number of marks) to the one that closes it in the next paragraph at
    its level that has an odd number, every block between them included (a callout, a
    list, a table). The words before the opening mark and after the closing one stay. A
    comment never closed stays whole (it may be a percentage sign written twice)."""
    kept: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "paragraph_open" and _marks(tokens[index + 1]) % 2:
            closing = _closing_paragraph(tokens, index)
            if closing is not None:
                opened, closed = tokens[index + 1], tokens[closing + 1]
                opened.content = opened.content[: _comment_marks(opened.content)[-1]]
                closed.content = closed.content[_comment_marks(closed.content)[0] + len(MARK) :]
                kept += tokens[index : index + 3]
                index = closing
                continue
        kept.append(token)
        index += 1
    return kept


def _marks(inline: Token) -> int:
    """The ``%%`` marks in an inline's text outside its code spans (not after a digit)."""
    count = 0

    def counted(text: str) -> str:
        nonlocal count
        count += len(_comment_marks(text))
        return text

    outside_code(inline.content, counted)
    return count


#: A comment's mark, not a percent sign written twice (``50%%``); a merge tag is taken
#: whole, so that neither of its marks counts.
_MARK = pattern(rf"{PERCENT_TAG.pattern}|(?<!\d)%%")


def _comment_marks(text: str) -> list[int]:
    """Where the comment marks of ``text`` start: not a merge tag's, not ``50%%``."""
    return [found.start() for found in _MARK.finditer(text) if len(found.group()) == len(MARK)]


#: A paragraph that opens a comment ends with its mark (``%%`` alone, ``草稿 %%``) or has
#: it at a line's start; one that closes a comment, the other way round.
_OPENS = pattern(r"(?:^|\n)[ \t]*%%|%%[ \t]*$")


def _closing_paragraph(tokens: list[Token], opening: int) -> int | None:
    level = tokens[opening].level
    for at in range(opening + 3, len(tokens) - 1):
        token = tokens[at]
        if token.level < level:
            return None  # the container it sits in ended first
        if token.type == "paragraph_open" and token.level == level and _marks(tokens[at + 1]) % 2:
            return at
    return None
