"""多图文: a lead issue takes up to seven companions into one WeChat draft and one send.

Each companion is an issue file of its own in the lead's folder, named by id in the lead's
``wechat: {with: […]}``; it keeps its own title, cover and digest, is linted with its own
file:line, and is recorded in the ledger as gone out with the lead, so it is never sent on
its own afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from crosspost.channels.base import ArticleLink
from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNCONFIRMED, IssueError, UsageError
from crosspost.publish.urls import CompanionUrl, companion_urls
from crosspost.sandbox.clock import ManualClock

from .light import ISSUE, ISSUE_ID, TITLE, write_light_issue
from .world import PUBLISH_PATHS, World, calls_to

SENDALL = "/cgi-bin/message/mass/sendall"
COMPANIONS = ("short-1", "short-2")


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


# --- each article's own URL (多图文 published with 发表) ----------------------------------


def ledger_urls(world: World) -> list[str | None]:
    with world.ledger() as ledger:
        rows = [ledger.post(name, "wechat", "main") for name in (ISSUE_ID, *COMPANIONS)]
    assert all(row is not None and row.state == "published" for row in rows), rows
    return [row.url for row in rows if row is not None]


def published_articles(world: World) -> tuple[list[str], list[str]]:
    """The one published post's articles on the sandbox: their titles and their links."""
    (article,) = world.published_on("wechat")
    return [a["title"] for a in article["articles"]], list(article["urls"])


def test_a_bundle_published_records_each_articles_own_url(
    bundle: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """freepublish/get lists every article's link (article_detail.item[idx]): each goes
    to its own row, matched by place, and status and urls show them."""
    report, lines = bundle.publish(mode="publish", targets=("wechat",))
    assert report.results[0].exit_code == EXIT_OK, report.results[0]
    titles, links = published_articles(bundle)
    assert titles == [TITLE, "短讯一", "短讯二"]
    assert len(set(links)) == 3
    assert ledger_urls(bundle) == links
    assert f"short-2: went out as article 3 (多图文): {links[2]}" in "\n".join(lines)

    bundle.use_env(monkeypatch)
    for name, link in zip((ISSUE_ID, *COMPANIONS), links, strict=True):
        assert main(["urls", name]) == EXIT_OK
        out, err = capsys.readouterr()
        assert (out, err) == (f"{link}\n", "")
    assert main(["status"]) == EXIT_OK
    table = capsys.readouterr().out
    assert all(link in table for link in links) and "URL not known" not in table

    before = len(bundle.box.requests)  # the next run has nothing left to ask
    again, _ = bundle.publish(mode="publish", targets=("wechat",))
    assert again.results[0].state == "unchanged"
    assert not [r for r in bundle.box.requests[before:] if "freepublish" in r.path]


def test_when_wechat_lists_fewer_articles_no_companion_url_is_guessed(
    bundle: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle.box.wechat.options.update(article_detail="lead")
    report, lines = bundle.publish(mode="publish", targets=("wechat",))
    assert report.results[0].exit_code == EXIT_OK, report.results[0]
    _, links = published_articles(bundle)
    assert ledger_urls(bundle) == [links[0], None, None]
    why = "WeChat lists 1 article under the post but it holds 3"
    assert any(f"short-1: URL not known: {why}" in line for line in lines), lines

    bundle.use_env(monkeypatch)
    assert main(["urls", "short-1"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "went out as article 2 of 'light-1' (多图文); URL not known: " + why in err
    assert "crosspost urls --set short-1 -c wechat:main URL" in err
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["status", "short-2"]) == EXIT_OK
    assert f"URL not known ({why}" in capsys.readouterr().out
    assert main(["status", "short-2", "--json"]) == EXIT_OK
    (row,) = json.loads(capsys.readouterr().out)
    assert why in row["url_not_known"] and row["url"] is None

    # The editor records it by hand; the next run of the lead keeps it, and what it
    # learns now (the articles by title, with temporary links only) is the new reason.
    assert main(["urls", "--set", "short-1", "-c", "wechat:main", links[1]]) == EXIT_OK
    capsys.readouterr()
    bundle.box.wechat.options.update(article_detail="none")
    again, _ = bundle.publish(mode="publish", targets=("wechat",))
    assert again.results[0].state == "unchanged"
    assert ledger_urls(bundle) == [links[0], links[1], None]
    assert main(["status", "short-2"]) == EXIT_OK
    assert "URL not known (WeChat gave only a temporary link)" in capsys.readouterr().out


def test_a_companion_url_learnt_later_is_recorded_by_the_next_run(bundle: World) -> None:
    """The answer that confirmed the publication listed no articles (the lead's link
    too is then pending); the next run of the lead asks WeChat again (freepublish/get by
    the recorded publish_id) and records every link."""
    bundle.box.wechat.options.update(article_detail="none")
    bundle.publish(mode="publish", targets=("wechat",))
    _, links = published_articles(bundle)
    assert ledger_urls(bundle) == [None, None, None]
    bundle.box.wechat.options.update(article_detail="all")
    # WeChat does not answer this time: nothing is learnt, nothing fails.
    bundle.box.faults.add("wechat", "/cgi-bin/freepublish/get", kind="http:503", count=2)
    failed, _ = bundle.publish(mode="publish", targets=("wechat",))
    assert failed.results[0].state == "unchanged" and failed.exit_code == EXIT_OK
    assert ledger_urls(bundle) == [None, None, None]
    again, lines = bundle.publish(mode="publish", targets=("wechat",))
    assert again.results[0].state == "unchanged"
    assert ledger_urls(bundle) == links
    assert f"short-1: article 2 (多图文) is at {links[1]}" in "\n".join(lines)


def test_a_bundle_found_after_a_lost_ledger_gets_each_url_by_place_and_title(
    bundle: World,
) -> None:
    """Adopted from the published list (freepublish/batchget), whose articles carry their
    titles: a URL goes to a companion only when its title is the one listed there."""
    bundle.box.wechat.options.update(listed_urls="permanent")
    bundle.publish(mode="publish", targets=("wechat",))
    _, links = published_articles(bundle)
    (bundle.state_dir / "ledger.sqlite3").unlink()
    folder = bundle.issue.parent
    renamed = folder / "short-2.md"  # renamed after it went out: its link is not guessed
    renamed.write_text(renamed.read_text("utf-8").replace("短讯二", "短讯二(改)"), "utf-8")
    again, lines = bundle.publish(mode="publish", targets=("wechat",))
    assert again.results[0].state == "published", again.results[0]
    assert any("adopted, not made again" in line for line in lines), lines
    assert ledger_urls(bundle) == [links[0], None, None]
    assert any("titled '短讯二', not '短讯二(改)'" in line for line in lines), lines
    assert len(bundle.published_on("wechat")) == 1


def test_a_bundle_found_with_temporary_links_only_says_so(bundle: World) -> None:
    bundle.publish(mode="publish", targets=("wechat",))
    (bundle.state_dir / "ledger.sqlite3").unlink()
    again, lines = bundle.publish(mode="publish", targets=("wechat",))
    assert again.results[0].state == "published", again.results[0]
    assert ledger_urls(bundle) == [None, None, None]
    assert any(
        "short-2: URL not known: WeChat gave only a temporary link" in line for line in lines
    )


def test_a_lost_submit_answer_settled_by_the_ticket_records_every_url(
    bundle: World,
) -> None:
    """The submit's answer was lost after WeChat took it; reconcile finds the post in
    the published list, and the companions are recorded with it (not left unsent)."""
    bundle.box.faults.add("wechat", PUBLISH_PATHS["wechat"], kind="commit_then_drop", count=1)
    bundle.box.wechat.options.update(listed_urls="permanent")
    first, _ = bundle.publish(mode="publish", targets=("wechat",))
    assert first.exit_code == EXIT_UNCONFIRMED
    assert isinstance(bundle.clock, ManualClock)
    bundle.clock.advance(700.0)
    again, _ = bundle.publish(mode="publish", targets=("wechat",))
    assert again.results[0].state == "published", again.results[0]
    _, links = published_articles(bundle)
    assert ledger_urls(bundle) == links
    assert calls_to(bundle.box, PUBLISH_PATHS["wechat"]) == 1


@pytest.mark.parametrize(
    ("links", "why"),
    [
        pytest.param((), "listed none", id="none-listed"),
        pytest.param((1, 2), "lists 2 articles under the post but it holds 3", id="fewer"),
        pytest.param((1, 2, 3, 4), "lists 4 articles", id="more"),
        pytest.param((1, 3, 4), "numbered the post's articles 1, 3, 4", id="gap"),
        pytest.param((1, 1, 2), "numbered the post's articles 1, 1, 2", id="twice"),
    ],
)
def test_companion_urls_are_never_guessed(links: tuple[int, ...], why: str) -> None:
    listed = [ArticleLink(i, f"https://mp.weixin.qq.com/s/a{i}") for i in links]
    found = companion_urls(listed, ["lead", "one", "two"])
    assert [c.url for c in found] == [None, None]
    assert all(why in c.why for c in found), found


def test_companion_urls_match_by_place_and_by_title_where_listed() -> None:
    listed = [
        ArticleLink(1, "https://mp.weixin.qq.com/s/a1", "lead"),
        ArticleLink(2, "https://mp.weixin.qq.com/s/a2", None),
        ArticleLink(3, None, "two"),
    ]
    assert companion_urls(listed, ["lead", "one", "two"]) == (
        CompanionUrl("https://mp.weixin.qq.com/s/a2"),
        CompanionUrl(None, "WeChat gave only a temporary link"),
    )
    swapped = [ArticleLink(1, "u1", "lead"), ArticleLink(2, "u2", "two"), ArticleLink(3, "u3")]
    assert [c.url for c in companion_urls(swapped, ["lead", "one", "two"])] == [None, None]
