"""What the last sweeps left and three more sources: MkDocs's Markdown in HTML in a tight
list, an AsciiDoc block never closed, a newsletter condition's else and end, Ulysses's
comments and annotations, PyMdown's ``^^^x^^^``, MDX's one-line component, a progress
bar's carriage returns, a Telegram channel's export through ``crosspost import``, and an
Obsidian Canvas passed by mistake. Each case is what the tool writes; the assertions are
what a reader of each channel sees and the line ``check`` (or ``import``) prints."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from crosspost.cli import main
from crosspost.errors import IssueError
from crosspost.importers.telegram import import_telegram
from crosspost.issue.loader import load_issue, read_issue
from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, CheckLines, shown, words

FIXTURES = Path(__file__).parent / "importers" / "fixtures"


def _lines(html: str) -> str:
    """The text a reader sees, a line break where the page breaks the line."""
    return words(re.sub(r"<br>|</p>|</li>|</section>", "\n", html)).replace("&nbsp;", " ")


# --- MkDocs: md_in_html in a tight list ---------------------------------------------------


def test_markdown_inside_html_in_a_tight_list_item_is_a_line_of_its_own() -> None:
    # WeChat ran the element's words into the item's: '第一项说明Fast 内容'.
    body = "- 第一项说明\n  <div markdown>\n  **Fast** 内容\n  </div>\n- 第三项\n"
    plain = "- 说明\n  <div>\n  内容\n  </div>\n  后来\n- x\n"  # as old as WeChat's lists
    for channel in CHANNELS:
        assert "第一项说明\nFast 内容" in _lines(shown(body, channel)), channel
        assert "说明\n内容\n后来" in _lines(shown(plain, channel)), channel


# --- AsciiDoc: a block never closed ------------------------------------------------------------


def test_an_asciidoc_block_never_closed_runs_to_the_end_as_asciidoctor_reads_it(
    body_warnings: BodyWarnings,
) -> None:
    # '[NOTE]' and '先读这个。' were two headings, and nothing said why.
    body = "前言。\n\n[NOTE]\n====\n先读这个。\n\n第二段。\n"
    zhihu = shown(body, "zhihu")
    assert zhihu == "<p>前言。</p><blockquote><b>注</b><br>先读这个。<br>第二段。</blockquote>"
    assert "<h" not in shown(body, "wechat")
    assert body_warnings(body) == [
        "issue.md:6: warning: the AsciiDoc block '[NOTE]' opened by '====' on the next line "
        "is never closed, so it runs to the end of the issue, as Asciidoctor reads it: every "
        "line after it is inside it; put '====' on a line of its own where the block ends"
    ]


def test_an_asciidoc_block_never_closed_in_a_list_item_ends_with_the_item() -> None:
    body = "- [WARNING]\n  ====\n  小心。\n- 下一项\n\n正文\n"
    assert shown(body, "zhihu") == (
        "<ul><li><blockquote><b>注意</b><br>小心。</blockquote></li><li>下一项</li></ul><p>正文</p>"
    )


# --- newsletter services: a condition's else and end ----------------------------------------------


def test_the_else_and_end_of_a_newsletter_condition_are_named_with_it(
    body_warnings: BodyWarnings,
) -> None:
    # '{% else %}' and '{% endif %}' were called a Jekyll or Hexo template tag.
    body = (
        "{% if subscriber.first_name %}\n你好 {{ subscriber.first_name }}\n{% else %}\n你好\n"
        "{% endif %}\n\n{% if page.draft %}草稿{% endif %}\n"
    )
    said = body_warnings(body)
    assert [line.split(": warning: ")[1].split("' is ")[0] for line in said] == [
        "'{% if subscriber.first_name %}", "'{{ subscriber.first_name }}", "'{% else %}",
        "'{% endif %}", "'{% if page.draft %}",
    ]  # fmt: skip
    assert ["newsletter service" in line for line in said] == [True] * 4 + [False]
    assert "a Jekyll or Hexo template tag" in said[-1]


# --- Ulysses: comments and annotations ------------------------------------------------------

ULYSSES = (
    "%% 这段要再核实一下数据来源\n"
    "本周最重要的论文是 {FlashAttention-3}(需要确认日期)，速度提升明显。\n\n"
    "%% TODO 补一张图\n\n正文继续，`{a}(b)` 不动。\n"
)


def test_ulysses_comment_lines_are_left_out_and_an_annotation_keeps_its_words(
    check_lines: CheckLines,
) -> None:
    # The two comment lines were read as Obsidian's comment from one '%%' to the next:
    # the paragraph between them was left out, unsaid, and ' TODO 补一张图' was shown.
    for channel in CHANNELS:
        seen = _lines(shown(ULYSSES, channel))
        assert "本周最重要的论文是 FlashAttention-3，速度提升明显。" in seen, channel
        assert "%%" not in seen and "核实" not in seen and "TODO" not in seen, channel
        assert "需要确认日期" not in seen and "{a}(b)" in seen, channel
    said = [line for line in check_lines("---\ntitle: U\n---\n" + ULYSSES) if "Ulysses" in line]
    assert said == [
        "issue.md:4: warning: '%% 这段要再核实一下数据来源' is a comment line (Ulysses's): the "
        "writer's note to self, left out of every channel; write it without '%%' if readers "
        "should see it",
        "issue.md:5: warning: '{FlashAttention-3}(需要确认日期)' is an annotation (Ulysses's): its "
        "words 'FlashAttention-3' are shown, its note left out of every channel; write the "
        "note in the text if readers should see it",
        "issue.md:7: warning: '%% TODO 补一张图' is a comment line (Ulysses's): the writer's note "
        "to self, left out of every channel; write it without '%%' if readers should see it",
    ]


def test_ulysses_inline_comments_are_left_out_wherever_they_stand(
    check_lines: CheckLines,
) -> None:
    # '++…++' was read as inserted text: the writer's comments went out underlined.
    body = (
        "%% 这段要再核实\n\n本周 ++问一下作者++ 有三篇论文，行尾也有++尾注++\n\n"
        "++整段都是评论，\n跨了两行++\n\n开头 ++评论开始\n中间一行\n评论结束++ 结尾。\n\n"
        "- 列表里 ++列表评论++ 也一样\n\n代码 `a ++b++ c` 不动，C++ 和 g++ 与 ++i 照写。\n"
    )
    for channel in CHANNELS:
        seen = _lines(shown(body, channel))
        assert "本周 有三篇论文，行尾也有\n" in seen and "开头 结尾。" in seen, channel
        assert "列表里 也一样" in seen and "a ++b++ c" in seen and "与 ++i 照写" in seen
        for comment in ("问一下", "尾注", "整段", "跨了", "评论", "中间一行"):
            assert comment not in seen, (channel, comment)
        assert "<ins>" not in shown(body, channel) and "<u>" not in shown(body, channel)
    said = [line for line in check_lines("---\ntitle: U\n---\n" + body) if "'++" in line]
    assert [line.split(" is a comment")[0] for line in said] == [
        "issue.md:6: warning: '++问一下作者++'",
        "issue.md:6: warning: '++尾注++'",
        "issue.md:8: warning: '++整段都是评论， 跨了两行++'",
        "issue.md:11: warning: '++评论开始 中间一行 评论结束++'",
        "issue.md:15: warning: '++列表评论++'",
    ]
    assert said[0].endswith(
        " is a comment (Ulysses's): the writer's note to self, left out of every channel; "
        "write it without '++' if readers should see it"
    )


def test_underlined_text_of_other_editors_stays_underlined_where_no_ulysses_mark_is(
    body_warnings: BodyWarnings,
) -> None:
    # doocs/md (a WeChat editor), Joplin and markdown-it-ins write '++underlined++'.
    body = "用两个加号包裹文字：++下划线++。\n"
    assert "<u>下划线</u>" in shown(body, "zhihu")
    assert body_warnings(body) == []


def test_an_obsidian_comment_opened_on_a_line_of_words_still_runs_to_its_closing_mark() -> None:
    body = "公开。\n\n%% 从这里开始私密\n\n私密的一段\n\n到这里结束 %%\n\n后面公开。\n"
    assert _lines(shown(body, "zhihu")).split() == ["公开。", "后面公开。"]


# --- MkDocs Material (PyMdown Caret): ^^^x^^^ --------------------------------------------------


def test_three_carets_are_inserted_and_superscript_as_caret_makes_them() -> None:
    # Both channels showed '^<u>x</u>^'.
    body = "^^^上标^^^ 和 ^^^x^^^，谢谢^^^哈^^^。\n"
    assert "<ins><sup>x</sup></ins>" in re.sub(r' style="[^"]*"', "", shown(body, "wechat"))
    zhihu = shown(body, "zhihu")
    assert "<u>ˣ</u>" in zhihu and "^<u>" not in zhihu
    assert "谢谢^^^哈^^^" in zhihu  # glued to the words around it: no marks, as Caret reads it


# --- MDX: a component defined on one line --------------------------------------------------------


def test_a_one_line_component_of_mdx_is_left_out_anywhere_in_the_post() -> None:
    # Shown as 'export const Highlight = ({children, color}) => ({children});', its tag
    # eaten as raw HTML.
    body = (
        "import Tabs from '@theme/Tabs';\n\n开头。\n\n"
        "export const Highlight = ({children, color}) => (<span style={{color}}>{children}"
        '</span>);\n\n这是 <Highlight color="#25c2a0">高亮</Highlight> 的文字。\n'
    )
    for channel in CHANNELS:
        seen = _lines(shown(body, channel))
        assert "export" not in seen and "children" not in seen, channel
        assert "开头。" in seen and "高亮" in seen, channel
    assert "export const" in _lines(shown("开头。\n\nexport const x = 1;\n", "zhihu"))  # no MDX


# --- Jupyter and terminals: carriage returns -----------------------------------------------------


def test_a_progress_bar_redrawn_with_carriage_returns_shows_its_last_state(
    tmp_path: Path,
) -> None:
    # Every state was a line of its own, and the indented output's later states a
    # paragraph of text after the code block.
    issue = tmp_path / "issue.md"
    issue.write_bytes(
        "---\ntitle: 进度\n---\n\n```\n  0%|          | 0/9\r 50%|█████     | 4/9\r"
        "100%|██████████| 9/9\nDone\n```\n\n    Epoch 1 loss 9.99\rEpoch 2 loss 0.5\n    ok\n\n"
        "文字\r第二行\n".encode()
    )
    loaded = read_issue(issue)
    for channel in CHANNELS:
        seen = _lines(render(loaded, channel, RenderContext()).body)
        assert "100%|██████████| 9/9" in seen and "50%" not in seen, channel
        assert "Epoch 2 loss 0.59" in seen and "Epoch 1" not in seen, channel
        assert "ok" in seen and "文字" in seen and "第二行" in seen, channel


def test_a_progress_bar_in_a_list_item_or_a_quote_shows_its_last_state(
    tmp_path: Path,
) -> None:
    # Only a fence at the top was read so: in a list item or a quote every state of the
    # bar was a line of its own, the later ones out of the block ('50%|…' as text).
    issue = tmp_path / "issue.md"
    issue.write_bytes(
        "---\ntitle: 进度\n---\n\n1. 安装依赖：\n\n   ```text\n   $ pip install torch\n"
        "     0%|     | 0/9\r 50%|██   | 4/9\r100%|█████| 9/9\n   ```\n\n"
        "> 训练日志：\n>\n> ```\n> Epoch 1 loss 9.99\rEpoch 2 loss 0.5\n> done\n> ```\n\n"
        "- 嵌套：\n  > ~~~\n  > ab\rX\n  > ~~~\n\n"
        "- 缩进代码：\n\n      step 1/3\rstep 3/3\n".encode()
    )
    loaded = read_issue(issue)
    for channel in CHANNELS:
        seen = _lines(render(loaded, channel, RenderContext()).body)
        assert "$ pip install torch\n100%|█████| 9/9\n" in seen, channel
        assert "50%" not in seen and " 0%" not in seen, channel
        assert "Epoch 2 loss 0.59\ndone" in seen and "Epoch 1" not in seen, channel
        assert "Xb" in seen and "step 3/3" in seen and "step 1" not in seen, channel


def test_a_file_whose_lines_end_in_carriage_returns_alone_keeps_its_lines(
    tmp_path: Path,
) -> None:
    issue = tmp_path / "issue.md"
    issue.write_bytes("---\rtitle: 旧 Mac\r---\r\r```\ra\rb\r```\r".encode())
    assert "a\nb" in render(read_issue(issue), "zhihu", RenderContext()).body


# --- Telegram Desktop: a channel's export -------------------------------------------------------


def _telegram_export(folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(FIXTURES / "telegram-messages.html", folder / "messages.html")
    (folder / "photos").mkdir()
    for number, stamp in ((1, "18-11-2026_09-31-40"), (2, "20-11-2026_18-02-11"),
                          (3, "20-11-2026_18-02-11")):  # fmt: skip
        for ending in ("", "_thumb"):
            picture = folder / "photos" / f"photo_{number}@{stamp}{ending}.jpg"
            Image.new("RGB", (64, 40), (number * 60, 90, 160)).save(picture, "JPEG")
    return folder / "messages.html"


def test_a_telegram_channels_export_imports_each_post_with_its_time_and_photos(
    tmp_path: Path,
) -> None:
    # 'has no article body (no #js_content or Post-RichText); save the article page itself'.
    page = _telegram_export(tmp_path / "ChatExport_2026-11-21")
    output = tmp_path / "issue" / "issue.md"
    article = import_telegram(page, output)
    assert article.document == (
        "---\ntitle: AI系统前沿 2026-11-18 – 2026-11-20\n"
        "first_published: '2026-11-18T09:30:12+08:00'\n---\n\n"
        "## 2026-11-18 09:30\n\n**FlashAttention-3** 发布了。  \n"
        "速度提升 1.5–2 倍，见[论文](https://arxiv.org/abs/2407.08608)。  \n#注意力\n\n"
        "## 2026-11-18 09:31\n\n![](<images/photo_1@18-11-2026_09-31-40.jpg>)\n\n"
        "FlashAttention-3 的流水线示意\n\n"
        "## 2026-11-20 10:05\n\n> 转自 **OneFlow**（2026-11-19 20:00）\n>\n"
        "> 分布式训练系列第 8 篇：[流水线并行](https://example.com/dist-8)\n\n"
        "## 2026-11-20 18:02\n\n![](<images/photo_2@20-11-2026_18-02-11.jpg>)\n\n"
        "![](<images/photo_3@20-11-2026_18-02-11.jpg>)\n\n本周会议现场\n\n"
        "## 2026-11-20 18:30\n\n<video></video>\n\n演讲录像\n"
    )
    assert article.warnings == (
        "message 7: a video is not in the export (Telegram Desktop: 'Not included, change "
        "data exporting settings to download.'), so a line linking nowhere is shown in its "
        "place; export the chat again with it ticked, or put it on the web and link to it",
    )
    assert sorted(path.name for path in article.images_copied) == [
        "photo_1@18-11-2026_09-31-40.jpg",
        "photo_2@20-11-2026_18-02-11.jpg",
        "photo_3@20-11-2026_18-02-11.jpg",
    ]
    output.write_text(article.document, "utf-8")
    assert load_issue(output).title == "AI系统前沿 2026-11-18 – 2026-11-20"


def test_crosspost_import_reads_a_telegram_export_and_its_later_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = _telegram_export(tmp_path / "export")
    later = (FIXTURES / "telegram-messages.html").read_text("utf-8")
    later = later.replace('id="message2"', 'id="message1002"').replace("09:30:12", "09:00:00")
    later = later.replace("18.11.2026 09:00:00", "21.11.2026 09:00:00")
    (page.parent / "messages2.html").write_text(later, "utf-8")
    output = tmp_path / "issue.md"
    assert main(["import", str(page), "-o", str(output)]) == 0
    document = output.read_text("utf-8")
    assert "## 2026-11-21 09:00" in document  # from messages2.html
    assert "2026-11-18 – 2026-11-21" in document
    assert capsys.readouterr().out == f"wrote {output} (3 images copied, 2 warnings)\n"


def _telegram_message(number: int, stamp: str, media: str, text: str = "") -> str:
    """A message of Telegram Desktop's export, posted on 21.11.2026 at ``stamp``."""
    words = f'<div class="text">\n{text}\n</div>' if text else ""
    return (
        f'<div class="message default clearfix" id="message{number}"><div class="body">'
        f'<div class="pull_right date details" title="21.11.2026 {stamp} UTC+08:00">'
        f'</div><div class="media_wrap clearfix">{media}</div>{words}</div></div>\n'
    )


def _generic_media(kind: str, title: str, status: str, href: str = "") -> str:
    """Telegram Desktop's media of one kind: a link to its file, or (none) a box saying
    the export left it out."""
    opening = (
        f'<a class="media clearfix pull_left block_link {kind}" href="{href}">'
        if href
        else f'<div class="media clearfix pull_left {kind}">'
    )
    missing = (
        ""
        if href
        else (
            '<div class="description">Exceeds maximum size, change data exporting settings '
            "to download.</div>"
        )
    )
    return (
        f'{opening}<div class="fill pull_left"></div><div class="body"><div class="title '
        f'bold">{title}</div>{missing}<div class="status details">{status}</div></div>'
        f"{'</a>' if href else '</div>'}"
    )


def test_a_telegram_exports_videos_sounds_and_files_are_lines_linking_to_them(
    tmp_path: Path, check_lines: CheckLines
) -> None:
    # They vanished from the issue: a warning at import, nothing in the article.
    page = _telegram_export(tmp_path / "ChatExport")
    for folder, name in (("video_files", "talk.mp4"), ("voice_messages", "audio_1.ogg"),
                         ("files", "report 2026.pdf")):  # fmt: skip
        (page.parent / folder).mkdir(exist_ok=True)
        (page.parent / folder / name).write_bytes(b"\0" * 64)
    Image.new("RGB", (64, 36)).save(page.parent / "video_files" / "talk.mp4_thumb.jpg")
    messages = (
        _telegram_message(
            8, "10:00:00",
            '<a class="video_file_wrap clearfix pull_left" href="video_files/talk.mp4">'
            '<div class="video_play_bg"><div class="video_play"></div></div><div '
            'class="video_duration">00:42</div><img class="video_file" '
            'src="video_files/talk.mp4_thumb.jpg"/></a>',
            "大会演讲",
        )
        + _telegram_message(9, "10:05:00", _generic_media(
            "media_voice_message", "Voice message", "00:12", "voice_messages/audio_1.ogg"))
        + _telegram_message(10, "10:10:00", _generic_media(
            "media_file", "report 2026.pdf", "1.2 MB", "files/report%202026.pdf"), "周报")
        + _telegram_message(11, "10:15:00", _generic_media(
            "media_file", "slides_v2.pptx", "80.0 MB"))
    )  # fmt: skip
    html = page.read_text("utf-8").replace(
        "    </div>\n\n   </div>\n\n  </div>\n\n </body>",
        messages + "    </div></div></div></body>",
    )
    page.write_text(html, "utf-8")
    output = tmp_path / "issue" / "issue.md"
    article = import_telegram(page, output)
    assert article.document.endswith(
        '## 2026-11-21 10:00\n\n<video src="../ChatExport/video_files/talk.mp4" '
        'poster="images/talk.mp4_thumb.jpg"></video>\n\n大会演讲\n\n'
        '## 2026-11-21 10:05\n\n<audio src="../ChatExport/voice_messages/audio_1.ogg">'
        "</audio>\n\n"
        "## 2026-11-21 10:10\n\n[report 2026.pdf](<../ChatExport/files/report 2026.pdf>)\n\n"
        "周报\n\n"
        "## 2026-11-21 10:15\n\nslides\\_v2.pptx\n"
    )
    assert article.warnings[1:] == (
        "message 8: a video is shown as a link to its file in the export "
        "(../ChatExport/video_files/talk.mp4), which no reader can follow; put the file on "
        "the web and write its address in the issue",
        "message 9: a voice message is shown as a link to its file in the export "
        "(../ChatExport/voice_messages/audio_1.ogg), which no reader can follow; put the "
        "file on the web and write its address in the issue",
        "message 10: a file is shown as a link to its file in the export "
        "(../ChatExport/files/report 2026.pdf), which no reader can follow; put the file on "
        "the web and write its address in the issue",
        "message 11: a file (slides_v2.pptx) is not in the export (Telegram Desktop: "
        "'Exceeds maximum size, change data exporting settings to download.'), so its name "
        "is shown in its place; export the chat again with it ticked, or put it on the web "
        "and link to it",
    )
    output.write_text(article.document, "utf-8")
    zhihu = render(read_issue(output), "zhihu", RenderContext()).body
    assert '<img src="images/talk.mp4_thumb.jpg"' in zhihu and "▶ 视频" in zhihu
    assert "▶ 音频" in zhihu and "report 2026.pdf" in zhihu and "slides_v2.pptx" in zhihu
    said = [line for line in check_lines(article.document) if "ChatExport" in line]
    assert [line.split(" warning: ")[0] for line in said] == [
        "issue.md:40:",
        "issue.md:46:",
        "issue.md:50:",
    ]
    assert "its source '../ChatExport/video_files/talk.mp4' is no web address" in said[0]
    assert "its source '../ChatExport/voice_messages/audio_1.ogg' is no web addr" in said[1]
    assert "the link to '../ChatExport/files/report 2026.pdf' is a path on your" in said[2]


# --- Obsidian Canvas, passed by mistake -----------------------------------------------------------

CANVAS = (
    '{\n\t"nodes":[\n\t\t{"id":"8a2b","type":"text","text":"# 本周要点","x":0,"y":0,'
    '"width":400,"height":240},\n\t\t{"id":"1f2e","type":"file","file":"Issues/48.md",'
    '"x":500,"y":0,"width":400,"height":400}\n\t],\n\t"edges":[\n\t\t{"id":"e1",'
    '"fromNode":"8a2b","toNode":"1f2e"}\n\t]\n}'
)
CANVAS_LINE = (
    "is an Obsidian Canvas (JSON of cards and arrows), not a Markdown note; pass the note "
    "a card shows (this one shows 'Issues/48.md'), or copy the text cards into a .md file"
)


def test_an_obsidian_canvas_is_named_and_refused_by_render_check_and_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # render wrote empty pages; check said 'nodes' and 'edges' are unused front matter
    # fields and the body too short; import wrote an issue of nothing (0 items).
    canvas = tmp_path / "Weekly.canvas"
    canvas.write_text(CANVAS, "utf-8")
    with pytest.raises(IssueError) as raised:
        read_issue(canvas, lenient=True)
    assert str(raised.value) == f"{canvas}:1: {CANVAS_LINE}"
    output = tmp_path / "out"
    assert main(["render", str(canvas), "-o", str(output)]) == 2
    assert not output.exists()
    assert main(["import", str(canvas), "-o", str(tmp_path / "w.md")]) == 2
    assert not (tmp_path / "w.md").exists()
    assert capsys.readouterr().err.count(CANVAS_LINE) == 2


def test_a_telegram_photo_outside_the_exports_folder_is_not_copied(tmp_path: Path) -> None:
    # A page naming '../secret.jpg' or an absolute path had that file copied into images/.
    page = _telegram_export(tmp_path / "ChatExport")
    secret = tmp_path / "secret.jpg"
    Image.new("RGB", (8, 8)).save(secret, "JPEG")
    html = page.read_text("utf-8")
    html = html.replace('href="photos/photo_1@18-11-2026_09-31-40.jpg"', 'href="../secret.jpg"')
    html = html.replace('href="photos/photo_2@20-11-2026_18-02-11.jpg"', f'href="{secret}"')
    page.write_text(html, "utf-8")
    (page.parent / "photos" / "photo_1@18-11-2026_09-31-40_thumb.jpg").unlink()
    (page.parent / "photos" / "photo_2@20-11-2026_18-02-11_thumb.jpg").unlink()
    article = import_telegram(page, tmp_path / "issue" / "issue.md")
    assert [path.name for path in article.images_copied] == ["photo_3@20-11-2026_18-02-11.jpg"]
    assert "secret" not in article.document
    assert sum("its photo is not in the export's folder" in w for w in article.warnings) == 2
