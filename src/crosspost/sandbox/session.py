"""``--sandbox``: run a command against the built-in emulators instead of the platforms.

The emulators keep their state in ``<state dir>/sandbox`` so that publishing the same
issue twice to the sandbox behaves like publishing it twice for real (the second run
sends nothing). The accounts are named ``sandbox`` (``wechat:sandbox``,
``zhihu:sandbox``), so the ledger and ``crosspost status`` keep them apart from real
posts.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from crosspost.config.settings import Account, Secret, Settings
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.zhihu.model import DEFAULT_TOPICS

ACCOUNT_NAME = "sandbox"
#: The demo should not wait: publish jobs finish on the first poll, images at once.
DEMO_OPTIONS = {"wechat": {"publish_polls": 1}, "zhihu": {"image_polls": 1}}


@contextlib.contextmanager
def sandbox_settings(settings: Settings) -> Iterator[Settings]:
    """``settings`` with one account per emulator, while the emulators run."""
    with Sandbox(state_dir=settings.state_dir / "sandbox", options=DEMO_OPTIONS) as box:
        accounts = tuple(
            Account(
                channel=platform,
                name=ACCOUNT_NAME,
                base_url=url,
                credentials=MappingProxyType(
                    {key: Secret(value) for key, value in emulator.credentials().items()}
                ),
                options=_rehearsal_options(settings, platform),
            )
            for platform, url, emulator in (
                ("wechat", box.wechat_url, box.wechat),
                ("zhihu", box.zhihu_url, box.zhihu),
            )
            if emulator is not None
        )
        yield dataclasses.replace(
            settings, accounts=accounts, default_accounts=MappingProxyType({})
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
