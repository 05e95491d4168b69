"""A sandbox world for series and channel-reference tests, on a manual clock.

It is the publisher tests' world (``tests/publisher/world.py``): a sandbox, a config
aimed at it and a state dir, all in ``tmp_path``. These tests write their own small
issues beside the example's cover, so each run is a few posts, not the whole example.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock
from publisher.world import EXAMPLE_DIR, World, build_world

#: A body long enough for Zhihu's minimum, with nothing a channel refuses.
BODY = "这是本期的正文,介绍几篇值得一读的论文,足够长,可以通过知乎的最少字数检查。\n"

WriteIssue = Callable[..., Path]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """A sandbox and a publisher sharing one :class:`ManualClock`: waits cost nothing."""
    clock = ManualClock(start=time.time())
    with Sandbox(clock=clock, sleep=clock.sleep) as box:
        yield build_world(tmp_path, box, clock, clock.sleep)


@pytest.fixture
def write_issue(world: World) -> WriteIssue:
    """``write_issue(n, channels=…, front=…)``: issue n of the series 'weekly' (a file)."""
    folder = world.root / "weekly"
    folder.mkdir(exist_ok=True)
    shutil.copy(EXAMPLE_DIR / "images" / "cover.jpg", folder / "cover.jpg")

    def write(
        number: int, *, channels: tuple[str, ...] = ("wechat", "zhihu"), front: str = ""
    ) -> Path:
        path = folder / f"weekly-{number}.md"
        path.write_text(
            f"---\nid: weekly-{number}\ntitle: 周刊 第{number}期\nseries: weekly\n"
            f"cover: cover.jpg\nchannels: [{', '.join(channels)}]\n{front}---\n\n{BODY}",
            encoding="utf-8",
        )
        return path

    return write
