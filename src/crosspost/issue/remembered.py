"""YAML front matter read before, remembered across runs by its text.

An editor runs ``check`` and ``render`` again and again while editing the body, and the
front matter seldom changes between two runs; yet each run loaded PyYAML again (~12 ms,
most of it the regular expressions it compiles at import) to read the same lines. What a
read gave (the data, each key's line, the warnings) is kept as a small JSON file named by
the SHA-256 of the front matter's text and of the line it starts on, in the user's cache
folder (:func:`crosspost.config.cache.private_cache`: the data decides what is published,
so nobody else may write there), in a folder per build of what reads it: crosspost's
version, the loader's and the fields' source, and the PyYAML installed.

Only values that come back exactly are kept: text, whole and decimal numbers, true and
false, nothing, lists, mappings with text keys, dates, date-times with their offset, and
dates that name no day (:class:`~crosspost.issue.fields.ImpossibleMoment`). Front matter
holding anything else (a key that is a number, a YAML set or binary) is read by PyYAML on
every run, as is front matter YAML refuses: its error is reported afresh each time.

Nothing here may stop a run or change what it reads: a file that cannot be written, or
that does not read back as an entry, is the same as no file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from datetime import date, datetime
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any

from crosspost import __version__
from crosspost.config.cache import private_cache
from crosspost.errors import StorageError
from crosspost.issue.fields import ImpossibleMoment
from crosspost.issue.model import Notice

#: What one read of front matter gave: (data, key lines, warnings).
Read = tuple[dict[str, Any], dict[str, int], tuple[Notice, ...]]

#: Entries kept per build before the oldest half is let go (a few hundred bytes each).
MAX_ENTRIES = 512


def recall(source: str, first: int) -> Read | None:
    """What reading ``source`` (starting on file line ``first``) gave an earlier run, or
    ``None`` when no run kept it."""
    folder = _folder()
    if folder is None:
        return None
    try:
        kept = json.loads((folder / f"{_name(source, first)}.json").read_text("utf-8"))
        return (
            _decoded(kept["data"]),
            {str(key): int(line) for key, line in kept["lines"].items()},
            tuple(Notice(*notice) for notice in kept["notices"]),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def remember(source: str, first: int, read: Read) -> None:
    """Keep ``read`` for the next run that reads ``source`` from line ``first``, when
    every value in it comes back exactly (see the module)."""
    data, lines, notices = read
    try:
        encoded = _encoded(data)
    except _NotKept:
        return
    folder = _folder()
    if folder is None:
        return
    entry = {
        "data": encoded,
        "lines": lines,
        "notices": [[n.line, n.code, n.message, n.severity] for n in notices],
    }
    # Here, not at the top: only a run that read with PyYAML writes an entry.
    from crosspost.config.files import write_atomic

    path = folder / f"{_name(source, first)}.json"
    try:  # atomic, so a reader never sees half an entry; not synced: a cache, no record
        write_atomic(path, json.dumps(entry), what="a front-matter cache entry", durable=False)
        _prune(folder)
    except (StorageError, OSError):
        pass  # a full or read-only disk: the next run reads with PyYAML again


def _name(source: str, first: int) -> str:
    return hashlib.sha256(f"{first}\n{source}".encode("utf-8", "surrogatepass")).hexdigest()


@functools.cache
def _folder() -> Path | None:
    """This build's folder of entries (once per process: the checks cost a few stats)."""
    return private_cache("front-matter", _build())


def _build() -> str:
    """What a read depends on besides the text: crosspost's version, the source of the
    loader and of the fields it consults, and the PyYAML installed (where it is and when
    it was written, found without importing it), as a short folder name."""
    made = hashlib.sha256(__version__.encode())
    here = Path(__file__).parent
    for module in ("loader.py", "fields.py"):
        try:
            made.update((here / module).read_bytes())
        except OSError:
            made.update(module.encode())
    spec = PathFinder.find_spec("yaml")
    origin = spec.origin if spec is not None and spec.origin else ""
    try:
        stamp = os.stat(origin).st_mtime_ns if origin else 0
    except OSError:
        stamp = 0
    made.update(f"{origin}\0{stamp}".encode("utf-8", "surrogateescape"))
    return made.hexdigest()[:16]


def _prune(folder: Path) -> None:
    """Let the oldest half of the entries go once there are more than
    :data:`MAX_ENTRIES` (each edit of the front matter leaves one behind)."""
    entries = [entry for entry in os.scandir(folder) if entry.name.endswith(".json")]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
    for entry in entries[: len(entries) // 2]:
        Path(entry.path).unlink(missing_ok=True)


class _NotKept(Exception):
    """A value JSON cannot bring back exactly: this front matter is not kept."""


# Every value is a JSON array whose first item says what it is: plain JSON values are
# not enough (a mapping the editor wrote may have a key named like any tag of ours).


def _encoded(value: Any) -> Any:
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return ["v", value]
    if kind is ImpossibleMoment:
        return ["impossible", str(value), value.reason]
    if kind is datetime:
        return ["datetime", value.isoformat()]
    if kind is date:
        return ["date", value.isoformat()]
    if kind is list:
        return ["list", [_encoded(item) for item in value]]
    if kind is dict and all(type(key) is str for key in value):
        return ["map", [[key, _encoded(item)] for key, item in value.items()]]
    raise _NotKept(kind.__name__)


def _decoded(kept: list[Any]) -> Any:
    tag = kept[0]
    if tag == "v":
        return kept[1]
    if tag == "impossible":
        return ImpossibleMoment(kept[1], kept[2])
    if tag == "datetime":
        return datetime.fromisoformat(kept[1])
    if tag == "date":
        return date.fromisoformat(kept[1])
    if tag == "list":
        return [_decoded(item) for item in kept[1]]
    if tag == "map":
        return {str(key): _decoded(item) for key, item in kept[1]}
    raise ValueError(f"unknown entry {tag!r}")
