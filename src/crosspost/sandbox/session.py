"""``--sandbox``: run a command against the built-in emulators instead of the platforms.

A rehearsal keeps all its state in ``<state dir>/sandbox`` (see
:meth:`~crosspost.config.settings.Settings.rehearsal`): its own ledger, locks and token
cache, and the emulators' state, so that publishing the same issue twice to the sandbox
behaves like publishing it twice for real (the second run sends nothing) while the real
ledger never sees it. The accounts are named ``sandbox`` (``wechat:sandbox``,
``zhihu:sandbox``); ``crosspost status --sandbox`` lists their posts.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from crosspost.config.settings import Account, Secret, Settings
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.zhihu.model import DEFAULT_TOPICS

ACCOUNT_NAME = "sandbox"
#: The demo should not wait: publish jobs finish on the first poll, mass sends as soon as
#: they are asked about, images at once.
DEMO_OPTIONS: dict[str, dict[str, Any]] = {
    "wechat": {"publish_polls": 1, "mass_finish_seconds": 0},
    "zhihu": {"image_polls": 1},
}


@contextlib.contextmanager
def sandbox_settings(
    settings: Settings, options: Mapping[str, Mapping[str, Any]] | None = None
) -> Iterator[Settings]:
    """``settings`` (already :meth:`~Settings.rehearsal` ones: the state dir is the
    rehearsal's) with one account per emulator, while the emulators run; ``options``
    (``{"wechat": {"account_kind": "personal"}}``) over the demo's own."""
    merged = {
        platform: {**DEMO_OPTIONS.get(platform, {}), **(options or {}).get(platform, {})}
        for platform in {*DEMO_OPTIONS, *(options or {})}
    }
    with Sandbox(state_dir=settings.state_dir, options=merged) as box:
        accounts = tuple(
            Account(
                channel=platform,
                name=ACCOUNT_NAME,
                base_url=url,
                credentials=MappingProxyType(
                    {key: Secret(value) for key, value in emulator.credentials().items()}
                ),
                options=_rehearsal_options(settings, platform),
                # Its advice names commands with --sandbox, and its calls take no proxy:
                # a proxy cannot reach this loopback, and must not see it.
                rehearsal=True,
            )
            for platform, url, emulator in (
                ("wechat", box.wechat_url, box.wechat),
                ("zhihu", box.zhihu_url, box.zhihu),
            )
            if emulator is not None
        )
        # The emulators serve the images uploaded to them from loopback, and a rehearsal
        # may link them: the switch a company sets for its own image server, set here.
        yield dataclasses.replace(
            settings,
            accounts=accounts,
            default_accounts=MappingProxyType({}),
            private_image_hosts=True,
        )


def _rehearsal_options(settings: Settings, channel: str) -> Mapping[str, object]:
    """A rehearsal publishes as the configured accounts would, so Zhihu's needed topic
    comes from them (else the emulator's first topic): an issue that relies on the
    account's default topic rehearses without a "needs 'topics'" stop."""
    if channel != "zhihu":
        return MappingProxyType({})
    configured = [
        a.options["topics"]
        for a in settings.accounts
        if a.channel == channel and a.options.get("topics")
    ]
    return MappingProxyType({"topics": configured[0] if configured else DEFAULT_TOPICS[:1]})
