"""The one adapter contract every platform implements the same way.

An adapter is the only code that talks to a platform. It is built per account, gets the
one :class:`~crosspost.channels.http.policy.HttpPolicy` (retries, timeouts, redaction) and an
injected clock and sleep, and offers the same operations on every platform:

``preflight`` → ``upload_image`` → ``create_draft`` / ``update_draft`` → ``publish`` →
``poll`` — and ``reconcile`` for the two irreversible steps, ``"draft"`` and
``"publish"``. The ledger writes an :class:`Intent` before an irreversible call; when the
call ends in :class:`~crosspost.errors.UnconfirmedError`, ``reconcile(step, intent)`` asks
the platform what really happened before anything is tried again.

Results are frozen dataclasses that keep the reason and the ids (never a bare bool);
errors come from :mod:`crosspost.errors`.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Final
from urllib.parse import urlsplit

from crosspost.channels.http.policy import HttpPolicy
from crosspost.config.settings import Account
from crosspost.errors import ChannelError, PermanentError, UnconfirmedError, UsageError
from crosspost.images.pipeline import PreparedImage
from crosspost.ledger.assets import SharedState, UploadedAsset
from crosspost.platforms.base import ImagePolicy, Platform

# --- the steps the ledger records ---------------------------------------------------

STEP_PREFLIGHT: Final = "preflight"
STEP_UPLOAD: Final = "upload"
#: Creates a draft on the platform: irreversible (a blind retry makes a second draft).
STEP_DRAFT: Final = "draft"
#: Changes an existing draft in place: repeatable with the same content.
STEP_UPDATE: Final = "update"
#: Submits a draft for publication: irreversible (a blind retry publishes twice).
STEP_PUBLISH: Final = "publish"
STEP_POLL: Final = "poll"
#: Sends a draft to the followers (WeChat 群发): irreversible, but the platform dedupes a
#: replay of the same send id, so a lost answer is settled by replaying, never by a new id.
STEP_BROADCAST: Final = "broadcast"

#: How a mass send stands, as :meth:`Adapter.mass_status` words it for the ledger.
MASS_SENDING: Final = "sending"
MASS_SENT: Final = "sent"
MASS_FAILED: Final = "failed"
MASS_DELETED: Final = "deleted"
#: A draft the editor was to send or publish by hand: did it leave the draft box? (read-only)
STEP_HANDOFF: Final = "hand-off"

#: Steps that are never retried after an ambiguous failure; reconcile first.
IRREVERSIBLE_STEPS: Final = frozenset({STEP_DRAFT, STEP_PUBLISH, STEP_BROADCAST})

#: The parts of a post, each on the platform or not (the ledger tracks them one by one):
#: its content (title, body, author, digest), its cover, its topics, the column it is
#: filed in, its comment settings. Where one call carries several parts (WeChat's
#: draft/add), they are done together; where they are separate calls (Zhihu's topics,
#: its column), each one that failed is done again on its own, by the next run at latest.
PART_CONTENT: Final = "content"
PART_COVER: Final = "cover"
PART_TOPICS: Final = "topics"
PART_COLUMN: Final = "column"
PART_SETTINGS: Final = "settings"
PARTS: Final = (PART_CONTENT, PART_COVER, PART_TOPICS, PART_COLUMN, PART_SETTINGS)

#: Image kinds an adapter uploads ("inline": inside the body; "cover": the post's cover).
IMAGE_KINDS: Final = frozenset({"inline", "cover"})


# --- what adapters receive -----------------------------------------------------------


@dataclass(frozen=True)
class DraftContent:
    """Everything a platform needs to create or update one post's draft."""

    title: str
    #: The body in the platform's dialect, image sources already swapped for uploaded URLs.
    html: str
    author: str | None = None
    digest: str | None = None
    cover: UploadedAsset | None = None
    #: The cover's pixel size (width, height), for platforms that want crop boxes.
    cover_size: tuple[int, int] | None = None
    #: "阅读原文" / original link.
    source_url: str | None = None
    #: Channel settings from the issue's front matter (e.g. ``need_open_comment``).
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: Whether an editor reviews the draft before it goes out (mode ``draft``): only then
    #: is a platform's preview link worth a request of its own.
    preview: bool = True
    #: Further articles of the same draft (WeChat 多图文), each with its own title, cover
    #: and digest, in the order they appear after this one.
    companions: tuple[DraftContent, ...] = ()


@dataclass(frozen=True)
class Intent:
    """What the ledger wrote just before an irreversible call: enough to find it later.

    ``started_at`` is the adapter clock's time (seconds since the epoch) before the call.
    ``known_ids`` lists remote ids that existed before (drafts the ledger already knows),
    so reconcile never mistakes an older draft for the one in doubt. For a draft they are
    filled in from the ledger when reconciling, not stored with the intent (a copy in
    every intent made the ledger grow with the square of the posts).
    """

    started_at: float
    title: str = ""
    author: str | None = None
    digest: str | None = None
    #: For "publish": the draft that was submitted.
    draft_id: str | None = None
    known_ids: tuple[str, ...] = ()
    #: For "broadcast": the send's id on the platform (replayed as is, never made anew).
    send_id: str | None = None

    @classmethod
    def for_draft(
        cls, content: DraftContent, started_at: float, known_ids: tuple[str, ...] = ()
    ) -> Intent:
        """The intent to record before ``create_draft(content)``. A draft of several
        articles (多图文) is matched without the digest: WeChat keeps none in it."""
        return cls(
            started_at=started_at,
            title=content.title,
            author=content.author,
            digest=None if content.companions else content.digest,
            known_ids=known_ids,
        )


# --- what adapters return ------------------------------------------------------------


@dataclass(frozen=True)
class Preflight:
    """The account is usable: who it is, and what it may do."""

    account: str
    #: The platform's name for the account (Zhihu user name, WeChat app id), when known.
    identity: str | None = None
    #: Which platform account the login logs in as, for good, as a digest (``Account.
    #: identity`` of kind ``member``): set where the credentials alone do not say it (a
    #: Zhihu z_c0 changes at each login, the member behind it does not); None: the
    #: credentials say it (WeChat's AppID).
    account_identity: str | None = None
    #: False when the account may draft but not publish through the API.
    can_publish: bool | None = None
    detail: str = ""


@dataclass(frozen=True)
class RemoteDraft:
    """A draft on the platform. ``url`` is its preview link when the platform gives one."""

    id: str
    url: str | None = None


@dataclass(frozen=True)
class PublishTicket:
    """A submitted publication: poll it until it becomes a :class:`RemotePost`."""

    id: str
    draft_id: str
    submitted_at: float
    #: A post the platform returned at once (platforms that publish synchronously).
    post: RemotePost | None = None


@dataclass(frozen=True)
class ArticleLink:
    """One article of a published post as the platform listed it (WeChat 多图文 holds
    several under one post id): its place, 1 for the lead; its permanent link, None when
    the platform gave only a temporary one or none; its title when the answer carries it
    (``freepublish/get`` does not, the published list does)."""

    index: int
    url: str | None
    title: str | None = None


@dataclass(frozen=True)
class RemotePost:
    """A published post: its id and its public URL.

    ``url`` is None when the platform has published the post but gave no permanent link
    yet (WeChat's lists only hand out temporary ones): the post is published, its URL
    pending; ``preview_url`` then holds the temporary link, to show and never to record.
    ``articles`` lists every article of the post, lead first, when the answer did (the
    publisher matches them with a bundle's companions); empty when it did not.
    """

    id: str
    url: str | None
    preview_url: str | None = None
    articles: tuple[ArticleLink, ...] = ()


@dataclass(frozen=True)
class Reconciliation:
    """What the platform says about a call whose outcome was unconfirmed.

    ``happened`` is True (it took effect: ``remote_id``/``url`` say where), False (it did
    not: safe to do it again) or None (the platform cannot tell yet: ask again later).
    """

    happened: bool | None
    remote_id: str | None = None
    url: str | None = None
    detail: str = ""
    #: Published, although the platform gave no permanent URL (``remote_id`` is the
    #: article's id, not a ticket's): the post is published, its URL asked for later.
    url_pending: bool = False
    #: Whether the platform itself showed the answer. False: it cannot be asked (Zhihu
    #: lists no drafts), so ``happened`` False means only that doing it again is safe
    #: (``detail`` says why), not that nothing was made.
    confirmed: bool = True


@dataclass(frozen=True)
class MassSend:
    """A mass send the platform took (or had already taken under the same send id).

    ``msg_id`` names the send job (asked about with :meth:`Adapter.mass_status`),
    ``msg_data_id`` the articles sent (statistics join on it). ``replayed``: the platform
    answered that this send id was already sent; the ids are then the first send's.
    """

    msg_id: str | None
    msg_data_id: str | None = None
    replayed: bool = False


@dataclass(frozen=True)
class Adoption:
    """An article of the same issue found on the platform before the first create.

    ``post`` when it is published (then ``draft_id`` may be its draft), else ``draft_id``
    names the draft to adopt. ``complete`` is False when what was found may lack parts of
    the current issue (a draft is then updated in place before it is published).
    """

    draft_id: str | None
    post: RemotePost | None = None
    url: str | None = None
    detail: str = ""


class ManualPublishRequired(PermanentError):
    """The draft exists on the platform, but this account may not publish through the API.

    Not a loss: ``draft`` is the draft that was created (keep it in the ledger); the
    message says where to publish it by hand.
    """

    def __init__(
        self, message: str, *, channel: str, code: int | str | None, draft: RemoteDraft
    ) -> None:
        super().__init__(message, channel=channel, code=code)
        self.draft = draft


class PublicationRefused(PermanentError):
    """A submitted publication ended with the platform's final word, and it is no.

    Nothing is left to poll for that submission: ``ticket_id`` names it. ``removed``:
    the article was published, then taken down (deleted, banned); its draft left the
    platform's drafts then, and publishing anew is the editor's decision, never a run's.
    Otherwise the publication never happened, and the draft the message speaks of can
    be fixed and submitted again: the earlier outcome is known, so that is no blind retry.
    """

    def __init__(
        self,
        message: str,
        *,
        channel: str,
        code: int | str | None,
        ticket_id: str,
        removed: bool = False,
    ) -> None:
        super().__init__(message, channel=channel, code=code)
        self.ticket_id = ticket_id
        self.removed = removed


class PartLeftToEditor(PermanentError):
    """``complete_part``: the platform refused a part of a published post for good (a call
    that rests on one source, e.g. Zhihu's column filing). Not a failure of the post: the
    message says what the editor does by hand, and no later run tries the part again."""


class DraftLeftBehind(UnconfirmedError):
    """``create_draft`` made the draft, then a later step of it (filling it in, topics)
    failed. Never create again: ``draft`` is the draft that exists, ``cause`` the error
    of the step that failed; the next run finds the draft by reconciling.
    """

    def __init__(self, message: str, *, cause: ChannelError, draft: RemoteDraft) -> None:
        super().__init__(message, channel=cause.channel, code=cause.code)
        self.cause = cause
        self.draft = draft


Clock = Callable[[], float]
Sleep = Callable[[float], None]


def _origin(url: str) -> str:
    """``scheme://host:port`` of ``url``: what one connection pool serves."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class RunMemo:
    """Reads that stay true for one run (who the login is, which topic a name means),
    made once per account however many posts the run makes.

    Owned by the run that creates it (one ``crosspost publish`` or ``run-due`` tick) and
    handed to each adapter it builds: never module-global, so the next run asks again
    and tests never share answers. Thread-safe: posts of one account may run side by side,
    and the second waits for the first's answer instead of asking too. A failed read is
    not kept: the next post asks again.
    """

    def __init__(self, shared: SharedState | None = None) -> None:
        #: Where state every host must see alike lives (the WeChat token, the day's polls)
        #: when the ledger is shared by several machines; None: this machine's state dir.
        self.shared = shared
        self._values: dict[tuple[str, ...], Any] = {}
        self._locks: dict[tuple[str, ...], threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, key: tuple[str, ...], read: Callable[[], Any]) -> Any:
        """The value kept under ``key``, else ``read()`` (once) kept under it."""
        with self._guard:
            if key in self._values:
                return self._values[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                if key in self._values:
                    return self._values[key]
            value = read()
            with self._guard:
                self._values[key] = value
            return value


class Adapter(ABC):
    """One platform behind the one contract. Subclasses set the class attributes."""

    #: The platform's declaration: its limits, image rules and options.
    platform: ClassVar[Platform]
    #: The channel name used in config, the ledger and the CLI ("wechat", "zhihu").
    channel: ClassVar[str] = ""
    #: The platform's name for people.
    display_name: ClassVar[str] = ""
    #: True when ``update_draft`` can change a post that is already published.
    updates_published: ClassVar[bool] = False
    #: True when the platform can push a post to the followers (WeChat 群发).
    broadcasts: ClassVar[bool] = False
    #: Seconds to wait before each poll in :meth:`wait`; its length caps the polls.
    poll_delays: ClassVar[tuple[float, ...]] = (3.0, 5.0, 10.0, 20.0, 30.0, 60.0)
    #: True when a draft may be made before its images are uploaded (Zhihu: E2 takes a
    #: title alone). The publisher then calls ``create_draft`` with an empty ``html``
    #: while the images upload, and ``update_draft`` once with the whole content, so the
    #: draft's round trips are off the critical path.
    drafts_before_images: ClassVar[bool] = False
    #: True when only the login check (:meth:`preflight`, a read) says which platform
    #: account the credentials are (``Preflight.account_identity``: Zhihu's member); a
    #: dry run asks it too, for what a run would refuse there.
    identity_at_login: ClassVar[bool] = False

    @classmethod
    def uploads_at_once(cls, account: Account) -> int:
        """Images of one post uploaded at once for ``account``, at most: the platform's
        bound, or the config's ``upload_concurrency`` limit of the channel or account."""
        return max(1, cls.platform.with_overrides(account.limits).limits.upload_concurrency)

    def __init__(
        self,
        account: Account,
        *,
        http: HttpPolicy,
        state_dir: Path,
        clock: Clock,
        sleep: Sleep,
        memo: RunMemo | None = None,
    ) -> None:
        self.account = account
        #: The platform's declaration with the config's limits for this account laid
        #: over it (its channel's and its own): what the uploads and the polls keep to.
        self.declaration = type(self).platform.with_overrides(account.limits)
        self.http = http
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.sleep = sleep
        #: The run's reads made once per account (a fresh one when built on its own).
        self.memo = memo if memo is not None else RunMemo()
        for secret in account.secrets:  # not the public app_id: operators need to read it
            http.register_secret(secret.reveal())

    def upload_urls(self) -> tuple[str, ...]:
        """A URL on each host an image upload goes to (the platform's API, its storage),
        for :meth:`open_ahead`; an image's steps go one after another, so it needs one
        connection on each. The default: none known."""
        return ()

    def calls_beside_uploads(self) -> tuple[tuple[str, int], ...]:
        """The calls a post makes the moment its uploads start (the look for the post on
        the account, Zhihu's topics and empty draft, WeChat's quota): a URL on their host
        and how many, for :meth:`open_ahead`. The default: none."""
        return ()

    def open_ahead(self, uploads: int) -> None:
        """Have connections set up for ``uploads`` uploads at once (up to the account's
        bound) and for the calls beside them, on each host they go to, while the post's
        first call is still out: the wave then waits for no TCP or TLS set-up when it
        starts. Sends nothing. Hosts that turn out to be one (a sandbox serves them all
        on one port) need the uploads' connections once and the calls' on top."""
        at_once = min(uploads, self.uploads_at_once(self.account))
        wanted: dict[str, int] = {}
        first_url: dict[str, str] = {}
        for url in self.upload_urls():
            first_url.setdefault(_origin(url), url)
            wanted[_origin(url)] = at_once
        for url, calls in self.calls_beside_uploads():
            first_url.setdefault(_origin(url), url)
            wanted[_origin(url)] = wanted.get(_origin(url), 0) + calls
        for origin, count in wanted.items():
            self.http.open_ahead(first_url[origin], count)

    @abstractmethod
    def preflight(self) -> Preflight:
        """Check the credentials work before anything changes (AuthError/ConfigError if not)."""

    def image_policy_for(self, kind: str) -> ImagePolicy:
        """What an image of ``kind`` ("inline" or "cover") must be before upload_image,
        by the account's limits (a config's ``image_bytes``, ``cover_formats`` …): the
        image pipeline converts and shrinks every image to fit it."""
        return self.declaration.image_policy(kind)

    def ready_upload(self, prepared: PreparedImage) -> None:
        """Work the upload of ``prepared`` will need that asks nothing of the platform,
        done ahead by the thread that reads the post's images while its first call is out
        (a hash the upload names the image by): the upload wave, which keeps the
        publisher's one interpreter busy, then has less to do. The default has none."""
        return None

    @abstractmethod
    def upload_image(self, prepared: PreparedImage, kind: str) -> UploadedAsset:
        """Upload one image as ``kind`` ("inline" or "cover"); idempotent, so retried."""

    @abstractmethod
    def create_draft(self, content: DraftContent) -> RemoteDraft:
        """Create a draft. Irreversible: an ambiguous failure raises UnconfirmedError."""

    @abstractmethod
    def update_draft(self, remote_id: str, content: DraftContent) -> RemoteDraft:
        """Replace the content of an existing draft in place."""

    @abstractmethod
    def publish(self, draft: RemoteDraft) -> PublishTicket:
        """Submit a draft. Irreversible: an ambiguous failure raises UnconfirmedError."""

    @abstractmethod
    def poll(self, ticket: PublishTicket) -> RemotePost | None:
        """The published post, or None while the platform is still publishing."""

    @abstractmethod
    def reconcile(self, step: str, intent: Intent) -> Reconciliation:
        """Ask the platform whether an unconfirmed ``step`` ("draft"/"publish") happened."""

    def permanent_url(self, article_id: str, ticket_id: str | None = None) -> str | None:
        """The permanent URL of a published post whose URL is pending, or None while the
        platform still gives none. Only reads. The default: the platform always gave it."""
        return None

    def article_links(self, post_id: str, ticket_id: str | None = None) -> tuple[ArticleLink, ...]:
        """Every article of a published post that holds several (WeChat 多图文), lead
        first, as the platform lists them now; only reads, and a failure to ask is an
        empty answer. The default: a platform whose posts hold one article lists none."""
        return ()

    def find_existing(self, intent: Intent) -> Adoption | None:
        """An article of the issue ``intent`` describes (its title, author, digest) that
        is already on the account although the ledger does not know it (a lost state dir,
        another machine), or None. Called before the first create of a post, so that it is
        adopted rather than made twice; ``intent.known_ids`` are other posts' ids.

        Reads only. The default finds nothing (a platform that cannot list its articles).
        """
        return None

    def post_parts(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The parts (see :data:`PARTS`) of a post that the platform files by calls of
        their own *after* publication, for these channel options. The default: none
        (everything travels with the draft)."""
        return ()

    def complete_part(self, part: str, post: RemotePost, options: Mapping[str, Any]) -> None:
        """Put one part named by :meth:`post_parts` on the published ``post``; idempotent,
        so a part that failed is simply done again. Raises a ChannelError when it fails,
        :class:`PartLeftToEditor` when it failed for good and the editor must do it."""
        raise NotImplementedError(f"{self.display_name} has no part {part!r} to complete")

    def look_ahead(self, options: Mapping[str, Any]) -> None:
        """Reads a later step will need (``options``: the issue's settings for this
        channel), made while the post's images upload so they are off the critical path.

        Only reads, and never fatal: whatever it cannot find, the step that needs it asks
        for again and reports. The default has nothing to read ahead.
        """
        return None

    # --- mass send: only platforms that push to followers (``broadcasts``) ------------------

    def send_id(self, issue_id: str, version: str, attempt: int) -> str:
        """The platform's dedupe key for one post's mass send: the same for the same
        account, issue, content version and ``attempt`` (raised only after a send proved
        failed), whichever machine or ledger asks."""
        raise NotImplementedError(f"{self.display_name} has no mass send")

    def mass_send(self, draft: RemoteDraft, intent: Intent, target: Mapping[str, Any]) -> MassSend:
        """Send ``draft`` to the followers (``target``: the channel's ``broadcast`` options)
        under ``intent.send_id``; replaying the same id is safe, a new one is not."""
        raise NotImplementedError(f"{self.display_name} has no mass send")

    def mass_status(self, msg_id: str) -> str | None:
        """How a mass send stands: one of the ``MASS_*`` words, or None when unknown."""
        raise NotImplementedError(f"{self.display_name} has no mass send")

    def discard_draft(self, draft_id: str) -> bool:
        """Delete a draft nothing will use (False when it was already gone)."""
        raise NotImplementedError(f"{self.display_name} cannot delete drafts")

    def wait(self, ticket: PublishTicket) -> RemotePost | None:
        """Poll with growing pauses (injected sleep) until the post is out.

        None when the platform is still publishing after the last poll: the ledger keeps
        the ticket and a later run polls again.
        """
        if ticket.post is not None:
            return ticket.post
        for delay in self.poll_delays:
            self.sleep(delay)
            post = self.poll(ticket)
            if post is not None:
                return post
        return None

    def preview(self, draft_id: str, reviewer: str) -> None:
        """Send the draft to one reviewer's phone; nothing reaches followers."""
        raise UsageError(f"{self.display_name} cannot send a draft to a reviewer")

    def may(self, mode: str) -> bool | None:
        """Whether this account may ``mode`` (draft, publish, broadcast), asked without
        changing anything; None when the platform cannot tell (the default)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.account.key}>"
