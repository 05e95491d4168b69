"""Documents as other writing tools export them: a Jupyter notebook through ``nbconvert``,
a Google Doc downloaded as Markdown, MkDocs Material's snippets and carets, HackMD's
notes, front matter pasted from a web page. Each case is what the tool writes; the
assertions are what a reader of each channel sees and the line ``check`` prints."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

from PIL import Image

from crosspost.issue.loader import read_issue
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, CheckLines, shown, words

# --- Jupyter: nbconvert --to markdown ------------------------------------------------------

#: A cell's coloured output as nbconvert writes it: the terminal's codes kept.
NOTEBOOK = (
    "```python\nlogging.warning('慢')\n```\n\n"
    "    \x1b[33mWARNING\x1b[0m:root:慢\n"
    "    \x1b[1;31mError\x1b[0m \x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\ done\n"
)


def test_a_notebooks_coloured_output_shows_its_words_without_the_colour_codes(
    body_warnings: BodyWarnings,
) -> None:
    # Only the ESC was left out: '[33mWARNING[0m:root:慢' was shown on both channels.
    for channel in CHANNELS:
        out = words(shown(NOTEBOOK, channel)).replace("&nbsp;", " ")
        assert "WARNING:root:慢" in out and "Error link done" in out, channel
        assert "[0m" not in out and "[33m" not in out and "8;;" not in out, channel
    assert body_warnings(NOTEBOOK) == [
        "issue.md:8: warning: 8 invisible control characters (U+001B) on lines 8, 9 left "
        "out of every channel, with the terminal codes they begin ('[33m') (a form feed "
        "shown as a space; text pasted from a terminal or another program?); delete them "
        "from the file"
    ]


def test_an_escape_with_no_terminal_code_after_it_leaves_the_words_beside_it() -> None:
    out = shown("| a\x1b | b |\n|---|---|\n| c\x1b[ d | e |\n", "zhihu")
    assert "<th>a</th><th>b</th>" in out and "<td>c[ d</td>" in out


# --- Google Docs: File > Download > Markdown ----------------------------------------------


def _png_data_uri(size: tuple[int, int]) -> str:
    picture = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    buffer = io.BytesIO()
    picture.save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_a_google_docs_picture_of_megabytes_is_named_in_a_short_line(
    check_lines: CheckLines,
) -> None:
    # Google Docs writes every picture as a data: URI defined at the end; a message
    # about one of 4 MB quoted all of it, one line of 5.6 million characters.
    uri = _png_data_uri((1400, 1000))
    document = (
        "---\ntitle: 谷歌文档\n---\n\n这是第一段 \\- 带转义的连字符和 \\*星号\\*。\n\n"
        f"![][image1]\n\n坏图 ![][image2]\n\n[image1]: <{uri}>\n\n"
        "[image2]: <data:image/png;base64,AAAA!!notbase64>\n"
    )
    lines = check_lines(document)
    assert max(len(line) for line in lines) < 300
    assert (
        "issue.md:7: [wechat] warning: image 'data:image/png;base64,iVBORw0KGgoAAAAN…' is "
        "4.0 MB, wechat takes 1 MB for PNG; it will be re-encoded smaller"
    ) in lines
    assert (
        "issue.md:9: error: image 'data:image/png;base64,AAAA!!notbase64' is a broken data: URI; "
        "encode the image again or link a file"
    ) in lines


# --- front matter copied from a web page or a chat -----------------------------------------


def test_a_no_break_space_after_a_fields_colon_is_read_as_a_space(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    # YAML refused 'title:\u00a0…': render lost the title, check named line 4.
    front = "title:\u00a0本周动态\nauthor:\u3000张三\ndigest: 第\u00a0一\ntags:\n\u00a0 - a\n"
    path = tmp_path / "copied.md"
    path.write_text(f"---\n{front}---\n\n正文正文正文正文正文正文正文。\n", "utf-8")
    issue = read_issue(path)
    assert (issue.title, issue.author, issue.digest) == ("本周动态", "张三", "第\u00a0一")
    lines = check_lines(f"---\n{front}---\n\n正文正文正文正文正文正文正文。\n")
    assert lines[1] == (
        "issue.md:2: warning: front matter has a no-break or full-width space where YAML "
        "needs a plain one (text copied from a web page or a chat?): read as a plain space; "
        "retype it as one"
    )
    assert not any("not valid YAML" in line for line in lines)


# --- MkDocs Material ----------------------------------------------------------------------


def _issue_in(folder: Path, body: str, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, "utf-8")
    path = folder / "issue.md"
    path.write_text(f"---\ntitle: 文档\n---\n{body}", "utf-8")
    return path


SNIPPETS = {
    "includes/note.md": "共享的**说明**。\n",
    "src/example.py": "import os\n# --8<-- [start:func]\ndef f():\n    return 1\n"
    "# --8<-- [end:func]\n",
}


def test_a_snippet_is_the_text_of_the_file_it_names(tmp_path: Path) -> None:
    # PyMdown's Snippets: the lines went out as written and the files' text nowhere.
    body = (
        '\n开头。\n\n--8<-- "includes/note.md"\n\n--8<--\nincludes/note.md\n--8<--\n\n'
        '```python\n--8<-- "src/example.py:func"\n```\n\n;--8<-- "shown.md"\n'
    )
    issue = read_issue(_issue_in(tmp_path, body, SNIPPETS))
    zhihu = render(issue, "zhihu", RenderContext()).body
    assert zhihu.count("共享的<b>说明</b>。") == 2
    assert '<pre lang="python">def f():\n    return 1</pre>' in zhihu and "import os" not in zhihu
    assert "--8&lt;-- &quot;shown.md&quot;" in zhihu and "includes/note.md" not in zhihu
    wechat = words(render(issue, "wechat", RenderContext()).body)
    assert "说明" in wechat and "--8&lt;--" in wechat and "includes/" not in wechat


def test_a_snippet_whose_file_is_not_beside_the_issue_is_named(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    document = '---\ntitle: 文档\n---\n\n正文正文正文正文正文正文。\n\n--8<-- "includes/abbr.md"\n'
    assert (
        "issue.md:7: warning: '--8<-- \"includes/abbr.md\"' is a MkDocs snippet, but "
        "includes/abbr.md is not in the issue's folder, so nothing is included there; put "
        "the file beside the issue, or paste its text in place of the line"
    ) in check_lines(document)
    for channel in CHANNELS:
        assert "8&lt;" not in shown('\n--8<-- "includes/abbr.md"\n', channel)


def test_a_snippet_is_read_as_a_content_blocks_file_is_and_one_unreadable_is_named(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    # A snippet in UTF-16 (Notepad's "Unicode") or with a BOM was left out, named a file
    # "not in the issue's folder", though it was there; a GBK one the same.
    (tmp_path / "includes").mkdir()
    (tmp_path / "includes" / "wide.md").write_bytes("共享的**说明**。\r\n".encode("utf-16"))
    (tmp_path / "includes" / "marked.md").write_bytes("带标记的说明。\n".encode("utf-8-sig"))
    (tmp_path / "includes" / "gbk.md").write_bytes("notes\n国标编码的说明。\n".encode("gbk"))
    (tmp_path / "gbk.md").write_bytes("国标编码的内容块。\n".encode("gbk"))
    body = (
        '\n正文正文正文正文正文正文。\n\n--8<-- "includes/wide.md"\n\n'
        '--8<-- "includes/marked.md"\n\n--8<-- "includes/gbk.md"\n\n/gbk.md\n\n'
        '```text\n--8<-- "includes/gbk.md"\n```\n'
    )
    issue = read_issue(_issue_in(tmp_path, body, {}))
    for channel in CHANNELS:
        seen = words(render(issue, channel, RenderContext()).body)
        assert "共享的说明。" in seen and "带标记的说明。" in seen, channel
        assert "国标编码" not in seen and "/gbk.md" in seen, channel
    document = f"---\ntitle: 文档\n---\n{body}"
    said = [line for line in check_lines(document) if "UTF-8" in line]
    assert said == [
        "issue.md:11: warning: '--8<-- \"includes/gbk.md\"' is a MkDocs snippet, but "
        "includes/gbk.md is not UTF-8 text (its line 2); save it as UTF-8 (most editors: "
        "'Save with encoding'); nothing is included there until then",
        "issue.md:13: warning: '/gbk.md' is a content block, but gbk.md is not UTF-8 text "
        "(its line 1); save it as UTF-8 (most editors: 'Save with encoding'); until then "
        "the line is shown as it is",
        "issue.md:16: warning: '--8<-- \"includes/gbk.md\"' is a MkDocs snippet, but "
        "includes/gbk.md is not UTF-8 text (its line 2); save it as UTF-8 (most editors: "
        "'Save with encoding'); nothing is included there until then",
    ]


def test_carets_around_words_are_inserted_text_and_one_caret_superscript() -> None:
    zhihu = shown("^^插入^^ 和 ^^insert me^^，x^2^。\n", "zhihu")
    assert "<u>插入</u> 和 <u>insert me</u>，x²。" in zhihu
    assert "^^" not in words(shown("^^插入^^\n", "wechat"))
    assert shown("谢谢^^下次见^^\n", "zhihu") == "<p>谢谢^^下次见^^</p>"  # smiles, no marks


# --- HackMD (CodiMD) ----------------------------------------------------------------------


def test_hackmds_quote_tags_are_the_quotes_credit() -> None:
    body = "> 先把接口定下来 [name=张三] [time=Sun, Jun 28, 2015 9:59 PM] [color=#907bf7]\n"
    for channel in CHANNELS:
        out = words(shown(body, channel))
        assert "先把接口定下来 —— 张三 · Sun, Jun 28, 2015 9:59 PM" in out, channel
        assert "[name=" not in out and "907bf7" not in out, channel
    outside = "选择器 `a[name=x]` 与 [name=y] 照写。\n> 代码 `[name=z]`\n"
    assert "[name=y]" in words(shown(outside, "zhihu")) and "[name=z]" in shown(outside, "zhihu")


def test_hackmds_fence_marks_spoiler_and_embeds(body_warnings: BodyWarnings) -> None:
    body = (
        "```javascript=\nvar a = 1;\n```\n\n```python=101\npass\n```\n\n```js=+\nb();\n```\n\n"
        ":::spoiler 点我展开\n藏起来的内容\n:::\n\n"
        "{%slideshare briansolis/26-disruption-trends %}\n\n"
        "{%speakerdeck sugarenia/xxlcss %}\n\n{%pdf https://example.com/a.pdf %}\n"
    )
    zhihu = shown(body, "zhihu")
    assert zhihu.startswith(
        '<pre lang="javascript">var a = 1;</pre><pre lang="python">pass</pre>'
        '<pre lang="javascript">b();</pre>'
    )
    assert "<blockquote><b>点我展开</b><br>藏起来的内容</blockquote>" in zhihu
    assert '<a href="https://www.slideshare.net/briansolis/26-disruption-trends">' in zhihu
    assert '<a href="https://speakerdeck.com/sugarenia/xxlcss">' in zhihu
    assert '<a href="https://example.com/a.pdf">' in zhihu and "{%" not in zhihu
    assert not any("spoiler" in line or "template tag" in line for line in body_warnings(body))
