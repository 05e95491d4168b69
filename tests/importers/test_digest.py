"""The plain-text digest importer: every item, link, author list, abstract and note survives."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from crosspost.cli import main
from crosspost.importers.digest import convert_digest, import_digest
from crosspost.issue.loader import load_issue

SEED = Path(__file__).resolve().parents[2].parent / "shared" / "seeds" / "000_c5131b8f50e07dec.txt"

BASIC = """这是某社区发布的第7期《系统周报》,每周一期。
1. 第一篇文章(first paper)
链接:https://example.com/a.pdf
作者:alice, bob
发表时间:2020
摘要:第一段摘要。
第二段摘要。
(译注:这是译注。)
2. 第二篇
链接:https://mp.weixin.qq.com/s/abc
其他人都在看
往期一
往期二
欢迎关注我们的公众号,获取更多内容:https://example.com/follow
关键词:系统,编译器
"""


def visible_text(document: str) -> str:
    body = document.split("---\n", 2)[2]
    rendered = MarkdownIt("commonmark").render(body)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def squash(text: str) -> str:
    """Compare text without white space, with half- and full-width colons alike."""
    return re.sub(r"\s+", "", text).replace("：", ":")


def test_basic_digest_keeps_every_field_and_note() -> None:
    result = convert_digest(BASIC)
    assert result.items == 2
    assert result.warnings == ()
    text = squash(visible_text(result.document))
    for sentence in ("第一段摘要。", "第二段摘要。", "这是译注。", "alice,bob", "往期二"):
        assert sentence in text
    assert "title: 系统周报 第7期" in result.document
    assert "<https://example.com/a.pdf>" in result.document
    assert "topics:\n  - 系统\n  - 编译器" in result.document or "- 系统" in result.document
    assert "> (译注:这是译注。)" in result.document
    assert "## 其他人都在看\n\n- 往期一\n- 往期二" in result.document


# Eight ways the same digest arrives in real life; each must import without loss.
VARIATIONS = {
    "full-width colons": BASIC.replace("链接:", "链接：").replace("作者:", "作者："),
    "numbering with 、": BASIC.replace("1. ", "1、").replace("2. ", "2、"),
    "circled numbers": BASIC.replace("1. ", "①").replace("2. ", "②"),
    "windows line endings": BASIC.replace("\n", "\r\n"),
    "byte order mark": "\ufeff" + BASIC,
    "extra blank lines": BASIC.replace("\n", "\n\n\n"),
    "missing fields": BASIC.replace("作者:alice, bob\n", "").replace("发表时间:2020\n", ""),
    "full-width parentheses": BASIC.replace("(译注:这是译注。)", "（译注：这是译注。）"),
    "note over several lines": BASIC.replace("(译注:这是译注。)", "(译注:\n这是译注。\n第二行。)"),
}


@pytest.mark.parametrize("variant", sorted(VARIATIONS))
def test_variations_import_without_loss(variant: str, tmp_path: Path) -> None:
    source = tmp_path / "digest.txt"
    source.write_bytes(VARIATIONS[variant].encode("utf-8"))
    result = import_digest(source)
    assert result.items == 2
    text = squash(visible_text(result.document))
    for sentence in ("第一段摘要。", "这是译注。", "往期一", "欢迎关注我们的公众号"):
        assert sentence in text, variant
    assert "https://example.com/a.pdf" in result.document
    assert "https://mp.weixin.qq.com/s/abc" in result.document
    # the result is a document crosspost itself accepts
    issue_file = tmp_path / "issue.md"
    issue_file.write_text(result.document, encoding="utf-8")
    assert load_issue(issue_file).title == "系统周报 第7期"


def test_numbering_gap_is_kept_as_text_and_warned_with_its_line() -> None:
    text = "引言。\n1. 第一篇\n内容一。\n5. 不是第二篇\n内容二。\n"
    result = convert_digest(text)
    assert result.items == 1
    assert [(w.line, "numbering" in w.message) for w in result.warnings] == [(4, True)]
    assert "不是第二篇" in visible_text(result.document)


def test_unclosed_note_is_kept_and_warned() -> None:
    result = convert_digest("1. 标题\n摘要:内容。\n(译注:没有结束\n后面的文字\n")
    assert any("never closed" in w.message and w.line == 3 for w in result.warnings)
    assert "后面的文字" in visible_text(result.document)


def test_markdown_characters_in_text_stay_literal() -> None:
    result = convert_digest("1. a*b*c [x] <y>\n# 不是标题\n> 不是引用\n- 不是列表\n")
    text = visible_text(result.document)
    for literal in ("a*b*c [x] <y>", "# 不是标题", "> 不是引用", "- 不是列表"):
        assert literal in text


def test_import_command_writes_the_issue_and_warns_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "digest.txt"
    source.write_text("(资料图)\n" + BASIC, encoding="utf-8")
    assert main(["import", str(source)]) == 0
    out, err = capsys.readouterr()
    assert (tmp_path / "digest.md").is_file()
    assert f"{source}:1: warning: image placeholder (资料图): add the image here" in err
    assert "2 items" in out
    # a second import refuses to overwrite the editor's file
    assert main(["import", str(source)]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err


def test_non_utf8_digest_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "digest.txt"
    source.write_bytes("1. 标题\n".encode("gbk"))
    assert main(["import", str(source)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not UTF-8" in err[0]


def seed_text() -> str:
    if not SEED.is_file():
        pytest.skip("../shared/seeds is not beside the repository")
    return SEED.read_text(encoding="utf-8")


def test_seed_imports_with_all_items_links_and_notes() -> None:
    seed = seed_text()
    result = convert_digest(seed)
    assert result.items == 12
    links = re.findall(r"^链接[:：](\S+)", seed, flags=re.M)
    assert len(set(links)) == 11
    for url in links:
        assert f"<{url}>" in result.document
    for line in seed.splitlines():
        if line.startswith(("作者:", "摘要:")):
            assert squash(line.split(":", 1)[1])[:40] in squash(visible_text(result.document))
    assert result.document.count("> (译注:") == 3
    assert result.document.count("> (注:") == 1


def test_seed_keeps_every_chinese_sentence() -> None:
    seed = seed_text()
    text = squash(visible_text(convert_digest(seed).document))
    sentences = [
        squash(s)
        for s in re.split(r"[。!?！？\n]", seed)
        if re.search(r"[\u4e00-\u9fff]", s) and not s.strip().startswith(("关键词", "(资料图)"))
    ]
    missing = [s for s in sentences if s and s not in text]
    assert missing == []


@pytest.mark.parametrize("channel", ["wechat", "zhihu"])
def test_imported_seed_renders_every_item_link_author_and_abstract(
    channel: str, tmp_path: Path
) -> None:
    from bs4 import BeautifulSoup

    from crosspost.render.rendered import render

    seed = seed_text()
    issue_file = tmp_path / "issue.md"
    issue_file.write_text(convert_digest(seed).document, encoding="utf-8")
    rendered = render(load_issue(issue_file), channel)
    text = squash(BeautifulSoup(rendered.body, "html.parser").get_text())
    for number in range(1, 13):
        assert f"{number}." in text
    for url in set(re.findall(r"^链接[:：](\S+)", seed, flags=re.M)):
        assert url in rendered.body, f"{channel} lost {url}"
    for line in seed.splitlines():
        if line.startswith(("作者:", "摘要:")):
            assert squash(line.split(":", 1)[1]) in text
    for note in re.findall(r"[(（](?:译注|注)[:：]([^\n)）]{4,30})", seed):
        assert squash(note) in text


def test_import_into_a_path_that_cannot_be_written_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "digest.txt"
    source.write_text("标题\n\n1. 一篇文章\n", encoding="utf-8")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be", encoding="utf-8")
    assert main(["import", str(source), "-o", str(blocker / "issue.md")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert f"{blocker / 'issue.md'}: cannot write (" in err[0]
    assert err[0].endswith("; check the folder exists, is a folder and may be written, "
                           "or choose another with -o")  # fmt: skip


def test_digest_warnings_are_not_named_like_the_builtin() -> None:
    import crosspost.importers.digest as digest

    assert not hasattr(digest, "Warning")
    assert digest.DigestWarning(3, "x").line == 3
