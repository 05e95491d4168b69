"""Article drafts, publishing, topics and columns of the Zhihu emulator (spec §2–§4, §6).

The state machine is the one of spec §4.2: a draft is created (E2), patched (E3), read
(E4), deleted (E5) and published (E6, or the legacy E7 behind a switch). Publishing keeps
the draft and adds a *publication* to it, so both the draft read (E4, ``state``) and the
article read (E14) tell a reconciling client whether a lost publish really happened.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from typing import Any

from werkzeug.wrappers import Request, Response

from crosspost.sandbox.zhihu.content import Cleaned, clean
from crosspost.sandbox.zhihu.model import (
    DEFAULT_TOPICS,
    Column,
    Draft,
    Publication,
    Topic,
    article_view,
    column_view,
    draft_view,
    plain_text,
)
from crosspost.sandbox.zhihu.wire import (
    ZhihuError,
    ZhihuOptions,
    field_of,
    json_body,
    json_response,
    malformed,
    new_id,
    not_found,
)


def publish_failure(code: int, message: str) -> Response:
    """E6 business failures: HTTP 200 with ``code`` ≠ 0 (spec §3 E6, §5)."""
    return json_response({"code": code, "message": message, "toast_message": message})


class ArticleDesk:
    """Drafts, publications, topics and columns, with the E2–E14 handlers."""

    def __init__(self, options: ZhihuOptions, clock: Callable[[], float], author: dict[str, Any]):
        self.options = options
        self.clock = clock
        self.author = author
        self.drafts: dict[str, Draft] = {}
        self.topics: dict[str, Topic] = {}
        self.columns: dict[str, Column] = {}
        self.configure(options)

    def configure(self, options: ZhihuOptions) -> None:
        """Take new options; topics and columns they name are added, never removed."""
        self.options = options
        for topic in map(Topic.named, DEFAULT_TOPICS + options.topics):
            self.topics[topic.id] = topic
        titles = {c.title for c in self.columns.values()}
        for title in options.columns:
            if title not in titles:
                column_id = "c_" + new_id(self.columns)
                self.columns[column_id] = Column(column_id, title)

    def _now(self) -> int:
        return int(self.clock())

    def _draft(self, article_id: str) -> Draft:
        draft = self.drafts.get(article_id)
        if draft is None:
            raise not_found("文章不存在或已删除")
        return draft

    def _article_view(self, draft: Draft) -> dict[str, Any]:
        columns = [c for c in self.columns.values() if draft.id in c.items]
        return article_view(draft, self.author, columns[0] if columns else None)

    # --- E2–E5: drafts -------------------------------------------------------------------

    def _edit(self, draft: Draft, body: Mapping[str, Any]) -> Draft:
        """Apply the E2/E3 fields (camelCase and snake_case mixed, as the real editor)."""
        changes: dict[str, Any] = {}
        for wire, attr, kind in (
            ("title", "title", str),
            ("content", "content", str),
            ("titleImage", "title_image", str),
            ("isTitleImageFullScreen", "title_image_full_screen", bool),
            ("table_of_contents", "table_of_contents", bool),
            ("can_reward", "can_reward", bool),
        ):
            value = field_of(body, wire, kind)
            if value is not None:
                changes[attr] = value
        field_of(body, "delta_time", int)  # any integer is accepted (spec §3 E3)
        return replace(draft, updated=self._now(), **changes)

    def create(self, request: Request) -> Response:
        """E2: every call makes a new draft; there is no server-side de-duplication."""
        body = json_body(request, empty_ok=True)
        now = self._now()
        draft = self._edit(Draft(id=new_id(self.drafts), created=now), body)
        self.drafts[draft.id] = draft
        content = "" if self.options.blank_create_content else None
        return json_response(draft_view(draft, self.author, content=content))

    def draft(self, request: Request, article_id: str) -> Response:
        """E4 read, E3 patch, E5 delete of one draft."""
        draft = self._draft(article_id)
        if request.method == "PATCH":
            draft = self._edit(draft, json_body(request))
            self.drafts[article_id] = draft
            if self.options.patch_response == "no_content":
                return Response(status=204)
        elif request.method == "DELETE":
            if draft.article is None:
                del self.drafts[article_id]
            # A published article keeps living; only E13 removes it.
            return json_response({"success": True})
        return json_response(draft_view(draft, self.author))

    # --- E6 / E7: publishing -------------------------------------------------------------

    def _check_title(self, title: str) -> None:
        """Title limits answer HTTP 400 at publish time (VZ #50: the PATCH had passed)."""
        if not title.strip():
            raise ZhihuError(400, 400, "请输入文章标题", "MalformRequestException")
        if len(title) > self.options.title_max:
            message = f"标题不能超过 {self.options.title_max} 个字"
            raise ZhihuError(400, 400, message, "MalformRequestException")
        if "\n" in title or "\r" in title:
            raise ZhihuError(400, 400, "标题不能包含换行", "MalformRequestException")

    def _clean(self, content: str) -> Cleaned:
        """What the editor keeps of ``content`` (the ``sanitize`` option can turn it off)."""
        if self.options.sanitize:
            return clean(content)
        return Cleaned(content, (), plain_text(content))

    def _content_problem(self, draft: Draft, content: Cleaned) -> str | None:
        text = content.text
        if len(text) < self.options.body_min:
            return f"正文不能少于 {self.options.body_min} 个字"
        if len(text) > self.options.body_max:
            return f"正文不能超过 {self.options.body_max} 个字"
        if self.options.require_topics and not draft.topics:
            return "请至少添加一个话题"
        return None

    def _commit(
        self, draft: Draft, title: str, content: str, cleaned: Cleaned, permission: str, via: str
    ) -> Draft:
        """Publish: readers get the ``cleaned`` content, the draft keeps what was sent."""
        now = self._now()
        old = draft.article
        article = Publication(
            title=title,
            content=cleaned.html,
            flags=cleaned.flags,
            published_at=old.published_at if old else now,
            updated=now,
            publish_count=(old.publish_count if old else 0) + 1,
            comment_permission=permission,
            via=via,
        )
        draft = replace(draft, title=title, content=content, updated=now, article=article)
        self.drafts[draft.id] = draft
        return draft

    def publish(self, request: Request) -> Response:
        """E6 ``content/publish``: HTTP 200 always; success and failure are in ``code``."""
        body = json_body(request)
        data = body.get("data")
        if body.get("action") != "article" or not isinstance(data, dict):
            return publish_failure(1, "内容格式错误")
        for name in ("hybridInfo", "toFollower"):
            if name in data and not isinstance(data[name], dict):
                return publish_failure(1, "内容格式错误")
        business = _business_params(data)
        if business is None:
            return publish_failure(1, "内容格式错误")
        draft_ref = data.get("draft")
        draft_id = draft_ref.get("id") if isinstance(draft_ref, dict) else None
        draft = self.drafts.get(str(draft_id)) if draft_id not in (None, "") else None
        if draft is None:
            return publish_failure(4000, "发布失败，请稍后再试")
        title = _nested_str(data, "title", "title") or business.get("title") or draft.title
        hybrid = _nested_str(data, "hybrid", "html")
        content = hybrid if hybrid is not None else business.get("content", draft.content)
        if not isinstance(title, str) or not isinstance(content, str):
            return publish_failure(1, "内容格式错误")
        self._check_title(title)
        cleaned = self._clean(content)
        problem = self._content_problem(draft, cleaned)
        if problem:
            return publish_failure(1, problem)
        permission = _nested_str(data, "commentsPermission", "comment_permission") or "anyone"
        draft = self._commit(draft, title, content, cleaned, permission, "content/publish")
        decoded = {
            "publish": {
                "id": draft.id,
                "content": "",
                "author": self.author,
                "question": None,
            },
            "pinDraft": None,
            "pinResp": "",
            "questionResp": "",
        }
        if self.options.publish_result == "top_level":
            return json_response(decoded)
        if self.options.publish_result == "bare":
            return json_response({})
        result: Any = decoded
        if self.options.publish_result == "string":
            result = json.dumps(decoded, ensure_ascii=False)
        return json_response(
            {"code": 0, "message": "success", "data": {"result": result, "publish_type": "article"}}
        )

    def legacy_publish(self, request: Request, article_id: str) -> Response:
        """E7 ``PUT /api/articles/{id}/publish``: only when ``legacy_publish`` is on."""
        if not self.options.legacy_publish:
            raise not_found()
        body = json_body(request, empty_ok=True)
        draft = self._draft(article_id)
        self._check_title(draft.title)
        cleaned = self._clean(draft.content)
        problem = self._content_problem(draft, cleaned)
        if problem:
            raise ZhihuError(400, 400, problem, "MalformRequestException")
        permission = field_of(body, "commentPermission", str) or "anyone"
        column = field_of(body, "column", dict)
        if column is not None and str(column.get("id")) not in self.columns:
            raise not_found("专栏不存在")
        draft = self._commit(draft, draft.title, draft.content, cleaned, permission, "legacy")
        if column is not None:
            self._add_to_column(str(column["id"]), draft.id)
        return json_response(draft_view(draft, self.author))

    # --- E13 / E14: published articles ---------------------------------------------------

    def article(self, request: Request, article_id: str, *, zhuanlan: bool = False) -> Response:
        """E14 read (both host forms) and E13 delete of a published article."""
        if zhuanlan and self.options.block_zhuanlan_article_read:
            raise ZhihuError(403, 10003, "请求参数异常，请升级客户端后重试")
        draft = self.drafts.get(article_id)
        if draft is None or draft.article is None:
            raise not_found("文章不存在或已删除")
        if request.method == "DELETE":
            del self.drafts[article_id]
            for column in self.columns.values():
                if article_id in column.items:
                    items = tuple(i for i in column.items if i != article_id)
                    self.columns[column.id] = replace(column, items=items)
            return json_response({"success": True})
        return json_response(self._article_view(draft))

    # --- E8–E10: topics ------------------------------------------------------------------

    def topic_search(self, request: Request) -> Response:
        token = request.args.get("token", "").strip()
        if not token:
            raise malformed("参数错误：缺少 token")
        try:
            limit = int(request.args.get("max_matches", "5"))
        except ValueError as exc:
            raise malformed("参数错误：max_matches 必须是整数") from exc
        needle = token.casefold()
        hits = [t for t in self.topics.values() if needle in t.name.casefold()]
        hits.sort(key=lambda t: (t.name.casefold() != needle, len(t.name)))
        return json_response([t.view() for t in hits[:limit]])

    def topic_attach(self, request: Request, article_id: str) -> Response:
        """E9: the body is one topic object as autocomplete returned it."""
        draft = self._draft(article_id)
        topic_id = json_body(request).get("id")
        if not isinstance(topic_id, str | int) or str(topic_id) not in self.topics:
            raise malformed("参数错误：话题不存在，请先用 autocomplete 查找话题 id")
        topic = self.topics[str(topic_id)]
        if topic not in draft.topics:
            self.drafts[article_id] = replace(draft, topics=(*draft.topics, topic))
        return json_response(topic.view())

    def topic_detach(self, request: Request, article_id: str, topic_id: str) -> Response:
        draft = self._draft(article_id)
        kept = tuple(t for t in draft.topics if t.id != topic_id)
        self.drafts[article_id] = replace(draft, topics=kept)
        return json_response({"success": True})

    # --- E11 / E12: columns --------------------------------------------------------------

    def column_list(self, request: Request, url_token: str) -> Response:
        if url_token != self.author["url_token"]:
            raise not_found("用户不存在")
        data = [{"column": column_view(c, self.author)} for c in self.columns.values()]
        paging = {"is_end": True, "is_start": True, "totals": len(data)}
        return json_response({"data": data, "paging": paging})

    def member_articles(self, request: Request, url_token: str) -> Response:
        """The member's published articles, newest first, paged by ``offset``/``limit``
        (the profile page's own listing; not in the spec's table, so unconfirmed)."""
        if url_token != self.author["url_token"]:
            raise not_found("用户不存在")
        published = [d for d in self.drafts.values() if d.article is not None]
        published.sort(key=lambda d: d.article.published_at if d.article else 0, reverse=True)
        offset = max(0, int(request.args.get("offset", 0) or 0))
        limit = max(1, min(20, int(request.args.get("limit", 20) or 20)))
        page = published[offset : offset + limit]
        data = [self._article_view(d) for d in page]
        paging = {"is_end": offset + limit >= len(published), "totals": len(published)}
        return json_response({"data": data, "paging": paging})

    def _add_to_column(self, column_id: str, article_id: str) -> None:
        column = self.columns[column_id]
        if article_id not in column.items:
            self.columns[column_id] = replace(column, items=(*column.items, article_id))

    def column_add(self, request: Request, column_id: str) -> Response:
        """E12: put a published article into one of the user's columns."""
        if column_id not in self.columns:
            raise not_found("专栏不存在")
        body = json_body(request)
        if body.get("type") != "article":
            raise malformed('参数错误：type 必须是 "article"')
        article_id = str(body.get("id", ""))
        draft = self.drafts.get(article_id)
        if draft is None or draft.article is None:
            raise not_found("文章不存在或尚未发布")
        self._add_to_column(column_id, article_id)
        return json_response({"success": True})

    # --- introspection and persistence ---------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        drafts = [
            {
                **asdict(d),
                "topics": [t.name for t in d.topics],
                "state": draft_view(d, self.author)["state"],
            }
            for d in self.drafts.values()
        ]
        articles = [
            {
                **self._article_view(d),
                "publish_count": d.article.publish_count,
                "via": d.article.via,
                "flags": list(d.article.flags),
            }
            for d in self.drafts.values()
            if d.article is not None
        ]
        columns = [
            {"id": c.id, "title": c.title, "items": list(c.items)} for c in self.columns.values()
        ]
        return {"drafts": drafts, "articles": articles, "columns": columns}

    def dump(self) -> dict[str, Any]:
        return {
            "drafts": [asdict(d) for d in self.drafts.values()],
            "columns": [asdict(c) for c in self.columns.values()],
        }

    def load(self, state: Mapping[str, Any]) -> None:
        self.drafts = {}
        for raw in state.get("drafts", []):
            values = dict(raw)
            values["topics"] = tuple(Topic(**t) for t in values.get("topics", []))
            article = values.get("article")
            if article:
                article = {**article, "flags": tuple(article.get("flags", ()))}
            values["article"] = Publication(**article) if article else None
            self.drafts[values["id"]] = Draft(**values)
        if "columns" in state:
            self.columns = {
                c["id"]: Column(c["id"], c["title"], tuple(c["items"])) for c in state["columns"]
            }


def _nested_str(data: Mapping[str, Any], outer: str, inner: str) -> str | None:
    block = data.get(outer)
    value = block.get(inner) if isinstance(block, dict) else None
    return value if isinstance(value, str) else None


def _business_params(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """``extra_info.pc_business_params`` is a JSON *string*; None when it is anything else."""
    extra = data.get("extra_info")
    raw = extra.get("pc_business_params") if isinstance(extra, dict) else None
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return None
    try:
        params = json.loads(raw)
    except ValueError:
        return None
    return params if isinstance(params, dict) else None
