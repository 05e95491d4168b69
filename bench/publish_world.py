"""One publish against a fresh sandbox, timed, with its request log: the publish benchmarks' rig.

Each :func:`publish` starts its own sandbox and state directory, so no token, upload
cache or ledger row carries over unless the caller passes the same :class:`Rig` again
(the request-economy benchmark does, to publish a second time). The publisher is the real
one; only its pauses between polls are zero (the injected ``sleep``), while the sandbox's
injected latency is a real ``time.sleep`` on the server, so wall time is what an editor
would wait on a network with that round-trip time.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.config import Account, Secret, Settings, load_settings
from crosspost.ledger import Ledger
from crosspost.publisher import Publisher, PublishOptions, PublishReport
from crosspost.sandbox import LoggedRequest, Sandbox

PLATFORMS = ("wechat", "zhihu")
#: Sandbox options of the benchmark: the emulators' defaults, spelt out so the chain
#: printed beside the figures says how many polls it counts.
SANDBOX_OPTIONS: dict[str, dict[str, Any]] = {
    "wechat": {"publish_polls": 2},
    "zhihu": {"image_polls": 1},
}
#: Uploads of an image, per platform (WeChat: one call; Zhihu: I1 announces each image).
UPLOAD_PATHS = {
    "wechat": ("/cgi-bin/media/uploadimg", "/cgi-bin/material/add_material"),
    "zhihu": ("/images",),
}
_ID = re.compile(r"(?<=/)(?:v2-[0-9a-f]{32}|[0-9]{6,})(?=/|$)")


@dataclass(frozen=True)
class Run:
    """One publish: wall seconds, how every post ended, and what the sandbox saw."""

    seconds: float
    states: tuple[str, ...]
    requests: tuple[LoggedRequest, ...]
    mutating: tuple[LoggedRequest, ...]

    def by_endpoint(self) -> Counter[str]:
        """Requests per ``platform METHOD path`` (ids in paths written ``{id}``)."""
        return Counter(
            f"{r.platform} {r.method} {_ID.sub('{id}', r.path)}" for r in self.requests
        )

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
    """A sandbox, settings aimed at it and a state directory, kept across publishes."""

    box: Sandbox
    settings: Settings

    def publish(
        self, issue: Path, targets: Sequence[str] = (), mode: str = "publish"
    ) -> Run:
        """Plan (not timed: render and lint happen before any request), then run, timed."""
        self.box.log.clear()
        options = PublishOptions(targets=tuple(targets), mode=mode)
        with Ledger.open(self.settings.ledger_path) as ledger:
            publisher = Publisher(self.settings, ledger, sleep=lambda seconds: None)
            jobs = publisher.plan([issue], options)
            started = time.perf_counter()
            report: PublishReport = publisher.run(jobs, options)
            seconds = time.perf_counter() - started
        requests = tuple(self.box.requests)
        emulators = {"wechat": self.box.wechat, "zhihu": self.box.zhihu}
        mutating = tuple(
            r for r in requests if emulators[r.platform].is_mutating(r.method, r.path)
        )
        for result in report.results:
            if result.exit_code:
                raise RuntimeError(f"benchmark publish failed: {result.key} {result.message}")
        return Run(seconds, tuple(r.state for r in report.results), requests, mutating)


@contextmanager
def rig(latency_ms: int, root: Path | None = None) -> Iterator[Rig]:
    """A fresh sandbox with ``latency_ms`` on every request, and settings with one account
    per platform aimed at it (no config file, no environment of the caller's)."""
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-", dir=root) as tmp:
        home = Path(tmp)
        with Sandbox(options=SANDBOX_OPTIONS) as box:
            if latency_ms:
                for platform in PLATFORMS:
                    box.faults.add(platform, "*", f"latency:{latency_ms}")
            environ = {"HOME": str(home), "CROSSPOST_STATE_DIR": str(home / "state")}
            settings = load_settings({}, environ=environ, cwd=home, home=home)
            accounts = tuple(
                Account(
                    channel=platform,
                    name="bench",
                    base_url=box.url(platform),
                    credentials=MappingProxyType(
                        {k: Secret(v) for k, v in emulator.credentials().items()}
                    ),
                )
                for platform, emulator in (("wechat", box.wechat), ("zhihu", box.zhihu))
            )
            yield Rig(
                box,
                dataclasses.replace(
                    settings, accounts=accounts, default_accounts=MappingProxyType({})
                ),
            )
