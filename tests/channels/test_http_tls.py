"""The HTTP policy over TLS, against a real HTTPS server on 127.0.0.1.

Both platforms are HTTPS. The policy sends on requests' connection pools itself, so what
requests used to settle inside ``Session.request`` is held here on a real handshake: the
certificate is checked against the CA bundle an operator names in ``REQUESTS_CA_BUNDLE``
(a company's TLS proxy, a private mirror), a certificate nobody vouches for stops the
call before a byte of it is sent, and a connection opened ahead carries the same checks.
The certificate is the session's (``crosspost.sandbox.tls``), made by ``openssl``.
"""

from __future__ import annotations

import base64
import json
import select
import socket
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from crosspost.channels.http.deadline import Deadlines
from crosspost.channels.http.policy import HttpPolicy, Reply, pooled_session
from crosspost.errors import TransientError, UnconfirmedError

if TYPE_CHECKING:
    from crosspost.sandbox.tls import Certificate


class Answering(BaseHTTPRequestHandler):
    """Answers every request with what it received: method, path and body; keeps the
    connection open for the next request, as the platforms do."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[tuple[str, str, bytes]]] = []
    trickling: ClassVar[threading.Event] = threading.Event()
    stop: ClassVar[threading.Event] = threading.Event()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).seen.append((self.command, self.path, body))
        if self.path == "/trickle":  # a header line a byte at a time, until cut
            self.close_connection = True
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            self.wfile.flush()
            type(self).trickling.set()
            for _ in range(500):
                try:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                except OSError:  # cut by the client
                    return
                if type(self).stop.wait(timeout=0.02):
                    return
            return
        if self.path == "/last":  # answers as if the connection stayed, then closes it
            self.close_connection = True
        answer = json.dumps({"path": self.path, "bytes": len(body)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = _answer
    do_POST = _answer


class CountingServer(ThreadingHTTPServer):
    """Counts the TLS connections it accepted (a handshake that failed counts too)."""

    daemon_threads = True
    accepted = 0
    closed = threading.Event()

    def get_request(self) -> tuple[Any, Any]:
        connection, address = super().get_request()
        self.accepted += 1
        return connection, address

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        self.closed.set()


@dataclass
class Https:
    url: str
    ca_bundle: Path
    server: CountingServer


@pytest.fixture
def https(certificate: Certificate, monkeypatch: pytest.MonkeyPatch) -> Iterator[Https]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    Answering.seen = []
    Answering.trickling, Answering.stop = threading.Event(), threading.Event()
    server = CountingServer(("127.0.0.1", 0), Answering)
    server.closed = threading.Event()
    server.socket = certificate.server_context().wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield Https(f"https://127.0.0.1:{server.server_address[1]}", certificate.cert, server)
    finally:
        Answering.stop.set()
        server.shutdown()
        server.server_close()


def ok(reply: Reply) -> dict[str, Any]:
    data: dict[str, Any] = reply.json()
    return data


def test_a_certificate_vouched_for_by_the_named_ca_bundle_carries_every_kind_of_call(
    https: Https, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.ca_bundle))
    http = HttpPolicy()
    try:
        assert http.request("GET", f"{https.url}/me", idempotent=True, check=ok)["path"] == "/me"
        posted = http.request(
            "POST", f"{https.url}/draft", idempotent=False, check=ok, json={"title": "周报"}
        )
        uploaded = http.request(
            "POST",
            f"{https.url}/upload",
            idempotent=True,
            check=ok,
            params={"type": "image"},
            files={"media": ("a.png", b"\x89PNG" + bytes(3000), "image/png")},
        )
    finally:
        http.close()
    assert posted["bytes"] == len('{"title": "周报"}'.encode())
    assert uploaded["path"] == "/upload?type=image" and uploaded["bytes"] > 3000
    # One handshake for the three calls: the connection is kept and used again.
    assert https.server.accepted == 1


def test_a_tls_answer_trickled_past_the_deadline_is_cut_and_left_unconfirmed(
    https: Https, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The platforms are HTTPS: the deadline cuts a TLS connection under the thread
    reading it as it cuts a plain one."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.ca_bundle))
    now = [0.0]
    deadlines = Deadlines(clock=lambda: now[0], watch=False)
    http = HttpPolicy(clock=lambda: now[0], sleep=lambda seconds: None, deadlines=deadlines)
    caught: list[BaseException] = []

    def publish() -> None:
        try:
            http.request("POST", f"{https.url}/trickle", idempotent=False, check=ok)
        except BaseException as error:  # handed to the test thread
            caught.append(error)

    thread = threading.Thread(target=publish, daemon=True)
    thread.start()
    try:
        assert Answering.trickling.wait(timeout=10)
        now[0] = 301.0
        assert deadlines.cut_overdue() == 1
        thread.join(timeout=10)
    finally:
        http.close()
    assert not thread.is_alive()
    (error,) = caught
    assert isinstance(error, UnconfirmedError)
    assert "the answer was not complete within 300 s on POST /trickle" in str(error)


def test_a_certificate_nobody_vouches_for_stops_the_call_before_it_is_sent(
    https: Https,
) -> None:
    http = HttpPolicy(sleep=lambda seconds: None)
    try:
        with pytest.raises(TransientError, match="nothing was sent") as caught:
            http.request("POST", f"{https.url}/publish", idempotent=False, check=ok)
    finally:
        http.close()
    assert not isinstance(caught.value, UnconfirmedError)  # safe to run again: exit 75
    assert str(caught.value) == (
        "cannot connect for POST /publish (TLS failed: certificate verify failed: "
        "self-signed certificate); nothing was sent, run again later"
    )
    assert Answering.seen == []


def test_a_connection_opened_ahead_is_checked_and_then_used(
    https: Https, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.ca_bundle))
    http = HttpPolicy(session=pooled_session(4))
    try:
        (opened,) = http.open_ahead(f"{https.url}/", 1)
        assert opened.result(timeout=10) is True
        assert http.request("GET", f"{https.url}/me", idempotent=True, check=ok)["path"] == "/me"
    finally:
        http.close()
    assert https.server.accepted == 1  # the call went out on the connection opened ahead


def test_a_connection_opened_ahead_to_an_untrusted_host_is_given_up(https: Https) -> None:
    http = HttpPolicy(session=pooled_session(4), sleep=lambda seconds: None)
    try:
        (opened,) = http.open_ahead(f"{https.url}/", 1)
        assert opened.result(timeout=10) is False
        with pytest.raises(TransientError, match="nothing was sent"):
            http.request("GET", f"{https.url}/me", idempotent=True, check=ok, retry=False)
    finally:
        http.close()
    assert Answering.seen == []


def test_a_connection_the_server_closed_while_idle_is_not_used_again(
    https: Https, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.ca_bundle))
    http = HttpPolicy(sleep=lambda seconds: None)
    try:
        http.request("GET", f"{https.url}/last", idempotent=True, check=ok, retry=False)
        assert https.server.closed.wait(timeout=10)
        again = http.request("POST", f"{https.url}/draft", idempotent=False, check=ok)
    finally:
        http.close()
    assert again["path"] == "/draft"  # sent once, on a new connection, and answered
    assert https.server.accepted == 2
    assert [path for _, path, _ in Answering.seen] == ["/last", "/draft"]


class Tunnel(socketserver.StreamRequestHandler):
    """A company proxy's part in HTTPS: ``CONNECT host:port``, then bytes both ways."""

    connects: ClassVar[list[tuple[str, str]]] = []

    def handle(self) -> None:
        line = self.rfile.readline().decode("latin-1").split()
        headers = {}
        while (header := self.rfile.readline().decode("latin-1").strip()) != "":
            name, _, value = header.partition(":")
            headers[name.strip().lower()] = value.strip()
        type(self).connects.append((line[1], headers.get("proxy-authorization", "")))
        host, _, port = line[1].rpartition(":")
        with socket.create_connection((host, int(port))) as upstream:
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            ends = [self.connection, upstream]
            while True:
                readable, _, _ = select.select(ends, [], [], 5)
                if not readable:
                    return
                for end in readable:
                    data = end.recv(65536)
                    if not data:
                        return
                    (upstream if end is self.connection else self.connection).sendall(data)


def test_https_through_a_company_proxy_goes_through_its_tunnel(
    https: Https, monkeypatch: pytest.MonkeyPatch
) -> None:
    Tunnel.connects = []
    proxy = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Tunnel)
    proxy.daemon_threads = True
    threading.Thread(target=proxy.serve_forever, args=(0.01,), daemon=True).start()
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.ca_bundle))
    monkeypatch.setenv("HTTPS_PROXY", f"http://editor:pa55word@127.0.0.1:{proxy.server_address[1]}")
    http = HttpPolicy()
    try:
        answer = http.request("POST", f"{https.url}/draft", idempotent=False, check=ok, json={})
        again = http.request("GET", f"{https.url}/me", idempotent=True, check=ok)
    finally:
        http.close()
        proxy.shutdown()
        proxy.server_close()
    assert (answer["path"], again["path"]) == ("/draft", "/me")
    # One tunnel for both calls, to the platform's host, with the proxy's own login.
    target = https.url.removeprefix("https://")
    login = base64.b64encode(b"editor:pa55word").decode()
    assert Tunnel.connects == [(target, f"Basic {login}")]
    assert [path for _, path, _ in Answering.seen] == ["/draft", "/me"]
