"""Definition lists (``Term`` then ``: definition``) as a bold term and its paragraphs.

kramdown (Jekyll's reader), Pandoc, PHP Markdown Extra and MkDocs read a line starting
with ``:`` under a line of words as that word's definition; CommonMark joins
them into one paragraph with the colon in it. Neither WeChat nor Zhihu keeps a ``<dl>``
of its own, so each term becomes a paragraph in bold and each definition its own
paragraphs (or whatever blocks it holds), the way both channels' editors would write it.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token


def definition_lists(state: StateCore) -> None:
    """Core rule, after inline parsing: ``dl``/``dt``/``dd`` tokens as paragraphs."""
    if not any(token.type == "dl_open" for token in state.tokens):
        return
    tokens: list[Token] = []
    depth = 0  # the dl and dd around a token: its blocks move up that many levels
    term = False
    definitions: list[int] = []  # the level of each dd the token is in, innermost last
    for token in state.tokens:
        if token.type in ("dl_open", "dd_open", "dl_close", "dd_close"):
            depth += 1 if token.nesting > 0 else -1
            if token.type == "dd_open":
                definitions.append(token.level)
            elif token.type == "dd_close":
                definitions.pop()
            continue
        own = bool(definitions) and token.level == definitions[-1] + 1
        token.level -= depth
        if token.type in ("dt_open", "dt_close"):
            term = token.type == "dt_open"
            token.type, token.tag = f"paragraph_{token.type[3:]}", "p"
        elif token.type == "inline" and term:
            strong = Token("strong_open", "strong", 1, markup="**")
            token.children = [strong, *(token.children or ()), Token("strong_close", "strong", -1)]
        if token.type.startswith("paragraph_") and own:
            # A tight definition's paragraphs: shown as paragraphs now. Only its own: a
            # tight list elsewhere (or inside it) stays tight.
            token.hidden = False
        tokens.append(token)
    state.tokens = tokens
