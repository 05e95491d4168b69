"""Ulysses's Markdown XL: comment lines and annotations.

A writer in Ulysses keeps notes to self in two ways its editor shows and its exports
leave out: a comment line, ``%%`` and a blank at the start of a line (the comment runs
to the line's end), and an annotation, ``{annotated words}(the note)``. Pasted into an
issue, both were shown as written: ``%% 待核实`` and ``{FlashAttention-3}(需要确认日期)``
in the article, the writer's private notes published. Worse, two comment lines read as
Obsidian's comment (``%%`` to the next ``%%``, :mod:`crosspost.issue.private_notes`):
everything between them was left out, the article's own paragraphs with them, and the
second comment's words were shown.

Here a comment line is left out, with a note for check; an annotation is its words,
the note left out, with a note for check. A line that starts ``%%`` is read as Ulysses's
only where Obsidian's reading cannot be meant: no other ``%%`` on the line, and the next
``%%`` of the issue, if any, is another such line. ``%%`` alone on a line, ``%% … %%``
on one line and a comment ``%% from here`` closed by a later ``to here %%`` stay
Obsidian's. Code and formulas keep all of it as written (``$f^{2}(x)$``).
"""

from __future__ import annotations

import functools
import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import CODE_OR_MATH, CODE_SPAN, NOTES, outside_code, shortened
from crosspost.patterns import pattern

#: The codes check files its notes under.
COMMENT, ANNOTATION = "ulysses-comment", "ulysses-annotation"
#: A comment line: ``%%``, a blank, words, no other mark (not ``50%%``: a line's start).
_COMMENT_LINE = pattern(r"[ \t]*%%[ \t]+(?!.*%%)(\S.*)")
#: A comment mark anywhere (a percent sign written twice after a digit is none).
_MARK = pattern(r"(?<!\d)%%")
#: An annotation: ``{words}(note)``, neither a template's ``{{ … }}`` nor an escaped
#: brace, a formula's ``\\frac{a}{b}`` or ``x^{2}`` (outside ``$``: ``\\[…\\]``) or an
#: attribute list's ``{: .class}``.
_ANNOTATION = pattern(r"(?<![{}^\\\w$])\{(?![{:#.])([^{}\n]+)\}\(([^()\n]+)\)")


def ulysses_marks(state: StateCore) -> None:
    """Core rule, before inline parsing (and before Obsidian's comments are read): a
    comment line left out, an annotation's note left out (see the module)."""
    if "%%" not in state.src and "}(" not in state.src:
        return
    notes = state.env.setdefault(NOTES, [])
    paragraphs = [
        inline
        for before, inline in zip(state.tokens, state.tokens[1:], strict=False)
        if before.type == "paragraph_open" and inline.type == "inline"
    ]
    comments = _comment_lines(paragraphs) if "%%" in state.src else set()
    for at, inline in enumerate(paragraphs):
        first = inline.map[0] if inline.map else 0
        lines: list[str] = []
        for number, text in enumerate(inline.content.split("\n")):
            if (at, number) in comments:
                written = shortened(text.strip())
                notes.append((first + number, COMMENT, _left_out(written)))
                continue
            if "}(" in text:
                annotated = functools.partial(_annotated, line=first + number, notes=notes)
                text = outside_code(text, annotated, CODE_OR_MATH)  # $f^{2}(x)$: a formula
            lines.append(text)
        inline.content = "\n".join(lines)


def _comment_lines(paragraphs: list[Token]) -> set[tuple[int, int]]:
    """The lines of ``paragraphs`` (a paragraph's index, a line's within it) that are
    Ulysses's comment lines: each a candidate (``%% words``, no other mark) whose next
    mark in the issue starts another one, or that has none after it."""
    marks: list[tuple[int, int, bool]] = []  # each mark in order: its line, a candidate's?
    for at, inline in enumerate(paragraphs):
        if "%%" not in inline.content:
            continue
        for number, text in enumerate(inline.content.split("\n")):
            if _COMMENT_LINE.fullmatch(text) and not CODE_SPAN.search(text):
                marks.append((at, number, True))
                continue
            outside = CODE_SPAN.sub(lambda code: " " * len(code.group(0)), text)
            marks += [(at, number, False) for _ in _MARK.finditer(outside)]
    return {
        (at, number)
        for index, (at, number, candidate) in enumerate(marks)
        if candidate and (index + 1 == len(marks) or marks[index + 1][2])
    }


def _left_out(written: str) -> str:
    return (
        f"'{written}' is a comment line (Ulysses's): the writer's note to self, left out "
        "of every channel; write it without '%%' if readers should see it"
    )


def _annotated(text: str, line: int, notes: list[tuple[int, str, str]]) -> str:
    def words(found: re.Match[str]) -> str:
        notes.append(
            (
                line,
                ANNOTATION,
                f"'{shortened(found.group(0))}' is an annotation (Ulysses's): its words "
                f"'{shortened(found.group(1))}' are shown, its note left out of every "
                "channel; write the note in the text if readers should see it",
            )
        )
        return found.group(1)

    return _ANNOTATION.sub(words, text)
