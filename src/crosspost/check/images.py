"""What the image files an issue names are, read from their headers for lint.

Lint is the one stage before publishing that opens the issue's images: a missing file or
one Pillow cannot read is an error, a format or size the platform refuses a warning (the
image pipeline converts it). A remote image cannot be read before the download, so its
URL's extension is all lint has to go on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from PIL import Image, UnidentifiedImageError


@dataclass(frozen=True)
class ImageFile:
    """What an image file is, from its header."""

    #: Pillow's format name: ``JPEG``, ``PNG``, ``GIF``, ``WEBP``, ``BMP``, …
    format: str
    size: int
    width: int
    height: int


@dataclass(frozen=True)
class ImageProblem:
    """Why an image file cannot be used: ``missing-image`` or ``bad-image``, and the fix."""

    code: str
    message: str


class ImageInfo:
    """Image files read once each; a file that cannot be used comes back as its problem."""

    def __init__(self) -> None:
        self._seen: dict[Path, ImageFile | ImageProblem] = {}

    def read(self, path: Path) -> ImageFile | ImageProblem:
        """The file's :class:`ImageFile`, or what is wrong with it."""
        if path not in self._seen:
            self._seen[path] = self._read(path)
        return self._seen[path]

    @staticmethod
    def _read(path: Path) -> ImageFile | ImageProblem:
        if path.is_dir():
            return ImageProblem("bad-image", "is a folder; name an image file")
        if not path.is_file():
            fix = "not found next to the issue; fix the path or add the file"
            return ImageProblem("missing-image", fix)
        try:
            with Image.open(path) as image:
                kind, (width, height) = str(image.format), image.size
        except UnidentifiedImageError:
            fix = "is not an image crosspost can read (SVG is not supported); export PNG or JPEG"
            return ImageProblem("bad-image", fix)
        except OSError as error:
            return ImageProblem("bad-image", f"cannot be read ({error}); export it again")
        return ImageFile(kind, path.stat().st_size, width, height)


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
