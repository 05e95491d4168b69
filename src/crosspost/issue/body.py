"""Facts about an issue body found by walking its one parsed token stream, with file lines.

The loader uses :func:`check_containers` (every ``::: only`` block names a known channel
and is closed; what it finds is kept on the issue as notices); lint uses
:func:`image_refs` (every image, with its line and the channel of the ``only`` block
around it) and :func:`empty_footnotes`. Nothing here reads a file:
what an image file is, lint learns in :mod:`crosspost.check.images`.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from crosspost.issue.bare_links import with_scheme
from crosspost.issue.blocks import CODE_SPAN
from crosspost.issue.dialect import Document, only_channel, tokens_after
from crosspost.issue.kimi_notes import KIMI_MARK
from crosspost.issue.model import Issue, Notice
from crosspost.patterns import pattern
from crosspost.platforms.registry import PLATFORMS, platform_names


@dataclass(frozen=True)
class ImageRef:
    """One image in the body: its source as written, its file line and its ``only`` channel."""

    source: str
    line: int
    channel: str | None
    #: The file it names, for a local image; ``None`` for URLs and data: URIs.
    path: Path | None

    @property
    def remote(self) -> bool:
        return urlsplit(self.source).scheme in ("http", "https")


#: A raw ``<img>``'s source: quoted (spaces and all, ``"my image.png"``) or not; never a
#: ``data-src``.
_HTML_IMG = pattern(
    r"""<img\b[^>]*?(?<![-\w])src\s*=\s*(?:"([^"]*)"|'([^']*)'|([^"'\s>]+))""", re.IGNORECASE
)


def image_refs(issue: Issue) -> Iterator[ImageRef]:
    """Every image of the body in order (Markdown and raw ``<img>``), with its line."""
    lines = issue.body.split("\n")
    channels: list[str] = []
    for token in issue.document.tokens:
        if token.type == "container_only_open":
            channels.append(only_channel(token))
            continue
        if token.type == "container_only_close":
            channels.pop()
            continue
        if not token.map:
            continue
        start, end = token.map
        sources: list[str] = []
        if token.type == "inline":
            for child in token.children or []:
                if child.type == "image":
                    sources.append(str(child.attrGet("src") or ""))
                elif child.type == "html_inline":
                    sources += _raw_sources(child.content)
        elif token.type == "html_block":
            sources += _raw_sources(token.content)
        offset = start
        for source in sources:
            offset = _line_of(lines, source, offset, end)
            source = with_scheme(source)  # raw HTML's, as the renderers write it
            yield ImageRef(
                source=source,
                line=issue.body_line + offset,
                channel=channels[-1] if channels else None,
                path=_local_path(issue.folder, source),
            )


def image_named(issue: Issue, source: str, channel: str | None) -> ImageRef:
    """An image a renderer shows that no token of the body names as one (an element a
    browser reads as a picture, a video's poster), at the first body line that mentions
    it (the body's first line when none does)."""
    lines = issue.body.split("\n")
    offset = _line_of(lines, source, 0, len(lines))
    return ImageRef(source, issue.body_line + offset, channel, _local_path(issue.folder, source))


def _raw_sources(fragment: str) -> list[str]:
    """The sources of the raw ``<img>`` tags of ``fragment``, as written (entities read)."""
    if "<img" not in fragment.lower():
        return []
    found = _HTML_IMG.findall(fragment)
    return [html.unescape("".join(groups)).strip() for groups in found if "".join(groups).strip()]


def _line_of(lines: list[str], source: str, start: int, end: int) -> int:
    """The body line (0-based) in [start, end) that mentions ``source``; ``start`` if none."""
    for needle in (source, unquote(source)):
        for index in range(start, min(end, len(lines))):
            if needle in lines[index]:
                return index
    return start


def _local_path(folder: Path, source: str) -> Path | None:
    scheme = urlsplit(source).scheme
    if scheme in ("http", "https", "data") or not source:
        return None
    return folder / unquote(source.split("#")[0].split("?")[0])


# --- links between channels in the body -------------------------------------------

#: ``{zhihu.url}`` or ``{zhihu:main.url}``: another channel's URL of the same issue, in a
#: front-matter field or in the body (the publisher fills it in).
CHANNEL_URL = pattern(r"\{([A-Za-z]+)(?::([A-Za-z0-9._-]+))?\.url\}")


@dataclass(frozen=True)
class BodyReference:
    """One ``{channel[:account].url}`` in the part of the body a channel shows."""

    text: str
    channel: str
    account: str | None
    #: The file line it stands on.
    line: int


def body_references(issue: Issue, channel: str) -> list[BodyReference]:
    """Every channel reference in the body as ``channel`` shows it: lines inside another
    channel's ``::: only`` block and inside code are left out (code shows them as text)."""
    if "url}" not in issue.body:
        return []
    hidden: set[int] = set()
    for token in issue.document.tokens:
        if not token.map:
            continue
        code = token.type in ("fence", "code_block")
        elsewhere = token.type == "container_only_open" and only_channel(token) != channel
        if code or elsewhere:
            hidden.update(range(*token.map))
    found: list[BodyReference] = []
    for index, text in enumerate(issue.body.split("\n")):
        if index in hidden:
            continue
        line = issue.body_line + index
        for match in CHANNEL_URL.finditer(CODE_SPAN.sub(_blank, text)):
            if _meant_as_reference(match.group(1)):
                found.append(BodyReference(match.group(0), match.group(1), match.group(2), line))
    return found


def _blank(span: re.Match[str]) -> str:
    return " " * len(span.group(0))


def _meant_as_reference(name: str) -> bool:
    """A channel's name, or one a letter or two from it (``{zhuhu.url}``: a typo to name).
    Other braces are the writer's prose: ``接口返回 {data.url}`` is an example of JSON,
    and refusing the issue for it refused a readable document."""
    if name in PLATFORMS:
        return True
    import difflib  # only for braces that name no channel: rare, and off the start-up path

    return bool(difflib.get_close_matches(name.lower(), platform_names(), cutoff=0.7))


# --- ``::: only`` blocks -----------------------------------------------------

_FENCE_LINE = pattern(r"^\s*(:{3,})\s*(.*?)\s*$")


def check_containers(path: Path, document: Document, body_line: int) -> list[Notice]:
    """What is wrong with the ``:::`` blocks: every problem, in body order.

    A typo here is silent data loss: markdown-it shows an unknown marker as text and
    closes an open block at the end of the document, so one channel would lose the rest
    of the issue. An unknown channel or an unclosed ``only`` block is an error; a
    ``:::`` line crosspost does not know stays text, which the editor should hear about.
    Lines inside code blocks are examples, not markers, and are skipped.
    """
    found: list[Notice] = []
    markers: set[int] = set()  # body lines (0-based) opening or closing a real block
    in_code: set[int] = set()
    stack: list[int] = []
    for token in document.tokens:
        if token.type in ("fence", "code_block", "math_block", "math_block_label") and token.map:
            in_code.update(range(*token.map))
        elif token.type == "container_only_open" and token.map:
            start, end = token.map
            channel = only_channel(token)
            if channel not in PLATFORMS:
                message = (
                    f"'::: only {channel}' names unknown channel '{channel}'; "
                    f"use {' or '.join(platform_names())}"
                )
                found.append(Notice(body_line + start, "unknown-only-channel", message))
            markers.update((start, end))  # markdown-it's map ends on the closing line
            stack.append(start)
        elif token.type == "callout_open" and token.markup.startswith(":") and token.map:
            markers.update(token.map)  # a callout's lines; lint names an unknown one
        elif token.type == "container_only_close":
            start = stack.pop()
            if not token.markup:  # markdown-it closed it at the end of the document
                message = (
                    "'::: only' block is never closed; add a ':::' line where it ends "
                    "(an outer block around another needs a longer fence, '::::')"
                )
                found.append(Notice(body_line + start, "unclosed-block", message))
    for lines in document.grouped:
        markers.update(lines)
    unknown_open = 0  # unknown blocks opened: their bare ':::' lines close them
    for index, text in enumerate(document.body.split("\n")):
        match = _FENCE_LINE.match(text)
        if not match or index in markers or index in in_code:
            continue
        if not match.group(2) and unknown_open:
            unknown_open -= 1
            continue
        if match.group(2):
            unknown_open += 1
            message = (
                f"'{text.strip()}' is not a block crosspost knows, so it is shown as text; "
                f"write '::: only wechat', '::: only zhihu' or a callout ('::: tip')"
            )
        else:
            message = (
                "':::' closes no '::: only' block or callout, so it is shown as text; "
                "remove it or open one above"
            )
        found.append(Notice(body_line + index, "unknown-block", message, "warning"))
    return sorted(found, key=lambda notice: notice.line or 0)


@dataclass(frozen=True)
class Callout:
    """One callout (``::: name`` container or ``> [!KIND]`` alert) and its file line."""

    name: str
    kind: str
    line: int
    closed: bool
    #: The callout this one sits in, if any: an unclosed callout ends with it.
    within: Callout | None = None
    #: Its opening line as written (``::: {.callout-note}``, ``> [!NOTE]``), for messages.
    written: str = ""


def callouts(issue: Issue) -> Iterator[Callout]:
    """Every callout of the body in order, with its line (lint warns about unknown names
    and containers markdown-it closed at the end of the document, or of the callout
    they sit in)."""
    opened: list[Callout] = []
    lines = issue.body.split("\n")
    for token in issue.document.tokens:
        if token.type == "callout_open":
            row = token.map[0] if token.map else 0
            within = opened[-1] if opened else None
            written = lines[row].strip() if row < len(lines) else ""
            name, kind = token.meta["name"], token.meta["kind"]
            line = issue.body_line + row
            opened.append(Callout(name, kind, line, True, within, written or f"::: {name}"))
        elif token.type == "callout_close" and opened:
            callout = opened.pop()
            yield callout if token.markup else replace(callout, closed=False)


#: A footnote's definition: its label, Kimi's (``[^1^]:`` defines note 1, as the dialect
#: reads it: :mod:`crosspost.issue.kimi_notes`) or Markdown's.
_FOOTNOTE_DEFINITION = pattern(rf"^\s*(?:{KIMI_MARK.pattern}|\[\^([^\]\s]+)\]):")


def footnote_definitions(issue: Issue) -> dict[str, list[int]]:
    """Each footnote label with the file lines that define it (``[^1]: …``), in order;
    lines inside code and raw HTML blocks are text, not definitions."""
    code = {
        row
        for token in issue.document.tokens
        if token.map and token.type in ("fence", "code_block", "html_block")
        for row in range(*token.map)
    }
    defined: dict[str, list[int]] = {}
    for row, text in enumerate(issue.body.split("\n")):
        match = _FOOTNOTE_DEFINITION.match(text)
        if match and row not in code:
            defined.setdefault(match.group(1) or match.group(2), []).append(issue.body_line + row)
    return defined


def empty_footnotes(issue: Issue) -> list[tuple[str, int | None]]:
    """(label, line) of every footnote defined with no text, such as a bare ``[^1]:``."""
    tokens = issue.document.tokens
    defined = footnote_definitions(issue)
    found: list[tuple[str, int | None]] = []
    for index, token in enumerate(tokens):
        if token.type != "footnote_open":
            continue
        after = tokens_after(tokens, index)
        inside = itertools.takewhile(lambda t: t.type != "footnote_close", after)
        if any(inner.type != "footnote_anchor" for inner in inside):
            continue
        label = str(token.meta.get("label", ""))
        found.append((label, defined.get(label, [None])[0]))
    return found
