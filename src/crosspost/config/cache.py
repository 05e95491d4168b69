"""The user's cache folder for what a run may keep for the next one.

``check`` and ``render`` run again and again while an editor works, and some of their
start-up only repeats what the last run worked out from the same input: a template
compiled to Python, front matter read by PyYAML. Those results are kept under
``$XDG_CACHE_HOME/crosspost/<kind>/<build>`` (a relative value is ignored, as the XDG rules
say), else ``~/.cache/crosspost/<kind>/<build>``. ``build`` names what produced them (the
caller's choice: crosspost's version, the source of the code that made them, a library's
version), so an upgrade starts afresh instead of reading what an older build wrote.

What is kept there is run (compiled templates) or decides what is published (front
matter), so every folder on the way must belong to this user and be writable by nobody
else. Where that cannot be had (no home, a read-only disk, a folder others could write
to) there is no cache: the work is done again, and nothing fails.
"""

from __future__ import annotations

import os
from pathlib import Path


def private_cache(kind: str, build: str) -> Path | None:
    """The folder for ``kind``'s entries made by ``build``, created if needed; ``None``
    where none can be kept safely (see the module)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    home = os.path.expanduser("~")
    if os.path.isabs(xdg):
        base = Path(xdg)
    elif os.path.isabs(home):
        base = Path(home) / ".cache"
    else:
        return None  # no home: never a folder relative to wherever the command runs
    ours = [base / "crosspost", base / "crosspost" / kind]
    ours.append(ours[-1] / build)
    owner = getattr(os, "getuid", None)  # POSIX; elsewhere the folder's rights are the OS's
    try:
        for folder in ours:
            folder.mkdir(mode=0o700, exist_ok=True, parents=folder == ours[0])
            found = folder.stat()
            if owner is not None and (found.st_uid != owner() or found.st_mode & 0o022):
                return None  # someone else could put entries there
    except OSError:
        return None
    return ours[-1]
