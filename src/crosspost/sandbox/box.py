"""Local emulators of the WeChat and Zhihu publishing APIs, with fault injection.

>>> with Sandbox() as box:                                     # doctest: +SKIP
...     requests.get(f"{box.wechat_url}/cgi-bin/token", params={...})
...     box.faults.add("wechat", "/cgi-bin/draft/add", "commit_then_drop", count=1)

Both emulators run as real HTTP servers on loopback (ephemeral ports unless given), one
thread per connection. ``options`` is ``{"wechat": {...}, "zhihu": {...}}`` (see each
emulator's module docstring); ``state_dir`` keeps ``wechat.json`` and ``zhihu.json`` so
the platforms' state survives a restart. The Zhihu emulator is optional: without
``crosspost.sandbox.zhihu.app`` the sandbox serves WeChat alone.
"""

from __future__ import annotations

import importlib
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from crosspost.sandbox.base import Emulator
from crosspost.sandbox.clock import ManualClock, OffsetClock
from crosspost.sandbox.faults import Fault, FaultBook, parse_fault
from crosspost.sandbox.requestlog import LoggedRequest, RequestLog
from crosspost.sandbox.server import EmulatorServer
from crosspost.sandbox.wechat.app import WeChatEmulator, local_image_url

__all__ = [
    "Emulator",
    "Fault",
    "FaultBook",
    "LoggedRequest",
    "ManualClock",
    "Sandbox",
    "parse_fault",
]

PLATFORMS = ("wechat", "zhihu")


def _emulator_class(platform: str) -> type[Emulator] | None:
    """The emulator class of a platform, or None when its module is not installed.

    Zhihu's is looked up when the sandbox starts, so that a build without it still
    serves WeChat."""
    if platform == "wechat":
        return WeChatEmulator
    module_name = "crosspost.sandbox.zhihu.app"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None
    cls: type[Emulator] = module.ZhihuEmulator
    return cls


def _options_for(platform: str, options: Mapping[str, Any]) -> dict[str, Any]:
    own = options.get(platform)
    if isinstance(own, Mapping):
        return dict(own)
    return {k: v for k, v in options.items() if k not in PLATFORMS}


class Sandbox:
    """Both emulators on loopback, sharing one fault book, one request log and one clock.

    ``tls``: a server context to serve HTTPS with (see :mod:`crosspost.sandbox.tls`);
    plain HTTP without one.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        options: Mapping[str, Any] | None = None,
        state_dir: Path | None = None,
        host: str = "127.0.0.1",
        wechat_port: int = 0,
        zhihu_port: int = 0,
        on_request: Callable[[LoggedRequest], None] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        # A clock the control endpoint can move: a ManualClock moves itself, any other
        # clock gets an offset on top.
        self.clock: ManualClock | OffsetClock = (
            clock if isinstance(clock, ManualClock | OffsetClock) else OffsetClock(clock)
        )
        self.sleep = sleep
        self.faults = FaultBook()
        self.log = RequestLog(on_request)
        self.state_dir = Path(state_dir) if state_dir else None
        self.servers: dict[str, EmulatorServer] = {}
        ports = {"wechat": wechat_port, "zhihu": zhihu_port}
        for platform in PLATFORMS:
            cls = _emulator_class(platform)
            if cls is None:
                continue
            emulator = cls(clock=self.clock, options=_options_for(platform, options or {}))
            self.servers[platform] = EmulatorServer(
                emulator,
                faults=self.faults,
                log=self.log,
                sleep=sleep,
                host=host,
                port=ports[platform],
                state_file=self.state_dir / f"{platform}.json" if self.state_dir else None,
                advance_clock=self.clock.advance,
                clock=self.clock,
                tls=tls,
            )
        self._running = False

    # --- life cycle ------------------------------------------------------------------

    def start(self) -> Sandbox:
        """Bind and serve; stops what already started if a port is taken.

        The HTML parser both platforms read articles with is loaded and run once here,
        before the first request, as a long-running server has it warm: otherwise the
        first draft or publish of each sandbox would also pay the import and the parser's
        first use (0.05–0.1 s), a cost no real platform adds to a round trip. Each
        emulator warms its own parts too (:meth:`Emulator.warm`).
        """
        from bs4 import BeautifulSoup

        BeautifulSoup('<p><a href="x">x</a></p>', "html.parser").get_text()
        for server in self.servers.values():
            server.emulator.warm()

        started: list[EmulatorServer] = []
        try:
            for server in self.servers.values():
                server.start()
                started.append(server)
        except BaseException:
            for server in started:
                server.stop()
            raise
        self._running = True
        return self

    def stop(self) -> None:
        """Stop both servers and save their state (idempotent)."""
        if self._running:
            # Side by side: each server's loop takes up to one poll interval to notice.
            # An error saving the state (a full disk) is raised here, in the caller's
            # thread, where the CLI turns it into one line; in a stopper it would be a
            # traceback on stderr.
            errors: list[BaseException] = []

            def stop(server: EmulatorServer) -> None:
                try:
                    server.stop()
                except BaseException as error:  # handed to the caller below
                    errors.append(error)

            stoppers = [threading.Thread(target=stop, args=(s,)) for s in self.servers.values()]
            for stopper in stoppers:
                stopper.start()
            for stopper in stoppers:
                stopper.join()
            self._running = False
            if errors:
                raise errors[0]

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- what tests and the CLI use ------------------------------------------------------

    def _server(self, platform: str) -> EmulatorServer:
        try:
            return self.servers[platform]
        except KeyError:
            raise RuntimeError(f"the {platform} emulator is not installed") from None

    @property
    def wechat_url(self) -> str:
        """Base URL of the WeChat emulator (replaces https://api.weixin.qq.com)."""
        return self._server("wechat").url

    @property
    def zhihu_url(self) -> str:
        """Base URL of the Zhihu emulator (replaces all four Zhihu hosts)."""
        return self._server("zhihu").url

    @property
    def wechat(self) -> Any:
        """The WeChat emulator (``credentials()``, ``snapshot()``, options, state)."""
        return self._server("wechat").emulator

    @property
    def zhihu(self) -> Any:
        """The Zhihu emulator."""
        return self._server("zhihu").emulator

    @property
    def requests(self) -> list[LoggedRequest]:
        """Every request both servers saw, in order, secrets redacted."""
        return self.log.entries()

    def url(self, platform: str) -> str:
        """The base URL of one platform's server."""
        return self._server(platform).url

    def wechat_image_url(self, mmbiz_url: str) -> str:
        """Where this sandbox serves an ``http://mmbiz.qpic.cn/…`` URL it handed out."""
        return local_image_url(mmbiz_url, self.wechat_url)

    def commit_due(self) -> int:
        """Apply every ``slow_answer`` request whose time has come, on both platforms."""
        return sum(server.commit_due() for server in self.servers.values())

    def add_fault(self, spec: str) -> Fault:
        """Arm a fault written the ``--fault`` way (``wechat:/cgi-bin/token=http:503*1``)."""
        return self.faults.add_fault(parse_fault(spec))
