"""What an adapter's ``check`` sees (:class:`Reply`) and raises, and how transport failures
read: was the request sent, in a few words why it failed, how long the server asks to wait.

Split from :mod:`crosspost.channels.http.policy` (which re-exports the public names) so the policy
module stays about the policy.
"""

from __future__ import annotations

import errno
import html
import http.client
import json as jsonlib
import math
import re
import ssl
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

import requests
import urllib3.exceptions

from crosspost.errors import AuthError, TransientError, UnconfirmedError
from crosspost.patterns import pattern


@dataclass(frozen=True)
class Reply:
    """One HTTP response, as an adapter's ``check`` sees it."""

    method: str
    #: The URL path only (no query string, so no token): safe for messages.
    path: str
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def where(self) -> str:
        """``POST /cgi-bin/draft/add``: how messages name the call."""
        return f"{self.method} {self.path}"

    def json(self) -> Any:
        """The body parsed as JSON whatever the Content-Type says (WeChat's uploadimg
        answers ``text/plain``). Raises ValueError when the body is not JSON.

        Read leniently, as WeChat writes it: a raw control character inside a string (a
        tab or a line feed pasted into an article WeChat lists back) and a byte that is
        not UTF-8 are taken as they come, not as "not JSON", which made every run fail
        on the article listing until someone removed that article by hand."""
        return jsonlib.loads(self.body.decode("utf-8-sig", errors="replace"), strict=False)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def header(self, name: str) -> str:
        """The value of header ``name``, whatever its case ("" when absent)."""
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), "")

    @property
    def is_html(self) -> bool:
        """An HTML page (a proxy's, a firewall's, a login portal's), by its Content-Type
        or, when that is missing or wrong, by how the body starts."""
        kind = self.header("content-type")
        start = self.body.lstrip(b"\xef\xbb\xbf \t\r\n")[:15].lower()
        return "html" in kind.lower() or start.startswith((b"<!doctype html", b"<html"))

    @property
    def redirect_host(self) -> str | None:
        """Where a redirect (HTTP 3xx with a ``Location``) points: its host only, never
        its path or query (a login portal's query may carry a ticket or the token);
        ``""`` for a redirect on the same host; None when this is no redirect."""
        if not 300 <= self.status < 400:
            return None
        location = self.header("location")
        if not location.strip():
            return None
        try:
            return urlsplit(location.strip()).hostname or ""
        except ValueError:  # a Location that is no URL at all: somewhere not named
            return ""

    @property
    def title(self) -> str:
        """The ``<title>`` of an HTML page, in its first 4 KB ("" for any other answer)."""
        found = _TITLE.search(self.text[:4096]) if self.is_html else None
        return " ".join(html.unescape(found.group(1)).split()) if found else ""

    def instead_of_json(self, platform: str) -> str:
        """What came back where ``platform``'s JSON was expected, for a message:
        ``an HTML page came back (HTTP 403, "403 Forbidden") instead of Zhihu's JSON``,
        ``a redirect to mp.weixin.qq.com came back (HTTP 302) …``."""
        host = self.redirect_host
        if host is not None:
            where = f"to {host}" if host else "on the same host"
            return f"a redirect {where} came back (HTTP {self.status}) instead of {platform}'s JSON"
        what = "an HTML page" if self.is_html else "an answer that is not JSON"
        title = self.title[:80]
        detail = f'HTTP {self.status}, "{title}"' if title else f"HTTP {self.status}"
        return f"{what} came back ({detail}) instead of {platform}'s JSON"


#: A page's title, for naming the page that came back instead of JSON.
_TITLE = pattern(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)

#: Who sends a page where a platform's JSON belongs, and what to do about it.
IN_THE_WAY = (
    "a proxy, firewall or login page is in the way; run again later, and if it repeats, "
    "check the proxy settings and the firewall"
)


class CredentialRejected(AuthError):
    """Raised by a ``check``: the platform refused the credential (token expired, …).

    The policy drops the cached credential and re-sends once with a fresh one. ``again``
    is what a second refusal, of the fresh credential, means on this platform when that
    is passing trouble (WeChat: another program fetching tokens for the same AppID):
    the policy then raises it as temporary. Without it, a second refusal is the
    credential's own fault (an :class:`AuthError`).
    """

    def __init__(
        self, message: str, *, channel: str = "", code: int | str | None = None, again: str = ""
    ) -> None:
        super().__init__(message, channel=channel, code=code)
        self.again = again


class AmbiguousOutcome(UnconfirmedError):
    """A non-idempotent call failed after it was sent: it may or may not have happened.

    Adapters catch it and raise their own :class:`UnconfirmedError` naming the reconcile
    step; ``reason`` is a short redacted description ("HTTP 502", "read timeout").
    """

    def __init__(self, message: str, *, channel: str = "", reason: str = "") -> None:
        super().__init__(message, channel=channel, code="unconfirmed")
        self.reason = reason


class ServerError(TransientError):
    """HTTP 5xx on an idempotent call (retried; ``Retry-After`` honoured when sent)."""

    def __init__(self, message: str, *, channel: str, status: int, retry_after: float | None):
        super().__init__(message, channel=channel, code=status)
        self.retry_after = retry_after


class Credential(Protocol):
    """A credential sent as query parameters (WeChat's access_token)."""

    def params(self) -> Mapping[str, str]:
        """The query parameters to add now (may fetch a token through the same policy)."""
        ...

    def invalidate(self, rejected: Mapping[str, str]) -> None:
        """Drop the cached credential if it is still the one the platform refused."""
        ...


# --- transport failures ----------------------------------------------------------------


def was_sent(error: requests.exceptions.RequestException) -> bool:
    """False only when the failure happened while connecting (nothing reached the server).

    A proxy that cannot be reached is such a failure: urllib3 reports one as a
    ``ProxyError`` only while the connection to the proxy is not yet made.
    """
    not_yet = requests.exceptions.ConnectTimeout | requests.exceptions.SSLError
    if isinstance(error, not_yet | requests.exceptions.ProxyError):
        return False
    inner = error.args[0] if error.args else None
    if isinstance(inner, urllib3.exceptions.MaxRetryError):
        inner = inner.reason
    return not isinstance(
        inner,
        urllib3.exceptions.NewConnectionError
        | urllib3.exceptions.ConnectTimeoutError
        | urllib3.exceptions.ProxyError,
    )


def short_reason(error: BaseException) -> str:
    """The innermost reason of a requests error in a few words, without the URL it carries.

    The error's type decides before its text does: the text of a failure to connect names
    the host, and a host called ``reset.example`` or ``closed.example`` is no reset or
    closed connection. The text is read only for what broke off after connecting.
    """
    inner = _innermost(error)
    if isinstance(inner, urllib3.exceptions.ProxyError):
        return "cannot reach the proxy"
    if isinstance(inner, urllib3.exceptions.NameResolutionError):
        return UNRESOLVED
    if isinstance(inner, urllib3.exceptions.NewConnectionError):  # before its base class
        return _not_connected(inner.__cause__ or inner.__context__)
    if isinstance(inner, urllib3.exceptions.ConnectTimeoutError):
        return "no connection within the connect timeout"
    if isinstance(inner, urllib3.exceptions.SSLError | ssl.SSLError):
        return _tls_failed(inner)
    if isinstance(inner, urllib3.exceptions.ReadTimeoutError | TimeoutError):
        return "the answer stopped coming (read timeout)"
    if isinstance(inner, urllib3.exceptions.DecodeError | zlib.error):
        # A gzip body that does not unpack: cut off on the way or damaged by a proxy.
        return "the answer came back cut off or corrupted (its compressed body did not unpack)"
    text = str(inner).lower()
    if isinstance(inner, http.client.IncompleteRead) or "incompleteread" in text:
        return "the answer was cut off before its end"
    if isinstance(inner, ConnectionResetError) or "reset" in text:
        return "connection reset"
    if isinstance(inner, http.client.RemoteDisconnected) or "closed" in text:
        return "connection closed without an answer"
    return type(inner).__name__ if inner is not None else type(error).__name__


#: What :func:`short_reason` says of a host name that does not resolve (DNS said there is
#: no such name, or did not answer): the policy adds the host and where it came from.
UNRESOLVED = "the host name cannot be resolved"

#: errno of a connection that could not be opened → what it means.
_CONNECT_ERRNOS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ENETUNREACH: "network unreachable",
    errno.EHOSTUNREACH: "host unreachable",
    errno.ETIMEDOUT: "no connection within the connect timeout",
    errno.ECONNRESET: "connection reset while connecting",
}


def unresolved(error: BaseException) -> bool:
    """Whether ``error`` is a host name that cannot be resolved (not a refused connection)."""
    return isinstance(_innermost(error), urllib3.exceptions.NameResolutionError)


def _innermost(error: BaseException) -> BaseException | None:
    """The error a requests error wraps, through urllib3's MaxRetryError."""
    inner: BaseException | None = error
    while inner is not None and inner.args and isinstance(inner.args[0], BaseException):
        inner = inner.args[0]
    if isinstance(inner, urllib3.exceptions.MaxRetryError) and inner.reason is not None:
        inner = inner.reason
    return inner


def _not_connected(cause: BaseException | None) -> str:
    """Why a connection could not be opened, from the OSError behind it."""
    if isinstance(cause, OSError) and cause.errno in _CONNECT_ERRNOS:
        return _CONNECT_ERRNOS[cause.errno]
    if isinstance(cause, OSError) and cause.strerror:
        return f"cannot open a connection: {cause.strerror.lower()}"
    return "cannot open a connection"


def _tls_failed(error: BaseException) -> str:
    """``TLS failed: certificate verify failed: self-signed certificate``: what OpenSSL
    said, without the source file it names."""
    found: BaseException | None = error
    while found is not None and not isinstance(found, ssl.SSLError):
        found = found.args[0] if found.args and isinstance(found.args[0], BaseException) else None
    if isinstance(found, ssl.SSLCertVerificationError) and found.verify_message:
        return f"TLS failed: certificate verify failed: {found.verify_message}"
    if isinstance(found, ssl.SSLError) and found.reason:
        return f"TLS failed: {found.reason.lower().replace('_', ' ')}"
    return "TLS failed"


def retry_after_seconds(
    headers: Mapping[str, str], now: Callable[[], float] = time.time
) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date).

    ``now`` is the wall clock (seconds since the epoch) an HTTP date is measured from;
    injected so tests never depend on the real time.
    """
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, float(when.timestamp()) - now())
