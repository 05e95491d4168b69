"""The request log: what each sandbox server saw, with every secret replaced by ``***``.

Tests assert on it ("the client called draft/add once"), ``crosspost sandbox`` prints it,
and it must never become the place a token leaks from: values the emulators report as
secret are removed from paths and queries, and secret-named query parameters are masked
whatever their value.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

#: Query parameters whose value is a secret whatever the emulator reports.
SECRET_PARAMS = frozenset({"access_token", "secret", "appsecret", "app_secret", "z_c0", "d_c0"})
REDACTED = "***"


@dataclass(frozen=True)
class LoggedRequest:
    """One request as the sandbox saw it. ``delivered`` is False when a fault withheld
    the answer (reset, commit-then-drop); ``status`` is then what the emulator would have
    said (None for a reset: nothing was processed)."""

    seq: int
    at: float
    platform: str
    method: str
    path: str
    query: str
    status: int | None
    errcode: int | str | None
    fault: str | None
    delivered: bool
    #: Seconds the sandbox spent on the request once its body was in (the emulator's
    #: work, the log), the injected latency left out: a real platform does that work on
    #: its own machines, while the sandbox shares the client's.
    service: float = 0.0
    #: Which connection it came on: the sandbox numbers connections as it accepts them
    #: (0 when not known), so a log shows which requests opened a connection of their own.
    connection: int = 0

    def line(self) -> str:
        """One human line, for ``crosspost sandbox``'s terminal."""
        where = f"{self.path}?{self.query}" if self.query else self.path
        status = self.status if self.delivered else f"{self.status} (not delivered)"
        code = f" errcode={self.errcode}" if self.errcode not in (None, 0) else ""
        fault = f" fault={self.fault}" if self.fault else ""
        return f"{self.platform} {self.method} {where} -> {status}{code}{fault}"


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every known secret value replaced by ``***``.

    Only the secrets found in ``text`` are sorted and replaced: a sandbox that handed out
    a token per image knows hundreds, and sorting them all twice per logged request cost
    more than the request's own answer. (A secret with a ``*`` in it is kept either way:
    a replacement could make it appear.) Nothing is in an empty text (most queries): the
    secrets are not looked through for it."""
    if not text:
        return text
    found = {s for s in secrets if len(s) >= 4 and (s in text or "*" in s)}
    for secret in sorted(found, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def redact_query(query: str, secrets: Iterable[str]) -> str:
    """A query string with secret-named parameters masked and known secret values removed."""
    if not query:
        return query
    pairs = [
        (key, REDACTED if key.lower() in SECRET_PARAMS else value)
        for key, value in parse_qsl(query, keep_blank_values=True)
    ]
    return redact(urlencode(pairs, safe="*/:"), secrets)


class RequestLog:
    """The request log shared by the sandbox's servers (thread-safe, append-only).

    A long ``crosspost sandbox`` session keeps only the newest ``limit`` entries."""

    def __init__(
        self, listener: Callable[[LoggedRequest], None] | None = None, limit: int = 10_000
    ) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._entries: list[LoggedRequest] = []
        self._seq = 0
        self.listener = listener

    def add(self, **fields: Any) -> LoggedRequest:
        """Append one entry (numbered in arrival order) and tell the listener."""
        with self._lock:
            self._seq += 1
            entry = LoggedRequest(seq=self._seq, **fields)
            self._entries.append(entry)
            if len(self._entries) > self.limit:
                del self._entries[: len(self._entries) - self.limit]
        if self.listener:
            self.listener(entry)
        return entry

    def entries(self, platform: str | None = None) -> list[LoggedRequest]:
        """Entries in arrival order, of one platform when given."""
        with self._lock:
            return [e for e in self._entries if platform is None or e.platform == platform]

    def clear(self, platform: str | None = None) -> None:
        """Forget the entries (of one platform, when given)."""
        with self._lock:
            self._entries = [e for e in self._entries if platform and e.platform != platform]
