"""Fault plans: which request on which platform path goes wrong, and how.

A plan names a platform ("wechat" or "zhihu"), a path (exact, or a glob such as
``/api/articles/*/draft`` or ``*``), a kind, and how often it fires: the first ``count``
matching requests, each matching request with ``probability`` (a ``random.Random``
seeded with ``seed``, so a run is reproducible), both (a seeded coin until ``count``
fired), or neither (every matching request until cleared).

Kinds the server carries out itself (they are the same on every platform):

``latency:<ms>``
    wait (through the injected ``sleep``) before answering; combines with any other kind.
``handshake:<ms>``
    a new connection costs that long before its first request is answered, counted from
    the moment the sandbox accepted it: TCP and TLS set-up on a real network. Only a
    connection's first request consults it, so a client that opens its connections
    ahead of time has paid by the time it uses them, and one that opens them when it
    needs them waits. Combines with ``latency``.
``reset``
    reset the connection before the request is processed (nothing is applied).
``http:<status>``
    answer with that HTTP status (500, 502, 503, and 429 for Zhihu); the emulator may
    shape the body, otherwise a gateway-style HTML page is sent.
``relay_json:<status>``
    a relay in front of the platform (the reverse proxy an account calls WeChat through
    for a fixed whitelisted IP, an API gateway) answers that status with JSON of its own,
    ``{"code": <status>, "msg": "…"}``: JSON, but not the platform's (nothing is applied).
``commit_then_drop``
    let the emulator apply the request, then close the connection with no status line.
    It only matches calls the emulator calls mutating (create or publish).
``slow_answer:<ms>``
    the platform is slower than the client's patience: the connection is closed with no
    answer at once (the client's timeout, without a real wait), and the request takes
    effect only once the sandbox clock has moved ``<ms>`` past its arrival. A client that
    looks at once sees nothing; one that waits and asks again finds it. Reads are simply
    dropped (there is nothing to apply later).

Every other kind (``errcode:-1``, ``errcode:45009``, ``errcode:45011``,
``token_expired``, ``zhihu:40362``, ``publish_code`` …) is platform knowledge and is
answered by :meth:`crosspost.sandbox.base.Emulator.fault_response`.

On the command line and the control endpoint a plan is written
``PLATFORM:PATH=KIND[*COUNT][%PROBABILITY]``, e.g. ``wechat:/cgi-bin/draft/add=commit_then_drop*1``
or ``zhihu:*=http:503%0.2``.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from crosspost.errors import UsageError

PLATFORMS = ("wechat", "zhihu")
SERVER_KINDS = ("reset", "commit_then_drop", "slow_answer")


@dataclass(frozen=True)
class Fault:
    """One fault plan as the user wrote it (the firing state lives in :class:`FaultBook`)."""

    platform: str
    path: str
    kind: str
    count: int | None = None
    probability: float | None = None
    seed: int = 0
    method: str | None = None

    @property
    def latency_seconds(self) -> float | None:
        """Seconds to wait for a ``latency:<ms>`` plan, None for every other kind."""
        if self.kind.startswith("latency:"):
            return int(self.kind.split(":", 1)[1]) / 1000
        return None

    @property
    def handshake_seconds(self) -> float | None:
        """What a new connection costs under a ``handshake:<ms>`` plan, None otherwise."""
        if self.kind.startswith("handshake:"):
            return int(self.kind.split(":", 1)[1]) / 1000
        return None

    @property
    def slow_seconds(self) -> float | None:
        """How long a ``slow_answer:<ms>`` plan's request takes to apply, None otherwise."""
        if self.kind.startswith("slow_answer:"):
            return int(self.kind.split(":", 1)[1]) / 1000
        return None

    @property
    def http_status(self) -> int | None:
        """The status of an ``http:<status>`` plan, None for every other kind."""
        if self.kind.startswith("http:"):
            return int(self.kind.split(":", 1)[1])
        return None

    def matches(self, platform: str, method: str, path: str) -> bool:
        """Whether this plan is about this request (before count and probability)."""
        if platform != self.platform:
            return False
        if self.method and self.method.upper() != method.upper():
            return False
        return self.path == path or fnmatchcase(path, self.path)

    def as_dict(self) -> dict[str, Any]:
        """JSON form, for the control endpoint."""
        return {
            "platform": self.platform,
            "path": self.path,
            "kind": self.kind,
            "count": self.count,
            "probability": self.probability,
            "seed": self.seed,
            "method": self.method,
        }


def check_fault(fault: Fault) -> Fault:
    """Refuse a plan that can never mean anything, with a line that says what to write."""
    if fault.platform not in PLATFORMS:
        raise UsageError(f"fault platform {fault.platform!r} is unknown; use wechat or zhihu")
    if not fault.path:
        raise UsageError("a fault needs a path, e.g. /cgi-bin/draft/add or *")
    if fault.count is not None and fault.count < 1:
        raise UsageError(f"fault count must be 1 or more, not {fault.count}")
    if fault.probability is not None and not 0 < fault.probability <= 1:
        raise UsageError(f"fault probability must be in (0, 1], not {fault.probability}")
    prefix, _, argument = fault.kind.partition(":")
    if prefix in ("latency", "handshake", "http", "slow_answer", "relay_json"):
        if not argument.isdigit():
            raise UsageError(f"fault kind {fault.kind!r} needs a number, e.g. {prefix}:500")
    elif not fault.kind or any(c.isspace() for c in fault.kind):
        raise UsageError(f"fault kind {fault.kind!r} is not a kind; see docs/sandbox.md")
    return fault


def parse_fault(spec: str) -> Fault:
    """Read ``PLATFORM:PATH=KIND[*COUNT][%PROBABILITY]`` (the ``--fault`` syntax)."""
    target, equals, rest = spec.partition("=")
    platform, colon, path = target.partition(":")
    if not equals or not colon:
        raise UsageError(
            f"fault {spec!r} is not PLATFORM:PATH=KIND[*COUNT][%PROBABILITY], "
            "e.g. wechat:/cgi-bin/draft/add=commit_then_drop*1"
        )
    count: int | None = None
    probability: float | None = None
    kind = rest
    try:
        if "%" in kind:
            kind, _, text = kind.rpartition("%")
            probability = float(text)
        if "*" in kind:
            kind, _, text = kind.rpartition("*")
            count = int(text)
    except ValueError:
        raise UsageError(
            f"fault {spec!r}: count after * and probability after % are numbers"
        ) from None
    return check_fault(Fault(platform.strip(), path.strip(), kind.strip(), count, probability))


def fault_from_json(data: Any, default_platform: str) -> Fault:
    """A plan from the control endpoint's JSON body (``spec`` string or separate fields)."""
    if not isinstance(data, dict):
        raise UsageError("fault body must be a JSON object")
    if isinstance(data.get("spec"), str):
        return parse_fault(data["spec"])
    try:
        return check_fault(
            Fault(
                platform=str(data.get("platform") or default_platform),
                path=str(data["path"]),
                kind=str(data["kind"]),
                count=None if data.get("count") is None else int(data["count"]),
                probability=None if data.get("probability") is None else float(data["probability"]),
                seed=int(data.get("seed") or 0),
                method=data.get("method"),
            )
        )
    except (KeyError, TypeError, ValueError) as error:
        raise UsageError(f"fault body needs path and kind ({error})") from None


@dataclass
class _Armed:
    """A plan and its firing state (mutable, private to the book)."""

    fault: Fault
    rng: random.Random
    fired: int = 0
    # Requests that matched but were passed over by the coin, kept for introspection.
    passed: int = field(default=0)

    def exhausted(self) -> bool:
        return self.fault.count is not None and self.fired >= self.fault.count

    def fire(self) -> bool:
        if self.exhausted():
            return False
        if self.fault.probability is not None and self.rng.random() >= self.fault.probability:
            self.passed += 1
            return False
        self.fired += 1
        return True


@dataclass(frozen=True)
class Decision:
    """What to do with one request: wait this long, then carry out ``kind`` (or nothing)."""

    delay: float = 0.0
    kind: str | None = None
    fault: Fault | None = None
    #: What setting up the request's connection costs (its first request only), counted
    #: from when the connection was accepted.
    handshake: float = 0.0


class FaultBook:
    """Thread-safe set of fault plans shared by the sandbox's servers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: list[_Armed] = []

    def add(
        self,
        platform: str,
        path: str,
        kind: str,
        *,
        count: int | None = None,
        probability: float | None = None,
        seed: int = 0,
        method: str | None = None,
    ) -> Fault:
        """Arm one plan; later plans are consulted after earlier ones."""
        return self.add_fault(Fault(platform, path, kind, count, probability, seed, method))

    def add_fault(self, fault: Fault) -> Fault:
        """Arm a plan built elsewhere (CLI, control endpoint)."""
        check_fault(fault)
        with self._lock:
            self._armed.append(_Armed(fault, random.Random(fault.seed)))
        return fault

    def clear(self, platform: str | None = None) -> None:
        """Disarm every plan (of one platform, when given)."""
        with self._lock:
            self._armed = [a for a in self._armed if platform and a.fault.platform != platform]

    def plans(self, platform: str | None = None) -> list[dict[str, Any]]:
        """Armed plans with how often each fired, for the control endpoint."""
        with self._lock:
            return [
                {**a.fault.as_dict(), "fired": a.fired, "exhausted": a.exhausted()}
                for a in self._armed
                if platform is None or a.fault.platform == platform
            ]

    def decide(
        self, platform: str, method: str, path: str, *, mutating: bool, fresh: bool = False
    ) -> Decision:
        """Consult every plan for one request (``fresh``: the first on its connection).
        Latency and handshake plans add up; the first other plan that fires decides the
        outcome. ``commit_then_drop`` passes over reads, ``handshake`` over a connection's
        later requests."""
        delay = handshake = 0.0
        with self._lock:
            for armed in self._armed:
                fault = armed.fault
                if not fault.matches(platform, method, path):
                    continue
                if fault.kind == "commit_then_drop" and not mutating:
                    continue
                seconds = fault.latency_seconds
                if seconds is not None:
                    if armed.fire():
                        delay += seconds
                    continue
                seconds = fault.handshake_seconds
                if seconds is not None:
                    if fresh and armed.fire():
                        handshake += seconds
                    continue
                if armed.fire():
                    return Decision(delay, fault.kind, fault, handshake)
        return Decision(delay, handshake=handshake)
