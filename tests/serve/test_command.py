"""``crosspost serve`` as a person starts it: a process that prints its address quickly."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from crosspost.cli import build_parser
from publisher.world import REPO_ROOT, base_env

#: The issue asks for under a second; a machine shared by many test runs gets slack.
START_BOUND = 5.0


@pytest.mark.slow
def test_serve_examples_starts_quickly_and_prints_one_address(tmp_path: Path) -> None:
    env = {**base_env(), "HOME": str(tmp_path), "CROSSPOST_STATE_DIR": str(tmp_path / "state")}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "crosspost", "serve", "examples/", "--port", "0"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        took = time.monotonic() - started
        print(f"crosspost serve examples/ printed its address after {took:.2f} s")
        assert line.startswith("crosspost serve: http://127.0.0.1:"), line
        assert took < START_BOUND
        url = line.split(": ", 1)[1].strip()
        base, _, token = url.partition("/?token=")
        assert len(token) >= 40
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with browser.open(url, timeout=30) as answer:  # the cookie, then the week
            assert answer.status == 200
            assert "AI系统前沿动态 第48期" in answer.read().decode("utf-8")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/", timeout=30)
        assert refused.value.code == 403
        refused.value.close()
        guess = token[:-1] + ("A" if token[-1] != "A" else "B")  # the token with a typo
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/?week=1&token={guess}", timeout=30)
        refused.value.close()
    finally:
        process.terminate()
        _, log = process.communicate(timeout=30)
    # The request log on standard error shows each visit, never the token's value (the
    # address with it was printed once, on standard output, for the editor to open).
    log = re.sub(r"\x1b\[[0-9;]*m", "", log)  # werkzeug's colours
    assert '"GET /?token=… HTTP/1.1" 303' in log, log
    assert '"GET /?week=1&token=… HTTP/1.1" 403' in log, log
    assert token not in log and guess not in log and token[:12] not in log


def test_the_command_listens_on_this_machine_only_unless_told() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.open, args.targets) == ("127.0.0.1", 8780, False, [])
    args = build_parser().parse_args(["serve", "a.md", "b", "--host", "0.0.0.0", "--open"])
    assert args.host == "0.0.0.0" and args.open and [str(t) for t in args.targets] == ["a.md", "b"]


def test_the_desk_and_the_sandbox_do_not_share_a_default_port() -> None:
    """An editor writes in the desk while a rehearsal runs against `crosspost sandbox`,
    whose WeChat listens on its port and Zhihu on the next (docs/sandbox.md)."""
    serve = build_parser().parse_args(["serve"]).port
    sandbox = build_parser().parse_args(["sandbox"]).port
    assert serve not in (sandbox, sandbox + 1)


def test_a_port_in_use_is_one_line_and_exit_2_as_the_sandbox_says_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crosspost.cli import main
    from crosspost.sandbox.box import Sandbox

    with Sandbox() as box:  # something already listens: the sandbox's emulators
        port = int(box.wechat_url.rpartition(":")[2])
        expected = (
            f"crosspost: error: cannot listen on 127.0.0.1:{port} (Address already in use); "
            "choose another --port (0 picks a free one)\n"
        )
        argv = ["serve", str(tmp_path), "--port", str(port), "--state-dir", str(tmp_path)]
        assert main(argv) == 2
        assert capsys.readouterr() == ("", expected)

        env = {**base_env(), "HOME": str(tmp_path)}
        sandbox = subprocess.run(
            [sys.executable, "-m", "crosspost", "sandbox", "--port", str(port)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (sandbox.returncode, sandbox.stdout, sandbox.stderr) == (2, "", expected)


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (["--port", "70000"], "--port 70000 is not a port number (0 to 65535)"),
        (
            ["--host", "192.0.2.1", "--port", "0"],  # TEST-NET-1: no machine's own address
            "cannot listen on 192.0.2.1:0 (Cannot assign requested address); --host must be "
            "an address of this machine, e.g. 127.0.0.1",
        ),
    ],
    ids=["no port", "not this machine"],
)
def test_an_address_it_cannot_listen_on_is_one_line_and_exit_2(
    flags: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crosspost.cli import main

    assert main(["serve", str(tmp_path), "--state-dir", str(tmp_path), *flags]) == 2
    assert capsys.readouterr() == ("", f"crosspost: error: {line}\n")


def test_a_missing_folder_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crosspost.cli import main

    code = main(["serve", str(tmp_path / "nowhere"), "--state-dir", str(tmp_path)])
    assert code == 2
    assert "nowhere: no such file or folder of issues" in capsys.readouterr().err


def test_the_desk_is_built_once_whoever_asks_first() -> None:
    from crosspost.commands.serve import _Deferred

    built: list[int] = []

    def build() -> Any:
        built.append(1)
        return lambda environ, start_response: [b"desk"]

    app = _Deferred(build)
    assert built == []  # nothing loaded before the address is printed
    assert app({}, lambda *a: None) == [b"desk"]
    assert app.ready() is app.ready()
    assert built == [1]
