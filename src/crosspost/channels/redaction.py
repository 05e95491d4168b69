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
import weakref

REDACTED = "***"

#: Parameter, form-field and JSON-key names whose values are secrets wherever they appear.
SENSITIVE_NAMES: tuple[str, ...] = (
    "access_token",
    "appsecret",
    "app_secret",
    "secret",
    "z_c0",
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
)
# Longest first, so "x-oss-security-token" wins over "security-token".
_NAMES = "|".join(re.escape(n) for n in sorted(SENSITIVE_NAMES, key=len, reverse=True))
# access_token=abc (URLs, forms, "key: value" text, x-oss-security-token:abc headers).
_PAIR = re.compile(rf"(?i)(?<![\w-])({_NAMES})(\s*[=:]\s*)(?![\s\"'])([^&\s#\"',;)}}\]]+)")
# "secret": "abc" (JSON), {'access_token': 'abc'} (a repr), secret: "abc" (YAML, TOML).
_QUOTED_PAIR = re.compile(
    rf"""(?i)(?<![\w-])(["']?)({_NAMES})\1(\s*[=:]\s*\[?\s*)(["'])((?:(?!\4)[^\\]|\\.)*)\4"""
)
_HEADER_LINE = re.compile(r"(?im)^(\s*(?:(?:set-)?cookie|authorization)\s*:\s*)(.+)$")
#: Registered values shorter than this are not redacted (they would mangle ordinary text).
_MIN_SECRET_LEN = 6


class Redactor:
    """Hides secrets in any text: sensitive ``name=value`` pairs and registered values."""

    def __init__(self) -> None:
        self._values: set[str] = set()

    def register(self, value: str | None) -> None:
        """Remember a secret value (token, AppSecret, cookie) so it never shows."""
        if value and len(value) >= _MIN_SECRET_LEN:
            self._values.add(value)

    def __call__(self, text: str) -> str:
        for value in sorted(self._values, key=len, reverse=True):
            text = text.replace(value, REDACTED)
        text = _QUOTED_PAIR.sub(rf"\g<1>\g<2>\g<1>\g<3>\g<4>{REDACTED}\g<4>", text)
        text = _PAIR.sub(rf"\g<1>\g<2>{REDACTED}", text)
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
