"""The emulator's quick multipart reading finds what werkzeug's form parser finds."""

from __future__ import annotations

import io

import pytest
from urllib3.filepost import encode_multipart_formdata
from werkzeug.wrappers import Request

from crosspost.sandbox.multipart import FilePart, file_part

BOUNDARY = "b0undary"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40


MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


def request(body: bytes, content_type: str = MULTIPART) -> Request:
    environ = {
        "REQUEST_METHOD": "POST",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "PATH_INFO": "/",
        "SERVER_NAME": "sandbox",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
    }
    return Request(environ)


def werkzeug_reads(body: bytes, content_type: str, name: str) -> FilePart | None:
    upload = request(body, content_type).files.get(name)
    return None if upload is None else FilePart(upload.filename or "", upload.read())


def part(headers: str, data: bytes) -> bytes:
    return f"--{BOUNDARY}\r\n{headers}\r\n\r\n".encode() + data + b"\r\n"


END = f"--{BOUNDARY}--\r\n".encode()
MEDIA = 'Content-Disposition: form-data; name="media"; filename="figure.png"'

BODIES = {
    "as urllib3 writes it": encode_multipart_formdata(
        {"media": ("figure.png", PNG, "image/png")}, boundary=BOUNDARY
    )[0],
    "with a field first": part('Content-Disposition: form-data; name="type"', b"image")
    + part(MEDIA + "\r\nContent-Type: image/png", PNG)
    + END,
    "a preamble": b"ignore me\r\n" + part(MEDIA, PNG) + END,
    "only another file": part('Content-Disposition: form-data; name="file"; filename="a.png"', PNG)
    + END,
    "media as a plain field": part('Content-Disposition: form-data; name="media"', PNG) + END,
    "an empty file name": part('Content-Disposition: form-data; name="media"; filename=""', PNG)
    + END,
    "a UTF-8 file name": part(
        'Content-Disposition: form-data; name="media"; filename="图 1.png"', PNG
    )
    + END,
    "a quoted semicolon": part(
        'Content-Disposition: form-data; name="media"; filename="a;b.png"', PNG
    )
    + END,
    "the boundary inside the data": part(MEDIA, b"x\r\n--" + BOUNDARY.encode() + b"zz" + PNG) + END,
    "an empty file": part(MEDIA, b"") + END,
    "two media parts": part(MEDIA, PNG) + part(MEDIA.replace("figure", "second"), b"2") + END,
    "LF line ends": (part(MEDIA, PNG) + END).replace(b"\r\n", b"\n"),
    "no closing delimiter": part(MEDIA, PNG),
    "a part without Content-Disposition": part("Content-Type: image/png", PNG) + END,
    "whitespace after a delimiter": part(MEDIA, PNG).replace(b"y\r\n", b"y  \r\n", 1) + END,
    "not multipart at all": b"plain body",
}


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_the_quick_reading_agrees_with_werkzeug(body: bytes) -> None:
    content_type = MULTIPART
    for name in ("media", "file", "type"):
        assert file_part(request(body, content_type), name) == werkzeug_reads(
            body, content_type, name
        )


def test_a_body_that_is_not_multipart_has_no_file() -> None:
    body = BODIES["as urllib3 writes it"]
    assert file_part(request(body, "application/octet-stream"), "media") is None
    assert file_part(request(body, "multipart/form-data"), "media") is None  # no boundary


def test_the_file_is_the_exact_bytes_sent() -> None:
    found = file_part(request(BODIES["as urllib3 writes it"]), "media")
    assert found == FilePart("figure.png", PNG)
