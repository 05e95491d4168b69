"""An issue published, then run under another id: refused, nothing sent, until a person says.

An issue without ``id:`` is keyed by its file's name, so renaming the file after it was
published (or editing its ``id:``) makes a key the ledger has never seen. Each case runs
``crosspost.cli.main`` against the live sandbox and a real SQLite ledger, publishes the
example issue, changes its key, and runs again: the run must stop with one line naming
the earlier id and what to do (exit 2), and neither platform may see a request. The way
out the line gives must work: ``id: <earlier id>`` sends nothing again, ``--new-post``
makes a second post on both platforms. An issue that only shares the title with one
whose file is still there is another issue, and goes out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, IssueError

from .world import CHANNELS, ISSUE_ID, World, mutating

Capsys = pytest.CaptureFixture[str]
#: The example issue without its ``id:``, saved under a dated name: that name is its id.
DATED = "2026-11-30-weekly"
ADDED = "补上的一段话:发布以后才写的。"


@pytest.fixture
def shell(world: World, monkeypatch: pytest.MonkeyPatch) -> World:
    """The world, with this process's environment and working folder set to it."""
    world.use_env(monkeypatch)
    return world


def publish(path: Path, *extra: str) -> int:
    return main(["publish", str(path), "--mode", "publish", *extra])


def without_id(world: World) -> Path:
    """The example issue with no ``id:`` line, beside its images as ``2026-11-30-weekly.md``."""
    text = world.issue.read_text(encoding="utf-8").replace(f"id: {ISSUE_ID}\n", "", 1)
    path = world.issue.with_name(f"{DATED}.md")
    path.write_text(text, encoding="utf-8")
    return path


def edit(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\n## 1.", f"\n{ADDED}\n\n## 1.", 1), encoding="utf-8")


def standing(world: World, issue_id: str) -> str:
    """How the refusal names the earlier posts: each account, its state and URL."""
    with world.ledger() as ledger:
        posts = {p.channel: p for p in ledger.posts(issue_id)}
    return "; ".join(f"{c}:main {posts[c].state} {posts[c].url}" for c in CHANNELS)


def published_counts(world: World) -> list[int]:
    return [len(world.published_on(channel)) for channel in CHANNELS]


@pytest.mark.parametrize("edited", [False, True], ids=["as-it-was", "edited-too"])
def test_a_file_renamed_after_publishing_is_refused_and_nothing_is_sent(
    shell: World, capsys: Capsys, edited: bool
) -> None:
    first = without_id(shell)
    assert publish(first) == EXIT_OK
    earlier = standing(shell, DATED)
    renamed = first.rename(first.with_name("weekly-50.md"))
    if edited:  # renamed and edited: its title still gives it away
        edit(renamed)
    capsys.readouterr()
    seen = len(shell.box.requests)

    assert publish(renamed) == EXIT_BAD_INPUT
    same = "title" if edited else "content"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"crosspost: error: {renamed}: this issue is already in the ledger as '{DATED}' "
        f"({earlier}; the same {same}, from {first.resolve()}); nothing was sent. If it is "
        f"the same issue, add 'id: {DATED}' to its front matter (then nothing is sent "
        f"again); if it is a new post, publish it with "
        f"'crosspost publish {renamed} --new-post'"
    )
    assert len(shell.box.requests) == seen, "neither platform was asked anything"
    assert published_counts(shell) == [1, 1]
    with shell.ledger() as ledger:
        assert ledger.posts("weekly-50") == ()

    # The way out the line gives: the earlier id, and nothing is published again.
    text = renamed.read_text(encoding="utf-8")
    renamed.write_text(text.replace("---\n", f"---\nid: {DATED}\n", 1), encoding="utf-8")
    before = mutating(shell.box)
    assert publish(renamed) == EXIT_OK
    out = capsys.readouterr().out
    assert ("changed" if edited else "unchanged") in out
    assert mutating(shell.box) == before
    assert published_counts(shell) == [1, 1]
    with shell.ledger() as ledger:  # the posts followed the file
        assert {p.issue_path for p in ledger.posts(DATED)} == {str(renamed.resolve())}


@pytest.mark.parametrize("edited", [False, True], ids=["as-it-was", "edited-too"])
def test_an_id_changed_after_publishing_is_refused_at_its_line(
    shell: World, capsys: Capsys, edited: bool
) -> None:
    assert publish(shell.issue) == EXIT_OK
    earlier = standing(shell, ISSUE_ID)
    text = shell.issue.read_text(encoding="utf-8")
    shell.issue.write_text(text.replace(f"id: {ISSUE_ID}", "id: ai-weekly-48", 1), "utf-8")
    if edited:
        edit(shell.issue)
    capsys.readouterr()
    seen = len(shell.box.requests)

    assert publish(shell.issue) == EXIT_BAD_INPUT
    same = "title" if edited else "content"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"crosspost: error: {shell.issue}:2: this issue is already in the ledger as "
        f"'{ISSUE_ID}' ({earlier}; the same {same}); nothing was sent. If it is the same "
        f"issue, set 'id: {ISSUE_ID}' in its front matter (then nothing is sent again); if "
        f"it is a new post, publish it with 'crosspost publish {shell.issue} --new-post'"
    )
    assert len(shell.box.requests) == seen
    assert published_counts(shell) == [1, 1]
    # --dry-run says the same, and sends nothing either.
    assert main(["publish", str(shell.issue), "--dry-run"]) == EXIT_BAD_INPUT
    assert f"already in the ledger as '{ISSUE_ID}'" in capsys.readouterr().err
    assert len(shell.box.requests) == seen


def test_new_post_makes_a_second_post_on_both_platforms_as_asked(
    shell: World, capsys: Capsys
) -> None:
    first = without_id(shell)
    assert publish(first) == EXIT_OK
    renamed = first.rename(first.with_name("weekly-50.md"))
    assert publish(renamed) == EXIT_BAD_INPUT

    assert publish(renamed, "--new-post") == EXIT_OK
    assert published_counts(shell) == [2, 2]
    with shell.ledger() as ledger:
        old, new = ({p.channel: p for p in ledger.posts(i)} for i in (DATED, "weekly-50"))
    for channel in CHANNELS:
        assert new[channel].state == "published" and new[channel].url
        # A post of its own: not the earlier article adopted under a second id.
        assert new[channel].article_id != old[channel].article_id
        assert new[channel].url != old[channel].url
    capsys.readouterr()
    before = mutating(shell.box)
    assert publish(renamed) == EXIT_OK  # from now on it is a post like any other
    assert "unchanged" in capsys.readouterr().out
    assert mutating(shell.box) == before


def test_another_issue_with_the_same_title_goes_out_while_the_first_file_is_there(
    shell: World, capsys: Capsys
) -> None:
    """A newsletter that keeps one title for every issue: the next issue, in a file of
    its own beside the last one, shares the title but not the words. It is published."""
    assert publish(shell.issue) == EXIT_OK
    text = shell.issue.read_text(encoding="utf-8").replace(f"id: {ISSUE_ID}", "id: next", 1)
    following = shell.issue.with_name("next.md")
    following.write_text(text, encoding="utf-8")
    edit(following)

    assert publish(following) == EXIT_OK
    assert published_counts(shell) == [2, 2]


def test_a_named_issue_with_the_same_title_goes_out_when_the_last_file_is_gone(
    shell: World, capsys: Capsys
) -> None:
    """The same newsletter, its published files deleted: a file renamed would look alike,
    but this one has an 'id:' its editor wrote, which names a new issue."""
    old = without_id(shell)
    assert publish(old) == EXIT_OK
    text = old.read_text(encoding="utf-8").replace("---\n", "---\nid: next\n", 1)
    old.unlink()
    following = shell.issue.with_name("next.md")
    following.write_text(text, encoding="utf-8")
    edit(following)

    assert publish(following) == EXIT_OK
    assert published_counts(shell) == [2, 2]


def test_a_copy_with_the_same_words_under_another_id_is_refused(
    shell: World, capsys: Capsys
) -> None:
    """The same words under another id are the same post again, whether or not the
    first file is still there."""
    assert publish(shell.issue) == EXIT_OK
    text = shell.issue.read_text(encoding="utf-8").replace(f"id: {ISSUE_ID}", "id: copy", 1)
    copy = shell.issue.with_name("copy.md")
    copy.write_text(text, encoding="utf-8")
    capsys.readouterr()

    assert publish(copy) == EXIT_BAD_INPUT
    line = capsys.readouterr().err.splitlines()[-1]
    assert f"already in the ledger as '{ISSUE_ID}'" in line and "the same content" in line
    assert published_counts(shell) == [1, 1]


def test_a_draft_renamed_is_refused_too(shell: World, capsys: Capsys) -> None:
    """A second draft is a mess to clean up, and publishing it a second post."""
    first = without_id(shell)
    assert main(["publish", str(first), "-c", "zhihu", "--mode", "draft"]) == EXIT_OK
    renamed = first.rename(first.with_name("weekly-50.md"))
    creates = len(shell.drafts_on("zhihu"))
    capsys.readouterr()

    assert main(["publish", str(renamed), "-c", "zhihu", "--mode", "draft"]) == EXIT_BAD_INPUT
    line = capsys.readouterr().err.splitlines()[-1]
    assert f"already in the ledger as '{DATED}' (zhihu:main drafted https://" in line
    assert len(shell.drafts_on("zhihu")) == creates


def test_a_renamed_file_is_refused_on_a_shared_postgresql_ledger_too(shared_world: World) -> None:
    """The same look, in the SQL PostgreSQL speaks: hosts sharing a ledger refuse alike."""
    first = without_id(shared_world)
    report, _ = shared_world.publish([first], mode="publish")
    assert report.exit_code == EXIT_OK
    renamed = first.rename(first.with_name("weekly-50.md"))
    seen = len(shared_world.box.requests)
    with pytest.raises(IssueError, match=f"already in the ledger as '{DATED}'") as caught:
        shared_world.publish([renamed], mode="publish")
    assert caught.value.exit_code == EXIT_BAD_INPUT and "the same content" in str(caught.value)
    assert len(shared_world.box.requests) == seen
    report, _ = shared_world.publish([renamed], mode="publish", new_post=True)
    assert report.exit_code == EXIT_OK and published_counts(shared_world) == [2, 2]


def test_two_files_with_the_same_words_in_one_publish_are_refused_before_anything_is_sent(
    shell: World, capsys: Capsys
) -> None:
    """``publish a.md b.md``, both new to the ledger: each was a new issue, and both
    platforms got two posts of the same words."""
    first = without_id(shell)
    second = first.with_name("weekly-50.md")
    second.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")

    both = ["publish", str(first), str(second), "--mode", "publish"]
    assert main(both) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"crosspost: error: {second}: this issue is also in this run, as '{DATED}' (going "
        f"to wechat:main, zhihu:main; the same content, from {first.resolve()}); nothing "
        "was sent. If it is the same issue, keep one of the two files (delete or move the "
        f"other); if it is a new post, publish it with 'crosspost publish {second} "
        "--new-post'"
    )
    assert mutating(shell.box) == [] and published_counts(shell) == [0, 0]

    assert publish(first) == EXIT_OK  # one file: the post goes out once
    assert published_counts(shell) == [1, 1]
    # Asked for on purpose: both files' posts, each once.
    assert main([*both, "--new-post"]) == EXIT_OK, capsys.readouterr()
    assert published_counts(shell) == [2, 2]
