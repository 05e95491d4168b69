"""A plain request (no form, no multipart, a URL needing no quoting) skips requests'
preparation: the server must see the very bytes requests would have sent.

Every case is sent twice through :class:`HttpPolicy`, once as it is and once with the
short way switched off, against a server that writes down the request line, the headers
(names as spelt, in order) and the body; the two lists must be equal, and the cases that
are plain must have taken the short way.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import urllib3.filepost

from crosspost.channels.http.policy import HttpPolicy, Reply

from .local_server import serving

Seen = tuple[str, tuple[tuple[str, str], ...], bytes]


class Recording(BaseHTTPRequestHandler):
    """Writes every request down and answers ``{}`` on a connection kept open."""

    protocol_version = "HTTP/1.1"
    seen: list[Seen] = []  # noqa: RUF012 - one server per test, reset by the fixture

    def _any(self) -> None:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while size := int(self.rfile.readline().strip() or b"0", 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append((self.requestline, tuple(self.headers.items()), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _any

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    Recording.seen = []
    with serving(Recording) as url:
        yield url


#: (name, plain, request keywords); ``{url}`` is the server's.
CASES: list[tuple[str, bool, dict[str, Any]]] = [
    ("GET with a query", True, {"method": "GET", "url": "{url}/cgi-bin/x?a=1&b=two"}),
    (
        "GET with parameters, one not ASCII, one None",
        True,
        {"method": "GET", "url": "{url}/p", "params": {"t": "a b&c", "k": "中文", "n": None}},
    ),
    (
        "parameters after a query",
        True,
        {"method": "GET", "url": "{url}/p?x=1", "params": {"access_token": "T0k-en_"}},
    ),
    ("JSON POST", True, {"method": "POST", "url": "{url}/j", "json": {"标题": "x", "n": [1]}}),
    (
        "PUT of bytes, the call's headers over the session's",
        True,
        {
            "method": "PUT",
            "url": "{url}/v2-abc",
            "data": b"\x89PNG" * 100,
            "headers": {"Content-Type": "image/png", "user-agent": "other/1", "Accept": None},
        },
    ),
    ("POST without a body", True, {"method": "POST", "url": "{url}/empty"}),
    ("PUT of no bytes", True, {"method": "PUT", "url": "{url}/empty", "data": b""}),
    ("GET of no bytes", True, {"method": "GET", "url": "{url}/empty", "data": b""}),
    ("a URL without a path", False, {"method": "GET", "url": "{url}"}),
    ("a quoted path", False, {"method": "GET", "url": "{url}/a%20b"}),
    ("a path to be quoted", False, {"method": "GET", "url": "{url}/a b/中"}),
    ("dot segments", False, {"method": "GET", "url": "{url}/a/../b"}),
    ("a fragment", False, {"method": "GET", "url": "{url}/a#frag"}),
    ("an empty query", False, {"method": "GET", "url": "{url}/a?"}),
    ("a form", False, {"method": "POST", "url": "{url}/f", "data": {"a": "1"}}),
    (
        "a multipart upload",
        False,
        {"method": "POST", "url": "{url}/m", "files": {"media": ("a.png", b"x", "image/png")}},
    ),
    (
        "a header value not ASCII",
        False,
        {"method": "GET", "url": "{url}/h", "headers": {"X-Name": "café"}},
    ),
]


def _send(server: str, case: dict[str, Any]) -> None:
    http = HttpPolicy()
    try:
        keywords = dict(case, url=case["url"].format(url=server))
        http.request(idempotent=True, check=lambda reply: reply, **keywords)
        http.request(idempotent=True, check=lambda reply: reply, **keywords)  # a warm route
    finally:
        http.close()


@pytest.mark.parametrize(("name", "plain", "case"), CASES, ids=[c[0] for c in CASES])
def test_a_request_reaches_the_server_as_requests_would_send_it(
    server: str, monkeypatch: pytest.MonkeyPatch, name: str, plain: bool, case: dict[str, Any]
) -> None:
    shortcuts: list[str] = []
    original = HttpPolicy._plain

    def watched(self: HttpPolicy, *args: Any) -> Any:
        found = original(self, *args)
        shortcuts.append("plain" if found else "requests")
        return found

    monkeypatch.setattr(HttpPolicy, "_plain", watched)
    monkeypatch.setattr(urllib3.filepost, "choose_boundary", lambda: "b0undary")  # not random
    _send(server, case)
    short = list(Recording.seen)
    assert shortcuts == ["plain" if plain else "requests"] * 2

    Recording.seen.clear()
    monkeypatch.setattr(HttpPolicy, "_plain", lambda self, *args: None)
    _send(server, case)
    assert short == Recording.seen  # the very same request line, headers and body
    assert len(short) == 2


def test_a_header_requests_refuses_is_still_refused(server: str) -> None:
    """A header with a line break is not plain: requests refuses it before sending,
    as before (nothing reaches the server)."""
    from crosspost.errors import ConfigError

    http = HttpPolicy()
    try:
        with pytest.raises(ConfigError, match="cannot send GET /h"):
            http.request(
                "GET",
                f"{server}/h",
                idempotent=True,
                check=lambda reply: reply,
                headers={"X-Evil": "a\r\nX-Injected: 1"},
            )
    finally:
        http.close()
    assert Recording.seen == []


def test_the_answer_is_read_the_same_way(server: str) -> None:
    http = HttpPolicy()
    try:
        reply: Reply = http.request("GET", f"{server}/a", idempotent=True, check=lambda r: r)
    finally:
        http.close()
    assert (reply.status, reply.body, reply.headers["Content-Type"]) == (
        200,
        b"{}",
        "application/json",
    )
