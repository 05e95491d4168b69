"""The sandbox fixtures for the channel tests that talk to a sandbox of their own making
(``sandbox``, ``sandbox_clock``: ``crosspost.sandbox.pytest_plugin``'s)."""

from crosspost.sandbox.pytest_plugin import sandbox, sandbox_clock

__all__ = ["sandbox", "sandbox_clock"]
