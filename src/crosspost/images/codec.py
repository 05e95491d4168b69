"""Pillow's side of the image pipeline: decode, re-encode, shrink. No files, no network.

Split from :mod:`crosspost.images.pipeline`, which decides *what* a platform needs; this module
knows *how* to get there with the least visible loss. Pillow is imported on first use.
"""

from __future__ import annotations

import io
import re
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

JPEG, PNG, GIF = "image/jpeg", "image/png", "image/gif"
#: Quality steps for JPEG, best first; below the last one we scale instead.
JPEG_QUALITIES = (92, 85, 78, 70)


class BadImage(ValueError):
    """The bytes are not an image crosspost can decode; ``damaged`` when they look truncated.

    The message is the end of a sentence that starts with the image's name ("image
    'a.png' …"): what the bytes are and what to do, since "not an image" helps no one
    whose link led to a web page or whose phone saved a HEIC photo.
    """

    def __init__(self, message: str, *, damaged: bool) -> None:
        super().__init__(message)
        self.damaged = damaged


def open_image(data: bytes) -> Image:
    """Decode ``data`` fully (so truncation shows now, not halfway through an upload)."""
    from PIL import Image, UnidentifiedImageError

    _register_optional_plugins()
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except UnidentifiedImageError:
        raise BadImage(what_it_is(data), damaged=False) from None
    except Image.DecompressionBombError as error:
        raise BadImage(_too_many_pixels(str(error)), damaged=False) from None
    except (OSError, SyntaxError, ValueError) as error:
        raise BadImage(
            f"is damaged or truncated ({error}); export it again", damaged=True
        ) from None
    return image


#: ISO base-media brands of a HEIF file (what an iPhone saves its photos as).
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")


def what_it_is(data: bytes) -> str:
    """What bytes Pillow does not take as an image are, said for the editor: the file an
    issue names is often something else with an image's name (a page saved from a link, a
    drawing, a phone's photo format), and each has its own fix."""
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    brand = data[8:12]
    if not data:
        return "is an empty file; export the image again"
    if head.startswith(b"%pdf"):
        return "is a PDF document, not an image; export the page as PNG or JPEG"
    if b"<svg" in head:
        return "is not an image crosspost can read (SVG is not supported); export PNG or JPEG"
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in head:
        return (
            "is a web page (HTML), not an image: the address leads to a page that shows the "
            "image; use the image's own address (open the image alone and copy that)"
        )
    if data[4:8] == b"ftyp" and brand in _HEIF_BRANDS:
        return (
            "is a HEIC/HEIF photo, which crosspost reads only with the pillow-heif package; "
            "export it as JPEG (or pip install pillow-heif)"
        )
    if data[4:8] == b"ftyp" and brand in (b"avif", b"avis"):
        return "is an AVIF image, which this Pillow cannot read; export it as JPEG or PNG"
    return "is not an image crosspost can read; export it as PNG or JPEG"


def _too_many_pixels(said: str) -> str:
    """The line for an image past Pillow's decompression-bomb limit (some 179 megapixels):
    so large that decoding it could exhaust the machine's memory, and far past what either
    platform shows, so the fix is to scale it down first."""
    found = re.search(r"\((\d+) pixels\) exceeds limit of (\d+)", said)
    if not found:
        return "has too many pixels to decode safely; scale it down and export it again"
    pixels, limit = (int(number) / 1e6 for number in found.groups())
    return (
        f"has {pixels:.0f} megapixels, more than crosspost decodes ({limit:.0f}: it could "
        "exhaust the memory); scale it down (2,000 pixels across is plenty) and export it again"
    )


@dataclass(frozen=True)
class Probe:
    """What one full decode of an image told: enough to see it needs no conversion."""

    format: str
    width: int
    height: int
    animated: bool
    orientation: int


#: How many images' probes a process remembers (a few dozen bytes each).
PROBES_KEPT = 4096
_probes: OrderedDict[str, Probe] = OrderedDict()
_decoding: dict[str, threading.Event] = {}
_probes_lock = threading.Lock()


def probe(data: bytes, digest: str) -> tuple[Probe, Image | None]:
    """Decode ``data`` (SHA-256 ``digest``) once per process and remember what it is;
    the decoded image comes too when this call did the decoding (else None).

    Both channels of a publish prepare the same images at the same moment: the first
    thread decodes, the other waits for its answer instead of decoding again. A decode
    that fails is not remembered (every caller then decodes and raises for itself).
    """
    while True:
        with _probes_lock:
            known = _probes.get(digest)
            if known is not None:
                _probes.move_to_end(digest)
                return known, None
            busy = _decoding.get(digest)
            if busy is None:
                _decoding[digest] = threading.Event()
                break
        busy.wait()
        with _probes_lock:
            failed = digest not in _probes
        if failed:  # the other decode failed: find out why ourselves
            image = open_image(data)
            return _probe_of(image), image
    try:
        image = open_image(data)
        found = _probe_of(image)
        with _probes_lock:
            _probes[digest] = found
            while len(_probes) > PROBES_KEPT:
                _probes.popitem(last=False)
        return found, image
    finally:
        with _probes_lock:
            _decoding.pop(digest).set()


def _probe_of(image: Image) -> Probe:
    return Probe(
        format=(image.format or "").upper(),
        width=image.width,
        height=image.height,
        animated=is_animated(image),
        orientation=orientation(image),
    )


def _register_optional_plugins() -> None:
    """HEIC/HEIF when the optional ``pillow-heif`` plugin is installed; silently none else.

    Also silences Pillow's warning for images between 89 and 179 megapixels: it would
    print a line about "decompression bomb DOS attack" on the editor's terminal, while the
    pipeline takes such an image and scales it down (past 179, decoding is refused with a
    line of ours, see :func:`open_image`)."""
    from PIL import Image

    warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
    try:
        import pillow_heif  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return
    pillow_heif.register_heif_opener()


def is_animated(image: Image) -> bool:
    return bool(getattr(image, "is_animated", False)) and int(getattr(image, "n_frames", 1)) > 1


def orientation(image: Image) -> int:
    try:
        return int(image.getexif().get(0x0112, 1))
    except (ValueError, TypeError, SyntaxError):
        return 1


def has_alpha(image: Image) -> bool:
    if image.mode in ("RGBA", "LA", "PA"):
        return image.getextrema()[-1][0] < 255  # type: ignore[index]
    return image.mode == "P" and "transparency" in image.info


def lossless_webp(data: bytes) -> bool:
    return data[12:16] == b"VP8L" or (data[12:16] == b"VP8X" and b"VP8L" in data[30:4096])


def _encode(image: Image, mime: str, quality: int = 92, icc: bytes | None = None) -> bytes:
    """Encode with an optimised entropy stage; ``icc`` keeps a wide-gamut photo's colours
    (Pillow drops the profile when an image is converted or scaled)."""
    out = io.BytesIO()
    extra = {"icc_profile": icc} if icc else {}
    if mime == JPEG:
        if image.mode not in ("RGB", "L"):
            image = _flatten(image)
        image.save(out, "JPEG", quality=quality, optimize=True, progressive=True, **extra)
    else:
        if image.mode not in ("RGB", "RGBA", "L", "LA", "P", "1"):
            image = image.convert("RGBA")
        image.save(out, "PNG", optimize=True, **extra)
    return out.getvalue()


def _reencode_jpeg(image: Image, icc: bytes | None) -> bytes | None:
    """The same JPEG with its own quantisation tables and an optimised Huffman stage:
    smaller at no visible cost. None when ``image`` is not an untouched decoded JPEG."""
    if getattr(image, "format", None) != "JPEG":
        return None
    out = io.BytesIO()
    extra = {"icc_profile": icc} if icc else {}
    try:
        image.save(out, "JPEG", quality="keep", optimize=True, progressive=True, **extra)
    except (ValueError, OSError):
        return None
    return out.getvalue()


def _palette(image: Image) -> Image:
    """256 colours; exact when the image has no more. Transparency only when it has any."""
    if has_alpha(image):
        return image.convert("RGBA").quantize(256)
    return image.convert("RGB").quantize(256)


def _flatten(image: Image) -> Image:
    """RGB on white: JPEG has no alpha, and black behind transparent pixels looks broken."""
    from PIL import Image as PILImage

    rgba = image.convert("RGBA")
    canvas = PILImage.new("RGB", rgba.size, (255, 255, 255))
    canvas.paste(rgba, mask=rgba.getchannel("A"))
    return canvas


def _scaled(image: Image, factor: float) -> Image:
    from PIL import Image as PILImage

    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    return image.resize(size, PILImage.Resampling.LANCZOS)


def fit_side(image: Image, max_side: int | None) -> Image:
    if max_side and max(image.size) > max_side:
        return _scaled(image, max_side / max(image.size))
    return image


def shrink_still(
    image: Image, mime: str, max_bytes: int | None, formats: frozenset[str]
) -> tuple[bytes, str, Image]:
    """Smallest quality loss first: optimise, lossless palette, quality steps, then scale.
    ``max_bytes`` None: no cap, so the first encoding is the one kept."""
    icc = image.info.get("icc_profile")
    kept = _reencode_jpeg(image, icc) if mime == JPEG else None
    if kept is not None and (max_bytes is None or len(kept) <= max_bytes):
        return kept, JPEG, image
    data = _encode(image, mime, icc=icc)
    if max_bytes is None or len(data) <= max_bytes:
        return data, mime, image
    if mime == PNG:
        colours = image.convert("RGBA").getcolors(maxcolors=256)
        if colours is not None:  # ≤ 256 colours: a palette PNG loses nothing
            data = _encode(_palette(image), PNG, icc=icc)
            if len(data) <= max_bytes:
                return data, PNG, image
        if JPEG in formats and not has_alpha(image):
            mime = JPEG
    while True:
        if mime == JPEG:
            for quality in JPEG_QUALITIES:
                data = _encode(image, JPEG, quality, icc)
                if len(data) <= max_bytes:
                    return data, JPEG, image
        else:
            data = _encode(_palette(image), PNG, icc=icc)
            if len(data) <= max_bytes:
                return data, PNG, image
        if min(image.size) <= 16:
            raise ValueError(f"cannot fit in {max_bytes} bytes")
        # Bytes scale roughly with pixels: aim a little under the limit.
        image = _scaled(image, min(0.9, (max_bytes / len(data)) ** 0.5 * 0.95))


def animated_gif(image: Image, max_bytes: int | None) -> tuple[bytes, Image]:
    """Keep the animation; scale every frame down until the GIF fits (None: no cap)."""
    from PIL import ImageSequence

    factor = 1.0
    frames = [frame.copy() for frame in ImageSequence.Iterator(image)]
    durations = [frame.info.get("duration", image.info.get("duration", 100)) for frame in frames]
    while True:
        out = io.BytesIO()
        scaled = [_scaled(f, factor) if factor < 1 else f for f in frames]
        scaled[0].save(
            out,
            "GIF",
            save_all=True,
            append_images=scaled[1:],
            loop=image.info.get("loop", 0),
            duration=durations,
            disposal=2,
            optimize=False,
        )
        data = out.getvalue()
        if max_bytes is None or len(data) <= max_bytes:
            return data, scaled[0]
        if min(scaled[0].size) <= 16:
            raise ValueError(f"animation cannot fit in {max_bytes} bytes")
        factor *= min(0.9, (max_bytes / len(data)) ** 0.5 * 0.95)
