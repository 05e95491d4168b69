"""Where a Zhihu article is filed: its topics (E8 search → E9 attach) and its column
(E11 the user's columns; the adapter's ``complete_part`` files it with E12): steps of
Zhihu's protocol that need only the :class:`~crosspost.channels.zhihu.api.ZhihuApi`, so
the adapter's publishing flow stays about publishing.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from crosspost.channels.zhihu.api import ZhihuApi
from crosspost.channels.zhihu.wire import CHANNEL
from crosspost.errors import PermanentError


def find_topics(api: ZhihuApi, names: list[str]) -> list[Mapping[str, Any]]:
    """E8 for each topic name, all at once (reads, independent of one another); the exact
    name wins, else Zhihu's best match (as ZO does). Run before the draft exists, so a
    topic Zhihu does not know creates nothing."""
    if len(names) < 2:
        return [_find_topic(api, name) for name in names]
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        return list(pool.map(lambda name: _find_topic(api, name), names))


def topic_names(options: Mapping[str, Any], account_options: Mapping[str, Any]) -> list[str]:
    """The issue's ``zhihu.topics`` (one name or a list), else the account's default."""
    wanted = options.get("topics") or account_options.get("topics") or ()
    return [wanted] if isinstance(wanted, str) else [str(name) for name in wanted]


def attach_topics(
    api: ZhihuApi, draft_id: str, topics: list[Mapping[str, Any]], referer: str
) -> None:
    """E9 for every topic at once: attaching a topic that is already attached changes
    nothing (idempotent), and each call names one topic, so their order does not matter."""

    def attach(topic: Mapping[str, Any]) -> None:
        api.attach_topic(draft_id, topic, referer=referer)

    if len(topics) < 2:
        for topic in topics:
            attach(topic)
        return
    with ThreadPoolExecutor(max_workers=len(topics)) as pool:
        list(pool.map(attach, topics))


def _find_topic(api: ZhihuApi, name: str) -> Mapping[str, Any]:
    """E8 for one name: the exact name, else Zhihu's first match; unknown is permanent."""
    matches = api.search_topics(name)
    items = [m for m in matches if isinstance(m, Mapping)] if isinstance(matches, list) else []
    exact = [m for m in items if m.get("name") == name]
    if not (exact or items):
        raise PermanentError(
            f"Zhihu has no topic named {name!r}; change zhihu.topics in the issue",
            channel=CHANNEL,
            code="topic",
        )
    return (exact or items)[0]


class ColumnNotListed(PermanentError):
    """E11 listed the account's columns and ``wanted`` is none of them: the name is wrong
    (Zhihu's own answer, unlike a refused or empty listing). ``listed`` says so in words."""

    def __init__(self, listed: str, advice: str) -> None:
        super().__init__(f"{listed}; {advice}", channel=CHANNEL, code="column")
        self.listed = listed


def find_column(api: ZhihuApi, wanted: Any) -> str | None:
    """The id of the column ``wanted`` names (its id or its title) among the user's columns
    (E11). Checked before E6, so a wrong name stops the run before anything is published
    (:class:`ColumnNotListed`); any other failure is E11's own (see the adapter)."""
    if not wanted:
        return None
    me = api.me()
    token = me.get("url_token") if isinstance(me, Mapping) else None
    listing = api.columns(str(token))
    rows = listing.get("data", []) if isinstance(listing, Mapping) else []
    columns = [
        row["column"]
        for row in rows
        if isinstance(row, Mapping) and isinstance(row.get("column"), Mapping)
    ]
    for column in columns:
        if str(wanted) in (str(column.get("id")), str(column.get("title"))):
            return str(column.get("id"))
    if not columns:
        # E11 rests on one source (spec §2 [S]): an answer listing nothing may be a shape
        # crosspost does not know as well as an account without columns.
        raise PermanentError(
            f"Zhihu listed no columns for this account (GET …/column-contributions), so "
            f"the column {wanted!r} cannot be found",
            channel=CHANNEL,
            code="column-list",
        )
    names = ", ".join(repr(str(c.get("title"))) for c in columns)
    raise ColumnNotListed(
        f"Zhihu column {wanted!r} is not one of this account's columns ({names})",
        "fix zhihu.column in the issue or the account's column in the config",
    )
