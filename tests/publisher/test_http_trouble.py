"""When the way to a platform is wrong, the line an operator reads says which part.

A mistyped host in ``base_url`` is not a refused connection; a path left in ``base_url``
is not a missing endpoint on the platform. Each case runs ``crosspost publish`` through
``crosspost.cli.main`` against the sandbox and checks the exact line printed, the exit
code and what reached the platform.
"""

from __future__ import annotations

import re

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_TEMPORARY

from .world import World, write_config

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
        f"wechat:main: {why} (gave up after 4 attempts) (temporary: safe to run again)"
    )
    assert world.box.requests == []  # nothing reached any platform
