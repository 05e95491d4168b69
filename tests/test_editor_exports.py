"""Raw HTML other editors export, read as what it shows: Feishu's callouts, quotes and
columns, an email's layout tables and hidden preheader, a video site's player. What
each channel shows is pinned by the fixture files (``tests/render/fixtures``); these
cases pin how the issue is read and what ``check`` says, at the line the editor wrote."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from crosspost.issue.dialect import parse_document

#: The ``check_lines`` fixture (conftest.py): every line check prints for a document.
CheckLines = Callable[[str], list[str]]


def kinds(body: str) -> list[tuple[str, object]]:
    """The block tokens of ``body``: each one's type, and a callout's kind and title."""
    return [
        (t.type, (t.meta["kind"], t.meta["title"]) if t.type == "callout_open" else t.map)
        for t in parse_document(body).tokens
        if t.type != "inline"
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # One line; its emoji says its kind, and is its title.
        (
            '<callout emoji="⚠️">下周三 22:00 维护</callout>\n',
            [("callout_open", ("warning", "⚠️")), ("paragraph_open", [0, 1]),
             ("paragraph_close", None), ("callout_close", None)],
        ),
        # Markdown right under the tag, and the closing tag after the last words.
        (
            '<callout emoji="🌈" background-color="light-green">\n**重点**\n- 一\n</callout>\n',
            [("callout_open", ("tip", "🌈")), ("paragraph_open", [1, 2]),
             ("paragraph_close", None), ("bullet_list_open", [2, 4]),
             ("list_item_open", [2, 4]), ("paragraph_open", [2, 3]),
             ("paragraph_close", None), ("list_item_close", None),
             ("bullet_list_close", None), ("callout_close", None)],
        ),
        # No emoji (or its name): the kind's label.
        (
            '<callout emoji="warning">注意</callout>\n',
            [("callout_open", ("warning", "注意")), ("paragraph_open", [0, 1]),
             ("paragraph_close", None), ("callout_close", None)],
        ),
        (
            "<quote-container>\n一\n\n二\n</quote-container>\n",
            [("blockquote_open", [0, 5]), ("paragraph_open", [1, 2]), ("paragraph_close", None),
             ("paragraph_open", [3, 4]), ("paragraph_close", None), ("blockquote_close", None)],
        ),
        # Columns on the lines of their neighbours' tags: each column's Markdown in turn.
        (
            '<grid cols="2"><column>**甲**\n- 1\n</column><column>**乙**\n</column></grid>\n',
            [("paragraph_open", [0, 1]), ("paragraph_close", None),
             ("bullet_list_open", [1, 3]), ("list_item_open", [1, 3]),
             ("paragraph_open", [1, 2]), ("paragraph_close", None),
             ("list_item_close", None), ("bullet_list_close", None),
             ("paragraph_open", [2, 3]), ("paragraph_close", None)],
        ),
        # Words after the last column's tag on its line are read too.
        (
            "<column>a</column><column>b</column> c\n",
            [("paragraph_open", [0, 1]), ("paragraph_close", None)] * 3,
        ),
        # A tag in a code block closes nothing; a block never closed is HTML, as before.
        (
            '<callout emoji="x">\n```\n</callout>\n```\n',
            [("html_block", [0, 1]), ("fence", [1, 4])],
        ),
    ],
)  # fmt: skip
def test_feishus_blocks_are_read_as_what_they_draw(
    body: str, expected: list[tuple[str, object]]
) -> None:
    assert kinds(body) == expected


def test_check_never_advises_escaping_a_feishu_element(check_lines: CheckLines) -> None:
    document = (
        "---\ntitle: 飞书\n---\n"
        '<callout emoji="💡">\n**重点**\n</callout>\n\n'
        '<grid cols="2">\n<column width="50">\n甲\n</column>\n</grid>\n\n'
        '<text color="red">红色文字</text> <mention-user id="ou_1">李四</mention-user>'
        ' <mention-doc token="doxcn1" type="docx">Q3 规划</mention-doc>\n\n'
        '<callout emoji="⚠️">从未结束\n'
    )
    said = [line for line in check_lines(document) if not line.startswith("issue.md:1:")]
    assert not any("escape the bracket" in line for line in said), said
    assert said == [
        "issue.md:8: note: Feishu's columns (<grid>) are shown one after another on every "
        "channel, as a phone shows them: each column's content in turn",
        "issue.md:14: warning: '<text>' is Feishu's coloured or highlighted text: every "
        "channel shows its words, without the colour; if the colour says something, make "
        "the words bold (**…**) or say it in words",
        "issue.md:14: warning: '<mention-doc>' is a link to a Feishu document, named by its "
        "token, not a web address: every channel shows its title alone; link the title to "
        "the document's address ([title](https://…)) if readers need it",
        "issue.md:14: note: '<mention-user>' is a mention of a person in Feishu: every "
        "channel shows the name as plain text (the person's Feishu profile is not linked)",
        "issue.md:16: warning: '<callout>' opens a block of Feishu's that is never closed "
        "(no '</callout>'), so it is not read as one: every channel leaves the tag out and "
        "shows what follows it as plain text; add '</callout>' where the block ends",
    ]


def test_check_says_no_picture_of_an_email_layout_moves_after_its_table(
    check_lines: CheckLines,
) -> None:
    # A picture alone in a table's cell is an email's layout: shown where it was on Zhihu
    # too, so check no longer says it follows the table; one in a table of data does.
    document = (
        "---\ntitle: 邮件\n---\n"
        '<table class="mcnImageBlock"><tbody><tr>\n<td class="mcnImageContent">\n'
        '<img src="https://example.com/shot.png" alt="截图">\n</td></tr></tbody></table>\n\n'
        "<table><tr><th>图</th><th>说明</th></tr>\n"
        '<tr><td><img src="https://example.com/a.png"></td><td>甲</td></tr></table>\n'
    )
    moved = [line for line in check_lines(document) if "shown after the table" in line]
    assert moved == [
        "issue.md:10: [zhihu] warning: zhihu's table cells hold plain text: the image in this "
        "cell is shown after the table, and the cell says its words and '（图见表后）'"
    ]


def test_check_says_hidden_words_are_left_out_at_their_line(check_lines: CheckLines) -> None:
    document = (
        "---\ntitle: 隐藏\n---\n"
        '<div style="display:none;max-height:0;overflow:hidden">本期预览：三篇好文</div>\n\n'
        "正文 <span hidden>也藏</span> 可见。\n\n"
        '<p style="display:none"><img src="https://example.com/pixel.gif"></p>\n'
    )
    said = [line for line in check_lines(document) if "hidden" in line]
    assert said == [
        "issue.md:4: warning: '<div>' is hidden on its page (display:none, visibility:hidden "
        "or the hidden attribute), as an email's preheader is, so every channel leaves it "
        "out with its words ('本期预览：三篇好文'); remove what hides it if readers should "
        "see them, or delete it from the issue to silence this",
        "issue.md:6: warning: '<span>' is hidden on its page (display:none, visibility:hidden "
        "or the hidden attribute), as an email's preheader is, so every channel leaves it "
        "out with its words ('也藏'); remove what hides it if readers should see them, or "
        "delete it from the issue to silence this",
    ]


def test_check_calls_a_video_sites_player_the_video_its_line_says(
    check_lines: CheckLines,
) -> None:
    # Shown as '▶ 视频' linking to the video's page, but check called it an embedded page.
    document = (
        "---\ntitle: 视频\n---\n"
        '<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0"></iframe>\n\n'
        '<iframe src="https://example.com/widget"></iframe>\n'
    )
    said = [line for line in check_lines(document) if "[wechat]" in line and "play" in line]
    assert said == [
        "issue.md:4: [wechat] warning: a video (a video site's player, in an <iframe>) cannot "
        "play on wechat; it is shown as the line '▶ 视频' linking to the video's page",
        "issue.md:6: [wechat] warning: an embedded page (<iframe>, a gist's <script>, or a "
        "site's embed tag) cannot play on wechat; it is shown as a line linking to its source",
    ]
