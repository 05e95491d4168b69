"""Channel adapters: one package per platform behind the one contract in :mod:`.base`.

Which class serves a channel is part of its declaration in :mod:`crosspost.platforms`
(a third platform is one declaration there). The lookup is lazy: importing
:mod:`crosspost.channels.registry` loads no adapter, so ``crosspost --help`` and commands
that never touch a platform stay fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from crosspost.platforms.base import load
from crosspost.platforms.registry import PLATFORMS, platform, platform_names

if TYPE_CHECKING:
    from crosspost.channels.base import Adapter

#: channel name → "module:Class", as the platform declarations name them.
ADAPTERS: Mapping[str, str] = MappingProxyType({p.name: p.adapter for p in PLATFORMS.values()})


def adapter_class(name: str) -> type[Adapter]:
    """The adapter class for a channel name; ConfigError (exit 2) for an unknown one."""
    cls: type[Adapter] = load(platform(name).adapter)
    return cls


def channel_names() -> tuple[str, ...]:
    """Every registered channel, in registry order."""
    return platform_names()
