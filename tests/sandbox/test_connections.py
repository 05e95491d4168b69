"""The sandbox's connections: kept alive between requests as the platforms keep them, closed
by a fault that hangs up and by the sandbox stopping; and the time each request cost the
sandbox itself, injected latency left out."""

from __future__ import annotations

import http.client
import json
import socket
import types
from urllib.parse import urlsplit

import pytest

import crosspost.sandbox.server as server_module
from crosspost.sandbox.box import ManualClock, Sandbox

COUNT = "/cgi-bin/draft/count"
LOG = "/__sandbox__/requests"


def _connection(box: Sandbox) -> http.client.HTTPConnection:
    where = urlsplit(box.wechat_url)
    assert where.hostname is not None and where.port is not None
    return http.client.HTTPConnection(where.hostname, where.port, timeout=10)


def _get(connection: http.client.HTTPConnection, path: str) -> http.client.HTTPResponse:
    connection.request("GET", path)
    answer = connection.getresponse()
    answer.read()
    return answer


def test_one_connection_carries_many_requests(sandbox: Sandbox) -> None:
    connection = _connection(sandbox)
    try:
        first = _get(connection, LOG)
        socket_used = connection.sock
        for _ in range(3):
            answer = _get(connection, LOG)
            assert answer.status == 200 and answer.getheader("Connection") is None
            assert answer.getheader("Content-Length") is not None
        assert first.getheader("Connection") is None
        assert connection.sock is socket_used  # never reconnected
    finally:
        connection.close()


def test_a_fault_that_hangs_up_closes_that_connection_only(sandbox: Sandbox) -> None:
    sandbox.faults.add("wechat", COUNT, "reset", count=1)
    connection = _connection(sandbox)
    try:
        with pytest.raises((ConnectionError, http.client.HTTPException)):
            _get(connection, COUNT)
        connection.close()
        assert _get(connection, LOG).status == 200  # a new connection, served as before
    finally:
        connection.close()


def test_a_stopped_sandbox_hangs_up_on_its_open_connections(sandbox_clock: ManualClock) -> None:
    box = Sandbox(clock=sandbox_clock, sleep=sandbox_clock.sleep).start()
    connection = _connection(box)
    try:
        _get(connection, LOG)
        assert connection.sock is not None
        box.stop()
        assert connection.sock.recv(1) == b""  # the end: never an answer from a stopped box
    finally:
        connection.close()
        box.stop()


def test_the_log_says_what_a_request_cost_the_sandbox_without_the_latency(
    sandbox: Sandbox, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's stopwatch moves only when the injected sleep does: whatever the
    # request cost besides the latency is then zero, and the latency must not count.
    watch = types.SimpleNamespace(now=0.0)
    monkeypatch.setattr(
        server_module, "time", types.SimpleNamespace(perf_counter=lambda: watch.now)
    )

    def sleep(seconds: float) -> None:
        watch.now += seconds

    for served in sandbox.servers.values():
        monkeypatch.setattr(served, "sleep", sleep)
    sandbox.faults.add("wechat", COUNT, "latency:2500", count=1)
    connection = _connection(sandbox)
    try:
        _get(connection, COUNT)
        entries = json.loads(_get_body(connection, LOG))["requests"]
    finally:
        connection.close()
    (counted,) = [e for e in entries if e["path"] == COUNT]
    assert watch.now == 2.5 and counted["service"] == 0.0


def _get_body(connection: http.client.HTTPConnection, path: str) -> bytes:
    connection.request("GET", path)
    return connection.getresponse().read()


def test_a_chunked_request_is_answered_and_its_connection_closed(sandbox: Sandbox) -> None:
    connection = _connection(sandbox)
    try:
        connection.request("DELETE", LOG, body=iter([b"{}"]), encode_chunked=True)
        answer = connection.getresponse()
        assert json.loads(answer.read()) == {"cleared": True}
        assert answer.getheader("Connection") == "close"  # its end is the dechunker's business
    finally:
        connection.close()


def test_a_bug_in_the_sandbox_is_a_500_and_a_closed_connection(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(request: object) -> object:
        raise RuntimeError("a bug of the sandbox's")

    monkeypatch.setattr(sandbox.servers["wechat"], "control", broken)
    connection = _connection(sandbox)
    try:
        answer = _get(connection, LOG)
        assert (answer.status, answer.getheader("Connection")) == (500, "close")
    finally:
        connection.close()
    assert "a bug of the sandbox's" in capsys.readouterr().err


def test_a_new_connection_costs_its_handshake_once(sandbox: Sandbox, clock: ManualClock) -> None:
    sandbox.faults.add("wechat", "*", "handshake:300")
    first = _connection(sandbox)
    try:
        _get(first, COUNT)
        _get(first, COUNT)
        assert clock.sleeps == pytest.approx([0.3])  # its first request only
        second = _connection(sandbox)
        try:
            _get(second, COUNT)
        finally:
            second.close()
        assert clock.sleeps == pytest.approx([0.3, 0.3])  # every new connection pays
        entries = [e for e in sandbox.requests if e.path == COUNT]
        assert [e.connection for e in entries] == [1, 1, 2]
    finally:
        first.close()


def test_a_connection_opened_ahead_has_paid_by_the_time_it_is_used(
    sandbox: Sandbox, clock: ManualClock
) -> None:
    sandbox.faults.add("wechat", "*", "handshake:300")
    sandbox.faults.add("wechat", "*", "latency:50")
    ahead = _connection(sandbox)
    try:
        ahead.connect()
        assert sandbox.servers["wechat"].await_connections(1)
        clock.advance(0.2)  # the set-up is under way while something else happens
        _get(ahead, COUNT)
        assert clock.sleeps == pytest.approx([0.15])  # latency + what is left of the 0.3
        clock.advance(1.0)
        late = _connection(sandbox)
        late.connect()
        assert sandbox.servers["wechat"].await_connections(2)
        clock.advance(1.0)
        _get(late, COUNT)
        assert clock.sleeps[1:] == pytest.approx([0.05])  # the latency alone
    finally:
        ahead.close()


def test_a_client_that_hangs_up_mid_body_gets_no_answer_and_no_log_entry(
    sandbox: Sandbox,
) -> None:
    where = urlsplit(sandbox.wechat_url)
    assert where.hostname is not None and where.port is not None
    with socket.create_connection((where.hostname, where.port), timeout=10) as raw:
        raw.sendall(
            b"POST /cgi-bin/media/uploadimg HTTP/1.1\r\nHost: sandbox\r\n"
            b"Content-Length: 1000\r\n\r\nonly a part of the body"
        )
        raw.shutdown(socket.SHUT_WR)
        assert raw.recv(1024) == b""  # closed, unanswered
    connection = _connection(sandbox)
    try:
        assert json.loads(_get_body(connection, LOG)) == {"requests": []}
    finally:
        connection.close()
