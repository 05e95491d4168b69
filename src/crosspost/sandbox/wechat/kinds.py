"""Account kinds: which API families an emulated WeChat account may call.

The emulator's own copy of spec wechat-broadcast-and-accounts.md §2–3 (the sandbox may
not import ``crosspost.platforms``: it knows the platform from the specs, never from the
client). The option ``account_kind`` picks the row; the older ``verified = false`` still
means an unverified account.

| kind | draft/* | freepublish/* | message/mass/* | mass quota |
|---|---|---|---|---|
| verified_subscription | yes | yes | yes | one send per Beijing day |
| verified_service | yes | yes | yes | four per follower per calendar month |
| unverified, personal | yes | 48001 | 48001 | (by hand) one send per Beijing day |
| lapsed | 48001 | 48001 | 48001 | (by hand) one send per Beijing day |

Material and image uploads stay open to every kind: the spec names no refusal there. The
quota of a kind that may not mass send through the API is the one the web console holds
its sends to (``by_hand``), the subscription account's.
"""

from __future__ import annotations

from dataclasses import dataclass

from crosspost.errors import UsageError

#: API families a route can belong to; a route in none is open to every kind.
DRAFT, PUBLISH, MASS = "draft", "publish", "mass"


@dataclass(frozen=True)
class Kind:
    """What one kind of account may call, and how its mass sends are counted."""

    families: frozenset[str]
    #: "day": sends per Beijing day; "month": pushes per follower per calendar month.
    mass_quota: str = "day"
    mass_limit: int = 1


_ALL = frozenset({DRAFT, PUBLISH, MASS})

KINDS: dict[str, Kind] = {
    "verified_subscription": Kind(_ALL),
    "verified_service": Kind(_ALL, mass_quota="month", mass_limit=4),
    "unverified": Kind(frozenset({DRAFT})),
    "personal": Kind(frozenset({DRAFT})),
    "lapsed": Kind(frozenset()),
}

#: The cgi paths of each family, for ``openapi/quota/get``.
FAMILY_PREFIXES = {
    DRAFT: "/cgi-bin/draft/",
    PUBLISH: "/cgi-bin/freepublish/",
    MASS: "/cgi-bin/message/mass/",
}


def kind_named(name: object, *, verified: object = True) -> Kind:
    """The row for ``name``; a verified kind reads as unverified when ``verified`` is off.

    An unknown name is a mistake in the sandbox's options: one line naming the kinds."""
    if not isinstance(name, str) or name not in KINDS:
        raise UsageError(
            f"wechat.account_kind {name!r} is not a kind; use one of {', '.join(KINDS)}"
        )
    if not verified and name.startswith("verified_"):
        return KINDS["unverified"]
    return KINDS[name]


def family_of(path: str) -> str | None:
    """The family a cgi path belongs to (None: open to every kind)."""
    for family, prefix in FAMILY_PREFIXES.items():
        if path.startswith(prefix):
            return family
    return None
