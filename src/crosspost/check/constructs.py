"""Lint for constructs a channel shows differently from how they were written.

Nothing an issue says may go missing in silence: a formula WeChat cannot draw, a
``<video>`` no channel plays, an ``<svg>`` Zhihu drops, a callout name crosspost does
not know. Each is found here in the body's one token stream, with its file line, and
reported as a warning (or a note, where the reader still sees everything). What each
channel keeps of raw HTML is its renderer's allowlist, the same one the render applies.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from markdown_it.token import Token

from crosspost.issue.blocks import LAZY_SOURCE_NAMES, shortened
from crosspost.issue.body import Callout, callouts
from crosspost.issue.callouts import CALLOUT_LABELS
from crosspost.issue.model import Issue
from crosspost.patterns import pattern
from crosspost.platforms.wechat import WECHAT
from crosspost.platforms.zhihu import ZHIHU
from crosspost.render.hidden import hidden_words, inline_hidden_words
from crosspost.render.layout import pictures_in_cells
from crosspost.render.sanitize import (
    ALWAYS_DROPPED,
    EVERNOTE,
    FRAMES,
    MEDIA_LABELS,
    Allowlist,
    Media,
    first_media,
    modern_tags,
    script_embeds,
)
from crosspost.render.wechat.raw import ALLOWLIST as WECHAT_HTML
from crosspost.render.zhihu.common import (
    MOVED_IMAGE,
    goes_on_after_sublist,
    is_web_link,
    list_start,
)
from crosspost.render.zhihu.sanitize import ALLOWLIST as ZHIHU_HTML
from crosspost.render.zhihu.sanitize import NumberedList, inline_lists, numbered_lists

#: Each channel's raw-HTML allowlist (the renderers' own).
ALLOWLISTS: dict[str, Allowlist] = {WECHAT.name: WECHAT_HTML, ZHIHU.name: ZHIHU_HTML}
#: Form controls: their text, if any, goes with them.
_FORM = frozenset({"input", "button", "select", "textarea", "option", "form"})
_OPENING = pattern(r"<([A-Za-z][A-Za-z0-9-]*)\b")
#: A raw ``<ol start>`` or ``<ol reversed>``, maybe numbered otherwise than Zhihu does:
#: only then is the block parsed to find out (most raw HTML holds no such list).
_RAW_START = pattern(r"<ol\b[^>]*?\b(?:start|reversed)\b", re.IGNORECASE)

WARNING, INFO = "warning", "info"


@dataclass(frozen=True)
class Finding:
    """One construct shown differently on ``channel`` (``None``: on every channel)."""

    line: int
    channel: str | None
    code: str
    message: str
    severity: str = WARNING


def construct_findings(issue: Issue, channels: Iterable[str]) -> list[Finding]:
    """Every :class:`Finding` of ``issue`` for ``channels``, in body order."""
    channels = tuple(channels)
    found = list(_callouts(issue))
    found += _hidden_content(issue)
    for channel in channels:
        tokens = issue.document.for_channel(channel)
        if channel == WECHAT.name:
            found += _formulas(issue, tokens, channel)
        if channel == ZHIHU.name:
            found += _strikethrough(issue, tokens, channel)
            found += _highlight(issue, tokens, channel)
            found += _numbers_as_text(issue, tokens, channel)
            found += _blocks_in_notes(issue, tokens, channel)
            found += _images_in_cells(issue, tokens, channel)
            found += _formulas_in_cells(issue, tokens, channel)
        allowlist = ALLOWLISTS.get(channel)
        if allowlist is not None:
            found += _raw_html(issue, tokens, channel, allowlist)
    return sorted(_once(found, channels), key=lambda finding: finding.line)


def _once(found: list[Finding], channels: Iterable[str]) -> list[Finding]:
    """``found`` with a finding said alike for every one of ``channels`` (a ``<style>``
    every channel leaves out: a notebook's table has one) said once, for no channel in
    particular; one said for some channels only stays theirs."""
    wanted = set(channels)
    if len(wanted) < 2:
        return found
    said: dict[Finding, set[str | None]] = {}
    for finding in found:
        said.setdefault(replace(finding, channel=None), set()).add(finding.channel)
    kept: list[Finding] = []
    told: set[Finding] = set()
    for finding in found:
        alike = replace(finding, channel=None)
        if said[alike] != wanted:
            kept.append(finding)
        elif alike not in told:
            told.add(alike)
            kept.append(alike)
    return kept


def _callouts(issue: Issue) -> Iterator[Finding]:
    """Callouts of a name crosspost does not know, one finding per name (on its first
    line, with how many there are: a page through Pandoc wraps every section in a
    ``::: {.section}`` div, and a finding per div buried the rest), and each callout
    never closed."""
    known = ", ".join(CALLOUT_LABELS)
    unknown: dict[str, list[Callout]] = {}
    for callout in callouts(issue):
        if callout.name not in CALLOUT_LABELS:
            unknown.setdefault(callout.name, []).append(callout)
        if callout.closed:
            continue
        written = shortened(callout.written, 60)
        if callout.within is None:
            message = (
                f"'{written}' is never closed, so it runs to the end of the issue; "
                "add a ':::' line where it ends"
            )
        else:
            outer = callout.within
            message = (
                f"'{written}' is never closed, so it ends where the "
                f"'{shortened(outer.written, 60)}' it sits in (line {outer.line}) ends; if "
                f"that one should end first, add a ':::' line before line {callout.line}"
            )
        yield Finding(callout.line, None, "unclosed-callout", message)
    for found in unknown.values():
        count = len(found)
        first = min(found, key=lambda callout: callout.line)
        blocks = f" ({count} blocks of this name, the first here)" if count > 1 else ""
        message = (
            f"'{shortened(first.written, 60)}'{blocks} is not a callout crosspost knows "
            f"({known}); {'each is' if count > 1 else 'it is'} shown as a plain note"
        )
        yield Finding(first.line, None, "unknown-callout", message)


def _blocks(tokens: list[Token]) -> Iterator[tuple[Token, list[Token]]]:
    """Each block token with a source line, and its inline children (if any)."""
    for token in tokens:
        if token.map:
            yield token, token.children or []


def _hidden_content(issue: Issue) -> Iterator[Finding]:
    """Raw HTML its page hides (``display:none``, an email's preheader), which every
    channel leaves out with its words (:mod:`crosspost.render.hidden`): one finding per
    element that holds words, quoting them."""
    for block, children in _blocks(list(issue.document.tokens)):
        if block.type == "html_block":
            found = [
                (issue.body_line + (block.map or (0,))[0] + row, name, words)
                for row, name, words in hidden_words(block.content)
            ]
        elif children and "<" in block.content:
            found = [
                (_line_of(issue, block, f"<{name}"), name, words)
                for name, words in inline_hidden_words(children)
            ]
        else:
            continue
        for line, name, words in found:
            if not words:
                continue
            message = (
                f"'<{name}>' is hidden on its page (display:none, visibility:hidden or the "
                f"hidden attribute), as an email's preheader is, so every channel leaves it "
                f"out with its words ('{shortened(words, 60)}'); remove what hides it if "
                "readers should see them, or delete it from the issue to silence this"
            )
            yield Finding(line, None, "hidden-html", message)


def _formulas(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    for block, children in _blocks(tokens):
        formulas = [block] if block.type.startswith("math_block") else []
        formulas += [child for child in children if child.type.startswith("math_inline")]
        for formula in formulas:
            # Imported at the first formula, as the renderer does (most issues have none).
            from crosspost.render.wechat.math import MAX_FORMULA_CHARS, NO_GLYPH, formula_svg

            display = formula.type.startswith("math_block")
            if formula_svg(formula.content, display=display) is None:
                tex = " ".join(formula.content.split())
                if len(formula.content.strip()) > MAX_FORMULA_CHARS:
                    why = f"longer than {MAX_FORMULA_CHARS} characters"
                elif NO_GLYPH.search(tex):
                    why = (
                        "Chinese characters, which the formula font cannot draw: write "
                        "the words outside the formula, or letters in \\text{…}"
                    )
                else:
                    why = "a TeX error or a command it does not know"
                message = (
                    f"formula '{tex[:60]}' cannot be drawn on {channel} ({why}); it is "
                    "shown as its TeX in code"
                )
                line = _line_of(issue, block, tex.split(" ")[0])
                yield Finding(line, channel, "formula-not-drawn", message)


def _strikethrough(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    for block, children in _blocks(tokens):
        if any(child.type == "s_open" for child in children):
            message = (
                f"{channel} has no strikethrough: struck text is drawn with a combining "
                "stroke on each character (U+0336)"
            )
            yield Finding(
                _line_of(issue, block, "~"), channel, "strikethrough-drawn", message, INFO
            )
            return  # once per issue is enough to know


def _highlight(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    for block, children in _blocks(tokens):
        if any(child.type == "mark_open" for child in children):
            message = f"{channel} has no highlight: ==highlighted== text is shown bold there"
            yield Finding(_line_of(issue, block, "=="), channel, "highlight-bold", message, INFO)
            return  # once per issue is enough to know


def _numbers_as_text(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    """Numbered lists that do not start at 1: Zhihu shows them as bullets, each item's
    number written before its text (the numbers stay; the bullets are new). A raw one is
    said as the renderer wrote it (its sanitiser notes each), since where a raw list
    stands decides whether it stays a list at all."""
    position = {id(token): index for index, token in enumerate(tokens)}
    for block in _outside_notes(tokens):
        if not block.map:
            continue
        if block.type == "ordered_list_open":
            start = list_start(block.attrs)
            if start is not None:
                message = _numbers_message(channel, NumberedList(start, as_list=True))
                yield Finding(_line_of(issue, block, ""), channel, "list-numbers-written", message)
            elif goes_on_after_sublist(tokens, position[id(block)]):
                message = (
                    f"{channel} would make what follows a sublist in an item an item of its "
                    "own and number it, so this list is shown as a bulleted list with each "
                    "item's number written before it"
                )
                yield Finding(_line_of(issue, block, ""), channel, "list-numbers-written", message)
        elif block.type == "inline" and _RAW_START.search(block.content):
            for numbered in inline_lists(block.children or [])[1]:
                message = _numbers_message(channel, numbered)
                line = _line_of(issue, block, "<ol")
                yield Finding(line, channel, "list-numbers-written", message)
        elif block.type == "html_block" and _RAW_START.search(block.content):
            for numbered, line_in_block in numbered_lists(block.content):
                line = issue.body_line + block.map[0] + line_in_block
                message = _numbers_message(channel, numbered)
                yield Finding(line, channel, "list-numbers-written", message)


def _numbers_message(channel: str, numbered: NumberedList) -> str:
    numbers = f"from {numbered.start}" + (", counting down" if numbered.step < 0 else "")
    if numbered.as_list:
        return (
            f"{channel} numbers every list from 1, so this list ({numbers}) is "
            "shown as a bulleted list with each item's number written before it"
        )
    return (
        f"{channel} holds no list where this one stands (in a quote, a table cell or a "
        f"paragraph), so this list ({numbers}) is shown as lines of text, "
        "each with its item's number written before it"
    )


def _blocks_in_notes(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    """Code blocks, display formulas and images in a footnote: Zhihu's reference note is
    one run of plain text, so their text joins it (code loses its lines and indentation,
    an image is its words and address)."""
    inside = False
    for token in tokens:
        if token.type in ("footnote_open", "footnote_close"):
            inside = token.type == "footnote_open"
        if not inside or not token.map:
            continue
        if token.type in ("fence", "code_block"):
            what = "code block in this footnote is kept as text on that line, without its "
            what += "line breaks and indentation"
        elif token.type.startswith("math_block"):
            what = "display formula in this footnote is kept as its TeX, not drawn"
        elif token.type == "html_block":
            what = "raw HTML in this footnote is kept as its words, without its tags"
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            what = "list in this footnote is kept as its items' text, without markers"
        elif token.type == "inline" and any(c.type == "image" for c in token.children or ()):
            what = (
                "image in this footnote is not shown: the note says its alt text (or "
                "'图片'), and its address when it is on the web"
            )
        else:
            continue
        message = f"{channel} shows a footnote as one line of plain text: the {what}"
        yield Finding(_line_of(issue, token, ""), channel, "note-block-flattened", message)


#: A raw table's cell, and an image: a raw HTML block holding both is read line by line.
_RAW_CELL = pattern(r"<t[dh]\b", re.IGNORECASE)
_RAW_IMAGE = pattern(r"<img\b", re.IGNORECASE)


def _images_in_cells(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    """Images in table cells, which hold plain text on Zhihu (§7.1): each follows its
    table, and the cell says its words and where it went."""
    message = (
        f"{channel}'s table cells hold plain text: the image in this cell is shown after "
        f"the table, and the cell says its words and '{MOVED_IMAGE}'"
    )
    in_cell = False
    for token in tokens:
        if token.type in ("td_open", "th_open", "td_close", "th_close"):
            in_cell = token.nesting == 1
        elif in_cell and token.type == "inline" and token.map:
            children = token.children or ()
            if any(
                child.type == "image"
                or (child.type == "html_inline" and _RAW_IMAGE.match(child.content))
                for child in children
            ):
                yield Finding(_line_of(issue, token, ""), channel, "image-after-table", message)
        elif (
            token.type == "html_block"
            and token.map
            and _RAW_CELL.search(token.content)
            and _RAW_IMAGE.search(token.content)
        ):
            # A table that lays a page out (an email's picture in a cell of its own) is
            # shown as its content, its picture where it was.
            for index in pictures_in_cells(token.content):
                line_number = issue.body_line + token.map[0] + index
                yield Finding(line_number, channel, "image-after-table", message)


def _formulas_in_cells(issue: Issue, tokens: list[Token], channel: str) -> Iterator[Finding]:
    """Formulas in table cells, which hold plain text on Zhihu (§7.1): the cell shows the
    TeX between dollars. One finding per row."""
    message = (
        f"{channel}'s table cells hold plain text: the formula in this cell is shown as its "
        "TeX between dollar signs; write it below the table if readers need it drawn"
    )
    in_cell = said = False
    for token in tokens:
        if token.type in ("td_open", "th_open", "td_close", "th_close"):
            in_cell = token.nesting == 1
        elif token.type == "tr_open":
            said = False  # one finding per row: the rest of it says the same
        elif (
            in_cell
            and not said
            and token.type == "inline"
            and token.map
            and any(child.type.startswith("math_inline") for child in token.children or ())
        ):
            yield Finding(_line_of(issue, token, ""), channel, "formula-in-cell", message)
            said = True


def _outside_notes(tokens: list[Token]) -> Iterator[Token]:
    """The tokens that are not part of a footnote's text."""
    depth = 0
    for token in tokens:
        depth += {"footnote_block_open": 1, "footnote_block_close": -1}.get(token.type, 0)
        if not depth:
            yield token


def _raw_html(
    issue: Issue, tokens: list[Token], channel: str, allowlist: Allowlist
) -> Iterator[Finding]:
    seen: set[tuple[int, str]] = set()
    for block, children in _blocks(tokens):
        pieces = [block.content] if block.type == "html_block" else []
        pieces += [child.content for child in children if child.type == "html_inline"]
        # A gist's script is its page's frame, a checkbox its box's character (☑, ☐).
        pieces = [modern_tags(script_embeds(piece)) for piece in pieces]
        for index, piece in enumerate(pieces):
            for match in _INSTRUCTION.finditer(piece):
                line = _line_of(issue, block, match.group(0))
                if (line, "?") not in seen:
                    seen.add((line, "?"))
                    yield Finding(line, channel, "html-not-shown", _instruction(match, channel))
            for match in _OPENING.finditer(piece):
                name = match.group(1).lower()
                if name == "object" and not _EMBEDS.search(
                    piece, match.end(), _tag_end(piece, match)
                ):
                    continue  # embeds nothing: a wrapper (Apple Notes' tables), unwrapped
                message = _not_shown(name, channel, allowlist)
                if message is None:
                    continue
                if name in allowlist.media:  # its line: a link, or words linking nowhere
                    rest = piece[match.start() :] + "".join(pieces[index + 1 :])
                    message = _media_message(first_media(rest), channel, name) or message
                line = _line_of(issue, block, match.group(0))
                if (line, name) in seen:
                    continue
                seen.add((line, name))
                yield Finding(line, channel, "html-not-shown", message)


#: An attribute naming what an ``<object>`` embeds.
_EMBEDS = pattern(rf"\s(?:data|src|{LAZY_SOURCE_NAMES})\s*=", re.IGNORECASE)


def _tag_end(piece: str, opening: re.Match[str]) -> int:
    """Where the tag ``opening`` begins ends in ``piece`` (its end, if it never closes)."""
    end = piece.find(">", opening.end())
    return len(piece) if end < 0 else end


#: A processing instruction in raw HTML: ``<?php … ?>`` (WordPress posts), ``<?xml …?>``.
_INSTRUCTION = pattern(r"<\?([A-Za-z]*)")


def _instruction(match: re.Match[str], channel: str) -> str:
    what = "PHP's code" if match.group(1).lower() == "php" else "a processing instruction"
    return (
        f"'{match.group(0)}' begins {what}, which {channel} leaves out up to its '?>' with "
        "every word in it; put code in a fenced code block (```php)"
    )


#: How a warning names an embed: written as HTML, or by a site's tag (``{% youtube %}``,
#: a shortcode, a component) that crosspost reads as that element.
_EMBEDDED = {
    "video": "a video (<video>, or a site's video tag)",
    "audio": "a sound (<audio>, or a site's audio tag)",
    "iframe": "an embedded page (<iframe>, a gist's <script>, or a site's embed tag)",
}


def _media_message(media: Media | None, channel: str, written: str) -> str | None:
    """What ``channel`` shows of a media element (``<written>``) whose line is not a
    plain link to its source, said as its line says it: a video site's player in a frame
    (a line '▶ 视频' to the video's page), WeChat's own video (a link to its player page,
    if it names one), media whose source is no web address (``./demo.mp4``), or media
    that names no address at all, whose line links nowhere: then the media is lost. The
    last two are said alike for every channel, so check says them once."""
    if media is None:
        return None
    label = f"▶ {MEDIA_LABELS.get(media.name, MEDIA_LABELS['embed'])}"
    what = _EMBEDDED.get(media.name, f"<{media.name}>")
    if media.name == "video" and written in FRAMES and not media.wechat_video:
        what = f"a video (a video site's player, in an <{written}>)"
        if media.source and is_web_link(media.source):
            return (
                f"{what} cannot play on {channel}; it is shown as the line '{label}' "
                "linking to the video's page"
            )
    if media.javascript and not media.source:
        return (
            f"{what} takes its address from JavaScript (src={{…}}), which crosspost does "
            f"not run, so it is lost on every channel: only the line '{label}', linking "
            "nowhere, is shown in its place; write its web address in quotes "
            '(src="https://…")'
        )
    if media.source and not media.wechat_video:
        if is_web_link(media.source):
            return None
        return (
            f"{what} cannot play on any channel, and its source '{shortened(media.source)}' "
            f"is no web address: the line '{label}' shown in its place leads nowhere a "
            "reader can follow; put the file on the web and write its address (https://…)"
        )
    on_wechat = channel == WECHAT.name
    if media.wechat_video:
        what = "a WeChat video (WeChat's own player, <iframe data-mpvid>)"
        again = "; to have it play in WeChat, insert the video again in WeChat's editor"
    else:
        again = ", or insert it again in WeChat's editor"
    if media.source:
        return (
            f"{what} cannot play on {channel}; it is shown as the line '{label}' linking to "
            f"its player page{again if on_wechat else ''}"
        )
    return (
        f"{what} names no address crosspost can read (no src, data or data-src), so it is "
        f"lost on {channel}: only the line '{label}', linking nowhere, is shown in its place; "
        f"link to it in words (https://…){again if on_wechat else ''}"
    )


def _not_shown(name: str, channel: str, allowlist: Allowlist) -> str | None:
    """What ``channel`` does with a raw ``<name>``, if it does not show it (Evernote's
    elements are named once for every channel, by ``check.source``)."""
    if name in EVERNOTE:
        return None
    if name in allowlist.media and name in allowlist.dropped:
        what = _EMBEDDED.get(name, f"<{name}>")
        return f"{what} cannot play on {channel}; it is shown as a line linking to its source"
    if name in _FORM:
        return f"<{name}> (a form control) is not shown on {channel}; it is left out"
    if name in ALWAYS_DROPPED:  # alike on every channel: said once (see _once)
        return f"<{name}> is shown on no channel; it is left out with what it contains"
    if allowlist.drops(name) and name not in ("source", "track"):
        return f"<{name}> is not shown on {channel}; it is left out with what it contains"
    return None


def _line_of(issue: Issue, block: Token, needle: str) -> int:
    """The file line of ``block`` that holds ``needle`` (its first line if none does)."""
    start, end = block.map or (0, 1)
    lines = lines_of(issue.body)
    for index in range(start, min(end, len(lines))):
        if needle and needle in lines[index]:
            return issue.body_line + index
    return issue.body_line + start


@functools.lru_cache(maxsize=4)
def lines_of(body: str) -> tuple[str, ...]:
    """The body's lines, split once per body: an issue of many raw tags asks for a line
    per tag, and a split per tag took time in the square of the issue's length."""
    return tuple(body.split("\n"))
