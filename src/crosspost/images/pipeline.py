"""Images of an issue: find, decode, convert, shrink and hash them. Nothing network-bound.

Every image is keyed by the SHA-256 of the bytes that are actually uploaded, so one
image goes to a (channel, account) once, across runs and across issues. The cache of
what was uploaded is the ledger's (:mod:`crosspost.ledger.assets`), and the publisher
consults it before every upload.

Remote images (``http(s)`` URLs) are read through an injected ``fetch`` function, so
this module never opens a connection by itself and tests never reach the internet.
Pillow is imported on first use: importing this module must stay cheap for the CLI.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
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
from crosspost.platforms.base import ImagePolicy

if TYPE_CHECKING:
    import requests
    from PIL.Image import Image


#: Reads a remote image: URL in, bytes out. Raises ``TransientError`` for network trouble
#: (run again later) and ``ValueError`` for a dead link (the issue's fault: exit 2).
Fetch = Callable[[str], bytes]

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

    @property
    def md5(self) -> str:
        """MD5 hex of the bytes (Zhihu deduplicates uploads by it)."""
        return hashlib.md5(self.data, usedforsecurity=False).hexdigest()

    @property
    def size(self) -> int:
        return len(self.data)


# --- reading sources ---------------------------------------------------------------------


def _issue_line(issue_path: Path, ref: str) -> int | None:
    """The first line of the issue that mentions ``ref`` (for a file:line message)."""
    try:
        text = issue_path.read_text("utf-8", errors="replace")
    except OSError:
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if ref in line:
            return number
    return None


def image_error(issue_path: Path, ref: str, problem: str) -> IssueError:
    """An ``IssueError`` for one image: names the issue file, its line and the image
    (a URL without its query string: signed URLs carry their signature there)."""
    line = _issue_line(issue_path, ref)
    return IssueError(issue_path, f"image {without_query(ref)!r} {problem}", line)


def without_query(url: str) -> str:
    """``url`` without ``?query`` and ``#fragment``, for messages."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not (parts.query or parts.fragment):
        return url
    return parts._replace(query="", fragment="").geturl() + "?…"


def read_source(ref: str, issue_path: Path, fetch: Fetch | None = None) -> SourceImage:
    """Read one image reference: a path relative to the issue, a data: URI or a URL."""
    scheme = urlsplit(ref).scheme.lower()
    if scheme in ("http", "https"):
        if fetch is None:
            raise image_error(issue_path, ref, "is remote and fetching is off; download it")
        try:
            return SourceImage(ref, fetch(ref), issue_path)
        except ValueError as error:  # the fetch function's "this URL is dead"
            raise image_error(issue_path, ref, f"could not be downloaded ({error})") from None
    if scheme == "data":
        header, _, payload = ref.partition(",")
        try:
            data = (
                base64.b64decode(payload)
                if header.endswith(";base64")
                else unquote(payload).encode("latin-1")
            )
        except ValueError:
            raise image_error(issue_path, ref[:40], "is a broken data: URI") from None
        return SourceImage(ref, data, issue_path)
    path = issue_path.parent / unquote(ref.split("#")[0].split("?")[0])
    try:
        return SourceImage(ref, path.read_bytes(), issue_path)
    except FileNotFoundError:
        raise image_error(issue_path, ref, f"not found at {path}; fix the path") from None
    except IsADirectoryError:
        raise image_error(issue_path, ref, "is a folder; name an image file") from None
    except OSError as error:
        raise image_error(issue_path, ref, f"cannot be read ({error.strerror})") from None


def collect(
    refs: Iterable[str], issue_path: Path, fetch: Fetch | None = None
) -> dict[str, SourceImage]:
    """Read every distinct image reference once (a URL is fetched once however often used)."""
    found: dict[str, SourceImage] = {}
    for ref in refs:
        if ref not in found:
            found[ref] = read_source(ref, issue_path, fetch)
    return found


#: The largest remote image read (it is shrunk for the platform afterwards); a link to
#: something bigger is a mistake in the issue, not something to hold in memory.
MAX_REMOTE_IMAGE_BYTES = 50 * 1024 * 1024


def session_fetch(
    session: requests.Session,
    timeout: float = 30.0,
    max_bytes: int = MAX_REMOTE_IMAGE_BYTES,
) -> Fetch:
    """A :data:`Fetch` over a ``requests.Session`` (the caller owns the session).

    Reads at most ``max_bytes`` (more is the issue's problem: ValueError, which the
    caller reports with the file and line). Messages never show the URL's query string.
    """
    import requests

    def fetch(url: str) -> bytes:
        shown = without_query(url)
        try:
            with session.get(url, timeout=timeout, stream=True) as response:
                status = response.status_code
                if status >= 500 or status == 429:
                    raise TransientError(f"could not fetch image {shown}: HTTP {status}")
                if status >= 400:
                    # A dead link is the issue's problem; the caller names the file.
                    raise ValueError(f"HTTP {status}")
                return _capped(response, max_bytes)
        except requests.RequestException as error:
            raise TransientError(f"could not fetch image {shown}: {type(error).__name__}") from None

    return fetch


def _capped(response: requests.Response, max_bytes: int) -> bytes:
    too_big = f"it is larger than {max_bytes / (1024 * 1024):g} MB; link a smaller image"
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ValueError(too_big)
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_content(64 * 1024):
        total += len(chunk)
        if total > max_bytes:
            raise ValueError(too_big)
        chunks.append(chunk)
    return b"".join(chunks)


def _filename(ref: str, mime: str) -> str:
    stem = Path(unquote(urlsplit(ref).path) or "image").stem if not ref.startswith("data:") else ""
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in stem).strip("-.") or "image"
    return stem[:64] + _EXTENSIONS[mime]


def prepare(source: SourceImage, policy: ImagePolicy) -> PreparedImage:
    """Turn one image into bytes ``policy`` accepts, losing as little as possible.

    Untouched when already acceptable (format, size, upright); otherwise EXIF rotation
    is applied (and dropped), refused formats become PNG (lossless or transparent
    sources) or JPEG (lossy sources), and oversized images are re-encoded, then
    stepped down in quality, then scaled.
    """
    from PIL import ImageOps

    digest = hashlib.sha256(source.data).hexdigest()
    try:
        # Decoded once per process: the other channel's prepare of these bytes reuses it.
        seen, decoded = probe(source.data, digest)
    except BadImage as error:
        problem = (
            f"is damaged or truncated ({error}); export it again"
            if error.damaged
            else "is not an image Pillow can read; use a JPEG, PNG or GIF file"
        )
        raise image_error(source.issue_path, source.ref, problem) from None
    fmt = seen.format
    mime = _MIMES.get(fmt, "")
    animated = seen.animated
    rotated = seen.orientation != 1
    fits_side = not policy.max_side or max(seen.width, seen.height) <= policy.max_side
    keep_animation = animated and policy.animated and GIF in policy.formats
    if (
        mime in policy.formats
        and len(source.data) <= policy.max_bytes
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
