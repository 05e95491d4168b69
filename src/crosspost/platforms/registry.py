"""The platforms crosspost knows, in the order it lists them.

A third platform is one declaration module and one line in :data:`PLATFORMS`; the issue
loader, config, lint and the renderer and adapter registries pick it up from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from crosspost.errors import ConfigError
from crosspost.platforms.base import Platform
from crosspost.platforms.wechat import WECHAT
from crosspost.platforms.zhihu import ZHIHU

#: channel name → its declaration.
PLATFORMS: Mapping[str, Platform] = MappingProxyType({p.name: p for p in (WECHAT, ZHIHU)})


def platform(name: str) -> Platform:
    """The declaration of channel ``name``; ConfigError (exit 2) for an unknown one."""
    try:
        return PLATFORMS[name]
    except KeyError:
        known = ", ".join(PLATFORMS)
        raise ConfigError(f"unknown channel {name!r}; known channels: {known}") from None


def platform_names() -> tuple[str, ...]:
    """Every channel name, in registry order."""
    return tuple(PLATFORMS)
