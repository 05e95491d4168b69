"""MyST's roles, targets and equation labels (Jupyter Book, Sphinx), read as the book shows them.

A page written in MyST refers with roles, ``{doc}`eigen_I```, ``{ref}`the setup
<setup>```, ``{cite}`russell2004```, ``{eq}`eq:2diff1```, writes a formula inline as
``{math}`a^2```, marks a heading as a target with a ``(label)=`` line above it, and
labels an equation by name (``$$ … $$ (eq:2diff1)``), which the book numbers. Read as
Markdown, the role's name went out as text before its argument in code, the target as
a paragraph, and the label as the equation's number: "(eq:2diff1)".

Here a role is what the book shows for it: a formula for ``math``; the equation's number
for ``eq``; for ``ref``, ``doc``, ``numref``, ``term`` and their kin, the words of the
reference (``text <target>``: the text; else the heading the target marks, else the
target); ``[key]`` for a citation; code for ``code``, ``kbd``, ``file`` and their kin;
its words for any other. A target line is left out, and equations labelled by name are
numbered 1, 2, 3 in the page's order (a label that is a number already stays).
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.patterns import pattern

#: A target line: ``(content:myst/directives)=``.
_TARGET = pattern(r"\(([^()\s]+)\)=")
#: ``the words <target>`` in a reference role.
_WORDS_AND_TARGET = pattern(r"(.*?)\s*<([^<>]+)>\s*$", re.DOTALL)
#: An equation label that is a number the writer gave (``(3)``, ``(2.1)``, ``(A.1)``).
_NUMBER = pattern(r"[A-Za-z]?\d+(?:[.-]\d+)*[a-z]?")
#: Roles that refer to something elsewhere in the book: their words, else the target.
_REFERENCES = frozenset(
    {"ref", "doc", "numref", "term", "any", "download", "external", "prf:ref", "external+"}
)
_CITATIONS = frozenset(
    {"cite", "cite:p", "cite:t", "cite:ps", "cite:ts", "footcite", "citet", "citep"}
)
_CODE = frozenset(
    {"code", "literal", "kbd", "file", "samp", "command", "program", "envvar", "option"}
)
#: Where the equation numbers of the page are kept while it is read: label -> number.
EQUATIONS = "crosspost_equations"
#: Where the headings under target lines are kept: label -> the heading's words.
TARGETS = "crosspost_targets"


def targets_and_labels(state: StateCore) -> None:
    """Core rule, before inline parsing: target lines left out, equations labelled by
    name numbered (the numbers kept in ``env`` for the ``eq`` role)."""
    numbers: dict[str, str] = state.env.setdefault(EQUATIONS, {})
    headings: dict[str, str] = state.env.setdefault(TARGETS, {})
    kept: list[Token] = []
    index = 0
    tokens = state.tokens
    while index < len(tokens):
        token = tokens[index]
        if token.type == "math_block_label" and token.info and not _NUMBER.fullmatch(token.info):
            numbers.setdefault(token.info, str(len(numbers) + 1))
            token.info = numbers[token.info]
        elif token.type == "paragraph_open" and index + 1 < len(tokens):
            target = _TARGET.fullmatch(tokens[index + 1].content.strip())
            if target is not None:
                following = tokens[index + 3 : index + 5]
                if len(following) == 2 and following[0].type == "heading_open":
                    headings[target.group(1)] = following[1].content.strip()
                index += 3  # the target line's paragraph
                continue
        kept.append(token)
        index += 1
    state.tokens = kept


def roles(state: StateCore) -> None:
    """Core rule, after inline parsing: each role token as what the book shows for it."""
    numbers: dict[str, str] = state.env.get(EQUATIONS, {})
    headings: dict[str, str] = state.env.get(TARGETS, {})
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        for index, token in enumerate(block.children):
            if token.type == "myst_role":
                block.children[index] = _shown(token, numbers, headings)


def _shown(role: Token, numbers: dict[str, str], headings: dict[str, str]) -> Token:
    name, content = str(role.meta.get("name", "")).lower(), role.content
    if name == "math":
        shown = Token("math_inline", "math", 0, content=content, markup="$")
    elif name in _CODE:
        shown = Token("code_inline", "code", 0, content=content, markup="`")
    else:
        words = _WORDS_AND_TARGET.match(content)
        if name == "eq":
            label = words.group(2) if words else content
            text = f"({numbers.get(label.strip(), label.strip())})"
        elif name in _CITATIONS:
            text = f"[{content}]"
        elif name in _REFERENCES and words and words.group(1):
            text = words.group(1)
        elif name in _REFERENCES:
            target = (words.group(2) if words else content).strip()
            text = headings.get(target, target)  # a heading's target: its words
        else:
            text = content
        shown = Token("text", "", 0, content=text)
    shown.meta = {"role": name}
    return shown
