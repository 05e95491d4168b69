"""The WeChat Official Account (微信公众号) adapter: images, drafts, publishing, reconcile.

The adapter turns the contract into WeChat's calls; the calls themselves (paths, the one
HTTP policy, the account's token) are :class:`~crosspost.channels.wechat.api.WeChatApi`'s,
and what an ``errcode`` means lives in :mod:`crosspost.channels.wechat.errors`. The two
irreversible calls, ``draft/add`` and ``freepublish/submit``, are sent exactly once: when
their outcome is unknown they raise :class:`UnconfirmedError`, and
:meth:`WeChatAdapter.reconcile` asks WeChat (draft list, published list, the draft itself)
what really happened.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from crosspost.channels.base import (
    IMAGE_KINDS,
    MASS_DELETED,
    MASS_FAILED,
    MASS_SENDING,
    MASS_SENT,
    STEP_DRAFT,
    STEP_HANDOFF,
    STEP_PUBLISH,
    Adapter,
    Adoption,
    ArticleLink,
    Clock,
    DraftContent,
    Intent,
    ManualPublishRequired,
    MassSend,
    Preflight,
    PublicationRefused,
    PublishTicket,
    Reconciliation,
    RemoteDraft,
    RemotePost,
    RunMemo,
    Sleep,
)
from crosspost.channels.http.policy import HttpPolicy
from crosspost.channels.wechat.api import (
    MASS_ALREADY_SENT,
    MASS_TOO_SOON,
    REAL_BASE_URL,
    WeChatApi,
    detail_links,
    news_links,
    normalise_id,
    permanent,
)
from crosspost.channels.wechat.doctor import DENIED_CODES, PROBES
from crosspost.channels.wechat.errors import (
    CHANNEL,
    DRAFT_GONE_CODE,
    oversized,
    seconds_to_quota_reset,
)
from crosspost.channels.wechat.reconcile import (
    find_existing,
    reconcile_draft,
    reconcile_handoff,
    reconcile_publish,
)
from crosspost.channels.wechat.token import PollBudget, StableToken, backoff, spread, state_key
from crosspost.config.counts import counted
from crosspost.config.settings import Account
from crosspost.config.sources import default_env_name
from crosspost.errors import (
    ChannelError,
    ConfigError,
    CrosspostError,
    PermanentError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
    UsageError,
)
from crosspost.images.pipeline import PreparedImage
from crosspost.ledger.assets import UploadedAsset
from crosspost.platforms.base import Platform
from crosspost.platforms.wechat import (
    EXTENSIONS,
    MASS_REPEAT_PAUSE,
    UPLOADIMG_MAX_BYTES,
    UPLOADIMG_TYPES,
    WECHAT,
)

log = logging.getLogger("crosspost.wechat")

_PUBLISH_FAILURES = {
    2: "the originality (原创) declaration failed",
    3: "publishing failed (WeChat gives no reason)",
    4: "WeChat's review rejected it",
    5: "it was published, then the account deleted every article",
    6: "it was published, then WeChat banned every article",
}
#: publish_status values of a publication taken down after it was out.
_TAKEN_DOWN = frozenset({5, 6})
#: message/mass/get's msg_status in the ledger's words.
_MASS_STATUS = {
    "SENDING": MASS_SENDING,
    "SEND_SUCCESS": MASS_SENT,
    "SEND_FAIL": MASS_FAILED,
    "DELETE": MASS_DELETED,
}
#: errcodes of a mass-send quota used up (45028 "no quota"; the per-day code is
#: UNCONFIRMED, spec wechat-broadcast-and-accounts.md §2): permanent for today.
MASS_QUOTA_CODES = frozenset({45028})
#: 45066 (the same send id within a minute) is waited out this many times at most.
_TOO_SOON_TRIES = 3


def cover_crops(width: int, height: int) -> dict[str, str]:
    """``pic_crop_235_1`` and ``pic_crop_1_1``: centred crop boxes on the cover.

    The format is ``X1_Y1_X2_Y2`` in [0, 1] relative to the image, at most 6 decimals
    (spec §5.1); the widest boxes of WeChat's cover ratio (2.35:1) and 1:1 that fit, centred.
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"cover size must be positive, got {width}x{height}")

    def box(ratio: float) -> str:
        if width / height > ratio:  # too wide: trim left and right
            margin = (1 - height * ratio / width) / 2
            coords = (margin, 0.0, 1 - margin, 1.0)
        else:  # too tall: trim top and bottom
            margin = (1 - width / ratio / height) / 2
            coords = (0.0, margin, 1.0, 1 - margin)
        return "_".join(_decimal(c) for c in coords)

    wide = WECHAT.limits.cover_ratio or 1.0
    return {"pic_crop_235_1": box(wide), "pic_crop_1_1": box(1.0)}


def _decimal(value: float) -> str:
    text = f"{min(1.0, max(0.0, value)):.6f}".rstrip("0").rstrip(".")
    return text or "0"


def _articles(fail_idx: Any) -> str:
    """``; articles 1, 3`` of a 多图文 draft WeChat names in ``fail_idx`` (1-based); empty
    for the lead alone (every single-article refusal) or an answer without the list."""
    if not isinstance(fail_idx, list):
        return ""
    numbers = [str(i) for i in fail_idx if isinstance(i, int) and not isinstance(i, bool)]
    return f"; articles {', '.join(numbers)}" if numbers and numbers != ["1"] else ""


def _https(url: str) -> str:
    """WeChat hands out ``http://mmbiz.qpic.cn`` URLs; its pages load them over https."""
    return "https://" + url[len("http://") :] if url.startswith("http://mmbiz.") else url


class WeChatAdapter(Adapter):
    """One WeChat Official Account behind the adapter contract."""

    platform: ClassVar[Platform] = WECHAT
    channel: ClassVar[str] = WECHAT.name
    display_name: ClassVar[str] = WECHAT.display_name
    broadcasts: ClassVar[bool] = True
    # The first poll half a second after the submit, each pause twice the one before, up
    # to two minutes: a publication WeChat finishes in a second is recorded about a second
    # later, and the ten polls still reach as far (~6 minutes) as the old 3, 5, 10 … 60 s.
    # ≤ 10 polls per article: the publish-status quota is 100 a day (spec §12.7); with
    # fewer left today, :meth:`wait` spreads what is left over the same six minutes.
    poll_delays: ClassVar[tuple[float, ...]] = backoff(first=0.5, cap=120.0, polls=10)

    def __init__(
        self,
        account: Account,
        *,
        http: HttpPolicy,
        state_dir: Path,
        clock: Clock = time.time,
        sleep: Sleep = time.sleep,
        memo: RunMemo | None = None,
    ) -> None:
        super().__init__(
            account, http=http, state_dir=state_dir, clock=clock, sleep=sleep, memo=memo
        )
        missing = account.missing_credentials()
        if missing:
            names = ", ".join(account.credential_env.get(key, key) for key in missing)
            what = "credential" if len(missing) == 1 else "credentials"
            them = "it" if len(missing) == 1 else "them"
            raise ConfigError(f"{account.key}: missing {what} {names}; set {them} in .env")
        base_url = (account.base_url or REAL_BASE_URL).rstrip("/")
        self.app_id = account.credentials["app_id"].reveal()
        secret_variable = account.credential_env.get("app_secret") or default_env_name(
            CHANNEL, account.name, "app_secret"
        )
        token = StableToken(
            app_id=self.app_id,
            app_secret=account.credentials["app_secret"].reveal(),
            base_url=base_url,
            http=http,
            state_dir=self.state_dir,
            clock=clock,
            shared=self.memo.shared,
            # Only the AppSecret: it always comes from the environment (an AppID may not).
            read_from={"app_secret": secret_variable},
        )
        polls = PollBudget(
            self.state_dir / f"wechat-polls-{state_key(base_url, self.app_id)}.json",
            per_day=self.declaration.limits.poll_budget_per_day,
            clock=clock,
            shared=self.memo.shared,
        )
        self.api = WeChatApi(
            account_key=account.key,
            base_url=base_url,
            http=http,
            token=token,
            polls=polls,
            clock=clock,
        )

    # --- the contract -------------------------------------------------------------------

    def upload_urls(self) -> tuple[str, ...]:
        """Images and the cover go to the API host itself (``media/uploadimg``,
        ``material/add_material``)."""
        return (f"{self.api.base_url}/cgi-bin/",)

    def calls_beside_uploads(self) -> tuple[tuple[str, int], ...]:
        """The day's quota, and the looks for the post among the published articles and
        the drafts, on the same host."""
        return ((f"{self.api.base_url}/cgi-bin/", 3),)

    def preflight(self) -> Preflight:
        """Fetch (or reuse) the access token: proves AppID, AppSecret and the IP whitelist."""
        self.api.token.token()
        return Preflight(account=self.account.key, identity=self.app_id, detail="token OK")

    def upload_image(self, prepared: PreparedImage, kind: str) -> UploadedAsset:
        """uploadimg for inline JPG/PNG within uploadimg's own limit (WeChat's "< 1 MB",
        whatever the config's ``image_bytes`` lets through); add_material (type=image)
        otherwise and for covers, which need a permanent media_id."""
        if kind not in IMAGE_KINDS:
            raise ValueError(f"unknown image kind {kind!r}")
        mime = prepared.mime
        if mime not in self.declaration.limits.image_formats:
            raise UsageError(f"{prepared.filename}: WeChat takes JPG, PNG or GIF, not {mime}")
        name = prepared.filename
        if not name.lower().endswith(EXTENSIONS[mime]):
            name += EXTENSIONS[mime][0]  # WeChat refuses file names without the right extension
        files = {"media": (name, prepared.data, mime)}
        small = len(prepared.data) <= UPLOADIMG_MAX_BYTES
        if kind == "inline" and mime in UPLOADIMG_TYPES and small:
            data = self.api.upload_image(files)
            return UploadedAsset(url=_https(self._field(data, "url", "media/uploadimg")))
        data = self.api.add_material(files)
        media_id = self._field(data, "media_id", "material/add_material")
        return UploadedAsset(url=_https(str(data.get("url") or "")), media_id=media_id)

    def create_draft(self, content: DraftContent) -> RemoteDraft:
        """draft/add (once), then draft/get for the preview link when an editor will
        review the draft (a draft published at once needs none: one round fewer)."""
        article = self._article(content)
        others = [self._article(companion) for companion in content.companions]
        try:
            data = self.api.add_draft(article, *others)
        except PermanentError as error:
            raise oversized(error, article) from None
        media_id = normalise_id(data.get("media_id"))
        if media_id is None:
            raise UnconfirmedError(
                "WeChat accepted draft/add but sent no media_id; run again to reconcile",
                channel=CHANNEL,
            )
        log.info("created WeChat draft %s on %s", media_id, self.account.key)
        return RemoteDraft(media_id, self.api.preview_url(media_id) if content.preview else None)

    def update_draft(self, remote_id: str, content: DraftContent) -> RemoteDraft:
        """draft/update in place (same content, same result: safe to retry).

        draft/update replaces an article a draft holds, never adds or removes one, so a
        draft whose number of articles is not the issue's (a companion named or dropped
        since: 多图文) is refused before any of it changes: sending it would leave out a
        companion, or send one the issue no longer names."""
        article = self._article(content)
        wanted = 1 + len(content.companions)
        held = len(self.api.get_draft(remote_id).get("news_item") or [])
        if held and held != wanted:
            raise PermanentError(
                f"WeChat draft {remote_id} holds {counted(held, 'article')} but the issue now has "
                f"{wanted} (多图文), and WeChat cannot add or remove a draft's articles; run "
                "again with --new-draft to make a new draft (and delete the old one in 草稿箱)",
                channel=CHANNEL,
                code="bundle-changed",
            )
        try:
            self.api.update_draft(remote_id, article)
            for index, companion in enumerate(content.companions, start=1):
                self.api.update_draft(remote_id, self._article(companion), index)
        except PermanentError as error:
            raise oversized(error, article) from None
        return RemoteDraft(remote_id, self.api.preview_url(remote_id))

    def publish(self, draft: RemoteDraft) -> PublishTicket:
        """freepublish/submit (once). 48001 keeps the draft and says where to publish it."""
        try:
            data = self.api.submit(draft.id)
        except PermanentError as error:
            if error.code == 48001:
                # The editor publishes it by hand: now the preview link is worth a read.
                draft = RemoteDraft(draft.id, draft.url or self.api.preview_url(draft.id))
                raise ManualPublishRequired(
                    "draft created; this account can only publish from the web console: "
                    f"open 公众号后台 → 内容与互动 → 草稿箱 and publish draft {draft.id} there "
                    "(WeChat errcode 48001: the API publishes only for verified accounts)",
                    channel=CHANNEL,
                    code=48001,
                    draft=draft,
                ) from None
            raise
        publish_id = normalise_id(data.get("publish_id"))
        if publish_id is None:
            raise UnconfirmedError(
                "WeChat accepted freepublish/submit but sent no publish_id; run again to reconcile",
                channel=CHANNEL,
            )
        log.info("submitted WeChat draft %s: publish_id %s", draft.id, publish_id)
        return PublishTicket(id=publish_id, draft_id=draft.id, submitted_at=self.clock())

    def wait(self, ticket: PublishTicket) -> RemotePost | None:
        """Poll on :attr:`poll_delays` (injected sleep) until the post is out; with fewer
        polls left today than that, on the same span with fewer polls (:func:`spread`).

        None when WeChat is still publishing after the last poll: the ledger keeps the
        ticket and a later run polls again.
        """
        if ticket.post is not None:
            return ticket.post
        for delay in spread(self.poll_delays, self.api.polls.left()):
            self.sleep(delay)
            post = self.poll(ticket)
            if post is not None:
                return post
        return None

    def poll(self, ticket: PublishTicket) -> RemotePost | None:
        """freepublish/get (one poll of today's budget); None while status is 1, while the
        status is missing or unknown, and after a transient failure (the next poll is the
        retry: polls are never retried inside, each attempt costs budget). A final no
        (2–6) raises :class:`PublicationRefused`: that submission is over."""
        try:
            data = self.api.publish_status(ticket.id)
        except TransientError as error:
            if error.code in (45009, "45009"):  # today's quota is gone: stop polling
                raise
            log.warning(
                "poll of WeChat publication %s failed, will poll again: %s", ticket.id, error
            )
            return None
        status = data["publish_status"]
        if status == 0:
            return self.api.post_from(data)
        if status not in _PUBLISH_FAILURES:  # 1 (publishing), missing or unknown: not a no
            if status != 1:
                log.warning(
                    "WeChat sent publish_status %r for %s; polling again", status, ticket.id
                )
            return None
        raise self._refusal(ticket, status, data.get("fail_idx"))

    def _refusal(self, ticket: PublishTicket, status: int, fail_idx: Any) -> PublicationRefused:
        """WeChat's final no to a submission (publish_status 2–6), in one line saying
        what was refused and the way on; nothing is polled for it again.

        2/3/4: nothing was published and WeChat keeps the draft (spec §10: "草稿箱中会保留
        这份草稿的备份"); whether it is there is asked (one draft/get), as the way on
        depends on it. 5/6: it was published, then taken down: the draft left 草稿箱 at
        publication, and publishing anew is the editor's decision.
        """
        what = f"WeChat publication {ticket.id} of draft {ticket.draft_id}"
        said = f"{_PUBLISH_FAILURES[status]} (publish_status {status}{_articles(fail_idx)})"
        code = f"publish_status {status}"
        if status in _TAKEN_DOWN:
            why = "发表记录" if status == 5 else "发表记录 and WeChat's notice"
            return PublicationRefused(
                f"{what}: {said}; it is no longer public: see {why} in 公众号后台. "
                "crosspost does not publish it again by itself; to publish the issue "
                "anew, run with --new-draft",
                channel=CHANNEL,
                code=code,
                ticket_id=ticket.id,
                removed=True,
            )
        try:
            kept = self.api.draft_exists(ticket.draft_id)
        except CrosspostError as error:
            log.warning("could not ask whether draft %s is in 草稿箱: %s", ticket.draft_id, error)
            kept = None
        if kept is False:
            way = (
                f"draft {ticket.draft_id} is no longer in 草稿箱 either: check 发表记录, then "
                "run with --new-draft to make and submit a new one"
            )
        else:
            where = "stays in 草稿箱" if kept else "should still be in 草稿箱 (WeChat keeps it)"
            way = (
                f"nothing was published; the draft {where}: fix it there or edit the "
                "issue, then run with --retry-failed to submit it again"
            )
        return PublicationRefused(
            f"{what}: {said}; {way}", channel=CHANNEL, code=code, ticket_id=ticket.id
        )

    def permanent_url(self, article_id: str, ticket_id: str | None = None) -> str | None:
        """Ask again for a published article's lasting link: freepublish/get when the
        publish_id is known, else freepublish/getarticle; None while WeChat gives only a
        temporary one. A failure to ask is not an error: the URL stays pending."""
        try:
            if ticket_id:
                data = self.api.publish_status(ticket_id)
                if data.get("publish_status") == 0:
                    return self.api.post_from(data).url
            url = self.api.article_url(article_id)
        except CrosspostError as error:
            log.warning("could not ask WeChat for article %s's link: %s", article_id, error)
            return None
        return url if permanent(url) else None

    def article_links(self, post_id: str, ticket_id: str | None = None) -> tuple[ArticleLink, ...]:
        """Every article published under ``post_id`` (多图文): from freepublish/get's
        ``article_detail`` when the publish_id is known (permanent links, no titles; one
        poll of today's budget), else from freepublish/getarticle (titles, and links that
        are usually temporary, so none). Nothing when WeChat cannot be asked now."""
        try:
            if ticket_id:
                data = self.api.publish_status(ticket_id)
                links = detail_links(data) if data.get("publish_status") == 0 else ()
                if links:
                    return links
            return news_links(self.api.published_articles(post_id))
        except CrosspostError as error:
            log.warning("could not ask WeChat for the articles of %s: %s", post_id, error)
            return ()

    def find_existing(self, intent: Intent) -> Adoption | None:
        """The issue's article already on the account: published first, else in 草稿箱."""
        return find_existing(self.api, intent)

    def reconcile(self, step: str, intent: Intent) -> Reconciliation:
        """Ask WeChat whether an unconfirmed draft/add or freepublish/submit took effect.

        "draft": a draft in 草稿箱 with the intent's title, author and digest, changed since
        the intent and not already known. "publish": the ticket's status, else the
        published list, else whether the draft left 草稿箱 (see :mod:`.reconcile`).
        """
        if step == STEP_DRAFT:
            return reconcile_draft(self.api, intent)
        if step == STEP_PUBLISH:
            return reconcile_publish(self.api, intent)
        if step == STEP_HANDOFF:
            return reconcile_handoff(self.api, intent)
        raise ValueError(f"only the irreversible steps need reconciling, not {step!r}")

    # --- mass send (群发) -------------------------------------------------------------------

    def send_id(self, issue_id: str, version: str, attempt: int) -> str:
        """``clientmsgid``: a hash of the account's AppID, the issue, its content version
        and the attempt, so a replay from another machine or after a lost ledger is the
        same send to WeChat. 50 ASCII bytes (WeChat's limit is 64: 45067)."""
        identity = "\0".join((self.app_id, issue_id, version, str(attempt)))
        return "crosspost-" + hashlib.sha256(identity.encode("utf-8")).hexdigest()[:40]

    def mass_send(self, draft: RemoteDraft, intent: Intent, target: Mapping[str, Any]) -> MassSend:
        """message/mass/sendall of the draft under ``intent.send_id``.

        45065 (sent within 24 h under this id) is the first send, recorded as such; 45066
        (the same id within a minute: a send that just went out) is waited out, then the
        same id is sent again, which WeChat answers with 45065. A quota errcode is
        today's refusal, with when the next send is possible.
        """
        if not intent.send_id:
            raise ValueError("a mass send needs the send id its intent recorded")
        tag = target.get("tag_id")
        for _ in range(_TOO_SOON_TRIES):
            try:
                data = self.api.mass_send(
                    draft.id,
                    intent.send_id,
                    tag_id=None if tag is None else int(tag),
                    send_ignore_reprint=bool(target.get("send_ignore_reprint", False)),
                )
            except PermanentError as error:
                if error.code == 48001:  # this account may not mass send: the editor does
                    raise ManualPublishRequired(
                        "draft created; this account cannot mass send (群发) through the API: "
                        f"open 公众号后台 → 内容与互动 → 草稿箱 and send draft {draft.id} there "
                        "(WeChat errcode 48001: only verified accounts mass send by API)",
                        channel=CHANNEL,
                        code=48001,
                        draft=RemoteDraft(draft.id, draft.url or self.api.preview_url(draft.id)),
                    ) from None
                if error.code in MASS_QUOTA_CODES:
                    raise RateLimitedError(
                        f"{error}: this account's mass sends for today are used up; the "
                        "next is possible after midnight Beijing time (16:00 UTC); nothing "
                        "was sent",
                        channel=CHANNEL,
                        code=error.code,
                        retry_after=seconds_to_quota_reset(self.clock()),
                    ) from None
                raise
            code = int(data.get("errcode") or 0)
            if code == MASS_TOO_SOON:
                log.info("WeChat: send %s was just made; asking again in a minute", draft.id)
                self.sleep(MASS_REPEAT_PAUSE)
                continue
            # The send's id: ``msg_id``; WeChat's page on 45065 spells it ``msgid``.
            msg_id = normalise_id(data.get("msg_id", data.get("msgid")))
            replayed = code == MASS_ALREADY_SENT
            log.info("WeChat mass send of %s: msg_id %s (replayed: %s)", draft.id, msg_id, replayed)
            return MassSend(msg_id, normalise_id(data.get("msg_data_id")), replayed=replayed)
        raise UnconfirmedError(
            f"WeChat answered 45066 (the same mass send within a minute) {_TOO_SOON_TRIES} "
            "times; the send may be going out: run again in a few minutes (it is never sent "
            "a second time)",
            channel=CHANNEL,
            code=MASS_TOO_SOON,
        )

    def mass_status(self, msg_id: str) -> str | None:
        """message/mass/get in the ledger's words; None for a status WeChat did not name."""
        status = self.api.mass_status(msg_id)
        if status not in _MASS_STATUS:
            log.warning("WeChat sent msg_status %r for mass send %s", status, msg_id)
            return None
        return _MASS_STATUS[status]

    def discard_draft(self, draft_id: str) -> bool:
        """draft/delete (False when the draft had already left 草稿箱: 40007)."""
        try:
            self.api.delete_draft(draft_id)
        except PermanentError as error:
            if error.code == DRAFT_GONE_CODE:
                return False
            raise
        return True

    # --- review and capabilities -------------------------------------------------------------

    def preview(self, draft_id: str, reviewer: str) -> None:
        """message/mass/preview by WeChat ID (towxname): the draft on one phone."""
        self.api.mass_preview(draft_id, reviewer)

    def may(self, mode: str) -> bool | None:
        """Ask ``openapi/quota/get`` (read-only, once per run per account) for the path
        ``mode`` calls: a quota means yes, 48001 (or the other "no permission" codes) no,
        anything else None (not known: the call itself will tell)."""
        answer: bool | None = self.memo.get(
            (self.account.key, "may", mode), lambda: self._may(mode)
        )
        return answer

    def _may(self, mode: str) -> bool | None:
        """A path refused is asked about drafts too: an account refused even draft/add
        (a lapsed verification) is not one to hand a draft off from, and None lets the
        run's first call say so in WeChat's words, with no word of a draft to press."""
        allowed = self._quota(mode)
        if allowed is False and mode != "draft" and self._quota("draft") is False:
            return None
        return allowed

    def _quota(self, mode: str) -> bool | None:
        path = dict(PROBES).get(mode)
        if path is None:
            return None
        try:
            self.api.quota(path)
        except ChannelError as error:
            if error.code in DENIED_CODES:
                return False
            log.warning("could not ask WeChat what %s may do: %s", self.account.key, error)
            return None
        return True

    # --- pieces ---------------------------------------------------------------------------

    def _article(self, content: DraftContent) -> dict[str, Any]:
        cover = content.cover
        if cover is None or not cover.media_id:
            raise UsageError(
                "a WeChat article needs a cover image: set `cover:` in the issue's front matter"
            )
        options = content.options
        article: dict[str, Any] = {
            "article_type": "news",
            "title": content.title,
            "content": content.html,
            "thumb_media_id": cover.media_id,
            "need_open_comment": int(bool(options.get("need_open_comment", False))),
            "only_fans_can_comment": int(bool(options.get("only_fans_can_comment", False))),
        }
        if content.author:
            article["author"] = content.author
        if content.digest:
            article["digest"] = content.digest
        if content.source_url:
            article["content_source_url"] = content.source_url
        if content.cover_size:
            article.update(cover_crops(*content.cover_size))
        return article

    @staticmethod
    def _field(data: Mapping[str, Any], name: str, path: str) -> str:
        value = normalise_id(data.get(name))
        if value is None:
            raise PermanentError(f"WeChat's {path} answer has no {name}", channel=CHANNEL)
        return value
