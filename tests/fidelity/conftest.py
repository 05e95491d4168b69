"""The one place that decides whether a browser test runs, skips or fails.

Chromium comes from the system (``apt-get install chromium``). On a developer machine
without it the browser tests skip and say how to install it; CI sets
``CROSSPOST_REQUIRE_BROWSER=1`` so that a missing browser fails the run instead of
silently skipping the checks that prove the WeChat output looks like the theme.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from crosspost.errors import UsageError

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REQUIRE_ENV = "CROSSPOST_REQUIRE_BROWSER"


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The Chromium binary; skips (or fails under ``CROSSPOST_REQUIRE_BROWSER=1``) if none."""
    from crosspost.preview.screenshot import find_chromium

    try:
        found = find_chromium()
        import playwright.sync_api  # noqa: F401  (the driver must be importable too)
    except ImportError:
        message = "Playwright is missing: .venv/bin/pip install '.[browser]' in the checkout"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {message}")
        pytest.skip(message)
    except UsageError as error:
        message = f"headless Chromium is needed: {error}"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {message}")
        pytest.skip(message)
    return found


@pytest.fixture(scope="module")
def browser(chromium: Path) -> Iterator[Browser]:
    """One headless Chromium per test module (starting it costs about a second).

    Per module, not per session: Playwright's sync driver runs one at a time in a thread,
    and the ``preview --screenshot`` tests start their own through the CLI."""
    from crosspost.preview.screenshot import open_browser

    with open_browser(chromium) as running:
        yield running
