"""HackMD's (CodiMD's) quote tags: ``> 引用 [name=张三] [time=2024-03-01] [color=red]``.

HackMD shows a quote's ``[name=…]`` and ``[time=…]`` as who said it and when, each after
its icon, and ``[color=…]`` as the colour of the quote's bar. Markdown read them as
words: both channels showed ``\\[name=张三\\] \\[time=…\\]`` under every quote of a
meeting's notes. In a quote they are now its credit, ``—— 张三 · 2024-03-01``, and the
colour (which no channel keeps for a quote) is left out. Outside a quote, where HackMD
reads them as words too, they stay as written.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import outside_code
from crosspost.patterns import pattern

#: One tag: its name and its value.
_TAG = pattern(r"\[(name|time|color)=([^\[\]\n]*)\]")
#: A run of tags, the blanks before it included.
_TAGS = pattern(r"[ \t]*(?:\[(?:name|time|color)=[^\[\]\n]*\][ \t]*)+")


def _credit(found: re.Match[str]) -> str:
    """A run of tags as the credit a reader sees: who, then when; the colour dropped."""
    values = dict((name, value.strip()) for name, value in _TAG.findall(found.group()))
    shown = [value for value in (values.get("name"), values.get("time")) if value]
    return f" —— {' · '.join(shown)}" if shown else ""


def quote_tags(state: StateCore) -> None:
    """Core rule, before the inline parse: HackMD's tags in a quote read as its credit
    (see the module)."""
    if "=" not in state.src or "[" not in state.src:
        return
    depth = 0
    for token in state.tokens:
        if token.type == "blockquote_open":
            depth += 1
        elif token.type == "blockquote_close":
            depth -= 1
        elif depth and token.type == "inline" and "[" in token.content and "=" in token.content:
            # Code spans keep what they hold: ``a[name=x]`` is a selector, no credit.
            credited = outside_code(token.content, lambda text: _TAGS.sub(_credit, text))
            token.content = credited.strip() if credited != token.content else credited
