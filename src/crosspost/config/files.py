"""Writing a file so that a crash or a power cut leaves the old one or the new one, never half.

Every file crosspost replaces while a run may die (the token cache, the scheduler's state,
the copy of the body last sent, the emulators' state) goes through :func:`write_atomic`:
the new bytes go to a temporary file in the same folder (``os.replace`` is atomic only
within one file system), reach the disk (fsync), take the old file's name, and the
folder's entry for the name is made durable too (fsync of the folder). Without the
second fsync a power cut right after the rename may bring back the old file, or none.

A full disk, a read-only folder or a folder deleted under a running process is not a bug:
it becomes one :class:`~crosspost.errors.StorageError` line (exit 75 or 2), and the old
file is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from crosspost.errors import StorageError

#: Permission bits for a new file before the umask: what ``open(path, "w")`` would give.
DEFAULT_MODE = 0o666


def write_atomic(
    path: Path | str,
    data: str | bytes,
    *,
    mode: int = DEFAULT_MODE,
    encoding: str = "utf-8",
    what: str = "a state file",
    elsewhere: str = "",
) -> None:
    """Replace ``path`` with ``data`` atomically and durably; create its folder if needed.

    ``mode`` is the new file's permission bits, narrowed by the umask as for any new file;
    ``0o600`` keeps a file with secrets (the token cache) from other users. Raises
    :class:`StorageError` when the file cannot be written, naming it as ``what`` (with
    ``elsewhere``'s advice for a file outside the state dir).
    """
    try:
        _write(Path(path), data, mode, encoding)
    except OSError as error:
        if error.filename is not None and Path(error.filename).name.startswith(
            f".{Path(path).name}."
        ):
            error.filename = str(path)  # our hidden temporary: the person knows the target
        raise StorageError.from_os_error(error, path, what, elsewhere) from None


def _write(target: Path, data: str | bytes, mode: int, encoding: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode(encoding) if isinstance(data, str) else data
    temporary, fd = _create_beside(target, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(target.parent)


def _create_beside(target: Path, mode: int) -> tuple[Path, int]:
    """A new, empty, hidden file next to ``target``; never one another writer is filling."""
    while True:
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return candidate, os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:  # pragma: no cover - 48 random bits; try another name
            continue


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable; skipped where folders cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not on POSIX
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
