"""``default_account``: where one account is meant and ``-c wechat`` names a channel of
several, the config's default account is the one (config/crosspost.example.toml says
so). ``urls --set`` records one post's URL: ``-c wechat`` is the default account's post,
and ``-c zhihu`` the one ``[channels.zhihu]`` names alike.

Two WeChat accounts, each on a live sandbox of its own, both publish the issue, then
``crosspost.cli.main`` in this process.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK
from crosspost.sandbox.box import Sandbox

from .world import ISSUE_ID, World

PERMANENT = "https://mp.weixin.qq.com/s/Xq3_permanent-link"


@pytest.fixture
def other(world: World) -> Iterator[Sandbox]:
    """A second sandbox: the ``backup`` accounts' own Official Account and Zhihu login.
    Two names for one account are refused (``publish.same_issue``), so each name here is
    an account of its own."""
    with Sandbox(options={"wechat": {"publish_seconds": 300}}) as box:
        wechat, zhihu = box.wechat.credentials(), box.zhihu.credentials()
        world.env.update(
            WECHAT_BACKUP_APP_ID=wechat["app_id"],
            WECHAT_BACKUP_APP_SECRET=wechat["app_secret"],
            ZHIHU_BACKUP_Z_C0=zhihu["z_c0"],
            ZHIHU_BACKUP_XSRF=zhihu["xsrf"],
        )
        yield box


def two_wechat_accounts(world: World, other: Sandbox, channel_table: str) -> None:
    """A second WeChat account, ``backup``, on the ``other`` sandbox; ``channel_table`` is
    what goes under ``[channels.wechat]``."""
    with world.config.open("a", encoding="utf-8") as config:
        config.write(
            f"""
[channels.wechat]
{channel_table}
[channels.wechat.accounts.backup]
app_id_env = "WECHAT_BACKUP_APP_ID"
app_secret_env = "WECHAT_BACKUP_APP_SECRET"
base_url = "{other.wechat_url}"
"""
        )


def two_zhihu_accounts(world: World, other: Sandbox, channel_table: str) -> None:
    """A second Zhihu account, ``backup``, as :func:`two_wechat_accounts`."""
    with world.config.open("a", encoding="utf-8") as config:
        config.write(
            f"""
[channels.zhihu]
{channel_table}
[channels.zhihu.accounts.backup]
cookie_env = "ZHIHU_BACKUP_Z_C0"
xsrf_env = "ZHIHU_BACKUP_XSRF"
base_url = "{other.zhihu_url}"
topics = ["人工智能"]
"""
        )


def published_on_both(
    world: World, capsys: pytest.CaptureFixture[str], channel: str = "wechat"
) -> None:
    """The issue published on each account in turn."""
    for account in (f"{channel}:main", f"{channel}:backup"):
        argv = ["publish", str(world.issue), "-c", account, "--mode", "publish"]
        assert main(argv) == EXIT_OK
        assert account in capsys.readouterr().out


def urls_of(world: World, channel: str = "wechat") -> dict[str, str | None]:
    with world.ledger() as ledger:
        return {p.account: p.url for p in ledger.posts(ISSUE_ID, channel=channel)}


def test_urls_set_with_a_channel_records_the_default_accounts_post(
    world: World,
    other: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    two_wechat_accounts(world, other, 'default_account = "main"')
    world.use_env(monkeypatch)
    published_on_both(world, capsys)
    backup = urls_of(world)["backup"]

    assert main(["urls", "--set", ISSUE_ID, "-c", "wechat", PERMANENT]) == EXIT_OK
    assert capsys.readouterr().out == f"wechat:main  {ISSUE_ID}: URL recorded {PERMANENT}\n"
    assert urls_of(world) == {"main": PERMANENT, "backup": backup}


def test_without_a_default_urls_set_asks_for_the_account_and_says_how(
    world: World,
    other: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    two_wechat_accounts(world, other, "")
    world.use_env(monkeypatch)
    published_on_both(world, capsys)
    before = urls_of(world)

    assert main(["urls", "--set", ISSUE_ID, "-c", "wechat", PERMANENT]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        f"crosspost: error: urls --set: issue '{ISSUE_ID}' is on wechat:main, wechat:backup; "
        "name one with -c (e.g. -c wechat:main), or set default_account under "
        "[channels.wechat]\n"
    )
    assert urls_of(world) == before


def test_default_account_under_channels_zhihu_is_the_post_urls_set_records(
    world: World,
    other: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Set under ``[channels.zhihu]`` it does for Zhihu what it does for WeChat (only the
    live preview's image upload, a paste into the 公众号 editor, has no Zhihu side)."""
    two_zhihu_accounts(world, other, 'default_account = "main"')
    world.use_env(monkeypatch)
    published_on_both(world, capsys, "zhihu")
    backup = urls_of(world, "zhihu")["backup"]
    moved = "https://zhuanlan.zhihu.com/p/1234567890"

    assert main(["urls", "--set", ISSUE_ID, "-c", "zhihu", moved]) == EXIT_OK
    assert capsys.readouterr().out == f"zhihu:main  {ISSUE_ID}: URL recorded {moved}\n"
    assert urls_of(world, "zhihu") == {"main": moved, "backup": backup}
