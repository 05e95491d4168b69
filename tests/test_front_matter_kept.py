"""Front matter an earlier run read comes back from the user's cache exactly as PyYAML
read it, and the next ``check`` of an unchanged file does not load PyYAML at all."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from crosspost.errors import IssueError
from crosspost.issue import remembered
from crosspost.issue.fields import ImpossibleMoment
from crosspost.issue.loader import read_issue, split_front_matter

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "ai-systems-48" / "issue.md"

FRONT = """---
title: 1.10
author: No
digest: iOS Weekly #349
cover: images/cover.jpg
date: 2024-02-30
lastmod: 2025-01-02
publish_at: 2026-11-23T09:00:00.250+08:00
updated: 2026-11-23 01:00:00
draft: false
weight: 3
ratio: -0.5
big: 123456789012345678901234567890
nothing:
channels: [wechat, zhihu]
wechat: {title: 第48期, mode: draft, need_open_comment: true}
zhihu:
  topics:
    - 人工智能
    - "$date"
  column: null
extra: {v: [1, {map: x}], list: []}
---

Body.
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache of this test's own (the folder is worked out once per process)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    remembered._folder.cache_clear()
    yield tmp_path / "cache"
    remembered._folder.cache_clear()


def typed(value: Any) -> Any:
    """``value`` with the type of every part spelt out: 1 == 1.0 == True otherwise."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, ImpossibleMoment):
        return ("impossible", str(value), value.reason)
    if isinstance(value, datetime):
        return ("datetime", value.isoformat(), value.utcoffset())
    return (type(value).__name__, repr(value))


def entries(cache: Path) -> list[Path]:
    return list(cache.glob("crosspost/front-matter/*/*.json"))


def test_a_second_read_gives_exactly_what_pyyaml_gave(tmp_path: Path, cache: Path) -> None:
    issue = tmp_path / "issue.md"
    issue.write_text(FRONT, "utf-8")
    first = split_front_matter(issue, FRONT)
    assert len(entries(cache)) == 1
    again = split_front_matter(issue, FRONT)
    assert typed(again[0]) == typed(first[0])
    assert again[1:] == first[1:]
    data = again[0]
    assert data["title"] == "1.10" and data["author"] == "No"  # as written, not 1.1 / False
    assert data["publish_at"] == datetime(
        2026, 11, 23, 9, 0, 0, 250000, tzinfo=timezone(timedelta(hours=8))
    )
    assert isinstance(data["date"], ImpossibleMoment) and data["lastmod"] == date(2025, 1, 2)
    # The warning about the cut digest is kept too, with its line.
    loaded = read_issue(issue)
    assert any(n.code == "cut-by-comment" and n.line == 4 for n in loaded.notices)


def test_the_same_text_further_down_a_file_keeps_its_own_lines(tmp_path: Path, cache: Path) -> None:
    issue = tmp_path / "issue.md"
    split_front_matter(issue, "---\ntitle: a\nauthor: b\n---\n")
    _, lines, _, _ = split_front_matter(issue, "\n\n---\ntitle: a\nauthor: b\n---\n")
    assert lines == {"title": 4, "author": 5}


def test_values_json_cannot_bring_back_are_read_by_yaml_every_time(
    tmp_path: Path, cache: Path
) -> None:
    issue = tmp_path / "issue.md"
    for front in (
        "---\ntitle: a\n1: one\n---\n",  # a key that is a number
        "---\ntitle: a\ntags: !!set {x, y}\n---\n",
        "---\ntitle: a\nlogo: !!binary aGk=\n---\n",
    ):
        first = split_front_matter(issue, front)
        assert typed(split_front_matter(issue, front)[0]) == typed(first[0])
    assert entries(cache) == []


def test_a_broken_front_matter_is_reported_on_every_run(tmp_path: Path, cache: Path) -> None:
    issue = tmp_path / "issue.md"
    for _ in range(2):
        with pytest.raises(IssueError, match="appears twice"):
            split_front_matter(issue, "---\ntitle: a\ntitle: b\n---\n")
    assert entries(cache) == []


def test_a_damaged_entry_is_read_again_by_yaml(tmp_path: Path, cache: Path) -> None:
    issue = tmp_path / "issue.md"
    first = split_front_matter(issue, FRONT)
    for damage in ("{not json", '{"data": ["list", 3], "lines": {}, "notices": []}', '["x"]'):
        (kept,) = entries(cache)
        kept.write_text(damage, "utf-8")
        assert typed(split_front_matter(issue, FRONT)[0]) == typed(first[0])


def test_a_cache_others_could_write_to_is_not_read(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data decides what is published: an entry planted where others can write says
    nothing, and nothing is written there."""
    shared = tmp_path / "shared" / "crosspost"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    remembered._folder.cache_clear()
    split_front_matter(tmp_path / "issue.md", "---\ntitle: mine\n---\n")
    assert not list(shared.rglob("*.json"))


def test_old_entries_are_let_go(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remembered, "MAX_ENTRIES", 8)
    issue = tmp_path / "issue.md"
    for number in range(9):
        split_front_matter(issue, f"---\ntitle: edit {number}\n---\n")
        (kept,) = [e for e in entries(cache) if f"edit {number}" in e.read_text("utf-8")]
        os.utime(kept, ns=(number * 10**9, number * 10**9))  # written one after another
    names = [e.read_text("utf-8") for e in entries(cache)]
    assert len(names) == 5  # the 9th made it too many: the four oldest went
    assert not any("edit 0" in name for name in names)
    assert any("edit 8" in name for name in names)


def test_the_second_check_of_an_unchanged_file_does_not_load_pyyaml(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        f"os.environ['CROSSPOST_STATE_DIR'] = {str(tmp_path / 'state')!r}\n"
        "from crosspost.cli import main\n"
        f"assert main(['check', {str(EXAMPLE)!r}]) == 0\n"
        "print('yaml loaded:', 'yaml' in sys.modules)\n"
    )
    environ = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    said = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=120
        )
        assert done.returncode == 0, done.stderr
        said.append(done.stdout.strip().splitlines()[-1])
    assert said == ["yaml loaded: True", "yaml loaded: False"]
