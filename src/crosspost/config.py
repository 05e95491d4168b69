"""The one settings path: CLI flag > environment > ``.env`` > config file > default.

Everything crosspost can be told (where the ledger lives, the default mode, the accounts
of each channel) is resolved here, once, by :func:`load_settings`, and every value
remembers where it came from (:meth:`Settings.source_of`), so "why is it publishing to
that account?" has a one-line answer. Secrets never live in the config file: an account
names the environment variables that hold its credentials, and those are wrapped in
:class:`Secret` the moment they are read. Nothing here prompts, ever: cron has no one to
answer.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NoReturn

#: Credential keys each channel's adapter needs, and the ones it can do without.
REQUIRED_CREDENTIALS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"wechat": ("app_id", "app_secret"), "zhihu": ("z_c0",)}
)
OPTIONAL_CREDENTIALS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"wechat": (), "zhihu": ("xsrf",)}
)


class Secret:
    """A credential whose value only :meth:`reveal` hands out.

    ``repr``, ``str`` and every f-string show ``***``, so a secret that slips into a log
    line, an exception or a test snapshot shows nothing. Pickling is refused, because a
    pickle is a log by other means (multiprocessing queues, caches).
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The real value, for the one place that sends it (an HTTP request)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"

    def __format__(self, spec: str) -> str:
        return "***"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret cannot be pickled; pass the account's name and resolve it again")


@dataclass(frozen=True)
class Account:
    """One account on one channel, e.g. the ``main`` WeChat Official Account.

    ``base_url`` None means the real platform; a URL (the sandbox, a proxy) replaces the
    platform's hosts with the same paths. ``options`` holds the account's other keys from
    the config file (``mode``, ``column``, ``author``, …) over the channel's defaults.
    """

    channel: str
    name: str
    base_url: str | None
    credentials: Mapping[str, Secret]
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: Credential key → the environment variable it is read from (for messages only).
    credential_env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def key(self) -> str:
        """``"wechat:main"``: how the ledger, the CLI and messages name this account."""
        return f"{self.channel}:{self.name}"

    @property
    def mode(self) -> str | None:
        """The account's own ``draft``/``publish`` default, when the config sets one."""
        value = self.options.get("mode")
        return str(value) if value is not None else None

    def missing_credentials(self) -> tuple[str, ...]:
        """Required credential keys that no environment variable provided."""
        required = REQUIRED_CREDENTIALS.get(self.channel, ())
        return tuple(k for k in required if not self.credentials.get(k))

    def __hash__(self) -> int:
        return hash(self.key)
