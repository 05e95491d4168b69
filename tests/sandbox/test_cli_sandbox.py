"""``crosspost sandbox``: starts fast, prints what to use, serves, stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from crosspost.cli import main
from crosspost.commands.sandbox import parse_options

pytestmark = pytest.mark.slow


def _start(*args: str) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "crosspost", "sandbox", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return process, lines


def _read_until(lines: queue.Queue[str], marker: str, deadline: float) -> list[str]:
    seen: list[str] = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        if marker in line:
            return seen
    raise AssertionError(f"{marker!r} not printed in time; got {seen}")


def test_sandbox_serves_what_it_prints_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    process, lines = _start("--state", str(tmp_path), "--fault", "wechat:/cgi-bin/token=http:503*1")
    try:
        banner = _read_until(lines, "faults", time.monotonic() + 10)
        text = "\n".join(banner)
        wechat_url = re.search(r"wechat\s+(http://127\.0\.0\.1:\d+)", text)
        assert wechat_url, text
        curl = re.search(r'curl "(http://[^"]+/cgi-bin/token\?[^"]+)"', text)
        assert curl, text
        # The scripted fault answers first, then the printed curl line gets a token.
        assert requests.get(curl.group(1), timeout=5).status_code == 503
        reply = requests.get(curl.group(1), timeout=5).json()
        assert reply["expires_in"] == 7200
        logged = _read_until(lines, "-> 200", time.monotonic() + 5)
        assert reply["access_token"] not in "\n".join(logged)
        assert "secret=***" in logged[-1]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=5) == 0
        assert "stopped" in "\n".join(_read_until(lines, "stopped", time.monotonic() + 2))
        assert (tmp_path / "wechat.json").exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_sigterm_also_stops_cleanly() -> None:
    process, lines = _start("--quiet")
    try:
        _read_until(lines, "faults", time.monotonic() + 10)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=5) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--fault", "wechat/cgi-bin/token"], "is not PLATFORM:PATH=KIND"),
        (["--option", "verified=false"], "is not PLATFORM.KEY=VALUE"),
        (["--port", "70000"], "is not a port number"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sandbox", "--port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_options_parse_as_json_when_they_can() -> None:
    parsed = parse_options(
        ["wechat.verified=false", "wechat.publish_polls=5", 'zhihu.columns=["a"]', "wechat.x=y"]
    )
    assert parsed == {
        "wechat": {"verified": False, "publish_polls": 5, "x": "y"},
        "zhihu": {"columns": ["a"]},
    }
