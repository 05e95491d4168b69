"""Which files are due, read from front matter only, and how a wrong schedule is reported."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from crosspost.errors import (
    EXIT_BAD_INPUT,
    EXIT_CHANNEL_FAILED,
    EXIT_OK,
    EXIT_TEMPORARY,
    EXIT_UNCONFIRMED,
)
from crosspost.ledger.store import PostKey
from crosspost.publish.jobs import PostResult
from crosspost.schedule.scan import publish_zone, scan
from crosspost.schedule.tick import DueEntry, DueReport

NOW = datetime(2026, 11, 23, 1, 0, tzinfo=UTC)


def front(*lines: str) -> str:
    return "---\ntitle: 一期\n" + "".join(f"{line}\n" for line in lines) + "---\n正文。\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (front("publish_at: 2026-11-23T10:00:00+08:00"), "upcoming"),
        (front("publish_at: 2026-11-23T08:59:00+08:00"), "due"),
        (front("publish_at: '2026-11-23T00:30:00Z'"), "due"),
        (front('publish_at: "2026-11-24T08:00:00+00:00"  # after the holiday'), "upcoming"),
        (front("publish_at: 2026-11-23 09:30:00 +08:00"), "upcoming"),
        (front("wechat: {title: 短}"), "unscheduled"),
        (front("wechat:", "  publish_at: 2026-11-22T09:00:00+08:00"), "unscheduled"),
        ("# Notes about the issues\n", "unscheduled"),
        (front("publish_at: 2026-11-23 09:00:00"), "problem:3: 'publish_at' has no timezone"),
        (front("publish_at: 2026-11-23"), "problem:3: 'publish_at' has no timezone"),
        (front("publish_at: next monday"), "problem:3: 'publish_at' is not a date and time"),
        (
            front("publish_at: 2026-03-08 09:00 America/New_York"),
            "problem:3: 'publish_at' is not a date and time ('2026-03-08 09:00 America/New_York')"
            "; a zone's name (America/New_York) is not read, only an offset from UTC: write the "
            "offset it has on that day, e.g. 2026-11-23T09:00:00+08:00",
        ),
        (front("publish_at: [1, 2"), "problem:3: front matter is not valid YAML"),
        (
            front("publish_at: 2026-11-22T25:00:00+08:00"),
            "problem:3: 'publish_at' is 2026-11-22T25:00:00+08:00, which is no real date",
        ),
        (front("date: 2026-02-30"), "unscheduled"),
        (front("title: a\x00b"), "unscheduled"),  # no publish_at: published by hand
        ("\n\n" + front("publish_at: 2026-11-23T08:59:00+08:00"), "due"),
        ("\n" + front("publish_at: 2026-11-23T10:00:00+08:00"), "upcoming"),
        ("---\ntitle: x\npublish_at: 2026-11-23T08:59:00+08:00\n...\n正文\n", "due"),
        ("---\ntitle: x\npublish_at: 2026-11-22T09:00:00+08:00\n", "problem:1: front matter"),
        (
            front("publish_at: 2026-11-22T09:00:00+08:00", "publish_at: 2026-11-29T09:00:00+08:00"),
            "problem:4: 'publish_at' appears twice",
        ),
    ],
)
def test_a_file_is_due_upcoming_unscheduled_or_a_problem(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "issue-1.md"
    path.write_text(text, encoding="utf-8")
    found = scan([tmp_path], NOW)
    assert found.files == 1
    if expected == "due":
        assert [f.path for f in found.past_due] == [path]
    elif expected == "upcoming":
        assert found.upcoming == 1 and found.next_due and found.next_due[0] == path
    elif expected == "unscheduled":
        assert (found.past_due, found.problems, found.upcoming) == ((), (), 0)
        assert found.unscheduled == () and found.idle
    else:
        where = expected.removeprefix("problem")
        assert next(str(p) for p in found.problems).startswith(f"{path}{where}")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_file_marked_utf16_or_utf32_is_looked_at_as_the_loader_reads_it(
    tmp_path: Path, codec: str
) -> None:
    """The quick look read every file as UTF-8: a UTF-16 issue had no front matter to it,
    and was skipped without a word, never due."""
    due, upcoming = tmp_path / "due.md", tmp_path / "upcoming.md"
    for path, moment in ((due, "2026-11-23T08:59:00+08:00"), (upcoming, "2026-11-24T09:00:00Z")):
        text = front(f"publish_at: {moment}").replace("\n", "\r\n")
        path.write_bytes(("\ufeff" + text).encode(codec))
    found = scan([tmp_path], NOW)
    assert [f.path for f in found.past_due] == [due] and found.problems == ()
    assert found.next_due == (upcoming, datetime(2026, 11, 24, 9, 0, tzinfo=UTC))
    assert found.past_due[0].loaded().issue_id == "due"
    assert publish_zone(due) == timezone(timedelta(hours=8))


@pytest.mark.parametrize(
    ("text", "misspelt"),
    [
        (front("publsh_at: 2026-11-23T08:59:00+08:00"), "publsh_at:3"),
        (front("Publish_at: '2026-11-22T09:00:00Z'  # quoted"), "Publish_at:3"),
        (front("publish-at: 2026-11-22 09:00"), "publish-at:3"),  # no zone: this machine's
        (front("author: 某人", "pubish_at: 2026-11-22"), "pubish_at:4"),
        ("+++\ntitle = '一期'\npublsh_at = 2026-11-22T09:00:00+08:00\n+++\n正文\n", "publsh_at:3"),
        (front("publsh_at: 2026-11-23T10:00:00+08:00"), None),  # not due yet
        (front("publsh_at: next monday"), None),  # no schedule in it
        (front("publish_at_utc: 2026-11-22T09:00:00Z"), None),  # a field of its own
        (front("published: 2026-11-22T09:00:00Z"), None),
        # Ghost's and Strapi's: when it was published. Renamed as advised, it went out.
        (front("published_at: 2026-11-22T09:00:00Z"), None),
        (front("publishedAt: 2026-11-22T09:00:00Z"), None),
        (front("publishDate: 2026-11-22T09:00:00Z"), None),  # Hugo's: kept for the record
        (front("date: 2026-11-22T09:00:00Z"), None),
        (
            front("publish_at: 2026-11-23T10:00:00+08:00", "publsh_at: 2026-11-22T09:00:00Z"),
            None,  # publish_at is there: check warns about the other, run-due need not
        ),
    ],
)
def test_a_misspelt_publish_at_that_has_come_is_unscheduled(
    tmp_path: Path, text: str, misspelt: str | None
) -> None:
    """The key the loader would ask "did you mean 'publish_at'?" of, when its time has come."""
    path = tmp_path / "issue-1.md"
    path.write_text(text, encoding="utf-8")
    found = scan([tmp_path], NOW)
    assert found.problems == () and found.past_due == ()
    if misspelt is None:
        assert found.unscheduled == ()
        return
    [file] = found.unscheduled
    key, line = misspelt.split(":")
    assert (file.path, file.key, file.line) == (path, key, int(line))
    assert str(file) == (
        f"{path}:{line}: '{key}' is no field of crosspost (did you mean 'publish_at'?), so "
        "this issue is never due; rename the field to schedule it"
    )
    assert not found.idle


def test_a_file_that_is_not_utf8_is_a_problem_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "gbk.md"
    path.write_bytes("---\ntitle: 中文\npublish_at: 2026-11-22T09:00:00+08:00\n---\n".encode("gbk"))
    [problem] = scan([tmp_path], NOW).problems
    assert str(problem).startswith(f"{path}:2: is not UTF-8")


def test_links_that_lead_nowhere_are_problems_that_say_so(tmp_path: Path) -> None:
    """A link to a deleted issue and two links pointing at each other: the cron mail says
    what each is and the fix, not "check its permissions"; an editor's lock file (Emacs's
    ``.#name.md``, a link to nowhere) is hidden and not looked at."""
    (tmp_path / "gone.md").symlink_to(tmp_path / "deleted.md")
    (tmp_path / "a.md").symlink_to(tmp_path / "b.md")
    (tmp_path / "b.md").symlink_to(tmp_path / "a.md")
    (tmp_path / ".#issue.md").symlink_to("editor@host.1234:1700000000")
    problems = sorted(str(p) for p in scan([tmp_path], NOW).problems)
    assert problems == [
        f"{tmp_path / 'a.md'}: is a symbolic link that leads back to itself; point it at a "
        "file or remove it",
        f"{tmp_path / 'b.md'}: is a symbolic link that leads back to itself; point it at a "
        "file or remove it",
        f"{tmp_path / 'gone.md'}: is a symbolic link to a file that does not exist; fix or "
        "remove the link",
    ]


def test_subfolders_are_scanned_hidden_ones_are_not_and_each_file_counts_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "2026" / "11").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / "2026" / "11" / "48.md").write_text(front("publish_at: 2026-11-22T09:00:00Z"))
    (tmp_path / ".git" / "x.md").write_text(front("publish_at: 2026-11-22T09:00:00Z"))
    found = scan([tmp_path, tmp_path / "2026"], NOW)
    assert found.files == 1 and len(found.past_due) == 1


def test_jekyll_and_mdx_posts_are_issues_too(tmp_path: Path) -> None:
    """A folder of Jekyll posts (``.markdown``) or of MDX (``.mdx``): render and check
    read them, and a scheduled one never went out, as run-due looked at ``*.md`` only."""
    for name in ("2026-11-22-jekyll.markdown", "docs.mdx", "plain.md"):
        (tmp_path / name).write_text(front("publish_at: 2026-11-22T09:00:00Z"))
    (tmp_path / "notes.txt").write_text(front("publish_at: 2026-11-22T09:00:00Z"))
    found = scan([tmp_path], NOW)
    assert found.files == 3 and len(found.past_due) == 3


def _result(code: int) -> PostResult:
    return PostResult(PostKey("48", "wechat", "main"), "x", None, "", code)


@pytest.mark.parametrize(
    ("codes", "problem", "expected"),
    [
        ([], False, EXIT_OK),
        ([EXIT_OK, EXIT_TEMPORARY], False, EXIT_TEMPORARY),
        ([EXIT_TEMPORARY], True, EXIT_BAD_INPUT),
        ([EXIT_CHANNEL_FAILED], True, EXIT_CHANNEL_FAILED),
        ([EXIT_CHANNEL_FAILED, EXIT_UNCONFIRMED, EXIT_TEMPORARY], True, EXIT_UNCONFIRMED),
    ],
)
def test_exit_code_precedence_puts_what_needs_a_person_first(
    codes: list[int], problem: bool, expected: int
) -> None:
    entries = (DueEntry("problem", Path("x.md"), "x.md:2: broken"),) if problem else ()
    report = DueReport(NOW, results=tuple(_result(c) for c in codes), entries=entries)
    assert report.exit_code == expected
