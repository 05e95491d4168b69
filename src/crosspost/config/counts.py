"""A count and its noun, as a person reads them: "1 file", "2 files", never "1 files"
nor "file(s)". Every line crosspost prints that counts something builds it here."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun`` in the number it takes: ``counted(1, "warning")`` is
    ``"1 warning"``, ``counted(2, "warning")`` ``"2 warnings"``. ``plural`` for a noun
    that does not take an ``s`` (``counted(2, "mass send", "mass sends")`` needs none,
    ``counted(3, "entry", "entries")`` does)."""
    word = noun if count == 1 else (plural or f"{noun}s")
    return f"{count} {word}"
