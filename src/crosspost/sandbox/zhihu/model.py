"""The Zhihu emulator's data (drafts, publications, topics, columns) and the JSON shapes
the real API answers with for them (spec §3: E2/E4 draft object, E8 topic, E11 column).

Kept as frozen dataclasses so a handler changes state only by storing a replaced value,
and so the state dumps to JSON and loads back without a bespoke format.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crosspost.sandbox.zhihu.wire import ARTICLE_URL

#: Topics the autocomplete knows without configuration (the newsletter's usual ones).
DEFAULT_TOPICS = (
    "人工智能",
    "深度学习（Deep Learning）",
    "深度学习",
    "机器学习",
    "分布式系统",
    "分布式计算",
    "自然语言处理",
    "计算机视觉",
    "大语言模型",
    "编译器",
    "GPU",
    "Python",
    "开源",
)


@dataclass(frozen=True)
class Topic:
    """A Zhihu topic; its id is derived from the name so it is stable across restarts."""

    id: str
    name: str

    @classmethod
    def named(cls, name: str) -> Topic:
        number = int(hashlib.md5(name.encode()).hexdigest()[:8], 16) % 9_000_000
        return cls(id=str(19_000_000 + number), name=name)

    def view(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": "topic",
            "url": f"https://www.zhihu.com/api/v4/topics/{self.id}",
            "introduction": "",
            "excerpt": "",
            "avatar_url": "https://pic1.zhimg.com/80/v2-topic_l.jpg",
        }


@dataclass(frozen=True)
class Publication:
    """What readers see: the draft's title and content as of the last publish."""

    title: str
    content: str
    published_at: int
    updated: int
    publish_count: int
    comment_permission: str
    via: str
    #: What the editor's clean-up dropped or found doubtful (see ``zhihu_content``).
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Draft:
    """One article as the editor holds it; ``article`` is set once it has been published."""

    id: str
    title: str = ""
    content: str = ""
    title_image: str = ""
    title_image_full_screen: bool = False
    table_of_contents: bool = False
    can_reward: bool = False
    created: int = 0
    updated: int = 0
    topics: tuple[Topic, ...] = ()
    article: Publication | None = None


@dataclass(frozen=True)
class Column:
    id: str
    title: str
    items: tuple[str, ...] = ()


def plain_text(html: str) -> str:
    """The characters a reader sees; Zhihu's length limits count these, not the tags."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser").get_text().strip()


def draft_view(
    draft: Draft, author: Mapping[str, Any], *, content: str | None = None
) -> dict[str, Any]:
    """The object E2/E3/E4 answer with (the fields of the U-API capture)."""
    return {
        "id": draft.id,
        "type": "article_draft",
        "state": "published" if draft.article else "draft",
        "title": draft.title,
        "content": draft.content if content is None else content,
        "url": ARTICLE_URL.format(id=draft.id),
        "created": draft.created,
        "updated": draft.updated,
        "author": dict(author),
        "topics": [t.view() for t in draft.topics],
        "image_url": draft.title_image,
        "title_image": draft.title_image,
        "title_image_size": {"width": 0, "height": 0},
        "is_title_image_full_screen": draft.title_image_full_screen,
        "excerpt": "",
        "excerpt_title": "",
        "summary": "",
        "article_type": "normal",
        "copyright_permission": "need_review",
        "comment_permission": "all",
        "reviewers": [],
        "has_publishing_draft": False,
        "content_need_truncated": False,
        "force_login_when_click_read_more": False,
        "settings": {
            "commercial_report_info": {"is_report": False, "commercial_types": []},
            "commercial_zhitask_bind_info": {},
            "table_of_contents": {"enabled": draft.table_of_contents},
        },
    }


def column_view(column: Column, author: Mapping[str, Any]) -> dict[str, Any]:
    """One column as E11 lists it (``data[].column``)."""
    return {
        "id": column.id,
        "type": "column",
        "title": column.title,
        "url": f"https://www.zhihu.com/column/{column.id}",
        "intro": "",
        "comment_permission": "all",
        "articles_count": len(column.items),
        "followers": 0,
        "author": dict(author),
    }


def article_view(draft: Draft, author: Mapping[str, Any], column: Column | None) -> dict[str, Any]:
    """The published article (E14): what readers see, not the pending draft."""
    article = draft.article
    if article is None:
        raise ValueError(f"article {draft.id} is not published")
    return {
        "id": draft.id,
        "type": "article",
        "state": "published",
        "title": article.title,
        "content": article.content,
        "excerpt": plain_text(article.content)[:100],
        "url": ARTICLE_URL.format(id=draft.id),
        "created": article.published_at,
        "updated": article.updated,
        "author": dict(author),
        "topics": [t.view() for t in draft.topics],
        "image_url": draft.title_image,
        "comment_permission": article.comment_permission,
        "column": column_view(column, author) if column else None,
    }
