"""Review on the phone and approval: ``crosspost review`` / ``approve``, ``require_approval``.

Previews are checked on the sandbox, which records what each reviewer was shown and what
reached followers; approval on the ledger and on what the sandbox published.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.publish.jobs import PublishReport
from crosspost.publish.review import Reviewed, Reviews, approve, review
from crosspost.publish.runner import Publisher
from crosspost.schedule.notify import run_notice
from crosspost.schedule.report import DueReport

from .test_delivery import SUBMIT, dry_run, plain_issue, use_config, wechat_config
from .world import World, calls_to

PREVIEW = "/cgi-bin/message/mass/preview"
Capsys = pytest.CaptureFixture[str]


def test_review_makes_the_draft_and_shows_it_to_each_reviewer_only(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    use_config(world, wechat_config(world))
    issue = plain_issue(world.root)
    world.use_env(monkeypatch)
    code = main(["review", str(issue), "--to", "editor-wx", "--to", "boss-wx"])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    (draft,) = world.drafts_on("wechat")
    assert world.box.wechat.previews() == {"editor-wx": [draft], "boss-wx": [draft]}
    assert world.box.wechat.pushes() == {}  # nothing reached a follower
    assert calls_to(world.box, SUBMIT) == 0 and world.published_on("wechat") == []
    assert out.count("for review (followers get nothing)") == 2

    # Again: the same draft (not a second one), shown once more.
    assert main(["review", str(issue), "--to", "editor-wx"]) == EXIT_OK
    assert world.drafts_on("wechat") == [draft]
    assert world.box.wechat.previews()["editor-wx"] == [draft, draft]


def test_review_needs_a_reviewer(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    world.use_env(monkeypatch)
    assert main(["review", str(plain_issue(world.root))]) == 2
    assert "--to" in capsys.readouterr().err
    assert world.box.requests == []
    # An empty ID (a shell variable that was not set) is bad input too: nothing sent.
    assert main(["review", str(plain_issue(world.root)), "--to", " "]) == 2
    assert "cannot be empty" in capsys.readouterr().err
    assert world.box.requests == []


def test_require_approval_waits_then_publishes_what_was_approved_and_an_edit_voids_it(
    world: World,
) -> None:
    use_config(world, wechat_config(world, "require_approval = true"))
    issue = plain_issue(world.root)
    report, lines = world.publish([issue])
    (result,) = report.results
    assert (result.state, result.exit_code) == ("waiting", EXIT_OK)
    assert "waiting for approval" in result.message and result.todo
    assert sum("waiting for approval" in line for line in lines) == 1
    assert world.drafts_on("wechat") and calls_to(world.box, SUBMIT) == 0
    (entry,), _ = dry_run(world, issue)
    assert entry.action == (
        "nothing: the draft is up to date; it waits for approval "
        f"('crosspost approve {issue}' lets it publish)"
    )

    notice = run_notice(DueReport(datetime.now(UTC), results=(result,)))
    assert notice is not None and "waiting for approval" in notice.body
    again, _ = world.publish([issue])  # still waiting, said in the notice only once
    assert again.results[0].state == "waiting" and not again.results[0].todo

    lines_of(world, lambda p: approve(p, [issue]))
    report, _ = world.publish([issue])
    assert [r.state for r in report.results] == ["published"]
    assert calls_to(world.box, SUBMIT) == 1

    # A second issue file, approved, then edited: the approval no longer holds.
    second = issue.with_name("second.md")
    text = issue.read_text("utf-8").replace("plain-1", "plain-2").replace("第1期", "第2期")
    second.write_text(text, "utf-8")
    lines_of(world, lambda p: approve(p, [second]))
    second.write_text(second.read_text("utf-8") + "\n补上一句话。\n", "utf-8")
    report, lines = world.publish([second])
    assert [r.state for r in report.results] == ["waiting"], (report, lines)
    assert calls_to(world.box, SUBMIT) == 1


def test_publish_says_a_post_waits_for_approval_once_and_after_its_draft(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    """It was said while planning, before the draft was made (a draft that then failed
    left it said), and a dry run said it on a line of its own besides its own line."""
    use_config(world, wechat_config(world, "require_approval = true"))
    issue = plain_issue(world.root)
    world.use_env(monkeypatch)
    waiting = (
        f"wechat:main  plain-1: waiting for approval: send it to reviewers with 'crosspost "
        f"review {issue} --to WECHAT_ID', then 'crosspost approve {issue}' (an edit after "
        "approving voids it)"
    )

    assert main(["publish", str(issue), "--dry-run"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert [line for line in (out + err).splitlines() if "approv" in line] == [
        f"wechat:main  plain-1  draft: create a draft, then wait for approval ('crosspost "
        f"approve {issue}' lets it publish)"
    ]

    assert main(["publish", str(issue)]) == EXIT_OK
    out, err = capsys.readouterr()
    (draft,) = world.drafts_on("wechat")
    said = err.splitlines()
    assert [line for line in said if "approv" in line] == [waiting]
    assert said.index(waiting) > said.index(f"wechat:main  plain-1: draft {draft} created")
    assert "approv" not in out  # the table's row: 'waiting' and the draft's link


# --- message/mass/preview under every fault kind ---------------------------------------------

FAULT_KINDS = [
    "latency:3000",
    "slow_answer:30000",
    "reset",
    "commit_then_drop",
    "http:503",
    "http:429",
    "errcode:-1",
    "errcode:45009",
    "token_expired",
]


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_a_preview_under_a_fault_says_what_happened_and_another_is_safe(
    manual_world: World, kind: str
) -> None:
    world = manual_world
    use_config(world, wechat_config(world, top='mode = "draft"'))
    issue = plain_issue(world.root)
    world.box.faults.add("wechat", PREVIEW, kind, count=1)
    (line,) = _review(world, issue)
    shown = world.box.wechat.previews().get("editor-wx", [])
    if line.exit_code == EXIT_OK:
        assert "sent to editor-wx" in line.message and shown
    else:
        assert line.exit_code in (EXIT_TEMPORARY, EXIT_CHANNEL_FAILED), line
        assert "editor-wx" in line.message
        if line.exit_code == EXIT_TEMPORARY:
            assert "may not have arrived" in line.message and "run review again" in line.message
    assert len(shown) <= 1  # never repeated behind the editor's back
    assert world.box.wechat.pushes() == {}

    world.box.faults.clear()
    (line,) = _review(world, issue)
    assert line.exit_code == EXIT_OK, line
    assert 1 <= len(world.box.wechat.previews()["editor-wx"]) <= 2
    assert len(world.drafts_on("wechat")) == 1
    assert world.box.wechat.pushes() == {}


def _review(world: World, issue: Path) -> list[Reviewed]:
    return lines_of(world, lambda publisher: review(publisher, [issue], ["editor-wx"]))


def lines_of(world: World, work: Callable[[Publisher], Reviews]) -> list[Reviewed]:
    """What ``review`` or ``approve`` said, run with a publisher of this world."""
    found: list[Reviewed] = []

    def wrapped(publisher: Publisher) -> PublishReport:
        found.extend(work(publisher).lines)
        return PublishReport()

    world.with_publisher(wrapped)
    return found


def test_approve_and_review_from_the_command_line_in_json(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    use_config(world, wechat_config(world, "require_approval = true"))
    issue = plain_issue(world.root)
    world.use_env(monkeypatch)
    assert main(["approve", str(issue), "--json"]) == EXIT_OK
    (row,) = json.loads(capsys.readouterr().out)
    assert row["account"] == "wechat:main" and row["message"].startswith("approved")
    assert main(["publish", str(issue), "-q"]) == EXIT_OK
    assert len(world.published_on("wechat")) == 1
    capsys.readouterr()

    # Published: there is no draft left to show; said, not an error.
    assert main(["review", str(issue), "--to", "editor-wx", "--json"]) == EXIT_OK
    (row,) = json.loads(capsys.readouterr().out)
    assert row["message"].startswith("no draft to preview (unchanged")
    assert world.box.wechat.previews() == {}

    # A preview WeChat refuses is exit 1, with its words.
    other = issue.with_name("other.md")
    other.write_text(
        issue.read_text("utf-8").replace("plain-1", "plain-3").replace("第1期", "第3期"), "utf-8"
    )
    world.box.faults.add("wechat", PREVIEW, "errcode:40003", count=1)
    assert main(["review", str(other), "--to", "editor-wx"]) == EXIT_CHANNEL_FAILED
    assert "preview to editor-wx refused" in capsys.readouterr().out
    assert main(["review", str(other), "--to", "x", "-c", "zhihu"]) == 2
    assert "review sends WeChat previews" in capsys.readouterr().err


def test_a_dry_run_after_an_approval_plans_the_draft_in_the_words_status_uses(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    """``approve`` before the first run leaves the post in the ledger with no draft
    (``status``: not sent); a dry run plans the draft as for a post never begun, not
    "resume from 'rendered'", a word of the ledger's no person reads anywhere else."""
    use_config(world, wechat_config(world))
    issue = plain_issue(world.root)
    world.use_env(monkeypatch)
    assert main(["approve", str(issue)]) == EXIT_OK
    assert main(["status"]) == EXIT_OK
    assert "not sent" in capsys.readouterr().out
    (entry,), _ = dry_run(world, issue)
    assert entry.action == "create a draft and publish it"
    assert world.drafts_on("wechat") == []
