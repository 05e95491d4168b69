"""Merge tags: the placeholders an email service fills in for each subscriber.

A newsletter's email, converted to Markdown, keeps its service's merge tags:
``%%FirstName%%`` or ``%%emailaddress%%`` (Campaign Monitor, Substack, iContact) and
Mailchimp's ``*|FNAME|*``, ``*|LIST:COMPANY|*``. Read as Markdown they were lost: the
first as an Obsidian comment (``%%…%%``, left out with its words), the second as
emphasis (``|FNAME|`` in italics). Neither channel fills them in, so they are kept as
written, and check names each one (a reader would see it unfilled).

Mailchimp's is one identifier-like word of ASCII letters, digits and ``_ . : -``, a
letter first, between ``*|`` and ``|*``. Between ``%%`` marks the same word may be an
Obsidian comment of one word (``%%TODO%%``, ``%%draft%%``), so it counts as a merge tag
only when written as services write them: a name in two words joined (``%%FirstName%%``,
``%%Subscriber_Key%%``) or one of the subscriber's fields they all name
(``%%emailaddr%%``, ``%%company%%``). Anything else between ``%%`` marks (prose, Chinese,
a comment over lines) stays a comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from markdown_it.rules_inline import StateInline

from crosspost.patterns import pattern

#: The one word of a merge tag: ASCII, a letter first (``%%50%%`` is no tag).
_NAME = r"[A-Za-z][A-Za-z0-9_.:-]{0,63}"
#: A ``%%`` tag's word as services write it: two words joined (a small letter, then a
#: capital or ``_`` and a letter), or a subscriber field's name.
_PERCENT_NAME = (
    r"(?:(?=[A-Za-z0-9.:-]*(?:[a-z][A-Z]|_[A-Za-z]))"
    + _NAME
    + r"|(?i:e-?mail(?:_?addr(?:ess)?)?|(?:first|last|full|f|l)?_?name|company|city"
    r"|country|phone|unsubscribe|subscriberkey))"
)
#: ``%%FirstName%%``: a merge tag, not an Obsidian comment.
PERCENT_TAG = pattern(rf"%%{_PERCENT_NAME}%%")
#: Mailchimp's ``*|FNAME|*``.
_MAILCHIMP_TAG = pattern(rf"\*\|{_NAME}\|\*")
#: Either kind, in text as markdown-it left it.
_ANY_TAG = pattern(rf"%%{_PERCENT_NAME}%%|\*\|{_NAME}\|\*")


def mailchimp_tag(state: StateInline, silent: bool) -> bool:
    """Inline rule, before markdown-it's ``emphasis``: a Mailchimp merge tag is its text,
    asterisks and bars as written (not ``|FNAME|`` in italics)."""
    start = state.pos
    if not state.src.startswith("*|", start):
        return False
    found = _MAILCHIMP_TAG.match(state.src, start, state.posMax)
    if found is None:
        return False
    if not silent:
        state.push("text", "", 0).content = found.group()
    state.pos = found.end()
    return True


def merge_tags(text: str) -> Iterator[re.Match[str]]:
    """Every merge tag of ``text``, either kind, in order."""
    return _ANY_TAG.finditer(text)
