"""What the HTTP policy takes from the environment: proxies yes, ``.netrc`` passwords no.

An editor behind a company proxy sets ``HTTPS_PROXY`` and expects crosspost to use it,
and ``NO_PROXY`` to keep some hosts direct. The session reads these once per host
instead of once per request; this holds it to the same answers. A password in
``~/.netrc`` is for the editor's other tools: it never goes to a platform.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from crosspost.channels.http.policy import AmbiguousOutcome, HttpPolicy, Reply, pooled_session
from crosspost.errors import TransientError

from .local_server import serving


class Recorder(BaseHTTPRequestHandler):
    """Answers 200 ``{}`` and keeps each request line's target and headers."""

    seen: ClassVar[list[tuple[str, dict[str, str]]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        type(self).seen.append((self.path, dict(self.headers)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


@pytest.fixture
def recorder() -> Iterator[str]:
    Recorder.seen = []
    with serving(Recorder) as url:
        yield url


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return monkeypatch


def _get(policy: HttpPolicy, url: str) -> None:
    def check(reply: Reply) -> None:
        assert reply.status == 200

    policy.request("GET", url, idempotent=True, check=check)


def test_a_proxy_named_in_the_environment_carries_every_call(
    recorder: str, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("HTTP_PROXY", recorder)
    policy = HttpPolicy()
    try:
        for _ in range(2):  # the second call uses what the first looked up
            _get(policy, "http://api.platform.test/cgi-bin/ping")
    finally:
        policy.close()
    # A proxy is asked for the whole URL; the platform's host was never looked up.
    assert [target for target, _ in Recorder.seen] == ["http://api.platform.test/cgi-bin/ping"] * 2


def test_no_proxy_keeps_a_host_direct(recorder: str, clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    clean_env.setenv("NO_PROXY", "127.0.0.1")
    policy = HttpPolicy()
    try:
        _get(policy, f"{recorder}/direct")
    finally:
        policy.close()
    assert [target for target, _ in Recorder.seen] == ["/direct"]


def test_a_direct_session_takes_no_proxy_from_the_environment(
    recorder: str, clean_env: pytest.MonkeyPatch
) -> None:
    """The built-in sandbox's accounts: their emulators are on this machine's loopback."""
    clean_env.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    clean_env.setenv("ALL_PROXY", "http://127.0.0.1:9")
    policy = HttpPolicy(session=pooled_session(direct=True))
    try:
        _get(policy, f"{recorder}/cgi-bin/stable_token")
    finally:
        policy.close()
    assert [target for target, _ in Recorder.seen] == ["/cgi-bin/stable_token"]


def test_a_netrc_password_never_reaches_a_platform(
    recorder: str, clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    netrc = tmp_path / ".netrc"
    netrc.write_text("machine 127.0.0.1 login editor password hunter2\n", encoding="utf-8")
    netrc.chmod(0o600)
    clean_env.setenv("NETRC", str(netrc))
    policy = HttpPolicy()
    try:
        _get(policy, f"{recorder}/token")
    finally:
        policy.close()
    ((_, headers),) = Recorder.seen
    assert "Authorization" not in headers


def test_a_proxy_that_cannot_be_reached_is_named_without_its_password(
    clean_env: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    clean_env.setenv("HTTP_PROXY", f"http://editor:hunter2@127.0.0.1:{port}")
    policy = HttpPolicy(sleep=lambda seconds: None)
    try:
        with pytest.raises(TransientError) as caught:
            _get(policy, "http://api.platform.test/cgi-bin/stable_token")
        # Nothing reached the platform: a call that creates something is not left in
        # doubt (no reconcile needed), it simply did not happen.
        with pytest.raises(TransientError) as once:
            policy.request(
                "POST", "http://api.platform.test/cgi-bin/draft/add", idempotent=False, check=len
            )
    finally:
        policy.close()
    message = str(caught.value)
    assert f"cannot reach the proxy http://127.0.0.1:{port}" in message
    assert "NO_PROXY" in message and "nothing was sent" in message
    assert message.count("run again later") == 1  # said once, however often it was tried
    assert "hunter2" not in message and "editor" not in message
    assert not isinstance(once.value, AmbiguousOutcome)
    assert "nothing was sent" in str(once.value)
