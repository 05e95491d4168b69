"""Citation marks an AI assistant leaves in an answer an editor pastes, left out.

Chat assistants cite the pages they searched with marks that only their own page turns
into links, and copying the answer keeps the marks without the sources:

* ChatGPT: ``\\ue200cite\\ue202turn0search3\\ue201`` (private-use characters, boxes on a
  phone), ``:contentReference[oaicite:0]{index=0}`` and ``【3†source】``;
* Gemini: ``[cite_start]`` … ``[cite: 1, 4]``;
* Kimi: ``[^4^]``; DeepSeek: ``[citation:3]``.

Sent as written, a reader gets ``50%[^4^]`` or ``citeturn0search3`` in the middle of a
sentence, pointing nowhere. They are left out of every channel before anything reads the
source (lines keep their numbers; code keeps what it shows), and noted (:data:`CODE`),
the first of each line: check names the lines that had one from these notes, so the
editor can link the sources the answer relied on.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, in_code_span, outside_fences
from crosspost.issue.kimi_notes import KIMI_MARK
from crosspost.patterns import pattern

#: One mark of any of the assistants above. ChatGPT's private-use sequence for an entity
#: holds the words shown in its second quoted string (``\ue200entity\ue202["人物","李白"]
#: \ue201``): those are kept (see :func:`_kept`).
AI_CITATION = pattern(
    r"(?:(?<=\S)[ \t]+)?(?:\ue200[^\ue201\n]{0,400}\ue201"
    r"|:contentReference\[oaicite:\d+\](?:\{index=\d+\})?"
    r"|【\d+(?::\d+)?†[^】\n]{0,80}】"
    r"|\[cite_start\]|\[cite:[ \d,]+\]"
    rf"|{KIMI_MARK.pattern}"
    r"|\[citation:\d+(?:,\s*\d+)*\])"
)
_ENTITY_WORDS = pattern(r'\[\s*"[^"]*"\s*,\s*"([^"]*)"')


#: The code of the notes this rule leaves for check: (body line, code, the mark).
CODE = "ai-citation"


def drop_ai_citations(state: StateCore) -> None:
    """Core rule: :data:`AI_CITATION` marks left out of the source, code (fences and
    spans) alone; the first left out on each line noted (see the module)."""
    if not AI_CITATION.search(state.src):
        return
    notes = state.env.setdefault(NOTES, [])
    counted = line = 0  # the line of offset `counted`: matches come in order
    noted = -1

    def left_out(found: re.Match[str]) -> str:
        nonlocal counted, line, noted
        if in_code_span(found.string, found.start()):
            return found.group(0)  # `[^1^]`: an example of the mark
        line += found.string.count("\n", counted, found.start())
        counted = found.start()
        if line != noted:
            notes.append((line, CODE, found.group(0).strip()))
            noted = line
        return _kept(found.group(0))

    state.src = outside_fences(AI_CITATION, state.src, left_out)


def _kept(mark: str) -> str:
    """What a reader should see of ``mark``: an entity's name, else nothing."""
    if mark.lstrip(" \t").startswith("\ue200entity"):
        words = _ENTITY_WORDS.search(mark)
        return mark[: len(mark) - len(mark.lstrip(" \t"))] + words.group(1) if words else ""
    return ""
