"""The issue loader: what an editor gets back for a good file, and for each kind of bad one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from crosspost.errors import EXIT_BAD_INPUT, IssueError
from crosspost.issue.loader import load_issue, read_front_matter, read_issue

WriteIssue = Callable[..., Path]


def test_example_issue_loads_with_channel_overrides(example_issue: Path) -> None:
    issue = load_issue(example_issue)
    assert issue.id == "ai-systems-48"
    assert issue.title == "AI系统前沿动态 第48期"
    assert issue.channels == ("wechat", "zhihu")
    assert issue.publish_at is not None and issue.publish_at.utcoffset() == timedelta(hours=8)
    assert issue.cover == example_issue.parent / "images" / "cover.jpg"
    wechat = issue.settings("wechat")
    assert wechat.title == "AI系统前沿动态48"  # the channel's own title wins
    assert wechat.options == {"mode": "draft", "need_open_comment": True}
    zhihu = issue.settings("zhihu")
    assert zhihu.title == issue.title
    assert zhihu.options["topics"] == ("人工智能", "深度学习")
    assert issue.body.lstrip().startswith("这是oneflow社区发布的第48期")
    assert issue.body.count("\n## ") == 13  # 12 items and "其他人都在看"


def test_id_defaults_to_the_folder_name_of_an_issue_md(write_issue: WriteIssue) -> None:
    path = write_issue(name="weekly-7/issue.md")
    (path.parent / "cover.jpg").write_bytes((path.parent.parent / "cover.jpg").read_bytes())
    assert load_issue(path).id == "weekly-7"


def test_body_line_points_at_the_first_body_line(write_issue: WriteIssue) -> None:
    issue = load_issue(write_issue(body="first\n"))
    assert issue.body_line == 7
    assert issue.path.read_text("utf-8").split("\n")[issue.body_line - 1] == "first"


def test_channel_cover_override_is_relative_to_the_issue(write_issue: WriteIssue) -> None:
    path = write_issue(front="title: T\ncover: cover.jpg\nzhihu: {cover: cover.jpg}\n")
    assert load_issue(path).settings("zhihu").cover == path.parent / "cover.jpg"


def test_crlf_and_bom_are_accepted(write_issue: WriteIssue) -> None:
    raw = "\ufeff---\r\ntitle: 标题\r\n---\r\n正文\r\n".encode()
    issue = load_issue(write_issue(raw=raw))
    assert issue.title == "标题"
    assert issue.body == "正文\n"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_file_whose_byte_order_mark_says_utf16_or_utf32_is_read_by_it(
    write_issue: WriteIssue, codec: str
) -> None:
    """Notepad's "Unicode" is UTF-16 LE with its mark: it was refused as "not UTF-8"."""
    text = "---\r\ntitle: 标题\r\nauthor: 编辑部\r\n---\r\n正文第一段。\r\n"
    path = write_issue(raw="\ufeff".encode(codec) + text.encode(codec))
    issue = load_issue(path)
    assert (issue.title, issue.author, issue.body) == ("标题", "编辑部", "正文第一段。\n")
    assert read_front_matter(path) == (
        {"title": "标题", "author": "编辑部"},
        {"title": 2, "author": 3},
    )


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        # Notepad's "Unicode" without its mark: its ASCII alone would pass for UTF-8.
        (
            "---\ntitle: Plain\n---\nText.\n".encode("utf-16-le"),
            ": is UTF-16 or UTF-32 text without its byte-order mark, not UTF-8; save it as "
            "UTF-8 (most editors: 'Save with encoding')",
        ),
        # The mark, then a byte that ends no character.
        (
            "\ufeff---\ntitle: T\n---\n".encode("utf-16-le") + b"x",
            ":4: is not valid UTF-16 text, though it opens with UTF-16's mark; save it as "
            "UTF-8 (most editors: 'Save with encoding')",
        ),
    ],
    ids=["utf-16 without its mark", "utf-16 cut short"],
)
def test_wide_text_the_mark_does_not_vouch_for_is_one_line(
    write_issue: WriteIssue, raw: bytes, said: str
) -> None:
    path = write_issue(raw=raw)
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert str(caught.value) == f"{path}{said}"


def test_scheduler_reads_front_matter_without_the_body(write_issue: WriteIssue) -> None:
    front, lines = read_front_matter(write_issue(front="title: T\npublish_at: 2026-11-23\n"))
    assert front["title"] == "T"
    assert lines == {"title": 2, "publish_at": 3}


# --- bad input: one line, file:line, what to do --------------------------------------------

CASES = [
    # (id, file text, expected line, expected message)
    ("unclosed front matter", "---\ntitle: T\n", 1, "front matter is not closed"),
    (
        "broken yaml",
        "---\ntitle: T\nauthor: [a, b\n---\nx\n",
        3,
        "front matter is not valid YAML (expected ',' or ']', but got '<stream end>')",
    ),
    (
        "not a mapping",
        "---\n- a\n- b\n---\nx\n",
        2,
        "front matter must be 'key: value' lines (a mapping), not a list or text",
    ),
    ("title on two lines", "---\ntitle: |\n  a\n  b\n---\nx\n", 2, "'title' must be one line"),
    (
        "duplicate key",
        "---\ntitle: A\ntitle: B\n---\nx\n",
        3,
        "'title' appears twice (also on line 2)",
    ),
    (
        "unknown channel in list",
        "---\ntitle: T\nchannels: [wechat, weibo]\n---\n",
        3,
        "'channels' names unknown channel 'weibo'; use wechat, zhihu",
    ),
    (
        "naive datetime",
        "---\ntitle: T\npublish_at: 2026-11-23 09:00\n---\n",
        3,
        "'publish_at' has no timezone, so its moment is ambiguous; add one: write "
        "2026-11-23T09:00:00+08:00 for that time in Beijing (+08:00; another zone: its offset)",
    ),
    (
        "date only",
        "---\ntitle: T\npublish_at: 2026-11-23\n---\n",
        3,
        "'publish_at' has no timezone",
    ),
    (
        "not a date",
        "---\ntitle: T\npublish_at: next monday\n---\n",
        3,
        "'publish_at' is not a date and time ('next monday')",
    ),
    (
        "missing cover",
        "---\ntitle: T\ncover: images/nope.jpg\n---\n",
        3,
        "'cover' names 'images/nope.jpg', which does not exist next to the issue; fix the path",
    ),
    (
        "remote cover",
        "---\ntitle: T\ncover: https://x.test/a.jpg\n---\n",
        3,
        "'cover' must be a file next to the issue",
    ),
    (
        "channel cover missing",
        "---\ntitle: T\nwechat:\n  cover: gone.png\n---\n",
        4,
        "'wechat.cover' names 'gone.png', which does not exist",
    ),
    (
        "bad mode",
        "---\ntitle: T\nwechat: {mode: publsh}\n---\n",
        3,
        "'wechat.mode' must be one of draft, publish, broadcast, got 'publsh'",
    ),
    (
        "flag not bool",
        "---\ntitle: T\nwechat: {need_open_comment: maybe}\n---\n",
        3,
        "'wechat.need_open_comment' must be true or false, got 'maybe'",
    ),
    (
        "channel block not a mapping",
        "---\ntitle: T\nzhihu: yes\n---\n",
        3,
        "'zhihu' must be a mapping",
    ),
    (
        "bad url",
        "---\ntitle: T\nsource_url: www.x.test\n---\n",
        3,
        "'source_url' must be an http(s) URL, got 'www.x.test'",
    ),
    (
        "bad id",
        "---\ntitle: T\nid: 第48期/草稿\n---\n",
        3,
        "'id' '第48期/草稿' may only hold letters, digits",
    ),
    (
        "only unknown channel",
        "---\ntitle: T\n---\ntext\n\n::: only weibo\nx\n:::\n",
        6,
        "'::: only weibo' names unknown channel 'weibo'; use wechat or zhihu",
    ),
    (
        "only never closed",
        "---\ntitle: T\n---\n::: only wechat\nx\n\nrest of the issue\n",
        4,
        "'::: only' block is never closed; add a ':::' line where it ends",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_front_matter_names_file_line_and_fix(
    write_issue: WriteIssue, text: str, line: int, message: str
) -> None:
    path = write_issue(raw=text)
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert caught.value.line == line
    assert message in caught.value.problem
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert "\n" not in str(caught.value)
    assert caught.value.exit_code == EXIT_BAD_INPUT


def test_only_markers_inside_code_blocks_are_examples(write_issue: WriteIssue) -> None:
    body = (
        "Write this:\n\n```markdown\n::: only weibo\n:::\n```\n\n" + "正文足够长,可以通过检查。\n"
    )
    assert "::: only weibo" in load_issue(write_issue(body=body)).body


def test_nested_only_blocks_need_a_longer_outer_fence(write_issue: WriteIssue) -> None:
    body = ":::: only wechat\n::: only wechat\ninner\n:::\n::::\n"
    assert load_issue(write_issue(body=body)).body == body


def test_not_utf8_names_the_line(write_issue: WriteIssue) -> None:
    path = write_issue(raw="---\ntitle: 标题\n---\n正文\n".encode("gbk"))
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert str(caught.value) == (
        f"{path}:2: is not UTF-8 text; save it as UTF-8 (most editors: 'Save with encoding')"
    )


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(IssueError) as missing:
        load_issue(tmp_path / "nope.md")
    assert str(missing.value) == f"{tmp_path / 'nope.md'}: no such file; check the path"
    with pytest.raises(IssueError) as folder:
        load_issue(tmp_path)
    assert str(folder.value) == (
        f"{tmp_path}: is a folder, not an issue file; name the .md file inside it"
    )


def test_the_scheduler_and_the_loader_say_the_same_about_a_naive_publish_at(
    write_issue: WriteIssue,
) -> None:
    from datetime import UTC, datetime

    from crosspost.schedule.scan import scan

    path = write_issue(front="title: T\npublish_at: '2026-11-23 09:00'\n")
    with pytest.raises(IssueError) as loaded:
        load_issue(path)
    found = scan([path.parent], datetime(2026, 11, 24, tzinfo=UTC))
    assert [str(problem) for problem in found.problems] == [str(loaded.value)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("两会.md", "两会"), ("三中全会/issue.md", "三中全会"), ("AI 周刊 48.md", "AI-周刊-48")],
)
def test_default_id_keeps_cjk_letters_so_two_files_get_two_ids(
    write_issue: WriteIssue, name: str, expected: str
) -> None:
    assert load_issue(write_issue(name=name, front="title: T\n")).id == expected


# --- problems that do not stop a file from loading: kept on the issue, listed by check ------

NOTICES = [
    # (id, file text, line, severity, expected part of the message)
    (
        "typo in a field",
        "---\ntitle: T\nauthr: A\n---\n",
        3,
        "warning",
        "front matter field 'authr' (did you mean 'author'?) not used by crosspost, so ignored",
    ),
    (
        "a field of its own built on one of ours: no guess",  # Docusaurus's author_url
        "---\ntitle: T\nauthor_url: https://e.org\n---\n",
        3,
        "warning",
        "front matter field 'author_url' not used by crosspost, so ignored",
    ),
    (
        "fields built on ours in camelCase: no guess",  # Docusaurus's authorURL, a theme's
        "---\ntitle: T\nauthorURL: https://e.org\ncoverAlt: 封面\npublishAt: 2026-01-01\n---\n",
        3,
        "warning",
        "front matter fields 'authorURL', 'coverAlt', 'publishAt' (did you mean "
        "'publish_at'?) not used by crosspost, so ignored",
    ),
    (
        "unknown fields, one warning",
        "---\ntitle: T\nlayout: post\ncategories: [a]\n---\n",
        3,
        "warning",
        "front matter fields 'layout', 'categories' not used by crosspost, so ignored",
    ),
    (
        "unknown channel block",
        "---\ntitle: T\nweibo: {title: x}\n---\n",
        3,
        "warning",
        "'weibo' not used by crosspost",
    ),
    (
        "no title anywhere",
        "---\nauthor: A\n---\nx\n",
        1,
        "warning",
        "no title: no 'title:' in front matter and no '# ' heading opening the body",
    ),
    (
        "several '# ' headings are sections, not a title",
        "# 1 引言\n\n一。\n\n# 2 概要\n\n二。\n",
        1,
        "warning",
        "(one after the body's first words, and several, are its sections); the file name "
        "'issue' is used",
    ),
    (
        "only without channel",
        "---\ntitle: T\n---\nx\n\n::: only\ny\n",
        6,
        "warning",
        "'::: only' is not a block crosspost knows, so it is shown as text",
    ),
    (
        "stray closing fence",
        "---\ntitle: T\n---\nx\n\n:::\n",
        6,
        "warning",
        "':::' closes no '::: only' block or callout, so it is shown as text",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "severity", "message"),
    [c[1:] for c in NOTICES],
    ids=[c[0] for c in NOTICES],
)
def test_problems_that_do_not_stop_loading_are_kept_with_their_line(
    write_issue: WriteIssue, text: str, line: int, severity: str, message: str
) -> None:
    issue = load_issue(write_issue(raw=text))  # no error: the strict loader takes it too
    assert [(n.line, n.severity) for n in issue.notices] == [(line, severity)]
    assert message in issue.notices[0].message


def test_every_error_of_a_file_is_kept_not_only_the_first(write_issue: WriteIssue) -> None:
    text = (
        "---\ntitle: T\npublish_at: next monday\nchannels: [weibo]\n---\n"
        "::: only myspace\nx\n:::\n\n::: only wechat\nnever closed\n"
    )
    issue = read_issue(write_issue(raw=text))
    assert [(n.line, n.code) for n in issue.notices] == [
        (3, "invalid-field"),
        (4, "invalid-field"),
        (6, "unknown-only-channel"),
        (10, "unclosed-block"),
    ]
    assert issue.publish_at is None and issue.channels == ()
