"""What a Logseq page writes that only Logseq can fill in: block references and macros.

Logseq refers to a block of the graph by its id, ``((6655f017-…))``, and shows that
block's words in the sentence; ``{{embed ((id))}}`` and ``{{embed [[page]]}}`` show a
block or a whole page in place. Those words live elsewhere in the graph, not in the file:
read as Markdown, a reference went out as a silent gap (``参考了 的讨论``) and an embed as
its macro. Here each leaves a visible mark, ``[…]`` (a page's embed, the page's name),
and check warns at its line that the words are missing: paste them in (as for Roam's:
:mod:`crosspost.issue.block_references`). Logseq's other
macros are read as Logseq shows them: ``{{video URL}}`` (``youtube``, ``vimeo``,
``bilibili``; ``tweet``, ``twitter``, ``pdf``) as the line linking to it every embed
gets, ``{{cloze words}}`` (a flashcard's hidden words) as its words; ``{{query …}}``,
``{{renderer …}}`` and ``{{function …}}``, which Logseq fills in from the graph, are
left out, and check warns.

A task's ``SCHEDULED: <2024-05-03 Fri>`` and ``DEADLINE: …`` lines (Org mode's, which
Logseq writes) are the writer's planning and are left out; an image's size written
Logseq's way, ``![](a.png){:height 300, :width 500}``, is its size. The task markers
(``TODO``, ``DONE`` …) are task items: see :mod:`crosspost.issue.task_states`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from markdown_it.rules_core import StateCore

from crosspost.issue.block_references import embed_message, in_place_of, reference_message
from crosspost.issue.blocks import NOTES, escaped, inline_lines, raw_media, shortened
from crosspost.patterns import pattern

#: A Logseq block's id, as Logseq writes it (a UUID).
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
#: A block reference, ``((id))``, or a link whose target is one, ``[words](((id)))``.
_REFERENCE = pattern(rf"\[([^\[\]\n]+)\]\(\(\({_UUID}\)\)\)|\(\({_UUID}\)\)")
#: A macro: ``{{name arguments}}``, its name right after the braces (a template
#: variable is written ``{{ name }}``), on one line.
_MACRO = pattern(r"\{\{([a-z][\w-]*)(?:[ \t]([^\n{}]*))?\}\}")
#: What an embed embeds: a page, ``[[page]]``, or a block, ``((id))``.
_EMBEDDED = pattern(rf"\[\[([^\[\]\n]+)\]\]|\(\({_UUID}\)\)")
#: A web address, all a media macro holds (a file of the graph, ``../assets/a.mp4``, is
#: not one: it stays as written).
_ADDRESS = pattern(r"https?://\S+")
#: Macros showing a video, and other pages, that every channel shows as a line linking
#: to them (the raw element the sanitiser makes that line of).
_MEDIA = {
    "video": "video", "youtube": "video", "vimeo": "video", "bilibili": "video",
    "tweet": "iframe", "twitter": "iframe", "pdf": "iframe",
}  # fmt: skip
#: Macros Logseq fills in from the rest of the graph (or a plugin draws).
_FILLED_IN = frozenset({"query", "renderer", "function", "namespace", "cards"})
#: ``![](a.png){:height 300, :width 500}``: Logseq's size of a picture (an EDN map).
_SIZE = pattern(r"(?<=\))\{((?::(?:height|width)[ \t]+[\d.]+(?:,[ \t]*)?)+)\}")
_SIZE_PART = pattern(r":(height|width)[ \t]+([\d.]+)")
#: A task's planning line (its blanks around left out), as Org mode and Logseq write it
#: under the task.
_PLANNING = pattern(r"(?:SCHEDULED|DEADLINE):[ \t]*<\d{4}-\d{2}-\d{2}[^<>\n]*>")
#: What only Logseq writes: a block reference or a block's id, its drawer, a macro of
#: its own, a task's planning, its own properties. The sign that a page is Logseq's, so
#: a list item opening ``TODO`` or ``LATER`` is a task (:mod:`task_states`).
LOGSEQS_HAND = pattern(
    rf"\(\({_UUID}\)\)|^[ \t]*(?:[-*][ \t]+)?id::[ \t]+{_UUID}|^[ \t]*:LOGBOOK:"
    r"|^[ \t]*(?:SCHEDULED|DEADLINE):[ \t]*<\d|\{\{(?:embed|cloze|query|renderer)[ \t]"
    r"|^[ \t]*(?:[-*][ \t]+)?(?:collapsed|logseq\.[\w.-]+)::",
    re.MULTILINE,
)


def logseqs(src: str) -> bool:
    """Whether ``src`` shows Logseq's hand (:data:`LOGSEQS_HAND`)."""
    signs = ("((", "::", ":LOGBOOK:", "SCHEDULED:", "DEADLINE:", "{{")
    return any(sign in src for sign in signs) and LOGSEQS_HAND.search(src) is not None


#: The codes of what check is told (warnings: readers miss words the writer meant).
REFERENCE_CODE = "logseq-reference"
MACRO_CODE = "logseq-macro"

_Noted = Callable[[int, str, str], None]


def logseq_pages(state: StateCore) -> None:
    """Core rule, before inline parsing: Logseq's block references, macros, planning lines
    and sizes read as the module says, with a note for check at the line of each
    reference or macro whose words are missing."""
    src = state.src
    marks = [mark for mark in ("((", "{{", "{:", "SCHEDULED:", "DEADLINE:") if mark in src]
    if not marks:
        return
    notes: list[tuple[int, str, str]] = []

    def noted(line: int, code: str, message: str) -> None:
        notes.append((line, code, message))

    rewrite = functools.partial(_rewritten, noted=noted)
    for token, lines in inline_lines(
        state.tokens, lambda text: any(map(text.__contains__, marks)), rewrite
    ):
        # Planning lines last: the line numbers above are the source's.
        kept = (line for line in lines if not _PLANNING.fullmatch(line.strip()))
        token.content = "\n".join(kept)
    if notes:
        state.env.setdefault(NOTES, []).extend(notes)


def _rewritten(text: str, line: int, noted: _Noted) -> str:
    """One line of an inline's text (no code span in it), Logseq's marks read."""
    if "{{" in text:
        text = _MACRO.sub(lambda found: _macro(found, line, noted), text)
    if "((" in text:
        linked: list[str] = []
        plain: list[str] = []

        def reference(found: re.Match[str]) -> str:
            (linked if found.group(1) else plain).append(found.group(0))
            return escaped(found.group(1)) if found.group(1) else in_place_of()

        text = _REFERENCE.sub(reference, text)
        for references in (plain, linked):
            if references:
                noted(line, REFERENCE_CODE, reference_message("Logseq", references))
    if "{:" in text:
        text = _SIZE.sub(_size, text)
    return text


def _macro(found: re.Match[str], line: int, noted: _Noted) -> str:
    """What one macro ``{{name …}}`` is on every channel (its text, unchanged, when it is
    none of Logseq's)."""
    name, argument = found.group(1), (found.group(2) or "").strip()
    written = shortened(found.group(0), 60)
    if name == "embed":
        embedded = _EMBEDDED.fullmatch(argument)
        if embedded is None:
            return found.group(0)
        page = embedded.group(1) or ""
        noted(line, MACRO_CODE, embed_message("Logseq", found.group(0), page))
        return in_place_of(page)
    if name in _MEDIA and _ADDRESS.fullmatch(argument):
        return raw_media(_MEDIA[name], argument)
    if name == "cloze" and argument:
        return argument.split("\\\\")[0].strip()  # ``{{cloze words \\ hint}}``: the words
    if name in _FILLED_IN:
        noted(
            line,
            MACRO_CODE,
            f"'{written}' is filled in by Logseq from the rest of your graph, which is not "
            "in this file, so it is left out; copy in what it showed if readers need it",
        )
        return ""
    return found.group(0)


def _size(found: re.Match[str]) -> str:
    """``{:height 300, :width 500}`` as the attribute list an image's size is read from."""
    return "{" + " ".join(f"{k}={v}" for k, v in _SIZE_PART.findall(found.group(1))) + "}"
