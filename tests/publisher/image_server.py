"""A loopback web server with good and bad remote images, for tests that must not reach
the internet. Being on loopback, it is refused unless a run allows private hosts: the
tests that read from it turn the switch on explicitly, and others check the refusal.
"""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image


def png_bytes(size: tuple[int, int] = (12, 12), colour: str = "teal") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def jpeg_bytes(size: tuple[int, int] = (300, 200)) -> bytes:
    out = io.BytesIO()
    Image.effect_noise(size, 60).convert("RGB").save(out, "JPEG", quality=90)
    return out.getvalue()


PNG = png_bytes()
#: A JPEG cut in half: its header reads fine, its pixels do not.
_JPEG = jpeg_bytes()
TRUNCATED_JPEG = _JPEG[: len(_JPEG) // 2]

#: path → (status, headers, body); ``None`` body with status 0 means "drop the connection".
ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/pic.png": (200, {"Content-Type": "image/png"}, PNG),
    "/gone.png": (404, {"Content-Type": "text/html"}, b"<h1>Not Found</h1>"),
    "/page.png": (200, {"Content-Type": "text/html; charset=utf-8"}, b"<html>login</html>"),
    "/lying.png": (200, {"Content-Type": "image/png"}, b"<html>not really</html>"),
    "/half.jpg": (200, {"Content-Type": "image/jpeg"}, TRUNCATED_JPEG),
    "/busy.png": (503, {}, b"busy"),
    "/huge.png": (200, {"Content-Type": "image/png", "Content-Length": str(1 << 40)}, b""),
    "/to-metadata.png": (302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""),
    "/to-file.png": (302, {"Location": "file:///etc/passwd"}, b""),
    "/to-pic.png": (301, {"Location": "/pic.png"}, b""),
    "/loop.png": (302, {"Location": "/loop.png"}, b""),
    "/reset.png": (0, {}, b""),
}


class _Handler(BaseHTTPRequestHandler):
    seen: list[tuple[str, str]]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append((self.path, self.headers.get("Host", "")))  # type: ignore[attr-defined]
        status, headers, body = ROUTES.get(self.path.split("?")[0], (404, {}, b"no"))
        if status == 0:
            self.connection.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
            )
            self.connection.close()
            return
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


class ImageServer:
    """The running server: its base URL and the (path, Host header) of every request."""

    def __init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.seen = []  # type: ignore[attr-defined]
        self.port = int(self._server.server_address[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def seen(self) -> list[tuple[str, str]]:
        return list(self._server.seen)  # type: ignore[attr-defined]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def image_server() -> Iterator[ImageServer]:
    server = ImageServer()
    try:
        yield server
    finally:
        server.close()


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
