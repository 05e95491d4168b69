"""Fixtures of the editor's desk: issue folders, settings aimed at a sandbox or at nothing,
and a desk served on a free port for the browser tests (Chromium from ``tests/fidelity``)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.test import Client

from crosspost.config.settings import Settings, load_settings
from crosspost.preview.desk import COOKIE, Desk
from crosspost.preview.watch import Watcher
from fidelity.conftest import browser, chromium  # noqa: F401  (one Chromium per module)
from publisher.world import EXAMPLE_DIR, write_config

#: The desk's "now" in the tests: a Monday morning in Beijing.
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=timezone(timedelta(hours=8)))


def plain_settings(root: Path, **flags: object) -> Settings:
    """Settings of a machine with no config file, no credentials, its state in ``root``."""
    env = {"HOME": str(root), "CROSSPOST_STATE_DIR": str(root / "state")}
    return load_settings(dict(flags), environ=env, cwd=root, home=root)


def copy_example(folder: Path, name: str = "ai-systems-48", **front: str) -> Path:
    """The example issue (and its images) in ``folder/name``; ``front`` replaces fields."""
    target = folder / name
    shutil.copytree(EXAMPLE_DIR, target, ignore=shutil.ignore_patterns("*.py"))
    issue = target / "issue.md"
    text = issue.read_text("utf-8")
    for key, value in front.items():
        lines = text.splitlines(keepends=True)
        lines = [f"{key}: {value}\n" if line.startswith(f"{key}:") else line for line in lines]
        text = "".join(lines)
    issue.write_text(text, "utf-8")
    return issue


def entered(desk: Desk) -> Client:
    """A test client holding the desk's cookie, as a browser does after the first visit."""
    client = Client(desk)
    client.set_cookie(COOKIE, desk.token)
    return client


@dataclass
class Served:
    """A desk listening on a free port of 127.0.0.1, in a thread of this process."""

    desk: Desk
    server: BaseWSGIServer

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    @property
    def entry(self) -> str:
        """The address ``crosspost serve`` prints: the token in the URL."""
        return f"{self.base}/?token={self.desk.token}"


@pytest.fixture
def serve() -> Iterator[Callable[[Desk], Served]]:
    """Start desks; each stops when the test ends."""
    started: list[tuple[BaseWSGIServer, threading.Thread]] = []

    def start(desk: Desk) -> Served:
        server = make_server("127.0.0.1", 0, desk, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        started.append((server, thread))
        return Served(desk, server)

    yield start
    for server, thread in started:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


#: A watcher that looks often and answers "nothing new" soon, so a test's page settles.
QUICK = Watcher(interval=0.05, hold=2.0)


@pytest.fixture
def sandbox_settings(tmp_path: Path) -> Iterator[tuple[Settings, object]]:
    """Settings with a WeChat account (API credentials) aimed at a fresh sandbox."""
    from crosspost.sandbox.box import Sandbox

    with Sandbox() as box:
        config = write_config(tmp_path, box)
        credentials = box.wechat.credentials()
        env = {
            "HOME": str(tmp_path),
            "CROSSPOST_CONFIG": str(config),
            "CROSSPOST_STATE_DIR": str(tmp_path / "state"),
            "WECHAT_APP_ID": credentials["app_id"],
            "WECHAT_APP_SECRET": credentials["app_secret"],
        }
        yield load_settings({}, environ=env, cwd=tmp_path, home=tmp_path), box


def clock_at(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment
