"""多图文: a lead issue takes up to seven companions into one WeChat draft and one send.

Each companion is an issue file of its own in the lead's folder, named by id in the lead's
``wechat: {with: […]}``; it keeps its own title, cover and digest, is linted with its own
file:line, and is recorded in the ledger as gone out with the lead, so it is never sent on
its own afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, IssueError, UsageError

from .light import ISSUE, ISSUE_ID, write_light_issue
from .world import World, calls_to

SENDALL = "/cgi-bin/message/mass/sendall"


def companion(folder: Path, issue_id: str, title: str, *, extra: str = "") -> Path:
    shade = 70 * int(issue_id[-1]) % 250  # each its own picture, so its own upload
    Image.new("RGB", (470, 200), (90, shade, 160)).save(folder / f"{issue_id}.jpg", "JPEG")
    path = folder / f"{issue_id}.md"
    path.write_text(
        f"---\nid: {issue_id}\ntitle: {title}\ndigest: {title}的摘要\ncover: {issue_id}.jpg\n"
        f"channels: [wechat]\n{extra}---\n\n{title}的正文,短短一段。\n",
        encoding="utf-8",
    )
    return path


def lead(world: World, names: str) -> Path:
    issue = write_light_issue(world.root)
    text = ISSUE.replace(
        "wechat: {need_open_comment: true}", f"wechat: {{need_open_comment: true, with: {names}}}"
    )
    issue.write_text(text, encoding="utf-8")
    return issue


@pytest.fixture
def bundle(manual_world: World) -> World:
    manual_world.issue = lead(manual_world, "[short-1, short-2]")
    folder = manual_world.issue.parent
    companion(folder, "short-1", "短讯一")
    companion(folder, "short-2", "短讯二")
    return manual_world


def test_the_lead_and_its_companions_go_out_in_one_send(bundle: World) -> None:
    report, lines = bundle.publish(mode="broadcast", targets=("wechat",))
    (result,) = report.results
    assert result.exit_code == EXIT_OK, result
    assert any("no digest in a 多图文 draft" in line for line in lines), lines
    (send,) = bundle.box.wechat.snapshot()["mass_sends"]
    titles = [article["title"] for article in send["articles"]]
    assert titles == ["断点测试 第1期", "短讯一", "短讯二"]
    # WeChat keeps a digest only in a single-article draft (wechat-api.md §5.1).
    assert [a["digest"] for a in send["articles"]] == ["", "", ""]
    covers = {a["thumb_media_id"] for a in send["articles"]}
    assert len(covers) == 3, "each article has its own cover"
    assert all(len(got) == 1 for got in bundle.box.wechat.pushes().values())

    with bundle.ledger() as ledger:
        lead_record = ledger.post(ISSUE_ID, "wechat", "main")
        rows = [ledger.post(name, "wechat", "main") for name in ("short-1", "short-2")]
    assert lead_record is not None
    for row in rows:
        assert row is not None and row.state == "published" and row.delivery == "broadcast"
        assert row.publish_id == lead_record.publish_id

    # A companion is never sent on its own: publishing it names its lead, sends nothing.
    before = len(bundle.box.requests)
    alone, lines = bundle.publish([bundle.issue.parent / "short-1.md"], mode="broadcast")
    assert alone.results == () and any("goes out with 'light-1'" in line for line in lines)
    assert len(bundle.box.requests) == before
    again, _ = bundle.publish(mode="broadcast", targets=("wechat",))
    assert again.results[0].state == "unchanged"
    assert calls_to(bundle.box, SENDALL) == 1


def test_a_missing_companion_is_exit_2_at_the_with_line(manual_world: World) -> None:
    manual_world.issue = lead(manual_world, "[short-1, nowhere]")
    companion(manual_world.issue.parent, "short-1", "短讯一")
    with pytest.raises(IssueError) as caught:
        manual_world.publish(mode="broadcast", targets=("wechat",))
    assert caught.value.exit_code == 2
    assert "'nowhere'" in str(caught.value)
    assert f"{manual_world.issue}:8:" in str(caught.value)
    assert calls_to(manual_world.box, SENDALL) == 0


def test_a_companions_problem_names_its_own_file_and_line(manual_world: World) -> None:
    manual_world.issue = lead(manual_world, "[short-1]")
    bad = companion(manual_world.issue.parent, "short-1", "短讯一")
    bad.write_text(bad.read_text("utf-8").replace("cover: short-1.jpg", "cover: gone.jpg"), "utf-8")
    with pytest.raises(UsageError) as caught:
        manual_world.publish(mode="broadcast", targets=("wechat",))
    assert f"{bad}:5" in str(caught.value), str(caught.value)
    assert len(manual_world.box.requests) == 0


def test_at_most_seven_companions_and_none_with_companions_of_its_own(
    manual_world: World,
) -> None:
    names = ", ".join(f"s{n}" for n in range(8))
    manual_world.issue = lead(manual_world, f"[{names}]")
    with pytest.raises(IssueError, match="holds the issue and 7 more"):
        manual_world.publish(mode="broadcast", targets=("wechat",))
    manual_world.issue = lead(manual_world, "[short-1]")
    companion(manual_world.issue.parent, "short-1", "短讯一", extra="wechat: {with: [x]}\n")
    with pytest.raises(IssueError, match="cannot bring companions of its own"):
        manual_world.publish(mode="broadcast", targets=("wechat",))


def test_check_reports_each_companions_problems_at_its_own_line(
    manual_world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = manual_world
    world.issue = lead(world, "[short-1, short-2]")
    good = companion(world.issue.parent, "short-1", "短讯一")
    bad = companion(world.issue.parent, "short-2", "短讯二")
    bad.write_text(bad.read_text("utf-8").replace("cover: short-2.jpg", "cover: gone.jpg"), "utf-8")
    world.use_env(monkeypatch)
    assert main(["check", str(world.issue)]) == EXIT_BAD_INPUT
    out = capsys.readouterr().out
    assert f"{bad}:5" in out and f"{good}: ok (wechat)" in out, out

    world.issue = lead(world, "[short-1, nowhere]")
    assert main(["check", str(world.issue)]) == EXIT_BAD_INPUT
    out = capsys.readouterr().out
    assert f"{world.issue}:8" in out and "'nowhere'" in out, out


def test_a_draft_whose_articles_no_longer_fit_the_bundle_is_not_updated(
    manual_world: World,
) -> None:
    """WeChat's draft/update replaces an article already in a draft and never adds or
    removes one: a draft of the lead alone cannot take a companion named later. Nothing
    of it is changed (no half-updated draft); one line says to make a new one."""
    world = manual_world
    world.issue = write_light_issue(world.root)
    first, _ = world.publish(mode="draft", targets=("wechat",))
    assert first.results[0].exit_code == EXIT_OK, first.results[0]
    world.issue = lead(world, "[short-1]")
    companion(world.issue.parent, "short-1", "短讯一")
    before = calls_to(world.box, "/cgi-bin/draft/update")
    report, _ = world.publish(mode="broadcast", targets=("wechat",))
    (result,) = report.results
    assert result.state == "failed" and "--new-draft" in result.message, result
    assert "\n" not in result.message
    assert calls_to(world.box, "/cgi-bin/draft/update") == before
    assert calls_to(world.box, SENDALL) == 0
    again, _ = world.publish(mode="broadcast", targets=("wechat",), new_draft=True)
    assert again.results[0].exit_code == EXIT_OK, again.results[0]
    (send,) = world.box.wechat.snapshot()["mass_sends"]
    assert [article["title"] for article in send["articles"]] == ["断点测试 第1期", "短讯一"]


def test_a_bundle_drafted_before_a_lost_ledger_is_adopted_not_drafted_again(
    bundle: World,
) -> None:
    """WeChat keeps no digest in a 多图文 draft, so the lead's digest cannot be what finds
    the bundle's draft again (a lost state dir, another machine): its title and author do."""
    first, _ = bundle.publish(mode="draft", targets=("wechat",))
    assert first.results[0].exit_code == EXIT_OK, first.results[0]
    (draft,) = bundle.drafts_on("wechat")
    (bundle.state_dir / "ledger.sqlite3").unlink()
    again, lines = bundle.publish(mode="draft", targets=("wechat",))
    assert again.results[0].exit_code == EXIT_OK, again.results[0]
    assert bundle.drafts_on("wechat") == [draft], lines
