"""An account and its credentials: the types every other module is handed.

:class:`Secret` hides a credential by construction (``repr``, ``str`` and f-strings show
``***``); :class:`Account` is one account on one channel, as the settings resolved it.
The settings (:mod:`crosspost.config.settings`) build them; everything downstream only
reads them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NoReturn

from crosspost.config.advice import command_line

__all__ = [
    "IDENTITY_CREDENTIALS",
    "MEMBER",
    "OPTIONAL_CREDENTIALS",
    "REQUIRED_CREDENTIALS",
    "SECRET_CREDENTIALS",
    "Account",
    "Secret",
]

#: Credential keys each channel's adapter needs, and the ones it can do without.
REQUIRED_CREDENTIALS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"wechat": ("app_id", "app_secret"), "zhihu": ("z_c0",)}
)
OPTIONAL_CREDENTIALS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"wechat": (), "zhihu": ("xsrf", "d_c0")}
)
#: Credential keys whose values are secret. WeChat's app_id is public (it is printed in
#: messages an operator needs, e.g. which IP whitelist to edit), so it is not among them.
SECRET_CREDENTIALS = frozenset({"app_secret", "z_c0", "xsrf", "d_c0"})
#: The credential that names the platform account behind an account's name: WeChat's
#: AppID is the Official Account; Zhihu's z_c0 is one member's login.
IDENTITY_CREDENTIALS: Mapping[str, str] = MappingProxyType({"wechat": "app_id", "zhihu": "z_c0"})
#: The kind of identity that names a platform account for good where a login does not:
#: Zhihu's member (``GET /api/v4/me``), the same whatever z_c0 the editor pasted last.
MEMBER = "member"


def identity_digest(channel: str, *parts: str) -> str:
    """Sixteen hex digits of SHA-256 over the channel and ``parts``: which account it is,
    and nothing a credential or a person's id could be read back from."""
    material = "\0".join((channel, *parts))
    return hashlib.sha256(material.encode()).hexdigest()[:16]


def member_identity(channel: str, member_id: str) -> str:
    """The identity of the member a login logs in as (Zhihu's ``id`` from ``/api/v4/me``),
    as :func:`identity_digest` hides it: a member's id names a person."""
    return identity_digest(channel, MEMBER, member_id)


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
    #: Limit name → value, from ``[channels.C.limits]`` with the account's own ``limits``
    #: table laid over it (see ``Platform.with_overrides``).
    limits: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: What kind of WeChat Official Account this is (``kind = "personal"``, a key of
    #: ``platforms.wechat.ACCOUNT_KINDS``), which decides what it may call; None: not
    #: said, so a run may ask WeChat (``openapi/quota/get``, read-only).
    kind: str | None = None
    #: An account of a ``--sandbox`` rehearsal (the built-in sandbox's): the commands its
    #: messages advise carry ``--sandbox`` (see :mod:`crosspost.config.advice`), and its
    #: calls go straight to ``base_url``, never through the proxy the environment names
    #: (``HTTPS_PROXY``…): its emulators listen on this machine's loopback, and a
    #: rehearsal promises that nothing leaves the machine.
    rehearsal: bool = False

    @property
    def key(self) -> str:
        """``"wechat:main"``: how the ledger, the CLI and messages name this account."""
        return f"{self.channel}:{self.name}"

    @property
    def mode(self) -> str | None:
        """The account's own ``draft``/``publish`` default, when the config sets one."""
        value = self.options.get("mode")
        return str(value) if value is not None else None

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The credentials to hide in every message and log (not the public app_id)."""
        return tuple(v for k, v in self.credentials.items() if k in SECRET_CREDENTIALS)

    def command(self, *words: str) -> str:
        """``crosspost WORDS`` for a message about this account: with ``--sandbox`` when
        the account is a rehearsal's, so the advice runs as printed."""
        return command_line(*words, rehearsal=self.rehearsal)

    def missing_credentials(self) -> tuple[str, ...]:
        """Required credential keys that no environment variable provided."""
        required = REQUIRED_CREDENTIALS.get(self.channel, ())
        return tuple(k for k in required if not self.credentials.get(k))

    def pointed_at(self, base_url: str, credentials: Mapping[str, str]) -> Account:
        """This account aimed at another server (the sandbox) with that server's credentials."""
        secrets = MappingProxyType({k: Secret(v) for k, v in credentials.items()})
        return dataclasses.replace(self, base_url=base_url, credentials=secrets)

    @property
    def identity(self) -> str | None:
        """Which account on the platform this name stands for, as sixteen hex digits (a
        digest: no credential can be read back from it), or None without credentials.

        The ledger keeps it with each post, so a post made under one name is known under
        another: an account renamed in the config, or two names for one Official Account,
        must not get the same issue again (see ``publish.same_issue``). The server is
        left out: the same account reached through a proxy is the same account. A Zhihu
        login changes at each new login: a Zhihu post keeps its member instead, once the
        run's login check has said which (see :attr:`identity_kind`).
        """
        login = self.credentials.get(self.identity_kind)
        if not login:
            return None
        return identity_digest(self.channel, login.reveal())

    @property
    def identity_kind(self) -> str:
        """What :attr:`identity` is a digest of: the channel's identity credential
        (``app_id``, ``z_c0``). A Zhihu login is one member's until the login check
        (``/api/v4/me``) says which member: the post then keeps the member
        (:func:`member_identity`, kind :data:`MEMBER`)."""
        return IDENTITY_CREDENTIALS.get(self.channel, "")

    def fingerprint(self) -> str:
        """A short digest of what shapes this account's posts (server, options, credentials).

        The ledger keeps it with a permanent failure, which is retried only once the
        fingerprint (or the issue) changes: a fixed AppSecret or IP whitelist entry in
        ``.env``/config counts as a change. Sixteen hex digits of SHA-256: no secret
        can be read back from it.
        """
        material = {
            "account": self.key,
            "base_url": self.base_url,
            "options": dict(self.options),
            "credentials": {k: v.reveal() for k, v in sorted(self.credentials.items())},
        }
        if self.kind is not None:  # absent when unset, so older fingerprints stay the same
            material["kind"] = self.kind
        text = json.dumps(material, sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def __hash__(self) -> int:
        return hash(self.key)
