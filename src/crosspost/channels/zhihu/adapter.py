"""The Zhihu column (知乎专栏) adapter: the web editor's own calls, made by a program.

Flow (zhihu-api.md §4.1): check the login with ``GET /api/v4/me`` before anything changes;
upload images by MD5 (I1 → OSS PUT when new → I3 → poll I4) while the empty draft is
made (E2 with the title, the one irreversible step besides publishing) and its topics
attached (E8 → E9); then fill it once (E3: title, content, cover); publish with
``POST /api/v4/content/publish`` and believe it only when ``code == 0``; then file it in
its column (E11 → E12), a part of its own that the publisher repeats until it is done
(``post_parts``/``complete_part``). A published article is updated in place: patch its
draft, publish again. Before a first draft, ``find_existing`` looks for the issue's
article in this machine's draft notes and the member's article list.

Zhihu has no public API, no draft listing and no idempotency key. So an E2 whose answer
was lost cannot be found again (reconcile says so; a lost draft is private and harmless),
while an E6 whose answer was lost is settled by reading the draft's state (E4).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

from crosspost.channels.base import (
    PART_COLUMN,
    STEP_DRAFT,
    STEP_PUBLISH,
    Adapter,
    Adoption,
    Clock,
    DraftContent,
    DraftLeftBehind,
    Intent,
    PartLeftToEditor,
    Preflight,
    PublishTicket,
    Reconciliation,
    RemoteDraft,
    RemotePost,
    RunMemo,
    Sleep,
)
from crosspost.channels.http.policy import AmbiguousOutcome, HttpPolicy
from crosspost.channels.zhihu.api import Cookies, ZhihuApi
from crosspost.channels.zhihu.catalog import (
    ColumnNotListed,
    attach_topics,
    find_column,
    find_topics,
    topic_names,
)
from crosspost.channels.zhihu.images import upload
from crosspost.channels.zhihu.journal import DraftJournal
from crosspost.channels.zhihu.wire import (
    ACCOUNT_WIDE,
    ARTICLE_URL,
    CHANNEL,
    CLASSIFIED,
    EDIT_URL,
    cover_url,
    draft_body,
    draft_id_of,
    oversized,
    publish_body,
    published_id,
)
from crosspost.config.accounts import member_identity
from crosspost.config.settings import Account
from crosspost.errors import AuthError, ChannelError, PermanentError, UnconfirmedError
from crosspost.images.pipeline import PreparedImage
from crosspost.ledger.assets import UploadedAsset
from crosspost.platforms.base import Platform
from crosspost.platforms.zhihu import ZHIHU

log = logging.getLogger("crosspost.channels.zhihu.adapter")

#: Pages of the member's articles (20 each) looked through before a first draft.
MEMBER_PAGES = 5


class ZhihuAdapter(Adapter):
    """One Zhihu account, logged in by its ``z_c0`` cookie (with ``d_c0`` and ``_xsrf``
    when known)."""

    platform: ClassVar[Platform] = ZHIHU
    channel: ClassVar[str] = CHANNEL
    display_name: ClassVar[str] = ZHIHU.display_name
    updates_published: ClassVar[bool] = True
    # E2 takes a title alone (spec §4.1 step 3): the draft is made while images upload.
    drafts_before_images: ClassVar[bool] = True
    # A z_c0 is one login; /api/v4/me says which member it is.
    identity_at_login: ClassVar[bool] = True
    # Zhihu publishes synchronously: one E4 read settles it, no long polling.
    poll_delays: ClassVar[tuple[float, ...]] = (1.0, 3.0, 10.0)
    # --- plumbing ----------------------------------------------------------------------

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
        super().__init__(
            account, http=http, state_dir=state_dir, clock=clock, sleep=sleep, memo=memo
        )
        #: Every draft this account created here (Zhihu cannot list them for reconcile),
        #: and the column each one's issue asks for (publish() only receives the id).
        self.journal = DraftJournal(self.state_dir, account.key)
        #: Drafts E2 created through this adapter: never published yet, so publish() need
        #: not read their state back (E4) to know it is a first publish.
        self._created: set[str] = set()
        #: What each draft was last sent with here: (title, characters of text), so a
        #: length refusal at publish time can say what was measured.
        self._sent: dict[str, tuple[str, int]] = {}
        #: Topics found by look_ahead(), by the names asked for (E8 is a read).
        self._topics: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
        #: Held while topics are looked up: look_ahead and an empty draft made beside the
        #: uploads both want them, and the second waits for the first's answer.
        self._topics_lock = threading.Lock()
        #: Topics attached (E9) to a draft made empty here: the update that fills it
        #: next does not attach them again (a later update does).
        self._attached: dict[str, tuple[str, ...]] = {}
        #: Every Zhihu call this account makes.
        self.api = ZhihuApi(
            account_key=account.key,
            http=http,
            z_c0=self._secret("z_c0"),
            xsrf=self._secret("xsrf"),
            d_c0=self._secret("d_c0"),
            base_url=account.base_url,
            cookies=Cookies.of(account.credential_env, d_c0_sent=bool(self._secret("d_c0"))),
            clock=clock,
            sleep=sleep,
            memo=self.memo,
        )

    def _secret(self, name: str) -> str | None:
        secret = self.account.credentials.get(name)
        value = secret.reveal() if secret is not None else None
        return value or None

    # --- the contract --------------------------------------------------------------------

    def upload_urls(self) -> tuple[str, ...]:
        """An image is announced, confirmed and polled on the API host (I1, I3, I4) and
        its bytes go to the storage host (I2): neither is the host of the login check."""
        return (self.api.url_for("api", "/images"), self.api.url_for("oss", "/"))

    def calls_beside_uploads(self) -> tuple[tuple[str, int], ...]:
        """The look for the post among the member's articles (on the login check's host,
        whose connection it finds idle), and the topic look-ups (two, commonly) and the
        empty draft on the column's host."""
        return ((self.api.url_for("www", "/api/v4/"), 1), (self.api.url_for("zhuanlan", "/"), 3))

    def preflight(self) -> Preflight:
        """``GET /api/v4/me``: who the cookie logs in as; stops on an expired login. The
        member's id, as a digest, is the account's identity: the same under every login."""
        me = self.api.me()
        if not isinstance(me, Mapping) or not me.get("id"):
            raise PermanentError(
                "Zhihu GET /api/v4/me answered without a user id; the login cookie is not "
                f"a full session — copy z_c0 again into {self.api.cookies.login_env}",
                channel=CHANNEL,
                code="me",
            )
        name = str(me.get("name") or me.get("url_token") or me["id"])
        # The member's id, not its url_token: a member may change its url_token (个性域名).
        member = member_identity(CHANNEL, str(me["id"]))
        return Preflight(
            account=self.account.key, identity=name, account_identity=member, can_publish=True
        )

    def look_ahead(self, options: Mapping[str, Any]) -> None:
        """E8 for the issue's topics and E11 for its column while the images upload;
        create_draft and publish then use them. A failure is left for the step that
        needs it, which looks again (create_draft stops before E2, publish before E6)."""
        names = topic_names(options, self.account.options)
        column = self._column(options)
        for look in (
            lambda: self._topics_for(names) if names else None,
            lambda: find_column(self.api, column),
        ):
            try:
                look()
            except ChannelError as error:
                log.debug("a look-up ahead failed (the step that needs it asks again): %s", error)

    def ready_upload(self, prepared: PreparedImage) -> None:
        """The MD5 Zhihu's announcement (I1) names the image by, worked out ahead: half a
        millisecond per 300 KB image that the upload wave no longer spends."""
        _ = prepared.md5

    def upload_image(self, prepared: PreparedImage, kind: str) -> UploadedAsset:
        """I1 by MD5 → OSS PUT when Zhihu has not got it → I3 → poll I4 until it is ready.

        Every step is idempotent (same bytes, same key), so the HTTP policy may retry it.
        """
        return upload(self.api, prepared)

    def create_draft(self, content: DraftContent) -> RemoteDraft:
        """E2 with the whole content (irreversible: one attempt), then E3 and topics; an
        empty ``html`` (a draft made while the images upload) sends E2 and the topics only.

        When a later step fails, the draft exists: the error carries it as ``.draft``
        (like :class:`~crosspost.channels.base.ManualPublishRequired`) so it is kept.
        """
        topics = self._find_topics(content)  # before E2: a bad topic creates nothing
        body = draft_body(content.title, content.html, cover_url(content))
        try:
            created = self.api.create_draft(body)
        except AmbiguousOutcome as unsure:
            problem = f"Zhihu draft creation for {self.account.key}: {unsure.reason} after sending"
            raise UnconfirmedError(
                f"{problem}; a private draft may exist — reconcile before creating another",
                channel=CHANNEL,
                code="draft",
                problem=problem,
            ) from None
        draft_id = draft_id_of(created)
        if draft_id is None:
            raise UnconfirmedError(
                "Zhihu POST /api/articles/drafts answered without a draft id; "
                "reconcile before creating another",
                channel=CHANNEL,
                code="draft",
            )
        try:
            self.journal.record(draft_id, content.title, self.clock())
        except OSError as error:  # the draft exists: losing its note must not lose the id
            log.warning(
                "could not note Zhihu draft %s in %s: %s",
                draft_id,
                self.journal.path,
                error.strerror,
            )
        draft = RemoteDraft(id=draft_id, url=EDIT_URL.format(id=draft_id))
        self._created.add(draft_id)
        try:
            if content.html:
                self._fill(draft_id, content, topics)
            else:
                attach_topics(self.api, draft_id, topics, EDIT_URL.format(id=draft_id))
                self._attached[draft_id] = self._names(content)
        except ChannelError as error:
            raise DraftLeftBehind(
                f"{error} (draft {draft_id} was created; the next run updates it)",
                cause=error,
                draft=draft,
            ) from None
        return draft

    def update_draft(self, remote_id: str, content: DraftContent) -> RemoteDraft:
        """E3 patch (title, content, cover) and topics; works on published articles too."""
        self._fill(remote_id, content, self._find_topics(content))
        return RemoteDraft(id=remote_id, url=EDIT_URL.format(id=remote_id))

    def publish(self, draft: RemoteDraft) -> PublishTicket:
        """E6 ``content/publish`` (irreversible: one attempt); success only on ``code == 0``."""
        # A draft created by this adapter a moment ago exists and is not live; any other
        # may have been deleted or published on Zhihu since, so E4 asks.
        before = {"state": "draft"} if draft.id in self._created else self.api.read_draft(draft.id)
        if before is None:
            raise PermanentError(
                f"Zhihu draft {draft.id} does not exist (deleted on Zhihu?); forget its id in "
                "the ledger so the next run creates a new draft",
                channel=CHANNEL,
                code=404,
            )
        republish = before.get("state") == "published"
        wanted = self.journal.column_for(draft.id) or self.account.options.get("column")
        self._check_column(wanted)  # a wrong name stops here, before anything is public
        started = self.clock()
        body = publish_body(draft.id, republish=republish, now=started)
        try:
            answer = self.api.publish(body, referer=EDIT_URL.format(id=draft.id))
        except AmbiguousOutcome as unsure:
            problem = f"Zhihu publish of draft {draft.id}: {unsure.reason} after sending"
            raise UnconfirmedError(
                f"{problem}; the article may be live — reconcile before publishing again",
                channel=CHANNEL,
                code="publish",
                problem=problem,
            ) from None
        except PermanentError as error:
            if draft.id not in self._sent:
                raise
            raise oversized(error, *self._sent[draft.id]) from None
        article_id = published_id(answer, draft.id)
        post = RemotePost(id=article_id, url=ARTICLE_URL.format(id=article_id))
        # Filing it in the column is a part of its own (post_parts/complete_part): the
        # publisher does it next and records it, and repeats it when it failed.
        return PublishTicket(id=article_id, draft_id=draft.id, submitted_at=started, post=post)

    def post_parts(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The column (E12) is filed after publication, by a call of its own."""
        return (PART_COLUMN,) if self._column(options) else ()

    def complete_part(self, part: str, post: RemotePost, options: Mapping[str, Any]) -> None:
        """E11 (which column) then E12 (file the article there; filing it twice changes
        nothing). A temporary failure, or a refusal of the account (the login, the
        anti-bot check), is raised: the next run files it. Any other refusal is for good:
        both calls rest on one source (spec §2 [S]), so the editor files it by hand
        (:class:`PartLeftToEditor`) and no run tries again."""
        if part != PART_COLUMN:
            super().complete_part(part, post, options)
        wanted = self._column(options)
        try:
            column_id = find_column(self.api, wanted)
        except ColumnNotListed as error:
            raise self._by_hand(error, post, wanted, error.listed) from None
        except PermanentError as error:
            said = f"Zhihu would not list this account's columns (Zhihu {error.code})"
            if error.code == "column-list":
                said = str(error)
            raise self._by_hand(error, post, wanted, said) from None
        if not column_id:
            return
        try:
            self.api.add_to_column(column_id, post.id)
        except PermanentError as error:
            said = f"Zhihu refused to file it there (Zhihu {error.code})"
            raise self._by_hand(error, post, wanted, said) from None

    def _by_hand(
        self, error: PermanentError, post: RemotePost, column: str | None, said: str
    ) -> PermanentError:
        """``error`` as the column left to the editor, unless it refuses the account or
        the client (the login, the anti-bot wall, the cookies' check: the next run, once
        they are fixed, files it)."""
        if error.code in CLASSIFIED:  # the account's or the cookies': fixed, then filed
            return error
        log.debug("filing Zhihu article %s into column %r failed: %s", post.id, column, error)
        where = post.url or f"article {post.id}"
        return PartLeftToEditor(
            f"{where} is published but not in its column: {said}; file it into the column "
            f"{column!r} by hand on zhihu.com — crosspost will not try again",
            channel=CHANNEL,
            code=error.code,
        )

    def find_existing(self, intent: Intent) -> Adoption | None:
        """The issue's article already on the account: a draft this machine noted (and
        Zhihu still has), else a published article of the member with the same title.

        Zhihu cannot list drafts; the member's article list is not in the spec's table,
        so when Zhihu refuses it the look is skipped with a warning (never fatal).
        """
        for entry in self.journal.candidates(intent.title, 0.0, intent.known_ids):
            state = self.api.read_draft(entry.draft_id)
            if state is None:
                continue
            if state.get("state") == "published":
                url = ARTICLE_URL.format(id=entry.draft_id)
                post = RemotePost(id=entry.draft_id, url=url)
                return Adoption(entry.draft_id, post, url, f"already published as {url}")
            url = EDIT_URL.format(id=entry.draft_id)
            return Adoption(entry.draft_id, None, url, f"draft {entry.draft_id}")
        return self._published_like(intent)

    def _published_like(self, intent: Intent) -> Adoption | None:
        me = self.api.me()
        token = me.get("url_token") if isinstance(me, Mapping) else None
        if not token:
            return None
        for offset in range(0, MEMBER_PAGES * 20, 20):
            try:
                page = self.api.member_articles(str(token), offset)
            except AuthError:
                raise  # the login is needed for the post itself: say so now
            except ChannelError as error:  # a look-up the spec does not promise: never fatal
                log.warning(
                    "could not list the Zhihu articles of %s to look for %r (%s); "
                    "an article published from another machine may be made again",
                    self.account.key,
                    intent.title,
                    error,
                )
                return None
            rows = page.get("data") if isinstance(page, Mapping) else None
            for row in rows if isinstance(rows, list) else []:
                if not isinstance(row, Mapping) or row.get("title") != intent.title:
                    continue
                article_id = str(row.get("id") or "")
                if not article_id or article_id in intent.known_ids:
                    continue
                url = ARTICLE_URL.format(id=article_id)
                post = RemotePost(id=article_id, url=url)
                return Adoption(article_id, post, url, f"already published as {url}")
            paging = page.get("paging") if isinstance(page, Mapping) else None
            if not rows or not isinstance(paging, Mapping) or paging.get("is_end", True):
                return None
        return None

    def _check_column(self, wanted: Any) -> None:
        """E11 before E6. A name that is not among the account's columns stops the post
        before anything is public; an E11 that fails otherwise (refused, unreadable, out of
        reach) does not: the call rests on one source (spec §2 [S]), so the article is
        published all the same, with a warning, and filing it (complete_part) looks again.
        A refusal of the account is raised: publishing would meet it too."""
        if not wanted:
            return
        try:
            find_column(self.api, wanted)
        except ColumnNotListed:
            raise
        except ChannelError as error:
            if isinstance(error, AuthError) or error.code in ACCOUNT_WIDE:
                raise
            said = f"Zhihu {error.code}" if isinstance(error.code, int) else str(error)
            log.warning(
                "could not look up the Zhihu column %r of %s before publishing (%s); "
                "publishing anyway, and filing the article into the column is tried after",
                str(wanted),
                self.account.key,
                said,
            )

    def _column(self, options: Mapping[str, Any]) -> str | None:
        wanted = options.get("column") or self.account.options.get("column")
        return str(wanted) if wanted else None

    def poll(self, ticket: PublishTicket) -> RemotePost | None:
        """Zhihu publishes at once; a ticket without its post is settled by the draft's state."""
        if ticket.post is not None:
            return ticket.post
        state = self.api.read_draft(ticket.draft_id)
        if state is not None and state.get("state") == "published":
            return RemotePost(id=ticket.draft_id, url=ARTICLE_URL.format(id=ticket.draft_id))
        return None

    def reconcile(self, step: str, intent: Intent) -> Reconciliation:
        """Did an unconfirmed E2 or E6 take effect? Reads only (E4)."""
        if step == STEP_PUBLISH:
            return self._reconcile_publish(intent)
        if step != STEP_DRAFT:
            raise ValueError(f"Zhihu has nothing to reconcile for step {step!r}")
        if intent.draft_id:
            found = self.api.read_draft(intent.draft_id)
            return Reconciliation(
                happened=found is not None,
                remote_id=intent.draft_id if found is not None else None,
                url=EDIT_URL.format(id=intent.draft_id) if found is not None else None,
                detail="draft found by its id" if found is not None else "no draft with that id",
            )
        # Zhihu cannot list drafts (spec §2): our own journal is the only place to look.
        for entry in self.journal.candidates(intent.title, intent.started_at, intent.known_ids):
            if self.api.read_draft(entry.draft_id) is not None:
                return Reconciliation(
                    happened=True,
                    remote_id=entry.draft_id,
                    url=EDIT_URL.format(id=entry.draft_id),
                    detail="draft found in this machine's journal and confirmed on Zhihu",
                )
        # No id ever arrived. A draft is private, so creating another can never make a
        # second public post; at worst an unused draft remains.
        log.warning(
            "Zhihu cannot list drafts: if the lost draft creation for %s went through, an "
            "unused private draft titled %r is in https://zhuanlan.zhihu.com/drafts",
            self.account.key,
            intent.title,
        )
        return Reconciliation(
            happened=False,
            confirmed=False,
            detail="Zhihu cannot list drafts and none was noted here; at worst an unused "
            f"private draft titled {intent.title!r} remains (delete it in the web editor); "
            "creating a new draft is safe because drafts are never public",
        )

    # --- helpers ---------------------------------------------------------------------------

    def _reconcile_publish(self, intent: Intent) -> Reconciliation:
        """E4 says whether the draft is live; for an article that was live before the
        attempt (its id in ``intent.known_ids``), E14's ``updated`` says whether *this*
        attempt reached it.

        Publishing a draft that is already live updates the article in place: it never
        makes a second post. So when the times cannot prove an update went through (E14
        missing, or ``updated`` not after the attempt began — Zhihu counts whole seconds),
        the safe answer is "did not happen": doing it again costs one call.
        """
        if not intent.draft_id:
            return Reconciliation(happened=None, detail="no draft id recorded for the publish")
        draft_id = intent.draft_id
        found = self.api.read_draft(draft_id)
        if found is None:
            return Reconciliation(happened=False, detail=f"draft {draft_id} no longer exists")
        if found.get("state") != "published":
            return Reconciliation(happened=False, detail=f"draft {draft_id} is not published")
        url = ARTICLE_URL.format(id=draft_id)
        if draft_id not in intent.known_ids:  # it was a draft before: this attempt made it live
            return Reconciliation(
                happened=True, remote_id=draft_id, url=url, detail="the article is published"
            )
        try:
            article = self.api.article(draft_id)
        except PermanentError:  # E14 is unconfirmed on the real site (spec §2): E4 must do
            article = None
        updated = article.get("updated") if isinstance(article, Mapping) else None
        if isinstance(updated, int | float) and updated > intent.started_at:
            return Reconciliation(
                happened=True, remote_id=draft_id, url=url, detail="the article was updated"
            )
        return Reconciliation(
            happened=False,
            remote_id=draft_id,
            url=url,
            detail="the article is live, but nothing shows this attempt reached it; "
            "publishing it again updates it in place",
        )

    def _find_topics(self, content: DraftContent) -> list[Mapping[str, Any]]:
        """The topics look_ahead() found for these names, else E8 now."""
        return self._topics_for(topic_names(content.options, self.account.options))

    def _topics_for(self, names: list[str]) -> list[Mapping[str, Any]]:
        """E8 for ``names`` once per adapter, whichever thread asks first."""
        with self._topics_lock:
            found = self._topics.get(tuple(names))
            if found is None:
                found = self._topics[tuple(names)] = find_topics(self.api, names)
            return found

    def _names(self, content: DraftContent) -> tuple[str, ...]:
        return tuple(topic_names(content.options, self.account.options))

    def _attach(
        self, draft_id: str, content: DraftContent, topics: list[Mapping[str, Any]]
    ) -> None:
        """E9, unless the draft was made empty a moment ago with these very topics."""
        if self._attached.pop(draft_id, None) != self._names(content):
            attach_topics(self.api, draft_id, topics, EDIT_URL.format(id=draft_id))

    def _fill(self, draft_id: str, content: DraftContent, topics: list[Mapping[str, Any]]) -> None:
        edit = EDIT_URL.format(id=draft_id)
        column = content.options.get("column")
        try:  # noted for publish(), which may run in a later process with only the id
            self.journal.record_column(draft_id, str(column) if column else None)
        except OSError as error:
            log.warning("could not note the column of Zhihu draft %s: %s", draft_id, error)
        body = draft_body(content.title, content.html, cover_url(content), delta_time=30)
        count = self.platform.counter()
        self._sent[draft_id] = (content.title, count(content.html) if count else 0)
        # E3 and E9 touch different parts of the draft: both at once, one round trip.
        with ThreadPoolExecutor(max_workers=1) as side:
            attaching = side.submit(self._attach, draft_id, content, topics)
            self.api.patch_draft(draft_id, body, referer=edit)
            attaching.result()
