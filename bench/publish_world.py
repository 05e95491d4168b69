"""One publish against a fresh sandbox, timed, with its request log: the publish benchmarks' rig.

Each :func:`rig` starts its own sandbox and state directory, so no token, upload cache or
ledger row carries over unless the caller publishes twice with the same :class:`Rig` (the
request-economy benchmark does). The publisher is the real one; only its pauses between
polls are zero (the injected ``sleep``), while the sandbox's latency is a real
``time.sleep`` on the server, so wall time is what an editor would wait on a network with
that round-trip time.

By default each platform's sandbox runs in a process of its own (``python
publish_world.py``, which prints its URLs and credentials as one JSON line and serves
until its stdin closes): the platforms' own work then competes neither with the
publisher nor with the other platform for one GIL, as it would not in real life. Faults
are armed by those processes; the request logs are read over the sandboxes' control
endpoints.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import requests

from crosspost.config.settings import Account, Secret, Settings, load_settings
from crosspost.ledger.store import Ledger
from crosspost.publish.jobs import PublishOptions, PublishReport
from crosspost.publish.runner import Publisher
from crosspost.sandbox.box import Emulator, LoggedRequest, Sandbox
from crosspost.sandbox.tls import Certificate

PLATFORMS = ("wechat", "zhihu")
#: Sandbox options of the benchmark: the emulators' defaults, spelt out so the chain
#: printed beside the figures says how many polls it counts.
#: Fifty figures take some 31,000 characters of WeChat HTML, past the 20,000 WeChat takes:
#: the benchmark times the protocol, so its sandbox takes longer articles.
SANDBOX_OPTIONS: dict[str, dict[str, Any]] = {
    "wechat": {"publish_polls": 2, "content_max_chars": 200_000},
    "zhihu": {"image_polls": 1},
}
#: Uploads of an image, per platform (WeChat: one call; Zhihu: I1 announces each image).
UPLOAD_PATHS = {
    "wechat": ("/cgi-bin/media/uploadimg", "/cgi-bin/material/add_material"),
    "zhihu": ("/images",),
}
_ID = re.compile(r"(?<=/)(?:v2-[0-9a-f]{32}|[0-9]{6,})(?=/|$)")
_LOG = "/__sandbox__/requests"
CA_BUNDLE = "REQUESTS_CA_BUNDLE"


@dataclass(frozen=True)
class Run:
    """One publish: wall seconds, how every post ended, and what the sandbox saw."""

    seconds: float
    states: tuple[str, ...]
    requests: tuple[LoggedRequest, ...]
    mutating: tuple[LoggedRequest, ...]

    def by_endpoint(self) -> Counter[str]:
        """Requests per ``platform METHOD path`` (ids in paths written ``{id}``)."""
        return Counter(f"{r.platform} {r.method} {_ID.sub('{id}', r.path)}" for r in self.requests)

    def uploads(self, platform: str) -> int:
        """Images this run uploaded (or announced, on Zhihu) to one platform."""
        paths = UPLOAD_PATHS[platform]
        return sum(
            1
            for r in self.requests
            if r.platform == platform and r.method == "POST" and r.path in paths
        )


@dataclass
class Rig:
    """Settings aimed at a running sandbox, a state directory, and the sandbox's log."""

    urls: dict[str, str]
    settings: Settings
    #: Emulators that are not served, only asked which calls change something.
    judges: dict[str, Emulator]
    #: The sandbox's credentials by platform, for a ``crosspost`` process's environment.
    credentials: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    home: Path = Path()

    def log(self) -> list[LoggedRequest]:
        """Both servers' request logs, in time order."""
        entries = []
        for url in self.urls.values():
            answer = requests.get(url + _LOG, timeout=10)
            answer.raise_for_status()
            entries += [LoggedRequest(**row) for row in answer.json()["requests"]]
        return sorted(entries, key=lambda entry: entry.at)

    def clear_log(self) -> None:
        """Forget the requests seen so far (each timed publish reads only its own)."""
        for url in self.urls.values():
            requests.delete(url + _LOG, timeout=10).raise_for_status()

    def cli(self, issue: Path, *, poll_pauses: bool) -> float:
        """``crosspost publish --mode publish ISSUE`` as an editor runs it: wall seconds
        from process start to exit. Without ``poll_pauses`` the publisher's pauses between
        WeChat's status polls are capped at zero (``CROSSPOST_MAX_SLEEP``)."""
        self.clear_log()
        config = self.home / "crosspost.toml"
        config.write_text(
            "\n".join(
                [
                    'mode = "publish"',
                    "[channels.wechat.accounts.main]",
                    'app_id_env = "WECHAT_APP_ID"',
                    'app_secret_env = "WECHAT_APP_SECRET"',
                    f'base_url = "{self.urls["wechat"]}"',
                    "[channels.zhihu.accounts.main]",
                    'cookie_env = "ZHIHU_Z_C0"',
                    'xsrf_env = "ZHIHU_XSRF"',
                    f'base_url = "{self.urls["zhihu"]}"',
                    "",
                ]
            ),
            encoding="utf-8",
        )
        wechat, zhihu = self.credentials["wechat"], self.credentials["zhihu"]
        environ = {
            # PYTHONPATH too: a worktree run as ``PYTHONPATH=src`` times its own code in
            # the CLI rows, not whatever the venv's editable install points at.
            **{
                k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "PYTHONPATH")
            },
            "HOME": str(self.home),
            "CROSSPOST_CONFIG": str(config),
            "CROSSPOST_STATE_DIR": str(self.home / "cli-state"),
            "WECHAT_APP_ID": wechat["app_id"],
            "WECHAT_APP_SECRET": wechat["app_secret"],
            "ZHIHU_Z_C0": zhihu["z_c0"],
            "ZHIHU_XSRF": zhihu["xsrf"],
            **({CA_BUNDLE: os.environ[CA_BUNDLE]} if CA_BUNDLE in os.environ else {}),
        }
        if not poll_pauses:
            environ["CROSSPOST_MAX_SLEEP"] = "0"
        script = Path(sys.executable).parent / "crosspost"
        command = [str(script)] if script.is_file() else [sys.executable, "-m", "crosspost"]
        started = time.perf_counter()
        done = subprocess.run(
            [*command, "publish", "-q", "--mode", "publish", str(issue)],
            env=environ,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"benchmark CLI publish failed: {done.stdout}{done.stderr}")
        return seconds

    def publish(self, issue: Path, targets: Sequence[str] = (), mode: str = "publish") -> Run:
        """Plan (not timed: render and lint happen before any request), then run, timed."""
        self.clear_log()
        options = PublishOptions(targets=tuple(targets), mode=mode)
        with Ledger.open(self.settings.ledger_path) as ledger:
            publisher = Publisher(self.settings, ledger, sleep=lambda seconds: None)
            jobs = publisher.plan([issue], options)
            started = time.perf_counter()
            report: PublishReport = publisher.run(jobs, options)
            seconds = time.perf_counter() - started
        for result in report.results:
            if result.exit_code:
                raise RuntimeError(f"benchmark publish failed: {result.key} {result.message}")
        seen = tuple(self.log())
        mutating = tuple(r for r in seen if self.judges[r.platform].is_mutating(r.method, r.path))
        return Run(seconds, tuple(r.state for r in report.results), seen, mutating)


@contextmanager
def _start(
    latency_ms: int, in_process: bool, setup_ms: int, tls: Certificate | None
) -> Iterator[tuple[dict[str, str], dict[str, Any]]]:
    """Yield the sandbox's base URLs and credentials while it runs."""
    if in_process:
        context = tls.server_context() if tls else None
        with Sandbox(options=SANDBOX_OPTIONS, tls=context) as box:
            arm(box, latency_ms, setup_ms)
            yield (
                {p: box.url(p) for p in PLATFORMS},
                {"wechat": box.wechat.credentials(), "zhihu": box.zhihu.credentials()},
            )
        return
    # One process per platform, as WeChat's servers and Zhihu's are not the same machines:
    # one platform's work (WeChat reading a draft's HTML) then does not hold up the other's
    # answers behind one GIL. Each process runs a whole sandbox; only its own platform's
    # URL is used. As context managers, the Popens close their pipes and wait for the
    # processes: nothing of a rig stays open in this process once the rig is done.
    with ExitStack() as stack:
        servers = {}
        for platform in PLATFORMS:  # both start at once; each says hello when it serves
            server = stack.enter_context(
                subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        str(latency_ms),
                        str(setup_ms),
                        *((str(tls.cert), str(tls.key)) if tls else ()),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
            assert server.stdin is not None and server.stdout is not None
            stack.callback(server.wait, timeout=30)
            stack.callback(server.stdin.close)  # the server's signal to stop
            servers[platform] = server.stdout
        hellos = {platform: json.loads(out.readline()) for platform, out in servers.items()}
        yield (
            {platform: hello["urls"][platform] for platform, hello in hellos.items()},
            {platform: hello["credentials"][platform] for platform, hello in hellos.items()},
        )


@contextmanager
def rig(
    latency_ms: int,
    *,
    in_process: bool = False,
    setup_ms: int = 0,
    tls: Certificate | None = None,
) -> Iterator[Rig]:
    """A fresh sandbox with ``latency_ms`` on every request (and ``setup_ms`` more on a
    new connection's first, counted from its accept: TCP and TLS), and settings with one
    account per platform aimed at it (no config file, no environment of the caller's).

    ``tls``: the sandbox serves HTTPS with this certificate (see
    :func:`crosspost.sandbox.tls.throwaway_certificate`), which this process (and a
    ``crosspost`` process the rig starts) trusts through ``REQUESTS_CA_BUNDLE`` while the
    rig lasts: real handshakes, their CPU on both sides included."""
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-") as tmp, ExitStack() as stack:
        home = Path(tmp)
        if tls is not None:
            stack.enter_context(_trusting(tls))
        with _start(latency_ms, in_process, setup_ms, tls) as (urls, credentials):
            environ = {"HOME": str(home), "CROSSPOST_STATE_DIR": str(home / "state")}
            settings = load_settings({}, environ=environ, cwd=home, home=home)
            accounts = tuple(
                Account(
                    channel=platform,
                    name="bench",
                    base_url=urls[platform],
                    credentials=MappingProxyType(
                        {k: Secret(v) for k, v in credentials[platform].items()}
                    ),
                )
                for platform in PLATFORMS
            )
            judges = Sandbox()  # built, never started: only its emulators' judgement is used
            yield Rig(
                urls,
                dataclasses.replace(
                    settings, accounts=accounts, default_accounts=MappingProxyType({})
                ),
                {"wechat": judges.wechat, "zhihu": judges.zhihu},
                credentials,
                home,
            )


@contextmanager
def _trusting(certificate: Certificate) -> Iterator[None]:
    """``REQUESTS_CA_BUNDLE`` names ``certificate`` while the block runs."""
    before = os.environ.get(CA_BUNDLE)
    os.environ[CA_BUNDLE] = str(certificate.cert)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CA_BUNDLE, None)
        else:
            os.environ[CA_BUNDLE] = before


def arm(box: Sandbox, latency_ms: int, setup_ms: int = 0) -> None:
    """Hold every request of both platforms for ``latency_ms``, and a new connection's
    first request until ``setup_ms`` after the connection was accepted."""
    for platform in PLATFORMS:
        if latency_ms:
            box.faults.add(platform, "*", f"latency:{latency_ms}")
        if setup_ms:
            box.faults.add(platform, "*", f"handshake:{setup_ms}")


def serve(latency_ms: int, setup_ms: int, tls: Certificate | None = None) -> None:
    """The sandbox process: announce URLs and credentials, serve until stdin closes."""
    with Sandbox(options=SANDBOX_OPTIONS, tls=tls.server_context() if tls else None) as box:
        arm(box, latency_ms, setup_ms)
        hello = {
            "urls": {p: box.url(p) for p in PLATFORMS},
            "credentials": {"wechat": box.wechat.credentials(), "zhihu": box.zhihu.credentials()},
        }
        print(json.dumps(hello), flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    files = sys.argv[3:5]
    serve(int(sys.argv[1]), int(sys.argv[2]), Certificate(*map(Path, files)) if files else None)
