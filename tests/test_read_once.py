"""A run's posts read each image once: every channel uploads the same bytes, hashed once."""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.images.pipeline import ImageError, read_source
from crosspost.images.sources import ReadOnce


@pytest.fixture
def issue(tmp_path: Path) -> Path:
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n first")
    path = tmp_path / "issue.md"
    path.write_text("---\ntitle: t\n---\n![](images/a.png)\n", encoding="utf-8")
    return path


def test_the_second_reader_gets_what_the_first_read(issue: Path) -> None:
    reads = ReadOnce()
    first = read_source("images/a.png", issue, reads=reads)
    (issue.parent / "images" / "a.png").write_bytes(b"changed on disk meanwhile")
    again = read_source("images/a.png", issue, reads=reads)
    assert again is first and again.sha256 == first.sha256
    assert read_source("images/a.png", issue).data == b"changed on disk meanwhile"


def test_a_failed_read_is_not_kept(issue: Path) -> None:
    reads = ReadOnce()
    with pytest.raises(ImageError):
        read_source("images/missing.png", issue, reads=reads)
    (issue.parent / "images" / "missing.png").write_bytes(b"now here")
    assert read_source("images/missing.png", issue, reads=reads).data == b"now here"


def test_the_oldest_reads_go_beyond_the_cap() -> None:
    reads = ReadOnce(max_bytes=10)
    issue = Path("/issue.md")
    reads.put(issue, "a", "first", 6)
    reads.put(issue, "b", "second", 4)
    reads.put(issue, "c", "third", 3)  # 13 bytes: the oldest goes
    assert (reads.get(issue, "a"), reads.get(issue, "b"), reads.get(issue, "c")) == (
        None,
        "second",
        "third",
    )
    reads.put(issue, "huge", "never kept", 11)
    assert reads.get(issue, "huge") is None
