"""When the way to a platform is wrong, the line an operator reads says which part.

A mistyped host in ``base_url`` is not a refused connection; a path left in ``base_url``
is not a missing endpoint on the platform; a proxy's or a firewall's HTML page is not
Zhihu changing its API; and a ``--sandbox`` rehearsal never meets the proxy at all. Each
case runs ``crosspost publish`` through ``crosspost.cli.main`` against the sandbox and
checks the exact line printed, the exit code and what reached the platform.
"""

from __future__ import annotations

import re
import socket
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import pytest

from channels.local_server import serving
from crosspost.cli import main
from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY

from .world import ISSUE_ID, World, mutating, write_config

TOKEN = "/cgi-bin/stable_token"


def publish(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[str]]:
    """``crosspost publish`` of the world's issue: its exit code and the lines of stderr."""
    world.use_env(monkeypatch)
    code = main(["publish", str(world.issue), *args])
    return code, capsys.readouterr().err.splitlines()


def test_a_mistyped_host_in_base_url_is_named_as_a_host_that_does_not_resolve(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(world.root, world.box)
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(f'"{world.box.wechat_url}"', '"http://api.weixn.invalid"'), encoding="utf-8"
    )

    code, lines = publish(world, monkeypatch, capsys, "-c", "wechat")

    assert code == EXIT_TEMPORARY  # DNS may be down: safe to run again
    why = (
        "cannot connect for POST /cgi-bin/stable_token (the host name api.weixn.invalid "
        "cannot be resolved: check base_url in the config for a typo; if it is right, DNS "
        "is down); nothing was sent, run again later"
    )
    retries = [re.sub(r"after [0-9.]+ s", "after … s", line) for line in lines if "retry" in line]
    assert retries == [f"crosspost: warning: retry {n} of 3 after … s: {why}" for n in (1, 2, 3)]
    assert lines[-1] == (
        f"wechat:main  {ISSUE_ID}: {why} (gave up after 4 attempts) (temporary: safe to run again)"
    )
    assert world.box.requests == []  # nothing reached any platform


def test_a_page_in_the_way_of_zhihus_login_check_is_temporary_and_the_next_run_publishes(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A company proxy or a web firewall answers 403 with its own HTML page: nothing
    Zhihu said, so the post is not failed for good and the next run goes on."""
    world.box.faults.add("zhihu", "/api/v4/me", "http:403", count=4)  # every attempt of a run

    code, lines = publish(world, monkeypatch, capsys, "-c", "zhihu", "--mode", "publish")

    assert code == EXIT_TEMPORARY
    assert lines[-1] == (
        f"zhihu:main  {ISSUE_ID}: "
        'Zhihu GET /api/v4/me: an HTML page came back (HTTP 403, "403 Forbidden") '
        "instead of Zhihu's JSON, so a proxy, firewall or login page is in the way; run again "
        "later, and if it repeats, check the proxy settings and the firewall (gave up after 4 "
        "attempts) (temporary: safe to run again)"
    )
    assert mutating(world.box) == []  # stopped at the login check: nothing was created

    code, lines = publish(world, monkeypatch, capsys, "-c", "zhihu", "--mode", "publish")

    assert code == EXIT_OK, lines
    assert len(world.published_on("zhihu")) == 1


class Proxy(BaseHTTPRequestHandler):
    """A proxy that lets nothing through: it keeps every request it gets and answers 502."""

    seen: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _refuse(self) -> None:
        type(self).seen.append(f"{self.command} {self.path}")
        self.send_response(502)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_PUT = do_PATCH = do_CONNECT = _refuse


@pytest.mark.parametrize("proxy", ["unreachable", "listening"])
def test_a_sandbox_rehearsal_never_goes_through_the_environments_proxy(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    proxy: str,
) -> None:
    """README: the built-in sandbox needs no credentials and nothing leaves the machine,
    whatever proxy the shell names for the real platforms."""
    Proxy.seen = []
    with serving(Proxy) as listening, socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        address = (
            listening if proxy == "listening" else f"http://127.0.0.1:{closed.getsockname()[1]}"
        )
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            monkeypatch.setenv(name, address)
            monkeypatch.setenv(name.lower(), address)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)

        code, lines = publish(world, monkeypatch, capsys, "--sandbox", "--mode", "draft")

    assert code == EXIT_OK, lines
    assert Proxy.seen == []
    assert world.box.requests == []  # the configured accounts were not used either


def aim(world: World, channel: str, base_url: str) -> None:
    """Point the channel's account of the world's config at ``base_url``."""
    own = world.box.wechat_url if channel == "wechat" else world.box.zhihu_url
    text = write_config(world.root, world.box).read_text(encoding="utf-8")
    world.config.write_text(text.replace(f'"{own}"', f'"{base_url}"'), encoding="utf-8")


def test_a_path_in_wechats_base_url_is_named_when_wechat_knows_no_such_call(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    host = world.box.wechat_url
    aim(world, "wechat", f"{host}/cgi-bin")

    code, lines = publish(world, monkeypatch, capsys, "-c", "wechat")

    assert code == EXIT_CHANNEL_FAILED
    assert lines[-1] == (
        f"wechat:main  {ISSUE_ID}: "
        "WeChat errcode 404 (no such api /cgi-bin/cgi-bin/stable_token) on POST "
        "/cgi-bin/cgi-bin/stable_token; check base_url in the config: it should be the host "
        f"only ({host}), without /cgi-bin"
    )
    assert [f"{r.method} {r.path}" for r in world.box.requests] == [
        "POST /cgi-bin/cgi-bin/stable_token"  # once: a 404 is not worth a retry
    ]

    aim(world, "wechat", host)  # fixed: a changed config is tried again at once
    code, lines = publish(world, monkeypatch, capsys, "-c", "wechat", "--mode", "publish")
    assert code == EXIT_OK, lines
    assert len(world.published_on("wechat")) == 1


def test_a_path_in_zhihus_base_url_is_named_when_zhihu_finds_nothing_there(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    host = world.box.zhihu_url
    aim(world, "zhihu", f"{host}/zhihu/")

    code, lines = publish(world, monkeypatch, capsys, "-c", "zhihu")

    assert code == EXIT_CHANNEL_FAILED
    assert lines[-1] == (
        f"zhihu:main  {ISSUE_ID}: "
        "Zhihu 404 (资源不存在) on GET /zhihu/api/v4/me: Zhihu found nothing at "
        f"this address; check base_url in the config: it should be the host only ({host}), "
        "without /zhihu"
    )
    assert [f"{r.method} {r.path}" for r in world.box.requests] == ["GET /zhihu/api/v4/me"]
