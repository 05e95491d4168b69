"""The words a person reads for how a post stands, the same in every command.

The ledger names its states for the machine (``draft_created``, ``assets_uploaded``), and
a run's results name what the run did (``pending``: it stopped short, try later). A
person reads one set of words: ``publish``, ``reconcile``, ``status`` and ``urls`` all
say ``drafted`` for a post whose draft is made, ``not sent`` for one nothing reached a
platform of yet. README ("Status") lists them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crosspost.ledger.store import Ledger, PostKey, PostRecord
    from crosspost.publish.jobs import PostResult

#: The ledger's states in the words every command prints. Every ledger state has one (a
#: test holds the two lists together).
STATE_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "rendered": "not sent",
        "assets_uploaded": "images uploaded",
        "draft_created": "drafted",
        "submitted": "publishing",
        "published": "published",
        "failed": "failed",
        "unconfirmed": "unconfirmed",
    }
)
#: A mass-sent post (WeChat 群发) by how its send stands, in the same words' place.
MASS_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "sending": "sending to followers",
        "waiting": "sending, or waiting for confirmation",
        "sent": "sent to followers",
        "deleted": "sent, then deleted",
        "failed": "send failed",
    }
)
#: A post whose last irreversible call has no recorded answer: a run is at it right now,
#: or one died there. The next run (or ``crosspost reconcile``) asks the platform.
UNFINISHED = "unfinished"
#: What a run did to a post that its state does not say, shown as they are: it found
#: the post as it was (``unchanged``), saw an edit it needs ``--update`` for
#: (``changed``), did not attempt it (``skipped``), holds it for approval (``waiting``).
#: Every other result (``pending`` among them) is shown as the state the run left the
#: post in, the word ``status`` shows for it.
RUN_WORDS = frozenset({"unchanged", "changed", "skipped", "waiting"})


def state_word(record: PostRecord) -> str:
    """The post's state as a person reads it (see :data:`STATE_WORDS`)."""
    if record.pending_step and record.state not in ("published", "unconfirmed"):
        return UNFINISHED
    if record.delivery == "broadcast" and record.state in ("submitted", "published"):
        return MASS_WORDS.get(record.mass_status or "", "sending to followers")
    return STATE_WORDS.get(record.state, record.state)


def result_word(result: PostResult, record: PostRecord | None) -> str:
    """How a run reports one post: what it did, when that is one of :data:`RUN_WORDS`,
    else the word of the state it left the post in (``record``, read after the run;
    None when the post never reached the ledger: nothing was sent)."""
    if result.state in RUN_WORDS:
        return result.state
    if result.stopped_by is not None and result.state == "unconfirmed":
        return STATE_WORDS["unconfirmed"]  # the ledger could not take it: its row lags
    if record is None:  # pending before the post was begun: nothing of it was sent
        pending = result.state == "pending"
        return STATE_WORDS["rendered"] if pending else STATE_WORDS.get(result.state, result.state)
    return state_word(record)


def result_words(ledger: Ledger, results: Iterable[PostResult]) -> dict[PostKey, str]:
    """:func:`result_word` of each result, its post read from ``ledger``."""
    return {result.key: result_word(result, ledger.get(result.key)) for result in results}
