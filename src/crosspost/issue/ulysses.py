"""Ulysses's Markdown XL: comment lines, inline comments and annotations.

A writer in Ulysses keeps notes to self in three ways its editor shows and its exports
leave out: a comment line, ``%%`` and a blank at the start of a line (the comment runs
to the line's end), an inline comment, ``++words++`` (anywhere in a paragraph, over
several of its lines too, or the whole of it), and an annotation,
``{annotated words}(the note)``. Pasted into an
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
Obsidian's. Code and formulas keep all of it as written (``$f^{2}(x)$``), and so does
code written in prose: braces whose words and note are all ASCII, the note no phrase of
words (``{T any}(x)``, ``{a, b}(c)``), or with a blank just inside (``{ return x }(y)``).

``++words++`` is also what WeChat's Markdown editors (doocs/md), Joplin and
markdown-it-ins write for underlined (inserted) text, and MkDocs for keys
(``++ctrl+c++``), which the dialect reads as those. So it is read as Ulysses's comment in
an issue that shows itself to be Ulysses's, by a comment line or an annotation read as
one: there every ``++…++`` is left out, with a note for check, as a writer's comment
must never be published.
"""

from __future__ import annotations

import functools
import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import (
    CODE_OR_MATH,
    CODE_SPAN,
    NOTES,
    line_at,
    outside_code,
    shortened,
)
from crosspost.patterns import pattern

#: The codes check files its notes under.
COMMENT, ANNOTATION = "ulysses-comment", "ulysses-annotation"
#: An inline comment: ``++words++``, within a paragraph, not a language's ``C++`` or
#: ``i++`` (no letter, digit or plus sign just outside the marks, no blank inside them).
_INLINE_COMMENT = pattern(
    r"(?<![A-Za-z0-9_+\\])\+\+(?=[^\s+])(.+?)(?<=[^\s+])\+\+(?![A-Za-z0-9_+])", re.DOTALL
)
#: A comment line: ``%%``, a blank, words, no other mark (not ``50%%``: a line's start).
_COMMENT_LINE = pattern(r"[ \t]*%%[ \t]+(?!.*%%)(\S.*)")
#: A comment mark anywhere (a percent sign written twice after a digit is none).
_MARK = pattern(r"(?<!\d)%%")
#: An annotation: ``{words}(note)``, neither a template's ``{{ … }}`` nor an escaped
#: brace, a formula's ``\\frac{a}{b}`` or ``x^{2}`` (outside ``$``: ``\\[…\\]``) or an
#: attribute list's ``{: .class}``.
_ANNOTATION = pattern(
    r"(?<![{}^\\\w$])\{(?![{:#.\s])([^{}\n]+)(?<!\s)\}\((?!\s)([^()\n]+)(?<!\s)\)"
)
#: A note in words: a phrase (``check the date``), not an argument list (``x``, ``a, b``,
#: ``xs []T``) as code written in prose has after its braces (``{T any}(x)``).
_PHRASE = pattern(r"[A-Za-z][\w'’-]*(?: [\w'’-]+)+[.!?]?")


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
    if "++" in state.src and any(code in (COMMENT, ANNOTATION) for _, code, _ in notes):
        for token in state.tokens:
            if token.type == "inline" and "++" in token.content:
                token.content = _without_comments(token, notes)


def _without_comments(inline: Token, notes: list[tuple[int, str, str]]) -> str:
    """An inline's text with Ulysses's inline comments (``++words++``) left out, but not
    from its code or formulas, a note for check at each comment's first line."""
    text = inline.content
    # Code and formulas masked, each character by one that is no blank and no plus
    # sign, so a comment's marks are found where they are and not inside code.
    masked = CODE_OR_MATH.sub(lambda code: "\0" * len(code.group(0)), text)
    first = inline.map[0] if inline.map else 0
    kept: list[str] = []
    done = 0
    for found in _INLINE_COMMENT.finditer(masked):
        written = " ".join(text[found.start() : found.end()].split())
        line = first + line_at(masked, found.start())
        notes.append(
            (
                line,
                COMMENT,
                f"'{shortened(written)}' is a comment (Ulysses's): the writer's note to "
                "self, left out of every channel; write it without '++' if readers "
                "should see it",
            )
        )
        before = text[done : found.start()]
        after = text[found.end() : found.end() + 1]
        # One blank where the comment stood between two: 'a ++note++ b' is 'a b'.
        kept.append(before.rstrip(" ") if after in (" ", "\n", "") else before)
        done = found.end()
    kept.append(text[done:])
    return "".join(kept).strip(" ")


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
        if found.group(0).isascii() and not _PHRASE.fullmatch(found.group(2)):
            return found.group(0)  # code in prose: {T any}(x), {a, b}(c)
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
