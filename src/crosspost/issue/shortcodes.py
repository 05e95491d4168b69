"""Emoji shortcodes (``:tada:``, ``:white_check_mark:``) as the emoji they name.

GitHub, GitLab, Typora and VuePress show ``:rocket:`` as 🚀, so newsletters kept in a
repository or written in those editors use them; WeChat and Zhihu show the colons and
the word. The names are GitHub's and the Unicode names in ``_`` form, as the ``emoji``
library knows them (``language="alias"``); a name it does not know (a team's custom
emoji, ``:not_a_name:``) stays as written.

A shortcode stands apart from words: ``12:30:45`` and ``a:b:c`` hold no shortcode, as
on GitHub. Code spans and blocks are not text tokens, so ``:tada:`` in code stays.
"""

from __future__ import annotations

import functools

from markdown_it.rules_core import StateCore

from crosspost.patterns import pattern

#: ``:name`` followed by a colon: the closing colon is looked at, not taken, so one colon
#: may close one shortcode and open the next (``:tada::rocket:``).
_OPENING = pattern(r"(?<![A-Za-z0-9]):([a-z0-9_+-]{1,40})(?=:)")
#: What a name may be: GitHub's lower-case names (and the Unicode ones written alike).
_NAME = pattern(r"[a-z0-9_+-]{1,40}")


@functools.cache
def _emoji_by_name() -> dict[str, str]:
    """Every name the ``emoji`` library knows, to its fully qualified emoji. Imported
    on the first issue that holds something shaped like a shortcode: 40 ms that an
    issue without one never pays."""
    import emoji

    qualified = emoji.STATUS["fully_qualified"]
    found: dict[str, str] = {}
    for char, data in emoji.EMOJI_DATA.items():
        for written in (data["en"], *data.get("alias", ())):
            name = written.strip(":")
            if _NAME.fullmatch(name) and (name not in found or data["status"] == qualified):
                found[name] = char
    return found


def emojized(text: str) -> str:
    """``text`` with each shortcode it holds replaced by its emoji."""
    parts: list[str] = []
    done = 0
    for match in _OPENING.finditer(text):
        start, close = match.start(), match.end()
        if start < done:  # its opening colon closed the shortcode before it
            continue
        after = text[close + 1 : close + 2]
        char = _emoji_by_name().get(match.group(1))
        if char is None or (after.isascii() and after.isalnum()):
            continue
        parts += [text[done:start], char]
        done = close + 1
    return "".join(parts) + text[done:] if parts else text


def shortcodes(state: StateCore) -> None:
    """Core rule: the shortcodes of every text token become their emoji."""
    if ":" not in state.src or not _OPENING.search(state.src):
        return
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "text" and ":" in child.content:
                child.content = emojized(child.content)
