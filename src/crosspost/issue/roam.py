"""What a Roam Research export writes that is Roam's, not Markdown's.

A page exported from Roam is an outline of blocks, and some of its marks only mean
something inside the graph: ``{{[[query]]: …}}``, ``{{embed: ((uid))}}`` and the other
``{{…}}`` macros are filled in by Roam from other pages, a block reference ``((Gx7s-k9aL))``
(a block's nine-character uid) shows that block's words, and an alias
``[words]([[Page]])`` or ``[words](((uid)))`` leads to a page of the graph. Read as
Markdown, every one went out as written (check called the macros template variables), and
each alias became a numbered reference to ``[[Page]]`` on WeChat. Here a block reference
and an embed leave a visible ``[…]`` (an embedded page, its name) and check warns at their
line, as for Logseq's (:mod:`crosspost.issue.block_references`); another macro is left
out, an alias is its words, ``^^words^^`` is highlighted as ``==words==`` is, and check
says what went: the words they stood for are elsewhere in the graph, and only the writer
can copy them in.

Roam's ``__words__`` is italic, Markdown's bold; see :func:`roam_italics` for when it is
read Roam's way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from markdown_it.rules_core import StateCore

from crosspost.issue.block_references import embed_message, in_place_of, reference_message
from crosspost.issue.blocks import NOTES, inline_lines
from crosspost.patterns import pattern

#: A Roam block's uid: nine letters, digits, ``-`` or ``_``. Not one word of letters
#: alone (``((important))`` is someone's emphasis): a digit, ``-`` or ``_``, or a capital
#: after a small letter, as almost every generated uid has.
_UID = r"(?=[A-Za-z]{0,8}[0-9_-]|[A-Za-z]{0,7}[a-z][A-Z])[A-Za-z0-9_-]{9}"
_BLOCK_REFERENCE = pattern(rf"\(\({_UID}\)\)")
#: What an embed embeds: a block, ``((uid))``, or a page, ``[[Page]]`` (its name in a group).
_EMBEDDED = pattern(rf"\(\({_UID}\)\)|\[\[([^\[\]\n]+)\]\]")
#: An alias: its words, then a page (``[[Page]]``) or a block (``((uid))``) as its target.
_ALIAS = pattern(rf"\[([^\[\]\n]+)\]\((?:\[\[[^\[\]\n]+\]\]|\(\({_UID}\)\))\)")
#: Where a Roam macro starts: ``{{[[name]]``, or one of Roam's own names written bare
#: (``{{embed: …}}``, ``{{word-count}}``, ``{{roam/render: …}}``), its name in a group.
_MACRO = pattern(
    r"\{\{(?:\[\[([^\[\]{}\n]{1,40})\]\]|(roam/[\w/-]{1,40}|(?:embed|query|table|slider|"
    r"word-count|character-count|pomo|youtube|video|iframe|pdf|calc|diagram|kanban|"
    r"mentions|orphans|encrypt|attr-table|TODO|DONE)(?=\s*[:}])))",
    re.IGNORECASE,
)
#: ``^^highlighted^^``: words touching both marks.
_HIGHLIGHT = pattern(r"\^\^(?=[^\s^])([^\^\n]+?)(?<=[^\s^])\^\^")
#: What only Roam writes: a macro's ``{{[[``, an alias of a page or a block. The sign
#: that a file is Roam's, so its ``((uid))`` are block references, its ``^^…^^``
#: highlights and its ``__words__`` italics.
_ROAMS_HAND = pattern(r"\{\{\[\[|\]\(\[\[|\]\(\(\(")
#: The most a macro is read for its closing braces (a query spans a line, not a book):
#: a line of unclosed ``{{embed:`` took a second for each scan to its end.
_LONGEST_MACRO = 2_000
#: How :func:`roam_export`'s helpers note what they left out: (kind, line, what).
_Noted = Callable[[str, int, str], None]
#: How they note what check warns of at its own line: (line, code, message).
_Warned = Callable[[int, str, str], None]
#: The codes of what check is told (warnings): a block reference, a macro or an embed.
REFERENCE_CODE = "roam-reference"
MACRO_CODE = "roam-macro"
ALIAS_CODE = "roam-alias"
#: A task's marks written as a macro outside a task item: the box it stands for.
_BOXES = {"todo": "☐", "done": "☑"}


def roam_export(state: StateCore) -> None:
    """Core rule, before inline parsing: Roam's block references and embeds as ``[…]``,
    its other macros left out, its aliases as their words, its highlights as ``==…==``
    (see the module); a note for check at the line of each reference and embed, and of
    each other kind at the line of the first."""
    if not any(mark in state.src for mark in ("{{", "((", "]([[", "^^")):
        return
    # Block references and ^^highlights^^ only in a file Roam wrote (a macro or an alias
    # says so): elsewhere ((2023-2024)) is a writer's parentheses, ^^ an emoticon.
    roams = _ROAMS_HAND.search(state.src) is not None
    found: dict[str, tuple[int, list[str]]] = {}
    warned: list[tuple[int, str, str]] = []

    def noted(kind: str, line: int, what: str) -> None:
        named = found.setdefault(kind, (line, []))[1]
        if what not in named:
            named.append(what)

    def warn(line: int, code: str, message: str) -> None:
        warned.append((line, code, message))

    rewrite = functools.partial(_rewritten, noted=noted, warned=warn, roams=roams)
    for token, lines in inline_lines(state.tokens, lambda text: True, rewrite):
        token.content = "\n".join(lines)
    notes = state.env.setdefault(NOTES, []) if found or warned else []
    notes.extend(warned)
    if "macro" in found:
        line, names = found["macro"]
        notes.append(
            (
                line,
                MACRO_CODE,
                f"Roam's {', '.join(names)} (and the like) are filled in by Roam from the "
                "rest of the graph: they are left out; copy in what they showed if the "
                "article needs it",
            )
        )
    if "alias" in found:
        line, aliases = found["alias"]
        notes.append(
            (
                line,
                ALIAS_CODE,
                f"'{aliases[0]}'{_more(aliases)} is an alias (Roam's, Logseq's) of a page or "
                "block of your graph: no reader outside it can follow it, so only its words "
                "are shown; write [text](url) to link",
            )
        )


def _more(named: list[str]) -> str:
    return f" (and {len(named) - 1} more)" if len(named) > 1 else ""


def _rewritten(text: str, line: int, noted: _Noted, warned: _Warned, roams: bool) -> str:
    """One line of an inline's text (no code span in it), Roam's marks read: its block
    references and highlights only when the file is Roam's (``roams``)."""
    if "{{" in text:
        text = _without_macros(text, line, noted, warned)
    if "](" in text:

        def alias(found: re.Match[str]) -> str:
            noted("alias", line, found.group(0))
            return found.group(1)

        text = _ALIAS.sub(alias, text)
    if not roams:
        return text
    if "((" in text:
        references: list[str] = []

        def reference(found: re.Match[str]) -> str:
            references.append(found.group(0))
            return in_place_of()

        text = _BLOCK_REFERENCE.sub(reference, text)
        if references:
            warned(line, REFERENCE_CODE, reference_message("Roam", references))
    if "^^" in text:
        text = _HIGHLIGHT.sub(r"==\1==", text)
    return text


def _without_macros(text: str, line: int, noted: _Noted, warned: _Warned) -> str:
    """``text`` without its Roam macros, each to the ``}}`` that closes it (braces inside
    a query are counted), an embed of a block or a page as what stands in its place (see
    :mod:`~crosspost.issue.block_references`); one never closed on its line stays as
    written, with the rest of the line (each unclosed one was read to the line's end: a
    square of its length)."""
    pieces: list[str] = []
    done = 0
    for found in _MACRO.finditer(text):
        if found.start() < done:
            continue  # inside a macro already left out
        depth, at = 0, found.start()
        last = min(len(text), found.start() + _LONGEST_MACRO)
        while at < last:
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            at += 1
            if depth == 0:
                break
        if depth:
            break  # never closed: the rest of the line stays as written, read once
        name = (found.group(1) or found.group(2)).strip()
        box = _BOXES.get(name.lower()) if text[found.end() : at] == "}}" else None
        pieces.append(text[done : found.start()])
        embedded = (
            _EMBEDDED.fullmatch(text[found.end() : at - 2].lstrip(" \t:").strip())
            if name.lower() == "embed"
            else None
        )
        if embedded is not None:
            page = embedded.group(1) or ""
            warned(line, MACRO_CODE, embed_message("Roam", text[found.start() : at], page))
            pieces.append(in_place_of(page))
        elif box is not None:
            pieces.append(box)  # a task's box outside a task item (see task_states)
        else:
            noted("macro", line, "{{" + name.split("/")[0].lower() + "}}")
        done = at
    return "".join(pieces) + text[done:] if pieces else text


def roam_italics(state: StateCore) -> None:
    """Core rule, after inline parsing: in a Roam export, ``__words__`` italic.

    Roam writes italics with two underscores, where Markdown (and every other editor:
    Obsidian, Typora, GitHub) reads bold. Only a document that holds what nothing but Roam
    writes (a ``{{[[…]]}}`` macro, a block reference, an alias of a page) is read Roam's
    way; a wiki link alone is not enough, as Obsidian writes those and means bold."""
    if "__" not in state.src or not _ROAMS_HAND.search(state.src):
        return
    for block in state.tokens:
        for token in block.children or ():
            if token.type in ("strong_open", "strong_close") and token.markup == "__":
                token.type = token.type.replace("strong", "em")
                token.tag = "em"
