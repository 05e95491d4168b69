"""Redaction: no secret (AppSecret, access_token, cookie) leaves crosspost in any text.

Two nets: every value registered with :meth:`Redactor.register` (the account's
credentials, each token as it is fetched) is replaced wherever it appears, and the value
of every sensitive ``name=value`` pair, quoted key (JSON, a Python repr, YAML), Cookie or
Authorization header is hidden even when the value was never registered (a token in a URL
that some library put in an error message).

Share ONE :class:`Redactor` per run: give it to the HTTP policy (``HttpPolicy(redactor=)``),
the ledger (``Ledger.open(redact=)``) and the log handlers (:class:`RedactingFilter`), so a
token fetched mid-run is hidden in all three.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote, urlsplit

from crosspost.patterns import pattern

if TYPE_CHECKING:
    from crosspost.config.accounts import Secret

REDACTED = "***"

#: Parameter, form-field and JSON-key names whose values are secrets wherever they appear.
SENSITIVE_NAMES: tuple[str, ...] = (
    "access_token",
    "appsecret",
    "app_secret",
    "secret",
    "z_c0",
    "d_c0",
    "_xsrf",
    "xsrf",
    "x-xsrftoken",
    "access_key_secret",
    "accesskeysecret",
    "access_key",
    "security_token",
    "securitytoken",
    "security-token",
    "x-oss-security-token",
    "upload_token",
    "authorization",
    "signature",
    "password",
)
# Longest first, so "x-oss-security-token" wins over "security-token".
_NAMES = "|".join(re.escape(n) for n in sorted(SENSITIVE_NAMES, key=len, reverse=True))
# access_token=abc (URLs, forms, "key: value" text, x-oss-security-token:abc headers).
_PAIR = pattern(rf"(?i)(?<![\w-])({_NAMES})(\s*[=:]\s*)(?![\s\"'])([^&\s#\"',;)}}\]]+)")
# "secret": "abc" (JSON), {'access_token': 'abc'} (a repr), secret: "abc" (YAML, TOML).
_QUOTED_PAIR = pattern(
    rf"""(?i)(?<![\w-])(["']?)({_NAMES})\1(\s*[=:]\s*\[?\s*)(["'])((?:(?!\4)[^\\]|\\.)*)\4"""
)
_HEADER_LINE = pattern(r"(?im)^(\s*(?:(?:set-)?cookie|authorization)\s*:\s*)(.+)$")
# postgresql://user:PASSWORD@host/db (a ledger URL, a notification URL with a login).
_URL_PASSWORD = pattern(r"(?i)(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)([^@\s/]+)(@)")
#: Registered values shorter than this are not redacted (they would mangle ordinary text).
_MIN_SECRET_LEN = 6


class Redactor:
    """Hides secrets in any text: sensitive ``name=value`` pairs and registered values."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        # One redactor serves a whole run: the ledger, the log and every adapter's
        # threads register and redact at once.
        self._lock = threading.Lock()

    def register(self, value: str | None) -> None:
        """Remember a secret value (token, AppSecret, cookie) so it never shows."""
        if value and len(value) >= _MIN_SECRET_LEN:
            with self._lock:
                self._values.add(value)

    def __call__(self, text: str) -> str:
        with self._lock:
            values = sorted(self._values, key=len, reverse=True)
        for value in values:
            text = text.replace(value, REDACTED)
        text = _QUOTED_PAIR.sub(rf"\g<1>\g<2>\g<1>\g<3>\g<4>{REDACTED}\g<4>", text)
        text = _PAIR.sub(rf"\g<1>\g<2>{REDACTED}", text)
        text = _URL_PASSWORD.sub(rf"\g<1>{REDACTED}\g<3>", text)
        return _HEADER_LINE.sub(rf"\g<1>{REDACTED}", text)


class RedactingFilter(logging.Filter):
    """A logging filter for handlers: redacts the formatted message of every record."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redactor(record.getMessage())
        record.args = None
        return True


#: Libraries that log full URLs (urllib3 logs every request line at DEBUG, query included).
LIBRARY_LOGGERS = ("urllib3.connectionpool", "urllib3.util.retry", "requests")
_LIVE: weakref.WeakSet[Redactor] = weakref.WeakSet()


class _LibraryFilter(logging.Filter):
    """Redacts records of third-party loggers with every live redactor."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        for redactor in list(_LIVE):
            text = redactor(text)
        record.msg = Redactor()(text)
        record.args = None
        return True


_LIBRARY_FILTER = _LibraryFilter()


def guard_library_loggers(redactor: Redactor) -> None:
    """Make ``redactor`` apply to the records of :data:`LIBRARY_LOGGERS` too."""
    _LIVE.add(redactor)
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        if _LIBRARY_FILTER not in logger.filters:
            logger.addFilter(_LIBRARY_FILTER)


def redactor_for(secrets: Iterable[Any], urls: Sequence[Secret] = ()) -> Redactor:
    """A run's redactor: it knows every credential and each token-like part of the notify
    URLs; the adapters teach it the tokens they fetch while the run goes on."""
    redactor = Redactor()
    for secret in secrets:
        redactor.register(secret.reveal() if hasattr(secret, "reveal") else str(secret))
    for url in urls:
        for part in url_parts(url.reveal()):
            redactor.register(part)
    return redactor


def url_parts(url: str) -> list[str]:
    """The URL and each piece of it that may be a token: user, password, path, query values."""
    parts = [url]
    try:
        split = urlsplit(url)
    except ValueError:
        return parts
    parts += [unquote(split.password)] if split.password else []
    # Other pieces are tokens when they look like one (digits in a long word, or very
    # long): a Telegram bot token sits where a host would, a Pushover key where a user
    # would; words such as "services", "hooks" or a plain user name stay readable.
    pieces = re.split(r"[@:]", split.netloc) + split.path.split("/")
    parts += [
        unquote(p) for p in pieces if len(p) >= 20 or (len(p) >= 8 and any(c.isdigit() for c in p))
    ]
    parts += [value for _, value in parse_qsl(split.query) if value]
    return parts
