"""A scheduling desk: a sandbox, a config aimed at it, a folder of issues, a state dir.

Nothing reads the user's real configuration: config, environment, ``HOME`` and state all
live in ``tmp_path``. Ticks run three ways: :meth:`Desk.tick` through the library on a
:class:`ManualClock` shared with the sandbox (waits cost nothing, time moves by hand),
:meth:`Desk.cli` through ``crosspost.cli.main`` in this process, and :meth:`Desk.spawn`
as ``python -m crosspost run-due`` processes (overlap, SIGKILL).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from crosspost.config.settings import Settings, load_settings
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock
from crosspost.sandbox.session import DEMO_OPTIONS
from crosspost.schedule.tick import DueOptions, DueReport, run_due
from publisher.world import base_env, sandbox_env, sandbox_secrets, use_env, write_config

#: A body long enough for Zhihu's 9-character minimum.
MINIMAL_BODY = "这是一段足够长的正文,用来通过知乎的最少字数检查。\n"


def make_jpeg(path: Path, size: tuple[int, int]) -> None:
    from PIL import Image

    if not path.exists():
        Image.new("RGB", size, (40, 90, 160)).save(path, "JPEG")


#: 2026-11-23 01:00 UTC (09:00 in Beijing): the moment the tests' clock starts at.
T0 = datetime(2026, 11, 23, 1, 0, tzinfo=UTC).timestamp()
#: The irreversible calls (a second one of these would be a second post).
CREATES = {"wechat": "/cgi-bin/draft/add", "zhihu": "/api/articles/drafts"}
SUBPROCESS_TIMEOUT = 90.0
BEIJING = timezone(timedelta(hours=8))


def at(seconds_from_t0: float) -> str:
    """An ISO-8601 time (Beijing offset) ``seconds_from_t0`` after :data:`T0`."""
    moment = datetime.fromtimestamp(T0 + seconds_from_t0, tz=UTC)
    return moment.astimezone(BEIJING).isoformat()


@dataclass
class Desk:
    """The editor's desk: the sandbox, the config, the issue folder and the clock."""

    root: Path
    box: Sandbox
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    issues: Path
    state_dir: Path
    env: dict[str, str]

    def write(
        self,
        name: str,
        publish_at: str | None,
        *,
        channels: str = "[wechat, zhihu]",
        body: str = MINIMAL_BODY,
        extra: str = "",
    ) -> Path:
        """An issue file in the folder (``publish_at`` None: not scheduled)."""
        path = self.issues / f"{name}.md"
        make_jpeg(self.issues / "cover.jpg", (900, 383))
        when = f"publish_at: {publish_at}\n" if publish_at else ""
        path.write_text(
            f"---\nid: {name}\ntitle: 第{name}期\nauthor: 编辑部\ndigest: 一句话摘要\n"
            f"cover: cover.jpg\n{when}channels: {channels}\n{extra}---\n{body}",
            encoding="utf-8",
        )
        return path

    def settings(self, **flags: Any) -> Settings:
        return load_settings(flags, environ=self.env, cwd=self.root, home=self.root)

    def tick(self, **options: Any) -> DueReport:
        """One tick through the library, on the desk's clock and sleep."""
        options.setdefault("dirs", (self.issues,))
        return run_due(self.settings(), DueOptions(**options), clock=self.clock, sleep=self.sleep)

    def posts(self) -> dict[str, PostRecord]:
        """The ledger's posts, by ``issue channel``."""
        with Ledger.open(self.state_dir / "ledger.sqlite3", clock=self.clock) as ledger:
            return {f"{p.issue_id} {p.channel}": p for p in ledger.posts()}

    def events(self, issue_id: str, channel: str) -> list[Any]:
        """The ledger's events of one post."""
        with Ledger.open(self.state_dir / "ledger.sqlite3", clock=self.clock) as ledger:
            return [
                e for e in ledger.events() if (e.key.issue_id, e.key.channel) == (issue_id, channel)
            ]

    def creates(self, channel: str) -> int:
        return sum(1 for r in self.box.requests if r.path == CREATES[channel])

    def secrets(self) -> list[str]:
        return sandbox_secrets(self.box)

    def use_env(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Make this process a shell at the desk, for ``cli.main`` tests."""
        use_env(self.env, self.root, monkeypatch)

    def spawn(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """``python -m crosspost run-due ARGS`` as a process of its own."""
        full = base_env()
        full.update(self.env)
        full.update(env or {})
        return subprocess.Popen(
            [sys.executable, "-m", "crosspost", "run-due", str(self.issues), *args],
            cwd=self.root,
            env=full,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        process = self.spawn(*args, env=env)
        out, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def build_desk(
    root: Path, box: Sandbox, clock: Callable[[], float], sleep: Callable[[float], None]
) -> Desk:
    issues = root / "issues"
    issues.mkdir()
    state_dir = root / "state"
    schedule = (
        f'state_dir = "{state_dir}"\n\n[schedule]\nissue_dirs = ["{issues}"]\ngrace = "24h"\n'
    )
    env = sandbox_env(root, box, write_config(root, box, top=schedule), max_sleep="0.01")
    return Desk(root, box, clock, sleep, issues, state_dir, env)


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    """A sandbox and the scheduler sharing one :class:`ManualClock` starting at :data:`T0`."""
    clock = ManualClock(start=T0)
    with Sandbox(clock=clock, sleep=clock.sleep) as box:
        yield build_desk(tmp_path, box, clock, clock.sleep)


@pytest.fixture
def live_desk(tmp_path: Path) -> Iterator[Desk]:
    """A sandbox on the real clock, answering at once, for ticks run as processes."""
    with Sandbox(options=DEMO_OPTIONS) as box:
        yield build_desk(tmp_path, box, time.time, time.sleep)
