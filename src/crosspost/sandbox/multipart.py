"""One file of a ``multipart/form-data`` body, read from the body the server already holds.

werkzeug's form parser reads a body as a stream, in chunks, and compiles its regular
expressions afresh for each boundary, and every client picks a new random boundary for
every request: a WeChat upload of 300 KB cost the emulator some 1.6 ms of CPU in it, on
the cores the publisher it emulates a platform for runs on. The server has read every
body whole before the emulator looks at it (:meth:`EmulatorServer.app`), so the part can
be cut out of the bytes in one pass instead. Only a body laid out the way clients write
one (CRLF line ends, the closing delimiter present) is read here; anything else goes to
werkzeug, so an unusual body is judged exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from werkzeug.http import parse_options_header
from werkzeug.wrappers import Request

__all__ = ["FilePart", "file_part"]


@dataclass(frozen=True)
class FilePart:
    """A form part that carries a file: its file name as sent (may be empty) and bytes."""

    filename: str
    data: bytes


#: werkzeug's ``Request.max_form_parts``: a body with more parts goes to werkzeug, which
#: refuses it.
_MAX_PARTS = Request.max_form_parts or 1000


class _Unusual(ValueError):
    """The body is not laid out as the quick reading expects: werkzeug reads it."""


def file_part(request: Request, name: str) -> FilePart | None:
    """The first file part called ``name`` (as ``request.files[name]`` finds it), or None
    when the body has none (not multipart, no such part, or a plain field of that name)."""
    mimetype, options = parse_options_header(request.headers.get("Content-Type", ""))
    boundary = options.get("boundary", "")
    if mimetype == "multipart/form-data" and boundary:
        try:
            return _quick(request.get_data(), boundary.encode("latin-1"), name)
        except (_Unusual, UnicodeError):
            pass
    upload = request.files.get(name)
    if upload is None:
        return None
    return FilePart(upload.filename or "", upload.read())


def _quick(body: bytes, boundary: bytes, name: str) -> FilePart | None:
    """Cut the part out of ``body``: raises :class:`_Unusual` for a layout it does not
    read the way werkzeug does (werkzeug then reads the body)."""
    delimiter = b"--" + boundary
    if body.startswith(delimiter):
        start = len(delimiter)
    else:  # a preamble before the first delimiter
        found = body.find(b"\r\n" + delimiter)
        if found < 0:
            raise _Unusual("no delimiter")
        start = found + 2 + len(delimiter)
    sections = body[start:].split(b"\r\n" + delimiter)
    if len(sections) < 2 or not sections[-1].startswith(b"--"):
        raise _Unusual("no closing delimiter")
    if len(sections) > _MAX_PARTS:
        raise _Unusual("more parts than werkzeug takes")
    # Every part is read before one is chosen: a delimiter-like run of bytes in a later
    # part's data that werkzeug would not take for a delimiter sends the body there.
    parts = [_part(section) for section in sections[:-1]]
    return next((found for key, found in parts if key == name and found is not None), None)


def _part(section: bytes) -> tuple[str | None, FilePart | None]:
    """One part, between two delimiters: its name, and the file when it carries one."""
    line_end = section.find(b"\r\n")
    if line_end < 0 or section[:line_end].strip(b" \t"):
        raise _Unusual("a delimiter line with more on it")
    head_end = section.find(b"\r\n\r\n", line_end)
    if head_end < 0:
        raise _Unusual("a part without the blank line after its headers")
    head = section[line_end + 2 : head_end]
    if b"\n\t" in head or b"\n " in head or b"\r" in head.replace(b"\r\n", b""):
        raise _Unusual("folded headers or a bare CR")
    disposition = None
    for line in head.split(b"\r\n"):
        key, _, value = line.decode().partition(":")
        if key.strip(" \t").lower() == "content-disposition" and disposition is None:
            disposition = value.strip(" \t")
    if disposition is None:
        raise _Unusual("a part without Content-Disposition")
    fields = parse_options_header(disposition)[1]
    if "filename" not in fields:
        return fields.get("name"), None
    return fields.get("name"), FilePart(fields["filename"], section[head_end + 4 :])
