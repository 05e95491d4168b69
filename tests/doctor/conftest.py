"""The ``sandbox`` fixtures for the doctor's tests (as in tests/sandbox/conftest.py)."""

from __future__ import annotations

from crosspost.sandbox.pytest_plugin import sandbox, sandbox_clock

__all__ = ["sandbox", "sandbox_clock"]
