"""Links between channels written in the body, and 往期回顾 seen before it goes out.

``{zhihu.url}`` in the body works as in ``source_url``: the publisher fills it in with the
Zhihu post's URL (or refuses, naming the line). ``render`` and ``preview`` read the
ledger, never write it, to show the 往期回顾 the published article will carry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.check.lint import check_file
from crosspost.cli import main
from crosspost.errors import EXIT_OK
from publisher.world import World

from .conftest import WriteIssue
from .test_references import wechat_articles

LINK_BACK = "::: only wechat\n本期也发在[知乎专栏]({zhihu.url})。\n:::\n"


def with_body(path: Path, extra: str) -> Path:
    path.write_text(path.read_text("utf-8") + "\n" + extra, "utf-8")
    return path


def test_a_reference_in_the_body_becomes_the_zhihu_url_on_wechat(
    world: World, write_issue: WriteIssue
) -> None:
    issue = with_body(write_issue(8), LINK_BACK)
    report, _ = world.publish([issue], mode="publish")
    assert report.exit_code == EXIT_OK, report.as_dict()
    with world.ledger() as ledger:
        zhihu_url = next(p.url for p in ledger.posts("weekly-8") if p.channel == "zhihu")
    assert zhihu_url
    [article] = wechat_articles(world)
    assert zhihu_url in article["content"]  # WeChat shows outside links as their URL
    assert "{zhihu.url}" not in article["content"]


def test_a_body_reference_zhihu_itself_would_show_is_an_error_naming_its_line(
    world: World, write_issue: WriteIssue
) -> None:
    issue = with_body(write_issue(9), "也发在[知乎]({zhihu.url})。\n")
    line = issue.read_text("utf-8").split("\n").index("也发在[知乎]({zhihu.url})。") + 1
    checked = check_file(issue)
    [problem] = [p for p in checked.errors if p.code == "self-reference"]
    assert (problem.line, problem.channel) == (line, "zhihu")
    assert "put the line inside '::: only …'" in problem.message
    notes = [p for p in checked.problems if p.code == "reference"]
    assert [(p.line, p.channel) for p in notes] == [(line, "wechat")]


def test_braces_in_prose_or_code_are_the_writers_and_a_near_miss_is_named(
    write_issue: WriteIssue,
) -> None:
    # '接口返回 {data.url}' refused the issue: "names unknown channel 'data'".
    issue = with_body(
        write_issue(10),
        "接口返回形如 {data.url} 的 JSON，[{item.url}](https://e.com)，`{wechat.url}`。\n\n"
        "::: only wechat\n另见 {zhuhu.url}\n:::\n",
    )
    line = issue.read_text("utf-8").split("\n").index("另见 {zhuhu.url}") + 1
    checked = check_file(issue)
    assert [(p.line, p.code, p.channel) for p in checked.errors] == [
        (line, "unknown-reference", "wechat")
    ]
    assert "{zhuhu.url} names unknown channel 'zhuhu'" in checked.errors[0].message
    assert not [p for p in checked.problems if p.code == "reference"]


def test_render_shows_the_previous_issues_from_the_ledger_and_leaves_it_alone(
    world: World,
    write_issue: WriteIssue,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    report, _ = world.publish([write_issue(1)], mode="publish")
    assert report.exit_code == EXIT_OK, report.as_dict()
    world.clock.advance(7 * 86400)  # type: ignore[attr-defined]
    with world.ledger() as ledger:
        url = next(p.url for p in ledger.posts("weekly-1") if p.channel == "wechat")
    ledger_file = world.state_dir / "ledger.sqlite3"
    before = ledger_file.read_bytes()
    world.use_env(monkeypatch)

    out = world.root / "out"
    issue = write_issue(2, front="previous: 3\n")
    assert main(["render", str(issue), "-o", str(out), "-c", "wechat"]) == EXIT_OK
    html = (out / "wechat.html").read_text("utf-8")
    assert "往期回顾" in html and f'href="{url}"' in html and "第1期" in html
    assert main(["preview", str(issue), "-o", str(out)]) == EXIT_OK
    assert "往期回顾" in (out / "preview.html").read_text("utf-8")
    assert ledger_file.read_bytes() == before  # read only
    capsys.readouterr()
