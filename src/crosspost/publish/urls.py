"""Only permanent URLs are URLs: a post published without one stays "URL pending".

WeChat's lists hand out temporary links (``…&tempkey=…``) that stop working after a
while. Such a link may be shown as a preview, but never recorded as the post's URL, never
printed by ``crosspost urls`` and never put in the next issue's 往期回顾. A post whose
permanent link is not known yet is published all the same (submitting again could only
make a second post); each later run asks the platform once more
(:meth:`~crosspost.channels.base.Adapter.permanent_url`), and the editor can record the
link by hand (``crosspost urls --set``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from crosspost.channels.base import Adapter, ArticleLink, RemotePost
from crosspost.config.counts import counted
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.publish.broadcast import BROADCAST, sent_message, url_command

#: What a person reads about a post published without a permanent URL yet.
URL_PENDING = (
    "published, URL pending: the platform gave only a temporary link; crosspost asks again "
    "on the next run, or record the link with '{command}'"
)


def pending_message(record: PostRecord, *, rehearsal: bool) -> str:
    """The line that says a post's URL is pending and how to settle it (``rehearsal``: the
    post is a ``--sandbox`` rehearsal's, and the command it names says so)."""
    if record.delivery == BROADCAST:
        return sent_message(record, rehearsal=rehearsal)
    return URL_PENDING.format(command=url_command(record, rehearsal))


def url_pending(record: PostRecord) -> bool:
    """Published, and the platform has not told its permanent URL yet."""
    return record.is_published and not record.url and bool(record.article_id)


def published_summary(post: RemotePost) -> str:
    """The ledger's summary of a publication: its URL, or that it is pending (with the
    temporary link as a preview, which is no secret and helps an editor find the post)."""
    if post.url:
        return post.url
    preview = f" (preview, temporary: {post.preview_url})" if post.preview_url else ""
    return f"published as article {post.id}, URL pending{preview}"


def ask_again(
    ledger: Ledger, adapter: Adapter, record: PostRecord, progress: Callable[[str], None]
) -> PostRecord:
    """For a post whose URL is pending, ask the platform once; record the link if it has
    one now. Reads only; the post is returned unchanged when the URL is still pending."""
    if not url_pending(record):
        return record
    assert record.article_id is not None
    url = adapter.permanent_url(record.article_id, record.publish_id)
    if not url:
        progress(pending_message(record, rehearsal=adapter.account.rehearsal))
        return record
    ledger.note(record.key, "url", f"permanent URL found: {url}")
    progress(f"published {url}")
    return ledger.record(record.key, url=url)


def set_url(ledger: Ledger, record: PostRecord, url: str) -> PostRecord:
    """``crosspost urls --set``: the editor records a published post's permanent URL."""
    before = f" (was {record.url})" if record.url else ""
    ledger.note(record.key, "url", f"URL set by hand: {url}{before}")
    return ledger.record(record.key, url=url)


#: The ledger step that records a companion of a 多图文 post (and notes about its URL).
STEP_BUNDLE = "bundle"


@dataclass(frozen=True)
class CompanionUrl:
    """A companion article's permanent URL, or why it is not known."""

    url: str | None
    why: str = ""


def companion_urls(links: Sequence[ArticleLink], titles: Sequence[str]) -> tuple[CompanionUrl, ...]:
    """Each companion's URL (``titles``: the lead's, then each companion's) from the
    articles the platform listed under the post, matched by place and, where the answer
    names them, by title. Never a guess: when the list does not line up with the bundle
    (another number of articles, places not 1…n, a title that differs), no companion gets
    a URL and each says why."""

    def unknown(why: str) -> tuple[CompanionUrl, ...]:
        return tuple(CompanionUrl(None, why) for _ in titles[1:])

    if not links:
        return unknown("WeChat listed none of the post's articles")
    if len(links) != len(titles):
        return unknown(
            f"WeChat lists {counted(len(links), 'article')} under the post but it holds "
            f"{len(titles)}, "
            "so which link is whose is not guessed"
        )
    if [link.index for link in links] != list(range(1, len(titles) + 1)):
        places = ", ".join(str(link.index) for link in links)
        return unknown(f"WeChat numbered the post's articles {places}, not 1 to {len(titles)}")
    for link, title in zip(links, titles, strict=True):
        if link.title is not None and link.title != title:
            return unknown(
                f"WeChat's article {link.index} is titled {link.title!r}, not {title!r}, "
                "so which link is whose is not guessed"
            )
    return tuple(
        CompanionUrl(link.url, "" if link.url else "WeChat gave only a temporary link")
        for link in links[1:]
    )


@dataclass(frozen=True)
class Companion:
    """A post that went out inside another's 多图文 draft, as its ledger events say."""

    record: PostRecord
    lead: str
    number: int
    why: str

    def line(self, *, rehearsal: bool) -> str:
        """What ``urls`` and a run say about a companion whose URL is not known."""
        return (
            f"went out as article {self.number} of '{self.lead}' (多图文); URL not known: "
            f"{self.why or 'WeChat did not say'}; record it with "
            f"'{url_command(self.record, rehearsal)}'"
        )


def companion_of(ledger: Ledger, record: PostRecord) -> Companion | None:
    """The record as a companion of a 多图文 post (its latest ``bundle`` event), or None."""
    for event in reversed(ledger.events(record.key)):
        if event.step == STEP_BUNDLE and "lead" in event.data:
            data = event.data
            return Companion(record, str(data["lead"]), int(data["article"]), str(data["why"]))
    return None
