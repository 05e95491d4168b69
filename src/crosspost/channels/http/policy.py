"""The one HTTP policy: the only place in crosspost that retries, times out or redacts.

Every adapter sends every request through :meth:`HttpPolicy.request` and declares, call by
call, whether it is idempotent:

* **idempotent** (token, reads, polls, image uploads keyed by hash): transient failures
  (connection trouble, timeouts, HTTP 5xx/429, platform "busy" codes the adapter's
  ``check`` raises as :class:`~crosspost.errors.TransientError`) are retried by tenacity
  with exponential backoff and jitter, ``Retry-After`` and the adapter's ``retry_after``
  honoured, under a hard cap on attempts and on total time.
* **not idempotent** (create a draft, publish): exactly one attempt. A failure that may
  have happened after the platform acted (read timeout, connection reset or closed after
  sending, HTTP 5xx) raises :class:`AmbiguousOutcome`, which the adapter turns into its own
  :class:`~crosspost.errors.UnconfirmedError` message; a failure before anything was sent
  (cannot connect) is a plain :class:`~crosspost.errors.TransientError`.

Either kind may re-send once after the platform refused the credential (the ``check``
raises :class:`CredentialRejected`): the policy drops the cached credential, fetches a
fresh one and tries again exactly once. A refused credential means nothing was done.

A platform that asks to slow down (raised as :class:`~crosspost.errors.RateLimitedError`)
slows down every request it speaks for, not only the one it answered: the next ones wait
until the pause it asked for is over (:class:`_Calm`), so a wave of uploads backs off as a
whole instead of each upload spending its own attempts on the same limit. HTTP 429 speaks
for every request of the policy (the account's); a platform's own code (WeChat's 45011
and 45009 count each API on its own) for requests to the same path. A pause longer than
the retry cap fails the requests that would wait for it at once, before they are sent.

What each platform's error codes mean is not known here: the adapter's ``check`` turns a
:class:`Reply` into a value or a typed error. Every URL, log record and exception text that
leaves this module is redacted: sensitive query parameters and every registered secret.
"""

from __future__ import annotations

import json as jsonlib
import logging
import os
import random
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from types import MappingProxyType, UnionType
from typing import Any, TypeVar
from urllib.parse import SplitResult, urlencode, urlsplit

import requests
import tenacity
import urllib3
from requests.adapters import HTTPAdapter
from requests.sessions import merge_setting
from requests.utils import get_environ_proxies, select_proxy, urldefragauth
from urllib3 import HTTPConnectionPool
from urllib3.util.wait import wait_for_read

from crosspost import __version__
from crosspost.channels.http.deadline import Deadlines, attach
from crosspost.channels.http.wire import (
    AmbiguousOutcome,
    Credential,
    CredentialRejected,
    Reply,
    ServerError,
    retry_after_seconds,
    short_reason,
    unresolved,
    was_sent,
)
from crosspost.config.redaction import (
    REDACTED,
    RedactingFilter,
    Redactor,
    guard_library_loggers,
)
from crosspost.errors import (
    AuthError,
    ChannelError,
    ConfigError,
    CrosspostError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)
from crosspost.patterns import pattern

__all__ = [
    "REDACTED",
    "AmbiguousOutcome",
    "Credential",
    "CredentialRejected",
    "HttpPolicy",
    "RedactingFilter",
    "Redactor",
    "Reply",
    "RetryPolicy",
    "ServerError",
    "Timeouts",
]

T = TypeVar("T")

log = logging.getLogger("crosspost.http")

# --- the policy -----------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """How hard idempotent calls try. Backoff: ``initial * 2**(n-1)``, capped, plus jitter."""

    max_attempts: int = 4
    #: Hard cap on one call's total time, waits included (seconds, by the policy's clock).
    max_total_seconds: float = 90.0
    initial_backoff: float = 0.5
    max_backoff: float = 20.0
    #: Up to this fraction of the backoff is added at random (spreads cron jobs apart).
    jitter: float = 0.5


@dataclass(frozen=True)
class Timeouts:
    """Seconds: to connect, to wait for the next bytes of an answer, and for one attempt
    whole (the request sent and its whole answer read), which a server trickling its
    answer out a byte at a time would otherwise stretch without end."""

    connect: float = 10.0
    read: float = 60.0
    whole: float = 300.0

    @property
    def exchange(self) -> float:
        """The whole attempt's bound, never shorter than one read's."""
        return max(self.whole, self.read)


#: The one thread that ends late exchanges, shared by every policy of the process.
DEADLINES = Deadlines()


class _Final(Exception):
    """Carries an error that must not be retried again (it already was, deeper down)."""

    def __init__(self, error: CrosspostError) -> None:
        super().__init__(str(error))
        self.error = error


#: Connections kept open per host by default: above a post's upload threads plus the
#: reads made beside them, so no upload waits for or throws away a connection (requests'
#: default keeps ten). An adapter sizes its pool to its platform's upload bound.
CONNECTIONS_PER_HOST = 32
#: Connections kept beside the uploads for the reads and the draft that go out with them.
SPARE_CONNECTIONS = 8


class _Session(requests.Session):
    """A requests session that reads the environment once per origin, not per request.

    Trusting the environment, requests walks the whole of ``os.environ`` (decoding every
    variable) on every request to find the proxy variables, and looks for ``~/.netrc``:
    some 90 µs of its 0.6 ms per request with a small environment, more with a large one,
    spent on answers that do not change while a run lasts. Here the proxies
    (``HTTPS_PROXY``, ``NO_PROXY``…) are looked up the first time an origin is called and
    the CA bundle variables once; ``.netrc`` is never read, since its passwords are not
    for the platforms' APIs. Proxies passed to a request still win over the
    environment's, as in requests. A ``direct`` session takes no proxy from the
    environment at all (the built-in sandbox's accounts: see ``Account.rehearsal``).
    """

    def __init__(self, *, direct: bool = False) -> None:
        super().__init__()
        self.trust_env = False
        self.direct = direct
        self._proxies_by_origin: dict[str, dict[str, str]] = {}
        self._settings_by_origin: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")

    def merge_environment_settings(
        self,
        url: str | bytes | None,
        proxies: Any,
        stream: Any,
        verify: Any,
        cert: Any,
    ) -> Any:
        text = url.decode() if isinstance(url, bytes) else str(url or "")
        parts = urlsplit(text)
        origin = f"{parts.scheme}://{parts.netloc}"
        # The policy asks with nothing of its own (no proxies, stream, verify or cert) for
        # every request: the answer is the origin's and the session's, kept per origin
        # and the session's settings (requests' merge takes some 14 µs, most of it in a
        # typing Protocol's isinstance per setting). A request's own settings merge anew.
        own = not proxies and stream is None and verify is None and cert is None
        key = (origin, tuple(self.proxies.items()), self.stream, str(self.verify), str(self.cert))
        if own and (kept := self._settings_by_origin.get(key)) is not None:
            return dict(kept)
        found = self._proxies_by_origin.get(origin)
        if found is None:
            environ = {} if self.direct else get_environ_proxies(text)
            found = self._proxies_by_origin[origin] = dict(environ)
        proxies = {**found, **(proxies or {})}
        if verify in (True, None) and self._ca_bundle:
            verify = self._ca_bundle
        merged = dict(super().merge_environment_settings(url, proxies, stream, verify, cert))
        if own:
            self._settings_by_origin[key] = merged
        return dict(merged)


class _Ahead:
    """The threads :meth:`HttpPolicy.open_ahead` opens connections in (one per
    connection; ``stop`` waits for those still at it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._workers: list[ThreadPoolExecutor] = []

    def open(self, pool: HTTPConnectionPool, wanted: int, timeout: float) -> list[Future[bool]]:
        """Take ``pool``'s free places up to ``wanted`` connections in all (every one it
        has made counts, busy or idle), and connect a new connection for each in a
        thread; idle connections taken on the way go straight back."""
        fresh: list[Any] = []  # urllib3 connections
        with self._lock:
            missing = min(wanted, pool.pool.maxsize if pool.pool else 0) - pool.num_connections
            idle: list[Any] = []
            try:
                while len(fresh) < missing:
                    connection = pool._get_conn()  # the idle first, then a new one
                    (idle if connection.is_connected else fresh).append(connection)
            except Exception as error:  # a closed pool: the session is ending
                log.debug("cannot open connections ahead to %s: %s", pool.host, type(error))
            for connection in idle:
                pool._put_conn(connection)
            if not fresh:
                return []
            # A thread per connection: the set-ups overlap, as the wave's own would.
            workers = ThreadPoolExecutor(len(fresh), thread_name_prefix="crosspost-connect")
            self._workers.append(workers)
        opening: list[Future[bool]] = []
        try:
            for each in fresh:
                opening.append(workers.submit(_connect, pool, each, timeout))
        except RuntimeError as error:  # no thread to be had: the requests connect themselves
            log.debug("cannot open connections ahead to %s: %s", pool.host, error)
            for each in fresh[len(opening) :]:
                pool._put_conn(each)  # not connected yet: the request that takes it will
        workers.shutdown(wait=False)  # each thread ends after its one connection
        return opening

    def stop(self) -> None:
        """Wait for the threads still connecting: each ends within the connect timeout,
        and nothing of a run stays behind it."""
        with self._lock:
            workers, self._workers = self._workers, []
        for each in workers:
            each.shutdown(wait=True)


def _connect(pool: HTTPConnectionPool, connection: Any, timeout: float) -> bool:
    """Set ``connection`` up and leave it idle in ``pool``: True when it opened. One that
    cannot is closed and its place freed; the request that takes the place opens its own
    connection and says what goes wrong."""
    try:
        connection.timeout = timeout
        connection.connect()
        return True
    except Exception as error:
        log.debug("could not open a connection ahead to %s: %s", pool.host, type(error))
        connection.close()
        connection = None
        return False
    finally:
        pool._put_conn(connection)


class _Connection(urllib3.connection.HTTPConnection):
    """An HTTP connection that tells the exchange it carries which socket to cut if the
    exchange outlasts its deadline (see :mod:`crosspost.channels.http.deadline`)."""

    answering: Any = None

    def request(
        self, method: str, url: str, body: Any = None, headers: Any = None, **options: Any
    ) -> None:
        attach(self)
        super().request(method, url, body, headers, **options)

    def getresponse(self) -> Any:
        # An answer that ends the connection takes its socket along (http.client sets
        # ``sock`` to None), and the deadline must still find it. Attached again: an
        # exchange whose deadline passed while it connected (no socket to cut then) is
        # cut now, before its answer is waited for.
        self.answering = self.sock
        attach(self)
        return super().getresponse()


class _Pool(urllib3.HTTPConnectionPool):
    ConnectionCls = _Connection


class _TlsConnection(_Connection, urllib3.connection.HTTPSConnection):
    """An HTTPS connection that TLS 1.3's talk after the handshake does not close.

    Before reusing an idle connection, urllib3 calls it closed when its socket has
    anything to read. A TLS 1.3 server sends its session tickets just after the
    handshake, so a connection opened ahead (set up, never used) always has something
    to read, and urllib3 threw every one away and set up a new one, which is the very
    wait the connection was opened to save. Here the TLS layer reads what is there:
    records it handles itself (the tickets) leave the connection open; the end of the
    stream, or bytes nobody asked for, close it as before.
    """

    @property
    def is_connected(self) -> bool:
        sock = self.sock
        if sock is None:
            return False
        if not wait_for_read(sock, timeout=0.0):
            return True
        if not isinstance(sock, ssl.SSLSocket):
            return False
        timeout = sock.gettimeout()
        try:
            sock.setblocking(False)
            sock.recv(1)  # b"" at the end of the stream; data here is unasked for
        except ssl.SSLWantReadError:
            return True  # only TLS's own records were waiting
        except OSError:
            return False
        finally:
            sock.settimeout(timeout)
        return False


class _TlsPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _TlsConnection


#: The policy's pools by scheme: connections the deadline can cut.
_POOLS = {"http": _Pool, "https": _TlsPool}


class _Adapter(HTTPAdapter):
    """requests' adapter, its pools made of :class:`_Connection` and
    :class:`_TlsConnection`."""

    def init_poolmanager(
        self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any
    ) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        """The pools behind an HTTP proxy (a company's, ``HTTPS_PROXY``) are made of the
        same connections, so the deadline reaches them too; a SOCKS proxy's keep theirs."""
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if isinstance(manager, urllib3.ProxyManager):
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


def pooled_session(
    connections: int = CONNECTIONS_PER_HOST, *, direct: bool = False
) -> requests.Session:
    """A session whose connection pools hold ``connections`` per host; ``direct``: one
    that never goes through the environment's proxy (``HTTPS_PROXY``…)."""
    session = _Session(direct=direct)
    for prefix in ("https://", "http://"):
        session.mount(prefix, _Adapter(pool_maxsize=connections))
    return session


def _origin(parts: SplitResult) -> str:
    """``scheme://host:port`` of a URL, its user and password left out (a proxy's URL
    may carry them, and lines name it)."""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}"


@dataclass(frozen=True)
class _Route:
    """Where requests to one origin go: requests' pool for it (TLS settings applied) and
    whether the request line names the whole URL (plain HTTP through a proxy)."""

    pool: HTTPConnectionPool
    whole_url: bool
    retries: Any  # urllib3's Retry of the adapter (no retries: the policy retries)

    def request_url(self, prepared: requests.PreparedRequest) -> str:
        """What ``HTTPAdapter.request_url`` says for ``prepared``, without asking again."""
        assert prepared.url is not None
        return urldefragauth(prepared.url) if self.whole_url else prepared.path_url


class _Routes:
    """The pool each origin's requests go to, found once per origin and its settings.

    Picking a pool as requests does (its pool key built from the URL and the TLS
    settings, the manager's lock and table, the CA bundle's file looked up on disk, the
    proxy chosen again) cost a request some 30 µs of the CPU a wave of uploads waits for,
    and the answer does not change while a run lasts. It is kept by origin, adapter,
    TLS settings and proxies, and asked again when the pool was closed (the session's
    manager drops pools beyond the ten it keeps; a closed session drops them all).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[tuple[Any, ...], _Route] = {}

    def find(
        self, adapter: Any, prepared: requests.PreparedRequest, settings: Mapping[str, Any]
    ) -> _Route | None:
        """The route for ``prepared`` through ``adapter``; None when the adapter is not
        requests' own (a transport of the caller's sends the request itself)."""
        if not isinstance(adapter, HTTPAdapter):
            return None
        assert prepared.url is not None
        known = self.known(adapter, prepared.url, settings)
        if known is not None:
            return known
        verify, proxies, cert = settings["verify"], settings["proxies"], settings["cert"]
        key = self._key(adapter, prepared.url, settings)
        try:
            pool = adapter.get_connection_with_tls_context(prepared, verify, proxies, cert)
        except urllib3.exceptions.LocationValueError as error:
            raise requests.exceptions.InvalidURL(error, request=prepared) from None
        if not isinstance(pool, HTTPConnectionPool):
            return None
        adapter.cert_verify(pool, prepared.url, verify, cert)  # type: ignore[no-untyped-call]
        whole_url = adapter.request_url(prepared, proxies) != prepared.path_url
        route = _Route(pool, whole_url, adapter.max_retries)
        with self._lock:
            self._known[key] = route
        return route

    def known(self, adapter: Any, url: str, settings: Mapping[str, Any]) -> _Route | None:
        """The route found before for ``url``'s origin through ``adapter`` with these
        settings, if its pool is still open; None when it must be found (:meth:`find`)."""
        with self._lock:
            known = self._known.get(self._key(adapter, url, settings))
        return known if known is not None and known.pool.pool is not None else None

    @staticmethod
    def _key(adapter: Any, url: str, settings: Mapping[str, Any]) -> tuple[Any, ...]:
        parts = urlsplit(url)
        return (
            id(adapter),
            parts.scheme,
            parts.netloc,
            str(settings["verify"]),
            str(settings["cert"]),
            tuple(sorted((settings["proxies"] or {}).items())),
        )


@dataclass
class _Pause:
    """One pause a platform asked for: no request it speaks for is sent before ``until``
    (the policy's clock); ``reason`` and ``code`` repeat the answer that asked for it."""

    until: float
    reason: str
    code: int | str | None


@dataclass
class _Calm:
    """The pauses a platform asked for, by scope (None: every request; else a path)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    pauses: dict[str | None, _Pause] = field(default_factory=dict)
    #: Rate-limit answers in a row: each doubles the pause when none was asked for.
    streak: int = 0


@dataclass
class HttpPolicy:
    """Session, timeouts, retries, credential refresh and redaction for every adapter.

    ``clock`` (monotonic seconds) and ``sleep`` are injected so tests never wait;
    ``rng`` gives the jitter (returns a float in [0, 1)).
    """

    session: requests.Session = field(default_factory=pooled_session)
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    rng: Callable[[], float] = random.random
    #: Wall-clock seconds since the epoch, for ``Retry-After`` given as an HTTP date.
    wall_clock: Callable[[], float] = time.time
    redactor: Redactor = field(default_factory=Redactor)
    user_agent: str = f"crosspost/{__version__}"
    #: The account's ``base_url`` from the config, which replaces the platform's hosts
    #: (None: the platform's own hosts). Lines about a host whose name cannot be resolved
    #: point at it, so a typo there does not read as DNS trouble, and so do the lines
    #: about a call the server does not know (404) when ``base_url`` has a path.
    base_url: str | None = None
    #: What ends an attempt that outlasts ``timeouts.whole`` (tests give one that waits
    #: for their word instead of the clock).
    deadlines: Deadlines = field(default_factory=lambda: DEADLINES)
    _calm: _Calm = field(default_factory=_Calm, init=False, repr=False)
    _ahead: _Ahead = field(default_factory=lambda: _Ahead(), init=False, repr=False)
    _routes: _Routes = field(default_factory=lambda: _Routes(), init=False, repr=False)

    def __post_init__(self) -> None:
        guard_library_loggers(self.redactor)

    def register_secret(self, value: str | None) -> None:
        """Every value registered here is replaced by ``***`` in messages and logs."""
        self.redactor.register(value)

    def redact(self, text: str) -> str:
        return self.redactor(text)

    def close(self) -> None:
        self._ahead.stop()
        self.session.close()

    def open_ahead(self, url: str, connections: int) -> list[Future[bool]]:
        """Have ``connections`` connections to ``url``'s host set up before they are
        needed: each one missing is opened in the background (TCP, and TLS for https) and
        left idle in the session's pool, where the next requests to that host take it.

        A wave of uploads that goes out after the post's first call would otherwise open
        its connections when it starts, and wait one round trip for TCP and one or two
        for TLS before its first byte leaves; opened while that first call is out, they
        cost nothing on the way. Nothing is sent on them, so no platform sees a request.
        Connections already made to the host count, and so do those being opened; a host
        reached through a proxy is left alone (the proxy sets its own connections up), and
        a connection that cannot be opened is given up quietly: the request that needs it
        opens its own and reports what goes wrong. The futures say whether each opened
        (tests wait for them; the policy never does).
        """
        try:
            settings = self.session.merge_environment_settings(url, {}, None, None, None)
            if select_proxy(url, settings["proxies"]):
                return []
            prepared = requests.Request("GET", url).prepare()
            adapter = self.session.get_adapter(url)
            if not isinstance(adapter, HTTPAdapter):
                return []
            pool = adapter.get_connection_with_tls_context(
                prepared, settings["verify"], None, settings["cert"]
            )
        except (requests.exceptions.RequestException, ValueError):
            return []  # a bad URL: the request itself will say so
        if not isinstance(pool, HTTPConnectionPool):
            return []
        return self._ahead.open(pool, connections, self.timeouts.connect)

    def request(
        self,
        method: str,
        url: str,
        *,
        idempotent: bool,
        check: Callable[[Reply], T],
        channel: str = "",
        params: Mapping[str, str] | None = None,
        json: Any = None,
        data: bytes | Mapping[str, str] | None = None,
        files: Mapping[str, tuple[str, bytes, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        credential: Credential | None = None,
        retry: bool = True,
    ) -> T:
        """Send one call and return what ``check`` makes of the reply.

        ``json`` is sent as real UTF-8 (WeChat refuses ``\\uXXXX`` escapes). Raises the
        errors ``check`` raises, :class:`TransientError` when the network fails and every
        permitted retry is spent, or :class:`AmbiguousOutcome` (non-idempotent calls).
        ``retry=False`` sends an idempotent call once (a refused token is still renewed
        once): for calls counted against a quota, where the next poll is the retry.
        """
        path = urlsplit(url).path or "/"
        where = f"{method} {path}"
        body: bytes | Mapping[str, str] | None = data
        all_headers = {"User-Agent": self.user_agent, **(headers or {})}
        if json is not None:
            body = jsonlib.dumps(json, ensure_ascii=False).encode("utf-8")
            all_headers.setdefault("Content-Type", "application/json; charset=utf-8")
        refreshed = False
        attempts = 0
        used: dict[str, str] = {}

        def send_once() -> T:
            try:
                auth = dict(credential.params()) if credential else {}
            except CrosspostError as error:  # the token call already retried what it could
                raise _Final(error) from None
            used.clear()
            used.update(auth)
            reply = self._send(
                method, url, path, channel, idempotent, params, auth, body, files, all_headers
            )
            try:
                return check(reply)
            except ChannelError as error:
                if reply.status == 404:
                    self._point_at_base_url(error, url)
                raise

        def attempt() -> T:
            nonlocal refreshed, attempts
            attempts += 1
            self._wait_for_calm(where, path, channel)
            try:
                answer = send_once()
            except RateLimitedError as limited:
                self._slow_down(limited, path)
                raise
            except CredentialRejected as rejected:
                if credential is None or refreshed:
                    raise AuthError(
                        self.redact(str(rejected)), channel=channel, code=rejected.code
                    ) from None
                refreshed = True
                log.info("%s", self.redact(f"credential refused on {where}; refreshing it once"))
                credential.invalidate(dict(used))
                try:
                    return send_once()
                except CredentialRejected as again:
                    if again.again:  # passing trouble: the next run tries again, not this
                        # one (a retry here would be a third token, against the one refresh)
                        passing = TransientError(
                            self.redact(again.again), channel=channel, code=again.code
                        )
                        raise _Final(passing) from None
                    raise AuthError(
                        self.redact(f"{again} (again after a fresh token; check the account)"),
                        channel=channel,
                        code=again.code,
                    ) from None
            if self._calm.streak:
                with self._calm.lock:
                    self._calm.streak = 0
            return answer

        if not idempotent or not retry:
            return self._unwrap(attempt)
        start = self.clock()

        def attempts_until_done() -> T:
            """The first attempt, and tenacity for the rest once it failed in a way worth
            another: most calls succeed at once, and tenacity's machinery (a state
            machine, a dozen calls) cost a twentieth of a request's CPU for nothing."""
            try:
                return attempt()
            except BaseException as error:
                if not _retryable(error):
                    raise
                failed = error
            replayed = False

            def again() -> T:
                nonlocal replayed
                if not replayed:  # tenacity counts the first attempt: its failure
                    replayed = True
                    raise failed
                return attempt()

            retrying = tenacity.Retrying(
                sleep=self.sleep,
                stop=lambda state: self._stop(state, start),
                wait=self._wait,
                retry=tenacity.retry_if_exception(_retryable),
                before_sleep=lambda state: self._log_retry(state, where),
                reraise=True,
            )
            return retrying(again)

        try:
            return self._unwrap(attempts_until_done)
        except TransientError as error:
            if attempts > 1:
                advice = "" if "run again later" in str(error) else "; run again later"
                error.args = (f"{error} (gave up after {attempts} attempts{advice})",)
            raise

    # --- one send ---------------------------------------------------------------------

    def _send(
        self,
        method: str,
        url: str,
        path: str,
        channel: str,
        idempotent: bool,
        params: Mapping[str, str] | None,
        auth: Mapping[str, str],
        body: bytes | Mapping[str, str] | None,
        files: Mapping[str, tuple[str, bytes, str]] | None,
        headers: Mapping[str, str],
    ) -> Reply:
        where = f"{method} {path}"
        started = self.clock()
        try:
            status, answer_headers, content = self._exchange(
                method, url, {**(params or {}), **auth}, body, files, headers
            )
        except requests.exceptions.ReadTimeout as late:
            reason = (
                f"the answer was not complete within {self.timeouts.exchange:g} s"
                if isinstance(late, _Overdue)
                else f"no answer within {self.timeouts.read:g} s"
            )
            raise self._after_sending(reason, where, channel, idempotent) from None
        except (requests.exceptions.ConnectionError, requests.exceptions.ChunkedEncodingError) as e:
            if not was_sent(e):
                reason = short_reason(e)
                if isinstance(e, requests.exceptions.ProxyError):
                    reason = self.redact(f"{reason} {self._proxy_for(url)}") + (
                        "; check the *_PROXY variables, or name the host in NO_PROXY"
                    )
                elif unresolved(e):
                    reason = self.redact(self._unresolved(url))
                raise TransientError(
                    f"cannot connect for {where} ({reason}); nothing was sent, run again later",
                    channel=channel,
                    code="connect",
                ) from None
            raise self._after_sending(short_reason(e), where, channel, idempotent) from None
        except _BEFORE_SENDING as e:
            raise ConfigError(self.redact(f"cannot send {where}: {short_reason(e)}")) from None
        except requests.exceptions.RequestException as e:
            # Anything else (a broken gzip answer, too many redirects…) happened after the
            # platform received the request: ambiguous for an irreversible call.
            raise self._after_sending(short_reason(e), where, channel, idempotent) from None
        reply = Reply(method, path, status, MappingProxyType(dict(answer_headers)), content)
        log.debug("%s -> HTTP %d in %.2f s", where, reply.status, self.clock() - started)
        if reply.status == 429:
            retry_after = retry_after_seconds(reply.headers, self.wall_clock)
            raise RateLimitedError(
                f"HTTP 429 (too many requests) on {where}; slow down and run again later",
                channel=channel,
                code=429,
                retry_after=retry_after,
            )
        if reply.status >= 500:
            if not idempotent:
                raise self._after_sending(f"HTTP {reply.status}", where, channel, False)
            raise ServerError(
                f"HTTP {reply.status} on {where}",
                channel=channel,
                status=reply.status,
                retry_after=retry_after_seconds(reply.headers, self.wall_clock),
            )
        return reply

    def _exchange(
        self,
        method: str,
        url: str,
        params: Mapping[str, str],
        body: bytes | Mapping[str, str] | None,
        files: Mapping[str, tuple[str, bytes, str]] | None,
        headers: Mapping[str, str],
    ) -> tuple[int, Mapping[str, str], bytes]:
        """Send one request and read its whole answer: (status, headers, body).

        requests prepares the request (URL, query, form or multipart body) and picks the
        connection pool (proxies, TLS settings); urllib3 then sends it on that pool. The
        rest of ``Session.request`` (a cookie jar written from every answer and read for
        every request, hooks, a ``Response`` built, settings merged again) is skipped: it
        was a sixth of the CPU a request costs, which a wave of fifty uploads on two
        platforms spends while the wave waits, and no call here uses it (the platforms'
        cookies are headers the adapters write). The session's headers, query parameters
        and auth still apply. Failures are raised as requests raises them, so telling
        "nothing was sent" from "may have happened" reads the same errors. A session with
        a transport of its own (not requests' ``HTTPAdapter``) is used whole.
        """
        session = self.session
        timeout = (self.timeouts.connect, self.timeouts.read)
        plain = self._plain(method, url, params, body, files, headers)
        if plain is not None:
            whole, path_url, plain_headers = plain
            settings = session.merge_environment_settings(whole, {}, None, None, None)
            known = self._routes.known(session.get_adapter(whole), whole, settings)
            if known is not None:
                return _open(
                    known.pool,
                    method,
                    whole if known.whole_url else path_url,
                    body or None,
                    plain_headers,
                    chunked=False,
                    retries=known.retries,
                    timeout=timeout,
                    request=lambda: _as_prepared(method, whole, plain_headers, body or None),
                    deadline=(self.deadlines, self.timeouts.exchange),
                )
        merged = requests.structures.CaseInsensitiveDict(session.headers)
        merged.update(headers)
        prepared = requests.PreparedRequest()
        # ``prepare()`` step by step, without its cookie jar (an empty one: the session's
        # is never sent, see above) and hooks (none): the same request, less work.
        prepared.prepare_method(method)
        prepared.prepare_url(url, self._params(params))
        prepared.prepare_headers({k: v for k, v in merged.items() if v is not None})
        prepared.prepare_body(body or {}, dict(files) if files else None)
        prepared.prepare_auth(session.auth, url)
        assert prepared.url is not None  # prepare_url() raised for a URL it could not take
        settings = session.merge_environment_settings(prepared.url, {}, None, None, None)
        adapter = session.get_adapter(prepared.url)
        route = self._routes.find(adapter, prepared, settings)
        if route is None:  # a transport of its own: its own timeouts, no deadline here
            response = session.send(prepared, timeout=timeout, allow_redirects=False, **settings)
            return response.status_code, response.headers, response.content
        return _open(
            route.pool,
            method,
            route.request_url(prepared),
            prepared.body,
            prepared.headers,
            chunked=not (prepared.body is None or "Content-Length" in prepared.headers),
            retries=route.retries,
            timeout=timeout,
            request=lambda: prepared,
            deadline=(self.deadlines, self.timeouts.exchange),
        )

    def _plain(
        self,
        method: str,
        url: str,
        params: Mapping[str, str],
        body: bytes | Mapping[str, str] | None,
        files: Mapping[str, tuple[str, bytes, str]] | None,
        headers: Mapping[str, str],
    ) -> tuple[str, str, dict[str, str]] | None:
        """The URL, the request line's target and the headers requests would prepare for a
        plain request, worked out directly; None for anything else, which requests
        prepares (and refuses, when it must).

        Plain: no form or multipart body (JSON and raw bytes are already bytes), a URL in
        characters that need no quoting (:data:`_PLAIN_URL`), text query parameters, and
        headers of printable ASCII, on a session without auth or query parameters of its
        own. requests' ``prepare_url`` (urllib3's parser, IDNA, re-quoting),
        ``prepare_headers`` (a check per header) and ``prepare_body`` cost some 60 µs of
        CPU per request, for each of a wave's hundreds of requests, while a plain request
        comes out of them as it went in: the same URL, the session's headers with the
        call's over them, a ``Content-Length``. ``tests/channels/test_http_plain.py`` holds
        the two ways to the same bytes on the wire.
        """
        session = self.session
        if files or isinstance(body, Mapping) or session.auth is not None or session.params:
            return None
        found = _PLAIN_URL.match(url)
        if found is None or "/." in found["path"] or int(found["port"] or 0) > 65535:
            return None  # dot segments: urllib3 would resolve them; a port it refuses
        pairs = [(k, v) for k, v in params.items() if v is not None]
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in pairs):
            return None
        query = found["query"]
        if pairs:
            encoded = urlencode(pairs)
            query = f"{query}&{encoded}" if query else encoded
        path_url = found["path"] + (f"?{query}" if query else "")
        # The session's headers, the call's over them (in the session's order, the call's
        # spelling), then the rest of the call's, as requests merges them; then the length.
        merged: dict[str, tuple[str, Any]] = {}
        for name, value in (*session.headers.items(), *headers.items()):
            if not isinstance(name, str):
                return None
            merged[name.lower()] = (name, value)
        if body or method not in ("GET", "HEAD"):  # an empty body is none, as in requests
            merged["content-length"] = ("Content-Length", str(len(body or b"")))
        plain_headers: dict[str, str] = {}
        for name, value in merged.values():
            if value is None:
                continue
            if not (isinstance(value, str) and _plain_header(name, value)):
                return None
            plain_headers[name] = value
        return found["origin"] + path_url, path_url, plain_headers

    def _params(self, params: Mapping[str, str]) -> Any:
        """The query: the session's parameters (none on crosspost's own sessions), then the
        call's, which win, as ``Session.request`` merges them."""
        if not self.session.params:
            return dict(params) or None
        return merge_setting(params, self.session.params)  # type: ignore[no-untyped-call]

    def _proxy_for(self, url: str) -> str:
        """The proxy the session sends ``url`` through, as ``scheme://host:port`` (its
        user and password left out), or "?" when there is none to name."""
        settings = self.session.merge_environment_settings(url, {}, None, None, None)
        proxy = select_proxy(url, settings["proxies"]) or ""
        parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        return _origin(parts) if parts.hostname else "?"

    def _point_at_base_url(self, error: ChannelError, url: str) -> None:
        """Add to a 404's message that ``base_url`` should be the host only, when it has a
        path: ``http://host/cgi-bin`` sends every call to ``/cgi-bin/cgi-bin/…``, which no
        platform knows, and the platform's word alone reads as a missing endpoint."""
        if not self.base_url:
            return
        base = urlsplit(self.base_url)
        if base.path.strip("/") == "" or urlsplit(url).hostname != base.hostname:
            return
        host_only = _origin(base)
        hint = (
            f"check base_url in the config: it should be the host only ({host_only}), "
            f"without {base.path.rstrip('/')}"
        )
        error.args = (self.redact(f"{error}; {hint}"),)

    def _unresolved(self, url: str) -> str:
        """A host name that does not resolve, named, and where it came from: a host of the
        config's ``base_url`` may be a typo; a platform's own host means DNS trouble."""
        host = urlsplit(url).hostname or "?"
        configured = urlsplit(self.base_url).hostname if self.base_url else None
        if host == configured:
            return (
                f"the host name {host} cannot be resolved: check base_url in the config for "
                "a typo; if it is right, DNS is down"
            )
        return f"the host name {host} cannot be resolved: DNS is down, or this machine is offline"

    def _after_sending(self, reason: str, where: str, channel: str, idempotent: bool) -> Exception:
        reason = self.redact(reason)
        if idempotent:
            return TransientError(f"{reason} on {where}", channel=channel, code="network")
        return AmbiguousOutcome(
            f"{reason} on {where} after the request was sent: it may or may not have happened",
            channel=channel,
            reason=reason,
        )

    def _unwrap(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except _Final as final:
            raise final.error from None
        except ChannelError as error:
            # A check may have put response text in the message: redact once more.
            clean = self.redact(str(error))
            if clean != str(error):
                error.args = (clean,)
            raise

    # --- one pause for every request ---------------------------------------------------

    def _wait_for_calm(self, where: str, path: str, channel: str) -> None:
        """Sleep out the pause the platform asked for before sending; a pause past the
        retry cap is not waited for: the request fails at once, unsent."""
        with self._calm.lock:
            found = [p for p in map(self._calm.pauses.get, (None, path)) if p is not None]
        pause = max(found, key=lambda p: p.until, default=None)
        left = pause.until - self.clock() if pause else 0.0
        if pause is None or left <= 0:
            return
        if left > self.retry.max_total_seconds:
            raise RateLimitedError(
                f"{pause.reason}; {where} not sent: the platform asked to wait {left:.0f} s",
                channel=channel,
                code=pause.code,
                retry_after=left,
            )
        self.sleep(left)

    def _slow_down(self, limited: RateLimitedError, path: str) -> None:
        """The requests ``limited`` speaks for wait from now on: as long as the answer
        asked, else a backoff that doubles with each rate-limit answer in a row."""
        scope = None if limited.code == 429 else path
        with self._calm.lock:
            self._calm.streak += 1
            seconds = limited.retry_after
            if seconds is None:
                doubled = self.retry.initial_backoff * 2.0 ** (self._calm.streak - 1)
                seconds = min(self.retry.max_backoff, doubled)
            until = self.clock() + seconds
            known = self._calm.pauses.get(scope)
            if known is None or until > known.until:
                reason = self.redact(str(limited))
                self._calm.pauses[scope] = _Pause(until, reason, limited.code)

    # --- tenacity hooks ---------------------------------------------------------------

    def _wait(self, state: tenacity.RetryCallState) -> float:
        n = state.attempt_number
        backoff = min(self.retry.max_backoff, self.retry.initial_backoff * 2.0 ** (n - 1))
        backoff += backoff * self.retry.jitter * self.rng()
        error = state.outcome.exception() if state.outcome else None
        asked = getattr(error, "retry_after", None)
        return max(backoff, float(asked)) if asked is not None else backoff

    def _stop(self, state: tenacity.RetryCallState, start: float) -> bool:
        if state.attempt_number >= self.retry.max_attempts:
            return True
        upcoming = state.upcoming_sleep or 0.0
        return self.clock() - start + upcoming > self.retry.max_total_seconds

    def _log_retry(self, state: tenacity.RetryCallState, where: str) -> None:
        """``retry 1 of 3 after 0.5 s: …`` once the first attempt failed: retries are
        counted apart from the first attempt, so the first retry reads as the first."""
        error = state.outcome.exception() if state.outcome else None
        reason = str(error) if error else "?"
        if where not in reason:  # "HTTP 503" says which call; "cannot connect for …" does
            reason = f"{reason} on {where}"
        log.warning(
            "%s",
            self.redact(
                f"retry {state.attempt_number} of {self.retry.max_attempts - 1} after "
                f"{state.upcoming_sleep:.1f} s: {reason}"
            ),
        )


#: A URL that requests' preparation leaves as it is: http(s), a host name or IPv4 address
#: in lower case, a port (up to 65535), a path, a query; only characters that need no
#: quoting and no ``%`` escape (re-quoting would touch those), no user, no fragment. Dot segments
#: (``/./``, ``/../``) are checked apart. Anything else goes through requests.
_PLAIN_URL = pattern(
    r"(?P<origin>https?://[a-z0-9][a-z0-9.-]*(?::(?P<port>[1-9][0-9]{0,4}))?)"
    r"(?P<path>/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)"
    r"(?:\?(?P<query>[A-Za-z0-9\-._~!$&'()*+,;=:@/?]+))?\Z"
)


def _plain_header(name: str, value: str) -> bool:
    """A header requests' check would pass as it is: a printable ASCII name without a
    colon or a space, a printable ASCII value not starting with a space (the empty one
    too). Others go through requests, which refuses those it must."""
    return (
        name.isascii()
        and name.isprintable()
        and bool(name)
        and ":" not in name
        and " " not in name
        and value.isascii()
        and value.isprintable()
        and not value.startswith(" ")
    )


def _open(
    pool: HTTPConnectionPool,
    method: str,
    target: str,
    body: Any,
    headers: Mapping[str, str],
    *,
    chunked: bool,
    retries: Any,
    timeout: tuple[float, float],
    request: Callable[[], requests.PreparedRequest],
    deadline: tuple[Deadlines, float],
) -> tuple[int, Mapping[str, str], bytes]:
    """Send one request on ``pool`` and read its whole answer within ``deadline``
    (seconds, and what cuts the connection after them); urllib3's failures raised as
    requests raises them (``request`` makes the request they carry). An exchange cut at
    its deadline raises :class:`_Overdue`, whatever the cut made of it: an answer that
    ends with its connection can look whole when it was cut."""
    deadlines, seconds = deadline
    exchange = deadlines.begin(seconds)
    try:
        try:
            answer = pool.urlopen(
                method=method,
                url=target,
                body=body,
                headers=headers,
                redirect=False,
                assert_same_host=False,
                preload_content=False,
                decode_content=False,
                retries=retries,
                timeout=urllib3.Timeout(connect=timeout[0], read=timeout[1]),
                chunked=chunked,
            )
        except Exception as error:
            raise _sending_error(error, request()) from None
        try:
            content = answer.read(decode_content=True)
        except Exception as error:
            raise _reading_error(error, request()) from None
        finally:
            # Ended before the connection goes back to the pool: a cut after that would
            # fall on the next exchange's connection, or call a whole answer lost.
            deadlines.end(exchange)
            answer.release_conn()
    except requests.exceptions.RequestException as error:
        deadlines.end(exchange)
        if exchange.overdue:
            raise _Overdue(error, request=request()) from None
        raise
    finally:
        deadlines.end(exchange)  # once more: no harm, and nothing else skips it
    if exchange.overdue:
        raise _Overdue("cut at its deadline", request=request())
    return answer.status, answer.headers, content


class _Overdue(requests.exceptions.ReadTimeout):
    """The exchange outlasted its whole deadline and its connection was cut."""


def _as_prepared(
    method: str, url: str, headers: Mapping[str, str], body: Any
) -> requests.PreparedRequest:
    """The request a plain request's error carries, as requests would have prepared it."""
    prepared = requests.PreparedRequest()
    prepared.method, prepared.url, prepared.body = method, url, body
    prepared.headers = requests.structures.CaseInsensitiveDict(headers)
    return prepared


#: requests errors raised while preparing a request, before a byte leaves: bad settings.
_BEFORE_SENDING = (
    requests.exceptions.MissingSchema,
    requests.exceptions.InvalidSchema,
    requests.exceptions.InvalidURL,
    requests.exceptions.InvalidHeader,
    requests.exceptions.URLRequired,
)


#: What requests raises for each urllib3 error, first match winning: while a request is
#: sent and its answer's head read (a MaxRetryError stands for its reason, the second
#: table), and while the answer's body is read. Raising the same classes keeps the test of
#: "nothing was sent" (:func:`~crosspost.channels.http.wire.was_sent`) on familiar ground.
_Table = tuple[tuple[type[Exception] | UnionType, type[requests.exceptions.RequestException]], ...]
_low, _high = urllib3.exceptions, requests.exceptions
_WHILE_SENDING: _Table = (
    (_low.ProtocolError | OSError | _low.ClosedPoolError, _high.ConnectionError),
    (_low.ProxyError, _high.ProxyError),
    (_low.SSLError, _high.SSLError),
    (_low.ReadTimeoutError, _high.ReadTimeout),
    (_low.InvalidHeader, _high.InvalidHeader),
    (_low.HTTPError, _high.ConnectionError),  # sent, as far as anyone knows
)
_RETRIES_ENDED_BY: _Table = (
    (_low.NewConnectionError, _high.ConnectionError),
    (_low.ConnectTimeoutError, _high.ConnectTimeout),
    (_low.ResponseError, _high.RetryError),
    (_low.ProxyError, _high.ProxyError),
    (_low.SSLError, _high.SSLError),
    (Exception, _high.ConnectionError),
)
_WHILE_READING: _Table = (
    (_low.ProtocolError, _high.ChunkedEncodingError),
    (_low.DecodeError, _high.ContentDecodingError),
    (_low.SSLError, _high.SSLError),
    (_low.HTTPError | OSError, _high.ConnectionError),  # a read timeout in the body too
)


def _sending_error(error: Exception, request: requests.PreparedRequest) -> Exception:
    """What requests raises for urllib3's ``error`` while a request is sent."""
    if isinstance(error, _low.MaxRetryError):
        return _translated(error, error.reason or error, request, _RETRIES_ENDED_BY)
    return _translated(error, error, request, _WHILE_SENDING)


def _reading_error(error: Exception, request: requests.PreparedRequest) -> Exception:
    """What requests raises for urllib3's ``error`` while an answer's body is read."""
    return _translated(error, error, request, _WHILE_READING)


def _translated(
    error: Exception, judged: Exception, request: requests.PreparedRequest, table: _Table
) -> Exception:
    """The requests error for ``error`` by the first row of ``table`` that ``judged``
    matches (carrying ``error`` first, as requests does); ``error`` itself when none."""
    for low, high in table:
        if isinstance(judged, low):
            return high(error, request=request)
    return error


def _retryable(error: BaseException) -> bool:
    return isinstance(error, TransientError) and not isinstance(error, UnconfirmedError)
