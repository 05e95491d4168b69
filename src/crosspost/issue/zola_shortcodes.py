"""Zola's shortcodes read as the Markdown they stand for, as Hugo's are.

Zola calls a shortcode like a function: ``{{ youtube(id="QDaqS7rL7kA") }}`` within a line,
``{% note(kind="warning") %}`` … ``{% end %}`` around Markdown. Markdown showed both as
written (check even named the second a Jekyll tag).

Zola's shortcodes are its themes' own, and most share their names and arguments with
Hugo's: those Hugo's reading knows (``youtube``, ``vimeo``, ``gist``, ``figure`` …) come
out the same way; a body shortcode named as a note (``note``, ``warning``, ``tip``,
``admonition``, ``alert``, ``details`` …) is a callout of its ``kind``/``type`` with its
``title``; ``{{/* … */}}``, Zola's way to show a shortcode as an example, is that
shortcode written out. Any other stays as written, and check names it.
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import callout, closing_line, first_group, line_match, outside_code
from crosspost.issue.callouts import callout_kind, is_callout_name
from crosspost.issue.hugo_shortcodes import NOTES, READINGS, note_of
from crosspost.patterns import pattern

#: ``{{ name(arguments) }}`` within a line.
_CALL = pattern(r"\{\{\s*([A-Za-z_]\w*)\(([^(){}]*)\)\s*\}\}")
#: ``{{/* name(arguments) */}}``: the shortcode shown, not called.
_SHOWN = pattern(r"\{\{/\*\s*(.*?)\s*\*/\}\}")
#: ``{% name(arguments) %}`` alone on its line, opening a body shortcode.
_BODY = pattern(r"\{%\s*([A-Za-z_]\w*)\(([^(){}]*)\)\s*%\}[ \t]*")
_END = pattern(r"\{%\s*end\s*%\}[ \t]*")
#: ``key="value"``, ``key=2``, ``key=true`` (a list or a map is not read).
_ARGUMENT = pattern(r"([\w-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s,\"'\[\]{}]+))")


def arguments(text: str) -> dict[str, str]:
    """A Zola call's named arguments (Zola has no other kind)."""
    return {found.group(1).lower(): first_group(found, 1) for found in _ARGUMENT.finditer(text)}


def body_shortcode(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a body shortcode named as a note, from its line to ``{% end %}``."""
    opened = line_match(state, start, "{%", _BODY)
    name = opened.group(1).lower() if opened else ""
    if opened is None or not (name in NOTES or is_callout_name(name)):
        return False
    close = closing_line(state, start, end, "{%", _BODY, _END)
    if close is None:
        return False
    if silent:
        return True
    named = arguments(opened.group(2))
    note = note_of(name, [], named)
    written = named.get("kind") or named.get("type") or ""
    # {% note(kind="warning") %}: the kind it names
    kind = callout_kind(written) if is_callout_name(written) else note.kind
    callout(state, start, close, kind, note.title, note.credit_line)
    state.line = close + 1
    return True


def calls(state: StateCore) -> None:
    """Core rule, before inline parsing: each shortcode call Hugo's reading knows, in the
    text of a paragraph, heading or cell, becomes its Markdown; a shown one is written out
    (code spans are left alone)."""
    if "{{" not in state.src:
        return
    for token in state.tokens:
        if token.type == "inline" and "{{" in token.content:
            token.content = outside_code(token.content, _read_calls)
        elif token.type in ("fence", "code_block") and "{{/*" in token.content:
            token.content = _SHOWN.sub(r"{{ \1 }}", token.content)


def _read_calls(text: str) -> str:
    text = _CALL.sub(_markdown_of, text)
    # The brace as an entity: shown as written, and no template variable to check.
    return _SHOWN.sub(r"&#123;{ \1 }}", text) if "{{/*" in text else text


def _markdown_of(match: re.Match[str]) -> str:
    made = READINGS.get(match.group(1).lower())
    shown = made([], arguments(match.group(2))) if made else None
    return match.group(0) if shown is None else shown
