"""Links whose words are only a bracketed citation number: ``[[1]](https://…)``.

通义千问 copies its citations as ``Qwen2.5 [[1]](https://qwenlm.github.io/…)``: the number
is the assistant's, the address the source. WeChat numbers every outside link itself, so
the words and its own mark stood side by side (``Qwen2.5 [1][1]``, and an entry ``[1]
[1]: https://…``), and where the issue numbers its own sources the two disagreed
(``[1][4]``), sending readers to another one.

After the inline parse, such a link (to a web address; its words one to three digits in
brackets) is marked ``meta["citation"]`` on its ``link_open``, for WeChat to show its own
reference mark alone and an entry that is the address alone; Zhihu keeps the link. A
bare number (``第 [3](https://…) 期``) is the writer's word, and stays a link of words.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.patterns import pattern

#: The words of a citation link, as the inline parse leaves them.
_NUMBER = pattern(r"\[([0-9]{1,3})\]")
#: A web address (a citation's source).
_WEB = pattern(r"^(?:https?:)?//", re.IGNORECASE)
#: Tokens that carry a link's words.
_WORDS = frozenset({"text", "text_special"})


def citation_links(state: StateCore) -> None:
    """Core rule, after the inline parse: citation links marked (see the module)."""
    for token in state.tokens:
        if token.type == "inline" and token.children and "](" in token.content:
            _mark(token.children)


def _mark(children: list[Token]) -> None:
    for index, child in enumerate(children):
        if child.type != "link_open" or not _WEB.match(str(child.attrGet("href") or "")):
            continue
        end = index + 1
        while end < len(children) and children[end].type in _WORDS:
            end += 1
        if end == len(children) or children[end].type != "link_close":
            continue
        words = children[index + 1 : end]
        number = _NUMBER.fullmatch("".join(t.content for t in words).strip())
        if number is None:
            continue
        child.meta["citation"] = True
