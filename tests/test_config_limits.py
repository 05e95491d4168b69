"""Limits in the config: ``[channels.C.limits]`` for a channel, an account's own ``limits``
table over it; checked by name and type, naming the line; held to as errors."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from PIL import Image

from crosspost.check.lint import ERROR, INFO, WARNING, check_file
from crosspost.cli import main
from crosspost.config.settings import Settings, load_settings
from crosspost.errors import ConfigError
from crosspost.images.pipeline import SourceImage, prepare
from crosspost.platforms.base import MB
from crosspost.platforms.registry import PLATFORMS
from crosspost.render.context import render_context

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
    # content_chars = 0: off, as if WeChat had no such limit.
    assert (wechat.title_bytes, wechat.content_chars, wechat.title_chars) == (80, None, 64)
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
            ":2: wechat has no limit 'titel_chars' (did you mean 'title_chars'?); known limits: ",
        ),
        (
            "[channels.zhihu.limits]\nmaximum = 30\n",
            ":2: zhihu has no limit 'maximum'; known limits: ",
        ),
        (
            '[channels.zhihu.limits]\ntitle_chars = "long"\n',
            ":2: zhihu limit 'title_chars' must be a whole number of at least 0, got 'long'",
        ),
        ("[channels.wechat]\nlimits = 3\n", ":2: 'limits' must be a table"),
    ],
    ids=["unknown name", "nothing close", "wrong type", "not a table"],
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
    assert f"{path}:2: [wechat] error: title is 66 UTF-8 bytes, wechat allows 60" in out


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


def _padded_jpeg(path: Path, size: int) -> Path:
    """A real JPEG padded after its end marker to exactly ``size`` bytes."""
    Image.frombytes("RGB", (64, 64), os.urandom(64 * 64 * 3)).save(path, "JPEG")
    path.write_bytes(path.read_bytes().ljust(size, b"\0"))
    return path


def test_0_turns_image_bytes_and_cover_ratio_off(tmp_path: Path, write_issue: WriteIssue) -> None:
    """README: "`0` turns a limit off". ``image_bytes = 0`` is no cap (an image past
    WeChat's 1 MB is neither warned about nor shrunk), ``cover_ratio = 0`` no crop note."""
    body = "正文,足够长的一段话,用来通过检查。\n\n![p](photo.jpg)\n"
    path = write_issue(front="title: 标题\ncover: cover.jpg\n", body=body)
    photo = _padded_jpeg(tmp_path / "photo.jpg", MB + 1)
    Image.new("RGB", (900, 900), (40, 90, 160)).save(tmp_path / "cover.jpg", "JPEG")
    default = check_file(path, ["wechat"])
    said = {(p.code, p.severity) for p in default.problems}
    assert {("image-shrunk", WARNING), ("cover-cropped", INFO)} <= said

    settings = settings_of(tmp_path, "[channels.wechat.limits]\nimage_bytes = 0\ncover_ratio = 0\n")
    off = check_file(path, ["wechat"], render_context(settings), settings.platforms())
    assert {p.code for p in off.problems} == {p.code for p in default.problems} - {
        "image-shrunk",
        "cover-cropped",
    }
    policy = settings.platforms()["wechat"].image_policy("inline")
    prepared = prepare(SourceImage("photo.jpg", photo.read_bytes(), path), policy)
    assert prepared.data == photo.read_bytes() and prepared.size == MB + 1


LONG_CAPTION = "一张图片的说明文字" * 20  # 180 characters, past Zhihu's 140


def _caption(path: Path, settings: Settings | None = None) -> str:
    """The data-caption of the issue's one image, as check renders it for Zhihu (by the
    shipped declaration without ``settings``)."""
    context = render_context(settings) if settings else None
    platforms = settings.platforms() if settings else PLATFORMS
    checked = check_file(path, ["zhihu"], context, platforms)
    image = BeautifulSoup(checked.rendered["zhihu"].body, "html.parser").img
    assert image is not None
    return str(image["data-caption"])


def test_zhihu_cuts_captions_where_the_config_says(tmp_path: Path, write_issue: WriteIssue) -> None:
    path = write_issue(
        body=f"这是一段足够长的正文,用来通过知乎的最少字数检查。\n\n![{LONG_CAPTION}](cover.jpg)\n"
    )
    assert _caption(path) == LONG_CAPTION[:140]  # the declared limit
    four = settings_of(tmp_path, "[channels.zhihu.limits]\ncaption_chars = 4\n")
    assert _caption(path, four) == "一张图片"
    off = settings_of(tmp_path, "[channels.zhihu.limits]\ncaption_chars = 0\n")
    assert _caption(path, off) == LONG_CAPTION
