"""Every image an issue names, read and decoded as ``publish`` will read it, for lint.

Lint is the one stage before publishing that opens the issue's images, and it reads them
through the same door as the uploads (:func:`crosspost.images.pipeline.read_source`):
a reference outside the issue's folder, a ``file:`` URL, a broken ``data:`` URI, a dead
or refused remote image, a missing file or one Pillow cannot fully decode (a truncated
JPEG decodes its header fine and fails halfway through the pixels) is an error here,
before anything is sent. A format or size the platform refuses is a warning (the image
pipeline converts it). The decode is remembered per process by the bytes' hash
(:func:`crosspost.images.codec.probe`), so the uploads do not decode again, and across
runs where the command keeps a folder for it (:mod:`crosspost.images.remembered`), so
the editor's next ``check`` of the same images loads no Pillow at all.

Network trouble reaching a remote image is no problem of the issue: it is listed as an
:data:`UNREACHABLE` problem beside the issue's others, and a run whose only problems are
those ends with exit 75 (try again later), not 2 (:func:`only_unreachable`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from crosspost.images.codec import BadImage
from crosspost.images.pipeline import (
    UNREACHABLE_FIX,
    ImageError,
    UnreachableImage,
    read_source,
)
from crosspost.images.remembered import remembered_probe
from crosspost.images.sources import LOCAL, REMOTE, ImageSources, RefusedImage, kind_of, local_path
from crosspost.issue.fields import near_file
from crosspost.issue.model import Issue
from crosspost.patterns import pattern

#: The code of a remote image out of reach for now: network trouble, not the issue's.
UNREACHABLE = "unreachable-image"


def only_unreachable(codes: Iterable[str]) -> bool:
    """Whether problems of these codes (at least one) are all network trouble: the run
    is then temporary trouble (exit 75, cron tries again), not bad input (exit 2)."""
    listed = list(codes)
    return bool(listed) and all(code == UNREACHABLE for code in listed)


@dataclass(frozen=True)
class ImageFile:
    """What an image is, from one full decode of its bytes."""

    #: Pillow's format name: ``JPEG``, ``PNG``, ``GIF``, ``WEBP``, ``BMP``, …
    format: str
    size: int
    width: int
    height: int


@dataclass(frozen=True)
class ImageProblem:
    """Why an image cannot be used (``missing-image``, ``bad-image``, ``refused-image``)
    and the fix."""

    code: str
    message: str


class ImageInfo:
    """An issue's images, each read and decoded once; one that cannot be used comes back
    as its problem, a remote one not fetched (no fetcher in ``sources``) as None."""

    def __init__(self, issue_path: Path, sources: ImageSources | None = None) -> None:
        self.issue_path = issue_path
        self.sources = sources or ImageSources()
        self._seen: dict[str, ImageFile | ImageProblem | None] = {}

    def read(self, ref: str | Path) -> ImageFile | ImageProblem | None:
        """What the image ``ref`` (as written in the issue, or the cover's path) is."""
        ref = str(ref)
        if ref not in self._seen:
            self._seen[ref] = self._read(ref)
        return self._seen[ref]

    def _read(self, ref: str) -> ImageFile | ImageProblem | None:
        try:
            kind = kind_of(ref)
        except RefusedImage as error:
            return ImageProblem("refused-image", str(error))
        if kind == REMOTE and self.sources.fetch is None:
            return None
        if kind == LOCAL:
            if not ref.strip():
                return ImageProblem(
                    "bad-image", "names no picture; write its path or address in the ( )"
                )
            path = local_path(ref, self.issue_path)
            if path.is_dir():
                return ImageProblem("bad-image", "is a folder; name an image file")
            if not path.is_file() and not path.is_symlink():
                near = near_file(ref, self.issue_path.parent)
                hint = f"did you mean {near!r}? " if near else ""
                fix = f"not found next to the issue; {hint}fix the path or add the file"
                return ImageProblem("missing-image", fix)
        try:
            rules = self.sources
            source = read_source(ref, self.issue_path, rules.fetch, rules.folders, rules.reads)
        except ImageError as error:
            graph = _logseq_assets(ref, self.issue_path) if error.code == "refused-image" else None
            if graph is not None:
                return ImageProblem(error.code, _outside_the_graph(self.issue_path, graph))
            return ImageProblem(error.code, error.detail)
        except UnreachableImage as error:  # listed with the rest; the command says 75
            fix = f"could not be reached ({error.detail}); {UNREACHABLE_FIX}"
            return ImageProblem(UNREACHABLE, fix)
        data = source.data
        try:
            seen = remembered_probe(data, source.sha256, self.sources.probes)
        except BadImage as error:
            return ImageProblem("bad-image", str(error))
        return ImageFile(seen.format, len(data), seen.width, seen.height)


#: The folders of a Logseq graph its pages are kept in; its pictures are in ``assets``.
_LOGSEQ_PAGES = ("pages", "journals")


def _logseq_assets(ref: str, issue_path: Path) -> Path | None:
    """The ``assets`` folder of the Logseq graph a page at ``issue_path`` is in, when the
    picture ``ref`` lies there (Logseq writes ``../assets/image_….png`` from ``pages/``),
    else None."""
    folder = issue_path.parent
    if folder.name not in _LOGSEQ_PAGES:
        return None
    assets = (folder.parent / "assets").resolve()
    return assets if local_path(ref, issue_path).resolve().is_relative_to(assets) else None


def _outside_the_graph(issue_path: Path, assets: Path) -> str:
    """Why a Logseq page's picture in its graph's ``assets`` folder is refused, and the
    one setting that lets crosspost read it (the folder, safe to name: it holds the
    graph's own pictures)."""
    return (
        f"lies outside the issue's folder ({issue_path.parent.resolve()}): Logseq keeps a "
        "graph's pictures in its assets folder, beside pages/; let crosspost read them by "
        f'adding it under [images] in crosspost.toml: folders = ["{assets.as_posix()}"] '
        "(or the environment's CROSSPOST_IMAGE_FOLDERS)"
    )


#: Extensions a remote image's URL may end in, by Pillow format: before the download the
#: name is all there is. SVG is refused by both platforms and cannot be converted.
_REMOTE_FORMAT_OF = {
    ".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".gif": "GIF", ".webp": "WEBP",
    ".svg": "SVG", ".bmp": "BMP", ".tif": "TIFF", ".tiff": "TIFF", ".avif": "AVIF",
    ".heic": "HEIF", ".ico": "ICO",
}  # fmt: skip


def remote_format(url: str) -> str | None:
    """The image format a remote image's URL names by its extension (None: it names none)."""
    return _REMOTE_FORMAT_OF.get(Path(urlsplit(url).path).suffix.lower())


#: Markdown image syntax left as text: markdown-it makes no image of a target whose
#: scheme it distrusts (``file:``, ``javascript:``, …), so the platform would show it as
#: literal text, and the editor would never hear of it.
_LITERAL_IMAGE = pattern(r"!\[[^\]]*\]\(\s*<?([A-Za-z][A-Za-z0-9+.-]*:(?:[^()<>\s]|\([^()\s]*\))*)")


def literal_images(issue: Issue) -> Iterator[tuple[str, int, str]]:
    """(target, line, why) of every ``![…](scheme:…)`` that markdown-it left as text
    because crosspost would refuse its scheme anyway; code spans and blocks are skipped."""
    lines = issue.body.split("\n")
    for token in issue.document.tokens:
        if token.type != "inline" or not token.map:
            continue
        start, end = token.map
        for child in token.children or []:
            if child.type != "text":
                continue
            for target in _LITERAL_IMAGE.findall(child.content):
                try:
                    kind_of(target)
                except RefusedImage as error:
                    offset = next(
                        (i for i in range(start, min(end, len(lines))) if target in lines[i]),
                        start,
                    )
                    yield target, issue.body_line + offset, str(error)
