"""The one HTTP policy, against a real little server on 127.0.0.1.

The server misbehaves on purpose (5xx, 429 with Retry-After, connection reset, closed
without an answer, an answer that breaks off or never comes); the clock and sleep are
fakes, so no test waits on the policy. Only a read timeout is the socket's own: those
tests set it to 0.2 s.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import urllib3

from crosspost.channels.http.deadline import Deadlines
from crosspost.channels.http.policy import (
    AmbiguousOutcome,
    CredentialRejected,
    HttpPolicy,
    RedactingFilter,
    Redactor,
    Reply,
    RetryPolicy,
    ServerError,
    Timeouts,
)
from crosspost.channels.http.wire import retry_after_seconds as retry_after
from crosspost.channels.http.wire import short_reason
from crosspost.channels.wechat.errors import check_reply as wechat_check
from crosspost.errors import (
    AuthError,
    ConfigError,
    PermanentError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)

from .local_server import serving

SECRET = "s3cr3t-AppSecret-value"


@dataclass
class FakeTime:
    """A clock that only moves when the code under test sleeps."""

    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Misbehaving(BaseHTTPRequestHandler):
    """``/<behaviour>/<times>``: misbehave the first ``times`` hits, then answer 200."""

    hits: dict[str, int] = {}  # noqa: RUF012 - one server per test, reset by the fixture
    bodies: list[bytes] = []  # noqa: RUF012
    #: What a hanging answer waits for: set when the test is over.
    release = threading.Event()
    #: Set once a trickling answer has begun.
    trickling = threading.Event()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).bodies.append(body)
        key = parts.path
        hits = type(self).hits[key] = type(self).hits.get(key, 0) + 1
        _, behaviour, times = [*parts.path.split("/"), "", ""][:3]
        if hits <= int(times or 0):
            if behaviour == "reset":
                # RST instead of FIN: the client sees "connection reset by peer".
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.connection.close()
                return
            if behaviour == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if behaviour == "badgzip":  # the platform acted, then sent an undecodable body
                junk = b"this is not gzip at all"
                self.send_response(200)
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(junk)))
                self.end_headers()
                self.wfile.write(junk)
                return
            if behaviour == "truncated":  # acted, then the answer broke off mid-body
                self.send_response(200)
                self.send_header("Content-Length", "100")
                self.end_headers()
                self.wfile.write(b'{"errcode": 0')
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if behaviour in ("stalled", "silent"):  # the body (or the whole answer) hangs
                if behaviour == "stalled":
                    self.send_response(200)
                    self.send_header("Content-Length", "100")
                    self.end_headers()
                    self.wfile.flush()
                type(self).release.wait(timeout=10)
                self.close_connection = True
                return
            if behaviour in ("tricklehead", "tricklebody"):  # a byte at a time, for ever
                self.close_connection = True
                drip = b"HTTP/1.1 200 OK\r\nX-Slow: "
                if behaviour == "tricklebody":  # no length: the answer ends with the connection
                    drip = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
                    self.wfile.write(drip + b'{"hits": 0}')  # whole-looking when cut
                    drip = b" " * 60000
                else:
                    self.wfile.write(drip[:1])
                    drip = drip[1:] + b"x" * 60000
                self.wfile.flush()
                type(self).trickling.set()
                for byte in drip:
                    if type(self).release.wait(timeout=0.02):
                        return
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:  # the client cut the connection
                        return
                return
            if behaviour == "login":  # a portal in front: off to its login page, ticket and all
                self.send_response(302)
                self.send_header("Location", "https://mp.weixin.qq.com/cgi-bin/login?ticket=T0p5")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if behaviour == "ratelimit":
                self.send_response(429)
                self.send_header("Retry-After", "7")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(int(behaviour))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = json.dumps(
            {"hits": hits, "query": parse_qs(parts.query), "body": body.decode("utf-8")},
            ensure_ascii=False,
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = _handle
    do_POST = _handle


@pytest.fixture
def server() -> Iterator[str]:
    Misbehaving.hits = {}
    Misbehaving.bodies = []
    Misbehaving.release = threading.Event()
    Misbehaving.trickling = threading.Event()
    with serving(Misbehaving) as url:
        yield url
        Misbehaving.release.set()


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


@pytest.fixture
def policy(fake: FakeTime) -> Iterator[HttpPolicy]:
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, rng=lambda: 0.0)
    http.register_secret(SECRET)
    yield http
    http.close()


def ok(reply: Reply) -> dict[str, Any]:
    data: dict[str, Any] = reply.json()
    return data


def hits(path: str) -> int:
    return Misbehaving.hits.get(path, 0)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# --- idempotent calls recover, and say so in the log ---------------------------------


@pytest.mark.parametrize("behaviour", ["500", "502", "503", "reset", "drop"])
def test_idempotent_call_recovers_from_transient_failures(
    server: str, policy: HttpPolicy, fake: FakeTime, behaviour: str, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crosspost")
    data = policy.request("GET", f"{server}/{behaviour}/2", idempotent=True, check=ok)
    assert data["hits"] == 3
    assert fake.sleeps == [0.5, 1.0]  # exponential backoff (jitter fixed at 0 here)
    retries = [r.getMessage() for r in caplog.records if r.getMessage().startswith("retry")]
    assert retries[0].startswith("retry 1 of 3 after 0.5 s: ")
    assert retries[0].endswith(f"on GET /{behaviour}/2")
    assert retries[1].startswith("retry 2 of 3 after 1.0 s: ")


def test_log_line_names_the_status_and_the_call(
    server: str, policy: HttpPolicy, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crosspost")
    policy.request("POST", f"{server}/503/1?access_token=abc", idempotent=True, check=ok)
    assert "retry 1 of 3 after 0.5 s: HTTP 503 on POST /503/1" in caplog.messages


def test_a_retried_line_that_names_its_call_does_not_name_it_again(
    policy: HttpPolicy, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crosspost")
    with pytest.raises(TransientError):
        policy.request("POST", f"http://127.0.0.1:{closed_port()}/t", idempotent=True, check=ok)
    line = caplog.messages[0]
    assert line.startswith("retry 1 of 3 after ") and "cannot connect for POST /t (" in line
    assert line.count("POST /t") == 1 and line.endswith("run again later"), line


# --- a connection that cannot be opened says why -------------------------------------

#: ``.invalid`` names never resolve (RFC 6761); the last two hold words the old wording
#: read in the error's text ("reset", "closed") and mislabelled.
UNRESOLVABLE = ("api.weixn.invalid", "reset-api.invalid", "closed.invalid")


def _unsent(http: HttpPolicy, url: str) -> TransientError:
    with pytest.raises(TransientError) as caught:
        http.request("POST", url, idempotent=True, check=ok, retry=False)
    assert not isinstance(caught.value, UnconfirmedError)
    assert caught.value.exit_code == 75
    return caught.value


def refuse_404(reply: Reply) -> None:
    """A platform's check: a 404 is its permanent "no such call"."""
    raise PermanentError(f"no such api on {reply.where}", channel="wechat", code=reply.status)


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        (
            "/404",
            "; check base_url in the config: it should be the host only ({host}), without /404",
        ),
        ("", ""),  # the host only: a 404 is the platform's word alone
        ("/", ""),
    ],
)
def test_a_404_under_a_base_url_with_a_path_says_base_url_should_be_the_host_only(
    server: str, fake: FakeTime, path: str, hint: str
) -> None:
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, base_url=f"{server}{path}")
    with pytest.raises(PermanentError) as caught:
        http.request("POST", f"{server}/404/9", idempotent=True, check=refuse_404)
    http.close()
    assert str(caught.value) == "no such api on POST /404/9" + hint.format(host=server)
    assert hits("/404/9") == 1


def test_a_closed_port_is_a_refused_connection(policy: HttpPolicy) -> None:
    error = _unsent(policy, f"http://127.0.0.1:{closed_port()}/cgi-bin/stable_token")
    assert str(error) == (
        "cannot connect for POST /cgi-bin/stable_token (connection refused); "
        "nothing was sent, run again later"
    )


@pytest.mark.parametrize("host", UNRESOLVABLE)
def test_a_host_name_from_base_url_that_does_not_resolve_points_at_base_url(
    fake: FakeTime, host: str
) -> None:
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, base_url=f"http://{host}")
    try:
        error = _unsent(http, f"http://{host}/cgi-bin/stable_token")
    finally:
        http.close()
    assert str(error) == (
        f"cannot connect for POST /cgi-bin/stable_token (the host name {host} cannot be "
        "resolved: check base_url in the config for a typo; if it is right, DNS is down); "
        "nothing was sent, run again later"
    )


def test_a_platform_host_that_does_not_resolve_reads_as_dns_trouble(policy: HttpPolicy) -> None:
    error = _unsent(policy, "https://api.weixin.invalid/cgi-bin/stable_token")
    assert str(error) == (
        "cannot connect for POST /cgi-bin/stable_token (the host name api.weixin.invalid "
        "cannot be resolved: DNS is down, or this machine is offline); "
        "nothing was sent, run again later"
    )


@pytest.mark.parametrize(
    ("number", "reason"),
    [
        (errno.ECONNREFUSED, "connection refused"),
        (errno.ENETUNREACH, "network unreachable"),
        (errno.EHOSTUNREACH, "host unreachable"),
        (errno.EADDRNOTAVAIL, "cannot open a connection: cannot assign requested address"),
    ],
)
def test_a_connection_that_cannot_be_opened_reads_by_its_errno(number: int, reason: str) -> None:
    """Routes this test machine cannot make up: the errors urllib3 raises for them."""
    try:
        try:
            raise OSError(number, os.strerror(number))
        except OSError as cause:
            # The text names the host, as urllib3's does: "reset" in it is no reset.
            raise urllib3.exceptions.NewConnectionError(None, "reset.example") from cause
    except urllib3.exceptions.NewConnectionError as error:
        assert short_reason(requests.exceptions.ConnectionError(error)) == reason


def test_tls_spoken_to_a_plain_http_server_says_tls_failed(server: str, policy: HttpPolicy) -> None:
    error = _unsent(policy, server.replace("http://", "https://") + "/t")
    assert str(error).startswith("cannot connect for POST /t (TLS failed: "), str(error)
    assert str(error).endswith("); nothing was sent, run again later")
    assert Misbehaving.bodies == []  # the server saw a handshake, never a request


def test_an_answer_that_stops_coming_says_so_whatever_the_host_is_called(
    server: str, fake: FakeTime
) -> None:
    http = HttpPolicy(timeouts=Timeouts(connect=1, read=0.2), clock=fake.clock, sleep=fake.sleep)
    with pytest.raises(UnconfirmedError) as caught:
        http.request("POST", f"{server}/stalled/1", idempotent=False, check=ok)
    http.close()
    assert str(caught.value) == (
        "the answer stopped coming (read timeout) on POST /stalled/1 after the request was "
        "sent: it may or may not have happened"
    )


def test_the_first_retry_reads_as_the_first_and_the_last_line_counts_attempts(
    server: str, policy: HttpPolicy, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crosspost")
    with pytest.raises(ServerError) as caught:
        policy.request("GET", f"{server}/503/99", idempotent=True, check=ok)
    assert [m for m in caplog.messages if m.startswith("retry")] == [
        "retry 1 of 3 after 0.5 s: HTTP 503 on GET /503/99",
        "retry 2 of 3 after 1.0 s: HTTP 503 on GET /503/99",
        "retry 3 of 3 after 2.0 s: HTTP 503 on GET /503/99",
    ]
    gave_up = "HTTP 503 on GET /503/99 (gave up after 4 attempts; run again later)"
    assert str(caught.value) == gave_up
    assert hits("/503/99") == 4  # the first attempt and three retries


def test_jitter_spreads_the_waits(server: str, fake: FakeTime) -> None:
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, rng=lambda: 0.5)
    http.request("GET", f"{server}/503/2", idempotent=True, check=ok)
    assert fake.sleeps == [0.625, 1.25]


def test_attempts_are_capped(server: str, policy: HttpPolicy, fake: FakeTime) -> None:
    with pytest.raises(ServerError, match=r"HTTP 503 on GET /503/99 \(gave up after 4") as caught:
        policy.request("GET", f"{server}/503/99", idempotent=True, check=ok)
    assert caught.value.exit_code == 75
    assert hits("/503/99") == 4
    assert len(fake.sleeps) == 3


def test_total_time_is_capped(server: str, fake: FakeTime) -> None:
    http = HttpPolicy(
        clock=fake.clock,
        sleep=fake.sleep,
        rng=lambda: 0.0,
        retry=RetryPolicy(max_attempts=10, max_total_seconds=5.0, initial_backoff=1.0),
    )
    with pytest.raises(ServerError):
        http.request("GET", f"{server}/503/99", idempotent=True, check=ok)
    assert sum(fake.sleeps) <= 5.0
    assert fake.sleeps == [1.0, 2.0]  # the next wait (4 s) would pass the 5 s cap


def test_retry_after_is_honoured(server: str, policy: HttpPolicy, fake: FakeTime) -> None:
    data = policy.request("GET", f"{server}/ratelimit/1", idempotent=True, check=ok)
    assert data["hits"] == 2
    assert fake.sleeps == [7.0]


def test_retry_after_beyond_the_cap_stops_at_once(server: str, fake: FakeTime) -> None:
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, retry=RetryPolicy(max_total_seconds=5))
    with pytest.raises(RateLimitedError) as caught:
        http.request("GET", f"{server}/ratelimit/1", idempotent=True, check=ok)
    assert caught.value.retry_after == 7.0
    assert fake.sleeps == []
    assert hits("/ratelimit/1") == 1


def test_check_decides_what_is_transient(server: str, policy: HttpPolicy, fake: FakeTime) -> None:
    answers = iter([TransientError("busy"), PermanentError("no")])

    def check(reply: Reply) -> None:
        raise next(answers)

    with pytest.raises(PermanentError, match="no"):
        policy.request("GET", f"{server}/ok", idempotent=True, check=check)
    assert hits("/ok") == 2  # the permanent error stopped it after one more attempt


# --- non-idempotent calls: one attempt, ambiguity made visible ------------------------


@pytest.mark.parametrize("behaviour", ["500", "502", "503", "reset", "drop"])
def test_non_idempotent_call_is_sent_once_and_reported_unconfirmed(
    server: str, policy: HttpPolicy, fake: FakeTime, behaviour: str
) -> None:
    with pytest.raises(AmbiguousOutcome) as caught:
        policy.request("POST", f"{server}/{behaviour}/1", idempotent=False, check=ok)
    assert isinstance(caught.value, UnconfirmedError)
    assert caught.value.exit_code == 3
    assert "may or may not have happened" in str(caught.value)
    assert hits(f"/{behaviour}/1") == 1
    assert fake.sleeps == []


def test_an_undecodable_answer_to_an_irreversible_call_is_unconfirmed_not_bad_config(
    server: str, policy: HttpPolicy, fake: FakeTime
) -> None:
    with pytest.raises(UnconfirmedError, match="may or may not have happened") as caught:
        policy.request("POST", f"{server}/badgzip/1", idempotent=False, check=ok)
    assert caught.value.exit_code == 3
    assert str(caught.value).startswith("the answer came back cut off or corrupted")
    assert "DecodeError" not in str(caught.value)
    assert hits("/badgzip/1") == 1
    assert policy.request("GET", f"{server}/badgzip/1", idempotent=True, check=ok)["hits"] == 2


def test_an_undecodable_answer_to_a_read_is_a_lost_answer_asked_again(
    server: str, policy: HttpPolicy, fake: FakeTime, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="crosspost.http"):
        data = policy.request("GET", f"{server}/badgzip/2", idempotent=True, check=ok)
    assert data["hits"] == 3
    assert "the answer came back cut off or corrupted" in caplog.text
    with pytest.raises(TransientError, match="cut off or corrupted") as caught:
        policy.request("GET", f"{server}/badgzip/9", idempotent=True, check=ok)
    assert caught.value.exit_code == 75


def test_a_redirect_where_wechats_json_belongs_names_its_host_and_never_its_query(
    server: str, policy: HttpPolicy, fake: FakeTime
) -> None:
    def read(reply: Reply) -> dict[str, Any]:
        return wechat_check(reply, clock=fake.clock)

    def create(reply: Reply) -> dict[str, Any]:
        return wechat_check(reply, clock=fake.clock, irreversible=True)

    with pytest.raises(TransientError) as caught:
        policy.request("POST", f"{server}/login/1", idempotent=True, check=read, retry=False)
    message = str(caught.value)
    assert message == (
        "WeChat POST /login/1: a redirect to mp.weixin.qq.com came back (HTTP 302) instead of "
        "WeChat's JSON, so a proxy, firewall or login page is in the way; run again later, "
        "and if it repeats, check the proxy settings and the firewall"
    )
    with pytest.raises(UnconfirmedError) as unsure:
        policy.request("POST", f"{server}/login/2", idempotent=False, check=create)
    assert "a redirect to mp.weixin.qq.com came back (HTTP 302)" in str(unsure.value)
    assert hits("/login/2") == 1
    for said in (message, str(unsure.value)):
        assert "ticket" not in said and "T0p5" not in said and "/cgi-bin/login" not in said


@pytest.mark.parametrize("behaviour", ["truncated", "stalled"])
def test_an_answer_that_breaks_off_leaves_an_irreversible_call_unconfirmed(
    server: str, fake: FakeTime, behaviour: str
) -> None:
    """The platform answered, then the body broke off (or stopped coming): the call
    happened as far as anyone can tell, so it is never sent again; a read is."""
    http = HttpPolicy(timeouts=Timeouts(connect=1, read=0.2), clock=fake.clock, sleep=fake.sleep)
    with pytest.raises(UnconfirmedError, match="may or may not have happened") as caught:
        http.request("POST", f"{server}/{behaviour}/1", idempotent=False, check=ok)
    assert caught.value.exit_code == 3
    assert hits(f"/{behaviour}/1") == 1
    assert fake.sleeps == []
    assert http.request("GET", f"{server}/{behaviour}/1", idempotent=True, check=ok)["hits"] == 2
    http.close()


def test_no_answer_within_the_read_timeout_is_said_in_seconds(server: str, fake: FakeTime) -> None:
    http = HttpPolicy(timeouts=Timeouts(connect=1, read=0.2), clock=fake.clock, sleep=fake.sleep)
    with pytest.raises(UnconfirmedError, match=r"no answer within 0\.2 s on POST /silent/1"):
        http.request("POST", f"{server}/silent/1", idempotent=False, check=ok)
    assert hits("/silent/1") == 1
    http.close()


def _cut_once_trickling(
    fake: FakeTime, method: str, url: str, *, idempotent: bool, whole: float = 300
) -> dict[str, Any] | BaseException:
    """Send ``method url`` through a policy whose deadlines wait for the test's word, in a
    thread; once the server trickles its answer, let the policy's clock pass the
    ``whole`` deadline and the deadlines cut what is late. The call's answer or error."""
    deadlines = Deadlines(clock=fake.clock, watch=False)
    http = HttpPolicy(
        timeouts=Timeouts(connect=1, read=5, whole=whole),
        clock=fake.clock,
        sleep=fake.sleep,
        rng=lambda: 0.0,
        deadlines=deadlines,
    )
    outcome: list[dict[str, Any] | BaseException] = []

    def run() -> None:
        try:
            outcome.append(http.request(method, url, idempotent=idempotent, check=ok))
        except BaseException as error:  # handed to the test thread
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert Misbehaving.trickling.wait(timeout=10)
    fake.now += whole + 1
    assert deadlines.cut_overdue() == 1
    thread.join(timeout=10)
    http.close()
    assert not thread.is_alive() and len(outcome) == 1
    return outcome[0]


def test_an_answer_trickled_out_past_the_whole_deadline_leaves_a_publish_unconfirmed(
    server: str, fake: FakeTime
) -> None:
    """Each byte comes well within the read timeout, so only the whole deadline ends it;
    the call may have happened, so it is not sent again."""
    error = _cut_once_trickling(fake, "POST", f"{server}/tricklehead/1", idempotent=False)
    assert isinstance(error, UnconfirmedError)
    assert str(error) == (
        "the answer was not complete within 300 s on POST /tricklehead/1 after the request "
        "was sent: it may or may not have happened"
    )
    assert hits("/tricklehead/1") == 1


def test_an_answer_trickled_through_a_proxy_is_cut_at_the_deadline_too(
    server: str, fake: FakeTime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind a company's proxy (``HTTP_PROXY``) requests makes pools of its own: they
    are made of the policy's connections, so the deadline reaches them."""
    for name in ("NO_PROXY", "no_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server)
    address = "http://platform.invalid/tricklehead/1"
    error = _cut_once_trickling(fake, "POST", address, idempotent=False)
    assert isinstance(error, UnconfirmedError), error
    assert "the answer was not complete within 300 s" in str(error)


def test_a_body_cut_at_the_deadline_is_not_taken_for_the_whole_answer(
    server: str, fake: FakeTime
) -> None:
    """An answer without a length ends with its connection: cut, it would look complete.
    A read is asked again (the cut came within the retries' 90 s), and the second answer
    is the one returned."""
    answer = _cut_once_trickling(fake, "GET", f"{server}/tricklebody/1", idempotent=True, whole=30)
    assert isinstance(answer, dict) and answer["hits"] == 2
    assert len(fake.sleeps) == 1  # one backoff before the second attempt


def test_an_exchange_that_ends_in_time_is_never_cut(server: str, fake: FakeTime) -> None:
    deadlines = Deadlines(clock=fake.clock, watch=False)
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, deadlines=deadlines)
    first = http.request("GET", f"{server}/ok/0", idempotent=True, check=ok)
    fake.now += 10_000
    assert deadlines.cut_overdue() == 0
    again = http.request("GET", f"{server}/ok/0", idempotent=True, check=ok)
    http.close()
    assert (first["hits"], again["hits"]) == (1, 2)


def test_a_malformed_url_is_a_settings_error(policy: HttpPolicy) -> None:
    with pytest.raises(ConfigError, match="cannot send") as caught:
        policy.request("POST", "127.0.0.1:1/draft/add", idempotent=False, check=ok)
    assert caught.value.exit_code == 2


def test_connect_failure_is_safe_not_unconfirmed(policy: HttpPolicy, fake: FakeTime) -> None:
    url = f"http://127.0.0.1:{closed_port()}/draft/add"
    with pytest.raises(TransientError, match="nothing was sent") as caught:
        policy.request("POST", url, idempotent=False, check=ok)
    assert not isinstance(caught.value, UnconfirmedError)
    assert fake.sleeps == []


def test_connect_failure_of_an_idempotent_call_is_retried(
    policy: HttpPolicy, fake: FakeTime
) -> None:
    with pytest.raises(TransientError, match="cannot connect"):
        policy.request("GET", f"http://127.0.0.1:{closed_port()}/", idempotent=True, check=ok)
    assert len(fake.sleeps) == 3


# --- the credential: refreshed once, re-sent once, never a loop -----------------------


class Tokens:
    def __init__(self, *values: str) -> None:
        self.values = list(values)
        self.invalidated: list[str] = []

    def params(self) -> dict[str, str]:
        return {"access_token": self.values[0]}

    def invalidate(self, rejected: Any) -> None:
        self.invalidated.append(rejected["access_token"])
        if len(self.values) > 1 and self.values[0] == rejected["access_token"]:
            self.values.pop(0)


def refuse(*bad: str) -> Any:
    def check(reply: Reply) -> dict[str, Any]:
        data = ok(reply)
        if data["query"]["access_token"][0] in bad:
            raise CredentialRejected("token refused (errcode 42001)", code=42001)
        return data

    return check


@pytest.mark.parametrize("idempotent", [True, False])
def test_refused_token_is_refreshed_once_and_the_call_resent(
    server: str, policy: HttpPolicy, idempotent: bool
) -> None:
    tokens = Tokens("old-token-1", "new-token-2")
    data = policy.request(
        "POST",
        f"{server}/ok",
        idempotent=idempotent,
        check=refuse("old-token-1"),
        credential=tokens,
    )
    assert data["query"]["access_token"] == ["new-token-2"]
    assert tokens.invalidated == ["old-token-1"]
    assert hits("/ok") == 2


def test_token_refused_twice_stops_without_recursing(server: str, policy: HttpPolicy) -> None:
    tokens = Tokens("old-token-1", "new-token-2")
    with pytest.raises(AuthError, match="again after a fresh token"):
        policy.request(
            "GET",
            f"{server}/ok",
            idempotent=True,
            check=refuse("old-token-1", "new-token-2"),
            credential=tokens,
        )
    assert hits("/ok") == 2
    assert tokens.invalidated == ["old-token-1"]


def test_a_fresh_token_refused_as_passing_trouble_is_temporary_and_not_retried(
    server: str, policy: HttpPolicy, fake: FakeTime
) -> None:
    """A platform whose check says what a second refusal means (WeChat: another fetcher
    of the AppID) gets a temporary error saying so; no third token, no third send."""
    tokens = Tokens("old-token-1", "new-token-2", "third-token-3")

    def check(reply: Reply) -> dict[str, Any]:
        data = ok(reply)
        if data["query"]["access_token"][0] != "third-token-3":
            raise CredentialRejected("refused", code=40001, again="refused again: fight")
        return data

    with pytest.raises(TransientError) as caught:
        policy.request("GET", f"{server}/ok", idempotent=True, check=check, credential=tokens)
    assert (str(caught.value), caught.value.exit_code) == ("refused again: fight", 75)
    assert hits("/ok") == 2
    assert tokens.invalidated == ["old-token-1"]
    assert fake.sleeps == []


# --- wire details -----------------------------------------------------------------------


def test_json_is_sent_as_real_utf8(server: str, policy: HttpPolicy) -> None:
    policy.request("POST", f"{server}/ok", idempotent=True, check=ok, json={"title": "作者"})
    assert Misbehaving.bodies[-1] == '{"title": "作者"}'.encode()


def test_reply_json_ignores_content_type(server: str, policy: HttpPolicy) -> None:
    data = policy.request("GET", f"{server}/ok?x=1", idempotent=True, check=ok)  # text/plain
    assert data["query"] == {"x": ["1"]}


def test_reply_json_takes_control_characters_and_stray_bytes_as_wechat_writes_them() -> None:
    # An article listed back with a raw tab and line feed in its content and a byte of
    # GBK: every run failed on the listing as "not JSON" (a proxy's page, it said).
    body = b'{"item":[{"content":"<p>a\tb\nc</p>","title":"' + b"\xb0\xa1" + b'"}]}'
    reply = Reply("POST", "/cgi-bin/draft/batchget", 200, {}, body)
    [item] = reply.json()["item"]
    assert item["content"] == "<p>a\tb\nc</p>" and item["title"] == "\ufffd\ufffd"


def test_session_is_injectable(server: str, fake: FakeTime) -> None:
    session = requests.Session()
    session.headers["X-Test"] = "1"
    session.params = {"from": "session"}
    http = HttpPolicy(session=session, clock=fake.clock, sleep=fake.sleep)
    data = http.request("GET", f"{server}/ok", idempotent=True, check=ok, params={"a": "1"})
    assert data["hits"] == 1 and data["query"] == {"from": ["session"], "a": ["1"]}


class Canned(requests.adapters.BaseAdapter):
    """A transport of a caller's own: answers every request itself, nothing on the wire."""

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        answer = requests.Response()
        answer.status_code = 200
        answer._content = json.dumps({"hits": 1, "url": request.url}).encode()
        answer.request, answer.url = request, str(request.url)
        return answer

    def close(self) -> None:
        pass


def test_a_session_with_a_transport_of_its_own_is_used_whole(fake: FakeTime) -> None:
    session = requests.Session()
    session.mount("http://canned.test/", Canned())
    http = HttpPolicy(session=session, clock=fake.clock, sleep=fake.sleep)
    data = http.request("GET", "http://canned.test/x", idempotent=True, check=ok, params={"a": "1"})
    assert data == {"hits": 1, "url": "http://canned.test/x?a=1"}


# --- redaction ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "GET /cgi-bin/x?access_token=ABC123&type=image",
            "GET /cgi-bin/x?access_token=***&type=image",
        ),
        ('{"appid": "wx1", "secret": "abc"}', '{"appid": "wx1", "secret": "***"}'),
        ("appsecret=abc, z_c0=2|1:0|xyz", "appsecret=***, z_c0=***"),
        ("Cookie: z_c0=abc; _xsrf=def", "Cookie: ***"),
        (f"the value {SECRET} leaked", "the value *** leaked"),
        ("access_token missing", "access_token missing"),
        ("{'access_token': 'T0KEN-x'}", "{'access_token': '***'}"),
        ('secret: "T0KEN-x"', 'secret: "***"'),
        ("x-oss-security-token:STS.T0KEN", "x-oss-security-token:***"),
        (
            '{"AccessKeySecret": "k3y", "SecurityToken": "t0k"}',
            '{"AccessKeySecret": "***", "SecurityToken": "***"}',
        ),
        ("Authorization: OSS LTAI:c2lnbmF0dXJl", "Authorization: ***"),
        (
            "WeChat errcode 45009 on POST /cgi-bin/draft/add",
            "WeChat errcode 45009 on POST /cgi-bin/draft/add",
        ),
    ],
)
def test_redactor_hides_secrets(text: str, expected: str) -> None:
    redact = Redactor()
    redact.register(SECRET)
    assert redact(text) == expected


def test_no_secret_in_messages_or_logs(
    server: str, policy: HttpPolicy, caplog: Any, capsys: Any
) -> None:
    caplog.set_level(logging.DEBUG)

    def leaky(reply: Reply) -> None:
        raise PermanentError(f"platform said: {reply.text}")

    with pytest.raises(PermanentError) as caught:
        policy.request(
            "POST",
            f"{server}/ok?access_token=tok-123456789",
            idempotent=True,
            check=leaky,
            json={"secret": SECRET},
        )
    with pytest.raises(AmbiguousOutcome) as unconfirmed:
        policy.request(
            "POST", f"{server}/503/1?access_token=tok-123456789", idempotent=False, check=ok
        )
    seen = " ".join([str(caught.value), str(unconfirmed.value), caplog.text, *capsys.readouterr()])
    assert "tok-123456789" not in seen
    assert SECRET not in seen
    assert "platform said" in str(caught.value)


def test_redacting_filter_cleans_records_for_any_handler() -> None:
    redact = Redactor()
    redact.register(SECRET)
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "url %s with %s", ("/a?access_token=t0k3n", SECRET), None
    )
    assert RedactingFilter(redact).filter(record)
    assert record.getMessage() == "url /a?access_token=*** with ***"


def test_retry_after_accepts_an_http_date() -> None:
    from email.utils import formatdate

    now = 1_700_000_000.0
    when = formatdate(now + 120, usegmt=True)
    assert retry_after({"Retry-After": when}, lambda: now) == 120
    assert retry_after({"Retry-After": when}, lambda: now + 500) == 0
    assert retry_after({"Retry-After": "soon"}) is None
    assert retry_after({"Retry-After": "inf"}) is None
    assert retry_after({}) is None


def test_a_retry_after_date_is_measured_on_the_injected_wall_clock(
    server: str, fake: FakeTime
) -> None:
    from email.utils import formatdate

    class DatedLimit(Misbehaving):
        def _handle(self) -> None:
            self.send_response(429)
            self.send_header("Retry-After", formatdate(1_700_000_030.0, usegmt=True))
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = _handle

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), DatedLimit)
    threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True).start()
    http = HttpPolicy(clock=fake.clock, sleep=fake.sleep, wall_clock=lambda: 1_700_000_000.0)
    try:
        with pytest.raises(RateLimitedError) as caught:
            url = f"http://127.0.0.1:{httpd.server_address[1]}/x"
            http.request("POST", url, idempotent=False, check=ok)
        assert caught.value.retry_after == 30
    finally:
        httpd.shutdown()
        httpd.server_close()
        http.close()


def test_a_wave_of_uploads_at_once_warns_of_no_full_connection_pool(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from crosspost.channels.http.policy import SPARE_CONNECTIONS
    from crosspost.channels.zhihu.wire import browser_headers
    from crosspost.config.settings import Account
    from crosspost.publish.settle import build_adapter
    from crosspost.sandbox.box import Sandbox

    def hold(seconds: float) -> None:  # the sandbox's latency: wait until all are in flight
        everyone_in.wait(timeout=20)

    with Sandbox(sleep=hold) as box:
        account = Account("zhihu", "main", box.zhihu_url, MappingProxyType({}))
        adapter = build_adapter(
            account, tmp_path, timeout=10, clock=time.time, sleep=lambda seconds: None
        )
        # a full upload wave and the reads beside it, over the adapter's own policy
        at_once = adapter.uploads_at_once(account) + SPARE_CONNECTIONS
        everyone_in = threading.Barrier(at_once)
        box.faults.add("zhihu", "*", "latency:50")
        http = adapter.http
        url = box.zhihu_url + "/api/autocomplete/topics?token=x"
        creds = box.zhihu.credentials()
        login = browser_headers(creds["z_c0"], creds["xsrf"])
        with caplog.at_level(logging.WARNING), ThreadPoolExecutor(at_once) as pool:
            answers = list(
                pool.map(
                    lambda _: http.request(
                        "GET", url, idempotent=True, check=lambda r: r.status, headers=login
                    ),
                    range(at_once),
                )
            )

    assert answers == [200] * at_once
    assert not [r.getMessage() for r in caplog.records if "pool is full" in r.getMessage()]


def test_a_call_after_the_sessions_pools_were_closed_opens_a_new_one(
    server: str, policy: HttpPolicy
) -> None:
    # The policy remembers each origin's pool; a pool the session closed is asked again.
    assert policy.request("GET", f"{server}/ok/0", idempotent=True, check=ok)["hits"] == 1
    policy.session.close()
    assert policy.request("GET", f"{server}/ok/0", idempotent=False, check=ok)["hits"] == 2


def test_a_call_that_succeeds_at_once_neither_waits_nor_logs_a_retry(
    server: str, policy: HttpPolicy, fake: FakeTime, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crosspost")
    assert policy.request("GET", f"{server}/503/0", idempotent=True, check=ok)["hits"] == 1
    assert fake.sleeps == []
    assert not [r for r in caplog.records if r.getMessage().startswith("retry")]
