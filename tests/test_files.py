"""``write_atomic``: the new file or the old one, on disk for good, and nothing left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from crosspost.config.files import write_atomic
from crosspost.errors import EXIT_TEMPORARY, StorageError


def test_text_and_bytes_replace_the_file_and_leave_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, '{"a": "一"}')
    assert target.read_text(encoding="utf-8") == '{"a": "一"}'
    write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_the_folder_is_made_when_missing(tmp_path: Path) -> None:
    target = tmp_path / "sent" / "issue-1" / "wechat.main.html"
    write_atomic(target, "<p>hi</p>")
    assert target.read_text(encoding="utf-8") == "<p>hi</p>"


def test_a_secret_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    target = tmp_path / "token.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    write_atomic(target, "new", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_the_file_and_then_its_folder_reach_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "run-due.json", "{}")
    assert synced == ["file", "folder"]
    # A copy nothing depends on after a power cut (the body last sent) is atomic only.
    write_atomic(tmp_path / "sent.html", "<p>hi</p>", durable=False)
    assert synced == ["file", "folder"]
    assert (tmp_path / "sent.html").read_text(encoding="utf-8") == "<p>hi</p>"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_failed_write_keeps_the_old_file_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run-due.json"
    target.write_text("old", encoding="utf-8")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(StorageError, match="No space left") as caught:
        write_atomic(target, "new")
    assert caught.value.exit_code == EXIT_TEMPORARY  # one line, "run again later"
    assert str(caught.value).startswith(f"{target}: cannot write")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["run-due.json"]
