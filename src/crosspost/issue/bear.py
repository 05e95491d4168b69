"""Bear's marks: ``::highlight::`` and a note's tags (``#tag #multi word tag# #a/b``).

Bear highlights with two colons where other editors write ``==``; Markdown showed the
colons. Bear files a note by the tags written in it, usually on a line of their own at
its top or bottom: to a reader they are the app's filing, not the article's words, and
they went out as a line of hashes. Only a paragraph made of tags alone is left out (check
names it), and only in a note that shows Bear's hand (a nested tag ``#a/b``, a tag of
several words closed by ``#``, an attachment, a highlight): elsewhere a line of hashtags
(``#人工智能 #LLM`` under an article, Weibo's ``#话题#``) is the writer's, and stays. A
``#word`` inside a sentence and a heading (``# Title`` has its space) stay as written.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.config.counts import counted
from crosspost.issue.blocks import NOTES, outside_code
from crosspost.patterns import pattern

#: ``::words::``: not glued to a Latin letter, a digit or another colon on either side
#: (``std::vector::size`` is C++, ``key:: value`` Logseq's property), no space just inside.
_HIGHLIGHT = pattern(r"(?<![A-Za-z0-9_:\\])::([^\s:](?:[^:\n]{0,300}[^\s:])?)::(?![A-Za-z0-9_:])")
#: One tag: ``#multi word tag#`` (closed by a ``#``) or ``#word``, ``#nested/tag`` (no
#: space after the ``#``).
_TAG = r"#[^\s#](?:[^#\n]*[^\s#])?#|#[^\s#]+"
#: A line of tags and nothing else.
_TAG_LINE = pattern(rf"[ \t]*(?:{_TAG})(?:[ \t]+(?:{_TAG}))*[ \t]*")
_TAGS = pattern(_TAG)
#: A "tag" of digits alone is an issue's or an item's number (``#1``), not a tag.
_NUMBER = pattern(r"#\d+#?")
#: What only Bear writes: a nested tag, a tag of several words closed by ``#``, an
#: attachment (``[image:…]``).
_BEARS_HAND = pattern(
    r"(?<![^\s])#[^\s#/]{1,100}/[^\s#]"
    r"|(?<![^\s])#[^\s#][^#\n]{0,100}? [^#\n]{0,100}?[^\s#]#(?![^\s])"
    r"|\[(?:image|file):"
)


def bear_highlights(state: StateCore) -> None:
    """``::words::`` as ``==words==``, the highlight every renderer already shows."""
    if "::" not in state.src:
        return
    for token in state.tokens:
        if token.type == "inline" and "::" in token.content:
            token.content = outside_code(
                token.content, lambda text: _HIGHLIGHT.sub(r"==\1==", text)
            )


def _tags_only(content: str) -> bool:
    lines = content.split("\n")
    return all(_TAG_LINE.fullmatch(line) for line in lines) and any(
        not _NUMBER.fullmatch(tag) for line in lines for tag in _TAGS.findall(line)
    )


def bear_tags(state: StateCore) -> None:
    """Leave out the top-level paragraphs made of tags alone, noting the first for check."""
    if "#" not in state.src or not (_BEARS_HAND.search(state.src) or _HIGHLIGHT.search(state.src)):
        return
    tokens = state.tokens
    kept: list[Token] = []
    left_out: list[int] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if (
            token.type == "paragraph_open"
            and not token.level
            and index + 2 < len(tokens)
            and tokens[index + 1].content.startswith("#")
            and _tags_only(tokens[index + 1].content)
        ):
            left_out.append(token.map[0] if token.map else 0)
            index += 3
            continue
        kept.append(token)
        index += 1
    if not left_out:
        return
    state.tokens = kept
    more = ""
    if len(left_out) > 1:
        more = f" (and the tags on {counted(len(left_out) - 1, 'more line')})"
    message = (
        f"this line holds only tags (Bear's, for filing the note){more}, so it is left "
        "out of every channel; write the words out of the '#' if readers should see them"
    )
    state.env.setdefault(NOTES, []).append((left_out[0], "note-tags", message))
