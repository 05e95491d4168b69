"""``crosspost publish``, ``status`` and ``urls`` as an editor uses them, in this process.

Each test runs ``crosspost.cli.main`` against a sandbox on loopback with a config file and
environment in ``tmp_path``; what the platforms received is read from the sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.commands.switches import MAX_SLEEP_VARIABLE
from crosspost.errors import EXIT_OK, EXIT_TEMPORARY

from .world import (
    CREATE_PATHS,
    ISSUE_ID,
    REPO_ROOT,
    World,
    assert_one_post_per_channel,
    mutating,
)

Capsys = pytest.CaptureFixture[str]
NEW_TEXT = "本期新增的一段话,发布之后才补上。"


@pytest.fixture
def shell(world: World, monkeypatch: pytest.MonkeyPatch) -> World:
    """The world, with this process's environment and working folder set to it."""
    world.use_env(monkeypatch)
    return world


def publish(world: World, *extra: str) -> int:
    return main(["publish", str(world.issue), "--mode", "publish", *extra])


def edit_issue(world: World) -> None:
    text = world.issue.read_text(encoding="utf-8")
    world.issue.write_text(text.replace("\n## 1.", f"\n{NEW_TEXT}\n\n## 1.", 1), "utf-8")


def test_publish_prints_both_urls_and_status_and_urls_show_them(
    shell: World, capsys: Capsys
) -> None:
    assert publish(shell) == EXIT_OK
    out, err = capsys.readouterr()
    assert_one_post_per_channel(shell)
    posts = shell.posts()
    for channel in ("wechat", "zhihu"):
        assert f"{channel}:main" in out and str(posts[channel].url) in out
    assert f"wechat:main  {ISSUE_ID}: draft " in err  # a progress line per step
    assert main(["status"]) == EXIT_OK
    status = capsys.readouterr().out
    assert str(posts["wechat"].url) in status and str(posts["zhihu"].url) in status
    assert main(["urls", ISSUE_ID]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == sorted(str(p.url) for p in posts.values())
    assert main(["status", "--json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    assert {(r["channel"], r["state"], r["url"]) for r in rows} == {
        (c, "published", p.url) for c, p in posts.items()
    }


def test_publishing_again_sends_nothing_that_changes_a_platform(
    shell: World, capsys: Capsys
) -> None:
    assert publish(shell) == EXIT_OK
    capsys.readouterr()
    seen = len(shell.box.requests)
    before = mutating(shell.box)
    assert publish(shell, "--json") == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert mutating(shell.box) == before
    assert len(shell.box.requests) == seen  # not even a token: the ledger knew it all
    assert {p["state"] for p in report["posts"]} == {"unchanged"}
    assert {p["url"] for p in report["posts"]} == {p.url for p in shell.posts().values()}


def test_update_edits_the_zhihu_article_in_place(shell: World, capsys: Capsys) -> None:
    assert publish(shell, "-c", "zhihu") == EXIT_OK
    first = shell.posts()["zhihu"]
    edit_issue(shell)
    assert publish(shell, "-c", "zhihu") == EXIT_OK
    out, err = capsys.readouterr()
    assert "changed" in out and "run with --update to edit it in place" in err
    assert NEW_TEXT not in shell.published_on("zhihu")[0]["content"]

    assert publish(shell, "-c", "zhihu", "--update") == EXIT_OK
    (article,) = shell.published_on("zhihu")
    assert NEW_TEXT in article["content"]
    after = shell.posts()["zhihu"]
    assert (after.article_id, after.url) == (first.article_id, first.url)
    assert after.content_hash != first.content_hash
    assert shell.drafts_on("zhihu") == [first.draft_id]
    assert publish(shell, "-c", "zhihu", "--update") == EXIT_OK
    assert "unchanged" in capsys.readouterr().out


def test_update_of_a_published_wechat_article_says_wechat_cannot(
    shell: World, capsys: Capsys
) -> None:
    assert publish(shell) == EXIT_OK
    capsys.readouterr()
    sent = mutating(shell.box)
    edit_issue(shell)
    # Zhihu's update counts: the run is a success, WeChat's refusal said once, no --update.
    assert publish(shell, "--update") == EXIT_OK
    out, err = capsys.readouterr()
    assert "wechat:main  ai-systems-48  published" in out  # still the post it was
    assert err.count("cannot edit a published or mass-sent article") == 1
    assert "--update" not in err and "发表记录" in err
    assert NEW_TEXT in shell.published_on("zhihu")[0]["content"]
    for flags in ((), ("--update",)):  # later runs: the post as it stands, nothing said
        assert publish(shell, "-c", "wechat", *flags) == EXIT_OK
        out, err = capsys.readouterr()
        assert "wechat:main  ai-systems-48  published" in out and "cannot edit" not in err
    assert [m for m in mutating(shell.box) if m.startswith("wechat")] == [
        m for m in sent if m.startswith("wechat")
    ]
    assert len(shell.published_on("wechat")) == 1


def test_a_changed_wechat_draft_is_updated_in_place(shell: World, capsys: Capsys) -> None:
    assert main(["publish", str(shell.issue), "-c", "wechat", "--mode", "draft"]) == EXIT_OK
    first = shell.posts()["wechat"]
    edit_issue(shell)
    assert main(["publish", str(shell.issue), "-c", "wechat", "--mode", "draft"]) == EXIT_OK
    assert "updating draft" in capsys.readouterr().err
    (draft,) = shell.box.wechat.snapshot()["drafts"]
    assert draft["media_id"] == first.draft_id == shell.posts()["wechat"].draft_id
    assert NEW_TEXT in json.dumps(draft, ensure_ascii=False)
    assert [r.path for r in shell.box.requests].count(CREATE_PATHS["wechat"]) == 1
    assert any(r.path == "/cgi-bin/draft/update" for r in shell.box.requests)


def test_dry_run_sends_nothing_and_shows_the_plan_and_a_diff(shell: World, capsys: Capsys) -> None:
    assert publish(shell, "--dry-run") == EXIT_OK
    out = capsys.readouterr().out
    assert "create a draft and publish it" in out and "dry run: nothing was sent" in out
    # Only reads: the token, the question what the account may do (openapi/quota/get), and
    # Zhihu's login check (which member: the issue may have gone to it under another name).
    assert mutating(shell.box) == []
    assert {r.path for r in shell.box.requests} <= {
        "/cgi-bin/stable_token",
        "/cgi-bin/openapi/quota/get",
        "/api/v4/me",
    }
    assert not (shell.state_dir / "sent").exists()

    assert publish(shell) == EXIT_OK
    edit_issue(shell)
    capsys.readouterr()
    seen = len(shell.box.requests)
    assert publish(shell, "--dry-run") == EXIT_OK
    out = capsys.readouterr().out
    assert "changed since publishing (pass --update" in out
    assert any(line.startswith("+") and NEW_TEXT in line for line in out.splitlines())
    assert "last sent" in out
    assert publish(shell, "--dry-run", "--json", "--update") == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["dry_run"] is True
    actions = {p["channel"]: p["action"] for p in data["posts"]}
    assert actions == {
        "zhihu": "update the published post in place",
        "wechat": "nothing: changed since publishing, and this platform cannot edit it",
    }
    assert all(NEW_TEXT in p["diff"] for p in data["posts"])
    # The update goes through Zhihu's login check first: the dry run asks it, nothing more.
    assert [(r.method, r.path) for r in shell.box.requests[seen:]] == [("GET", "/api/v4/me")]


@pytest.fixture
def fresh_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The repository on a machine with no config and no credentials, as README's first
    command finds it (a home and a state folder of the test's own); the example's path."""
    for name in ("CROSSPOST_CONFIG", "CROSSPOST_STATE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(MAX_SLEEP_VARIABLE, "0")
    monkeypatch.chdir(REPO_ROOT)
    return "examples/ai-systems-48/issue.md"


def test_sandbox_demo_from_the_repository(fresh_machine: str, capsys: Capsys) -> None:
    """The README's first command on a fresh machine: no config, no credentials."""
    example = fresh_machine
    assert main(["publish", example, "--sandbox"]) == EXIT_OK
    out = capsys.readouterr().out
    wechat = [w for w in out.split() if w.startswith(("https://mp.weixin.qq.com/", "http://mp."))]
    zhihu = [w for w in out.split() if w.startswith("https://zhuanlan.zhihu.com/p/")]
    assert len(wechat) == 1 and len(zhihu) == 1, out
    assert main(["status", "--sandbox"]) == EXIT_OK
    status = capsys.readouterr().out
    assert wechat[0] in status and zhihu[0] in status
    assert main(["status"]) == EXIT_OK  # a rehearsal never enters the real ledger
    assert "nothing published yet" in capsys.readouterr().out
    assert main(["publish", example, "--sandbox"]) == EXIT_OK  # the emulators kept their state
    again = capsys.readouterr().out
    assert wechat[0] in again and zhihu[0] in again


def test_a_refused_update_leaves_the_post_published_with_its_url(
    shell: World, capsys: Capsys
) -> None:
    assert publish(shell, "-c", "zhihu") == EXIT_OK
    first = shell.posts()["zhihu"]
    edit_issue(shell)
    throttle = "zhihu:40362"  # Zhihu's risk control: wait, do not hammer
    shell.box.faults.add("zhihu", "/api/articles/*/draft", throttle, count=5, method="PATCH")
    assert publish(shell, "-c", "zhihu", "--update") == EXIT_TEMPORARY
    _, err = capsys.readouterr()
    assert "risk control" in err and "the published post stays as it was" in err
    after = shell.posts()["zhihu"]
    assert (after.state, after.url, after.content_hash) == (
        "published",
        first.url,
        first.content_hash,
    )
    assert main(["urls", ISSUE_ID]) == EXIT_OK
    assert capsys.readouterr().out.split() == [first.url]
    assert NEW_TEXT not in shell.published_on("zhihu")[0]["content"]

    shell.box.faults.clear()
    assert publish(shell, "-c", "zhihu", "--update") == EXIT_OK
    assert NEW_TEXT in shell.published_on("zhihu")[0]["content"]
    assert shell.posts()["zhihu"].url == first.url


def test_two_issues_in_one_run_each_get_one_post_per_channel(shell: World, capsys: Capsys) -> None:
    other = shell.issue.with_name("other.md")
    text = shell.issue.read_text(encoding="utf-8")
    text = text.replace(f"id: {ISSUE_ID}", "id: ai-systems-49", 1)
    other.write_text(text.replace("第48期", "第49期").replace("动态48", "动态49"), "utf-8")
    assert main(["publish", str(shell.issue), str(other), "--mode", "publish"]) == EXIT_OK
    out = capsys.readouterr().out
    assert len(shell.published_on("wechat")) == 2 and len(shell.published_on("zhihu")) == 2
    with shell.ledger() as ledger:
        posts = ledger.posts(state="published")
    assert {(p.issue_id, p.channel) for p in posts} == {
        (i, c) for i in (ISSUE_ID, "ai-systems-49") for c in ("wechat", "zhihu")
    }
    assert all(str(p.url) in out for p in posts)


def test_publish_json_carries_the_runs_lines(fresh_machine: str, capsys: Capsys) -> None:
    """With --json the lines an editor would have read at the terminal (each step, a
    hand-off, a config the platform contradicts) are in the JSON, not lost."""
    assert main(["publish", fresh_machine, "--sandbox", "--mode", "publish", "--json"]) == EXIT_OK
    shown = capsys.readouterr()
    data = json.loads(shown.out)
    assert [p["state"] for p in data["posts"]] == ["published", "published"]
    said = "\n".join(data["progress"])
    assert "wechat:sandbox  ai-systems-48: submitted for publication" in said
    assert "zhihu:sandbox  ai-systems-48: published https://zhuanlan.zhihu.com/p/" in said
    assert "submitted for publication" not in shown.err
