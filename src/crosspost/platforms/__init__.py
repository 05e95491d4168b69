"""One declaration per platform: its limits, its options, and what renders and sends for it.

:mod:`.wechat` and :mod:`.zhihu` each declare one :class:`~.base.Platform`;
:mod:`.registry` lists them. The issue loader, the config loader, lint, the renderer and
adapter registries and the adapters all read these declarations, so a platform's numbers
are written down once.
"""
