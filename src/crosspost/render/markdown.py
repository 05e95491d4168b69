"""The Markdown dialect of an issue, shared by every channel's renderer.

CommonMark plus tables, strikethrough, footnotes and ``::: only CHANNEL`` containers.
Each renderer parses the body itself (:func:`parse`), because markdown-it's default
rules may mutate tokens while rendering; a token stream is never shared between
channels.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin

ONLY_MARKER = re.compile(r"^only\s+([A-Za-z][\w-]*)\s*$")


def _validate_only(params: str, *args: object) -> bool:
    return bool(ONLY_MARKER.match(params.strip()))


def new_markdown() -> MarkdownIt:
    """A parser for the issue dialect. Raw HTML is allowed (renderers sanitise it)."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(container_plugin, name="only", validate=_validate_only)
    return md


def only_channel(token: Token) -> str:
    """The channel an ``only`` container opening token names."""
    match = ONLY_MARKER.match(token.info.strip())
    return match.group(1) if match else ""


def parse(body: str, channel: str, md: MarkdownIt | None = None) -> list[Token]:
    """Tokens of ``body`` as ``channel`` sees it: other channels' ``only`` blocks removed,
    this channel's unwrapped."""
    tokens = (md or new_markdown()).parse(body)
    kept: list[Token] = []
    skipping = 0
    for token in tokens:
        if token.type == "container_only_open":
            if skipping or only_channel(token) != channel:
                skipping += 1
            continue
        if token.type == "container_only_close":
            if skipping:
                skipping -= 1
            continue
        if not skipping:
            kept.append(token)
    return kept
