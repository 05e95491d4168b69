"""Kimi's citation marks read as footnotes where the answer lists its sources.

Kimi marks each sentence it found on the web with ``[^1^]``. Pasted alone, the marks
point at its search results, which the issue does not hold, and they are left out with
the other assistants' (:mod:`crosspost.issue.ai_citations`). But an answer copied with
its references keeps them as ``[^1^]: 斯坦福 AI 指数报告 https://…`` lines: then the
marks were still left out while the list stood as a plain paragraph, and check said of
each line that the footnote was "never referenced … not shown".

Where the issue defines a Kimi mark (a ``[^1^]:`` line outside code), every mark of a
defined number and the definitions themselves are written as Markdown's footnotes
(``[^1]``, ``[^1]:``) before anything else reads the source, so both channels show them
as they show any footnote. Marks of numbers never defined are left out as before; an
issue with no definitions keeps today's reading. Code (fences, spans) is never touched.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import fence_starts, in_code_span, in_fence, outside_fences
from crosspost.patterns import pattern

#: Kimi's citation mark, ``[^4^]``: its number. Declared once: the AI citation rule
#: leaves it out, the footnote reading of the body takes ``[^4^]:`` as note 4's line.
KIMI_MARK = pattern(r"\[\^(\d+)\^\]")
#: A definition, Kimi's (``[^4^]:``) and the writer's own (``[^4]:``): its number.
_DEFINITION = pattern(rf"^[ \t]{{0,3}}{KIMI_MARK.pattern}:", re.MULTILINE)
_OWN_DEFINITION = pattern(r"^[ \t]{0,3}\[\^(\d{1,4})\]:", re.MULTILINE)


def kimi_labels(source: str) -> frozenset[str]:
    """The numbers of the Kimi marks ``source`` defines outside code fences (``[^1^]:``
    lines), which :func:`kimi_notes` makes footnotes of."""
    if "^]:" not in source:
        return frozenset()
    fences = fence_starts(source)
    defined = {
        found.group(1) for found in _OWN_DEFINITION.finditer(source)
    }  # the writer's own [^1]: keeps its number; Kimi's 1 then stays a citation mark
    return frozenset(
        found.group(1)
        for found in _DEFINITION.finditer(source)
        if len(found.group(1)) <= 4  # no answer cites 10,000 sources
        and not in_fence(fences, found.start())
        and found.group(1) not in defined
    )


def kimi_notes(state: StateCore) -> None:
    """Core rule, before the AI citation marks are left out: the marks and definitions
    of the numbers the issue defines, as footnotes (see the module)."""
    labels = kimi_labels(state.src)
    if not labels:
        return

    def footnote(found: re.Match[str]) -> str:
        if found.group(1) not in labels or in_code_span(found.string, found.start()):
            return found.group(0)
        return f"[^{found.group(1)}]"

    state.src = outside_fences(KIMI_MARK, state.src, footnote)
