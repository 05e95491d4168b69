"""Links and pictures typed with a Chinese keyboard's full-width brackets.

An input method left on Chinese types ``（）`` for ``()``, ``【】`` for ``[]`` and ``！`` for
``!``. Markdown knows only the half-width ones, so ``[Rspack 官网]（https://rspack.dev）``
and ``![架构图]（https://…/a.png）`` went out as written (the link and the picture gone),
and ``！[架构图](https://…/b.png)`` became a link to the picture's file after a ``！``.
Here such a link or picture is read as meant where the reading is plain: an address with
a scheme (a picture's may be a path to an image file) fills the brackets after the words
and nothing else does, and a full-width ``！`` makes a picture only of an image file's
address and only where it cannot end a sentence (``太棒了！[官网](…)`` is an exclamation
and a link). ``【标题】(https://…)`` is also how Chinese writes a title in brackets with
its link: the link keeps the ``【】`` in its words, so nothing the writer typed is lost.
Each one read so is noted for check, with how to write it; code is never touched.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    NOTES,
    PICTURE_FILE,
    in_code_span,
    line_at,
    line_bounds,
    outside_fences,
    shortened,
)
from crosspost.patterns import pattern

#: A link or picture with at least one full-width mark among its brackets: the ``!``,
#: the brackets around the words, those around the address, and the address.
_TYPED = pattern(
    r"([!！]?)([\[【])([^\[\]【】\n]{1,200})([\]】])([(（])([^\s()（）\[\]【】]{1,2000})([)）])"
)
#: What fills the brackets of a link: an address with a scheme.
_ADDRESS = pattern(r"(?:https?|ftp)://[^\s/?#]\S*|mailto:[^\s@]+@[^\s@]+", re.IGNORECASE)
#: An image file's name at the end of an address's path, or WeChat's ``wx_fmt=png``.
_IMAGE_FORMAT = pattern(r"(?:^|&)wx_fmt=(?:png|jpe?g|gif|webp)(?:&|$)", re.IGNORECASE)
_FULL_WIDTH = frozenset("！【】（）")
#: A line of raw HTML: blanks, then a tag's ``<`` (matched within the line's bounds).
_HTML_LINE = pattern(r"\s*<")
#: The code check files its notes under (a warning).
CODE = "full-width-link"


def fullwidth_links(state: StateCore) -> None:
    """Core rule, before the block parse (its notes name the body's own lines): the links and
    pictures typed with full-width brackets, as meant (see the module)."""
    if not any(mark in state.src for mark in ("（", "【", "！")):
        return
    notes = state.env.setdefault(NOTES, [])

    def read(found: re.Match[str]) -> str:
        text, at = found.string, found.start()
        line_start, line_end = line_bounds(text, at)
        written = _reading(found, text[at - 1] if at > line_start else "")
        if written is None:
            return found.group(0)
        if text.startswith(("    ", "\t"), line_start) or _HTML_LINE.match(
            text, line_start, line_end
        ):
            return found.group(0)  # indented code, or a line of raw HTML: as written
        if in_code_span(text, at):
            return found.group(0)
        if text[at - 1 : at] == "[" and text.startswith("](", found.end()):
            return found.group(0)  # the words of a link written right: [【官方】(…)](…)
        meant, message = written
        notes.append((line_at(text, at), CODE, message))
        return meant

    state.src = outside_fences(_TYPED, state.src, read)


def _reading(found: re.Match[str], before: str) -> tuple[str, str] | None:
    """What ``found`` was meant to be (its Markdown) and the note that says so, or None
    when it is not plainly a link or a picture."""
    bang, opening, words, closing, left, address, right = found.groups()
    kept = ""
    picture = _is_picture(address)
    sentence_end = before.isalnum()
    if bang and not (
        (picture and not (bang == "！" and sentence_end))
        or (bang == "!" and not sentence_end and _ADDRESS.fullmatch(address))
    ):
        kept, bang = bang, ""  # an exclamation ending a sentence, then a link
    marks = bang + opening + closing + left + right
    if not _FULL_WIDTH.intersection(marks):
        return None  # Markdown as Markdown writes it
    shown = shortened(found.group(0)[len(kept) :], 60)
    if bang:
        meant = f"![{words}]({address})"
        return kept + meant, (
            f"'{shown}' has a Chinese keyboard's full-width marks, so Markdown would show it "
            f"as written (or as a link to the file); it is read as the picture "
            f"{shortened(meant, 60)}: write it so, with half-width ! [ ] ( )"
        )
    if not _ADDRESS.fullmatch(address):
        return None
    if opening == "【" and closing == "】":
        meant = f"[【{words}】]({address})"
        return kept + meant, (
            f"'{shown}' is read as a link whose words keep their 【】, {shortened(meant, 60)} "
            f"(Markdown would show it as written); write it so, or [{shortened(words, 60)}]"
            f"({shortened(address, 60)}) for a link without the brackets"
        )
    meant = f"[{words}]({address})"
    return kept + meant, (
        f"'{shown}' has a Chinese keyboard's full-width brackets, so Markdown would show it "
        f"as written; it is read as the link {shortened(meant, 60)}: write it so, with "
        "half-width [ ] ( )"
    )


def _is_picture(address: str) -> bool:
    """Whether ``address`` (a web address or a path) is an image file's."""
    parts = urlsplit(address)
    if parts.scheme not in ("", "http", "https"):
        return False
    return bool(PICTURE_FILE.search(parts.path) or _IMAGE_FORMAT.search(parts.query))
