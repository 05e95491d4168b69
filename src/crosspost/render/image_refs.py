"""Every image an issue body names, with its file line and ``only`` channel, and what
the file is (format, bytes, pixel size) — read from headers, once per file.

Lint needs the line of each image for its messages and the channel of the ``::: only``
block around it; the image pipeline needs only the sources, which the renderers report.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from crosspost.issue import Issue


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


_HTML_IMG = re.compile(r"""<img\b[^>]*?\bsrc\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)


def image_refs(issue: Issue) -> Iterator[ImageRef]:
    """Every image of the body in order (Markdown and raw ``<img>``), with its line."""
    from crosspost.render.markdown import new_markdown, only_channel

    lines = issue.body.split("\n")
    channels: list[str] = []
    for token in new_markdown().parse(issue.body):
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
                    sources += _HTML_IMG.findall(child.content)
        elif token.type == "html_block":
            sources += _HTML_IMG.findall(token.content)
        offset = start
        for source in sources:
            offset = _line_of(lines, source, offset, end)
            yield ImageRef(
                source=source,
                line=issue.body_line + offset,
                channel=channels[-1] if channels else None,
                path=_local_path(issue.folder, source),
            )


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


@dataclass(frozen=True)
class ImageFile:
    """What an image file is, from its header."""

    #: Pillow's format name: ``JPEG``, ``PNG``, ``GIF``, ``WEBP``, ``BMP``, …
    format: str
    size: int
    width: int
    height: int


class ImageInfo:
    """Image files read once each; a file that cannot be used comes back as its problem."""

    def __init__(self) -> None:
        self._seen: dict[Path, ImageFile | str] = {}

    def read(self, path: Path) -> ImageFile | str:
        """The file's :class:`ImageFile`, or what is wrong with it (text for a message)."""
        if path not in self._seen:
            self._seen[path] = self._read(path)
        return self._seen[path]

    @staticmethod
    def _read(path: Path) -> ImageFile | str:
        from PIL import Image, UnidentifiedImageError

        if path.is_dir():
            return "is a folder; name an image file"
        if not path.is_file():
            return "not found next to the issue; fix the path or add the file"
        try:
            with Image.open(path) as image:
                kind, (width, height) = str(image.format), image.size
        except UnidentifiedImageError:
            return "is not an image crosspost can read (SVG is not supported); export PNG or JPEG"
        except OSError as error:
            return f"cannot be read ({error}); export it again"
        return ImageFile(kind, path.stat().st_size, width, height)
