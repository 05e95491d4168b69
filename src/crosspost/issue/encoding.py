"""An issue file's bytes as text: UTF-8, or what its byte-order mark says it is.

Issues are written as UTF-8, but an editor on Windows who saves with Notepad's "Unicode"
writes UTF-16 (little-endian) opening with a byte-order mark (BOM), and some tools write
UTF-16 big-endian or UTF-32 the same way. The mark says the encoding for certain, so such
a file is read by it, everywhere an issue file is read: the loader, and the quick looks
of the scheduler and the folder scanners at a file's first bytes, which must agree with
the loader (else ``run-due`` would never see a UTF-16 issue as due). A file without a
mark is UTF-8, or refused.
"""

from __future__ import annotations

import codecs

__all__ = [
    "NAMES",
    "SAVE_AS_UTF8",
    "NotText",
    "as_utf8",
    "decode",
    "encoding_of",
    "text_of",
    "unmarked_wide",
]

#: Each byte-order mark and the codec that reads a file opening with it (and drops the
#: mark). UTF-32 LE's mark opens with UTF-16 LE's, so it is looked for first.
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
#: How each codec is named to an editor ("is not valid UTF-16 text").
NAMES = {"utf-32": "UTF-32", "utf-16": "UTF-16", "utf-8-sig": "UTF-8", "utf-8": "UTF-8"}
#: What to do with a file that is no text crosspost reads.
SAVE_AS_UTF8 = "save it as UTF-8 (most editors: 'Save with encoding')"


class NotText(ValueError):
    """A file's bytes that are not text as :func:`text_of` reads it: what they are
    (``is not UTF-8 text``), and the line (1-based) where that shows, if one does."""

    def __init__(self, what: str, line: int | None) -> None:
        super().__init__(what)
        self.what = what
        self.line = line


def encoding_of(raw: bytes) -> str:
    """The codec ``raw`` (a file's first bytes or all of them) is read with: the one its
    byte-order mark names, else ``utf-8``."""
    for mark, codec in _MARKS:
        if raw.startswith(mark):
            return codec
    return "utf-8"


def decode(raw: bytes, errors: str = "strict") -> str:
    """``raw`` as text, read by its byte-order mark (UTF-8 without one), the mark left out.

    ``errors`` as :meth:`bytes.decode` takes it: ``"replace"`` for a quick look at a
    file's head, which may end inside a character."""
    return raw.decode(encoding_of(raw), errors)


def as_utf8(head: bytes) -> bytes:
    """A file's first bytes as UTF-8, for the looks that read them as bytes: the same
    bytes unless a byte-order mark says UTF-16 or UTF-32 (a character cut at the end is
    left out)."""
    codec = encoding_of(head)
    if codec in ("utf-8", "utf-8-sig"):
        return head
    return head.decode(codec, "ignore").encode("utf-8")


def unmarked_wide(raw: bytes) -> bool:
    """Whether ``raw``, with no byte-order mark, looks like UTF-16 or UTF-32 text: a
    quarter or more of its bytes are NUL, as in every Latin character of those encodings,
    and in no text file. (Its ASCII would pass for UTF-8, NULs and all.)"""
    return encoding_of(raw) == "utf-8" and len(raw) >= 2 and raw.count(0) * 4 >= len(raw)


def text_of(raw: bytes) -> str:
    """A file's bytes as text (:func:`decode`), or :class:`NotText` saying what they are:
    UTF-16 without its mark (its line numbers would mean nothing: the NULs say what it
    is), or not valid in the encoding read (GBK, Latin-1: not UTF-8) at some line."""
    if unmarked_wide(raw):
        raise NotText("is UTF-16 or UTF-32 text without its byte-order mark, not UTF-8", None)
    codec = encoding_of(raw)
    try:
        return decode(raw)
    except UnicodeDecodeError as error:
        line = raw[: error.start].decode(codec, "replace").count("\n") + 1
        if codec.startswith("utf-8"):
            raise NotText("is not UTF-8 text", line) from None
        name = NAMES[codec]
        raise NotText(
            f"is not valid {name} text, though it opens with {name}'s mark", line
        ) from None
