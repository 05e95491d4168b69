"""Images of an issue: find, decode, convert, shrink and hash them. Nothing network-bound.

Every image is keyed by the SHA-256 of the bytes that are actually uploaded, so one
image goes to a (channel, account) once, across runs and across issues. The cache of
what was uploaded is the ledger's (:mod:`crosspost.ledger.assets`), and the publisher
consults it before every upload.

Remote images (``http(s)`` URLs) are read through an injected ``fetch`` function
(:class:`crosspost.images.remote.RemoteImages` in a run), so this module never opens a
connection by itself; which references may be read at all is
:mod:`crosspost.images.sources`' decision.
Pillow is imported on first use: importing this module must stay cheap for the CLI.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from crosspost.errors import IssueError, TransientError
from crosspost.images.codec import (
    GIF,
    JPEG,
    PNG,
    BadImage,
    animated_gif,
    fit_side,
    has_alpha,
    lossless_webp,
    open_image,
    probe,
    shrink_still,
)
from crosspost.images.sources import (
    DATA,
    REMOTE,
    Fetch,
    ReadOnce,
    RefusedImage,
    confine,
    kind_of,
    local_path,
    shown_ref,
)
from crosspost.issue.encoding import decode
from crosspost.platforms.base import ImagePolicy

if TYPE_CHECKING:
    from PIL.Image import Image


_EXTENSIONS = {JPEG: ".jpg", PNG: ".png", GIF: ".gif"}
#: Pillow format name → the MIME type we upload it as, when no conversion is needed.
_MIMES = {"JPEG": JPEG, "MPO": JPEG, "PNG": PNG, "GIF": GIF}
#: Pillow formats whose pixels were already lossy: convert them to JPEG, not PNG.
_LOSSY_FORMATS = {"JPEG", "MPO", "HEIF", "JPEG2000"}


@dataclass(frozen=True)
class SourceImage:
    """An image as the issue names it, with its original bytes."""

    #: The reference exactly as written in the issue (relative path or URL).
    ref: str
    data: bytes
    #: The issue file, for error messages.
    issue_path: Path
    _sha256: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def sha256(self) -> str:
        """SHA-256 hex of :attr:`data`, hashed once however many channels prepare it.

        Kept on the instance by hand, not by ``functools.cached_property``: on Python 3.11
        that holds one lock for the whole class while it computes, so every post's image
        thread and upload worker queued behind whichever image was being hashed (hashlib
        lets go of the GIL for a large buffer, so hashes of different images can run on
        two cores at once). Two threads that ask for the same image at the same moment
        may both hash it; they find the same digest.
        """
        digest = self._sha256
        if digest is None:
            digest = hashlib.sha256(self.data).hexdigest()
            object.__setattr__(self, "_sha256", digest)  # past the frozen guard: a memo
        return digest


@dataclass(frozen=True)
class PreparedImage:
    """The bytes to upload, ready for one platform, keyed by their SHA-256: what the image
    pipeline hands every adapter's ``upload_image``."""

    #: The exact bytes to send (already converted and shrunk for the channel).
    data: bytes
    #: ``image/jpeg``, ``image/png`` or ``image/gif``.
    mime: str
    #: A file name with the right extension (platforms reject names without one).
    filename: str
    #: SHA-256 hex of :attr:`data`: the key of the uploaded-image cache.
    digest: str
    width: int
    height: int
    _md5: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def md5(self) -> str:
        """MD5 hex of the bytes (Zhihu deduplicates uploads by it), worked out once: the
        thread that reads a post's images asks for it ahead of the upload that sends it
        (see :meth:`crosspost.channels.base.Adapter.ready_upload`). Kept by hand, as
        :attr:`SourceImage.sha256` is, so hashes of different images run side by side."""
        digest = self._md5
        if digest is None:
            digest = hashlib.md5(self.data, usedforsecurity=False).hexdigest()
            object.__setattr__(self, "_md5", digest)  # past the frozen guard: a memo
        return digest

    @property
    def size(self) -> int:
        return len(self.data)


# --- reading sources ---------------------------------------------------------------------


def _issue_line(issue_path: Path, ref: str) -> int | None:
    """The first line of the issue that mentions ``ref`` (for a file:line message)."""
    try:
        text = decode(issue_path.read_bytes(), "replace")
    except OSError:
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if ref in line:
            return number
    return None


class ImageError(IssueError):
    """An image of an issue cannot be used: names the file, the line and the image.

    ``code`` says what kind of trouble (``missing-image``, ``bad-image``,
    ``refused-image``) and ``detail`` what to do, for lint to report beside its others.
    """

    def __init__(
        self, path: Path, ref: str, detail: str, line: int | None, code: str = "bad-image"
    ) -> None:
        super().__init__(path, f"image {shown_ref(ref)!r} {detail}", line)
        self.ref = ref
        self.detail = detail
        self.code = code


#: What to do about a remote image out of reach: nothing of the issue went anywhere.
UNREACHABLE_FIX = "nothing was sent, run again later"


class UnreachableImage(TransientError):
    """A remote image out of reach for now (network trouble, exit 75), with what the
    fetch said (``detail``), so check can list it among the issue's other problems."""

    def __init__(self, message: str, *, code: int | str | None = None, detail: str) -> None:
        super().__init__(message, code=code)
        self.detail = detail


def image_error(issue_path: Path, ref: str, problem: str, code: str = "bad-image") -> ImageError:
    """An :class:`ImageError` for one image: names the issue file, its line and the image
    (a URL without its query string: signed URLs carry their signature there)."""
    return ImageError(issue_path, ref, problem, _issue_line(issue_path, ref), code)


def read_source(
    ref: str,
    issue_path: Path,
    fetch: Fetch | None = None,
    folders: tuple[Path, ...] = (),
    reads: ReadOnce | None = None,
) -> SourceImage:
    """Read one image reference: a path relative to the issue (inside its folder or one of
    ``folders``), a data: URI or an http(s) URL (through ``fetch``); with ``reads``, what
    the run read for it already, if anything (the same checks were passed then).

    Raises :class:`ImageError` (exit 2) for anything wrong with the reference, and a
    :class:`TransientError` naming the issue's file and line for network trouble (75).
    """
    if reads is None:
        return _read_source(ref, issue_path, fetch, folders)
    known = reads.get(issue_path, ref)
    if isinstance(known, SourceImage):
        return known
    source = _read_source(ref, issue_path, fetch, folders)
    reads.put(issue_path, ref, source, len(source.data))
    return source


def _read_source(
    ref: str, issue_path: Path, fetch: Fetch | None, folders: tuple[Path, ...]
) -> SourceImage:
    try:
        kind = kind_of(ref)
    except RefusedImage as error:
        raise image_error(issue_path, ref, str(error), "refused-image") from None
    if kind == REMOTE:
        if fetch is None:
            raise image_error(issue_path, ref, "is remote and fetching is off; download it")
        try:
            return SourceImage(ref, fetch(ref), issue_path)
        except RefusedImage as error:
            raise image_error(issue_path, ref, str(error), "refused-image") from None
        except ValueError as error:  # the fetch function's "this URL is dead"
            raise image_error(
                issue_path, ref, f"could not be downloaded ({error})", "missing-image"
            ) from None
        except TransientError as error:
            where = image_error(issue_path, ref, "")
            raise UnreachableImage(
                f"{str(where).rstrip()} could not be reached ({error}); {UNREACHABLE_FIX}",
                code=error.code,
                detail=str(error),
            ) from None
    if kind == DATA:
        return SourceImage(ref, _data_uri(ref, issue_path), issue_path)
    path = local_path(ref, issue_path)
    try:
        confine(path, issue_path, folders)
    except RefusedImage as error:
        raise image_error(issue_path, ref, str(error), "refused-image") from None
    try:
        return SourceImage(ref, path.read_bytes(), issue_path)
    except FileNotFoundError:
        raise image_error(
            issue_path, ref, f"not found at {path}; fix the path", "missing-image"
        ) from None
    except IsADirectoryError:
        raise image_error(issue_path, ref, "is a folder; name an image file") from None
    except OSError as error:
        raise image_error(issue_path, ref, f"cannot be read ({error.strerror})") from None


def _data_uri(ref: str, issue_path: Path) -> bytes:
    """The bytes of a ``data:`` URI; a broken one names its line."""
    header, comma, payload = ref.partition(",")
    shown = ref[:40]
    try:
        if not comma:
            raise ValueError("no comma")
        if header.lower().endswith(";base64"):
            return base64.b64decode(unquote(payload), validate=True)
        return unquote(payload).encode("latin-1")
    except (ValueError, UnicodeEncodeError):
        raise image_error(
            issue_path, shown, "is a broken data: URI; encode the image again or link a file"
        ) from None


def collect(
    refs: Iterable[str],
    issue_path: Path,
    fetch: Fetch | None = None,
    folders: tuple[Path, ...] = (),
    reads: ReadOnce | None = None,
) -> dict[str, SourceImage]:
    """Read every distinct image reference once (a URL is fetched once however often used;
    with ``reads``, once per run)."""
    found: dict[str, SourceImage] = {}
    for ref in refs:
        if ref not in found:
            found[ref] = read_source(ref, issue_path, fetch, folders, reads)
    return found


def _filename(ref: str, mime: str) -> str:
    stem = Path(unquote(urlsplit(ref).path) or "image").stem if not ref.startswith("data:") else ""
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in stem).strip("-.") or "image"
    return stem[:64] + _EXTENSIONS[mime]


def prepare(source: SourceImage, policy: ImagePolicy) -> PreparedImage:
    """Turn one image into bytes ``policy`` accepts, losing as little as possible.

    Untouched when already acceptable (format, size, upright); otherwise EXIF rotation
    is applied (and dropped), refused formats become PNG (lossless or transparent
    sources) or JPEG (lossy sources), and oversized images are re-encoded, then
    stepped down in quality, then scaled. A policy without a byte cap (the limit turned
    off in the config) shrinks nothing: an image is converted, if it must be, once.
    """
    from PIL import ImageOps

    digest = source.sha256
    try:
        # Decoded once per process: the other channel's prepare of these bytes reuses it.
        seen, decoded = probe(source.data, digest)
    except BadImage as error:
        raise image_error(source.issue_path, source.ref, str(error)) from None
    fmt = seen.format
    mime = _MIMES.get(fmt, "")
    animated = seen.animated
    rotated = seen.orientation != 1
    fits_side = not policy.max_side or max(seen.width, seen.height) <= policy.max_side
    keep_animation = animated and policy.animated and GIF in policy.formats
    if (
        mime in policy.formats
        and policy.fits(len(source.data))
        and not rotated
        and fits_side
        and (not animated or (keep_animation and mime == GIF))
    ):
        return PreparedImage(
            data=source.data,
            mime=mime,
            filename=_filename(source.ref, mime),
            digest=digest,
            width=seen.width,
            height=seen.height,
        )
    # To be converted: the pixels themselves are needed (decoded again if another thread
    # did the first decode).
    image = decoded if decoded is not None else open_image(source.data)
    try:
        if keep_animation:
            data, frame = animated_gif(image, policy.max_bytes)
            return _prepared(data, GIF, source.ref, frame)
        if animated:
            image.seek(0)
        # Untouched when upright, so a JPEG can be re-encoded with its own tables.
        upright = (ImageOps.exif_transpose(image) or image) if rotated else image
        still = fit_side(upright, policy.max_side)
        if mime in policy.formats and mime in (JPEG, PNG):
            target = mime
        elif PNG in policy.formats and (
            has_alpha(still)
            or fmt not in _LOSSY_FORMATS | {"WEBP"}
            or (fmt == "WEBP" and lossless_webp(source.data))
        ):
            target = PNG
        elif JPEG in policy.formats:
            target = JPEG
        else:
            target = PNG
        data, target, still = shrink_still(still, target, policy.max_bytes, policy.formats)
    except ValueError as error:
        raise image_error(
            source.issue_path, source.ref, f"is too large for {policy.name} ({error})"
        ) from None
    return _prepared(data, target, source.ref, still)


def _prepared(data: bytes, mime: str, ref: str, image: Image) -> PreparedImage:
    return PreparedImage(
        data=data,
        mime=mime,
        filename=_filename(ref, mime),
        digest=hashlib.sha256(data).hexdigest(),
        width=image.width,
        height=image.height,
    )
