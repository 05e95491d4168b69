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

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from crosspost.issue.encoding import decode
from crosspost.patterns import pattern

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
    #: What this run has read already (``publish``: the plan's check reads every image,
    #: then each channel's post uploads it); None: every reader reads for itself.
    reads: ReadOnce | None = None


class ReadOnce:
    """The images one run has read, by issue and reference, so that each is read (and
    hashed) once: the plan's check, and every channel's post after it, get the same bytes,
    which are then also the bytes that were checked. Fifty figures of 300 KB used to be
    read three times and hashed three times per publish, twice of it while the uploads
    were due to start. Only what was read without error is kept (a reader that fails
    fails for itself, as before), up to ``max_bytes`` in all, the oldest let go first
    (a scheduled run may publish many issues). Nothing here reads: the reader puts.
    """

    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[Path, str], tuple[object, int]] = OrderedDict()
        self._bytes = 0

    def get(self, issue_path: Path, ref: str) -> object | None:
        """What was read for ``ref`` of the issue at ``issue_path``, or None."""
        with self._lock:
            kept = self._kept.get((issue_path, ref))
        return kept[0] if kept else None

    def put(self, issue_path: Path, ref: str, value: object, size: int) -> None:
        """Remember ``value`` (``size`` bytes) as what ``ref`` of the issue read."""
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._kept.pop((issue_path, ref), None)
            self._bytes -= old[1] if old else 0
            self._kept[(issue_path, ref)] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._bytes -= dropped


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


#: How much of a ``data:`` URI's content a message shows after its header.
_DATA_SHOWN = 16


def shown_ref(ref: str) -> str:
    """``ref`` as a message names it: a web address without its ``?query`` and
    ``#fragment``, a ``data:`` URI by its header and its first characters. Google Docs
    writes every picture of a document downloaded as Markdown as a ``data:`` URI, often of
    megabytes, and a message about one was that long: one line filled a terminal."""
    parts = urlsplit(ref)
    scheme = parts.scheme.lower()
    if scheme == "data":
        header, comma, payload = ref.partition(",")
        more = "…" if len(payload) > _DATA_SHOWN else ""
        return f"{header}{comma}{payload[:_DATA_SHOWN]}{more}"
    if scheme not in ("http", "https") or not (parts.query or parts.fragment):
        return ref
    return parts._replace(query="", fragment="").geturl() + "?…"


#: Pelican's markers before a path of the site's (``{static}/images/a.png``, written
#: ``|static|`` before Pelican 3.5): the path is the site's, not a web address.
_SITE_MARKER = pattern(r"^(?:\{(?:static|attach|filename)\}|\|(?:static|attach|filename)\|)")
#: How many folders above the issue a path from the site's root is looked for in.
_SITE_DEPTH = 4


#: The folders a site serves its root from (Hugo's ``static``, Astro's and Vite's
#: ``public``, Hexo's ``source``), where Typora's ``typora-root-url`` points too.
_STATIC_ROOTS = ("static", "public", "source")


def local_path(ref: str, issue_path: Path) -> Path:
    """The file a local reference names, relative to the issue (query and fragment dropped).

    One not beside the issue is looked for in the folder named after the issue file, as
    Hexo keeps a post's images (``post_asset_folder``: ``a-post.md`` and ``a-post/cat.png``,
    written ``![](cat.png)`` or ``{% asset_img cat.png %}``). A path from the site's root
    (``/images/a.png``, Pelican's ``{static}/images/a.png``) that is no file on this disk
    is looked for under the issue's folder and then the folders above it, nearest first
    (``content/posts/a.md`` and ``content/images/a.png``), each folder's ``static``,
    ``public`` or ``source`` folder too (``static/img/a.png`` for ``/img/a.png``, where
    Hugo serves it and Typora's ``typora-root-url`` finds it); ``confine`` then decides
    whether that folder may be read."""
    name = _SITE_MARKER.sub("", unquote(ref.split("#")[0].split("?")[0]))
    if name.startswith("/") and not Path(name).exists():
        relative = name.lstrip("/")
        typora = typora_root(issue_path)
        if typora is not None and (issue_path.parent / typora / relative).is_file():
            return issue_path.parent / typora / relative
        if not (issue_path.parent / relative).exists():
            for folder in [issue_path.parent, *list(issue_path.parent.parents)[:_SITE_DEPTH]]:
                for root in _STATIC_ROOTS if folder == issue_path.parent else ("", *_STATIC_ROOTS):
                    if (folder / root / relative).is_file():
                        return folder / root / relative
        name = relative
    path = issue_path.parent / name
    if not path.exists():
        assets = issue_path.parent / issue_path.stem / name
        if assets.is_file():
            return assets
    return path


#: Typora's ``typora-root-url: assets`` in the issue's front matter: the folder a path
#: from the root (``![](/image-x.png)``) is read from, relative to the issue.
_TYPORA_ROOT = pattern(r"^typora-root-url[ \t]*:[ \t]*[\"']?([^\"'\n]*)", re.M)
#: Enough of the file to hold its front matter's fields.
_FRONT_BYTES = 64_000


def typora_root(issue_path: Path) -> Path | None:
    """The folder the issue's ``typora-root-url`` names (Typora reads ``/…`` paths from
    there), or None. Read from the file's head by itself: images are found with the
    issue's path alone, and the field is Typora's setting, no field of the issue. Read
    once per version of the file, not once per image."""
    try:
        changed = issue_path.stat().st_mtime_ns
    except OSError:
        return None
    return _typora_root(issue_path, changed)


@functools.lru_cache(maxsize=64)
def _typora_root(issue_path: Path, _changed: int) -> Path | None:
    try:
        with issue_path.open("rb") as handle:
            head = decode(handle.read(_FRONT_BYTES), "replace")
    except OSError:
        return None
    if not head.lstrip("\ufeff").startswith("---"):
        return None
    end = head.find("\n---", 3)
    found = _TYPORA_ROOT.search(head, 0, end if end > 0 else len(head))
    return Path(found.group(1).strip()) if found and found.group(1).strip() else None


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
