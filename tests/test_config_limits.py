"""Limits in the config: ``[channels.C.limits]`` for a channel, an account's own ``limits``
table over it; checked by name and type, naming the line; held to as errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from crosspost.check.lint import ERROR, check_file
from crosspost.cli import main
from crosspost.config.settings import Settings, load_settings
from crosspost.errors import ConfigError

WriteIssue = Callable[..., Path]

CONFIG = """
[channels.wechat.limits]
title_bytes = 80
content_chars = 0

[channels.wechat.accounts.main]
app_id = "wx0123456789abcdef"

[channels.wechat.accounts.strict]
app_id = "wx0123456789abcdee"

[channels.wechat.accounts.strict.limits]
title_chars = 20
"""


def settings_of(tmp_path: Path, text: str) -> Settings:
    config = tmp_path / "crosspost.toml"
    config.write_text(text, "utf-8")
    return load_settings({"config": str(config)}, environ={}, cwd=tmp_path, home=tmp_path)


def test_channel_limits_and_an_accounts_own_limits(tmp_path: Path) -> None:
    settings = settings_of(tmp_path, CONFIG)
    wechat = settings.platforms()["wechat"].limits
    assert (wechat.title_bytes, wechat.content_chars, wechat.title_chars) == (80, 0, 64)
    assert wechat.confirmed("title_bytes")  # the editor's own word
    strict = settings.platform_for(settings.account("wechat:strict")).limits
    assert (strict.title_chars, strict.title_bytes) == (20, 80)
    main = settings.platform_for(settings.account("wechat:main")).limits
    assert main.title_chars == 64
    assert settings.platforms()["zhihu"].limits.title_chars == 100


def test_check_judges_by_the_configured_limits(tmp_path: Path, write_issue: WriteIssue) -> None:
    settings = settings_of(tmp_path, CONFIG)
    path = write_issue(front="title: " + "标题" * 11 + "\ncover: cover.jpg\n")
    default = check_file(path, ["wechat"])
    assert [p.severity for p in default.problems if p.code == "title-too-long"] == ["warning"]
    configured = check_file(path, ["wechat"], platforms=settings.platforms())
    assert [p.code for p in configured.problems if p.code == "title-too-long"] == []
    lowered = settings_of(tmp_path, "[channels.wechat.limits]\ntitle_bytes = 60\n")
    errors = check_file(path, ["wechat"], platforms=lowered.platforms()).errors
    assert [(p.code, p.severity) for p in errors] == [("title-too-long", ERROR)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[channels.wechat.limits]\ntitel_chars = 30\n",
            ":2: wechat has no limit 'titel_chars'; known limits: ",
        ),
        (
            '[channels.zhihu.limits]\ntitle_chars = "long"\n',
            ":2: zhihu limit 'title_chars' must be a whole number of at least 0, got 'long'",
        ),
        ("[channels.wechat]\nlimits = 3\n", ":2: 'limits' must be a table"),
    ],
    ids=["unknown name", "wrong type", "not a table"],
)
def test_a_bad_limit_stops_the_run_naming_its_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_of(tmp_path, text)
    assert expected in str(caught.value)
    assert str(caught.value).startswith(str(tmp_path / "crosspost.toml"))


def test_crosspost_check_holds_to_the_config_file(
    tmp_path: Path, write_issue: WriteIssue, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_issue(front="title: " + "标题" * 11 + "\ncover: cover.jpg\n")
    config = tmp_path / "crosspost.toml"
    state = ["--state-dir", str(tmp_path / "state")]
    config.write_text("", "utf-8")
    assert main(["check", str(path), "--config", str(config), *state]) == 0
    config.write_text("[channels.wechat.limits]\ntitle_bytes = 60\n", "utf-8")
    assert main(["check", str(path), "--config", str(config), *state]) == 2
    out = capsys.readouterr().out
    assert f"{path}:2: [wechat] title is 66 UTF-8 bytes, wechat allows 60" in out


def test_uploads_at_once_follow_the_platform_bound_or_the_config(tmp_path: Path) -> None:
    from crosspost.channels.registry import adapter_class

    settings = settings_of(
        tmp_path,
        """
[channels.zhihu.limits]
upload_concurrency = 4

[channels.zhihu.accounts.main]
cookie_env = "ZHIHU_Z_C0"

[channels.wechat.accounts.main]
app_id = "wx0123456789abcdef"

[channels.wechat.accounts.slow]
app_id = "wx0123456789abcdee"

[channels.wechat.accounts.slow.limits]
upload_concurrency = 2
""",
    )
    assert adapter_class("zhihu").uploads_at_once(settings.account("zhihu:main")) == 4
    wechat = adapter_class("wechat")
    assert wechat.uploads_at_once(settings.account("wechat:main")) == 64  # the declared bound
    assert wechat.uploads_at_once(settings.account("wechat:slow")) == 2
    with pytest.raises(ConfigError, match="upload_concurrency"):
        settings_of(tmp_path, '[channels.zhihu.limits]\nupload_concurrency = "many"\n')
