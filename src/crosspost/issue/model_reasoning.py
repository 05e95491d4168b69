"""A reasoning model's thinking, pasted with its answer, left out.

DeepSeek-R1, QwQ and 豆包's deep thinking write what they think before they answer
between ``<think>`` and ``</think>`` (Claude's between ``<thinking>`` tags), and an
answer copied whole keeps it. Markdown reads the tags as raw HTML of no element: the
reasoning went out as the article's first paragraphs (its Markdown unread, shown as
written), and check advised writing ``<think>`` as code.

A ``<think>`` at the start of a line (indented three spaces at most) opens the block and
the next ``</think>`` closes it, blank lines and Markdown between included. The whole
block is left out of every channel before the block parse, its lines kept as blank
lines so that everything after it keeps its line number, and noted for check. A tag in
code (a fence, a span) is an example of it and stays; an opening never closed is left
as written.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, line_at, outside_fences
from crosspost.patterns import pattern

#: A reasoning block: its opening at a line's start, to its closing tag.
_REASONING = pattern(
    r"^[ \t]{0,3}<(think|thinking)>[ \t]*\n.*?^[ \t]{0,3}</\1\s*>",
    re.IGNORECASE | re.MULTILINE | re.DOTALL,
)
#: The code check files the notes under (a warning).
CODE = "model-reasoning"


def model_reasoning(state: StateCore) -> None:
    """Core rule, before the block parse: reasoning blocks left out (see the module)."""
    if "<think" not in state.src.lower():
        return
    notes = state.env.setdefault(NOTES, [])

    def leave_out(found: re.Match[str]) -> str:
        first = line_at(found.string, found.start())
        breaks = found.group(0).count("\n")
        notes.append((first, CODE, _message(first, first + breaks, found.group(1))))
        return "\n" * breaks

    state.src = outside_fences(_REASONING, state.src, leave_out)


def _message(first: int, last: int, tag: str) -> str:
    """What check says of a block on the body's lines ``first`` to ``last`` (0-based)."""
    lines = "this line" if first == last else f"these {last - first + 1} lines"
    return (
        f"<{tag}> … </{tag}> on {lines} is the model's reasoning before its answer "
        "(DeepSeek-R1, QwQ and 豆包 write it so), not part of the answer, so it is left out "
        "of every channel; delete it from the issue to silence this"
    )
