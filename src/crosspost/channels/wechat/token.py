"""WeChat's access token, shared by every crosspost process on the machine, and the poll budget.

WeChat recommends ``/cgi-bin/stable_token`` (spec §2.2): in normal mode it returns the same
token for its whole life, so cron jobs and an editor's run do not invalidate each other.
The token is cached in a file in the state dir (atomic replace, under a file lock) and
fetched again 5 minutes before it expires. When a business call reports the token refused
(40001/40014/42001), :meth:`StableToken.invalidate` drops it; the next fetch uses normal
mode and, only if WeChat hands back the very token it just refused, one ``force_refresh``
(limited to 20 a day by WeChat, so never more than that once).

``freepublish/get`` polls count against a daily quota of 100 (spec §7): :class:`PollBudget`
keeps the day's count in the state dir so several runs share it.

With a ledger shared by several machines (PostgreSQL), both documents live in the ledger
(:class:`~crosspost.ledger.assets.SharedState`) under its advisory locks instead of in
one machine's state dir, so two hosts share one token and one day's count.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from filelock import FileLock, Timeout

from crosspost.channels.http.policy import HttpPolicy, Reply
from crosspost.channels.wechat.errors import CHANNEL, REFUSED_CREDENTIAL, check_reply
from crosspost.config.files import write_atomic
from crosspost.errors import AuthError, PermanentError, RateLimitedError, TransientError
from crosspost.ledger.assets import SharedState

log = logging.getLogger("crosspost.wechat")

#: Fetch a new token this long before the cached one expires (WeChat rotates at 5 minutes).
REFRESH_EARLY_SECONDS = 300.0
_LOCK_TIMEOUT = 60.0


def locked(path: Path) -> AbstractContextManager[None]:
    """Hold the lock that guards ``path`` across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return _held(FileLock(str(path) + ".lock", timeout=_LOCK_TIMEOUT), f"{path.name}.lock")


@contextlib.contextmanager
def _held(lock: AbstractContextManager[Any], name: str) -> Iterator[None]:
    """Hold ``lock`` (a file lock or the ledger's advisory lock) for the block."""
    try:
        lock.__enter__()
    except Timeout:
        raise TransientError(
            f"another crosspost run has held {name} for {_LOCK_TIMEOUT:g} s; "
            "run again when it has finished",
            channel=CHANNEL,
            code="lock",
        ) from None
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


class _Document(Protocol):
    """Where one shared JSON document lives: a state-dir file or a row of the ledger."""

    def locked(self) -> AbstractContextManager[None]: ...

    def read(self) -> dict[str, Any]: ...

    def write(self, data: Mapping[str, Any]) -> None: ...

    def delete(self) -> None: ...


@dataclass(frozen=True)
class _File:
    """The document as a file in this machine's state dir (atomic replace, file lock)."""

    path: Path

    def locked(self) -> AbstractContextManager[None]:
        return locked(self.path)

    def read(self) -> dict[str, Any]:
        return read_json(self.path)

    def write(self, data: Mapping[str, Any]) -> None:
        write_json(self.path, data)

    def delete(self) -> None:
        self.path.unlink(missing_ok=True)


@dataclass(frozen=True)
class _InLedger:
    """The document as a row of the shared ledger, under its advisory lock."""

    ledger: SharedState
    name: str
    lock: AbstractContextManager[Any]

    def locked(self) -> AbstractContextManager[None]:
        return _held(self.lock, f"the shared lock on {self.name}")

    def read(self) -> dict[str, Any]:
        return self.ledger.read_shared(self.name)

    def write(self, data: Mapping[str, Any]) -> None:
        self.ledger.write_shared(self.name, data)

    def delete(self) -> None:
        self.ledger.delete_shared(self.name)


def document(path: Path, shared: SharedState | None) -> _Document:
    """The document named after ``path``: in the shared ledger when there is one (and it
    has locks every host shares), else the file itself."""
    lock = None if shared is None else shared.shared_lock(path.stem, timeout=_LOCK_TIMEOUT)
    if shared is None or lock is None:
        return _File(path)
    return _InLedger(shared, path.stem, lock)


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; empty when the file is missing or damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Replace ``path`` atomically (readers see the old or the new file, never half), 0600.

    Not synced to the disk: these files sit on a publish's path (the token before the
    uploads, the poll count before each poll), and a write lost to a power cut costs a
    token fetched again or a few polls not counted, never a second post."""
    write_atomic(path, json.dumps(dict(data)), mode=0o600, durable=False)


def state_key(base_url: str, app_id: str) -> str:
    """A file-name-safe key per (platform, app): the sandbox and the real API never mix."""
    digest = hashlib.sha256(f"{base_url}|{app_id}".encode()).hexdigest()[:10]
    safe = "".join(c for c in app_id if c.isalnum() or c in "-_")[:40]
    return f"{safe}-{digest}"


@dataclass(frozen=True)
class _Token:
    value: str
    expires_at: float


def _cached(data: Mapping[str, Any]) -> _Token | None:
    """The token in the shared file, or None when it is missing or of the wrong shape (a
    file damaged by hand or by another tool is fetched again and rewritten, never a crash)."""
    value, expires_at = data.get("access_token"), data.get("expires_at")
    if not isinstance(value, str) or not value or isinstance(expires_at, bool):
        return None
    if not isinstance(expires_at, int | float) or not math.isfinite(expires_at):
        return None
    return _Token(value, float(expires_at))


class StableToken:
    """The :class:`~crosspost.channels.http.policy.Credential` of a WeChat account."""

    def __init__(
        self,
        *,
        app_id: str,
        app_secret: str,
        base_url: str,
        http: HttpPolicy,
        state_dir: Path,
        clock: Callable[[], float],
        shared: SharedState | None = None,
        read_from: Mapping[str, str] | None = None,
    ) -> None:
        self._app_id = app_id
        #: Where each credential was read from (``app_secret`` → ``WECHAT_APP_SECRET``),
        #: named when WeChat refuses it: the variable is what the operator changes.
        self._read_from = dict(read_from or {})
        self._app_secret = app_secret
        self._url = base_url.rstrip("/") + "/cgi-bin/stable_token"
        self._http = http
        self._clock = clock
        self.path = Path(state_dir) / f"wechat-token-{state_key(base_url, app_id)}.json"
        self._document = document(self.path, shared)
        self._memo: _Token | None = None
        self._rejected: str | None = None
        http.register_secret(app_secret)

    # --- Credential ---------------------------------------------------------------------

    def params(self) -> Mapping[str, str]:
        return {"access_token": self.token()}

    def invalidate(self, rejected: Mapping[str, str]) -> None:
        """Forget the refused token, here and in the shared file if it is still there."""
        value = rejected.get("access_token")
        self._memo = None
        self._rejected = value
        with self._document.locked():
            if self._document.read().get("access_token") == value:
                self._document.delete()

    # --- the token ----------------------------------------------------------------------

    def token(self) -> str:
        """A token valid for at least 5 more minutes, fetched only when none is cached."""
        if self._memo and self._fresh(self._memo):
            return self._memo.value
        with self._document.locked():
            token = _cached(self._document.read())
            if token and token.value != self._rejected and self._fresh(token):
                self._http.register_secret(token.value)
                self._memo = token
                return token.value
            token = self._fetch(force=False)
            if token.value == self._rejected:
                log.info("WeChat returned the refused token again; forcing a new one")
                token = self._fetch(force=True)
            self._rejected = None
            self._document.write({"access_token": token.value, "expires_at": token.expires_at})
            self._memo = token
            return token.value

    def _fresh(self, token: _Token) -> bool:
        return token.expires_at - self._clock() > REFRESH_EARLY_SECONDS

    def _fetch(self, *, force: bool) -> _Token:
        body = {
            "grant_type": "client_credential",
            "appid": self._app_id,
            "secret": self._app_secret,
            "force_refresh": force,
        }

        def check(reply: Reply) -> dict[str, Any]:
            return check_reply(reply, clock=self._clock, token_call=True)

        try:
            data = self._http.request(
                "POST", self._url, idempotent=True, check=check, channel=CHANNEL, json=body
            )
        except AuthError as error:
            refused = REFUSED_CREDENTIAL.get(error.code) if isinstance(error.code, int) else None
            source = self._read_from.get(refused or "")
            if not source:
                raise
            raise AuthError(
                f"{error}; crosspost reads the {refused} from {source}",
                channel=CHANNEL,
                code=error.code,
            ) from None
        value = data.get("access_token")
        if not isinstance(value, str) or not value:
            raise PermanentError(
                "WeChat's stable_token answer has no access_token", channel=CHANNEL
            )
        self._http.register_secret(value)
        try:
            lifetime = float(data.get("expires_in", 7200))
        except (TypeError, ValueError):
            lifetime = 7200.0
        log.info("fetched a WeChat access token for %s, valid %d s", self._app_id, lifetime)
        return _Token(value, self._clock() + lifetime)


def backoff(*, first: float, cap: float, polls: int) -> tuple[float, ...]:
    """Pauses before each of ``polls`` polls: ``first``, then each twice the one before,
    never above ``cap``. Short at first, because most publications finish within seconds;
    long later, because each poll costs the daily quota."""
    return tuple(min(cap, first * 2**n) for n in range(polls))


def spread(delays: tuple[float, ...], polls: int | None) -> tuple[float, ...]:
    """``delays`` when ``polls`` (the polls left today; None: no quota) are enough for all
    of them; else only the last ``polls`` of them, the first pause covering the skipped
    ones, so the last poll comes as late as it would have and the quota is not overrun.

    With none left, one pause: that poll meets the quota at once and says so.
    """
    if polls is None or polls >= len(delays):
        return delays
    if polls <= 0:
        return delays[:1]
    skipped = len(delays) - polls
    return (sum(delays[: skipped + 1]), *delays[skipped + 1 :])


class PollBudget:
    """How many ``freepublish/get`` polls are left today (shared by every run)."""

    def __init__(
        self,
        path: Path,
        *,
        per_day: int | None,
        clock: Callable[[], float],
        shared: SharedState | None = None,
    ) -> None:
        self.path = path
        self.per_day = per_day
        self._clock = clock
        self._document = document(path, shared)

    def _day(self) -> int:
        # WeChat's day is Beijing's (UTC+8).
        return int((self._clock() + 8 * 3600) // 86400)

    def used(self) -> int:
        state = self._document.read()
        used = state.get("used")
        # Another day, or a file of the wrong shape: nothing counted (take() rewrites it).
        if state.get("day") != self._day() or not isinstance(used, int) or isinstance(used, bool):
            return 0
        return max(0, used)

    def left(self) -> int | None:
        """Polls left today; None when the platform sets no quota."""
        return None if self.per_day is None else max(0, self.per_day - self.used())

    def take(self) -> None:
        """Count one poll, or raise RateLimitedError when today's budget is spent."""
        with self._document.locked():
            used = self.used()
            if self.per_day is not None and used >= self.per_day:  # None: no quota
                raise RateLimitedError(
                    f"today's {self.per_day} WeChat publish-status polls are used up; "
                    "run again tomorrow to learn the post's URL",
                    channel=CHANNEL,
                    code=45009,
                )
            self._document.write({"day": self._day(), "used": used + 1})
