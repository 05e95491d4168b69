"""Slack's and Discord's markup in text pasted from a chat, read as what the chat shows.

A digest compiled from a team's Slack or a community's Discord keeps their markup where
the text came from their exports, bots or APIs: Slack writes a link as
``<https://x.org|its words>``, a mention as ``<@U024BE7LH>`` (``<@U024BE7LH|ann>``), a
channel as ``<#C024BE7LR|general>``, a group ping as ``<!here>``; Discord a mention as
``<@123456789012345678>`` (``<@!…>``, a role's ``<@&…>``), a channel as ``<#…>``, its own
emoji as ``<:name:id>``, a time as ``<t:1700000000:F>`` and a spoiler as ``||words||``.
Read as Markdown, Slack's link went out as a link to an address ending ``|its words``,
``<!here>`` was left out as HTML, and the rest was shown as written.

Here each is what the chat shows: the link its words, linked; a mention ``@`` and the
name when the markup has one, a channel ``#`` and its name, a ping ``@here``, an emoji
``:name:`` (an emoji shortcode, shown as the emoji when it is one), a time the date and
time it stands for (UTC). A mention or a channel known only by its id is ``@`` or ``#``
and the id, and check says to write the name; a spoiler's words are shown, and check
says so, as no channel can hide them. Code spans and formulas (a norm's ``$||v||$``)
keep all of it as written, and so does a line that writes ``||`` as code's "or"
(``a || b``, ``x||y``) elsewhere in it.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import CODE_OR_MATH, NOTES, escaped, inline_lines, shortened
from crosspost.patterns import pattern

#: The code check files its warnings under.
CODE = "chat-markup"
#: One piece of chat markup (see the module), by kind: a link with words (groups 1, 2),
#: a mention or channel (3: its mark, 4: its id, 5: its name), a ping (6, maybe named
#: 7), a Discord emoji (8), a time (9, 10), a spoiler (11).
_MARKUP = pattern(
    r"<((?:https?|mailto|ftp):[^\s|<>]+)\|([^<>\n]+)>"
    r"|<([@#]|@!|@&)([A-Z0-9][A-Z0-9]{5,}|\d{15,21})(?:\|([^<>\n]+))?>"
    r"|<!(here|channel|everyone|subteam\^[A-Z0-9]+|date\^[^|>]+)(?:\|([^<>\n]+))?>"
    r"|<a?:([A-Za-z0-9_~-]{2,32}):\d{15,21}>"
    r"|<t:(-?\d{1,13})(?::([tTdDfFR]))?>"
    r"|(?<![A-Za-z0-9_|])\|\|(?![\s|])([^|\n]+?)(?<!\s)\|\|(?![A-Za-z0-9_|])"
)
#: ``||`` written as the operator it is in code and logic: blanks on both sides
#: (``cmd1 || cmd2``), between two operands (``x||y``, ``(a)||!b``), or ``||=``. A line
#: that writes one so writes no spoiler: its other ``||`` are the same operator
#: (``a ||b`` … ``c|| d`` around ``x || y``), shown as written.
_OPERATOR = pattern(r"(?<=\s)\|\|(?=\s)|(?<=[A-Za-z0-9_)\]])\|\|(?=[A-Za-z0-9_(!])|\|\|=")
#: Whether a source may hold any (a search, never a rewrite). A bar's run stops at the next
#: bar: the last bar before a ``>`` matches if any does, and a line of many bars and no
#: ``>`` is read once, not once from each bar to its end.
_QUICK = pattern(r"<[@#!:at]|\|\||\|[^<>\n|]*>")
#: How Discord writes each style of time, as strftime does.
_TIME_STYLES = {
    "t": "%H:%M", "T": "%H:%M:%S", "d": "%Y-%m-%d", "D": "%Y-%m-%d",
    "f": "%Y-%m-%d %H:%M", "F": "%Y-%m-%d %H:%M", "R": "%Y-%m-%d %H:%M",
}  # fmt: skip

_Noted = dict[int, list[str]]


def chat_marks(state: StateCore) -> None:
    """Core rule, before inline parsing: Slack's and Discord's markup as the chat shows
    it (see the module), one note for check per line that needs the editor."""
    if not _QUICK.search(state.src):
        return
    noted: _Noted = {}
    rewrite = functools.partial(_rewritten, noted=noted)
    for token, lines in inline_lines(
        state.tokens, lambda text: bool(_MARKUP.search(text)), rewrite, CODE_OR_MATH
    ):
        token.content = "\n".join(lines)
    notes = state.env.setdefault(NOTES, [])
    for line, said in noted.items():
        notes.append((line, CODE, _message(said)))


def _rewritten(text: str, line: int, noted: _Noted) -> str:
    """One line of an inline's text (no code span in it), its chat markup read."""

    def read(found: re.Match[str]) -> str:
        (address, words, mark, named, name, ping, ping_name, emoji, stamp, style,
         spoiler) = found.groups()  # fmt: skip
        if address:
            return f"[{escaped(words.strip())}](<{address}>)"
        if mark:
            sign = "#" if mark == "#" else "@"
            if name:
                return escaped(sign + name.lstrip("@#"))
            what = "channel" if sign == "#" else "role" if mark == "@&" else "person"
            noted.setdefault(line, []).append(
                f"'{found.group(0)}' is a chat's mention of a {what} by id, shown as "
                f"'{sign}{named}'; write the {what}'s name"
            )
            return escaped(sign + named)
        if ping:
            if ping_name:
                return escaped(ping_name)
            return escaped("@" + ping) if "^" not in ping else ""
        if emoji:
            return f":{emoji}:"
        if stamp:
            return _time(int(stamp), style or "f")
        if _OPERATOR.search(text):
            return found.group(0)
        noted.setdefault(line, []).append(
            f"'{shortened(found.group(0))}' is a Discord spoiler (or Ulysses's deleted text), "
            "whose words no channel can hide: they are shown as plain text; leave them out if "
            "no reader should see them, or write ~~…~~ to strike them through"
        )
        return spoiler

    return _MARKUP.sub(read, text)


def _time(stamp: int, style: str) -> str:
    try:
        moment = datetime.fromtimestamp(stamp, UTC)
    except (OverflowError, OSError, ValueError):
        return str(stamp)
    return moment.strftime(_TIME_STYLES.get(style, "%Y-%m-%d %H:%M")) + " UTC"


def _message(said: list[str]) -> str:
    """What check says of a line's chat markup that needs the editor."""
    return "; ".join(said)
