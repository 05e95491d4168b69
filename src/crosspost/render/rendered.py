"""Rendering: a pure function per channel from (Issue, RenderContext) to Rendered.

Renderers never touch the network, the ledger or the clock. What they need from the
outside world (earlier issues' URLs, the theme, the user's template folder) arrives in
the :class:`RenderContext`. They do read files: templates and CSS themes, through the one
Jinja2 environment (:mod:`crosspost.render.templates`), which loads and caches them; the
same issue, context and template files give the same output. Image ``src`` attributes
keep the value written in the issue; the publisher swaps in each account's uploaded URLs
with :meth:`Rendered.with_image_urls`, so one render serves every account of a channel.
"""

from __future__ import annotations

import gc
import html
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from crosspost.issue.model import Issue
from crosspost.platforms.base import load
from crosspost.platforms.registry import PLATFORMS, platform


@dataclass(frozen=True)
class PreviousIssue:
    """An earlier issue of the same series, as one channel knows it (for 往期回顾)."""

    id: str
    title: str
    url: str | None  # None: not (yet) on this channel; listed without a link


@dataclass(frozen=True)
class RenderContext:
    """Everything a renderer may know besides the issue itself."""

    theme: str = "default"
    #: The user's template folders, searched before the shipped defaults.
    template_dirs: tuple[Path, ...] = ()
    #: Earlier issues of the series for this channel, newest first.
    previous: tuple[PreviousIssue, ...] = ()


@dataclass(frozen=True)
class Rendered:
    """One channel's output for one issue."""

    channel: str
    title: str
    #: What the platform's API receives (WeChat HTML, Zhihu HTML).
    body: str
    #: Files ``crosspost render`` writes, by name (``wechat.html``, ``zhihu.md``, …).
    files: Mapping[str, str]
    #: Every image source in ``body`` as the issue wrote it (relative path or URL), in order.
    images: tuple[str, ...] = ()

    def with_image_urls(self, urls: Mapping[str, str]) -> Rendered:
        """Return a copy whose image sources point at uploaded URLs (``urls``: source → URL)."""
        body = self.body
        for source, url in urls.items():
            body = body.replace(f'src="{html.escape(source)}"', f'src="{html.escape(url)}"')
        return replace(self, body=body)


class Renderer(Protocol):
    def __call__(self, issue: Issue, context: RenderContext) -> Rendered: ...


#: channel name → "module:function", as the platform declarations name them.
RENDERERS: Mapping[str, str] = MappingProxyType({p.name: p.renderer for p in PLATFORMS.values()})


def renderer_for(channel: str) -> Renderer:
    """The render function of ``channel`` (imported on first use)."""
    renderer: Renderer = load(platform(channel).renderer)
    return renderer


def render(issue: Issue, channel: str, context: RenderContext | None = None) -> Rendered:
    """Render ``issue`` for ``channel`` (the cyclic collector paused meanwhile, see
    :class:`_CollectorPause`)."""
    chosen = renderer_for(channel)
    with collector_paused():
        return chosen(issue, context or RenderContext())


class _CollectorPause:
    """Python's cyclic garbage collector off while a render runs, back as it was after.

    A render holds the whole issue's token copies, syntax trees and element trees at
    once. Each new container object counts toward the next full collection, and each
    full collection walks everything alive, those included: the longer the issue, the
    more full collections and the longer each, so render time grew faster than the
    issue (5,000 items for Zhihu, rendered once in a fresh process: about 60 % of the
    time in the collector, nine full walks that freed nothing). Nothing a render
    builds needs the collector while it runs (the trees' cycles become garbage only
    when it returns), so it is paused, and the first collection after the render frees
    those cycles in one walk. Nested or concurrent renders pause it once; a process
    that switched the collector off keeps it off.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._resume = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0 and self._resume:
                    gc.enable()


#: ``with collector_paused(): …`` — see :class:`_CollectorPause`.
collector_paused = _CollectorPause()
