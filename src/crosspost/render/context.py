"""The one way from resolved settings to a :class:`~crosspost.render.RenderContext`.

``check``, ``render``, ``preview`` and ``publish`` must render an issue the same way, or
what the editor checked is not what is sent: the theme and template folders come from
the same settings path (flag > environment > config file > default) for all of them.
"""

from __future__ import annotations

from types import MappingProxyType

from crosspost.config.settings import Account, Settings
from crosspost.render.rendered import PreviousIssue, RenderContext


def render_context(
    settings: Settings,
    theme: str | None = None,
    *,
    previous: tuple[PreviousIssue, ...] = (),
    account: Account | None = None,
) -> RenderContext:
    """The context for rendering under ``settings``; ``theme`` (a ``--theme`` flag) wins
    over the configured one when given. The limits a renderer keeps to are the config's
    for each channel, and ``account``'s own for its channel when given (publish renders
    again for an account with limits of its own)."""
    platforms = dict(settings.platforms())
    if account is not None:
        platforms[account.channel] = settings.platform_for(account)
    return RenderContext(
        theme=theme or settings.theme,
        template_dirs=tuple(settings.template_dirs),
        previous=previous,
        platforms=MappingProxyType(platforms),
    )
