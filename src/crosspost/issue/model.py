"""The issue as every stage sees it: one frozen :class:`Issue`, validated by the loader.

What a channel sees is ``issue.settings(channel)``: the top-level fields with that
channel's block laid over them, and, for one account, ``issue.settings(channel,
account.options)`` fills what the issue leaves unsaid from the account's config. The
body's Markdown is parsed once for the process (``issue.document``) and shared by lint
and every renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.issue.attachments import Attachment
from crosspost.issue.dialect import Document, parse_document
from crosspost.platforms.base import ACCOUNT_FIELDS

#: What an account's config (or its channel's, which the account inherits) may set for
#: every issue, the issue's own value winning: issue > account > channel > the
#: platform's default. Resolved in :meth:`Issue.settings` alone, for every channel, with
#: :data:`~crosspost.platforms.base.ACCOUNT_FIELDS`.
ACCOUNT_OPTIONS = ("need_open_comment", "only_fans_can_comment")


@dataclass(frozen=True)
class Notice:
    """Something the loader found while reading a file that still loaded.

    ``severity`` is ``"error"`` (``check`` and ``publish`` refuse the file; ``render`` and
    ``preview`` still write it, so the editor can look), ``"warning"`` or ``"info"``.
    Lint turns each into one of its problems.
    """

    line: int | None
    code: str
    message: str
    severity: str = "error"


@dataclass(frozen=True)
class ChannelSettings:
    """What one channel sees of an issue: top-level fields with its own block laid over."""

    channel: str
    title: str
    author: str | None
    digest: str | None
    cover: Path | None
    source_url: str | None
    #: Channel-only keys (``mode``, ``need_open_comment``, ``topics``, ``column``, …).
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Issue:
    """One newsletter issue, validated. Paths are absolute; nothing here touches the network."""

    path: Path
    id: str
    title: str
    body: str
    #: 1-based line of the file where ``body`` starts, so body problems can name a line.
    body_line: int
    author: str | None = None
    digest: str | None = None
    cover: Path | None = None
    source_url: str | None = None
    publish_at: datetime | None = None
    #: When the article first ran elsewhere (set by ``crosspost import`` of a saved page).
    first_published: datetime | None = None
    #: Channels the issue asks for; empty means "every configured channel".
    channels: tuple[str, ...] = ()
    series: str | None = None
    previous: int = 0
    #: Per-channel blocks from the front matter, e.g. ``{"wechat": {"title": …}}``.
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    #: Line of each front-matter key, for messages about a field (lint, overrides).
    field_lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    #: ``draft: true``: ``check`` warns, ``publish`` and ``run-due`` skip the issue.
    draft: bool = False
    #: Dates a static-site generator wrote (``date``, ``pubDate``, ``lastmod``), as written;
    #: kept for the record, never a publication time (that is ``publish_at`` alone).
    dates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: What the loader found wrong or noteworthy in a file that still loaded, in file order.
    notices: tuple[Notice, ...] = ()
    #: The files beside the issue its body names (iA Writer's content blocks, Bear's
    #: attachments), found by the loader: the parse shows them without reading the disk.
    attachments: tuple[Attachment, ...] = ()

    @property
    def document(self) -> Document:
        """The body parsed, once per process (shared: a renderer copies what it changes)."""
        return parse_document(self.body, self.attachments)

    @property
    def folder(self) -> Path:
        """The folder images and the cover are relative to."""
        return self.path.parent

    def settings(
        self, channel: str, account_options: Mapping[str, Any] | None = None
    ) -> ChannelSettings:
        """The fields as ``channel`` should use them (its own block wins), with what the
        issue leaves unsaid taken from ``account_options`` (an account's config, its
        channel's defaults included): :data:`ACCOUNT_FIELDS` and :data:`ACCOUNT_OPTIONS`."""
        block = dict(self.overrides.get(channel, {}))
        account = {k: v for k, v in (account_options or {}).items() if v is not None and v != ""}
        for name in ACCOUNT_OPTIONS:
            if name not in block and name in account:
                block[name] = account[name]
        cover = block.pop("cover", None)
        fields = {
            name: block.pop(name, None) or getattr(self, name) or account.get(name)
            for name in ACCOUNT_FIELDS
        }
        return ChannelSettings(
            channel=channel,
            title=block.pop("title", None) or self.title,
            cover=self.folder / cover if cover else self.cover,
            options=MappingProxyType(block),
            **fields,
        )

    def line_of(self, key: str) -> int | None:
        """The line a front-matter key stands on (``"wechat.title"`` for nested keys)."""
        return self.field_lines.get(key) or self.field_lines.get(key.split(".")[0])
