"""The Markdown dialect of an issue, and the one parse of its body every stage shares.

CommonMark plus tables, strikethrough, footnotes, ``$…$``/``$$…$$`` formulas and
``::: only CHANNEL`` containers. An issue body is parsed once per process into a
:class:`Document` (:func:`parse_document`): the loader's container check, lint and both
renderers read that one token stream. Parsing was half of a warm ``check``; copying the
tokens a renderer may change costs about a tenth of a parse.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

ONLY_MARKER = re.compile(r"^only\s+([A-Za-z][\w-]*)\s*$")
#: Characters that join without a space when a Markdown line break falls between them
#: (CJK radicals to ideographs, Hangul, compatibility ideographs, full-width forms and
#: CJK punctuation). The one definition every renderer uses.
CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


def _validate_only(params: str, *args: object) -> bool:
    return bool(ONLY_MARKER.match(params.strip()))


def _verbatim(url: str) -> str:
    return url


def new_markdown() -> MarkdownIt:
    """A parser for the issue dialect. Raw HTML is allowed (renderers sanitise it).

    Formulas are parsed for every channel, so one token stream serves them all: Zhihu
    shows them as equation images, WeChat (whose editor has none) as the TeX written.
    The dollar rules are strict, so prices such as "$5 and $10" stay text. Link and
    image targets are kept as the author wrote them (markdown-it would percent-encode
    non-ASCII ones): image sources are the keys the publisher swaps for uploaded URLs,
    and lint names each image as the issue does.
    """
    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(container_plugin, name="only", validate=_validate_only)
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    md.normalizeLink = _verbatim  # type: ignore[method-assign]
    return md


@functools.cache
def _markdown() -> MarkdownIt:
    """The process's one parser (built once: setting up the rules costs more than a parse)."""
    return new_markdown()


def only_channel(token: Token) -> str:
    """The channel an ``only`` container opening token names."""
    match = ONLY_MARKER.match(token.info.strip())
    return match.group(1) if match else ""


@dataclass(frozen=True, eq=False)  # equal by identity: tokens are not values
class Document:
    """An issue body parsed once: the token stream every stage reads.

    ``tokens`` is shared by everyone holding the document, so nothing may change it;
    readers (the loader, lint) walk it as it is, and a renderer, whose rules may rewrite
    tokens, takes its own copy with :meth:`for_channel`.
    """

    body: str
    tokens: tuple[Token, ...]

    def for_channel(self, channel: str) -> list[Token]:
        """A fresh copy of the tokens as ``channel`` sees them (see :func:`only_for`)."""
        return [copy_token(token) for token in only_for(self.tokens, channel)]


@functools.lru_cache(maxsize=16)
def parse_document(body: str) -> Document:
    """The :class:`Document` of ``body``, parsed on first use and kept for the process.

    Keyed by the text, so every stage that holds the same body (the loader, lint, each
    renderer; an issue loaded twice) shares one parse. A handful are kept: a run over
    many issues holds a few bodies at a time, never all of them.
    """
    return Document(body, tuple(_markdown().parse(body)))


def copy_token(token: Token) -> Token:
    """A deep copy of ``token`` (children, attributes, meta), several times cheaper than
    :func:`copy.deepcopy`."""
    children = token.children
    return Token(
        type=token.type,
        tag=token.tag,
        nesting=token.nesting,
        attrs=dict(token.attrs),
        map=list(token.map) if token.map is not None else None,
        level=token.level,
        children=[copy_token(child) for child in children] if children is not None else None,
        content=token.content,
        markup=token.markup,
        info=token.info,
        meta=dict(token.meta),
        block=token.block,
        hidden=token.hidden,
    )


def parse(body: str, channel: str, md: MarkdownIt | None = None) -> list[Token]:
    """Tokens of ``body`` parsed by ``md`` (default: the dialect) as ``channel`` sees it.

    A fresh parse every call; the stages of crosspost share :func:`parse_document`.
    """
    return only_for((md or new_markdown()).parse(body), channel)


def only_for(tokens: Iterable[Token], channel: str) -> list[Token]:
    """``tokens`` as ``channel`` sees them: other channels' ``only`` blocks removed, this
    channel's unwrapped."""
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
