"""What an image decoded to, remembered across runs by its bytes' hash.

An editor runs ``check`` and ``render`` again and again while the images stay the same,
and each run would load Pillow and decode every image in full (a truncated file shows
only then) just to learn what the last run learnt. Each image's :class:`Probe` is kept
as a small JSON file named by the SHA-256 of its bytes, so a later run with the same
bytes needs neither the decode nor Pillow itself. Changed bytes are another name, and a
newer Pillow (which may read a file differently) starts afresh. Only successful decodes
are kept: a damaged image is decoded, and reported, on every run.

Nothing here may stop a run: a folder that cannot be written or a file that does not
read back as a probe is the same as no file.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict
from pathlib import Path

from crosspost.errors import StorageError
from crosspost.images.codec import Probe, probe


def pillow_version() -> str:
    """Pillow's version, without loading its image machinery (``PIL/__init__`` only)."""
    from PIL import __version__

    return __version__


def remembered_probe(data: bytes, digest: str, folder: Path | None) -> Probe:
    """The probe of ``data`` (SHA-256 ``digest``): from ``folder`` when a run with the same
    Pillow decoded these bytes before, else by :func:`~crosspost.images.codec.probe`, then
    kept there. ``folder`` None: this process's memory only. Raises what ``probe`` raises."""
    if folder is None:
        return probe(data, digest)[0]
    path = folder / f"{digest}.json"
    version = pillow_version()
    known = _read(path, version)
    if known is not None:
        return known
    found, _ = probe(data, digest)
    _write(path, version, found)
    return found


def _read(path: Path, version: str) -> Probe | None:
    try:
        saved = json.loads(path.read_text("utf-8"))
        if saved.get("pillow") != version:
            return None
        return Probe(**saved["probe"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _write(path: Path, version: str, found: Probe) -> None:
    """Write atomically (a temporary file renamed), so a reader never sees half a file;
    not synced to the disk: a cache, which a power cut may cost, no record."""
    from crosspost.config.files import write_atomic  # only after a decode, which is slower

    entry = json.dumps({"pillow": version, "probe": asdict(found)})
    with contextlib.suppress(StorageError):  # a read-only or full disk: decoded again
        write_atomic(path, entry, what="an image probe", durable=False)
