"""Ordinary newsletter text that happens to hold another tool's marks: a formula's
``f^{2}(x)`` or norm ``||v||`` (Ulysses's annotation, Discord's spoiler), a code sample of
reST's links, a "cut here" ``--8<--`` around a passage or in a code sample of MkDocs
(PyMdown's Snippets), a citation's ``[1]`` after an address (AsciiDoc's link). Each is
shown as the writer wrote it, and ``check`` says nothing wrong of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rendering import CHANNELS, BodyWarnings, CheckLines, shown, words


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        # Ulysses's annotation '{words}(note)': its note was left out of the formula.
        ("函数 $f^{2}(x) = x$ 成立。\n", "f^{2}(x)"),
        ("比值 $\\frac{a}{b}(c+d)$ 如上。\n", "\\frac{a}{b}(c+d)"),
        ("$$\nx^{n}(1-x)\n$$\n", "x^{n}(1-x)"),
        ("无美元号的 \\frac{a}{b}(c) 写法。\n", "\\frac{a}{b}(c)"),
        # Discord's spoiler '||words||': a norm's bars were taken off.
        ("范数 $||v|| + ||w||$ 较小。\n", "||v|| + ||w||"),
    ],
)
def test_a_formula_keeps_the_marks_other_tools_read(body: str, kept: str) -> None:
    for channel in CHANNELS:
        assert kept in shown(body, channel).replace("&amp;", "&"), channel


def test_a_formula_is_named_by_no_warning(body_warnings: BodyWarnings) -> None:
    assert body_warnings("函数 $f^{2}(x)$ 与范数 $||v||$。\n") == []


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        # Discord's spoiler '||words||': the operands of a logical "or" lost their bars.
        ("布尔运算 a || b 与 x||y 都是或。\n", "a || b 与 x||y"),
        ("用 cmd1 || cmd2 兜底，或写 a ||b 以及 c|| d。\n", "a ||b 以及 c|| d"),
        ("C 里 if (a||b) return ||c|| 也照写，p ||= q。\n", "return ||c|| 也照写"),
        # Ulysses's annotation '{words}(note)': code written in prose lost its argument.
        ("Go 的泛型写成 {T any}(x) 这样。\n", "{T any}(x)"),
        ("集合 {a, b}(c) 与 {x}(y, z) 照写。\n", "{a, b}(c) 与 {x}(y, z)"),
        ("立即调用 function(){ return x }(y) 照写。\n", "{ return x }(y)"),
    ],
)
def test_code_written_in_prose_keeps_the_marks_other_tools_read(
    body: str, kept: str, body_warnings: BodyWarnings
) -> None:
    for channel in CHANNELS:
        assert kept in words(shown(body, channel)).replace("&amp;", "&"), channel
    assert body_warnings(body) == []


def test_a_code_sample_of_rest_links_and_roles_shows_them_as_written() -> None:
    # The code span showed '[Python](<https://python.org>)' and '{ref}`setup`'.
    body = "Sphinx 写作 `` `Python <https://python.org>`_ `` 和 `` :ref:`setup` ``。\n"
    for channel in CHANNELS:
        seen = words(shown(body, channel)).replace("&lt;", "<").replace("&gt;", ">")
        assert "`Python <https://python.org>`_" in seen, channel
        assert ":ref:`setup`" in seen, channel


def test_a_cut_here_mark_around_a_passage_keeps_the_passage(
    body_warnings: BodyWarnings,
) -> None:
    # The passage's lines were read as file names: left out, each named a missing snippet.
    body = "剪下来：\n\n--8<--\n这一段是剪下来的内容。\n--8<--\n"
    for channel in CHANNELS:
        assert "这一段是剪下来的内容。" in shown(body, channel), channel
    assert body_warnings(body) == []


def test_a_snippet_line_in_a_code_sample_of_mkdocs_is_shown_when_no_file_is_there(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    # The line was taken out of the code sample, and check warned of a missing file.
    body = '```markdown\n--8<-- "includes/abbreviations.md"\n```\n'
    for channel in CHANNELS:
        seen = words(shown(body, channel)).replace("&nbsp;", " ").replace("&quot;", '"')
        assert '--8&lt;-- "includes/abbreviations.md"' in seen, channel
    document = "---\ntitle: 文档\n---\n\n正文正文正文正文正文正文。\n\n" + body
    assert [line for line in check_lines(document) if "snippet" in line] == [
        "issue.md:8: note: '--8<-- \"includes/abbreviations.md\"' in a code block names no "
        "file in the issue's folder, so it is shown as written (a code sample of MkDocs's "
        "snippets?); put the file beside the issue if it was meant to include it"
    ]


def test_a_citation_mark_after_an_address_is_not_its_words() -> None:
    # AsciiDoc's 'https://x.org[words]' made '[1]' the link's words, the address hidden.
    body = "见 https://example.com[1] 与 link:https://e.com[2]。\n"
    for channel in CHANNELS:
        assert "https://example.com[1]" in words(shown(body, channel)), channel
    assert '<a href="https://e.com">2</a>' in shown(body, "zhihu")


def test_full_width_spaces_that_open_a_front_matter_value_are_no_warning(
    check_lines: CheckLines,
) -> None:
    # A digest indented as a Chinese paragraph, 'digest: \u3000\u3000本期…', is YAML as it
    # is; it was called a no-break space where YAML needs a plain one.
    front = "title: 第48期\ndigest: \u3000\u3000本期首行缩进\n"
    document = f"---\n{front}---\n\n正文正文正文正文正文。\n"
    assert not [line for line in check_lines(document) if "front matter" in line]
