"""Limits the platform is the judge of: a warning in lint, a clear refusal when sent.

A title of 22 Chinese characters is 66 UTF-8 bytes: field reports say WeChat refuses
past 64 bytes (45003), WeChat's editor says it takes 64 characters. crosspost lets it
through with a warning, and when the platform refuses (the sandbox holds to 64 bytes),
the error says what was sent and what to do, and stays permanent.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from PIL import Image

from crosspost.check.lint import WARNING, check_file
from crosspost.errors import EXIT_CHANNEL_FAILED, UsageError
from crosspost.platforms.base import MB
from crosspost.publish.jobs import PublishOptions
from crosspost.render.context import render_context
from publisher.world import World

TITLE = "标题" * 11  # 22 characters, 66 UTF-8 bytes


def _issue(world: World) -> Path:
    text = world.issue.read_text("utf-8")
    text = text.replace("wechat: {title: AI系统前沿动态48", f"wechat: {{title: {TITLE}", 1)
    path = world.issue.with_name("long-title.md")
    path.write_text(text, "utf-8")
    return path


def test_a_disputed_title_goes_out_and_the_platforms_refusal_says_what_was_sent(
    world: World,
) -> None:
    issue = _issue(world)
    warnings = [p for p in check_file(issue, ["wechat"]).problems if p.code == "title-too-long"]
    assert [p.severity for p in warnings] == [WARNING]
    report, _ = world.publish([issue], targets=("wechat",))
    [result] = report.results
    assert result.state == "failed" and result.exit_code == EXIT_CHANNEL_FAILED
    assert "45003" in result.message
    assert "the title sent was 22 characters (66 UTF-8 bytes)" in result.message
    assert "'wechat: {title: …}'" in result.message


def test_a_limit_in_the_config_refuses_it_before_anything_is_sent(world: World) -> None:
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[channels.wechat.limits]\ntitle_bytes = 64\n")
    issue = _issue(world)
    with pytest.raises(UsageError, match="title is 66 UTF-8 bytes, wechat allows 64"):
        world.publish([issue], targets=("wechat",))
    assert world.drafts_on("wechat") == []


def test_a_zhihu_length_refusal_says_the_measured_title_and_is_permanent(world: World) -> None:
    # The editor lifted the limit in the config; Zhihu (the sandbox) still holds to 100.
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[channels.zhihu.limits]\ntitle_chars = 200\n")
    text = world.issue.read_text("utf-8").replace(
        "title: AI系统前沿动态 第48期", "title: " + "长" * 120, 1
    )
    issue = world.issue.with_name("long-zhihu-title.md")
    issue.write_text(text, "utf-8")
    report, _ = world.publish([issue], targets=("zhihu",), mode="publish")
    [result] = report.results
    assert result.exit_code == EXIT_CHANNEL_FAILED, result
    assert "the title sent was 120 characters (Zhihu takes 100)" in result.message
    assert "'zhihu: {title: …}'" in result.message


def test_an_accounts_own_caption_limit_is_what_its_post_is_rendered_with(world: World) -> None:
    """``caption_chars`` in one account's ``limits`` table: publish renders that account's
    post by it, where check (the channel's limits) keeps the declared 140."""
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[channels.zhihu.accounts.main.limits]\ncaption_chars = 2\n")
    options = PublishOptions(targets=("zhihu",))
    [job], _ = world.with_publisher(lambda p: p.plan([world.issue], options))
    assert 'data-caption="资料"' in job.rendered.body
    checked = check_file(world.issue, ["zhihu"], render_context(world.settings()))
    assert 'data-caption="资料图"' in checked.rendered["zhihu"].body


def test_image_bytes_0_uploads_a_big_image_as_it_is(world: World) -> None:
    """``image_bytes = 0`` turns WeChat's in-article limit off: check says nothing of a
    1.5 MB picture, publish does not shrink it, and it goes up as permanent material
    (uploadimg takes under 1 MB only)."""
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[channels.wechat.limits]\nimage_bytes = 0\n")
    picture = world.issue.parent / "images" / "hardware.png"
    Image.frombytes("RGB", (64, 64), os.urandom(64 * 64 * 3)).save(picture, "JPEG")
    picture.write_bytes(picture.read_bytes().ljust(3 * MB // 2, b"\0"))
    settings = world.settings()
    checked = check_file(world.issue, ["wechat"], render_context(settings), settings.platforms())
    assert "image-shrunk" not in {p.code for p in checked.problems}
    report, _ = world.publish([world.issue], targets=("wechat",))
    [result] = report.results
    assert result.state == "drafted", result
    uploaded = {m["sha256"] for m in world.box.wechat.snapshot()["materials"]}
    assert hashlib.sha256(picture.read_bytes()).hexdigest() in uploaded
