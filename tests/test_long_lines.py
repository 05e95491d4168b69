"""Documents with one very long line (minified HTML, a base64 picture, a paragraph of
Chinese with no newline, thousands of links, a wide ``|``-table, a line thick with marks,
JSON on one line): each channel keeps what the line holds, and check names what it finds
on that line once, with the right line number.

How fast they render is measured in ``bench/bench_long_lines.py``, never asserted here;
the helpers that made it linear are checked against what they replaced.
"""

from __future__ import annotations

import html
import json
import random
import re

import pytest

from crosspost.issue.blocks import in_code_span, line_at, line_bounds, within
from crosspost.patterns import ClosedOnItsLine
from rendering import CHANNELS, CheckLines, shown, words

ROWS = 1_500  # ~50 KB of HTML on one line


def one_line(line: str) -> str:
    """A body whose third line is ``line``."""
    return f"开头。\n\n{line}\n\n结尾。\n"


def seen(body: str, channel: str) -> str:
    """What a reader of ``channel`` reads: the text, tags left out, entities read."""
    return html.unescape(words(shown(body, channel)))


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_table_of_many_rows_on_one_line_keeps_every_row(channel: str) -> None:
    rows = "".join(f"<tr><td>{k}</td><td>第{k}行</td></tr>" for k in range(ROWS))
    text = seen(one_line(f"<table><tbody>{rows}</tbody></table>"), channel)
    assert re.findall(r"第(\d+)行", text) == [str(k) for k in range(ROWS)]
    assert (
        text.index("开头")
        < text.index("第0行")
        < text.index(f"第{ROWS - 1}行")
        < text.index("结尾")
    )


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_paragraph_of_chinese_without_a_newline_is_kept_whole(channel: str) -> None:
    paragraph = "".join(f"第{k}句话说完了。" for k in range(8_000))  # ~100 KB
    assert paragraph in seen(one_line(paragraph), channel)


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_line_of_thousands_of_links_keeps_each_link(channel: str) -> None:
    """Zhihu links each; WeChat, which links nowhere outside, lists each address."""
    line = " ".join(f"[链接{k}](https://example.com/a/{k})" for k in range(3_000))
    out = shown(one_line(line), channel)
    found = r'href="https://example\.com/a/(\d+)"' if channel == "zhihu" else r"a/(\d+)\b"
    assert re.findall(found, html.unescape(words(out)) if channel == "wechat" else out) == [
        str(k) for k in range(3_000)
    ]


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_pipe_table_of_long_rows_keeps_every_cell(channel: str) -> None:
    width = 1_000
    header = "| " + " | ".join(f"列{k}" for k in range(width)) + " |"
    rule = "|" + "|".join("---" for _ in range(width)) + "|"
    row = "| " + " | ".join(f"*值{k}*" for k in range(width)) + " |"
    text = seen(one_line(f"{header}\n{rule}\n{row}"), channel)
    assert re.findall(r"列(\d+)", text) == [str(k) for k in range(width)]
    assert re.findall(r"值(\d+)", text) == [str(k) for k in range(width)]


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_json_code_block_on_one_line_is_shown_as_written(channel: str) -> None:
    data = [{"id": k, "tags": ["b<c>", "{x}", "a|b"]} for k in range(2_000)]
    written = json.dumps(data, ensure_ascii=False)
    text = seen(f"开头。\n\n```json\n{written}\n```\n", channel)
    assert written in text.replace("\xa0", " ")  # WeChat keeps code's spaces as no-break ones


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_base64_picture_keeps_its_address(channel: str) -> None:
    rng = random.Random(7)
    payload = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789+/") for _ in range(60_000)
    )
    out = shown(one_line(f"![截图](data:image/png;base64,iVBORw0KGgo{payload}==)"), channel)
    assert f"data:image/png;base64,iVBORw0KGgo{payload}==" in out


def test_check_names_a_template_tag_on_a_line_of_many_unclosed_braces_once(
    check_lines: CheckLines,
) -> None:
    """The first ``{%`` and ``{{`` run to the closings at the line's end: one finding each."""
    line = "a {{b {% c {{< d " * 600 + "{% if x %}y{% endif %} {{ site.title }}"
    document = "---\ntitle: 长行\n---\n开头。\n\n" + line + "\n"
    said = [found for found in check_lines(document) if "template" in found]
    assert len(said) == 2, said
    assert ".md:6: warning: '{% c {{< d a {{b" in said[0]
    assert "' is a Jekyll or Hexo template tag, not Markdown" in said[0]
    assert ".md:6: warning: '{{b {% c {{< d" in said[1]
    assert "' is a static-site template variable" in said[1]


def test_check_gives_each_full_width_link_of_a_long_line_that_line(
    check_lines: CheckLines,
) -> None:
    line = "看【官方】（https://example.com/a）。" * 500
    document = (
        "---\ntitle: 长行\n---\n开头。\n\n"
        + line
        + "\n\n下一段【另一个】（https://example.com/b）\n"
    )
    said = [found for found in check_lines(document) if "read as a link" in found]
    assert [re.search(r"\.md:(\d+): ", found).group(1) for found in said] == ["6"] * 500 + ["8"]


@pytest.mark.parametrize("channel", CHANNELS)
def test_myst_roles_are_read_on_a_line_of_many_braces(channel: str) -> None:
    line = "{x} {a}b " * 5_000 + "{sub}`2` 与 {sup}`3`"
    out = shown(one_line(line), channel)
    assert "2 与 3" in words(out)  # each role read: its content shown
    assert out.count("{x}") == 5_000


# The helpers the rules now read offsets by, against what they replaced.

TEXTS = ["", "a", "\n", "a`b`\nc`d", "``\n\n`x`y\n", "`a\nb`c`\n`" * 3, "x\ny\nz" * 5]


@pytest.mark.parametrize("text", TEXTS)
def test_offsets_read_by_binary_search_say_what_counting_said(text: str) -> None:
    for at in range(len(text) + 1):
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        assert line_at(text, at) == text.count("\n", 0, at)
        assert line_bounds(text, at) == (start, end if end >= 0 else len(text))
        assert in_code_span(text, at) == (text.count("`", start, at) % 2 == 1)


def test_within_tells_offsets_inside_overlapping_spans() -> None:
    spans = [(5, 9), (0, 2), (7, 12), (20, 20), (15, 16)]
    inside = within(spans)
    for at in range(25):
        assert inside(at) == any(start <= at < end for start, end in spans), at


OPENINGS_AND_CLOSINGS = [
    (r"\{\{(?!\s*[A-Za-z_]\w*\([^(){}]*\)\s*\}\})[^<%/]", r"\}\}"),
    (r"(?<!\{)\{%(?!\s*end\s*%\})", r"%\}(?!\})"),
    (r"\{\{(?:%|<)", r"[>%]\}\}"),
]


@pytest.mark.parametrize(("opening", "closing"), OPENINGS_AND_CLOSINGS)
def test_a_pattern_closed_on_its_line_finds_what_re_finds(opening: str, closing: str) -> None:
    closed = ClosedOnItsLine(opening, closing)
    plain = re.compile(closed.pattern)
    rng = random.Random(opening)
    pieces = ["{", "}", "{{", "}}", "{%", "%}", "%", "<", ">", "\n", " ", "a", "end", "(", ")"]
    for _ in range(3_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(30)))
        assert [m.span() for m in closed.finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ], text
