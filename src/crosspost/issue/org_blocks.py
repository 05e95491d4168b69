"""Org mode's blocks, as Logseq writes them in a Markdown page.

Logseq reads Org's ``#+BEGIN_NAME`` … ``#+END_NAME`` lines in Markdown too, and its editor
writes them for a quote (``#+BEGIN_QUOTE``), its callouts (``#+BEGIN_NOTE``, ``TIP``,
``IMPORTANT``, ``CAUTION``, ``WARNING``, ``PINNED``), code (``#+BEGIN_SRC python``) and
examples (``#+BEGIN_EXAMPLE``, shown as code), centred text (``#+BEGIN_CENTER``) and
hidden notes (``#+BEGIN_COMMENT``). Markdown has none of them: the lines went out as
written, joined into one line with what they held (``#+BEGIN_QUOTE Premature
optimization … #+END_QUOTE``).

Here each is what Logseq shows: a quote, a callout of its kind, a code block, its content
alone, or nothing (a comment, which Logseq hides). The name is read in any case
(``#+begin_quote``, as Org allows), each line on a line of its own (in a list item, as a
Logseq block holds it, under the block's first words too); a block never closed stays as
written. ``#+BEGIN_QUERY`` (an advanced query Logseq fills in from the graph) is left out
and check warns, as for Logseq's ``{{query}}`` (:mod:`crosspost.issue.logseq`).
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import (
    NOTES,
    callout,
    closing_line,
    code,
    emptied,
    inner,
    line_match,
    line_text,
    quoted,
)
from crosspost.issue.logseq import MACRO_CODE
from crosspost.patterns import pattern

#: A block's opening line: its name, then what follows it (a code block's language).
_OPENING = pattern(r"#\+begin_(\w+)(?:[ \t]+(.*?))?[ \t]*", re.IGNORECASE)
#: The callouts Logseq draws, as the kind of ours each is shown as.
_CALLOUTS = {
    "note": "note", "tip": "tip", "important": "important", "caution": "caution",
    "warning": "warning", "pinned": "important",
}  # fmt: skip
#: Blocks shown as code: Org's source code, and its examples (text shown as written).
_CODE = frozenset({"src", "example"})
#: Blocks whose content is shown as it is, and blocks Logseq does not show.
_CONTENT = frozenset({"center"})
_HIDDEN = frozenset({"comment"})
#: A query: Logseq fills it in from the graph.
_QUERY = "query"
_KNOWN = frozenset({"quote", *_CALLOUTS, *_CODE, *_CONTENT, *_HIDDEN, _QUERY})
#: Where the parse's ``env`` keeps the lines a block left out opened on (a list item that
#: held it alone goes with it: :func:`org_emptied`).
_LEFT_OUT = "crosspost_org_left_out"


def org_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: one of Org's blocks this module knows, from its ``#+BEGIN_`` line to the
    ``#+END_`` line that closes it (see the module)."""
    opened = line_match(state, start, "#+", _OPENING)
    name = opened.group(1).lower() if opened else ""
    if opened is None or name not in _KNOWN:
        return False
    written = rf"#\+%s_{re.escape(name)}(?:[ \t].*)?"
    opens = re.compile(written % "begin", re.IGNORECASE)
    close = closing_line(state, start, end, "#+", opens, re.compile(written % "end", re.IGNORECASE))
    if close is None:
        return False
    if silent:
        return True
    if name == "quote":
        with quoted(state, start, close):
            inner(state, start, close)
    elif name in _CALLOUTS:
        callout(state, start, close, _CALLOUTS[name])
    elif name in _CODE:
        language = (opened.group(2) or "").split()[:1] if name == "src" else []
        code(state, start, close, "".join(language), "#+")
    elif name in _CONTENT:
        inner(state, start, close)
    else:  # a comment or a query: nothing shown
        state.env.setdefault(_LEFT_OUT, set()).add(start)
    if name == _QUERY:
        opening, closing = (line_text(state, line).strip() for line in (start, close))
        state.env.setdefault(NOTES, []).append(
            (
                start,
                MACRO_CODE,
                f"'{opening}' … '{closing}' is an advanced query, which "
                "Logseq fills in from the rest of your graph, not in this file, so it is "
                "left out; copy in what it showed if readers need it",
            )
        )
    state.line = close + 1
    return True


def org_emptied(state: StateCore) -> None:
    """Core rule, after the block parse: a list item that held nothing but a block left
    out (``- #+BEGIN_COMMENT`` … ``#+END_COMMENT``, a Logseq block of its own) goes with
    it, and a list left empty so: no empty bullet, as Logseq shows none."""
    opened: set[int] = state.env.get(_LEFT_OUT, set())
    if not opened:
        return
    kept: list[Token] = []
    for token in state.tokens:
        last = kept[-1] if kept else None
        if last is not None and emptied(last, token) and last.map and last.map[0] in opened:
            kept.pop()
            continue
        kept.append(token)
    state.tokens = kept
