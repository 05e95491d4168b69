"""Channel adapters: one module per platform behind the one contract in :mod:`.base`.

The registry is explicit (a third platform is one new module and one line here) and
lazy: importing :mod:`crosspost.channels.registry` loads no adapter, so ``crosspost --help`` and
commands that never touch a platform stay fast.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from crosspost.errors import ConfigError

if TYPE_CHECKING:
    from crosspost.channels.base import Adapter

#: channel name → "module:Class".
ADAPTERS: Mapping[str, str] = MappingProxyType(
    {
        "wechat": "crosspost.channels.wechat.adapter:WeChatAdapter",
        "zhihu": "crosspost.channels.zhihu.adapter:ZhihuAdapter",
    }
)


def adapter_class(name: str) -> type[Adapter]:
    """The adapter class for a channel name; ConfigError (exit 2) for an unknown one."""
    try:
        target = ADAPTERS[name]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise ConfigError(f"unknown channel {name!r}; known channels: {known}") from None
    module_name, _, class_name = target.partition(":")
    cls: type[Adapter] = getattr(importlib.import_module(module_name), class_name)
    return cls


def channel_names() -> tuple[str, ...]:
    """Every registered channel, in registry order."""
    return tuple(ADAPTERS)
