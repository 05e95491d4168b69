"""Pytest fixtures for any test that needs the platforms: ``sandbox`` and ``sandbox_clock``.

Load with ``pytest_plugins = ["crosspost.sandbox.pytest_plugin"]`` in a conftest. Each
test gets its own sandbox on fresh ephemeral ports, with a :class:`ManualClock` as both
its clock and its sleep, so token lifetimes, quotas and latency faults never cost real
time (``sandbox_clock.sleeps`` records every wait).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock


@pytest.fixture
def sandbox_clock() -> ManualClock:
    """The clock (and sleep) the ``sandbox`` fixture runs on; hand it to adapters too."""
    return ManualClock()


@pytest.fixture
def sandbox(sandbox_clock: ManualClock) -> Iterator[Sandbox]:
    """Both emulators serving on 127.0.0.1 for the length of one test."""
    with Sandbox(clock=sandbox_clock, sleep=sandbox_clock.sleep) as box:
        yield box
