"""Limits the platform is the judge of: a warning in lint, a clear refusal when sent.

A title of 22 Chinese characters is 66 UTF-8 bytes: field reports say WeChat refuses
past 64 bytes (45003), WeChat's editor says it takes 64 characters. crosspost lets it
through with a warning, and when the platform refuses (the sandbox holds to 64 bytes),
the error says what was sent and what to do, and stays permanent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.check.lint import WARNING, check_file
from crosspost.errors import EXIT_CHANNEL_FAILED, UsageError
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
