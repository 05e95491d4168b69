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

import html
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from crosspost.issue.collector import collector_paused
from crosspost.issue.model import Issue
from crosspost.patterns import pattern
from crosspost.platforms.base import Limits, Platform, load
from crosspost.platforms.registry import PLATFORMS, platform

#: An attribute ending in ``src`` and its (escaped) value, as the renderers write it.
_SRC = pattern(r'src="([^"]*)"')


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
    #: Channel → its declaration with the config's limits laid over it (the channel's,
    #: or one account's): what a renderer keeps to (Zhihu's caption length). A channel
    #: not in it renders by its shipped declaration.
    platforms: Mapping[str, Platform] = field(default_factory=lambda: PLATFORMS)

    def limits(self, channel: str) -> Limits:
        """The limits ``channel``'s renderer keeps to (the config's, else the declared)."""
        return self.platforms.get(channel, platform(channel)).limits


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
        """Return a copy whose image sources point at uploaded URLs (``urls``: source → URL).

        Every ``src="…"`` (``data-original-src`` too) whose value is a source is swapped
        in one pass over the body: a replace per image copied the whole body once per
        image, which grows with the square of an issue's length.
        """
        swaps = {html.escape(source): html.escape(url) for source, url in urls.items()}
        if not swaps:
            return self
        body = _SRC.sub(lambda found: f'src="{swaps.get(found[1], found[1])}"', self.body)
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
    """Render ``issue`` for ``channel``, the cyclic collector paused meanwhile (a render
    builds the whole issue's trees at once: see :mod:`crosspost.issue.collector`)."""
    chosen = renderer_for(channel)
    with collector_paused():
        return chosen(issue, context or RenderContext())
