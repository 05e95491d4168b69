"""Fixtures of the scheduler tests (the desk itself is in :mod:`.desk`)."""

from __future__ import annotations

from .desk import desk, live_desk

__all__ = ["desk", "live_desk"]
