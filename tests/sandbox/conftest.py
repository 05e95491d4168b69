"""Fixtures for the sandbox's own tests: a WeChat caller holding a token, the clock.

The project-wide ``sandbox`` and ``sandbox_clock`` fixtures come from
``crosspost.sandbox.pytest_plugin`` (imported here until the root conftest loads it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock
from crosspost.sandbox.pytest_plugin import sandbox, sandbox_clock  # noqa: F401

from .wechat_client import WeChat


@pytest.fixture
def wechat(sandbox: Sandbox) -> Iterator[WeChat]:  # noqa: F811 - the plugin's fixture
    """A WeChat caller that already holds a valid access token."""
    caller = WeChat(sandbox)
    caller.fetch_token()
    yield caller
    caller.session.close()


@pytest.fixture
def clock(sandbox_clock: ManualClock) -> ManualClock:  # noqa: F811
    return sandbox_clock
