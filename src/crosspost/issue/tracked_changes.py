"""A Word document's tracked changes and comments, as Pandoc writes them into Markdown.

Converted with ``pandoc --track-changes=all`` (or by a tool that calls it so), a document
still under review keeps each change and each reviewer's comment as a raw span:
``<span class="deletion" author="李四">800</span>``, ``<span class="insertion" …>500</span>``,
``<span class="comment-start" id="0" author="张三">别对外说这个数</span>`` … ``<span
class="comment-end" id="0"></span>``. Read as HTML, every span showed its words: the
deleted figure beside the new one ("预算为800500万元") and the reviewer's private note
in the article.

Here the document reads as the changes accepted: a deletion goes with its words, an
insertion keeps them, a comment goes with its words, its end mark with it; check says
how many of each there were, so the editor knows the review was not finished.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, in_code_span, outside_fences
from crosspost.patterns import pattern

#: One of Pandoc's change or comment spans, with what it holds (no span inside it: Pandoc
#: writes a change's words as text and marks).
_CHANGE = pattern(
    r"<span\b[^<>]*?\bclass\s*=\s*[\"']?(deletion|insertion|paragraph-deletion"
    r"|paragraph-insertion|comment-start|comment-end)\b[^<>]*>([^<]*)</span>",
    re.IGNORECASE,
)
_KEPT = frozenset({"insertion", "paragraph-insertion"})


def tracked_changes(state: StateCore) -> None:
    """Core rule, before the block parse: the changes accepted, the comments left out
    (see the module), and a note for check on the line of the first."""
    if "<span" not in state.src or not _CHANGE.search(state.src):
        return
    counts = {"deletion": 0, "insertion": 0, "comment": 0}
    first: list[int] = []

    def accepted(found: re.Match[str]) -> str:
        if in_code_span(found.string, found.start()):
            return found.group(0)  # an example of the markup, shown
        kind = found.group(1).lower()
        if not first:
            first.append(found.string.count("\n", 0, found.start()))
        if kind in _KEPT:
            counts["insertion"] += 1
            return found.group(2)
        if kind.endswith("deletion"):
            counts["deletion"] += 1
        elif kind == "comment-start":
            counts["comment"] += 1
        return ""

    state.src = outside_fences(_CHANGE, state.src, accepted)
    if not first:
        return  # every one was in code, shown as written
    deletions, insertions, comments = counts["deletion"], counts["insertion"], counts["comment"]
    message = (
        f"the document still holds a review's tracked changes ({deletions} deleted, "
        f"{insertions} inserted) and {comments} comment{'s' if comments != 1 else ''}: it is "
        "shown with the changes accepted and without the comments; finish the review in "
        "Word and convert it again if that is not what it says"
    )
    state.env.setdefault(NOTES, []).append((first[0], "tracked-changes", message))
