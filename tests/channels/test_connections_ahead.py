"""Connections opened ahead: a wave of uploads finds its connections set up.

On a real network a new HTTPS connection costs a round trip for TCP and one or two for
TLS before its first byte goes out. A post's uploads go out together right after its
first call, so the policy opens their connections while that call is out. The sandbox's
``handshake`` fault charges a connection's set-up from the moment it was accepted: a
request on a connection opened ahead (and the sandbox clock moved on) asks for the
latency alone, one on a connection of its own for the set-up too.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from crosspost.channels.http.policy import HttpPolicy, Reply, pooled_session
from crosspost.errors import TransientError
from crosspost.sandbox.box import ManualClock, Sandbox

COUNT = "/cgi-bin/draft/count"
WAVE = 3


@pytest.fixture
def policy(monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpPolicy]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    http = HttpPolicy(session=pooled_session(8))
    yield http
    http.close()


@pytest.fixture
def waits(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """What each WeChat request asked the sandbox to hold it for; the holds meet at a
    barrier, so a wave of ``WAVE`` requests is in the server at once, each on a
    connection of its own."""
    held: list[float] = []
    barrier = threading.Barrier(WAVE, timeout=10)

    def hold(seconds: float) -> None:
        held.append(round(seconds, 3))
        barrier.wait()

    monkeypatch.setattr(sandbox.servers["wechat"], "sleep", hold)
    sandbox.faults.add("wechat", "*", "handshake:300")
    sandbox.faults.add("wechat", "*", "latency:50")
    return held


def wave(policy: HttpPolicy, url: str) -> list[int]:
    def one(_: int) -> int:
        return policy.request("GET", url, idempotent=True, check=lambda r: r.status)

    with ThreadPoolExecutor(WAVE) as pool:
        return list(pool.map(one, range(WAVE)))


def test_a_wave_on_connections_opened_ahead_waits_for_no_set_up(
    sandbox: Sandbox, sandbox_clock: ManualClock, policy: HttpPolicy, waits: list[float]
) -> None:
    url = sandbox.wechat_url + COUNT
    opening = policy.open_ahead(url, WAVE)
    assert [future.result(timeout=10) for future in opening] == [True] * WAVE
    assert sandbox.servers["wechat"].await_connections(WAVE)
    sandbox_clock.advance(1.0)  # the post's first call took this long meanwhile
    assert wave(policy, url) == [200] * WAVE
    assert waits == [0.05] * WAVE
    assert sandbox.servers["wechat"].connections_accepted == WAVE  # none of its own
    assert {entry.connection for entry in sandbox.requests} == {1, 2, 3}


def test_a_wave_without_them_waits_for_its_own_set_up(
    sandbox: Sandbox, sandbox_clock: ManualClock, policy: HttpPolicy, waits: list[float]
) -> None:
    url = sandbox.wechat_url + COUNT
    sandbox_clock.advance(1.0)
    assert wave(policy, url) == [200] * WAVE
    assert waits == [0.35] * WAVE


def test_connections_made_already_count(sandbox: Sandbox, policy: HttpPolicy) -> None:
    url = sandbox.wechat_url + COUNT
    assert len(policy.open_ahead(url, 2)) == 2
    assert policy.open_ahead(url, 2) == []  # those two are there (or on their way)
    more = policy.open_ahead(url, 5)
    assert [future.result(timeout=10) for future in more] == [True] * 3
    assert sandbox.servers["wechat"].await_connections(5)
    assert policy.open_ahead(url, 100) != []  # up to the pool's size, not beyond
    assert policy.open_ahead(url, 100) == []


def test_nothing_is_opened_ahead_through_a_proxy(
    monkeypatch: pytest.MonkeyPatch, policy: HttpPolicy
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert policy.open_ahead("http://upload.example.invalid/cgi-bin/", 4) == []


def test_a_host_that_cannot_be_reached_is_left_to_the_request(
    policy: HttpPolicy, tmp_path: Path
) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://127.0.0.1:{port}/images"
    assert [future.result(timeout=10) for future in policy.open_ahead(url, 2)] == [False] * 2

    def check(reply: Reply) -> int:
        return reply.status

    with pytest.raises(TransientError, match="cannot connect"):
        policy.request("GET", url, idempotent=False, check=check)
