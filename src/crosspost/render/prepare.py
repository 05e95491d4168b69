"""The token rewrites every channel's renderer makes before it renders, in one place.

A raw HTML element the source hides is left out (:func:`.hidden.without_hidden`), and a
list item that opens with a box written as HTML is a task item (:func:`.tasks.
boxed_items`), on every channel alike: a renderer calls :func:`as_every_channel_reads`
on its own copy of the tokens, so a new channel cannot forget one of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from crosspost.render.hidden import without_hidden
from crosspost.render.tasks import boxed_items


def as_every_channel_reads(tokens: Sequence[Token]) -> None:
    """Rewrite ``tokens`` (a channel's own copy) as every channel reads them."""
    without_hidden(tokens)
    boxed_items(tokens)
