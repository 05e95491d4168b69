"""The Markdown dialect of an issue, shared by every channel's renderer.

CommonMark plus tables, strikethrough, footnotes and ``::: only CHANNEL`` containers.
Each renderer parses the body itself (:func:`parse`), because markdown-it's default
rules may mutate tokens while rendering; a token stream is never shared between
channels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin

ONLY_MARKER = re.compile(r"^only\s+([A-Za-z][\w-]*)\s*$")
#: Characters that join without a space when a Markdown line break falls between them
#: (CJK radicals to ideographs, Hangul, compatibility ideographs, full-width forms and
#: CJK punctuation). The one definition every renderer uses.
CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


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


def join_softbreak(tokens: Sequence[Token], idx: int) -> str:
    """What a soft line break at ``tokens[idx]`` becomes: nothing between two CJK
    characters (a space would show there), else a space.

    The neighbours are the nearest tokens that carry text, so a break right after
    ``**粗体**`` looks past the closing ``</b>`` token to the last character written.
    """
    before = next((t.content[-1:] for t in reversed(tokens[:idx]) if t.content), "")
    after = next((t.content[:1] for t in tokens[idx + 1 :] if t.content), "")
    return "" if CJK.match(before) and CJK.match(after) else " "


def drop_title_heading(tokens: list[Token], titles: Iterable[str]) -> list[Token]:
    """``tokens`` without a leading ``# heading`` that repeats the title.

    The title is a separate field on every platform; a body that opens with it as its
    first heading would show it twice (VSCode-Zhihu's convention, specs §7.1).
    """
    wanted = {title.strip() for title in titles}
    if (
        len(tokens) >= 3
        and tokens[0].type == "heading_open"
        and tokens[0].tag == "h1"
        and tokens[1].content.strip() in wanted
    ):
        return tokens[3:]
    return tokens
