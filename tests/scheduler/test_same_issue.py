"""``run-due`` and an issue renamed after it went out: said once, nothing sent again.

The operator's trial: an issue without ``id:`` (keyed by its file name) is published by a
tick, then its file is renamed. The next tick must not publish it a second time under
the new name: it reports the file as a problem (exit 2) with the line ``publish`` gives,
once, and the fix the line names (``id:`` of the earlier name) settles it without a
request that changes a platform.
"""

from __future__ import annotations

from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK

from .desk import Desk, at

DATED = "2026-11-30-weekly"


def test_a_renamed_issue_is_a_problem_said_once_and_never_a_second_post(desk: Desk) -> None:
    written = desk.write(DATED, at(-60))
    text = written.read_text(encoding="utf-8").replace(f"id: {DATED}\n", "", 1)
    written.write_text(text, encoding="utf-8")  # its id is its file name
    first = desk.tick()
    assert first.exit_code == EXIT_OK, first.as_dict()
    assert sorted(r.state for r in first.results) == ["published", "published"]
    posts = desk.posts()
    urls = {c: posts[f"{DATED} {c}"].url for c in ("wechat", "zhihu")}

    renamed = written.rename(desk.issues / "weekly-50.md")
    desk.box.clock.advance(60)
    sent = len(desk.box.requests)
    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT
    assert report.results == ()
    [problem] = report.of_kind("problem")
    assert problem.message == (
        f"{renamed}: this issue is already in the ledger as '{DATED}' (wechat:main "
        f"published {urls['wechat']}; zhihu:main published {urls['zhihu']}; the same "
        f"content, from {written}); nothing was sent. If it is the same issue, add "
        f"'id: {DATED}' to its front matter (then nothing is sent again); if it is a new "
        f"post, publish it with 'crosspost publish {renamed} --new-post'"
    )
    assert len(desk.box.requests) == sent, "neither platform was asked anything"
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1

    desk.box.clock.advance(60)
    again = desk.tick()  # said already: cron mails nothing, the timer is not failed
    assert again.quiet and again.exit_code == EXIT_OK
    assert len(desk.box.requests) == sent

    renamed.write_text(
        renamed.read_text(encoding="utf-8").replace("---\n", f"---\nid: {DATED}\n", 1),
        encoding="utf-8",
    )
    desk.box.clock.advance(60)
    fixed = desk.tick()
    assert fixed.exit_code == EXIT_OK, fixed.as_dict()
    assert not fixed.of_kind("problem")
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1
    assert {k: p.url for k, p in desk.posts().items()} == {
        f"{DATED} {c}": url for c, url in urls.items()
    }


def test_two_new_files_with_the_same_words_in_one_tick_send_the_first_only(desk: Desk) -> None:
    """Neither was in the ledger, so each was a new issue, and both went out: two
    articles on Zhihu, two on WeChat. The second is refused with the line a file renamed
    gets, in the tick that sends the first."""
    written = desk.write("weekly", at(-60))
    text = written.read_text(encoding="utf-8").replace("id: weekly\n", "", 1)
    first = desk.issues / "2026-11-30-weekly.md"
    second = desk.issues / "weekly-50.md"
    for path in (first, second):
        path.write_text(text, encoding="utf-8")
    written.unlink()

    report = desk.tick()
    assert report.exit_code == EXIT_BAD_INPUT
    assert sorted((r.key.issue_id, r.state) for r in report.results) == [
        ("2026-11-30-weekly", "published"),
        ("2026-11-30-weekly", "published"),
    ]
    [problem] = report.of_kind("problem")
    assert problem.message == (
        f"{second}: this issue is also in this run, as '2026-11-30-weekly' (going to "
        f"wechat:main, zhihu:main; the same content, from {first}); nothing was sent. If it "
        "is the same issue, keep one of the two files (delete or move the other); if it is "
        f"a new post, publish it with 'crosspost publish {second} --new-post'"
    )
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1
    assert sorted(desk.posts()) == ["2026-11-30-weekly wechat", "2026-11-30-weekly zhihu"]

    desk.box.clock.advance(60)
    again = desk.tick()  # said once; the ledger now holds the first file's posts
    assert again.quiet and again.exit_code == EXIT_OK
    assert desk.creates("wechat") == 1 and desk.creates("zhihu") == 1
