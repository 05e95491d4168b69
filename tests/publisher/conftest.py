"""Fixtures of the publisher tests: a :class:`~.world.World` on the real or a manual clock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock

from .world import World, build_world


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """A sandbox on the real clock (subprocesses and ``cli.main`` read ``time.time``).

    A WeChat publish job nobody polls finishes on its own after five sandbox minutes
    (not the default 30 s), so "WeChat cannot tell yet" holds however slow the machine;
    tests move the sandbox's clock when they want it done.
    """
    with Sandbox(options={"wechat": {"publish_seconds": 300}}) as box:
        yield build_world(tmp_path, box, time.time, lambda seconds: None)


@pytest.fixture
def manual_world(tmp_path: Path) -> Iterator[World]:
    """A sandbox and a publisher sharing one :class:`ManualClock`: waits cost nothing."""
    clock = ManualClock(start=time.time())
    with Sandbox(clock=clock, sleep=clock.sleep) as box:
        yield build_world(tmp_path, box, clock, clock.sleep)


@pytest.fixture
def shared_world(tmp_path: Path, postgres_url: str) -> Iterator[World]:
    """:func:`world` with its ledger on PostgreSQL (``CROSSPOST_LEDGER_URL``)."""
    with Sandbox(options={"wechat": {"publish_seconds": 300}}) as box:
        yield build_world(tmp_path, box, time.time, lambda seconds: None, ledger_url=postgres_url)
