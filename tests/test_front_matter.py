"""Front matter from where editors come from: YAML, TOML (Hugo), none at all, and the keys
static-site generators write, mapped onto crosspost's own fields."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from crosspost.check.lint import check_file
from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, IssueError
from crosspost.issue.loader import (
    default_issue_id,
    load_issue,
    opens_front_matter,
    read_front_matter,
    read_issue,
    split_front_matter,
)

WriteIssue = Callable[..., Path]

BODY = "正文足够长,可以通过检查。\n"


def test_toml_front_matter_reads_like_yaml(write_issue: WriteIssue) -> None:
    raw = (
        '+++\ntitle = "AI系统前沿动态 第49期"\nauthor = "OneFlow社区"\n'
        'publish_at = 2026-11-30T09:00:00+08:00\ncover = "cover.jpg"\n\n'
        '[wechat]\ntitle = "AI系统49"\nmode = "publish"\n+++\n' + BODY
    )
    issue = load_issue(write_issue(raw=raw))
    assert issue.title == "AI系统前沿动态 第49期"
    assert issue.settings("wechat").title == "AI系统49"
    assert issue.settings("wechat").options["mode"] == "publish"
    assert issue.publish_at is not None and issue.publish_at.isoformat().endswith("+08:00")
    assert issue.body == BODY and issue.body_line == 11
    assert issue.line_of("author") == 3 and issue.line_of("wechat.mode") == 9


def test_bad_toml_names_its_line(write_issue: WriteIssue) -> None:
    path = write_issue(raw='+++\ntitle = "T"\nauthor = "unclosed\nyear = 2026\n+++\n')
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert caught.value.line == 3
    assert "front matter is not valid TOML" in caught.value.problem


def test_scheduler_reads_toml_front_matter(write_issue: WriteIssue) -> None:
    front, lines = read_front_matter(write_issue(raw='+++\ntitle = "T"\ndraft = true\n+++\nx\n'))
    assert front == {"title": "T", "draft": True}
    assert lines == {"title": 2, "draft": 3}


@pytest.mark.parametrize(
    "raw",
    [
        '{\n  "title": "T",\n  "publish_at": "2026-11-30T09:00:00+08:00"\n}\nx\n',
        ';;;\n"title": "T",\n"publish_at": "2026-11-30T09:00:00+08:00"\n;;;\nx\n',
        "title: T\npublish_at: 2026-11-30T09:00:00+08:00\n---\nx\n",
    ],
)
def test_scheduler_reads_json_and_hexo_front_matter(write_issue: WriteIssue, raw: str) -> None:
    # A Hugo or Hexo post scheduled with publish_at must be seen by run-due's quick look.
    path = write_issue(raw=raw)
    assert opens_front_matter(path.read_bytes())
    front, lines = read_front_matter(path)
    assert front["title"] == "T" and str(front["publish_at"]).startswith("2026-11-30")
    assert lines["publish_at"] == 3 - raw.startswith("title")


def test_no_front_matter_takes_the_title_from_the_first_heading(write_issue: WriteIssue) -> None:
    path = write_issue(raw="# 老司机 iOS 周报 #349\n\n正文第一段。\n\n## 文章\n")
    issue = load_issue(path)
    assert issue.title == "老司机 iOS 周报 #349"
    assert "老司机" not in issue.body  # the heading became the title, not a body line
    assert issue.body.split("\n")[2] == "正文第一段。"  # later lines keep their numbers
    assert issue.line_of("title") == 1 and issue.notices == ()


def test_a_heading_after_other_headings_is_content_and_the_file_name_is_the_title(
    write_issue: WriteIssue,
) -> None:
    path = write_issue(raw="## 1 简介\n\n正文。\n\n# 一级标题\n", name="nice-demo.md")
    issue = load_issue(path)
    assert issue.title == "nice-demo"
    assert "# 一级标题" in issue.body
    assert [n.code for n in issue.notices] == ["no-title"]


def test_static_site_fields_map_onto_ours(write_issue: WriteIssue) -> None:
    front = (
        "title: T\ndescription: 本期摘要\nfeatured_image: cover.jpg\nslug: weekly-49\n"
        "tags: [Python, 周刊]\ndate: 2023-05-13\nlastmod: 2023-05-14T10:00:00+08:00\n"
    )
    issue = load_issue(write_issue(front=front, body=BODY))
    assert issue.digest == "本期摘要"
    assert issue.cover is not None and issue.cover.name == "cover.jpg"
    assert issue.id == "weekly-49"
    assert issue.settings("zhihu").options["topics"] == ("Python", "周刊")
    assert issue.dates == {"date": "2023-05-13", "lastmod": "2023-05-14T10:00:00+08:00"}
    assert issue.publish_at is None  # a generator's date never schedules anything
    assert issue.notices == ()
    assert issue.line_of("digest") == 3 and issue.line_of("zhihu.topics") == 6


def test_a_ghost_feature_image_is_the_cover(write_issue: WriteIssue) -> None:
    # Ghost's export names it 'feature_image' (not 'featured_image'): it was "unknown".
    issue = load_issue(write_issue(front="title: T\nfeature_image: cover.jpg\n", body=BODY))
    assert issue.cover is not None and issue.cover.name == "cover.jpg"
    assert issue.notices == ()


def test_a_buttondown_subject_is_the_title(write_issue: WriteIssue) -> None:
    # It was an unknown field, and the title came from the file's name.
    issue = load_issue(write_issue(front="subject: Weekly 150\n", body=BODY))
    assert issue.title == "Weekly 150" and issue.notices == ()


def test_a_subtitle_is_the_digest_unless_a_description_gives_one(write_issue: WriteIssue) -> None:
    # Substack's (and a theme's) line under the title was an unknown field, "did you mean
    # 'title'?", which would have put the subtitle in the title's place.
    front = "title: T\nsubtitle: Why inference is eating the data center\n"
    issue = load_issue(write_issue(front=front, body=BODY))
    assert issue.digest == "Why inference is eating the data center" and issue.notices == ()
    front = "title: T\nsubtitle: 副标题\ndescription: 摘要\n"
    issue = load_issue(write_issue(front=front, body=BODY))
    assert issue.digest == "摘要"
    assert [(n.line, n.message) for n in issue.notices] == [
        (3, "'subtitle' is not used: 'description' already gives the digest")
    ]


def test_our_own_field_wins_over_an_alias(write_issue: WriteIssue) -> None:
    front = "title: T\ndigest: 我们的\nsummary: 他们的\nkeywords: a, b\nzhihu: {topics: [c]}\n"
    issue = load_issue(write_issue(front=front, body=BODY))
    assert issue.digest == "我们的"
    assert issue.settings("zhihu").options["topics"] == ("c",)
    assert [(n.line, n.severity) for n in issue.notices] == [(4, "info")]


def test_a_bad_alias_value_is_named_as_written(write_issue: WriteIssue) -> None:
    path = write_issue(front="title: T\nimage: /static/cover.png\n", body=BODY)
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert caught.value.line == 3
    assert caught.value.problem.startswith("'image' names '/static/cover.png', which does not")


def test_draft_true_is_a_warning_in_check(write_issue: WriteIssue) -> None:
    path = write_issue(front="title: T\ncover: cover.jpg\ndraft: true\n", body=BODY)
    checked = check_file(path)
    drafts = [p for p in checked.problems if p.code == "draft"]
    assert [(p.line, p.severity) for p in drafts] == [(4, "warning")]
    assert "publish and run-due skip this issue" in drafts[0].message
    assert not checked.errors


# --- values YAML reads otherwise than the editor wrote them -----------------------------


@pytest.mark.parametrize(
    ("field", "written", "reason"),
    [
        ("date", "2024-02-30", "day is out of range for month"),
        ("lastmod", "2024-04-31", "day is out of range for month"),
        ("date", "2024-13-45", "month must be in 1..12"),
        ("pubDate", "2024-01-01T25:00:00+08:00", "hour must be in 0..23"),
    ],
)
def test_an_impossible_record_date_is_a_warning_and_kept_as_written(
    write_issue: WriteIssue, field: str, written: str, reason: str
) -> None:
    path = write_issue(front=f"title: T\ncover: cover.jpg\n{field}: {written}\n", body=BODY)
    issue = load_issue(path)  # not an error: the date schedules nothing
    assert issue.dates == {field: written}
    assert [(n.line, n.severity, n.message) for n in issue.notices] == [
        (
            4,
            "warning",
            f"'{field}' is {written}, which is no real date ({reason}); it is only kept "
            "for the record (it schedules nothing), so fix or remove it",
        )
    ]


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("2024-01-01T25:00:00+08:00", "hour must be in 0..23"),
        ("2024-01-01T10:00:00+25:00", "a timezone offset must be less than 24 hours"),
        ("2024-02-30T09:00:00+08:00", "day is out of range for month"),
    ],
)
def test_an_impossible_publish_at_is_an_error_on_its_line(
    write_issue: WriteIssue, written: str, reason: str
) -> None:
    path = write_issue(front=f"title: T\ncover: cover.jpg\npublish_at: {written}\n", body=BODY)
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert caught.value.line == 4
    assert caught.value.problem == (
        f"'publish_at' is {written}, which is no real date and time ({reason}); "
        "fix it, e.g. 2026-11-23T09:00:00+08:00"
    )


@pytest.fixture
def isolated(tmp_path: Path) -> list[str]:
    """Flags that keep the user's own config and state out of a command run here."""
    config = tmp_path / "crosspost.toml"
    config.write_text("", "utf-8")
    return ["--config", str(config), "--state-dir", str(tmp_path / "state")]


def test_an_impossible_toml_date_is_rendered_with_its_line_and_refused_by_check(
    write_issue: WriteIssue,
    tmp_path: Path,
    isolated: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """tomllib refuses ``date = 2024-02-30`` outright; ``render`` still writes the issue
    and names the line and the fix, ``check`` refuses it on that one line (the file is no
    TOML another tool reads), and ``publish`` refuses it before anything is sent."""
    path = write_issue(raw=f'+++\ntitle = "T"\ncover = "cover.jpg"\ndate = 2024-02-30\n+++\n{BODY}')
    said = (
        f"{path}:4: error: 'date' is 2024-02-30, which is no real date (day is out of range for "
        "month), so the front matter is not valid TOML; fix the date, or quote it to keep "
        'it as written: date = "2024-02-30"'
    )
    out = tmp_path / "out"
    assert main(["render", str(path), "-o", str(out), "-c", "zhihu", *isolated]) == EXIT_OK
    shown = capsys.readouterr()
    assert said in shown.out.splitlines() + shown.err.splitlines()
    assert "Traceback" not in shown.out + shown.err
    assert BODY.strip() in (out / "zhihu.html").read_text("utf-8")

    assert main(["check", str(path), "-c", "zhihu", *isolated]) == EXIT_BAD_INPUT
    shown = capsys.readouterr()
    assert [line for line in (shown.out + shown.err).splitlines() if line] == [said]

    issue = read_issue(path)
    assert issue.dates == {"date": "2024-02-30"} and issue.title == "T"
    with pytest.raises(IssueError, match="no real date"):
        load_issue(path)  # what publish and run-due read: refused, nothing sent


def test_an_impossible_toml_publish_at_says_so_once_in_the_fields_words(
    write_issue: WriteIssue,
) -> None:
    path = write_issue(
        raw='+++\ntitle = "T"\ncover = "cover.jpg"\n'
        "publish_at = 2024-02-30T09:00:00+08:00\n\n[wechat]\nlastmod = 2023-02-29 # x\n"
        f"+++\n{BODY}"
    )
    issue = read_issue(path)
    assert issue.publish_at is None
    assert sorted((n.line, n.code, n.message) for n in issue.notices) == [
        (
            4,
            "invalid-field",
            "'publish_at' is 2024-02-30T09:00:00+08:00, which is no real date and time "
            "(day is out of range for month); fix it, e.g. 2026-11-23T09:00:00+08:00",
        ),
        (
            7,
            "impossible-toml-date",
            "'wechat.lastmod' is 2023-02-29, which is no real date (day is out of range for "
            "month), so the front matter is not valid TOML; fix the date, or quote it to "
            'keep it as written: lastmod = "2023-02-29"',
        ),
    ]
    path.write_text(path.read_text("utf-8").replace("2023-02-29 #", "2023-13-29 #"), "utf-8")
    with pytest.raises(IssueError, match="front matter is not valid TOML"):
        read_issue(path)  # any other TOML error still stops the reading, with its line


def test_an_impossible_toml_date_in_an_inline_table_or_a_list_is_named_by_its_path(
    write_issue: WriteIssue,
) -> None:
    """The fix quotes the value alone: quoting what the line's key holds would replace a
    whole inline table (and lose its other keys) or a whole list."""
    path = write_issue(
        raw='+++\ntitle = "T"\ncover = "cover.jpg"\n'
        'wechat = {title = "W", digest = 2024-02-30}\n'
        "dates = [2024-01-01, 2024-02-31]\n"
        f"+++\n{BODY}"
    )
    found = {
        (n.line, n.message.split(", so")[0], n.message.rsplit(": ", 1)[-1])
        for n in read_issue(path).notices
        if n.code == "impossible-toml-date"
    }
    assert found == {
        (
            4,
            "'wechat.digest' is 2024-02-30, which is no real date (day is out of range for month)",
            'digest = "2024-02-30"',
        ),
        (
            5,
            "'dates[1]' is 2024-02-31, which is no real date (day is out of range for month)",
            '"2024-02-31" in that list',
        ),
    }


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x0b"])
def test_a_control_character_is_named_with_its_line(write_issue: WriteIssue, char: str) -> None:
    path = write_issue(raw=f"---\ntitle: T\nauthor: a{char}b\n---\n{BODY}")
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert caught.value.line == 3
    assert caught.value.problem == (
        f"front matter holds the control character U+{ord(char):04X}, which YAML does not "
        "allow; remove it (most editors do not show it: delete and retype the text around it)"
    )


@pytest.mark.parametrize(
    ("line", "field", "kept"),
    [
        ("title: 1.10", "title", "1.10"),
        ("title: 010", "title", "010"),
        ("title: 12:30", "title", "12:30"),
        ("title: yes", "title", "yes"),
        ("title: 2024-02-30", "title", "2024-02-30"),
        ("author: No", "author", "No"),
        ("digest: on", "digest", "on"),
        ("id: 1.10", "id", "1.10"),
        ("series: 2024", "series", "2024"),
        ("summary: 1e3", "digest", "1e3"),
    ],
)
def test_text_fields_keep_the_text_as_written(
    write_issue: WriteIssue, line: str, field: str, kept: str
) -> None:
    front = ("" if line.startswith("title:") else "title: T\n") + f"{line}\ncover: cover.jpg\n"
    issue = load_issue(write_issue(front=front, body=BODY))
    assert getattr(issue, field) == kept
    assert issue.notices == ()


@pytest.mark.parametrize(
    ("line", "series"),
    [("series: []", None), ("series: [weekly]", "weekly"), ("series: Go 入门", "Go 入门")],
)
def test_a_series_is_read_as_generators_write_it(
    write_issue: WriteIssue, line: str, series: str | None
) -> None:
    # Hugo writes its series taxonomy as a list; each of these was refused.
    issue = load_issue(write_issue(front=f"title: T\n{line}\ncover: cover.jpg\n", body=BODY))
    assert issue.series == series


def test_two_series_are_named_as_the_mistake(write_issue: WriteIssue) -> None:
    path = write_issue(front="title: T\nseries: [a, b]\ncover: cover.jpg\n", body=BODY)
    with pytest.raises(IssueError) as caught:
        load_issue(path)
    assert caught.value.line == 3 and "names more than one series" in caught.value.problem


def test_a_channel_block_keeps_its_text_and_typed_fields_keep_their_type(
    write_issue: WriteIssue,
) -> None:
    front = (
        "title: T\ncover: cover.jpg\ndraft: yes\n"
        "wechat: {title: 1.10, author: No, need_open_comment: on}\nzhihu: {column: 2024}\n"
    )
    issue = read_issue(write_issue(front=front, body=BODY))
    assert issue.settings("wechat").title == "1.10"
    assert issue.settings("wechat").author == "No"
    assert issue.settings("wechat").options["need_open_comment"] is True
    assert issue.settings("zhihu").options["column"] == "2024"
    assert issue.draft is True


def test_the_scheduler_reads_the_id_as_written(write_issue: WriteIssue) -> None:
    front, _ = read_front_matter(write_issue(front="title: T\nid: 1.10\n"))
    assert front["id"] == "1.10"


def test_a_hash_in_an_unquoted_title_warns_that_the_rest_was_cut(write_issue: WriteIssue) -> None:
    path = write_issue(front="title: iOS Weekly #349\nauthor: 老司机 #1\ncover: cover.jpg\n")
    issue = load_issue(path)
    assert (issue.title, issue.author) == ("iOS Weekly", "老司机")  # what YAML reads
    assert [(n.line, n.severity, n.message) for n in issue.notices] == [
        (
            2,
            "warning",
            "'title' was cut at ' #' (YAML reads the rest of the line as a comment), so it is "
            """'iOS Weekly'; quote the value to keep it all, e.g. title: "iOS Weekly #349\"""",
        ),
        (
            3,
            "warning",
            "'author' was cut at ' #' (YAML reads the rest of the line as a comment), so it is "
            """'老司机'; quote the value to keep it all, e.g. author: "老司机 #1\"""",
        ),
    ]


def test_comments_the_editor_meant_say_nothing(write_issue: WriteIssue) -> None:
    front = (
        "# 第349期\n"
        'title: "iOS Weekly #349"  # quoted\n'
        "author: 老司机\n"
        "# author: 别人\n"
        "digest: |\n  本期 #349 的摘要\n"
        "cover: cover.jpg  # 900×383\n"
        "source_url: https://example.com/349  # 原文\n"
    )
    issue = load_issue(write_issue(front=front, body=BODY))
    assert issue.title == "iOS Weekly #349"
    assert issue.digest == "本期 #349 的摘要"
    assert issue.notices == ()


# --- where the front matter is ----------------------------------------------------------


def test_front_matter_after_blank_lines_is_front_matter(write_issue: WriteIssue) -> None:
    issue = load_issue(
        write_issue(raw="\n\n---\ntitle: T\ncover: cover.jpg\n---\n## 小节\n" + BODY)
    )
    assert issue.title == "T"
    assert issue.line_of("title") == 4 and issue.line_of("cover") == 5
    assert issue.body == "## 小节\n" + BODY and issue.body_line == 7


@pytest.mark.parametrize(
    ("raw", "line", "problem"),
    [
        ("\n\n---\ntitle: [T\n---\n", 4, "front matter is not valid YAML"),
        ("\n \n---\ntitle: T\ntitle: U\n---\n", 5, "'title' appears twice (also on line 4)"),
        ('\n+++\ntitle = "T"\nauthor = "unclosed\n+++\n', 4, "front matter is not valid TOML"),
        ("\n\n---\ntitle: T\n", 3, "front matter is not closed; add a '---' line after it"),
    ],
)
def test_problems_after_blank_lines_name_the_right_line(
    write_issue: WriteIssue, raw: str, line: int, problem: str
) -> None:
    with pytest.raises(IssueError) as caught:
        load_issue(write_issue(raw=raw))
    assert caught.value.line == line
    assert caught.value.problem.startswith(problem)


def test_yaml_front_matter_may_end_with_dots(write_issue: WriteIssue) -> None:
    issue = load_issue(write_issue(raw="---\ntitle: T\ncover: cover.jpg\n...\n" + BODY))
    assert issue.title == "T"
    assert issue.body == BODY and issue.body_line == 5


@pytest.mark.parametrize(
    "text",
    [
        "\n---\n\nUpdate: 今天发布了新版本。\n\n---\n# 标题\n",
        "\n\n---\n\n正文\n\n---\n",
        "\u3000\n---\ntitle: 不是\n---\n正文\n",
    ],
)
def test_a_body_that_opens_with_a_rule_after_blank_lines_stays_a_body(text: str) -> None:
    data, _, body, body_line = split_front_matter(Path("issue.md"), text)
    assert (data, body, body_line) == ({}, text, 1)
    assert not opens_front_matter(text.encode())


def test_hexo_front_matter_indented_with_tabs_is_read_as_hexo_reads_it(tmp_path: Path) -> None:
    # Hexo reads a tab in an indent as two spaces; YAML refuses it, and so did every
    # command, for every post of a blog moved from Hexo.
    path = tmp_path / "issue.md"
    path.write_text("---\ntitle: 迁移\ntags:\n\t- Linux\n\t- C\n---\n正文。\n", "utf-8")
    issue = read_issue(path)
    assert issue.title == "迁移"
    assert issue.settings("zhihu").options["topics"] == ("Linux", "C")
    (said,) = [n for n in issue.notices if n.code == "front-matter-tab"]
    assert (said.line, said.severity) == (4, "warning")
    assert "two spaces" in said.message


def test_front_matter_that_still_does_not_parse_is_an_error_render_reads_past(
    tmp_path: Path,
) -> None:
    path = tmp_path / "issue.md"
    path.write_text("---\ntitle: [坏\n---\n# 标题\n\n正文。\n", "utf-8")
    with pytest.raises(IssueError, match="front matter is not valid YAML"):
        read_issue(path)  # check and publish: the one line, as before
    issue = read_issue(path, lenient=True)
    assert issue.title == "标题" and "正文。" in issue.body
    assert [(n.code, n.severity) for n in issue.notices] == [("front-matter", "error")]


def test_a_pelican_metadata_header_is_front_matter(tmp_path: Path) -> None:
    # This Week in Rust writes every issue so: the header was the first paragraph on both
    # channels and the title the file's name.
    path = tmp_path / "2022-02-16-this-week-in-rust.md"
    header = "Title: This Week in Rust 430\nDate: 2022-02-16\nTags: rust, weekly\nStatus: draft\n"
    path.write_text(header + "\nHello *world*.\n", "utf-8")
    issue = read_issue(path)
    assert (issue.title, issue.body, issue.body_line) == (
        "This Week in Rust 430",
        "Hello *world*.\n",
        6,
    )
    assert issue.dates == {"date": "2022-02-16"} and issue.draft
    assert issue.settings("zhihu").options["topics"] == ("rust", "weekly")
    assert issue.notices == ()


def test_a_first_line_that_only_looks_like_metadata_stays_in_the_body(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    path.write_text("Title: 一句话\n这一行不是元数据，是正文\n", "utf-8")
    issue = read_issue(path)
    assert issue.body.startswith("Title: 一句话") and issue.title == "issue"


@pytest.mark.parametrize(
    ("written", "author"),
    [
        ("author: [Ada, Bob]", "Ada, Bob"),
        ("author:\n  - name: Jixing Liu\n    url: https://e.com\n  - name: Bob", "Jixing Liu, Bob"),
        ("authors: [张三, 李四]", "张三、李四"),
        ("author: {name: Ada}", "Ada"),
    ],
)
def test_authors_written_as_a_list_are_joined_on_one_line(
    write_issue: WriteIssue, written: str, author: str
) -> None:
    # Hugo's, Jekyll's, Docusaurus's and distill's lists of authors were an error.
    issue = read_issue(write_issue(raw=f"---\ntitle: T\n{written}\n---\n{BODY}"))
    assert issue.author == author
    assert not [n for n in issue.notices if n.severity == "error"]


def test_another_tools_field_whose_value_is_not_ours_is_a_warning(
    write_issue: WriteIssue,
) -> None:
    # MDN's slug: a path, no id; the whole issue was refused for it.
    path = write_issue(raw=f"---\ntitle: T\nslug: Web/HTML/Element/aside\n---\n{BODY}")
    issue = load_issue(path)
    assert issue.id == default_issue_id(path)
    (said,) = [n for n in issue.notices if n.code == "alias-ignored"]
    assert (said.line, said.severity) == (3, "warning")
    assert said.message == (
        "'slug' 'Web/HTML/Element/aside' may only hold letters, digits, '.', '_' and '-', "
        "so it is not used as the id; set 'id:' if needed"
    )


def test_a_cms_publication_date_is_kept_for_the_record_without_a_guess(tmp_path: Path) -> None:
    issue_file = tmp_path / "ghost.md"
    issue_file.write_text(
        "---\ntitle: 一期\npublished_at: 2024-05-01T08:00:00.000Z\nupdatedAt: 2024-05-02\n"
        "---\n正文\n",
        encoding="utf-8",
    )
    issue = load_issue(issue_file)
    assert issue.publish_at is None
    assert set(issue.dates) == {"published_at", "updatedAt"}
    assert not [n for n in issue.notices if "publish_at" in n.message]
