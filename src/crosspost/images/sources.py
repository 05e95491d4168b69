"""Where an issue's images may come from: which references are files, which are refused.

An issue is a file someone may have sent the editor, and ``publish`` uploads what it
names to a public account. So a reference may read only what the editor meant to
publish: a file inside the issue's folder (or a folder the config names), an ``http(s)``
URL (fetched under the rules of :mod:`crosspost.images.remote`), or an inline ``data:``
URI. ``file:`` and every other scheme are refused, and so is a path that leaves the
folders, by ``../``, by an absolute path or through a symbolic link. Nothing here reads
an image; it only decides whether one may be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: Reads a remote image: URL in, bytes out. Raises ``TransientError`` for network trouble
#: (run again later) and ``ValueError`` for a dead or refused link (the issue's fault).
Fetch = Callable[[str], bytes]

REMOTE, DATA, LOCAL = "remote", "data", "local"


class RefusedImage(ValueError):
    """A reference crosspost will not read; the message says why and what to do instead."""


@dataclass(frozen=True)
class ImageSources:
    """The rules one run reads images by: extra folders, and how to fetch remote ones.

    ``fetch`` None means remote images are not downloaded (``render`` and ``preview``
    judge them by their URL only); ``check`` and ``publish`` always fetch.
    """

    #: Folders besides the issue's own that local images may lie in (config ``[images]``).
    folders: tuple[Path, ...] = ()
    fetch: Fetch | None = None
    #: Where lint remembers what each image decoded to, across runs
    #: (:mod:`crosspost.images.remembered`): ``check`` and ``render``, which an editor
    #: runs again and again. None (``publish``): every image is decoded in this process.
    probes: Path | None = None


def kind_of(ref: str) -> str:
    """``remote``, ``data`` or ``local``; :class:`RefusedImage` for any other scheme."""
    scheme = urlsplit(ref).scheme.lower()
    if scheme in ("http", "https"):
        return REMOTE
    if ref.startswith("//"):  # copied from a web page's HTML: its page's scheme is gone
        raise RefusedImage(f"has no scheme; write it with one: 'https:{ref}'")
    if scheme == "data":
        return DATA
    if not scheme or (len(scheme) == 1 and ref[1:2] == ":" and ref[2:3] in ("/", "\\")):
        return LOCAL  # a relative path (or a Windows drive, refused below as absolute)
    if scheme == "file":
        raise RefusedImage(
            "is a file: URL, which crosspost does not read; copy the image next to the issue "
            "and name it by a relative path (images/name.png)"
        )
    raise RefusedImage(
        f"is a {scheme}: URL; name an image file next to the issue or an http(s) URL"
    )


def local_path(ref: str, issue_path: Path) -> Path:
    """The file a local reference names, relative to the issue (query and fragment dropped)."""
    return issue_path.parent / unquote(ref.split("#")[0].split("?")[0])


def confine(path: Path, issue_path: Path, folders: tuple[Path, ...] = ()) -> None:
    """Raise :class:`RefusedImage` unless ``path`` lies inside the issue's folder or one of
    ``folders``. Symbolic links are followed first: a link pointing out is refused too."""
    target = path.resolve()
    roots = (issue_path.parent.resolve(), *(folder.resolve() for folder in folders))
    if any(target.is_relative_to(root) for root in roots):
        return
    raise RefusedImage(
        f"lies outside the issue's folder ({roots[0]}); move it next to the issue, or add its "
        "folder to 'folders' under [images] in crosspost.toml"
    )
