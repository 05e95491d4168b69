"""Bad input or configuration: one clear line, exit 2, and nothing sent anywhere.

Every case runs ``crosspost.cli.main`` in this process against a live sandbox (so a
request that slipped out would show in its log), after breaking one thing: the command
line, the config file, the environment, the state dir, the ledger or the issue. The
error must be one line naming what is wrong (and where: ``file:line`` when it is in a
file) and the sandbox must have seen no request at all.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT
from crosspost.ledger.store import Ledger, PostKey

from .world import ISSUE_ID, World

Setup = Callable[[World, pytest.MonkeyPatch], list[str]]


@dataclass(frozen=True)
class Case:
    """One way to get it wrong, and a pattern the one-line error must match."""

    setup: Setup
    expect: str


def publish(world: World, *extra: str) -> list[str]:
    return ["publish", str(world.issue), "--mode", "publish", *extra]


def edit_front(world: World, old: str, new: str) -> None:
    text = world.issue.read_text(encoding="utf-8")
    assert old in text
    world.issue.write_text(text.replace(old, new, 1), encoding="utf-8")


def edit_config(world: World, old: str, new: str) -> None:
    text = world.config.read_text(encoding="utf-8")
    assert old in text
    world.config.write_text(text.replace(old, new, 1), encoding="utf-8")


def _unknown_account(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return publish(w, "-c", "wechat:nosuch")


def _unknown_channel_flag(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return publish(w, "-c", "weibo")


def _unknown_channel_in_issue(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_front(w, "channels: [wechat, zhihu]", "channels: [wechat, weibo]")
    return publish(w)


def _missing_env_var(w: World, m: pytest.MonkeyPatch) -> list[str]:
    m.delenv("WECHAT_APP_SECRET")
    return publish(w)


def _empty_env_var(w: World, m: pytest.MonkeyPatch) -> list[str]:
    m.setenv("ZHIHU_Z_C0", "")
    return publish(w)


def _state_dir_is_a_file(w: World, m: pytest.MonkeyPatch) -> list[str]:
    blocker = w.root / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    m.setenv("CROSSPOST_STATE_DIR", str(blocker))
    return publish(w)


def _state_dir_unwritable(w: World, m: pytest.MonkeyPatch) -> list[str]:
    blocker = w.root / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    m.setenv("CROSSPOST_STATE_DIR", str(blocker / "state"))
    return publish(w)


def _corrupt_ledger(w: World, m: pytest.MonkeyPatch) -> list[str]:
    w.state_dir.mkdir(parents=True)
    (w.state_dir / "ledger.sqlite3").write_bytes(b"this is not a database, " * 200)
    return publish(w)


def _ledger_is_a_folder(w: World, m: pytest.MonkeyPatch) -> list[str]:
    (w.state_dir / "ledger.sqlite3").mkdir(parents=True)
    return publish(w)


def _two_files_one_id(w: World, m: pytest.MonkeyPatch) -> list[str]:
    twin = w.issue.with_name("twin.md")
    shutil.copy(w.issue, twin)
    return ["publish", str(w.issue), str(twin), "--mode", "publish"]


def _id_published_from_another_file(w: World, m: pytest.MonkeyPatch) -> list[str]:
    other = w.issue.with_name("older.md")
    shutil.copy(w.issue, other)
    with Ledger.open(w.state_dir / "ledger.sqlite3") as ledger:
        ledger.ensure(PostKey(ISSUE_ID, "wechat", "main"), issue_path=other)
    return publish(w)


def _broken_yaml(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_front(w, "author: OneFlow社区", "author: [OneFlow社区")
    return publish(w)


def _missing_image(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_front(w, "](images/hardware.png)", "](images/nowhere.png)")
    return publish(w)


def _missing_cover_file(w: World, m: pytest.MonkeyPatch) -> list[str]:
    (w.issue.parent / "images" / "cover.jpg").unlink()
    return publish(w)


def _no_cover_for_wechat(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_front(w, "cover: images/cover.jpg\n", "")
    return publish(w, "-c", "wechat")


def _title_too_long_for_wechat(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_front(w, "title: AI系统前沿动态48", "title: " + "AI系统前沿动态第四十八期" * 6)
    return publish(w)


def _bogus_mode(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return [*publish(w)[:2], "--mode", "sometimes"]


def _bogus_mode_in_config(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_config(w, 'mode = "publish"', 'mode = "sometimes"')
    return ["publish", str(w.issue)]


def _no_accounts(w: World, m: pytest.MonkeyPatch) -> list[str]:
    w.config.write_text('mode = "publish"\n', encoding="utf-8")
    return publish(w)


def _inline_secret(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_config(w, 'app_secret_env = "WECHAT_APP_SECRET"', 'app_secret = "0123456789abcdef"')
    return publish(w)


def _malformed_toml(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_config(w, "[channels.zhihu.accounts.main]", "[channels.zhihu.accounts.main")
    return publish(w)


def _bad_base_url(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_config(w, f'base_url = "{w.box.zhihu_url}"', 'base_url = "127.0.0.1:8766"')
    return publish(w)


def _config_file_missing(w: World, m: pytest.MonkeyPatch) -> list[str]:
    m.setenv("CROSSPOST_CONFIG", str(w.root / "nowhere.toml"))
    return publish(w)


def _not_utf8(w: World, m: pytest.MonkeyPatch) -> list[str]:
    w.issue.write_bytes(w.issue.read_text(encoding="utf-8").encode("gb18030"))
    return publish(w)


def _directory_as_file(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return ["publish", str(w.issue.parent), "--mode", "publish"]


def _file_missing(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return ["publish", str(w.root / "no-such-issue.md"), "--mode", "publish"]


def _unclosed_only_block(w: World, m: pytest.MonkeyPatch) -> list[str]:
    # An unknown front-matter field is only a warning now; a block left open is not.
    text = w.issue.read_text(encoding="utf-8")
    w.issue.write_text(text + "\n::: only wechat\n只在微信\n", encoding="utf-8")
    return publish(w)


def _naive_publish_at(w: World, m: pytest.MonkeyPatch) -> list[str]:
    edit_front(w, "2026-11-23T09:00:00+08:00", "2026-11-23T09:00:00")
    return publish(w)


def _reconcile_unknown_issue(w: World, m: pytest.MonkeyPatch) -> list[str]:
    with Ledger.open(w.state_dir / "ledger.sqlite3"):
        pass
    return ["reconcile", "no-such-issue"]


def _reconcile_before_any_publish(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return ["reconcile", ISSUE_ID]


def _status_unknown_issue(w: World, m: pytest.MonkeyPatch) -> list[str]:
    with Ledger.open(w.state_dir / "ledger.sqlite3"):
        pass
    return ["status", "no-such-issue"]


def _urls_of_an_unknown_issue(w: World, m: pytest.MonkeyPatch) -> list[str]:
    with Ledger.open(w.state_dir / "ledger.sqlite3"):
        pass
    return ["urls", "no-such-issue"]


def _urls_without_ledger(w: World, m: pytest.MonkeyPatch) -> list[str]:
    return ["urls", ISSUE_ID]


CASES: dict[str, Case] = {
    "unknown account": Case(_unknown_account, r"no wechat account called 'nosuch'"),
    "-c weibo": Case(_unknown_channel_flag, r"unknown channel 'weibo'"),
    "unknown channel in the issue": Case(_unknown_channel_in_issue, r"issue\.md:\d+: .*weibo"),
    "missing env var": Case(_missing_env_var, r"WECHAT_APP_SECRET.*nothing was sent"),
    "empty env var": Case(_empty_env_var, r"ZHIHU_Z_C0"),
    "state dir is a file": Case(_state_dir_is_a_file, r"not-a-folder: cannot be used as the state"),
    "state dir cannot be made": Case(
        _state_dir_unwritable, r"not-a-folder/state: cannot be used as"
    ),
    "corrupt ledger": Case(_corrupt_ledger, r"ledger\.sqlite3: the ledger file is damaged"),
    "ledger is a folder": Case(_ledger_is_a_folder, r"ledger\.sqlite3: is a folder"),
    "one id, two files": Case(_two_files_one_id, r"twin\.md:\d+: issue id 'ai-systems-48'"),
    "id published from another file": Case(
        _id_published_from_another_file, r"issue\.md:\d+: .*already published from .*older\.md"
    ),
    "broken YAML": Case(_broken_yaml, r"issue\.md:\d+: "),
    "missing image": Case(_missing_image, r"issue\.md:\d+: .*nowhere\.png"),
    "missing cover file": Case(_missing_cover_file, r"issue\.md:\d+: .*cover\.jpg"),
    "no cover for WeChat": Case(_no_cover_for_wechat, r"issue\.md:\d+: \[wechat\] .*needs a cover"),
    "title too long for WeChat": Case(_title_too_long_for_wechat, r"issue\.md:\d+: .*title"),
    "--mode bogus": Case(_bogus_mode, r"invalid choice: 'sometimes'"),
    "mode bogus in config": Case(_bogus_mode_in_config, r"crosspost\.toml:1: .*sometimes"),
    "no accounts configured": Case(_no_accounts, r"no accounts are configured"),
    "inline secret in config": Case(_inline_secret, r"crosspost\.toml:\d+: 'app_secret' puts"),
    "malformed TOML": Case(_malformed_toml, r"crosspost\.toml:\d+: not valid TOML"),
    "bad base_url": Case(_bad_base_url, r"crosspost\.toml:\d+: base_url must be"),
    "config file missing": Case(_config_file_missing, r"nowhere\.toml does not exist"),
    "non-UTF-8 issue": Case(_not_utf8, r"issue\.md:\d+: is not UTF-8"),
    "directory as file": Case(_directory_as_file, r"issue: is a folder, not an issue file"),
    "issue file missing": Case(_file_missing, r"no-such-issue\.md"),
    "unclosed only block": Case(_unclosed_only_block, r"issue\.md:\d+: '::: only' block is never"),
    "naive publish_at": Case(_naive_publish_at, r"issue\.md:\d+: .*publish_at"),
    "reconcile of an unknown issue": Case(_reconcile_unknown_issue, r"no posts of issue"),
    "reconcile before any publish": Case(_reconcile_before_any_publish, r"no ledger at"),
    "status of an unknown issue": Case(_status_unknown_issue, r"no posts of issue 'no-such-issue'"),
    "urls of an unknown issue": Case(_urls_of_an_unknown_issue, r"no posts of issue"),
    "urls before any publish": Case(_urls_without_ledger, r"no ledger at"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_exit_2_and_nothing_is_sent(
    name: str,
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = CASES[name]
    world.use_env(monkeypatch)
    argv = case.setup(world, monkeypatch)
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse refuses a bad choice itself
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == EXIT_BAD_INPUT, err
    assert lines and re.search(case.expect, lines[-1]), err
    assert len(lines) == 1 or lines[0].startswith("usage:"), err
    assert "Traceback" not in err and out == ""
    assert world.box.requests == []
    if "before any publish" in name:
        assert not (world.state_dir / "ledger.sqlite3").exists()  # not even an empty ledger


def test_there_are_at_least_twenty_cases() -> None:
    assert len(CASES) >= 20


def test_bad_input_leaves_the_ledger_without_posts(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused run records nothing either: the next good run starts clean."""
    world.use_env(monkeypatch)
    _missing_image(world, monkeypatch)
    assert main(publish(world)) == EXIT_BAD_INPUT
    ledger_file = Path(world.state_dir) / "ledger.sqlite3"
    if ledger_file.exists():
        assert world.posts() == {}
